"""Observing passes: an observer that is told how each pass goes, whichever backend runs it."""

from __future__ import annotations

import contextlib
import contextvars


class PassObserver:
    """What is told of every pass run by a backend's tasks while :func:`observe_passes` holds it (the methods
    do nothing here; an observer overrides those it needs).

    Events are generic: a pass of a kind (the ``name`` its caller gave it, or None) started, ``done`` of its
    ``total`` tasks are finished, the pass finished. What a kind means, and how it is shown, is the
    observer's business.
    """

    def pass_started(self, kind):
        """A pass of ``kind`` starts."""

    def pass_progressed(self, done, total):
        """``done`` of the pass's ``total`` tasks are finished (told only on Dask's local schedulers)."""

    def pass_finished(self):
        """The pass ended (done, or failed)."""


_observer = contextvars.ContextVar("nbparallel_pass_observer", default=None)


def current_observer():
    """The observer :func:`observe_passes` holds, or None."""
    return _observer.get()


@contextlib.contextmanager
def observe_passes(observer):
    """Within the block, every pass run by a backend's tasks tells ``observer`` (a :class:`PassObserver`) how
    it goes, instead of drawing a bar of its own.

    Parameters
    ----------
    observer : PassObserver
        Told ``pass_started(kind)``, ``pass_progressed(done, total)`` and ``pass_finished()``.

    Examples
    --------
    >>> from nbparallel import observe_passes
    >>> class Printer:
    ...     def pass_started(self, kind): print("started", kind)
    ...     def pass_progressed(self, done, total): pass
    ...     def pass_finished(self): print("finished")
    >>> with observe_passes(Printer()):
    ...     pass
    """
    reset = _observer.set(observer)
    try:
        yield observer
    finally:
        _observer.reset(reset)

"""What a command shows while it works: one labelled progress line for the whole command, drawn from the
engine's pass events, and a notice while numba compiles the kernels on their first use (they are cached on
disk for the next process)."""

from __future__ import annotations

import contextlib
import sys

from nbparallel.engine.progress import ProgressLine

COMPILE_NOTICE = "nbparallel: compiling kernels on first use (a few seconds; cached for later runs) ..."


@contextlib.contextmanager
def progress_line(totals=None, out=None):
    """Within the block, every pass run on Dask is drawn on one labelled :class:`ProgressLine`."""
    from nbparallel import observe_passes

    line = ProgressLine(totals, out)
    try:
        with observe_passes(line):
            yield line
    finally:
        line.pass_finished()


@contextlib.contextmanager
def watching_compiles(on_start):
    """Within the block, ``on_start()`` is called each time numba starts compiling a kernel."""
    import numba.core.event as ev

    class Listener(ev.Listener):
        def on_start(self, event):
            on_start()

        def on_end(self, event):
            pass

    listener = Listener()
    ev.register("numba:compile", listener)
    try:
        yield
    finally:
        ev.unregister("numba:compile", listener)


@contextlib.contextmanager
def compile_notice(out=None):
    """Within the block, print :data:`COMPILE_NOTICE` once, on its own line, when numba starts compiling.

    Kernels compile in the threads that run the tasks, several at once: a lock makes the first one say it."""
    import threading

    out = out or sys.stderr
    said = []
    lock = threading.Lock()

    def notice():
        with lock:
            if said:
                return
            said.append(True)
        out.write(f"\r{COMPILE_NOTICE}\n")
        out.flush()

    with watching_compiles(notice):
        yield


class CompileWatch:
    """Whether numba compiled anything while the watch was on (``with CompileWatch() as watch``, then
    ``watch.compiled``): a timing that includes compiling says so instead of passing it for work."""

    def __init__(self):
        self.compiled = False
        self._watching = contextlib.ExitStack()

    def __enter__(self):
        self._watching.enter_context(watching_compiles(self._seen))
        return self

    def __exit__(self, *exc):
        self._watching.close()

    def _seen(self):
        self.compiled = True


def command_display(args):
    """The progress line and compile notice of a verb with ``--quiet`` (nothing with ``--quiet``).

    Iterative verbs give their pass counts: ``EM iteration 12/100``, ``boosting round 3/10``.
    """
    stack = contextlib.ExitStack()
    if getattr(args, "quiet", True):
        return stack
    totals = {}
    if getattr(args, "boost", None):
        totals["boost"] = args.boost
    if getattr(args, "max_iter", None):
        totals["em"] = args.max_iter
    stack.enter_context(progress_line(totals))
    stack.enter_context(compile_notice())
    return stack

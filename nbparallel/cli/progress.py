"""What a command shows while it works: one labelled progress line for the whole command, drawn from the
engine's pass events, and a notice while numba compiles the kernels on their first use (they are cached on
disk for the next process)."""

from __future__ import annotations

import contextlib
import sys

#: pass kinds (the ``name`` a model gives its passes) -> the label a progress line shows
PASS_LABELS = {"schema": "schema", "cv-schema": "schema", "count": "count", "cv-count": "count",
               "text-count": "count", "cv-text-count": "count", "score": "score", "evaluate": "score",
               "cv-score": "score", "cv-text-score": "score", "predict": "score", "select": "select step",
               "select-test": "test data", "em": "EM iteration", "boost": "boosting round",
               "autoclass-predict": "score", "boost-predict": "score"}

#: kinds that repeat, shown with their number (``boosting round 3``)
NUMBERED = ("em", "boost", "select")

COMPILE_NOTICE = "nbparallel: compiling kernels on first use (a few seconds; cached for later runs) ..."


class ProgressLine:
    """One progress line for a whole command, on stderr: each pass's label and its share of tasks done.

    An observer of the engine's pass events (``nbparallel.observe_passes``): every pass is drawn on this
    one line (``count``, ``EM iteration 12/100``, ``boosting round 3/10``) instead of a bar per pass.
    ``totals`` gives the number of passes of an iterative kind (``{"em": 100}``).
    """

    def __init__(self, totals=None, out=None, width=30):
        self.totals, self.out, self.width = dict(totals or {}), out or sys.stderr, width
        self.seen = {}
        self.label = ""
        self.drawn = 0.0
        self.used = False

    def pass_started(self, kind):
        kind = kind or "pass"
        self.seen[kind] = self.seen.get(kind, 0) + 1
        label = PASS_LABELS.get(kind, kind)
        if kind in self.totals:
            label = f"{label} {self.seen[kind]}/{self.totals[kind]}"
        elif kind in NUMBERED:
            label = f"{label} {self.seen[kind]}"
        self.label = label
        self.draw(0.0, force=True)

    def pass_progressed(self, done, total):
        self.draw(done / max(total, 1))

    def pass_finished(self):
        """Erase the line: the next pass, or the command's output, takes its place."""
        if self.used:
            self.out.write("\r" + " " * (self.width + 32) + "\r")
            self.out.flush()
            self.used = False

    def draw(self, fraction, force=False):
        import time

        now = time.monotonic()
        if not force and now - self.drawn < 0.1 and fraction < 1:
            return
        self.drawn, self.used = now, True
        done = int(round(self.width * fraction))
        self.out.write(f"\r{self.label:<24} [{'#' * done}{' ' * (self.width - done)}] {fraction:4.0%}")
        self.out.flush()


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
    """Within the block, print :data:`COMPILE_NOTICE` once, on its own line, when numba starts compiling."""
    out = out or sys.stderr
    said = []

    def notice():
        if not said:
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

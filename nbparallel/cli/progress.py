"""What a command shows while it works: one labelled progress line for the whole command, and a notice
while numba compiles the kernels on their first use (they are cached on disk for the next process)."""

from __future__ import annotations

import contextlib
import sys

COMPILE_NOTICE = "nbparallel: compiling kernels on first use (a few seconds; cached for later runs) ..."


@contextlib.contextmanager
def compile_notice(out=None):
    """Within the block, print :data:`COMPILE_NOTICE` once, on its own line, when numba starts compiling."""
    import numba.core.event as ev

    out = out or sys.stderr
    said = []

    class Notice(ev.Listener):
        def on_start(self, event):
            if not said:
                said.append(True)
                out.write(f"\r{COMPILE_NOTICE}\n")
                out.flush()

        def on_end(self, event):
            pass

    listener = Notice()
    ev.register("numba:compile", listener)
    try:
        yield
    finally:
        ev.unregister("numba:compile", listener)


def command_display(args):
    """The progress line and compile notice of a verb with ``--quiet`` (nothing with ``--quiet``).

    Iterative verbs give their pass counts: ``EM iteration 12/100``, ``boosting round 3/10``.
    """
    stack = contextlib.ExitStack()
    if getattr(args, "quiet", True):
        return stack
    from nbparallel.engine.execution import progress

    totals = {}
    if getattr(args, "boost", None):
        totals["boost"] = args.boost
    if getattr(args, "max_iter", None):
        totals["em"] = args.max_iter
    stack.enter_context(progress(totals))
    stack.enter_context(compile_notice())
    return stack

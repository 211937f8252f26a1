"""The command display: the compile notice once per command whatever the threads, the labels of the passes."""

import io
import sys
import threading

import numba.core.event as numba_events

from nbparallel.cli.progress import COMPILE_NOTICE, compile_notice
from nbparallel.engine.progress import PASS_LABELS, ProgressLine

COMPILE_EVENT = {"dispatcher": None, "args": (), "return_type": None}


def notices_of_kernels_compiling_at_once(n_threads):
    """The compile notices printed while ``n_threads`` threads start compiling together (numba's events, as
    the tasks' threads fire them), with threads switching as often as they can so that a race shows."""
    out = io.StringIO()
    together = threading.Barrier(n_threads, timeout=30)

    def compile_a_kernel():
        together.wait()
        numba_events.start_event("numba:compile", data=COMPILE_EVENT)
        numba_events.end_event("numba:compile", data=COMPILE_EVENT)

    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with compile_notice(out):
            threads = [threading.Thread(target=compile_a_kernel) for _ in range(n_threads)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(switch_interval)
    return out.getvalue().count(COMPILE_NOTICE)


def test_the_compile_notice_is_printed_once_when_kernels_compile_in_many_threads_at_once():
    assert [notices_of_kernels_compiling_at_once(8) for _ in range(50)] == [1] * 50


def test_no_notice_without_compiling():
    out = io.StringIO()
    with compile_notice(out):
        pass
    assert out.getvalue() == ""


def test_the_prediction_file_pass_is_labelled_score():
    out = io.StringIO()
    line = ProgressLine(out=out)
    line.pass_started("cli-predict")
    assert PASS_LABELS["cli-predict"] == "score"
    assert out.getvalue().lstrip("\r").startswith("score ")

"""Waiting in tests on a real condition, with a deadline: never a fixed sleep standing in for "long enough"."""

import time


def wait_until(condition, seconds, what, interval=0.005):
    """The first true value of ``condition()``, asked every ``interval`` s for at most ``seconds``.

    Raises TimeoutError naming ``what`` (what was waited for) when the deadline passes first.
    """
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{what}: not within {seconds:g} s")
        time.sleep(interval)  # sleep: the poll interval of a wait on a real condition, which ends it

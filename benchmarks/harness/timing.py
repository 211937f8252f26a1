"""Timing on a noisy machine: the best of several runs after a warm-up, alone or interleaved with others."""

from __future__ import annotations

import time

import numpy as np


def timed(fn):
    """Wall seconds of one call of ``fn()``, and what it returned."""
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def best_of(fn, repeat, warmup=True):
    """Best and median wall time of ``fn()`` over ``repeat`` runs.

    Parameters
    ----------
    fn : callable
        Called with no arguments.
    repeat : int
        Number of timed runs.
    warmup : bool
        Call ``fn`` once untimed first (numba compilation, caches).

    Returns
    -------
    best, median : float
        Seconds. The best is the least disturbed by other processes.
    """
    if warmup:
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.min(times)), float(np.median(times))


def best_interleaved(functions, repeat, warmup=None, pause=0.0):
    """Best wall time of each of ``functions`` over ``repeat`` interleaved rounds.

    Parameters
    ----------
    functions : dict
        Name -> callable with no arguments.
    repeat : int
        Number of rounds; each round calls every function once, in order, so that a slow spell of the
        machine touches all of them alike.
    warmup : iterable of str, optional
        Names of the functions to call once untimed first (numba compilation); default all of them.
    pause : float
        Seconds to sleep, untimed, before each timed call (background threads of the previous call settle).

    Returns
    -------
    best : dict
        Name -> best seconds.
    last : dict
        Name -> what the function returned in the last round.
    """
    for name in functions if warmup is None else warmup:
        functions[name]()
    best, last = dict.fromkeys(functions, float("inf")), {}
    for _ in range(repeat):
        for name, fn in functions.items():
            time.sleep(pause)
            start = time.perf_counter()
            last[name] = fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best, last

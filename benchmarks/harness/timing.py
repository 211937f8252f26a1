"""Timing a callable on a noisy machine: the best of several runs after a warm-up."""

from __future__ import annotations

import time

import numpy as np


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

"""Passes against the machine's own limit (issue 56): each pass's ns per cell and its ratio to the read rate of
the same bytes, both measured in this run.

Run: ``nbparallel bench limits [--quick]``. The data: 10^7 rows x 20 attributes of 10 values, 2 classes (10^5
rows with ``--quick``). The read rate of an array is the best of numpy's ``sum`` of its bytes as uint64 on one
thread and a compiled sum over the same threads as the pass (numba, ``nogil``, one slice of rows per thread);
a pass's ratio is that read's time over the pass's time (1 is the memory wall). Measured side by side: each
round runs every timed function once (:func:`.timing.best_interleaved`), best of the rounds. The counting
kernels alone (``count_integers``, which the fit of an integer array runs per partition, and the pairs kernel
of ``CodeCounter``, the scalar count) run on one thread and are compared with the one-thread read.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import dask
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from numba import njit

from nbparallel import NaiveBayes
from nbparallel.kernels import CodeCounter, count_integers

from .data import categorical, offsets
from .report import Result, Target

N_ROWS, N_ATTRIBUTES, N_VALUES, THREADS = 10**7, 20, 10, 2
#: every fit at least this fraction of the read rate of the same bytes (issue 56's table)
FIT_TARGET = 1 / 4


@njit(nogil=True, cache=True)
def _sum_words(words):
    total = np.uint64(0)
    for i in range(words.size):
        total += words[i]
    return total


def reads(X, threads):
    """``{name: callable}`` reading every byte of C-contiguous ``X``: numpy's sum on one thread, and the compiled
    sum on one thread and on ``threads`` threads."""
    words = X.reshape(-1).view(np.uint64)
    pieces = np.array_split(words, threads)
    pool = ThreadPoolExecutor(threads)
    return {"numpy sum, 1 thread": lambda: words.sum(),
            "compiled sum, 1 thread": lambda: _sum_words(words),
            f"compiled sum, {threads} threads": lambda: sum(pool.map(_sum_words, pieces))}


def measure(functions, repeat):
    """Best seconds of each function, interleaved (compiled kernels warmed up first)."""
    from .timing import best_interleaved

    return best_interleaved(functions, repeat)[0]


def uint8_rows(X, y, repeat):
    """Reads of the uint8 codes, their fit on ``THREADS`` threads, and the counting kernels alone."""
    lo = np.ones(N_ATTRIBUTES, np.int64)
    table_offsets = offsets(N_ATTRIBUTES, N_VALUES)  # values 1 .. 10 in rows 1 + value - lo; as codes, 0 missing
    model = NaiveBayes(categorical_features="all")

    def fit():
        with dask.config.set(scheduler="threads", num_workers=THREADS):
            model.fit(X, y)

    functions = {**reads(X, THREADS), "fit": fit,
                 "count_integers (lanes), 1 thread": lambda: count_integers(X, y, lo, table_offsets, 2),
                 "CodeCounter (pairs), 1 thread": lambda: CodeCounter(table_offsets, 2).add(X, y)}
    return "uint8 codes", X.nbytes, measure(functions, repeat)


def wide_rows(X, y, repeat, kind):
    """Reads of a wide array and the fit of it (``kind``: 'int64 codes' or 'binned float64')."""
    model = NaiveBayes(categorical_features="all") if kind == "int64 codes" else NaiveBayes(n_bins=N_VALUES)

    def fit():
        with dask.config.set(scheduler="threads", num_workers=THREADS):
            model.fit(X, y)

    return kind, X.nbytes, measure({**reads(X, THREADS), "fit": fit}, repeat)


def rows_of(data, bytes_, best, n_cells):
    """One row per pass: seconds, ns per cell, the read it is compared with and the ratio."""
    same_threads = min(best["numpy sum, 1 thread"], best[f"compiled sum, {THREADS} threads"])
    one_thread = min(best["numpy sum, 1 thread"], best["compiled sum, 1 thread"])
    rows = []
    for name, seconds in best.items():
        read = one_thread if "1 thread" in name else same_threads
        rows.append({"data": data, "pass": name, "bytes": bytes_, "seconds": seconds,
                     "ns_per_cell": seconds * 1e9 / n_cells, "read_s": read, "ratio_to_read": read / seconds})
    return rows


def run(ctx):
    """Every pass of the fit rows of issue 56's table beside the read rate of the same bytes."""
    n_rows, repeat = (10**5, 3) if ctx.quick else (N_ROWS, 7)
    n_cells = n_rows * N_ATTRIBUTES
    X, y = categorical(n_rows, N_ATTRIBUTES, N_VALUES)
    rows = rows_of(*uint8_rows(X, y, repeat), n_cells)
    rows += rows_of(*wide_rows(X.astype(np.int64), y, repeat, "int64 codes"), n_cells)
    floats = X + np.random.default_rng(1).random(X.shape)  # ten equal-width bins, as the codes
    del X
    rows += rows_of(*wide_rows(floats, y, max(3, repeat // 2), "binned float64"), n_cells)
    rows = pd.DataFrame(rows)
    fits = rows[rows["pass"] == "fit"]
    targets = [Target(f"fit of {r.data}, {THREADS} threads (read time / fit time)", r.ratio_to_read, FIT_TARGET,
                      False) for r in fits.itertuples()]
    summary = rows[["data", "pass", "ns_per_cell", "ratio_to_read"]]
    return Result("limits", rows, summary, _plot,
                  {"rows": n_rows, "attributes": N_ATTRIBUTES, "values": N_VALUES, "classes": 2,
                   "threads": THREADS, "repeat": repeat},
                  targets=targets,
                  notes=["ratio_to_read: the time to read the same bytes (the best of numpy's sum on one thread and "
                         "a compiled sum on the pass's threads) over the pass's time; >= 1/4 is the target of "
                         "every fit"])


def _plot(rows):
    passes = rows[~rows["pass"].str.contains("sum")]
    figure, axis = plt.subplots(figsize=(9, 4))
    labels = [f"{d}: {p}" for d, p in zip(passes["data"], passes["pass"])]
    axis.barh(labels, passes["ratio_to_read"], color="#4c72b0")
    axis.axvline(FIT_TARGET, color="black", linestyle="--", label="fit target")
    axis.set(xlabel="read time of the same bytes / pass time", title="Passes against the read rate")
    axis.tick_params(axis="y", labelsize=8)
    axis.legend()
    figure.tight_layout()
    return figure

"""Benchmark nbparallel.kernels.counting.count_partition against simple alternatives.

Run ``nbparallel bench kernel`` (full size) or ``--quick`` (smoke run).
Timings are best-of-``--repeat`` after a warm-up call, in ns per (row x attribute)
cell, all measured in one run on the same data.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from numba import njit
from sklearn.naive_bayes import CategoricalNB

from harness import data
from harness.context import Parameter, parameters
from harness.report import Result, Target
from harness.timing import best_of
from nbparallel.kernels import count_partition

TARGET_NS_PER_CELL = 0.3
TARGET_BINCOUNT_RATIO = 8.0
TARGET_SKLEARN_RATIO = 50.0


@njit(nogil=True, cache=True)
def plain_numba_count(codes, y, offsets, n_classes):
    """The obvious numba loop, for comparison."""
    table = np.zeros((offsets[-1], n_classes))
    for i in range(codes.shape[0]):
        for j in range(codes.shape[1]):
            table[offsets[j] + codes[i, j], y[i]] += 1
    return table


def bincount_count(codes, y, offsets, n_classes):
    """numpy.bincount over one combined (table row, class) index."""
    index = (offsets[:-1] + codes.astype(np.int64)) * n_classes + y[:, None]
    counts = np.bincount(index.ravel(), minlength=offsets[-1] * n_classes)
    return counts.reshape(offsets[-1], n_classes).astype(np.float64)


def best_seconds(fn, repeat):
    """Best seconds of ``fn()`` after a warm-up (compilation)."""
    return best_of(fn, repeat)[0]


@parameters(rows=Parameter(10_000_000, "rows of the codes", quick=20_000),
            attrs=Parameter(20, "attributes"), values=Parameter(10, "values of each attribute"),
            classes=Parameter(2, "classes"), repeat=Parameter(5, "timed runs of each", quick=2))
def run(ctx):
    """Each way of counting, in ns per cell, and the kernel's targets."""
    options = ctx.parameters
    n, f, m, k, repeat = (options[key] for key in ("rows", "attrs", "values", "classes", "repeat"))
    cells = n * f
    sklearn_rows = min(n, 1_000_000)

    codes, y = data.categorical(n, f, m, k)
    rng = np.random.default_rng(1)
    weights = rng.uniform(0.5, 1.5, size=n)
    offsets = data.offsets(f, m)
    no_values = np.empty((n, 0))
    no_edges = np.empty((0, 0))
    values = rng.uniform(0.0, 1.0, size=(n, f))
    edges = np.tile(np.arange(1, m) / m, (f, 1))

    def kernel(c=codes, t=y, w=None):
        return count_partition(c, no_values[: len(t)], t, w, offsets, no_edges, k)[0]

    expected = bincount_count(codes, y, offsets, k)
    if not np.array_equal(kernel(), expected):
        raise AssertionError("count_partition table differs from the bincount table")
    if not np.array_equal(plain_numba_count(codes, y, offsets, k), expected):
        raise AssertionError("plain numba table differs from the bincount table")

    half = n // 2
    pool = ThreadPoolExecutor(2)

    def two_threads():
        parts = [pool.submit(kernel, codes[s], y[s]) for s in (slice(None, half), slice(half, None))]
        return sum(p.result() for p in parts)

    timings = {
        "(a) count_partition, 1 thread, unweighted": best_seconds(kernel, repeat) / cells,
        "(b) count_partition, 1 thread, weighted": best_seconds(
            lambda: kernel(w=weights), repeat) / cells,
        "(c) count_partition, numeric binning in-pass": best_seconds(
            lambda: count_partition(codes[:, :0], values, y, None, offsets, edges, k),
            repeat) / cells,
        "(d) plain numba loop": best_seconds(
            lambda: plain_numba_count(codes, y, offsets, k), repeat) / cells,
        "(e) numpy.bincount (combined index)": best_seconds(
            lambda: bincount_count(codes, y, offsets, k), repeat) / cells,
        f"(f) sklearn CategoricalNB.fit on {sklearn_rows:,} rows": best_seconds(
            lambda: CategoricalNB().fit(codes[:sklearn_rows], y[:sklearn_rows]),
            max(1, repeat // 2)) / (sklearn_rows * f),
        "(g) count_partition, 2 threads (halves)": best_seconds(two_threads, repeat) / cells,
    }
    pool.shutdown()

    print(f"rows={n:,} attrs={f} values={m} classes={k} repeat={repeat}{' (quick)' if ctx.quick else ''}")
    for name, seconds_per_cell in timings.items():
        print(f"  {name:<52s} {seconds_per_cell * 1e9:8.3f} ns/cell")
    kernel_ns = timings["(a) count_partition, 1 thread, unweighted"] * 1e9
    bincount_ratio = timings["(e) numpy.bincount (combined index)"] * 1e9 / kernel_ns
    sklearn_ratio = list(timings.values())[5] * 1e9 / kernel_ns
    speedup = timings["(a) count_partition, 1 thread, unweighted"] / timings[
        "(g) count_partition, 2 threads (halves)"]
    print(f"2-thread speedup     {speedup:7.2f}x")
    frame = pd.DataFrame({"way": list(timings), "ns_per_cell": [t * 1e9 for t in timings.values()],
                          "rows": n, "attributes": f, "values": m, "classes": k})
    targets = [Target("kernel ns/cell", kernel_ns, TARGET_NS_PER_CELL, at_most=True, unit=" ns"),
               Target("bincount / kernel", bincount_ratio, TARGET_BINCOUNT_RATIO, at_most=False),
               Target("CategoricalNB / kernel", sklearn_ratio, TARGET_SKLEARN_RATIO, at_most=False)]
    return Result("kernel", frame, frame[["way", "ns_per_cell"]], targets=targets)

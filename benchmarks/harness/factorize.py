"""nbparallel.data.factorize against pandas.factorize and pyarrow's dictionary_encode, side by side.

Usage: nbparallel bench factorize [--rows N] [--repeats R]

Inputs: N values of 10 short levels ("v0".."v9") as an object array and as a
pandas ``str`` (Arrow) Series; N/10 values of 10^4 levels of 16 bytes (long
strings, still within MAX_DISTINCT); N/10 distinct-ish values (random draws
from N/10 strings, past MAX_DISTINCT: the fallback to pandas). The three
functions run interleaved, best of R; ``dictionary_encode`` runs on the Arrow
array of the same values (for object input it would first need a conversion,
which is not counted). Prints ns/value and ratios, PASS when factorize beats
pandas.factorize (within MAX_DISTINCT) or stays within 1.15x of it (the
fallback).
"""

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from harness.context import Parameter, parameters
from harness.report import Result, Target
from harness.timing import best_interleaved
from nbparallel.data.factorize import factorize


def inputs(n):
    rng = np.random.default_rng(0)
    short = np.array([f"v{i}" for i in range(10)], dtype=object)[rng.integers(0, 10, n)]
    m = max(n // 10, 1)
    long_levels = np.array([f"level-{i:010d}" for i in range(10_000)], dtype=object)
    long = long_levels[rng.integers(0, len(long_levels), m)]
    distinct = np.array([f"id{v}" for v in rng.integers(0, m, m)], dtype=object)  # one object per value
    for name, values, within in (("10 short levels", short, True), ("10^4 levels of 16 bytes", long, True),
                                 ("distinct-ish (fallback)", distinct, False)):
        arrow = pd.Series(values, dtype="str")
        yield f"{name}, object", values, arrow, within
        yield f"{name}, str (Arrow)", arrow, arrow, within


@parameters(rows=Parameter(10_000_000, "values of the short-level inputs", quick=2_000),
            repeats=Parameter(5, "interleaved timed rounds", quick=1))
def run(ctx):
    """ns per value of each function on each input, and the ratios."""
    factorize(np.array(["warm", None], dtype=object))
    factorize(pd.Series(["warm", "up", "a string of more than 8 bytes"], dtype="str"))
    rows, targets = [], []
    print(f"{'input':40s} {'rows':>9s} {'factorize':>10s} {'pandas':>8s} {'arrow':>8s} {'pd/ours':>8s} "
          f"{'arrow/ours':>10s}  (ns/value)")
    for name, column, arrow, within in inputs(ctx.parameters["rows"]):
        chunked = arrow.array.__arrow_array__()
        indices, uniques = factorize(column)
        expected_indices, expected_uniques = pd.factorize(column)
        assert np.array_equal(indices, expected_indices) and list(uniques) == list(expected_uniques), name
        times, _ = best_interleaved({"factorize": lambda: factorize(column), "pandas": lambda: pd.factorize(column),
                                     "arrow": lambda: pc.dictionary_encode(chunked)}, ctx.parameters["repeats"],
                                    warmup=())
        ns = {k: v / len(column) * 1e9 for k, v in times.items()}
        ratio, arrow_ratio = ns["pandas"] / ns["factorize"], ns["arrow"] / ns["factorize"]
        print(f"{name:40s} {len(column):9d} {ns['factorize']:10.2f} {ns['pandas']:8.2f} {ns['arrow']:8.2f} "
              f"{ratio:7.2f}x {arrow_ratio:9.2f}x")
        targets.append(Target(f"{name}: pandas.factorize / factorize", ratio, 1.0 if within else 1 / 1.15,
                              at_most=False))
        rows.append({"input": name, "rows": len(column), "distinct": len(uniques), "within_limit": within,
                     **{f"{k}_ns_per_value": v for k, v in ns.items()}, "pandas_over_factorize": ratio,
                     "arrow_over_factorize": arrow_ratio})
    frame = pd.DataFrame(rows)
    return Result("factorize", frame, frame, targets=targets)

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
fallback). Writes benchmarks/results/factorize.json.
"""

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from harness import RESULTS
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--results-dir", type=Path, default=RESULTS, help="where to write the results")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, written as NAME-quick.*")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.repeats = 2_000, 1
    factorize(np.array(["warm", None], dtype=object))
    factorize(pd.Series(["warm", "up", "a string of more than 8 bytes"], dtype="str"))
    rows, failures = [], 0
    print(f"{'input':40s} {'rows':>9s} {'factorize':>10s} {'pandas':>8s} {'arrow':>8s} {'pd/ours':>8s} "
          f"{'arrow/ours':>10s}  (ns/value)")
    for name, column, arrow, within in inputs(args.rows):
        chunked = arrow.array.__arrow_array__()
        indices, uniques = factorize(column)
        expected_indices, expected_uniques = pd.factorize(column)
        assert np.array_equal(indices, expected_indices) and list(uniques) == list(expected_uniques), name
        times, _ = best_interleaved({"factorize": lambda: factorize(column), "pandas": lambda: pd.factorize(column),
                                     "arrow": lambda: pc.dictionary_encode(chunked)}, args.repeats, warmup=())
        ns = {k: v / len(column) * 1e9 for k, v in times.items()}
        ratio, arrow_ratio = ns["pandas"] / ns["factorize"], ns["arrow"] / ns["factorize"]
        passed = ratio > 1 if within else ratio > 1 / 1.15
        failures += not passed
        print(f"{name:40s} {len(column):9d} {ns['factorize']:10.2f} {ns['pandas']:8.2f} {ns['arrow']:8.2f} "
              f"{ratio:7.2f}x {arrow_ratio:9.2f}x  {'PASS' if passed else 'FAIL'}")
        rows.append({"input": name, "rows": len(column), "distinct": len(uniques), "within_limit": within,
                     "ns_per_value": ns, "pandas_over_factorize": ratio, "arrow_over_factorize": arrow_ratio,
                     "pass": bool(passed)})
    out = args.results_dir / f"factorize{'-quick' * args.quick}.json"
    out.write_text(json.dumps({"rows": args.rows, "repeats": args.repeats, "results": rows}, indent=2) + "\n")
    print(f"wrote {out}; {failures} FAIL")

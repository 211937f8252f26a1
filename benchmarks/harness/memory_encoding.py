"""Peak memory of one in-memory fit, beyond its input.

Usage: nbparallel bench memory_encoding {uint8,int64,category} [--rows N]

Builds N x 20 columns of 10 values without temporaries, fits once on 1000 rows
(imports, compilation), then prints how much the process's peak RSS grew during
``NaiveBayes(n_partitions=2).fit`` on all of it. Run each kind in a fresh process.
"""

import argparse
import resource

import numpy as np
import pandas as pd

from nbparallel import NaiveBayes


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["uint8", "int64", "category"])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows = 2_000
    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, (args.rows, 20), dtype=np.int64 if args.kind == "int64" else np.uint8)
    if args.kind == "category":
        X = pd.DataFrame({f"a{j}": pd.Categorical.from_codes(X[:, j], list("abcdefghij")) for j in range(20)})
    y = rng.integers(0, 2, args.rows)
    NaiveBayes(n_partitions=1).fit(X[:1000], y[:1000])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    NaiveBayes(n_partitions=2).fit(X, y)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    size = X.memory_usage().sum() if args.kind == "category" else X.nbytes
    print(f"{args.kind}: input {size / 1e6:.0f} MB, peak RSS grew by {grown / 1e6:.0f} MB during fit "
          f"({(size + grown) / size:.2f}x the input)")

"""Peak memory of one in-memory fit, beyond its input.

Usage: nbparallel bench memory_encoding [--kind {uint8,int64,category}] [--rows N]

Builds N x 20 columns of 10 values without temporaries, fits once on 1000 rows
(imports, compilation), then prints how much the process's peak RSS grew during
``NaiveBayes(n_partitions=2).fit`` on all of it. Run each kind in a fresh process.
"""

import resource

import numpy as np
import pandas as pd

from harness import data
from harness.context import Parameter, parameters
from harness.report import Result
from nbparallel import NaiveBayes


@parameters(kind=Parameter("uint8", "the input's kind", choices=("uint8", "int64", "category")),
            rows=Parameter(5_000_000, "rows", quick=2_000))
def run(ctx):
    """How much the peak RSS grows during one fit."""
    kind, n_rows = ctx.parameters["kind"], ctx.parameters["rows"]
    codes, y = data.categorical(n_rows, 20, 10)
    X = (codes - 1).astype(np.int64) if kind == "int64" else codes - np.uint8(1)
    if kind == "category":
        X = pd.DataFrame({f"a{j}": pd.Categorical.from_codes(X[:, j], list("abcdefghij")) for j in range(20)})
    NaiveBayes(n_partitions=1).fit(X[:1000], y[:1000])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    NaiveBayes(n_partitions=2).fit(X, y)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    size = X.memory_usage().sum() if kind == "category" else X.nbytes
    print(f"{kind}: input {size / 1e6:.0f} MB, peak RSS grew by {grown / 1e6:.0f} MB during fit "
          f"({(size + grown) / size:.2f}x the input)")
    frame = pd.DataFrame([{"kind": kind, "rows": n_rows, "input_mb": size / 1e6, "peak_rss_growth_mb": grown / 1e6,
                           "peak_over_input": (size + grown) / size}])
    return Result("memory_encoding", frame, frame)

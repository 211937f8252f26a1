"""Strong and weak scaling of training and scoring against the number of workers.

Four series are timed on the same data: ``NaiveBayes.fit`` on pre-encoded
uint8 categorical data (``categorical_features="all"``), ``NaiveBayes.fit`` on
float data binned in the pass, the bare counting pass on pre-encoded
partitions (engine and kernel only, no schema pass or encoding), and
``NaiveBayes.evaluate`` of the uint8 data by its fitted model (a scoring pass:
every row scored, with its log-likelihood and ROC counts).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from nbparallel import NaiveBayes

from . import data, passes
from .report import Result, Target
from .timing import best_of

N_ATTRIBUTES, N_VALUES = 20, 10
SERIES = ("fit, uint8 categorical", "fit, float binned in-pass", "counting pass, pre-encoded",
          "evaluate, uint8 categorical")


def _runner(series, X, y, n_partitions):
    """A no-argument callable training (or scoring) once on the data as ``series`` does."""
    if series == SERIES[3]:
        model = NaiveBayes(categorical_features="all", n_partitions=n_partitions).fit(X, y)
        return lambda: model.evaluate(X, y)
    if series.startswith("fit"):
        kind = "all" if series == SERIES[0] else "auto"
        model = NaiveBayes(categorical_features=kind, n_partitions=n_partitions)
        return lambda: model.fit(X, y)
    parts = passes.split(X, y, n_partitions)
    table_offsets = data.offsets(N_ATTRIBUTES, N_VALUES)
    return lambda: passes.count_pass(parts, table_offsets, 2)


def _measure(ctx, rows_per_count, partitions_per_count, repeat):
    """Time every series at every worker count; rows and partitions may depend on it."""
    counts = ctx.worker_counts()
    n_max = max(rows_per_count(n) for n in counts)
    codes, y = data.categorical(n_max, N_ATTRIBUTES, N_VALUES)
    floats, _ = data.numeric(n_max, N_ATTRIBUTES)
    records = []
    for series in SERIES:
        source = floats if "float" in series else codes
        for n in counts:
            rows, n_partitions = rows_per_count(n), partitions_per_count(n)
            X, t = ctx.place(source[:rows], y[:rows], n, n_partitions)
            with ctx.workers(n):
                best, median = best_of(_runner(series, X, t, n_partitions), repeat)
            records.append({"series": series, "workers": n, "rows": rows, "attributes": N_ATTRIBUTES,
                            "partitions": n_partitions, "best_s": best, "median_s": median,
                            "ns_per_cell": best / (rows * N_ATTRIBUTES) * 1e9})
    return pd.DataFrame(records)


def _plot(rows, column, ideal, ylabel, title):
    figure, ax = plt.subplots(figsize=(6, 4))
    for series, group in rows.groupby("series", sort=False):
        ax.plot(group["workers"], group[column], marker="o", label=f"{series} (measured)")
    workers = sorted(rows["workers"].unique())
    ax.plot(workers, [ideal(n) for n in workers], "k--", label="ideal")
    ax.set(xlabel="workers", ylabel=ylabel, title=title)
    ax.legend(fontsize=8)
    return figure


def _speedup_targets(rows):
    two = rows[rows["workers"] == 2]
    return [Target(f"speedup 1 -> 2 workers, {r.series}", r.speedup, 1.6, at_most=False)
            for r in two.itertuples()]


def strong(ctx):
    """Fixed data, 1..N workers: speedup and efficiency against one worker."""
    n_rows = 20_000 if ctx.quick else 10_000_000
    n_partitions = 2 * ctx.max_workers()
    rows = _measure(ctx, lambda n: n_rows, lambda n: n_partitions, 2 if ctx.quick else 5)
    one = rows[rows["workers"] == 1].set_index("series")["best_s"]
    rows["speedup"] = rows["series"].map(one) / rows["best_s"]
    rows["efficiency"] = rows["speedup"] / rows["workers"]
    summary = rows.pivot(index="workers", columns="series", values="speedup")[list(SERIES)].reset_index()
    summary.columns = ["workers"] + [f"speedup: {s}" for s in summary.columns[1:]]
    summary.insert(1, "seconds: fit uint8", rows[rows["series"] == SERIES[0]]["best_s"].to_numpy())
    return Result(
        "strong", rows, summary,
        lambda r: _plot(r, "speedup", lambda n: n, "speedup vs 1 worker",
                        f"Strong scaling, {n_rows:,} rows x {N_ATTRIBUTES} attributes"),
        {"rows": n_rows, "attributes": N_ATTRIBUTES, "values": N_VALUES, "partitions": n_partitions},
        _speedup_targets(rows),
    )


def weak(ctx):
    """Rows proportional to workers: efficiency T(1) / T(n)."""
    rows_per_worker = 10_000 if ctx.quick else 5_000_000
    rows = _measure(ctx, lambda n: n * rows_per_worker, lambda n: 2 * n, 2 if ctx.quick else 5)
    one = rows[rows["workers"] == 1].set_index("series")["best_s"]
    rows["efficiency"] = rows["series"].map(one) / rows["best_s"]
    rows["speedup"] = rows["efficiency"] * rows["workers"]
    summary = rows.pivot(index="workers", columns="series", values="efficiency")[list(SERIES)].reset_index()
    summary.columns = ["workers"] + [f"efficiency: {s}" for s in summary.columns[1:]]
    summary.insert(1, "rows", [rows_per_worker * n for n in summary["workers"]])
    return Result(
        "weak", rows, summary,
        lambda r: _plot(r, "efficiency", lambda n: 1.0, "efficiency T(1) / T(n)",
                        f"Weak scaling, {rows_per_worker:,} rows per worker"),
        {"rows_per_worker": rows_per_worker, "attributes": N_ATTRIBUTES, "values": N_VALUES,
         "partitions": "2 per worker"},
    )

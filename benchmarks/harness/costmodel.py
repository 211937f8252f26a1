"""A cost model of one counting pass, fitted here and extrapolated past this machine.

The critical path of a pass over ``e`` rows of ``f`` attributes on ``P``
workers, with count tables of ``m`` bytes, is modelled as::

    T = t0 + c * e * f / P + alpha * tasks + (gamma + beta * m) * merges

where ``tasks`` and ``merges`` are the tasks and table additions on the
critical path: for the binary tree ``ceil(log2 P) + 1`` tasks (leaf included)
and ``ceil(log2 P)`` merges, for one flat merge 2 tasks and ``P - 1`` merges,
for a sequential chain ``P`` tasks and ``P - 1`` merges. This is the issue's
``T(P) = c e f / P + ceil(log2 P) (alpha + beta m)`` plus a fixed overhead
``t0`` per pass and a fixed cost ``gamma`` per merge (Python work independent
of the table's size, which a flat merge pays P - 1 times in one task). The coefficients are fitted by non-negative least squares
(on relative errors, so fast and slow points count alike) to
counting passes at P = 1..N workers and to reduce-only flat merges and chains
(whose critical path is sequential on any machine), then used to simulate
P up to 4096 workers.
"""

from __future__ import annotations

import math

import dask
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.optimize import nnls

from nbparallel.engine.backends.dask import tree_reduce
from nbparallel.summaries.counts import merge_tables

from . import data, passes, reduction
from .report import Result
from .timing import best_of

N_ATTRIBUTES = 20
COEFFICIENTS = ("t0", "c", "alpha", "gamma", "beta")
SIMULATED_P = tuple(2**i for i in range(13))


def critical_path(strategy, P):
    """(tasks, merges) on the critical path of a pass with ``P`` leaves.

    >>> critical_path("tree", 8), critical_path("flat", 8), critical_path("chain", 8)
    ((4, 3), (2, 7), (8, 7))
    """
    if P == 1:
        return 1, 0
    if strategy == "tree":
        return math.ceil(math.log2(P)) + 1, math.ceil(math.log2(P))
    if strategy == "flat":
        return 2, P - 1
    return P, P - 1


def _features(rows):
    """The design matrix: columns multiply t0, c, alpha, gamma and beta."""
    return np.column_stack([np.ones(len(rows)), rows["cells_per_worker"], rows["tasks"], rows["merges"],
                            rows["merges"] * rows["table_bytes"]])


def _point(kind, strategy, P, n_rows, table_bytes, seconds=np.nan):
    tasks, merges = critical_path(strategy, P)
    return {"kind": kind, "strategy": strategy, "partitions": P, "rows": n_rows,
            "cells_per_worker": n_rows * N_ATTRIBUTES / P, "table_bytes": table_bytes,
            "tasks": tasks, "merges": merges, "measured_s": seconds}


def _measure(ctx):
    """Counting passes at P = 1..N and reduce-only flat merges and chains."""
    quick = ctx.quick
    repeat = 2 if quick else 3
    records = []
    for n_rows in (20_000, 60_000) if quick else (1_000_000, 4_000_000):
        for n_values in (10, 2000):
            X, y = data.categorical(n_rows, N_ATTRIBUTES, n_values)
            table_offsets = data.offsets(N_ATTRIBUTES, n_values)
            table_bytes = int(table_offsets[-1]) * 2 * 8
            for P in ctx.worker_counts():
                Xp, yp = ctx.place(X, y, P, P)
                parts = passes.split(Xp, yp, P)
                with ctx.workers(P):
                    best, _ = best_of(lambda: passes.count_pass(parts, table_offsets, 2), repeat)
                records.append(_point("measured", "tree", P, n_rows, table_bytes, best))
    with ctx.workers(ctx.max_workers()):
        for n_values in (10, 200) if quick else (10, 500, 5000):
            template = data.count_table(N_ATTRIBUTES, n_values)
            for P in (2, 4, 8) if quick else (2, 8, 32, 128, 512):
                leaves = reduction.persisted_leaves(ctx, template, P, f"model-{n_values}-{P}")
                for strategy in ("flat", "chain"):
                    if strategy == "flat":
                        root, _ = tree_reduce(leaves, merge_tables, False, f"model-flat-{n_values}-{P}")
                    else:
                        root, _ = reduction.chain_reduce(leaves, merge_tables, f"model-chain-{n_values}-{P}")
                    best, _ = best_of(lambda: dask.compute(root), repeat, warmup=False)
                    point = _point("measured", strategy, P, 0, template.table.nbytes, best)
                    point["tasks"] -= 1  # the leaves were computed before the clock started
                    records.append(point)
    return pd.DataFrame(records)


def run(ctx):
    """Fit the model, report its errors on the measured points, simulate up to P = 4096."""
    measured = _measure(ctx)
    seconds = measured["measured_s"].to_numpy()
    coef, _ = nnls(_features(measured) / seconds[:, None], np.ones(len(seconds)))  # relative errors
    measured["predicted_s"] = _features(measured) @ coef
    measured["relative_error"] = measured["predicted_s"] / measured["measured_s"] - 1

    big_rows = 100_000_000
    table_sizes = {"small": data.count_table(N_ATTRIBUTES, 10).table.nbytes,
                   "large": data.count_table(N_ATTRIBUTES, 5000).table.nbytes}
    simulated = pd.DataFrame([_point("simulated", strategy, P, big_rows, m)
                              for m in table_sizes.values() for strategy in ("tree", "flat", "chain")
                              for P in SIMULATED_P])
    simulated["predicted_s"] = _features(simulated) @ coef
    rows = pd.concat([measured, simulated], ignore_index=True)

    errors = measured["relative_error"].abs()
    fitted = dict(zip(COEFFICIENTS, coef))
    notes = [
        "fitted: " + ", ".join(f"{k} = {v:.3g}" for k, v in zip(
            ("t0 [s]", "c [s/cell]", "alpha [s/task]", "gamma [s/merge]", "beta [s/byte]"), coef)),
        f"prediction error on {len(measured)} measured points: median {errors.median():.1%}, "
        f"max {errors.max():.1%} (column relative_error)",
        f"simulated: {big_rows:,} rows x {N_ATTRIBUTES} attributes, tables of "
        + " and ".join(f"{k} {v:,} B" for k, v in table_sizes.items())
        + "; alpha, gamma and beta are " + ("the cluster's" if ctx.client is not None else
                                     "this machine's (threaded scheduler, no network): a distributed cluster's "
                                     "per-task overhead and transfer costs are larger, which favours the tree more"),
    ] + _crossovers(simulated)
    return Result("model", rows, _summary(simulated, table_sizes), _plot,
                  {"fitted": fitted, "simulated_rows": big_rows, "attributes": N_ATTRIBUTES,
                   "table_bytes": table_sizes}, notes=notes)


def _crossovers(simulated):
    """The simulated P from which on the tree beats each alternative, per table size."""
    lines = []
    for m, part in simulated.groupby("table_bytes"):
        times = part.pivot(index="partitions", columns="strategy", values="predicted_s")
        for other in ("flat", "chain"):
            loses = times.index[times["tree"] >= times[other]]
            wins = times.index[times.index > (loses.max() if len(loses) else 0)]
            at = f"P >= {wins.min()}" if len(wins) else "no simulated P"
            lines.append(f"tables of {m:,} B: the tree beats {other} from {at}; at P = 4096 by "
                         f"{times.loc[4096, other] / times.loc[4096, 'tree']:.1f}x")
    return lines


def _summary(simulated, table_sizes):
    names = {v: k for k, v in table_sizes.items()}
    part = simulated[simulated["partitions"].isin({16, 256, 1024, 4096})]
    table = part.pivot_table(index=["table_bytes", "partitions"], columns="strategy",
                             values="predicted_s")[["tree", "flat", "chain"]]
    table["flat / tree"] = table["flat"] / table["tree"]
    table["chain / tree"] = table["chain"] / table["tree"]
    table = table.reset_index()
    table.insert(0, "table", table["table_bytes"].map(names))
    table.columns = [f"{c} s (simulated)" if c in ("tree", "flat", "chain") else c for c in table.columns]
    return table


def _plot(rows):
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    measured = rows[rows["kind"] == "measured"]
    for strategy, group in measured.groupby("strategy"):
        left.scatter(group["measured_s"], group["predicted_s"], label=f"{strategy} (measured)", s=14)
    lim = [measured[["measured_s", "predicted_s"]].min().min(), measured[["measured_s", "predicted_s"]].max().max()]
    left.loglog(lim, lim, "k--", label="prediction = measurement")
    left.set(xlabel="measured s", ylabel="model s", title="Model against measurements")
    left.legend(fontsize=7)
    simulated = rows[rows["kind"] == "simulated"]
    for (m, strategy), group in simulated.groupby(["table_bytes", "strategy"]):
        right.loglog(group["partitions"], group["predicted_s"], label=f"{strategy}, {m:,} B (simulated)")
    right.set(xlabel="workers P", ylabel="pass seconds", title="Simulated past this machine")
    right.legend(fontsize=7)
    return figure

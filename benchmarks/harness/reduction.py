"""The reduce phase alone: the binary tree against wider trees, one flat merge and a chain.

The leaves are count tables computed (persisted) before the clock starts, so
only merging is timed. The sequential chain, a left fold of P - 1 dependent
merge tasks, is what a naive incremental fit (dask-ml's ``Incremental``) does.
"""

from __future__ import annotations

import math

import dask
import matplotlib.pyplot as plt
import pandas as pd
from dask import delayed

from nbparallel.engine.backends.dask import tree_reduce
from nbparallel.summaries.counts import merge_tables

from . import data
from .report import Result
from .timing import best_of

#: label -> (attributes, values per attribute); tables have 2 classes.
SIZES = {"small": (20, 10), "medium": (20, 500), "large": (20, 5000)}
QUICK_SIZES = {"small": (20, 10), "large": (20, 200)}
PARTITIONS = (1, 2, 3, 4, 5, 7, 8, 16, 17, 31, 32, 64, 100, 128, 256, 512, 1024)
QUICK_PARTITIONS = (1, 2, 3, 4, 8, 17)
STRATEGIES = {"tree k=2": 2, "tree k=4": 4, "tree k=8": 8, "flat": False, "chain": None}


def _copy(table):
    """A leaf: a private copy of the template table."""
    return merge_tables(table, type(table).empty(table.offsets, table.n_classes))


def chain_reduce(leaves, merge, name="chain"):
    """Left fold of the leaves: P - 1 merge tasks, each depending on the last."""
    acc = leaves[0]
    for i, leaf in enumerate(leaves[1:]):
        acc = delayed(merge, pure=True)(acc, leaf, dask_key_name=f"{name}-{i}")
    return acc, max(len(leaves) - 1, 0)


def persisted_leaves(ctx, template, n_partitions, label):
    """``n_partitions`` copies of ``template`` computed and held in memory, as delayed leaves."""
    if ctx.client is not None:
        template = ctx.client.scatter(template, broadcast=True)
    leaves = [delayed(_copy, pure=True)(template, dask_key_name=f"leaf-{label}-{i}")
              for i in range(n_partitions)]
    return list(dask.persist(*leaves))


def run(ctx):
    """Time every strategy for every P and table size."""
    sizes = QUICK_SIZES if ctx.quick else SIZES
    repeat = 2 if ctx.quick else 3
    records = []
    with ctx.workers(ctx.max_workers()):
        for label, (n_attributes, n_values) in sizes.items():
            template = data.count_table(n_attributes, n_values)
            for P in QUICK_PARTITIONS if ctx.quick else PARTITIONS:
                leaves = persisted_leaves(ctx, template, P, f"{label}-{P}")
                for strategy, k in STRATEGIES.items():
                    name = f"bench-{label}-{P}-{strategy.replace(' ', '')}"
                    if k is None:
                        root, height = chain_reduce(leaves, merge_tables, name)
                        n_merges = height
                    else:
                        root, record = tree_reduce(leaves, merge_tables, k, name)
                        height, n_merges = record.height, record.n_merges
                    best, median = best_of(lambda: dask.compute(root), repeat, warmup=False)
                    records.append({
                        "size": label, "cells": template.table.size, "bytes": template.table.nbytes,
                        "partitions": P, "strategy": strategy, "height": height,
                        "ceil_log2_P": math.ceil(math.log2(P)), "merges": n_merges,
                        "best_s": best, "median_s": median})
                del leaves
    rows = pd.DataFrame(records)
    return Result("reduction", rows, _summary(rows), _plot,
                  {"sizes": {k: {"attributes": a, "values": v, "classes": 2} for k, (a, v) in sizes.items()},
                   "workers": ctx.max_workers(), "repeat": repeat})


def _summary(rows):
    """Milliseconds per strategy at a few P, with the tree's height next to ceil(log2 P)."""
    big = sorted(rows["partitions"].unique())[-1]
    chosen = rows[rows["partitions"].isin({8, 128, big})]
    table = chosen.pivot_table(index=["size", "cells", "partitions"], columns="strategy",
                               values="best_s", sort=False)[list(STRATEGIES)] * 1e3
    table.columns = [f"{c} ms" for c in table.columns]
    heights = chosen[chosen["strategy"] == "tree k=2"].set_index(["size", "cells", "partitions"])
    table.insert(0, "tree height", heights["height"])
    table.insert(1, "ceil(log2 P)", heights["ceil_log2_P"])
    table["chain / tree"] = table["chain ms"] / table["tree k=2 ms"]
    table["flat / tree"] = table["flat ms"] / table["tree k=2 ms"]
    return table.reset_index()


def _plot(rows):
    sizes = list(dict.fromkeys(rows["size"]))
    figure, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 4), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        part = rows[rows["size"] == size]
        for strategy, group in part.groupby("strategy", sort=False):
            ax.loglog(group["partitions"], group["best_s"], marker=".", label=f"{strategy} (measured)")
        ax.set(title=f"{size}: {part['cells'].iloc[0]:,} cells", xlabel="partitions P", ylabel="reduce seconds")
        ax.legend(fontsize=7)
    return figure

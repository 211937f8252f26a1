"""The counting pass on pre-encoded partitions: the engine and the kernel, no schema.

``NaiveBayes.fit`` adds a schema pass and per-partition encoding to this; timing
both separates what the parallel machinery costs from what the model's data
handling costs.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from dask import delayed

from nbparallel import CountTable, run_pass
from nbparallel.kernels import count_partition
from nbparallel.summaries.counts import merge_tables

_NO_EDGES = np.empty((0, 0))


def count_codes(offsets, n_classes, part):
    """Count one ``(codes, y)`` partition into a CountTable."""
    codes, y = part
    table, totals, all_missing, n_missing = count_partition(
        codes, np.empty((len(y), 0)), y, None, offsets, _NO_EDGES, n_classes)
    return CountTable(table, offsets, totals, all_missing, n_missing)


def split(X, y, n_partitions):
    """``n_partitions`` contiguous ``(codes, y)`` row blocks.

    Dask arrays (see :meth:`harness.context.Context.place`) keep their own
    blocks, as delayed pairs.
    """
    if hasattr(X, "to_delayed"):
        return [delayed(tuple)([x, t]) for x, t in zip(X.to_delayed().ravel(), y.to_delayed())]
    bounds = np.linspace(0, len(y), n_partitions + 1).astype(int)
    return [(X[s:e], y[s:e]) for s, e in zip(bounds[:-1], bounds[1:])]


def count_pass(parts, offsets, n_classes, split_every=2):
    """One counting pass over pre-encoded partitions; returns (table, tree record)."""
    return run_pass(parts, partial(count_codes, offsets, n_classes), merge_tables,
                    split_every=split_every, name="bench-count", token=str(id(parts)))

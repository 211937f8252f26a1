"""The counting pass: a partition of rows becomes a :class:`CountTable`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import engine
from .counts import CountTable, merge_tables
from .kernels import count_partition


@dataclass(frozen=True)
class CountSpec:
    """What every partition's counting needs: the schema and its table layout."""

    schema: object
    offsets: np.ndarray
    edges: np.ndarray

    @classmethod
    def of(cls, schema):
        """The spec of a :class:`nbparallel.data.Schema`."""
        return cls(schema, schema.offsets, schema.count_edges())


def count_rows(spec, X, y, w):
    """Count one partition: categorical codes and in-pass binning of numeric values."""
    codes, values = spec.schema.split(X)
    classes = spec.schema.encode_classes(y, w)
    table, totals, all_missing, n_missing = count_partition(
        codes, values, classes, w, spec.offsets, spec.edges, len(spec.schema.classes)
    )
    return CountTable(table, spec.offsets, totals, all_missing, int(n_missing))


def count_dataset(dataset, schema, *, split_every=2, verbose=False):
    """One counting pass over a dataset: the merged table and the tree record."""
    spec = CountSpec.of(schema)
    return engine.run_pass(
        dataset.partitions,
        dataset.map(count_rows, spec),
        merge_tables,
        split_every=split_every,
        name="nbparallel-count",
        token=dataset.token,
        verbose=verbose,
    )

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


WIDE_ROWS = 256  # one table row per possible uint8 code


def count_rows(spec, X, y, w):
    """Count one partition: categorical codes and in-pass binning of numeric values.

    Data already coded 1..M as uint8 is counted as it is, into a table of 256
    rows per attribute; rows beyond an attribute's vocabulary must come out
    empty, which checks the codes without another pass over the data.
    """
    classes = spec.schema.encode_classes(y, w)
    n_classes = len(spec.schema.classes)
    coded = spec.schema.coded_view(X)
    if coded is None:
        codes, values = spec.schema.split(X)
        table, totals, all_missing, n_missing = count_partition(
            codes, values, classes, w, spec.offsets, spec.edges, n_classes)
        return CountTable(table, spec.offsets, totals, all_missing, int(n_missing))
    n_attributes = coded.shape[1]
    wide = np.arange(0, WIDE_ROWS * n_attributes + 1, WIDE_ROWS, dtype=np.int64)
    table, totals, all_missing, n_missing = count_partition(
        coded, np.empty((len(coded), 0)), classes, w, wide, np.empty((0, 0)), n_classes)
    blocks = []
    for a, at in enumerate(spec.schema.attributes):
        block = table[wide[a] : wide[a + 1]]
        if block[len(at.categories) + 1 :].any():
            raise ValueError(f"column {at.name!r} holds codes outside 1..{len(at.categories)}, "
                             "the values seen by the schema pass: did the data change between passes?")
        blocks.append(block[: len(at.categories) + 1])
    return CountTable(np.vstack(blocks), spec.offsets, totals, all_missing, int(n_missing))


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

"""The counting pass: a partition of rows becomes a :class:`CountTable`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

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


BLOCK_ROWS = 1 << 18  # rows of a 2-D array encoded and counted at a time


def count_rows(spec, X, y, w):
    """Count one partition: every attribute as codes (see :meth:`Schema.encode`), one kernel pass.

    Unweighted data (a 2-D array or a DataFrame) is encoded and counted
    ``BLOCK_ROWS`` rows at a time, so its codes take O(one block) memory;
    integer counts add exactly, so the table is the same. A categorical value the schema pass did not see
    means the partition changed between the two passes (rows of weight zero
    excepted, which the schema pass leaves out): that raises rather than count
    it as missing.
    """
    classes = spec.schema.encode_classes(y, w)
    encode = spec.schema.encoder(X)
    if w is None and len(X) > BLOCK_ROWS and not _counted_as_is(spec.schema, X):
        blocks = [(s, min(s + BLOCK_ROWS, len(X))) for s in range(0, len(X), BLOCK_ROWS)]
        return merge_tables(*[_count_block(spec, encode(s, e), classes[s:e], None, X) for s, e in blocks])
    return _count_block(spec, encode(0, len(X)), classes, w, X)


def _counted_as_is(schema, X):
    """True when the kernel takes X itself (a float array of numeric attributes): no codes to bound."""
    return (isinstance(X, np.ndarray) and X.dtype in (np.float64, np.float32) and schema.n_categorical == 0
            and schema.columns == [at.name for at in schema.attributes])


def _count_block(spec, encoded, classes, w, X):
    """Count one block's ``(codes, values, unknown)``; ``X`` is the partition, read again only to name an error."""
    schema = spec.schema
    codes, values, unknown = encoded
    if unknown and w is not None and np.any(np.asarray(w) == 0):
        unknown = schema.encode(X[np.asarray(w) > 0])[2]
    if unknown:
        name, n = next(iter(unknown.items()))
        raise ValueError(f"column {name!r} holds {n} value(s) the schema pass did not see: "
                         "did the data change between the schema pass and the counting pass?")
    edges = spec.edges if values.shape[1] else np.empty((0, 0))  # numeric attributes binned into codes
    table, totals, all_missing, n_missing = count_partition(
        codes, values, classes, w, spec.offsets, edges, len(schema.classes))
    return CountTable(table, spec.offsets, totals, all_missing, int(n_missing))


def count_checked_rows(spec, index, n_rows, X, y, w):
    """:func:`count_rows` of partition ``index``, which the schema pass read with ``n_rows`` rows.

    Raises
    ------
    ValueError
        When the partition has another number of rows now: the data changed between the passes.
    """
    if len(X) != n_rows:
        raise ValueError(f"partition {index} had {n_rows} rows in the schema pass but has {len(X)} in the counting "
                         "pass: did the data change between the schema pass and the counting pass?")
    return count_rows(spec, X, y, w)


def count_dataset(dataset, schema, *, split_every=2, verbose=False):
    """One counting pass over a dataset: the merged table and the tree record.

    When the schema pass recorded each partition's row count
    (``dataset.partition_rows``), every partition is checked against it.
    """
    spec = CountSpec.of(schema)
    rows = dataset.partition_rows
    if rows is not None and len(rows) == len(dataset.partitions):
        summarize = [dataset.map(count_checked_rows, spec, i, n) for i, n in enumerate(rows)]
    else:
        summarize = dataset.map(count_rows, spec)
    return engine.run_pass(
        dataset.partitions,
        summarize,
        merge_tables,
        split_every=split_every,
        name="nbparallel-count",
        token=dataset.token,
        verbose=verbose,
    )

"""One-pass counting of categorical data: each partition counts against its own dictionaries.

Elkan's single pass made literal. When every attribute is categorical, a
partition does not need the global vocabularies: it dictionary-encodes each
column once (a ``Categorical``'s own codes, one hash of a string column, an
integer column's ``min..max``), counts its rows against those local
dictionaries with the same kernel, and returns a :class:`DictionaryCounts`.
The reduction tree merges these by value (the union of the dictionaries, each
table moved into it and added), so the vocabularies and classes come out of
the counting pass itself and every value is decoded once.

The result equals the schema pass followed by the counting pass bit for bit:
the vocabularies are the values seen (an integer column's whole ``min..max``
range within each partition, as the schema pass takes it), each partition's
table is the same kernel's sums over the same rows, and tables are added in the
same tree order (adding the zeros of values a partition lacks changes no sum). Weighted data takes the two passes (see
:func:`count_dictionaries`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from . import engine
from .counting import BLOCK_ROWS
from .counts import CountTable
from .data import CATEGORICAL, ColumnScan, column_major, schema_of_scan
from .encoding import (
    MAX_CATEGORIES, _is_dictionary, _is_string, _plain, code_dtype, integer_column_encoder, python_value,
)
from .kernels import column_ranges, count_partition, integer_codes, lookup_codes
from .summaries import merge_summaries


def applies(dataset):
    """True when a fit of ``dataset`` can count in one pass: every attribute categorical."""
    return bool(dataset.kinds) and all(kind == CATEGORICAL for kind in dataset.kinds)


@dataclass(frozen=True, eq=False)
class DictionaryCounts:
    """Counts of one or more partitions against their own dictionaries (a summary: ``+`` merges by value).

    Parameters
    ----------
    classes : list
        The class of each table column; the last column counts rows whose target is missing.
    vocabularies : list of lists
        Attribute ``a``'s values; value ``i`` owns table row ``offsets[a] + 1 + i``
        (row ``offsets[a]`` counts missing values).
    kept : list of bool ndarrays
        Per value: part of an integer column's ``min..max`` range, so in the
        vocabulary even without a count.
    table : ndarray of float64, shape (offsets[-1], len(classes) + 1)
    class_totals, all_missing : ndarray of float64, shape (len(classes) + 1,)
        As in :class:`nbparallel.counts.CountTable`, the last entry for rows whose target is missing.
    n_missing_target : int
        Rows whose target is missing.
    partition_rows : tuple of int
        Each partition's row count, in partition order.
    """

    classes: list
    vocabularies: list
    kept: list
    table: np.ndarray
    class_totals: np.ndarray
    all_missing: np.ndarray
    n_missing_target: int
    partition_rows: tuple

    @property
    def offsets(self):
        """Row offsets of the attributes in ``table``."""
        return _offsets(self.vocabularies)

    @classmethod
    def empty(cls, n_attributes):
        """The counts of no rows."""
        return cls([], [[] for _ in range(n_attributes)], [np.zeros(0, bool) for _ in range(n_attributes)],
                   np.zeros((n_attributes, 1)), np.zeros(1), np.zeros(1), 0, ())

    def __add__(self, other):
        classes = _union(self.classes, other.classes)
        vocabularies = [_union(a, b) for a, b in zip(self.vocabularies, other.vocabularies)]
        offsets = _offsets(vocabularies)
        table = np.zeros((int(offsets[-1]), len(classes) + 1))
        totals, all_missing = np.zeros(len(classes) + 1), np.zeros(len(classes) + 1)
        kept = [np.zeros(len(v), dtype=bool) for v in vocabularies]
        for part in (self, other):
            columns = np.append(_positions(classes, part.classes), len(classes))
            rows = []
            for a, values in enumerate(part.vocabularies):
                places = _positions(vocabularies[a], values)
                kept[a][places] |= part.kept[a]
                rows.append(offsets[a] + np.append(0, places + 1))
            table[np.ix_(np.concatenate(rows).astype(np.int64), columns)] += part.table
            totals[columns] += part.class_totals
            all_missing[columns] += part.all_missing
        return DictionaryCounts(classes, vocabularies, kept, table, totals, all_missing,
                                self.n_missing_target + other.n_missing_target,
                                self.partition_rows + other.partition_rows)

    def to_dict(self):
        """Plain values, for JSON."""
        return {"classes": list(self.classes), "vocabularies": [list(v) for v in self.vocabularies],
                "kept": [k.tolist() for k in self.kept], "table": self.table.tolist(),
                "class_totals": self.class_totals.tolist(), "all_missing": self.all_missing.tolist(),
                "n_missing_target": self.n_missing_target, "partition_rows": list(self.partition_rows)}

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict`."""
        n_classes = len(d["classes"]) + 1
        table = np.asarray(d["table"], dtype=np.float64).reshape(-1, n_classes)
        return cls(list(d["classes"]), [list(v) for v in d["vocabularies"]],
                   [np.asarray(k, dtype=bool) for k in d["kept"]], table,
                   np.asarray(d["class_totals"], dtype=np.float64), np.asarray(d["all_missing"], dtype=np.float64),
                   int(d["n_missing_target"]), tuple(int(n) for n in d["partition_rows"]))

    def scan(self):
        """The :class:`nbparallel.data.ColumnScan` the schema pass would have returned for the same rows."""
        seen = self.table.sum(axis=1) > 0
        offsets = self.offsets
        values = [{v for v, keep, hit in zip(vocabulary, self.kept[a], seen[offsets[a] + 1 : offsets[a + 1]])
                   if keep or hit} for a, vocabulary in enumerate(self.vocabularies)]
        classes = {c for c, total in zip(self.classes, self.class_totals) if total > 0}
        nan = np.full(len(values), np.nan)
        return ColumnScan(values, nan, nan.copy(), classes, sum(self.partition_rows), self.partition_rows)

    def count_table(self, schema):
        """These counts in the layout of ``schema`` (which must hold every counted value and class)."""
        columns = _positions(self.classes, schema.classes)
        offsets = self.offsets
        names = [at.name for at in schema.attributes]
        order = [schema.columns.index(name) for name in names]
        rows = [offsets[a] + np.append(0, _positions(self.vocabularies[a], at.categories) + 1)
                for a, at in zip(order, schema.attributes)]
        table = self.table[np.ix_(np.concatenate(rows).astype(np.int64), columns)]
        return CountTable(table, schema.offsets, self.class_totals[columns], self.all_missing[columns],
                          self.n_missing_target)


def _offsets(vocabularies):
    """Table row offsets of attributes with these vocabularies (one missing row each)."""
    return np.concatenate([[0], np.cumsum([len(v) + 1 for v in vocabularies])]).astype(np.int64)


def _union(first, second):
    """The values of ``first`` then those of ``second`` not in it, in order."""
    return list(dict.fromkeys([*first, *second]))


def _positions(where, values):
    """Position of each of ``values`` in the list ``where`` (all present)."""
    index = {v: i for i, v in enumerate(where)}
    return np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values))


# ------------------------------------------------------------ one partition


def _column_dictionary(column):
    """``(encode(start, stop, out), values, kept)``: a column against its own dictionary.

    ``encode`` writes codes ``1..len(values)`` (0 for a missing value) of the
    rows ``start:stop``. A ``Categorical`` keeps its codes; an integer column
    spanning fewer than ``MAX_CATEGORIES`` values is offset by its minimum
    (``kept`` marks the whole range, as the schema pass takes it); any other
    column is factorized once.
    """
    if _is_dictionary(column):
        return _indexed(column.array.codes, column.cat.categories)
    if not _is_string(column):
        plain = _plain(column)
        if plain.dtype.kind in "iu" and len(plain):
            lo, hi = int(plain.min()), int(plain.max())
            if hi - lo < MAX_CATEGORIES:
                encode = integer_column_encoder(plain, lo, np.arange(1, hi - lo + 2))
                return encode, list(range(lo, hi + 1)), np.ones(hi - lo + 1, bool)
        column = plain
    return _indexed(*pd.factorize(column))


def _indexed(indices, uniques):
    """``(encode, values, kept)`` of dictionary indices (-1 = missing) into ``uniques``: codes ``indices + 1``."""
    values = [python_value(v) for v in uniques]
    table = np.append(np.arange(1, len(values) + 1), 0).astype(code_dtype([len(values)]))
    return (lambda start, stop, out: lookup_codes(indices[start:stop], table, out)), values, np.zeros(len(values), bool)


def _range_encoder(X, lo, hi):
    """``encode(start, stop, out)``: integer columns ``j`` of X as ``x - lo[j] + 1``, in one row-major pass."""
    tables = [np.arange(1, h - low + 2) for low, h in zip(lo, hi)]
    columns = np.arange(X.shape[1], dtype=np.int64)
    zeros = [0] * X.shape[1]
    return lambda start, stop, out: integer_codes(X[start:stop], columns, lo, tables, zeros, zeros, out)


def _array_dictionaries(X):
    """``(encode(start, stop) -> codes, vocabularies, kept)`` of a 2-D integer array, or None for other arrays."""
    if X.dtype.kind not in "iu" or X.dtype == np.uint64 or not len(X):
        return None
    lo, hi = column_ranges(X)
    if np.any(hi - lo >= MAX_CATEGORIES):
        return None
    if X.dtype == np.uint8 and lo.min() >= 1 and hi.max() < 255:  # codes already: counted as they are
        vocabularies = [list(range(1, int(h) + 1)) for h in hi]
        kept = [np.arange(1, int(h) + 1) >= low for low, h in zip(lo, hi)]
        return (lambda start, stop: X[start:stop]), vocabularies, kept
    lo, hi = [int(v) for v in lo], [int(v) for v in hi]
    dtype = code_dtype([h - low + 1 for low, h in zip(lo, hi)])
    encode = _range_encoder(X, lo, hi)

    def encode_rows(start, stop):
        codes = np.empty((stop - start, X.shape[1]), dtype=dtype)
        encode(start, stop, codes)
        return codes

    vocabularies = [list(range(low, h + 1)) for low, h in zip(lo, hi)]
    return encode_rows, vocabularies, [np.ones(len(v), bool) for v in vocabularies]


def _class_codes(y):
    """``(codes, classes)``: each row's class position, ``len(classes)`` for a missing target."""
    if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype):  # a file's dictionary column
        codes = y.array.codes.astype(np.int64)
        codes[codes < 0] = len(y.cat.categories)
        return codes, [python_value(v) for v in y.cat.categories]
    y = np.asarray(y)
    if y.dtype.kind in "iu" and y.dtype != np.uint64 and len(y):
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < MAX_CATEGORIES:
            return (y if lo == 0 else y.astype(np.int64) - lo), list(range(lo, hi + 1))
    codes, uniques = pd.factorize(y)
    classes = [python_value(v) for v in uniques]
    codes[codes < 0] = len(classes)
    return codes, classes


def count_dictionaries(X, y, w):
    """The :class:`DictionaryCounts` of one partition's unweighted rows, ``BLOCK_ROWS`` at a time.

    Weighted rows take the two passes: their per-class totals are float sums
    whose rounding depends on the order of the global vocabulary.
    """
    if w is not None:
        raise ValueError("one-pass counting takes unweighted rows; weighted data is counted in two passes")
    classes_of_rows, classes = _class_codes(y)
    frame = isinstance(X, pd.DataFrame)
    prepared = None if frame else _array_dictionaries(X)
    if prepared is None:
        dictionaries = [_column_dictionary(X.iloc[:, a] if frame else X[:, a]) for a in range(X.shape[1])]
        encoders, vocabularies, kept = zip(*dictionaries) if dictionaries else ((), [], [])
        dtype = code_dtype([len(v) for v in vocabularies])

        def encode(start, stop):
            codes = column_major(stop - start, len(encoders), dtype)
            for a, column in enumerate(encoders):
                column(start, stop, codes[:, a])
            return codes
    else:
        encode, vocabularies, kept = prepared
    offsets = _offsets(vocabularies)
    n_classes = len(classes) + 1  # the last: rows whose target is missing
    parts = []
    for start in range(0, max(len(X), 1), BLOCK_ROWS):
        stop = min(start + BLOCK_ROWS, len(X))
        table, totals, all_missing, _ = count_partition(
            encode(start, stop), np.empty((stop - start, 0)), classes_of_rows[start:stop], None, offsets,
            np.empty((0, 0)), n_classes)
        parts.append(CountTable(table, offsets, totals, all_missing))
    counted = merge_summaries(*parts)
    n_missing = int(np.count_nonzero(classes_of_rows == len(classes)))
    return DictionaryCounts(classes, [list(v) for v in vocabularies], list(kept), counted.table,
                            counted.class_totals, counted.all_missing, n_missing, (len(X),))


def _count_partition(columns, target, count, part):
    """``count(part)``, except that a DataFrame's categorical target is passed as it is, not as objects."""
    if isinstance(part, pd.DataFrame) and target is not None and isinstance(part[target].dtype, pd.CategoricalDtype):
        return count_dictionaries(part[columns], part[target], None)
    return count(part)


def count_in_one_pass(dataset, *, n_bins=10, split_every=2, verbose=False):
    """Fit's schema and counts from one pass over a dataset whose attributes are all categorical.

    Returns
    -------
    schema : nbparallel.data.Schema
    counts : nbparallel.counts.CountTable
    record : nbparallel.reduce.TreeRecord
    """
    counts, record = engine.run_pass(
        dataset.partitions,
        partial(_count_partition, dataset.columns, dataset.target, dataset.map(count_dictionaries)),
        merge_summaries,
        split_every=split_every,
        name="nbparallel-count",
        token=dataset.token,
        verbose=verbose,
    )
    schema = schema_of_scan(dataset, counts.scan(), n_bins, None)
    return schema, counts.count_table(schema), record

"""One-pass counting of categorical data: each partition counts against its own dictionaries.

Elkan's single pass made literal. When every attribute is categorical, or
a binned numeric one of integer dtype, a partition does not need the global
vocabularies or ranges: it dictionary-encodes each column once (a
``Categorical``'s own codes, an integer column's ``min..max``) and counts its
rows against those local dictionaries with the same kernel, a block of rows
at a time; a string or object column is counted by value while it is hashed
(:func:`nbparallel.data.factorize.count_values`), and a 2-D integer array is
counted as it is, by value, with no code array at all. It returns a
:class:`DictionaryCounts`.
The reduction tree merges these by value (the union of the dictionaries, each
table moved into it and added), so the vocabularies and classes come out of
the counting pass itself and every value is decoded once.

The result equals the schema pass followed by the counting pass bit for bit:
the vocabularies are the values seen (an integer column's then extended to its
whole ``min..max`` range when that is not much wider than the values, decided
once from the merged values as the schema pass decides it), each partition's
table is the same kernel's sums over the same rows, and tables are added in the
same tree order (adding the zeros of values a partition lacks changes no sum). Weighted data takes the two passes (see
:func:`count_dictionaries`).

Cross-validation keeps a partition as codes against its own dictionaries
(:class:`CodedRows`: strings dictionary-encoded by the same hash pass, a 2-D
array of small unsigned integers as it is) and counts them with each row under
the class columns of its fold, a block of ``len(classes) + 1`` columns per fold
(:attr:`DictionaryCounts.n_blocks`); the kept codes serve its later passes, so
files are read and strings hashed once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import numpy as np
import pandas as pd

from nbparallel.data.columns import CATEGORICAL, NUMERIC, target_values
from nbparallel.data.dataset import is_arrow_table
from nbparallel.data.encoding import (
    DENSE_SPAN,
    MAX_CATEGORIES,
    SPAN_FACTOR,
    code_dtype,
    is_categorical_series,
    is_string_series,
    masked_integers,
    plain_array,
    python_value,
    run_encoder,
)
from nbparallel.data.factorize import count_trusted_values, factorize
from nbparallel.data.schema import column_major
from nbparallel.data.schema_pass import ColumnScan, schema_of_scan
from nbparallel.data.vocabularies import EqualValuesOfTypes, check_equal_values, union_of_values
from nbparallel.engine import execution
from nbparallel.kernels.binning import bin_values
from nbparallel.kernels.counting import CodeCounter, count_integers, count_integers_and_ranges
from nbparallel.kernels.folds import class_fold_codes
from nbparallel.kernels.lookup import lookup_codes
from nbparallel.kernels.ranges import column_ranges
from nbparallel.summaries.counts import CountTable
from nbparallel.summaries.protocol import merge_summaries

CODE_BUFFER_BYTES = 1 << 22
"""Size of the buffer a partition's columns are encoded into, a block of rows at a time, and counted from."""

ROW_BLOCK_BYTES = 1 << 19
"""Size of the column-major block a partition's codes are encoded into before their row-major copy is kept
(:class:`CodedRows`): it stays in a core's cache."""


def applies(dataset):
    """True when a fit of ``dataset`` can count in one pass.

    Every attribute must be categorical, or numeric of integer dtype
    (``dataset.integer_columns``) with no range given beforehand.
    """
    ranges = dataset.ranges or {}
    return bool(dataset.kinds) and all(
        kind == CATEGORICAL or (kind == NUMERIC and name in dataset.integer_columns and name not in ranges)
        for name, kind in zip(dataset.columns, dataset.kinds))


class WideIntegers(Exception):
    """A binned integer column spans too many values in a partition to be counted per value (or, kept as
    codes, a column holds more values than the codes do)."""


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
        As in :class:`nbparallel.summaries.counts.CountTable`, the last entry for rows whose target is missing.
    n_missing_target : int
        Rows whose target is missing.
    partition_rows : tuple of int
        Each partition's row count, in partition order.
    integers : tuple of bool
        Per attribute: the column was a column of integers in some partition, so that its vocabulary is
        decided from its values by :func:`nbparallel.data.encoding.integer_vocabulary`.
    n_blocks : int
        The table's columns are ``n_blocks`` blocks of ``len(classes) + 1`` (class ``c`` of block ``b`` in
        column ``b * (len(classes) + 1) + c``, the block's last column for a missing target); so are
        ``class_totals`` and ``all_missing``. One block for a fit; cross-validation counts each row under
        the block of its fold.
    """

    classes: list
    vocabularies: list
    kept: list
    table: np.ndarray
    class_totals: np.ndarray
    all_missing: np.ndarray
    n_missing_target: int
    partition_rows: tuple
    integers: tuple = ()  # per attribute: True when a partition's column was a column of integers
    n_blocks: int = 1

    @property
    def offsets(self):
        """Row offsets of the attributes in ``table``."""
        return _offsets(self.vocabularies)

    table_size = staticmethod(CountTable.table_size)  # what the merged counts become (:meth:`count_table`)

    @classmethod
    def empty(cls, n_attributes, n_blocks=1):
        """The counts of no rows."""
        return cls([], [[] for _ in range(n_attributes)], [np.zeros(0, bool) for _ in range(n_attributes)],
                   np.zeros((n_attributes, n_blocks)), np.zeros(n_blocks), np.zeros(n_blocks), 0, (), (), n_blocks)

    def __add__(self, other):
        if self.n_blocks != other.n_blocks:
            raise ValueError(f"cannot add counts of {other.n_blocks} blocks to counts of {self.n_blocks}")
        classes = _union(self.classes, other.classes, "target")
        vocabularies = [_union(a, b, i) for i, (a, b) in enumerate(zip(self.vocabularies, other.vocabularies))]
        offsets = _offsets(vocabularies)
        width = (len(classes) + 1) * self.n_blocks
        table = np.zeros((int(offsets[-1]), width))
        totals, all_missing = np.zeros(width), np.zeros(width)
        kept = [np.zeros(len(v), dtype=bool) for v in vocabularies]
        for part in (self, other):
            columns = _block_columns(np.append(_positions(classes, part.classes), len(classes)), len(classes) + 1,
                                     self.n_blocks)
            rows = []
            for a, values in enumerate(part.vocabularies):
                places = _positions(vocabularies[a], values)
                kept[a][places] |= part.kept[a]
                rows.append(offsets[a] + np.append(0, places + 1))
            table[np.ix_(np.concatenate(rows).astype(np.int64), columns)] += part.table
            totals[columns] += part.class_totals
            all_missing[columns] += part.all_missing
        integers = tuple(a or b for a, b in zip(self.integers, other.integers)) \
            if self.integers and other.integers else self.integers or other.integers
        return DictionaryCounts(classes, vocabularies, kept, table, totals, all_missing,
                                self.n_missing_target + other.n_missing_target,
                                self.partition_rows + other.partition_rows, integers, self.n_blocks)

    def to_dict(self):
        """Plain values, for JSON."""
        return {"classes": list(self.classes), "vocabularies": [list(v) for v in self.vocabularies],
                "kept": [k.tolist() for k in self.kept], "table": self.table.tolist(),
                "class_totals": self.class_totals.tolist(), "all_missing": self.all_missing.tolist(),
                "n_missing_target": self.n_missing_target, "partition_rows": list(self.partition_rows),
                "integers": list(self.integers), "n_blocks": self.n_blocks}

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict`."""
        n_blocks = int(d.get("n_blocks", 1))
        table = np.asarray(d["table"], dtype=np.float64).reshape(-1, (len(d["classes"]) + 1) * n_blocks)
        return cls(list(d["classes"]), [list(v) for v in d["vocabularies"]],
                   [np.asarray(k, dtype=bool) for k in d["kept"]], table,
                   np.asarray(d["class_totals"], dtype=np.float64), np.asarray(d["all_missing"], dtype=np.float64),
                   int(d["n_missing_target"]), tuple(int(n) for n in d["partition_rows"]),
                   tuple(bool(i) for i in d.get("integers", ())), n_blocks)

    def scan(self, numeric):
        """The :class:`nbparallel.data.schema_pass.ColumnScan` the schema pass would have returned for the same rows.

        ``numeric`` flags the binned integer attributes: their range is the
        smallest and largest value of their vocabulary.
        """
        seen = self.table.sum(axis=1) > 0
        offsets = self.offsets
        values = [{v for v, keep, hit in zip(vocabulary, self.kept[a], seen[offsets[a] + 1 : offsets[a + 1]])
                   if keep or hit} for a, vocabulary in enumerate(self.vocabularies)]
        lo = np.array([min(v) if is_numeric and v else np.nan for v, is_numeric in zip(values, numeric)], float)
        hi = np.array([max(v) if is_numeric and v else np.nan for v, is_numeric in zip(values, numeric)], float)
        values = [None if is_numeric else v for v, is_numeric in zip(values, numeric)]
        per_class = self.class_totals.reshape(self.n_blocks, -1).sum(axis=0)
        classes = {c for c, total in zip(self.classes, per_class) if total > 0}
        return ColumnScan(values, lo, hi, classes, sum(self.partition_rows), self.partition_rows,
                          tuple(self.integers), True)

    def count_table(self, schema):
        """These counts in the layout of ``schema`` (which must hold every counted value and class), with
        ``n_blocks * len(schema.classes)`` columns: class ``c`` of block ``b`` in column
        ``b * len(schema.classes) + c`` (rows whose target is missing are left out).

        A binned attribute's values are summed into their bins, binned by the
        kernel that bins them in the counting pass.
        """
        columns = _block_columns(_positions(self.classes, schema.classes), len(self.classes) + 1, self.n_blocks)
        offsets, layout = self.offsets, schema.offsets
        counted = self.table[:, columns]  # the schema's classes, in its order
        table = np.zeros((int(layout[-1]), len(columns)))
        for at, start in zip(schema.attributes, layout):
            a = schema.columns.index(at.name)
            vocabulary = self.vocabularies[a]
            if at.kind == CATEGORICAL and vocabulary == at.categories:  # the same values in the same order
                table[start:start + len(vocabulary) + 1] = counted[offsets[a]:offsets[a + 1]]
            elif at.kind == CATEGORICAL:  # an integer range's values that never occur have zero rows
                index = {v: i for i, v in enumerate(vocabulary)}
                found = [(j, index[v]) for j, v in enumerate(at.categories) if v in index]
                places = start + np.array([0] + [j + 1 for j, _ in found], dtype=np.int64)
                rows = offsets[a] + np.array([0] + [i + 1 for _, i in found], dtype=np.int64)
                table[places] = counted[rows]
            else:
                values = np.asarray(vocabulary, dtype=np.float64)[:, None]
                bins = bin_values(values, at.edges()[None, :], np.array([at.n_bins], dtype=np.int64))[:, 0]
                np.add.at(table, start + np.append(0, bins).astype(np.int64), counted[offsets[a]:offsets[a + 1]])
        return CountTable(table, layout, self.class_totals[columns], self.all_missing[columns],
                          self.n_missing_target)


def _offsets(vocabularies):
    """Table row offsets of attributes with these vocabularies (one missing row each)."""
    return np.concatenate([[0], np.cumsum([len(v) + 1 for v in vocabularies])]).astype(np.int64)


def _block_columns(columns, width, n_blocks):
    """``columns`` of one block repeated in each of ``n_blocks`` blocks of ``width`` columns."""
    return (columns[None, :] + width * np.arange(n_blocks, dtype=np.int64)[:, None]).ravel()


def _union(first, second, where):
    """The values of ``first`` then those of ``second`` not in it, in order; equal values of different types
    (``7`` and ``7.0``) raise :class:`~nbparallel.data.vocabularies.EqualValuesOfTypes` (``where``: the attribute's
    position, or "target")."""
    union = list(dict.fromkeys([*first, *second]))
    if len(union) < len(first) + len(second):
        union_of_values(set(first), set(second), where)
    return union


def _positions(where, values):
    """Position of each of ``values`` in the list ``where`` (all present)."""
    index = {v: i for i, v in enumerate(where)}
    return np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values))


class _Dictionary(NamedTuple):
    """A partition's column against its own dictionary.

    ``values`` are the dictionary; ``kept`` flags the values that belong to it
    even without a count (an integer column's whole range). A column is either
    counted in blocks with the others (``encode(start, stop, out)`` writes the
    codes ``1..len(values)`` of rows ``start:stop``, 0 for a missing value) or
    was counted by value while it was hashed (``counts``: the attribute's table
    rows, missing values first).
    """

    values: list
    kept: np.ndarray
    encode: object = None
    counts: np.ndarray = None


def _column_dictionary(column, numeric, classes_of_rows, n_classes, name=None):
    """The :class:`_Dictionary` of a column.

    A ``Categorical`` keeps its codes; an integer column spanning fewer than
    ``MAX_CATEGORIES`` values is offset by its minimum (``kept`` marks the
    whole range, as the schema pass takes it); both are encoded in blocks.
    Any other categorical column is counted by value in one hash pass
    (:func:`nbparallel.data.factorize.count_values`), or, when ``classes_of_rows``
    is None (its codes are wanted), dictionary-encoded by the same pass
    (:func:`nbparallel.data.factorize.factorize`). A ``numeric`` column must be
    such an integer column (else :class:`WideIntegers`).
    """
    if is_categorical_series(column) and not numeric:
        return _categorical(column.array.codes, column.cat.categories.tolist())  # Python values
    masked = masked_integers(column)
    if masked is not None:  # a nullable integer column: its integers, and 0 codes where missing
        values, missing = masked
        present = values[~missing]
        if len(present):
            lo, hi = _integer_span(present)
            if _dense(lo, hi, len(present), numeric):
                codes = run_encoder(values, lo)

                def encode(start, stop, out):
                    codes(start, stop, out)
                    out[missing[start:stop]] = 0

                return _Dictionary(list(range(lo, hi + 1)), np.zeros(hi - lo + 1, bool), encode)
        if numeric:
            raise WideIntegers(f"column {column.name!r} is a nullable integer column")
        objects = column.to_numpy(dtype=object, na_value=None)
        if classes_of_rows is None:
            return _factorized(objects)
        counts, uniques = count_trusted_values(objects, classes_of_rows, n_classes)
        return _Dictionary([python_value(v) for v in uniques], np.zeros(len(uniques), bool), counts=counts)
    plain = None if is_string_series(column) else plain_array(column)
    if plain is not None and plain.dtype.kind in "iu" and len(plain):
        lo, hi = _integer_span(plain)
        if _dense(lo, hi, len(plain), numeric):  # counted by its range here; the values seen make the vocabulary
            encode = run_encoder(plain, lo)
            return _Dictionary(list(range(lo, hi + 1)), np.zeros(hi - lo + 1, bool), encode)
    if numeric:
        raise WideIntegers(f"column {column.name!r} is not an integer column spanning fewer than "
                           f"{MAX_CATEGORIES} values" if isinstance(column, pd.Series) else "a numeric column")
    if classes_of_rows is None:
        dictionary = _factorized(column if plain is None else plain)
    else:
        counts, uniques = count_trusted_values(column if plain is None else plain, classes_of_rows, n_classes)
        dictionary = _Dictionary([python_value(v) for v in uniques], np.zeros(len(uniques), bool), counts=counts)
    if len(dictionary.values) > MAX_CATEGORIES:  # more than a schema holds: the two passes name the column
        raise WideIntegers(f"a column has {len(dictionary.values)} values in a partition, more than {MAX_CATEGORIES}")
    if plain is not None and plain.dtype == object:
        check_equal_values(set(dictionary.values), plain, column.name if isinstance(column, pd.Series) else name)
    return dictionary


def _factorized(column):
    """The :class:`_Dictionary` of a string or object column dictionary-encoded by one hash pass
    (:func:`nbparallel.data.factorize.factorize`): codes ``1 + index``, 0 for a missing value, held in the
    smallest code dtype (not the pass's int64 indices: a partition's columns wait for their encoding together)."""
    indices, uniques = factorize(column)
    codes = np.empty(len(indices), dtype=code_dtype([len(uniques)]))
    np.add(indices, 1, out=codes, casting="unsafe")
    del indices

    def encode(start, stop, out):
        out[:] = codes[start:stop]

    return _Dictionary([python_value(v) for v in uniques], np.zeros(len(uniques), bool), encode)


def _dense(lo, hi, n_values, numeric):
    """True when a partition's integer column of ``n_values`` values from ``lo`` to ``hi`` is counted by its range
    (a table row per integer of the range): at most ``MAX_CATEGORIES`` integers and, for a categorical column,
    not many more than the values (see :func:`nbparallel.data.encoding.integer_vocabulary`); a wider categorical
    column is counted by value, a wider binned one takes two passes."""
    span = hi - lo + 1
    return span <= MAX_CATEGORIES and (numeric or span <= max(DENSE_SPAN, SPAN_FACTOR * n_values))


def _integer_span(values):
    """``(min, max)`` of a non-empty 1-D integer array as Python ints, in one compiled pass."""
    if values.dtype == np.uint64:  # the compiled pass gives int64, which cannot hold 2**63 and more
        return int(values.min()), int(values.max())
    lo, hi = column_ranges(values.reshape(-1, 1))
    return int(lo[0]), int(hi[0])


def _categorical(codes, values):
    """The :class:`_Dictionary` of a ``Categorical``'s codes (-1 = missing) and distinct ``values``:
    codes ``codes + 1``.

    When the code array has their width, ``codes + 1`` is computed in unsigned
    arithmetic, where -1 wraps to 0 (no lookup).
    """
    table = np.append(np.arange(1, len(values) + 1), 0).astype(code_dtype([len(values)]))
    unsigned = codes.view(np.dtype(f"u{codes.itemsize}"))

    def encode(start, stop, out):
        if out.dtype == unsigned.dtype:
            np.add(unsigned[start:stop], 1, out=out)
        else:
            lookup_codes(codes[start:stop], table, out)

    return _Dictionary(values, np.zeros(len(values), bool), encode)


def _integer_array_span(X, numeric):
    """``(lo, hi)`` of each column of a 2-D integer array counted by value as it is, or None.

    None for other inputs, and for an array with a categorical column spanning
    more than ``MAX_CATEGORIES`` values, or many more than its rows (see :func:`_dense`; its columns are
    then factorized one by one).

    Raises
    ------
    WideIntegers
        When a ``numeric`` column spans that many values.
    """
    if isinstance(X, pd.DataFrame) or X.dtype.kind not in "iu" or X.dtype == np.uint64 or not len(X):
        return None
    lo, hi = column_ranges(X)
    span = hi.astype(np.float64) - lo.astype(np.float64) + 1  # no int64 wrap-around
    wide = (span > MAX_CATEGORIES) | ((span > max(DENSE_SPAN, SPAN_FACTOR * len(X))) & ~np.asarray(numeric, bool))
    if np.any(wide & np.asarray(numeric, dtype=bool)):
        raise WideIntegers(f"column {int(np.flatnonzero(wide)[0])} spans {MAX_CATEGORIES} values or more")
    if np.any(wide):
        return None
    return lo, hi


def _integer_vocabularies(lo, hi):
    """The vocabularies ``lo..hi`` of an integer array's columns."""
    return [list(range(int(low), int(h) + 1)) for low, h in zip(lo, hi)]


def _count_integer_array(X, classes_of_rows, n_classes, numeric):
    """``(counts, vocabularies, kept)`` of a 2-D integer array counted by value as it is, or None
    (see :func:`_integer_array_span`)."""
    by_value = count_integers_and_ranges(X, classes_of_rows, n_classes)  # uint8 spans are never wide
    if by_value is None:
        span = _integer_array_span(X, numeric)
        if span is None:
            return None
        vocabularies = _integer_vocabularies(*span)
        table, totals = count_integers(X, classes_of_rows, span[0], _offsets(vocabularies), n_classes)
    else:
        lo, hi, table, totals = by_value
        vocabularies = _integer_vocabularies(lo, hi)
    counted = CountTable(table, _offsets(vocabularies), totals, np.zeros(n_classes))
    return counted, vocabularies, [np.zeros(len(v), bool) for v in vocabularies]


def _count_columns(X, classes_of_rows, n_classes, numeric):
    """``(counts, vocabularies, kept)`` of a partition's columns, each against its own dictionary."""
    frame = isinstance(X, pd.DataFrame)
    classes_of_rows = classes_of_rows.astype(np.int64, copy=False)  # once, not for every hashed column
    columns = [column for _, column in X.items()] if frame else [X[:, a] for a in range(X.shape[1])]
    dictionaries = [_column_dictionary(c, numeric[a], classes_of_rows, n_classes, str(a))
                    for a, c in enumerate(columns)]
    return _count_dictionaries(dictionaries, [partial(pd.isna, c) for c in columns], classes_of_rows, n_classes)


def _count_dictionaries(dictionaries, missing, classes_of_rows, n_classes):
    """``(counts, vocabularies, kept)`` of columns' :class:`_Dictionary` s; ``missing[a]()`` flags the rows
    where column ``a`` is missing."""
    vocabularies = [d.values for d in dictionaries]
    offsets = _offsets(vocabularies)
    table = np.zeros((int(offsets[-1]), n_classes))
    blocked = [a for a, d in enumerate(dictionaries) if d.encode is not None]
    if blocked:
        counted = _count_blocks([dictionaries[a].encode for a in blocked], [vocabularies[a] for a in blocked],
                                classes_of_rows, n_classes, len(classes_of_rows))
        places = np.concatenate([np.arange(offsets[a], offsets[a + 1]) for a in blocked])
        table[places] = counted
    for a, d in enumerate(dictionaries):
        if d.counts is not None:
            table[offsets[a] : offsets[a + 1]] = d.counts
    totals = table[: offsets[1]].sum(axis=0) if dictionaries else np.bincount(classes_of_rows, minlength=n_classes)
    missing_somewhere = dictionaries and table[offsets[:-1]].sum(axis=1).min() > 0
    all_missing = _all_missing(missing, classes_of_rows, n_classes) if missing_somewhere else np.zeros(n_classes)
    return CountTable(table, offsets, totals * 1.0, all_missing), vocabularies, [d.kept for d in dictionaries]


def _count_blocks(encoders, vocabularies, classes_of_rows, n_classes, n_rows):
    """The table of the columns ``encoders`` write, a block of rows at a time in one code buffer.

    The buffer holds ``CODE_BUFFER_BYTES``, reused for every block; larger
    blocks cost memory and save only the per-block overhead, small
    once a block holds many rows.
    """
    counter = CodeCounter(_offsets(vocabularies), n_classes)
    dtype = code_dtype([len(v) for v in vocabularies])
    block_rows = max(4096, CODE_BUFFER_BYTES // (len(encoders) * np.dtype(dtype).itemsize))
    codes = column_major(min(max(n_rows, 1), block_rows), len(encoders), dtype)
    for start in range(0, n_rows, block_rows):
        stop = min(start + block_rows, n_rows)
        block = codes[: stop - start]
        for a, encode in enumerate(encoders):
            encode(start, stop, block[:, a])
        counter.add(block, classes_of_rows[start:stop])
    return counter.table()


def _all_missing(missing, classes_of_rows, n_classes):
    """Rows per class whose every column is missing (``missing[a]()`` flags column ``a``'s missing rows)."""
    every = np.ones(len(classes_of_rows), dtype=bool)
    for flags in missing:
        every &= np.asarray(flags(), dtype=bool)
    return np.bincount(classes_of_rows[every], minlength=n_classes).astype(np.float64)


def _class_codes(y):
    """``(codes, classes)``: each row's class position, ``len(classes)`` for a missing target."""
    if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype):  # a file's dictionary column
        codes = y.array.codes.astype(np.int64)
        codes[codes < 0] = len(y.cat.categories)
        return codes, y.cat.categories.tolist()  # Python values, as in _categorical
    y = np.asarray(y)
    if y.dtype.kind in "iu" and y.dtype != np.uint64 and len(y):
        lo, hi = _integer_span(y)
        if hi - lo < DENSE_SPAN:  # a class column per integer of the span: only for a small one
            return (y if lo == 0 else y.astype(np.int64) - lo), list(range(lo, hi + 1))
    codes, uniques = factorize(y)
    classes = [python_value(v) for v in uniques]
    codes[codes < 0] = len(classes)
    return codes, classes


def count_dictionaries(numeric, X, y, w):
    """The :class:`DictionaryCounts` of one partition's unweighted rows.

    ``numeric`` flags the binned integer attributes (counted per value, like
    an integer categorical column). Weighted rows take the two passes: their
    per-class totals are float sums whose rounding depends on the order of the
    global vocabulary.
    """
    if w is not None:
        raise ValueError("one-pass counting takes unweighted rows; weighted data is counted in two passes")
    classes_of_rows, classes = _class_codes(y)
    n_classes = len(classes) + 1  # the last: rows whose target is missing
    counted = _count_integer_array(X, classes_of_rows, n_classes, numeric)
    return _counts(classes, classes_of_rows, *(counted or _count_columns(X, classes_of_rows, n_classes, numeric)),
                   integers=_integer_flags(X))


def _integer_flags(X):
    """Per column of a partition: True for a column of integers (numpy, nullable or Arrow)."""
    if isinstance(X, pd.DataFrame):
        return tuple(bool(pd.api.types.is_integer_dtype(d)) for d in X.dtypes)
    return (X.dtype.kind in "iu",) * X.shape[1]


def _counts(classes, classes_of_rows, counted, vocabularies, kept, integers=()):
    """The :class:`DictionaryCounts` of a partition's table (``integers``: see :func:`_integer_flags`)."""
    if vocabularies:  # every row counts once in the first attribute's rows, missing targets in the last column
        n_missing = int(counted.table[: counted.offsets[1], -1].sum())
    else:
        n_missing = int(np.count_nonzero(classes_of_rows == len(classes)))
    return DictionaryCounts(classes, [list(v) for v in vocabularies], list(kept), counted.table,
                            counted.class_totals, counted.all_missing, n_missing, (len(classes_of_rows),),
                            tuple(integers))


def count_arrow_table(columns, target, numeric, table):
    """:func:`count_dictionaries` of an Arrow table's rows (a small Parquet directory's partition).

    Its string dictionary columns are counted from their indices, against
    dictionaries unified over the table's chunks (its files); other columns
    are converted to pandas as :func:`nbparallel.data.files.arrow.table_to_pandas` converts
    them. Converting the dictionary columns to ``Categorical`` cost more than
    counting them.
    """
    classes_of_rows, classes, dictionaries, missing, integers = _arrow_dictionaries(columns, target, numeric, table,
                                                                                    counted=True)
    return _counts(classes, classes_of_rows,
                   *_count_dictionaries(dictionaries, missing, classes_of_rows, len(classes) + 1), integers=integers)


def _arrow_dictionaries(columns, target, numeric, table, counted):
    """``(classes_of_rows, classes, dictionaries, missing, integers)`` of an Arrow table's columns (see
    :func:`count_arrow_table`); string columns that are not dictionaries are counted by value when
    ``counted``, else dictionary-encoded."""
    from nbparallel.data.files.arrow import dictionary_codes, table_to_pandas

    table = table.combine_chunks()  # one array per column, the dictionaries of its chunks unified
    native = {name: dictionary_codes(table.column(name)) for name in [*columns, target]}
    native.update((name, None) for name, is_numeric in zip(columns, numeric) if is_numeric)
    others = [name for name, found in native.items() if found is None]
    rest = table_to_pandas(table.select(others)) if others else None
    if native[target] is None:
        classes_of_rows, classes = _class_codes(target_values(rest[target]))
    else:
        codes, classes = native[target]
        classes_of_rows = codes.astype(np.int64)
        classes_of_rows[classes_of_rows < 0] = len(classes)
    n_classes = len(classes) + 1
    dictionaries, missing = [], []
    for a, name in enumerate(columns):
        if native[name] is None:
            dictionaries.append(_column_dictionary(rest[name], numeric[a], classes_of_rows if counted else None,
                                                   n_classes))
            missing.append(partial(pd.isna, rest[name]))
        else:
            codes, values = native[name]
            dictionaries.append(_categorical(codes, values))
            missing.append(partial(np.less, codes, 0))
    integers = tuple(native[name] is None and bool(pd.api.types.is_integer_dtype(rest[name].dtype))
                     for name in columns)
    return classes_of_rows, classes, dictionaries, missing, integers


def _by_form(of_rows, of_arrow_table, columns, target, numeric, unpacked, part):
    """``unpacked(part)`` (``of_rows(numeric, X, y, w)`` of the partition's rows), except that a DataFrame's
    categorical target is passed as it is, not as objects, and an Arrow table goes to ``of_arrow_table``
    as it is (see :func:`count_arrow_table`)."""
    if is_arrow_table(part) and target is not None:
        return of_arrow_table(columns, target, numeric, part)
    if isinstance(part, pd.DataFrame) and target is not None and isinstance(part[target].dtype, pd.CategoricalDtype):
        return of_rows(numeric, part[columns], part[target], None)
    return unpacked(part)


def numeric_flags(dataset):
    """Per attribute of a dataset counted by value: True for a binned integer column."""
    return tuple(kind == NUMERIC for kind in dataset.kinds)


def schema_of_counts(dataset, counts, n_bins):
    """The schema of ``dataset`` from its merged :class:`DictionaryCounts`, as the schema pass makes it."""
    return schema_of_scan(dataset, counts.scan(numeric_flags(dataset)), n_bins, None)


def count_in_one_pass(dataset, *, n_bins=10, split_every=2, verbose=False):
    """Fit's schema and counts from one pass over a dataset that :func:`applies`.

    Returns
    -------
    schema : nbparallel.data.schema.Schema
    counts : nbparallel.summaries.counts.CountTable
    record : nbparallel.engine.reduce.TreeRecord

    Raises
    ------
    WideIntegers
        When a binned integer column spans too many values in a partition to
        be counted per value: the caller takes the two passes instead.
    """
    numeric = numeric_flags(dataset)
    try:
        counts, record = execution.run_pass(
            dataset.partitions,
            partial(_by_form, count_dictionaries, count_arrow_table, dataset.columns, dataset.target, numeric,
                    dataset.map(count_dictionaries, numeric)),
            merge_summaries,
            split_every=split_every,
            name="nbparallel-count",
            token=dataset.token,
            verbose=verbose,
        )
    except EqualValuesOfTypes as exc:
        raise exc.naming(dataset.columns) from None
    schema = schema_of_counts(dataset, counts, n_bins)
    return schema, counts.count_table(schema), record


# ------------------------------------------------------------------ a partition kept as codes

class CodedRows:
    """A partition's rows as codes against its own dictionaries, kept for the passes after its count.

    Cross-validation counts a partition's rows once per fold layout and then scores them: coded once (files
    read and strings hashed once), its codes serve every later pass. :meth:`count` gives the
    :class:`DictionaryCounts` that :func:`count_dictionaries` gives for the same rows, with each row counted
    under the block its caller names.

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_rows, n_attributes), any layout
        Attribute ``a``'s code ``c`` stands for ``vocabularies[a][c + shift[a] - 1]``; ``c + shift[a] == 0``
        for a missing value.
    shift : ndarray of int64, shape (n_attributes,)
        0, or ``1 - min`` for a 2-D integer array kept as it is (its values are its codes).
    vocabularies, kept, integers
        As in :class:`DictionaryCounts`.
    classes_of_rows : ndarray of int64, shape (n_rows,)
        Each row's position in ``classes``, ``len(classes)`` for a missing target.
    classes : list
        The partition's classes.
    """

    def __init__(self, codes, shift, vocabularies, kept, integers, classes_of_rows, classes):
        self.codes, self.shift = codes, np.asarray(shift, dtype=np.int64)
        self.vocabularies, self.kept, self.integers = [list(v) for v in vocabularies], list(kept), tuple(integers)
        self.classes_of_rows, self.classes = classes_of_rows, list(classes)

    @property
    def nbytes(self):
        """Bytes of the codes and class codes (what keeping the partition costs)."""
        return int(self.codes.nbytes + self.classes_of_rows.nbytes)

    def __len__(self):
        return len(self.classes_of_rows)

    def count(self, runs=None, blocks=(), n_blocks=1):
        """The :class:`DictionaryCounts` (of ``n_blocks`` blocks) of these rows, each counted under the class
        columns of a block for each of

        - ``runs``: ``(rows, block)`` pairs, ``rows`` a slice of rows all in ``block`` (contiguous folds:
          no array per row); None (and no ``blocks``) counts every row in block 0, as
          :func:`count_dictionaries` does;
        - ``blocks``: ``(folds, first)`` pairs, row ``i`` in block ``first + folds[i]`` (none where
          ``folds[i] < 0``).
        """
        width = len(self.classes) + 1
        n_labels = width * n_blocks
        offsets = _offsets(self.vocabularies)
        runs = [(slice(None), 0)] if runs is None and not blocks else runs or []
        table, totals, all_missing = np.zeros((int(offsets[-1]), n_labels)), np.zeros(n_labels), np.zeros(n_labels)
        for rows, block in runs:
            columns = slice(block * width, (block + 1) * width)
            counted, class_totals = count_integers(self.codes[rows], self.classes_of_rows[rows], 1 - self.shift,
                                                   offsets, width)
            table[:, columns] += counted
            totals[columns] += class_totals
        labels = [class_fold_codes(self.classes_of_rows, folds, width, first) for folds, first in blocks]
        for label in labels:
            counted, class_totals = count_integers(self.codes, label, 1 - self.shift, offsets, n_labels)
            table += counted
            totals += class_totals
        if self.vocabularies and table[offsets[:-1]].sum(axis=1).min() > 0:  # rows may miss every value
            every = np.logical_and.reduce([self.codes[:, a] == 0 for a in range(self.codes.shape[1])])
            for rows, block in runs:
                classes = self.classes_of_rows[rows][every[rows]]
                all_missing[block * width : (block + 1) * width] += np.bincount(classes, minlength=width)
            for label in labels:
                label = label[every]
                all_missing += np.bincount(label[label >= 0], minlength=n_labels)
        n_missing = int(np.count_nonzero(self.classes_of_rows == len(self.classes)))
        return DictionaryCounts(self.classes, self.vocabularies, self.kept, table, totals, all_missing, n_missing,
                                (len(self),), self.integers, n_blocks)

    def class_tally(self):
        """The rows per class with a known target, the classes in order of first appearance:
        ``(values, counts)`` as :func:`nbparallel.model_selection.folds.tally_classes` gives them."""
        known = self.classes_of_rows[self.classes_of_rows < len(self.classes)]
        first = pd.unique(known)
        counts = np.bincount(known, minlength=len(self.classes))[first]
        return np.asarray([self.classes[c] for c in first]), counts.astype(np.int64)


def code_rows(numeric, X, y, w):
    """The :class:`CodedRows` of one partition's unweighted rows (``numeric``: see :func:`count_dictionaries`).

    A 2-D array of small unsigned integers is kept as it is; any other partition is coded column by column,
    its string and object columns dictionary-encoded by one hash pass.

    Raises
    ------
    WideIntegers
        As :func:`count_dictionaries`.
    """
    if w is not None:
        raise ValueError("rows are kept as codes unweighted; weighted data is counted in two passes")
    classes_of_rows, classes = _class_codes(y)
    classes_of_rows = classes_of_rows.astype(np.int64, copy=False)
    span = _integer_array_span(X, numeric)
    if span is not None:
        return _coded_integer_array(X, *span, classes_of_rows, classes)
    columns = [column for _, column in X.items()] if isinstance(X, pd.DataFrame) else [X[:, a]
                                                                                     for a in range(X.shape[1])]
    dictionaries = [_column_dictionary(c, numeric[a], None, 0, str(a)) for a, c in enumerate(columns)]
    return _coded(dictionaries, classes_of_rows, classes, _integer_flags(X))


def code_arrow_table(columns, target, numeric, table):
    """:func:`code_rows` of an Arrow table's rows, its string dictionary columns coded from their indices
    (see :func:`count_arrow_table`)."""
    classes_of_rows, classes, dictionaries, _, integers = _arrow_dictionaries(columns, target, numeric, table,
                                                                              counted=False)
    return _coded(dictionaries, classes_of_rows, classes, integers)


def _coded(dictionaries, classes_of_rows, classes, integers):
    """The :class:`CodedRows` of columns' :class:`_Dictionary` s (each with an encoder)."""
    vocabularies = [d.values for d in dictionaries]
    widest = max([len(v) for v in vocabularies] + [0])
    if widest > MAX_CATEGORIES:  # more than the codes hold: the two passes name the column
        raise WideIntegers(f"a column has {widest} values in a partition, more than {MAX_CATEGORIES}")
    n_rows, n_columns = len(classes_of_rows), len(dictionaries)
    dtype = code_dtype([len(v) for v in vocabularies])
    # row-major, as the scoring kernels read a row's codes together; written a block of columns at a time
    codes = np.empty((n_rows, n_columns), dtype=dtype)
    block_rows = max(4096, ROW_BLOCK_BYTES // max(n_columns * np.dtype(dtype).itemsize, 1))
    block = column_major(min(max(n_rows, 1), block_rows), n_columns, dtype)
    for start in range(0, n_rows, block_rows):
        stop = min(start + block_rows, n_rows)
        for a, d in enumerate(dictionaries):
            d.encode(start, stop, block[: stop - start, a])
        codes[start:stop] = block[: stop - start]
    return CodedRows(codes, np.zeros(len(dictionaries), dtype=np.int64), vocabularies, [d.kept for d in dictionaries],
                     integers, classes_of_rows, classes)


def _coded_integer_array(X, lo, hi, classes_of_rows, classes):
    """The :class:`CodedRows` of a 2-D integer array spanning ``lo..hi`` per column: the array itself when
    its values fit the code dtypes, else its values less ``lo - 1``."""
    vocabularies = _integer_vocabularies(lo, hi)
    kept = [np.zeros(len(v), bool) for v in vocabularies]
    integers = (True,) * X.shape[1]
    if X.dtype in (np.uint8, np.uint16):
        return CodedRows(X, 1 - lo.astype(np.int64), vocabularies, kept, integers, classes_of_rows, classes)
    codes = np.empty(X.shape, dtype=code_dtype([len(v) for v in vocabularies]))
    np.subtract(X, (lo - 1).astype(X.dtype), out=codes, casting="unsafe")  # at most the span: no wrap-around
    return CodedRows(codes, np.zeros(X.shape[1], dtype=np.int64), vocabularies, kept, integers, classes_of_rows,
                     classes)


def partition_coder(dataset):
    """A picklable function of one of ``dataset``'s partitions giving its :class:`CodedRows`."""
    numeric = numeric_flags(dataset)
    return partial(_by_form, code_rows, code_arrow_table, dataset.columns, dataset.target, numeric,
                   dataset.map(code_rows, numeric))

"""Pair counts: per class, every attribute's values and every pair of attributes' values, the summary AODE and
TAN are derived from.

A :class:`PairCounts` is a :class:`~nbparallel.summaries.counts.CountTable` of the single attributes plus the
pair tables of :func:`nbparallel.kernels.pair_counts.count_pairs`: raw (weighted) counts only, so ``+`` adds
them (associative, commutative, exact for integer counts), ``-`` is its inverse (cross-validation's ``total -
fold``), :meth:`PairCounts.empty` its identity and ``to_dict``/``from_dict`` its JSON form. A pair table grows
as the square of the attributes' values: :func:`pair_cells` says how large it is before anything is counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nbparallel.engine import execution
from nbparallel.kernels.pair_counts import count_pairs, pair_row_starts
from nbparallel.summaries.counts import CountSpec, CountTable
from nbparallel.summaries.protocol import check_same_type, merge_summaries


def pair_cells(offsets, n_classes):
    """Number of counts (float64 each) a :class:`PairCounts` of this layout holds, pair tables and single counts.

    >>> pair_cells(np.array([0, 11, 22, 33]), 2)  # 3 attributes of 10 values (and the missing row), 2 classes
    792
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    return int(n_classes) * (pair_row_starts(offsets)[1] + int(offsets[-1]))


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Per-class counts of every attribute's values and of every pair of attributes' values.

    Parameters
    ----------
    counts : CountTable
        The single attributes' counts, class totals, all-missing rows and missing targets, as naive Bayes
        counts them.
    pairs : ndarray of float64, shape (n_classes, n_cells)
        Each class's pair table, missing rows and columns included: the cell of attributes ``i < j`` with
        codes ``x_i, x_j`` (0 missing) is ``starts[offsets[i] + x_i] + offsets[j] + x_j``, ``starts`` from
        :func:`~nbparallel.kernels.pair_counts.pair_row_starts`. Read it through :meth:`pair`.

    Examples
    --------
    >>> codes = np.array([[1, 2], [1, 1], [2, 0]], dtype=np.uint8)  # attribute 1 missing in the last row
    >>> counts = PairCounts.of_codes(codes, np.array([0, 0, 1]), None, np.array([0, 3, 6]), 2)
    >>> counts.pair(0, 1)[0].tolist()  # class 0: rows of attribute 0's values, columns of attribute 1's
    [[1.0, 1.0], [0.0, 0.0]]
    >>> (counts + counts - counts).equals(counts)
    True
    """

    counts: CountTable
    pairs: np.ndarray

    @classmethod
    def empty(cls, offsets, n_classes):
        """The counts of an empty partition: all zeros."""
        counts = CountTable.empty(offsets, n_classes)
        return cls(counts, np.zeros((n_classes, pair_row_starts(counts.offsets)[1])))

    @classmethod
    def of_codes(cls, codes, y, weights, offsets, n_classes):
        """Count rows of codes (0 missing, ``1 .. M_a``) with class codes ``y`` (-1 missing) and optional weights.

        See :func:`nbparallel.kernels.pair_counts.count_pairs` for the arguments.
        """
        offsets = np.asarray(offsets, dtype=np.int64)
        singles, pairs, class_totals, all_missing, n_missing_target = count_pairs(codes, y, weights, offsets,
                                                                                  n_classes)
        return cls(CountTable(singles, offsets, class_totals, all_missing, n_missing_target), pairs)

    @property
    def offsets(self):
        """The attributes' rows in the single counts (missing row first)."""
        return self.counts.offsets

    @property
    def n_classes(self):
        """Number of classes."""
        return self.counts.n_classes

    @property
    def n_attributes(self):
        """Number of attributes."""
        return self.counts.n_attributes

    @property
    def class_weights(self):
        """N_k: weight per class of the rows with a known target and some known value."""
        return self.counts.class_weights

    @property
    def n_rows(self):
        """The rows counted: those of a known target (each its weight) and those of a missing one."""
        return self.counts.n_rows

    @staticmethod
    def table_size(schema, offsets=None):
        """``(cells, classes, what, hint)`` of the pair counts a pass under ``schema`` holds per task: a class's
        cells and the classes (the shape checked against the memory before the pass), their name in a memory
        error, and what to change when they do not fit; ``offsets``: another layout of its attributes (the
        MDL intervals, :class:`Recoding`) than the schema's own."""
        offsets = schema.counted().offsets if offsets is None else np.asarray(offsets, dtype=np.int64)
        n_classes = len(schema.classes)
        n_attributes, n_values = len(offsets) - 1, int(offsets[-1])
        return (pair_cells(offsets, 1), n_classes,
                f"the pair counts of {n_classes} classes x {n_attributes} attributes of {n_values} values in all "
                "(they grow as the square of the values)",
                "use fewer bins (n_bins), fewer categorical values or fewer attributes")

    @classmethod
    def counting_pass(cls, dataset, schema, *, recoding=None, split_every=2, verbose=False):
        """The counting pass of ``dataset`` under ``schema`` (its counted attributes' layout, or with a
        :class:`Recoding` its codes recoded into the recoding's layout): ``(PairCounts, tree record)``; each
        partition is checked against the rows the schema pass read."""
        spec = CountSpec.of(schema.counted())
        rows = dataset.partition_rows
        if rows is not None and len(rows) == len(dataset.partitions):
            summarize = [dataset.map(count_checked_pair_rows, spec, recoding, i, n) for i, n in enumerate(rows)]
        else:
            summarize = dataset.map(count_pair_rows, spec, recoding)
        return execution.run_pass(dataset.partitions, summarize, merge_summaries, split_every=split_every,
                                  name="nbparallel-pair-count", token=dataset.token, verbose=verbose)

    def class_columns(self, columns):
        """The counts of the classes at ``columns`` (a slice or index array), in that order."""
        return PairCounts(self.counts.class_columns(columns), self.pairs[columns])

    @property
    def sizes(self):
        """Each attribute's number of values (its rows less the missing row)."""
        return np.diff(self.offsets) - 1

    def pair(self, i, j, missing=False):
        """Counts of attributes ``i`` and ``j`` (``i != j``) together, shape (n_classes, M_i, M_j).

        Rows of ``i``'s values, columns of ``j``'s, over the rows where both are present; with ``missing``,
        shape (n_classes, M_i + 1, M_j + 1), the missing row and column first. A view for ``i < j``, its
        transpose for ``i > j``.
        """
        f = self.n_attributes
        if not (0 <= i < f and 0 <= j < f) or i == j:
            raise ValueError(f"pair needs two different attributes in [0, {f}), got {i} and {j}")
        if i > j:
            return np.swapaxes(self.pair(j, i, missing), 1, 2)
        offsets = self.offsets
        starts, _ = pair_row_starts(offsets)
        size_i = int(offsets[i + 1] - offsets[i])
        length = int(offsets[-1] - offsets[i + 1])
        first = int(starts[offsets[i]] + offsets[i + 1])
        rows = self.pairs[:, first : first + size_i * length].reshape(self.n_classes, size_i, length)
        block = rows[:, :, offsets[j] - offsets[i + 1] : offsets[j + 1] - offsets[i + 1]]
        return block if missing else block[:, 1:, 1:]

    def reindex(self, row_maps, new_sizes, class_map, n_classes):
        """Move the counts into a larger layout (new categories or classes), as
        :meth:`CountTable.reindex <nbparallel.summaries.counts.CountTable.reindex>` takes it: each attribute's
        new position (0-based) of each old value, the new numbers of values, each old class's new column and
        the new number of classes. The new cells are zero.

        >>> codes = np.array([[1, 2], [1, 1], [2, 0]], dtype=np.uint8)
        >>> counts = PairCounts.of_codes(codes, np.array([0, 0, 1]), None, np.array([0, 3, 6]), 2)
        >>> wider = counts.reindex([[0, 2], [0, 1]], [3, 2], [1, 0], 2)  # a value between attribute 0's two
        >>> wider.pair(0, 1)[1].tolist()  # old class 0 is now class 1
        [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
        """
        counts = self.counts.reindex(row_maps, new_sizes, class_map, n_classes)
        out = PairCounts.empty(counts.offsets, n_classes)
        rows = [np.concatenate([[0], np.asarray(m, dtype=np.int64) + 1]) for m in row_maps]  # the missing row first
        classes = np.asarray(class_map, dtype=np.int64)
        for i in range(self.n_attributes):
            for j in range(i + 1, self.n_attributes):
                out.pair(i, j, missing=True)[np.ix_(classes, rows[i], rows[j])] = self.pair(i, j, missing=True)
        return PairCounts(counts, out.pairs)

    def __add__(self, other):
        check_same_type(self, other)
        return PairCounts(self.counts + other.counts, self.pairs + other.pairs)

    def __sub__(self, part):
        """The counts of the rows in this summary but not in ``part``, the inverse of ``+`` (exact for integer
        counts; float rounding is clipped at zero, as :class:`CountTable` clips it)."""
        check_same_type(self, part)
        return PairCounts(self.counts - part.counts, np.maximum(self.pairs - part.pairs, 0))

    def equals(self, other):
        """True when both summaries hold exactly the same counts."""
        return (isinstance(other, PairCounts) and self.counts.equals(other.counts)
                and np.array_equal(self.pairs, other.pairs))

    def to_dict(self):
        """Plain lists, for JSON."""
        return {"counts": self.counts.to_dict(), "pairs": self.pairs.tolist()}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`; checks shapes and values."""
        counts = CountTable.from_dict(data["counts"])
        pairs = np.asarray(data["pairs"], dtype=np.float64)
        shape = (counts.n_classes, pair_row_starts(counts.offsets)[1])
        if pairs.shape != shape:
            raise ValueError(f"pair counts have shape {pairs.shape}, the count table's layout needs {shape}")
        if not (np.all(np.isfinite(pairs)) and np.all(pairs >= 0)):
            raise ValueError("pair counts hold negative or non-finite counts")
        return cls(counts, pairs)


@dataclass(frozen=True, eq=False)
class Recoding:
    """Codes of the counting bins recoded into coarser values before the pairs are counted: the MDL intervals
    of AODE's and TAN's ``n_bins="mdl"``, each a run of fine bins.

    Attributes
    ----------
    maps : tuple
        Per counted attribute (table order), None to keep its codes, else an int64 array: the new code of each
        old code (0, missing, to 0).
    offsets : ndarray of int64
        The layout of the new codes (missing row first).

    Examples
    --------
    >>> recoding = Recoding((None, np.array([0, 1, 1, 2])), np.array([0, 3, 6]))
    >>> recoding(np.array([[1, 3], [2, 1], [0, 2]], dtype=np.uint16)).tolist()
    [[1, 2], [2, 1], [0, 1]]
    """

    maps: tuple
    offsets: np.ndarray

    def __call__(self, codes):
        """The codes recoded, as uint8 (or uint16 where a layout needs it), shape of ``codes``."""
        dtype = np.uint8 if int(np.max(np.diff(self.offsets), initial=1)) <= 256 else np.uint16
        out = np.empty(codes.shape, dtype=dtype)
        for a, table in enumerate(self.maps):
            out[:, a] = codes[:, a] if table is None else table[codes[:, a]]
        return out


def count_pair_rows(spec, recoding, X, y, w):
    """Count one partition's rows into a :class:`PairCounts` under ``spec``
    (:class:`~nbparallel.summaries.counts.CountSpec`): every attribute as codes, numeric ones binned under the
    counting bins, as :func:`~nbparallel.summaries.counts.count_rows` counts them, and recoded by ``recoding``
    (a :class:`Recoding`) unless it is None.

    Raises
    ------
    ValueError
        When a categorical column holds a value the schema does not know.
    """
    schema = spec.schema
    classes = schema.encode_classes(y, w)
    codes, values, unknown = schema.encode(X)
    if unknown and w is not None and np.any(np.asarray(w) == 0):
        unknown = schema.encode(X[np.asarray(w) > 0])[2]  # rows of weight zero are as if absent
    if unknown:
        name, n = next(iter(unknown.items()))
        raise ValueError(f"column {name!r} holds {n} value(s) the schema pass did not see: "
                         "did the data change between the schema pass and the counting pass?")
    codes = spec.counted_codes(codes, values)
    offsets = spec.offsets
    if recoding is not None:
        codes, offsets = recoding(codes), recoding.offsets
    weights = None if w is None else np.asarray(w, dtype=np.float64)
    return PairCounts.of_codes(codes, classes, weights, offsets, len(schema.classes))


def count_checked_pair_rows(spec, recoding, index, n_rows, X, y, w):
    """:func:`count_pair_rows` of partition ``index``, which the schema pass read with ``n_rows`` rows.

    Raises
    ------
    ValueError
        When the partition has another number of rows now: the data changed between the passes.
    """
    if len(X) != n_rows:
        raise ValueError(f"partition {index} had {n_rows} rows in the schema pass but has {len(X)} in the counting "
                         "pass: did the data change between the schema pass and the counting pass?")
    return count_pair_rows(spec, recoding, X, y, w)

"""Count tables: the summary a counting pass produces for one partition.

A :class:`CountTable` holds raw (weighted) counts only. Merging two tables adds
them, so ``merge`` is associative and commutative, the empty table is its
identity, and integer counts (exact in float64 up to 2**53) merge exactly.
Smoothing, logarithms and probabilities are derived from the merged table
afterwards, never merged. A table follows the summary protocol of
:mod:`nbparallel.summaries`: ``a + b`` merges, :meth:`CountTable.empty` is the
identity, ``to_dict``/``from_dict`` its JSON form.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nbparallel.engine import execution
from nbparallel.kernels.binning import bin_values
from nbparallel.kernels.counting import count_partition
from nbparallel.summaries.protocol import merge_summaries


@dataclass(frozen=True, eq=False)
class CountTable:
    """Class counts and value-by-class counts for every attribute.

    Parameters
    ----------
    table : ndarray of float64, shape (n_rows_total, n_classes)
        Attribute ``a`` owns rows ``offsets[a]`` to ``offsets[a + 1] - 1``. The
        first of them counts missing values; the others count the attribute's
        values (categories or bins) in order.
    offsets : ndarray of int64, shape (n_attributes + 1,)
        Row offsets of the attributes in ``table``.
    class_totals : ndarray of float64, shape (n_classes,)
        Weight of the rows with a known target, per class.
    all_missing : ndarray of float64, shape (n_classes,)
        Weight of the rows with a known target whose every attribute is missing;
        the SPSS algorithm ignores these cases.
    n_missing_target : int
        Number of rows skipped because their target is missing.

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import CountTable, NaiveBayes
    >>> model = NaiveBayes(categorical_features="all").fit(np.array([[0], [1], [1]]), [0, 1, 1])
    >>> isinstance(model.counts_, CountTable), model.counts_.class_totals.tolist()
    (True, [1.0, 2.0])
    """

    table: np.ndarray
    offsets: np.ndarray
    class_totals: np.ndarray
    all_missing: np.ndarray
    n_missing_target: int = 0

    @classmethod
    def empty(cls, offsets, n_classes):
        """The table of an empty partition: all zeros."""
        offsets = np.asarray(offsets, dtype=np.int64)
        return cls(
            table=np.zeros((int(offsets[-1]), n_classes)),
            offsets=offsets,
            class_totals=np.zeros(n_classes),
            all_missing=np.zeros(n_classes),
        )

    @property
    def n_classes(self):
        """Number of classes (columns of the table)."""
        return self.table.shape[1]

    @property
    def n_attributes(self):
        """Number of attributes."""
        return len(self.offsets) - 1

    @property
    def class_counts(self):
        """N_k: weight per class of the cases the model uses."""
        return self.class_totals - self.all_missing

    class_weights = class_counts

    @property
    def n_rows(self):
        """The rows counted: those of a known target (each its weight) and those of a missing one."""
        return int(self.class_totals.sum()) + self.n_missing_target

    @staticmethod
    def table_size(schema):
        """``(rows, columns, what, hint)`` of the count table a pass under ``schema`` holds per task: its shape,
        its name in a memory error, and what to change when it does not fit."""
        n_values, n_classes = int(schema.counted().offsets[-1]), len(schema.classes)
        return (n_values, n_classes, f"the count tables of {n_classes} classes x {n_values} values",
                "use fewer bins (n_bins) or fewer categorical values")

    @classmethod
    def counting_pass(cls, dataset, schema, *, split_every=2, verbose=False):
        """The counting pass of ``dataset`` under ``schema`` (its counted attributes' layout):
        ``(CountTable, tree record)``, :func:`count_dataset`."""
        return count_dataset(dataset, schema.counted(), split_every=split_every, verbose=verbose)

    def attribute(self, a):
        """Value-by-class counts of attribute ``a``, missing row excluded."""
        return self.table[self.offsets[a] + 1 : self.offsets[a + 1]]

    def missing(self, a):
        """Per-class weight of the rows where attribute ``a`` is missing."""
        return self.table[self.offsets[a]]

    def merge(self, other):
        """Add two tables of the same layout."""
        if not isinstance(other, CountTable):
            raise TypeError(f"can only merge a CountTable, got {type(other).__name__}")
        if self.table.shape != other.table.shape or not np.array_equal(
            self.offsets, other.offsets
        ):
            raise ValueError(
                "cannot merge count tables of different layouts: "
                f"{self.table.shape} with offsets {self.offsets.tolist()} and "
                f"{other.table.shape} with offsets {other.offsets.tolist()}"
            )
        return CountTable(
            table=self.table + other.table,
            offsets=self.offsets,
            class_totals=self.class_totals + other.class_totals,
            all_missing=self.all_missing + other.all_missing,
            n_missing_target=self.n_missing_target + other.n_missing_target,
        )

    __add__ = merge

    def __sub__(self, part):
        """The counts of the rows in this table but not in ``part``, the inverse of ``+``
        (``(a + b) - b == a``, exactly for integer counts; float rounding is clipped at zero)."""
        if not isinstance(part, CountTable) or self.table.shape != part.table.shape:
            raise ValueError("can only subtract a count table of the same layout")
        return CountTable(np.maximum(self.table - part.table, 0), self.offsets,
                          np.maximum(self.class_totals - part.class_totals, 0),
                          np.maximum(self.all_missing - part.all_missing, 0),
                          max(self.n_missing_target - part.n_missing_target, 0))

    def class_columns(self, columns):
        """The table of the classes at ``columns`` (a slice or index array), in that order."""
        return CountTable(self.table[:, columns], self.offsets, self.class_totals[columns], self.all_missing[columns])

    def equals(self, other):
        """True when both tables hold exactly the same counts."""
        return (
            isinstance(other, CountTable)
            and np.array_equal(self.offsets, other.offsets)
            and np.array_equal(self.table, other.table)
            and np.array_equal(self.class_totals, other.class_totals)
            and np.array_equal(self.all_missing, other.all_missing)
            and self.n_missing_target == other.n_missing_target
        )

    def reindex(self, row_maps, new_sizes, class_map, n_classes):
        """Move the counts into a larger layout (new categories or classes).

        Parameters
        ----------
        row_maps : list of ndarray of int
            For each attribute, the new position (0-based, missing row excluded)
            of each of its old values.
        new_sizes : list of int
            The new number of values of each attribute.
        class_map : ndarray of int
            The new column of each old class.
        n_classes : int
            The new number of classes.
        """
        offsets = np.concatenate([[0], np.cumsum(np.asarray(new_sizes) + 1)]).astype(np.int64)
        out = CountTable.empty(offsets, n_classes)
        for a, row_map in enumerate(row_maps):
            new_rows = np.concatenate([[0], np.asarray(row_map, dtype=np.int64) + 1])
            out.table[np.ix_(offsets[a] + new_rows, class_map)] = self.table[
                self.offsets[a] : self.offsets[a + 1]
            ]
        out.class_totals[class_map] = self.class_totals
        out.all_missing[class_map] = self.all_missing
        return CountTable(out.table, offsets, out.class_totals, out.all_missing, self.n_missing_target)

    def to_dict(self):
        """Plain lists, for JSON."""
        return {
            "table": self.table.tolist(),
            "offsets": self.offsets.tolist(),
            "class_totals": self.class_totals.tolist(),
            "all_missing": self.all_missing.tolist(),
            "n_missing_target": int(self.n_missing_target),
        }

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`; checks shapes and values."""
        offsets = np.asarray(data["offsets"], dtype=np.int64)
        table = np.asarray(data["table"], dtype=np.float64)
        class_totals = np.asarray(data["class_totals"], dtype=np.float64)
        all_missing = np.asarray(data["all_missing"], dtype=np.float64)
        n_classes = class_totals.shape[0] if class_totals.ndim == 1 else -1
        if (
            offsets.ndim != 1
            or len(offsets) < 1
            or offsets[0] != 0
            or np.any(np.diff(offsets) < 1)
            or table.ndim != 2
            or table.shape != (offsets[-1], n_classes)
            or all_missing.shape != class_totals.shape
        ):
            raise ValueError("count table has inconsistent shapes")
        if not (np.all(np.isfinite(table)) and np.all(table >= 0)):
            raise ValueError("count table holds negative or non-finite counts")
        return cls(table, offsets, class_totals, all_missing, int(data["n_missing_target"]))


def merge_tables(*tables):
    """Merge any number of tables, left to right in the order given."""
    if not tables:
        raise ValueError("merge_tables needs at least one table")
    return merge_summaries(*tables)


@dataclass(frozen=True)
class CountSpec:
    """What every partition's counting needs: the schema and its table layout."""

    schema: object
    offsets: np.ndarray
    edges: np.ndarray

    @classmethod
    def of(cls, schema):
        """The spec of a :class:`nbparallel.data.schema.Schema`."""
        return cls(schema, schema.offsets, schema.count_edges())

    def counted_codes(self, codes, values):
        """Every attribute's codes in table order, from a partition's ``(codes, values)`` (``Schema.split``):
        the numeric values binned under the counting bins (``1 + bin``, 0 when missing) as
        :func:`~nbparallel.kernels.counting.count_partition` bins them; ``codes`` itself when there is no
        numeric attribute. For passes that count the same rows again (boosting rounds): binned once."""
        if not values.shape[1]:
            return codes
        n_bins = np.diff(self.offsets[codes.shape[1]:]) - 1
        binned = bin_values(values, self.edges, n_bins)
        return np.hstack([codes, binned]) if codes.shape[1] else binned


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
    return execution.run_pass(
        dataset.partitions,
        summarize,
        merge_tables,
        split_every=split_every,
        name="nbparallel-count",
        token=dataset.token,
        verbose=verbose,
    )

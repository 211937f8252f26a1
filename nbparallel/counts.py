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

from .summaries import merge_summaries


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

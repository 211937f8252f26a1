"""Gaussian numeric attributes (the primer): per-class moments merged with Chan's formula.

A Gaussian attribute is summarised, per class, by its weighted count ``n``,
mean and ``M2`` (sum of weighted squared deviations from the mean), skipping
missing values per (attribute, row). Two summaries merge by the parallel
formula of Chan, Golub and LeVeque::

    n = n_a + n_b,  d = mean_b - mean_a,
    mean = mean_a + d n_b / n,  M2 = M2_a + M2_b + d^2 n_a n_b / n

which is associative and commutative up to rounding; the reduction tree pairs
summaries by partition index, so a partitioning always gives the same floats,
and different partitionings agree to about 1e-12 relative. A partition's moments
come from one compiled pass that reads each value once and sums deviations from
a value of the data (:func:`nbparallel.kernels.moments.class_moments`), and each
mean is carried with what its float leaves out (``mean_low``), so that the
difference of two means in the merge keeps its digits: on values near 10^9 spread
by 10^-3 the variances stay within about 1e-8 of an exactly rounded two-pass
computation for any partitioning.
:func:`count_and_moments` makes the count table of the other attributes and the
moments in ONE pass over a partition.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from nbparallel.data.columns import GAUSSIAN
from nbparallel.data.dataset import is_arrow_table
from nbparallel.engine import execution
from nbparallel.kernels.moments import class_moments
from nbparallel.summaries.counts import CountSpec, CountTable, count_rows
from nbparallel.summaries.protocol import check_same_type, merge_summaries


def two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``s + e = a + b`` exactly (Knuth's TwoSum, elementwise)."""
    s = a + b
    a_part = s - b
    return s, (a - a_part) + (b - (s - a_part))


@dataclass(frozen=True, eq=False)
class GaussianMoments:
    """Per-class weighted count, mean and M2 of the Gaussian attributes.

    Attributes
    ----------
    n, mean, m2 : ndarray of float64, shape (n_classes, n_gaussian)
        Over the rows with a known target and a known value.
    all_missing : ndarray of float64, shape (n_classes,)
        Weight of the rows with a known target whose every attribute (counted
        and Gaussian) is missing; the SPSS rule leaves them out of the prior.
    mean_low : ndarray of float64, shape (n_classes, n_gaussian), or None
        What the float ``mean`` leaves out of the mean (``mean + mean_low``,
        a double-double, is the mean to about 1e-32 relative); None for 0.
        Chan's merge reads the difference of two means: on values near 10^9
        spread by 10^-3 the rounding of the means alone (10^-7) would move
        the merged M2 by about 10^-6 relative.
    """

    n: np.ndarray
    mean: np.ndarray
    m2: np.ndarray
    all_missing: np.ndarray
    mean_low: np.ndarray | None = None

    def low(self):
        """``mean_low``, zeros when None."""
        return np.zeros_like(self.mean) if self.mean_low is None else self.mean_low

    @classmethod
    def empty(cls, n_classes, n_gaussian):
        """No rows."""
        zeros = np.zeros((n_classes, n_gaussian))
        return cls(zeros, zeros.copy(), zeros.copy(), np.zeros(n_classes))

    def __add__(self, other):
        check_same_type(self, other)
        if self.n.shape != other.n.shape:
            raise ValueError(f"cannot add Gaussian moments of shapes {self.n.shape} and {other.n.shape}")
        n = self.n + other.n
        share = np.divide(other.n, n, out=np.zeros_like(n), where=n > 0)
        delta = (other.mean - self.mean) + (other.low() - self.low())
        mean, mean_low = two_sum(self.mean, self.low() + delta * share)
        # where one side has no rows, the other's mean as it is, with its low part
        mean = np.where(other.n <= 0, self.mean, np.where(self.n <= 0, other.mean, mean))
        mean_low = np.where(other.n <= 0, self.low(), np.where(self.n <= 0, other.low(), mean_low))
        return GaussianMoments(n, mean, self.m2 + other.m2 + delta * delta * self.n * share,
                               self.all_missing + other.all_missing, mean_low)

    def __sub__(self, part):
        """The inverse of Chan's merge: the moments ``a`` with ``a + part = self``.

        From ``n = n_a + n_b``, ``n mean = n_a mean_a + n_b mean_b`` and
        ``M2 = M2_a + M2_b + d^2 n_a n_b / n`` with ``d = mean_b - mean_a``::

            n_a = n - n_b,  mean_a = mean + (mean - mean_b) n_b / n_a,
            M2_a = M2 - M2_b - (mean_b - mean_a)^2 n_a n_b / n

        Every term is a deviation from a mean, never a raw sum of squares, so the
        rounding is relative to ``M2`` (about 1e-15 * M2 / M2_a). A cell whose
        remaining weight is zero (up to rounding of float weights) has no rows:
        n, mean and M2 are 0 there, as in a fit; M2 is clipped at 0.
        """
        check_same_type(self, part)
        n = self.n - part.n
        empty = n <= 1e-12 * np.maximum(self.n, 1.0)
        n_a = np.where(empty, 1.0, n)  # a placeholder where empty; those cells are zeroed below
        gap = (self.mean - part.mean) + (self.low() - part.low())
        mean, mean_low = two_sum(self.mean, self.low() + gap * (part.n / n_a))  # with its low part, as in +
        delta = (part.mean - mean) + (part.low() - mean_low)
        m2 = self.m2 - part.m2 - delta * delta * n_a * part.n / np.where(empty, 1.0, self.n)
        return GaussianMoments(np.where(empty, 0.0, n), np.where(empty, 0.0, mean),
                               np.where(empty, 0.0, np.maximum(m2, 0.0)),
                               np.maximum(self.all_missing - part.all_missing, 0.0), np.where(empty, 0.0, mean_low))

    def class_columns(self, columns):
        """The moments of the classes at ``columns`` (a slice or index array), in that order."""
        return GaussianMoments(self.n[columns], self.mean[columns], self.m2[columns], self.all_missing[columns],
                               None if self.mean_low is None else self.mean_low[columns])

    def equals(self, other):
        """True when both hold exactly the same numbers."""
        return isinstance(other, GaussianMoments) and all(
            np.array_equal(getattr(self, f), getattr(other, f)) for f in ("n", "mean", "m2", "all_missing")) and (
            np.array_equal(self.low(), other.low()))

    def pooled(self):
        """The moments of every class together: ``(n, mean, M2)`` of shape (n_gaussian,)."""
        total = GaussianMoments(self.n[:1] * 0, self.mean[:1] * 0, self.m2[:1] * 0, np.zeros(1))
        low = self.low()
        for k in range(len(self.n)):
            total = total + GaussianMoments(self.n[k:k + 1], self.mean[k:k + 1], self.m2[k:k + 1], np.zeros(1),
                                            low[k:k + 1])
        return total.n[0], total.mean[0], total.m2[0]

    def reindex(self, class_map, n_classes):
        """The moments with class ``k`` moved to column ``class_map[k]`` of ``n_classes``."""
        out = GaussianMoments.empty(n_classes, self.n.shape[1])
        for name in ("n", "mean", "m2"):
            getattr(out, name)[class_map] = getattr(self, name)
        out.all_missing[class_map] = self.all_missing
        low = np.zeros_like(out.mean)
        low[class_map] = self.low()
        return GaussianMoments(out.n, out.mean, out.m2, out.all_missing, low)

    def to_dict(self):
        """Plain lists, for JSON."""
        return {"n": self.n.tolist(), "mean": self.mean.tolist(), "m2": self.m2.tolist(),
                "all_missing": self.all_missing.tolist(), "mean_low": self.low().tolist()}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict` (files without ``mean_low``: 0); checks shapes and values."""
        n, mean, m2, all_missing = (np.asarray(data[k], dtype=np.float64) for k in ("n", "mean", "m2", "all_missing"))
        low = np.asarray(data.get("mean_low", np.zeros_like(mean)), dtype=np.float64)
        if (n.ndim != 2 or mean.shape != n.shape or m2.shape != n.shape or low.shape != n.shape
                or all_missing.shape != (n.shape[0],)):
            raise ValueError("Gaussian moments have inconsistent shapes")
        if not all(np.all(np.isfinite(a)) for a in (n, mean, m2, all_missing, low)) or np.any(n < 0) or np.any(m2 < 0):
            raise ValueError("Gaussian moments must be finite, with non-negative counts and M2")
        return cls(n, mean, m2, all_missing, low)


@dataclass(frozen=True, eq=False)
class CountsAndMoments:
    """The summary of a model's counting pass: the count table and the Gaussian moments."""

    counts: CountTable
    moments: GaussianMoments

    def __add__(self, other):
        check_same_type(self, other)
        return CountsAndMoments(self.counts + other.counts, self.moments + other.moments)

    @property
    def class_weights(self):
        """N_k: weight per class of the cases the model uses (every attribute missing: left out)."""
        return self.counts.class_totals - self.moments.all_missing

    @property
    def n_rows(self):
        """The rows counted (those of a missing target too)."""
        return self.counts.n_rows

    table_size = staticmethod(CountTable.table_size)  # the moments are a few numbers per class and column

    @classmethod
    def counting_pass(cls, dataset, schema, *, split_every=2, verbose=False):
        """The counting pass of ``dataset`` under ``schema``: ``(CountsAndMoments, tree record)``, the counted
        attributes' table and the Gaussian attributes' per-class moments summed in the same pass."""
        table = schema.counted()
        summarise = dataset.map(count_and_moments, CountSpec.of(table), gaussian_positions(schema),
                                tuple(schema.position_of(at.name) for at in table.attributes))
        return execution.run_pass(dataset.partitions, summarise, merge_summaries, split_every=split_every,
                                  name="nbparallel-count", token=dataset.token, verbose=verbose)

    def __sub__(self, part):
        """Both parts without ``part``'s rows, the inverse of ``+``."""
        check_same_type(self, part)
        return CountsAndMoments(self.counts - part.counts, self.moments - part.moments)

    def class_columns(self, columns):
        """Both parts for the classes at ``columns``."""
        return CountsAndMoments(self.counts.class_columns(columns), self.moments.class_columns(columns))

    def to_dict(self):
        """Plain values, for JSON."""
        return {"counts": self.counts.to_dict(), "moments": self.moments.to_dict()}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`."""
        return cls(CountTable.from_dict(data["counts"]), GaussianMoments.from_dict(data["moments"]))


def gaussian_positions(schema):
    """The input positions of ``schema``'s Gaussian attributes, in table order."""
    return tuple(schema.position_of(at.name) for at in schema.by_kind(GAUSSIAN))


def gaussian_values(X, positions):
    """The columns at ``positions`` as float64, shape (n_rows, len(positions)); NaN = missing. An Arrow
    table's are converted as :func:`nbparallel.data.files.arrow.table_to_pandas` converts them."""
    if is_arrow_table(X):
        from nbparallel.data.files.arrow import table_to_pandas

        X, positions = table_to_pandas(X.select(list(positions))), list(range(len(positions)))
    if isinstance(X, pd.DataFrame):
        return X.iloc[:, positions].to_numpy(dtype=np.float64, na_value=np.nan)
    block = X[:, positions]
    if block.dtype == object:
        return pd.DataFrame(block).astype(np.float64).to_numpy()
    return np.asarray(block, dtype=np.float64)


def gaussian_columns(X, positions):
    """``(array, columns)``: a float array whose columns ``columns`` hold the Gaussian attributes at
    ``positions`` of ``X``. A float64 or float32 array is read as it is (no copy); any other input is
    converted by :func:`gaussian_values` (then ``columns`` is ``0 .. len(positions) - 1``)."""
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype in (np.float64, np.float32):
        return X, np.asarray(positions, dtype=np.int64)
    return gaussian_values(X, positions), np.arange(len(positions), dtype=np.int64)


def _missing_rows(X, positions):
    """Rows whose every column at ``positions`` is missing (every row when there are none)."""
    if not positions:
        return np.ones(len(X), dtype=bool)
    block = X.iloc[:, positions] if isinstance(X, pd.DataFrame) else X[:, positions]
    return np.asarray(pd.isna(block), dtype=bool).all(axis=1)


def _moments_of(array, columns, classes, w, n_classes, others_missing):
    """The :class:`GaussianMoments` of the columns ``columns`` of ``array``, in one compiled pass
    (:func:`nbparallel.kernels.moments.class_moments`). ``others_missing()`` gives the rows whose every
    counted attribute is missing: asked for only when some row has every Gaussian value missing."""
    n, mean, mean_low, m2, none_present = class_moments(array, columns, classes, w, n_classes)
    if not none_present.any():
        return GaussianMoments(n, mean, m2, none_present, mean_low)
    known = classes >= 0
    rows = known & np.isnan(array[:, columns]).all(axis=1) & others_missing()
    weights = np.ones(len(classes)) if w is None else np.asarray(w, dtype=np.float64)
    all_missing = np.bincount(classes[rows], weights[rows], n_classes).astype(np.float64)
    return GaussianMoments(n, mean, m2, all_missing, mean_low)


def partition_moments(values, classes, w, n_classes, others_missing):
    """The :class:`GaussianMoments` of one partition.

    Parameters
    ----------
    values : ndarray, shape (n_rows, n_gaussian)
        NaN for a missing value, which is skipped for that attribute only.
    classes : ndarray of int
        Class codes, -1 for a missing target (row skipped).
    w : ndarray or None
        Row weights.
    others_missing : ndarray of bool
        Rows whose every counted (non-Gaussian) attribute is missing.
    """
    values = np.asarray(values)
    if values.dtype not in (np.float64, np.float32):
        values = values.astype(np.float64)
    classes = np.asarray(classes).astype(np.int64, copy=False)
    return _moments_of(values, np.arange(values.shape[1], dtype=np.int64), classes, w, n_classes,
                       lambda: np.asarray(others_missing, dtype=bool))


def count_and_moments(spec, gaussian_positions, counted_positions, X, y, w):
    """One partition's :class:`CountsAndMoments`: the count table of the counted attributes (``spec``) and
    the moments of the Gaussian columns, each value read once (a float array's Gaussian columns in place)."""
    counts = count_rows(spec, X, y, w)
    classes = spec.schema.encode_classes(y, w)
    array, columns = gaussian_columns(X, list(gaussian_positions))
    moments = _moments_of(array, columns, classes, w, len(spec.schema.classes),
                          lambda: _missing_rows(X, list(counted_positions)))
    return CountsAndMoments(counts, moments)

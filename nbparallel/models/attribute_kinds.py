"""Attribute kinds as types: each knows its summary, its log-probabilities, its labels and its score.

A :class:`~nbparallel.data.schema.Schema` attribute names its kind
(``Attribute.kind``); :func:`kind_of` gives one of these classes:

- :class:`Categorical`: summarised by count-table rows (category x class);
  derives smoothed log P(value | class); a row scores by a table lookup of
  its code.
- :class:`BinnedNumeric`: the same over equal-width bins, after SPSS
  empty-bin elimination (and, for ``n_bins="mdl"``, summed into Fayyad and
  Irani's MDL intervals: :mod:`nbparallel.models.discretisation`); value
  labels are the bins' intervals.
- :class:`GaussianNumeric`: summarised by per-class moments; derives
  ``theta`` and ``var``; a row scores log N(x; theta_k, var_k).

Derivation is per kind over all its attributes at once (:meth:`derive`;
:func:`derive_counted` derives a model's counted attributes, each kind by
:func:`kind_of`, from a :class:`Smoothing` of its parameters); scoring is per
kind over all its attributes at once (vectorised): the counted kinds share one log table
(:meth:`Counted.log_table`) read by the numba kernels of
:mod:`nbparallel.kernels.scoring`, the Gaussian attributes one block
(:meth:`GaussianNumeric.score`). The text models' per-feature counts (kind
"count") are scored by a sparse product in :mod:`nbparallel.models.text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from nbparallel.kernels.binning import bin_values, block_binner
from nbparallel.kernels.scoring import gaussian_constants
from nbparallel.models.discretisation import mdl_intervals
from nbparallel.models.gaussian import constant_columns, gaussian_log_likelihood, gaussian_parameters


def merged_bins(counts, edges):
    """SPSS empty-bin elimination: the non-empty bins and their new inner edges.

    Each run of empty bins between two non-empty ones is removed and a single
    boundary is set at the middle of the gap; training counts are unchanged.

    >>> merged_bins(np.array([3., 0., 0., 2.]), np.array([1., 2., 3.]))
    (array([0, 3]), array([2.]))
    """
    kept = np.flatnonzero(counts > 0)
    # bin b covers (edges[b-1], edges[b]]; the gap between kept bins a < b is (edges[a], edges[b-1]].
    # Halving before adding cannot overflow near the float limit, and (halving by a power of two being
    # exact) gives the same bits as (x + y) / 2 everywhere else.
    new_edges = edges[kept[:-1]] / 2 + edges[kept[1:] - 1] / 2
    return kept, new_edges


def final_bins_of_counting_bins(counting_edges, final_edges):
    """``(final, split)``: the final bin (0-based) of each counting bin of one binned attribute (that of its
    highest value), and whether a final edge lies strictly inside it (SPSS merges a run of empty bins between
    two non-empty ones at the middle of its gap: a value there may fall in either final bin).

    Counting bin ``b`` holds ``(counting_edges[b - 1], counting_edges[b]]``; it lies in one final bin when the
    final edges below its lowest value are those below its highest. A row's counting code then gives its final
    code, and its value need not be binned again.

    >>> final, split = final_bins_of_counting_bins(np.array([1., 2., 3.]), np.array([1.5]))
    >>> final.tolist(), split.tolist()
    ([0, 1, 1, 1], [False, True, False, False])
    """
    lower = np.concatenate([[-np.inf], counting_edges])
    upper = np.concatenate([counting_edges, [np.inf]])
    final = np.searchsorted(final_edges, upper, side="left")
    return final, np.searchsorted(final_edges, lower, side="right") != final


def interval_labels(edges):
    """Labels ``"(lo, hi]"`` of the bins under inner ``edges`` (right-closed).

    >>> interval_labels(np.array([1.5, 3.0]))
    ['(-inf, 1.5]', '(1.5, 3]', '(3, inf]']
    """
    bounds = [-np.inf, *edges, np.inf]
    return [f"({lo:g}, {hi:g}]" for lo, hi in zip(bounds[:-1], bounds[1:])]


@dataclass(frozen=True, eq=False)
class CountedFit:
    """A counted attribute, derived.

    Attributes
    ----------
    log_prob : ndarray, shape (n_values, n_classes)
        log P(value | class) of its values (after empty-bin elimination for
        binned attributes); all zeros when the attribute is ignored.
    counts : ndarray, shape (n_values, n_classes)
        The training counts, rows aligned with ``log_prob``.
    edges : ndarray or None
        A binned attribute's inner edges after empty-bin elimination.
    ignored : bool
        Fewer than two observed values: it carries no evidence.
    categories : list or None
        A categorical attribute's categories (the schema's list, not copied).
    """

    log_prob: np.ndarray
    counts: np.ndarray
    edges: np.ndarray | None
    ignored: bool
    categories: list | None = None

    @property
    def labels(self):
        """The values' labels: category names or bin intervals, made when asked (a model derived for scoring
        alone, as each fold's in cross-validation, never formats them)."""
        if self.edges is None:
            return [str(v) for v in self.categories]
        return interval_labels(self.edges)[:len(self.log_prob)]


def smoothed_log_prob(cells, seen, sizes, f):
    """``log (N_mk + f) - log (sum_l N_lk + M f)`` over the ``seen`` rows (SPSS), zeros elsewhere, of
    attributes whose rows are stacked in ``cells`` (``sizes[j]`` rows each), all in one vectorised
    computation; an attribute with fewer than two seen rows is all zeros. Returns ``(log_prob, ignored)``,
    ``ignored`` one flag per attribute."""
    sizes = np.asarray(sizes, dtype=np.intp)
    group = np.repeat(np.arange(len(sizes)), sizes)
    M = np.bincount(group[seen], minlength=len(sizes))
    ignored = M <= 1
    denom = np.zeros((len(sizes), cells.shape[1]))
    np.add.at(denom, group[seen], cells[seen])  # each attribute's seen rows, added in row order
    denom += M[:, None] * f
    log_denom = np.zeros(denom.shape)
    log_denom[~ignored] = np.log(denom[~ignored])  # an ignored attribute may have no row: a sum of 0
    used = seen & ~ignored[group]
    logp = np.zeros(cells.shape)
    logp[used] = np.log(cells[used] + f) - log_denom[group[used]]
    return logp, ignored


@dataclass(frozen=True, eq=False)
class FinalBins:
    """The final bins (after empty-bin elimination) of a model's binned attributes, as the scoring kernels
    read them: :meth:`codes` gives 1 + the bin of each value, 0 for a missing value, and 0 for every value
    of an attribute with no bin left (no observed training value: its table has no row but the missing
    one, so any other code would read outside it)."""

    edges: np.ndarray  # (n_binned, max bins - 1), padded with +inf
    n_bins: np.ndarray  # int64, bins of each attribute (at least 1)
    empty: np.ndarray  # positions of the attributes with no bin left

    @cached_property
    def _binner(self):
        """``(code dtype, bin_block)``: :func:`~nbparallel.kernels.binning.block_binner` of the edges, checked
        once (by :func:`~nbparallel.kernels.binning.bin_values` of no rows) and kept for every call."""
        dtype = bin_values(np.empty((0, len(self.n_bins))), self.edges, self.n_bins).dtype
        return dtype, block_binner(self.edges, self.n_bins)

    def codes(self, values):
        """Codes of numeric ``values`` (n_rows x n_binned, float or integer), uint8 or uint16."""
        n_rows = values.shape[0]
        if not len(self.n_bins):
            return np.empty((n_rows, 0), dtype=np.uint8)
        if values.dtype not in (np.float64, np.float32):
            values = np.asarray(values, dtype=np.float64)
        if values.ndim != 2 or values.shape[1] != len(self.n_bins):
            raise ValueError(f"values must have {len(self.n_bins)} columns, got shape {values.shape}")
        dtype, bin_block = self._binner
        out = np.empty(values.shape, dtype)
        bin_block(values, out)
        if len(self.empty):
            out[:, self.empty] = 0
        return out


class Smoothing(NamedTuple):
    """What the derivation of the counted kinds reads of a model's parameters.

    Attributes
    ----------
    alpha : float
        The cell smoothing f.
    category_spaces : dict
        ``{name: n}``: the integers 0 .. n-1 are categories of that integer-coded categorical attribute, smoothed
        whether seen or not.
    supervised : bool
        Binned attributes are summed into MDL intervals (``n_bins="mdl"``).
    """

    alpha: float
    category_spaces: dict
    supervised: bool


class Counted:
    """The kinds a count table summarises; they score together, by one table lookup per attribute."""

    summary = "count table"

    @staticmethod
    def log_table(fits, n_classes):
        """``(table, offsets)`` of the scoring kernels: each fit's log-probabilities below a zero row (code 0,
        missing, adds nothing), stacked in table order."""
        sizes = [len(fit.log_prob) + 1 for fit in fits]
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        table = np.zeros((offsets[-1], n_classes))
        for fit, start in zip(fits, offsets[:-1]):
            table[start + 1:start + len(fit.log_prob) + 1] = fit.log_prob
        return table, offsets


class Categorical(Counted):
    """A categorical attribute: a vocabulary; summarised by counts per (category, class)."""

    name = "categorical"

    @staticmethod
    def derive(attributes, cells, smoothing):
        """The :class:`CountedFit` of each of ``attributes`` from its count-table rows (``cells``, a list of
        categories x classes arrays), smoothed as ``smoothing`` (:class:`Smoothing`) says; all derived
        together, as one model has many.

        A category never seen is as missing (log-probability 0), unless its attribute is ``declared`` (an ARFF
        nominal attribute: every category counts in the smoothing, as in Weka) or it is an integer of the
        attribute's ``smoothing.category_spaces`` (as scikit-learn's ``CategoricalNB`` takes 0 .. max): then it
        is smoothed as a category seen zero times."""
        if not attributes:
            return []
        stacked = np.concatenate(cells)
        sizes = [len(c) for c in cells]
        seen = (stacked.sum(axis=1) > 0) | np.repeat([at.declared for at in attributes], sizes)
        spaces = smoothing.category_spaces
        if spaces:
            seen |= np.concatenate([np.array([type(v) is int and 0 <= v < spaces.get(at.name, 0)
                                              for v in at.categories], dtype=bool) for at in attributes])
        f = smoothing.alpha
        logp, ignored = smoothed_log_prob(stacked, seen, sizes, f)
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        return [CountedFit(logp[a:b], c, None, bool(skip), at.categories)
                for at, c, a, b, skip in zip(attributes, cells, bounds[:-1], bounds[1:], ignored)]


class BinnedNumeric(Counted):
    """A numeric attribute cut into ``n_bins`` equal-width bins (for MDL, fine ones summed into intervals);
    summarised by counts per (bin, class)."""

    name = "numeric"

    @staticmethod
    def final_bins(fits):
        """The :class:`FinalBins` of binned attributes' fits (in table order)."""
        if not fits:  # no binned attribute
            return FinalBins(np.empty((0, 0)), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
        n_bins = np.array([max(len(fit.log_prob), 1) for fit in fits], dtype=np.int64)
        edges = np.full((len(fits), max([len(fit.edges) for fit in fits] + [0])), np.inf)
        for j, fit in enumerate(fits):
            edges[j, : len(fit.edges)] = fit.edges
        empty = np.array([j for j, fit in enumerate(fits) if len(fit.log_prob) == 0], dtype=np.int64)
        return FinalBins(edges, n_bins, empty)

    @staticmethod
    def derive(attributes, cells, smoothing):
        """The :class:`CountedFit` of each of ``attributes`` from its bins' counts (``cells``, a list of bins x
        classes arrays): empty bins eliminated (SPSS), with ``smoothing.supervised`` summed into MDL intervals,
        then all smoothed together (``smoothing.alpha``), as one model has many."""
        f = smoothing.alpha
        merged = []
        for attribute, counts in zip(attributes, cells):
            kept, edges = merged_bins(counts.sum(axis=1), attribute.edges())
            counts = counts[kept]
            if smoothing.supervised:
                counts, edges = mdl_intervals(counts, edges)
            merged.append((counts, edges))
        if not merged:
            return []
        stacked = np.concatenate([counts for counts, _ in merged])
        sizes = [len(counts) for counts, _ in merged]
        logp, ignored = smoothed_log_prob(stacked, np.ones(len(stacked), dtype=bool), sizes, f)
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        return [CountedFit(logp[a:b], counts, edges, bool(skip))
                for (counts, edges), a, b, skip in zip(merged, bounds[:-1], bounds[1:], ignored)]


@dataclass(frozen=True, eq=False)
class GaussianFit:
    """The Gaussian attributes, derived (columns in table order): as scikit-learn's ``GaussianNB``."""

    theta: np.ndarray
    var: np.ndarray
    epsilon: float
    ignored: np.ndarray  # per attribute: no observed value

    def __post_init__(self):
        for parameters in (self.theta, self.var):  # read by the scoring constants, made once: never changed
            parameters.setflags(write=False)

    @cached_property
    def scoring_constants(self):
        """:func:`~nbparallel.kernels.scoring.gaussian_constants` of ``theta`` and ``var``, made on the first
        scoring call and kept (scoring a few rows then costs no derivation)."""
        return gaussian_constants(self.theta, self.var)


class GaussianNumeric:
    """A numeric attribute modelled by a normal distribution per class (the primer).

    Summarised by per-class weighted count, mean and M2
    (:class:`~nbparallel.summaries.moments.GaussianMoments`, merged by Chan's
    formula). Its derivation is per kind, not per attribute: the variance
    smoothing ``epsilon`` is a fraction of the largest variance of all Gaussian
    attributes.
    """

    name = "gaussian"
    summary = "moments"
    labels = ["theta", "var"]

    @staticmethod
    def derive(moments, var_smoothing):
        """The :class:`GaussianFit` of merged moments."""
        theta, var, epsilon = gaussian_parameters(moments, var_smoothing)
        return GaussianFit(theta, var, epsilon, (moments.n.sum(axis=0) <= 0) | constant_columns(moments))

    @staticmethod
    def score(X, columns, fit):
        """Sum over the Gaussian attributes (columns ``columns`` of the float array ``X``) of
        log N(x; theta_k, var_k); NaN (missing) adds 0."""
        return gaussian_log_likelihood(X, columns, fit.theta, fit.var, fit.scoring_constants)


KINDS = {kind.name: kind for kind in (Categorical, BinnedNumeric, GaussianNumeric)}


def kind_of(name):
    """The kind class of a kind name ("categorical", "numeric" or "gaussian")."""
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"unknown attribute kind {name!r}; kinds are {sorted(KINDS)}") from None


def derive_counted(attributes, cells, smoothing):
    """The :class:`CountedFit` of each counted attribute (in table order) from its count-table rows
    (``cells``), each derived by its kind (:func:`kind_of`), all the attributes of a kind together."""
    by_kind = {}
    for a, at in enumerate(attributes):
        by_kind.setdefault(kind_of(at.kind), []).append(a)
    fits = {}
    for kind, positions in by_kind.items():
        fits.update(zip(positions, kind.derive([attributes[a] for a in positions], [cells[a] for a in positions],
                                               smoothing)))
    return [fits[a] for a in range(len(attributes))]

"""AODE and TAN derived from pair counts: pure functions of a :class:`~nbparallel.summaries.pair_counts.PairCounts`,
no passes.

**AODE** (Webb, Boughton and Wang, Machine Learning 58, 2005) averages, over the super-parents ``p`` whose value
``x_p`` is seen at least ``frequency_limit`` times, the one-dependence estimates ``P(c, x_p) prod_a P(x_a | c,
x_p)``; when no present value qualifies, the row is scored by naive Bayes. The estimates are Weka 3.6's
(``weka.classifiers.bayes.AODE``): Laplace's ``(n + 1) / (N + K V_p)`` and ``(n + 1) / (n(c, x_p) + V_a)`` by
default, or with ``m_estimate=W`` the m-estimate ``(n + W / (K V_p)) / (N + W)`` and ``(n + W / V_a) /
(n(c, x_p) + W)``; every denominator counts only the rows where the values it conditions on are present,
and a missing value adds no factor.

**TAN** (Friedman, Geiger and Goldszmidt, 1997) links each attribute to at most one other attribute besides the
class: the maximum spanning tree of the link gains ``N I(x_i; x_j | c)`` (the conditional mutual information
of each pair, from its rows with both values present, times their number), grown and directed as Weka 3.6's
``weka.classifiers.bayes.net.search.local.TAN`` grows and directs it (or, with ``score="bayes"``, of the gains
of Weka's Bayesian score, its default ``-S BAYES``), and each attribute's probabilities
given the class and its parent estimated as Weka's ``SimpleEstimator`` does: ``(n + alpha) / (N + V alpha)``.
A missing value adds no factor; an attribute whose parent is missing in a row is scored given the class only.

Both score rows of codes (0 missing, ``1 .. M_a``) into joint log-likelihoods ``log P(x, c)`` up to a constant
per row, with the compiled loops of :mod:`nbparallel.kernels.pair_models`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nbparallel.kernels.pair_counts import pair_row_starts
from nbparallel.kernels.pair_models import aode_scores, link_gains, tan_scores


@dataclass(frozen=True, eq=False)
class AODETables:
    """AODE's log-probabilities, laid out for :func:`~nbparallel.kernels.pair_models.aode_scores`.

    Attributes
    ----------
    offsets : ndarray of int64, shape (f + 1,)
        The attributes' rows (missing row first).
    log_prior : ndarray of float64, shape (n_classes,)
        Naive Bayes' log P(c), for rows with no super-parent.
    log_single : ndarray of float64, shape (offsets[-1], n_classes)
        Naive Bayes' log P(x_a | c); 0 in the missing rows.
    log_joint : ndarray of float64, shape (offsets[-1], n_classes)
        Log P(c, x_p) of each value as a super-parent.
    log_cond : ndarray of float64, shape (offsets[-1], offsets[-1], n_classes)
        Log P(x_a | c, x_p): rows the parent's values, columns the child's; 0 where the child is missing or is
        the parent's own attribute.
    parent_ok : ndarray of bool, shape (offsets[-1],)
        The values seen at least ``frequency_limit`` times (never a missing row).
    """

    offsets: np.ndarray
    log_prior: np.ndarray
    log_single: np.ndarray
    log_joint: np.ndarray
    log_cond: np.ndarray
    parent_ok: np.ndarray


def _check_weight(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value > 0:
        raise ValueError(f"{name} must be a number > 0, got {value!r}")


def _smoothed(counts, totals, n_values, weight):
    """Laplace's ``(n + 1) / (N + V)`` when ``weight`` is None, else the m-estimate ``(n + W / V) / (N + W)``."""
    if weight is None:
        return (counts + 1.0) / (totals + n_values)
    return (counts + weight / n_values) / (totals + weight)


def aode_tables(pair_counts, *, frequency_limit=1, m_estimate=None):
    """AODE's log-probabilities from merged pair counts.

    Parameters
    ----------
    pair_counts : PairCounts
        The training rows' counts.
    frequency_limit : float, default=1
        Weka's ``-F``: a value seen fewer times (weighted, over every class) is no super-parent.
    m_estimate : float or None, default=None
        None for Laplace's estimates (Weka's default), else the weight ``W`` of the m-estimate (Weka's ``-M
        -W W``).

    Returns
    -------
    AODETables
    """
    if isinstance(frequency_limit, bool) or not isinstance(frequency_limit, (int, float, np.integer, np.floating)) \
            or not frequency_limit >= 0:
        raise ValueError(f"frequency_limit must be a number >= 0, got {frequency_limit!r}")
    if m_estimate is not None:
        _check_weight("m_estimate", m_estimate)
    counts = pair_counts.counts
    offsets, sizes, n_classes = pair_counts.offsets, pair_counts.sizes, pair_counts.n_classes
    n_rows, f = int(offsets[-1]), pair_counts.n_attributes
    class_totals = counts.class_totals
    log_prior = np.log(_smoothed(class_totals, class_totals.sum(), n_classes, m_estimate))
    log_single = np.zeros((n_rows, n_classes))
    log_joint = np.zeros((n_rows, n_classes))
    parent_ok = np.zeros(n_rows, dtype=bool)
    log_cond = np.zeros((n_rows, n_rows, n_classes))
    for a in range(f):
        values = slice(offsets[a] + 1, offsets[a + 1])
        present = counts.table[values]  # (M_a, n_classes)
        n_present = present.sum(axis=0)
        log_single[values] = np.log(_smoothed(present, n_present, sizes[a], m_estimate))
        log_joint[values] = np.log(_smoothed(present, n_present.sum(), n_classes * sizes[a], m_estimate))
        parent_ok[values] = present.sum(axis=1) >= frequency_limit
        for b in range(f):
            if b != a:
                block = np.moveaxis(pair_counts.pair(a, b), 0, 2)  # (M_a, M_b, n_classes): parent a, child b
                with_parent = block.sum(axis=1, keepdims=True)
                log_cond[values, offsets[b] + 1 : offsets[b + 1]] = np.log(
                    _smoothed(block, with_parent, sizes[b], m_estimate))
    return AODETables(offsets, log_prior, log_single, log_joint, log_cond, parent_ok)


def aode_joint_log_likelihood(tables, codes):
    """AODE's ``log P(x, c)`` of each row (the log of the super-parents' mean estimate), shape (n_rows, n_classes).

    Parameters
    ----------
    tables : AODETables
    codes : ndarray of uint8 or uint16, shape (n_rows, f)
        0 missing, ``1 .. M_a``; any layout.
    """
    return aode_scores(codes, tables.offsets, tables.log_prior, tables.log_single, tables.log_joint,
                       tables.log_cond, tables.parent_ok)


def conditional_mutual_information(pair_counts):
    """``I(x_i; x_j | c)`` of every pair of attributes, in nats, from the rows where both are present.

    Returns
    -------
    ndarray of float64, shape (f, f)
        Symmetric (up to rounding), zero on the diagonal and where a pair has no rows.
    """
    gains = tan_link_gains(pair_counts)
    f = pair_counts.n_attributes
    rows = np.zeros((f, f))
    for i in range(f):
        for j in range(i + 1, f):
            rows[i, j] = rows[j, i] = pair_counts.pair(i, j).sum()
    return np.divide(gains, rows, out=np.zeros_like(gains), where=rows > 0)


def tan_link_gains(pair_counts, score="entropy"):
    """The gain of each attribute (row) given the class when another (column) becomes its parent: ``N_ij I(x_i;
    x_j | c)`` with ``score="entropy"``, Weka's Bayesian score's gain with ``"bayes"`` (see
    :func:`~nbparallel.kernels.pair_models.link_gains`)."""
    offsets = pair_counts.offsets
    return link_gains(pair_counts.pairs, offsets, pair_row_starts(offsets)[0], score)


def tan_parents(gains):
    """Each attribute's parent in TAN's tree (-1 for the root), from the link gains, as Weka 3.6's TAN search
    finds it.

    The strongest link first, then at each step the strongest link of an attribute in the tree to one outside
    it (Prim's maximum spanning tree), ties to the first in Weka's order (the attribute gaining, then its new
    parent); each link then points at its first attribute without a parent, in the order the links were found.

    Parameters
    ----------
    gains : ndarray of float64, shape (f, f)
        ``gains[h, t]``: attribute ``h``'s gain from parent ``t`` (:func:`tan_link_gains`).

    Returns
    -------
    ndarray of int64, shape (f,)

    Examples
    --------
    >>> tan_parents(np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]], dtype=float)).tolist()
    [-1, 0, 1]
    """
    f = gains.shape[0]
    parents = np.full(f, -1, dtype=np.int64)
    if f < 2:
        return parents
    linked = np.zeros(f, dtype=bool)
    links = []
    for step in range(f - 1):
        best, best_gain = None, 0.0
        for head in range(f):
            for tail in range(f):
                if head == tail or (step and linked[head] == linked[tail]):
                    continue
                if best is None or gains[head, tail] > best_gain:
                    best, best_gain = (tail, head), gains[head, tail]
        links.append(best)
        linked[list(best)] = True
    for first, second in links:  # Weka's direction: the first end's parent is the second, unless it has one
        if parents[first] < 0:
            parents[first] = second
        else:
            parents[second] = first
    return parents


@dataclass(frozen=True, eq=False)
class TANTables:
    """TAN's tree and log-probabilities, laid out for :func:`~nbparallel.kernels.pair_models.tan_scores`.

    Attributes
    ----------
    offsets : ndarray of int64, shape (f + 1,)
        The attributes' rows (missing row first).
    parents : ndarray of int64, shape (f,)
        Each attribute's parent in the tree, -1 for the root.
    log_prior : ndarray of float64, shape (n_classes,)
    tables : list of ndarray of float64, shape (n_classes, parent's rows (1 for the root), own rows)
        Attribute ``a``'s log P(x_a | c, x_parent), the missing row and column first: 0 where ``x_a`` is
        missing, log P(x_a | c) where the parent is.
    """

    offsets: np.ndarray
    parents: np.ndarray
    log_prior: np.ndarray
    tables: list

    def flat(self):
        """``(starts, tables)``: every table in one flat array, and where each starts."""
        sizes = [t.size for t in self.tables]
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if sizes else np.zeros(0, np.int64)
        return starts, np.concatenate([t.ravel() for t in self.tables]) if sizes else np.zeros(0)


def tan_tables(pair_counts, *, alpha=0.5, score="entropy", parents=None):
    """TAN's log-probabilities from merged pair counts, each ``(n + alpha) / (N + V alpha)`` (Weka's
    ``SimpleEstimator``), the class's from the class totals.

    Parameters
    ----------
    pair_counts : PairCounts
        The training rows' counts.
    alpha : float, default=0.5
        The estimator's prior count per value (Weka's ``-A``).
    score : {"entropy", "bayes"}, default="entropy"
        The link score of the tree (:func:`tan_link_gains`): the conditional mutual information, or Weka's
        Bayesian score (its ``-S BAYES``, the default of Weka's search).
    parents : ndarray of int, shape (f,), or None
        The tree (-1 for the root); None for :func:`tan_parents` of :func:`tan_link_gains` of ``score``.

    Returns
    -------
    TANTables
    """
    _check_weight("alpha", alpha)
    if parents is None:
        parents = tan_parents(tan_link_gains(pair_counts, score))
    parents = np.asarray(parents, dtype=np.int64)
    f = pair_counts.n_attributes
    if parents.shape != (f,) or np.any((parents < -1) | (parents >= f) | (parents == np.arange(f))):
        raise ValueError(f"parents must give each of the {f} attributes another attribute or -1, got "
                         f"{parents.tolist()}")
    offsets, sizes = pair_counts.offsets, pair_counts.sizes
    class_totals = pair_counts.counts.class_totals
    n_classes = pair_counts.n_classes
    log_prior = np.log((class_totals + alpha) / (class_totals.sum() + n_classes * alpha))
    tables = []
    for a in range(f):
        single = pair_counts.counts.table[offsets[a] + 1 : offsets[a + 1]].T  # (n_classes, M_a)
        marginal = np.log((single + alpha) / (single.sum(axis=1, keepdims=True) + sizes[a] * alpha))
        p = parents[a]
        table = np.zeros((n_classes, 1 if p < 0 else sizes[p] + 1, sizes[a] + 1))
        table[:, 0, 1:] = marginal
        if p >= 0:
            block = pair_counts.pair(p, a)  # (n_classes, M_p, M_a)
            table[:, 1:, 1:] = np.log((block + alpha) / (block.sum(axis=2, keepdims=True) + sizes[a] * alpha))
        tables.append(table)
    return TANTables(offsets, parents, log_prior, tables)


def tan_joint_log_likelihood(tables, codes):
    """TAN's ``log P(x, c)`` of each row, shape (n_rows, n_classes).

    Parameters
    ----------
    tables : TANTables
    codes : ndarray of uint8 or uint16, shape (n_rows, f)
        0 missing, ``1 .. M_a``; any layout.
    """
    starts, flat = tables.flat()
    return tan_scores(codes, tables.offsets, tables.parents, starts, tables.log_prior, flat)

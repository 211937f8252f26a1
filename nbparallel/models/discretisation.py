"""Supervised discretisation: Fayyad and Irani's MDL cuts, found on merged fine per-class histograms.

``NaiveBayes(n_bins="mdl")`` counts every binned numeric attribute in
:data:`FINE_BINS` equal-width bins in its ordinary counting pass (no pass of
its own: the fine table is the model's count table, merged by the tree like
any other and exact for any number of partitions). Its derivation then cuts
each attribute as Weka's ``weka.filters.supervised.attribute.Discretize``
does with its defaults (Fayyad and Irani 1993; ``NaiveBayes -D``): the cut
that leaves the least class entropy is kept when its information gain passes
the MDL test, and each side is cut again in the same way. The fine bins' counts
are then summed into the intervals between the kept cuts, which are exactly
the counts of binning the values at those cuts.

The approximation: Weka's candidate cuts lie between every two adjacent
distinct values; here they lie between adjacent non-empty fine bins, at the
middle of the empty gap between them (as SPSS empty-bin elimination places
its boundaries). Where each fine bin holds at most one distinct value the
two give the same cuts (the same partition of the training values); where a
fine bin holds several, they are never cut apart. An attribute with no
accepted cut is one interval, as in Weka: it carries no evidence and is
ignored (reason "no MDL cut"). Sample weights are read as numbers of cases
(the MDL test counts cases); with unit weights this is Weka's test.
"""

from __future__ import annotations

import math

import numpy as np

MDL = "mdl"
"""The ``n_bins`` value that asks for MDL supervised discretisation."""

FINE_BINS = 4096
"""Equal-width fine bins per numeric attribute counted for MDL discretisation (the candidate cuts' grid)."""

TIE_TOLERANCE = 1e-12
"""Conditional entropies (bits) closer than this to the least are ties, won by the lowest cut, as in Weka."""


def counting_bins(n_bins):
    """The equal-width bins counted for ``n_bins``: itself, or :data:`FINE_BINS` for ``"mdl"``.

    >>> counting_bins(10), counting_bins("mdl")
    (10, 4096)
    """
    return FINE_BINS if n_bins == MDL else int(n_bins)


def entropy(counts):
    """Class entropy in bits of the (weighted) class counts in the last axis; 0 for no cases.

    >>> float(entropy(np.array([2.0, 2.0]))), float(entropy(np.array([4.0, 0.0])))
    (1.0, 0.0)
    """
    totals = counts.sum(axis=-1)
    plogp = (counts * np.log2(counts, out=np.zeros(counts.shape), where=counts > 0)).sum(axis=-1)
    known = np.where(totals > 0, totals, 1.0)  # no case: entropy 0
    return np.where(totals > 0, np.log2(known) - plogp / known, 0.0)


def mdl_accepts(prior, left, right):
    """Fayyad and Irani's MDL test of cutting a set with class counts ``prior`` into ``left`` and ``right``.

    Accept when ``gain > (log2(N - 1) + delta) / N``, with ``N`` the cases,
    ``gain = H(S) - (N1 H(S1) + N2 H(S2)) / N`` and
    ``delta = log2(3^k - 2) - (k H(S) - k1 H(S1) - k2 H(S2))``, ``k`` counting
    the classes present in each set (Weka's default "worse" encoding:
    ``N - 1`` candidate cuts, taken as at least 1).
    """
    n, n_left, n_right = prior.sum(), left.sum(), right.sum()
    h, h_left, h_right = (float(entropy(c)) for c in (prior, left, right))
    gain = h - (n_left * h_left + n_right * h_right) / n
    if gain <= 0:
        return False
    k, k_left, k_right = (int(np.count_nonzero(c)) for c in (prior, left, right))
    delta = math.log2(3**k - 2) - (k * h - k_left * h_left - k_right * h_right)
    return gain > (math.log2(max(n - 1, 1)) + delta) / n


def best_cut(cells):
    """The row after which cutting ``cells`` (rows: ordered values, columns: classes) leaves the least
    class entropy, the lowest of ties; None with fewer than two rows."""
    if len(cells) < 2:
        return None
    left = np.cumsum(cells[:-1], axis=0)
    right = cells.sum(axis=0) - left
    n_left, n_right = left.sum(axis=1), right.sum(axis=1)
    conditional = (n_left * entropy(left) + n_right * entropy(right)) / (n_left + n_right)
    return int(np.flatnonzero(conditional <= conditional.min() + TIE_TOLERANCE)[0])


def mdl_cuts(cells):
    """Fayyad and Irani's recursive MDL cuts of a histogram.

    Parameters
    ----------
    cells : ndarray, shape (n_rows, n_classes)
        Per-class counts of non-empty, ordered value bins (each a candidate
        position: a cut falls between two rows, never inside one).

    Returns
    -------
    ndarray of int64
        The sorted rows ``i`` such that a cut falls between rows ``i`` and ``i + 1``.
    """
    cuts, pending = [], [(0, len(cells))]
    while pending:  # a stack, not recursion: a histogram may have thousands of rows
        first, stop = pending.pop()
        part = cells[first:stop]
        at = best_cut(part)
        if at is None:
            continue
        left = part[: at + 1].sum(axis=0)
        if not mdl_accepts(part.sum(axis=0), left, part.sum(axis=0) - left):
            continue
        cuts.append(first + at)
        pending += [(first, first + at + 1), (first + at + 1, stop)]
    return np.array(sorted(cuts), dtype=np.int64)


def mdl_intervals(cells, edges):
    """The MDL intervals of a binned attribute: ``(interval counts, inner edges)``.

    ``cells`` are its non-empty bins' per-class counts and ``edges`` the
    ``len(cells) - 1`` boundaries between them; the intervals' counts are the
    bins' summed between the accepted cuts.

    >>> counts, edges = mdl_intervals(np.array([[4., 0.], [4., 0.], [0., 4.], [0., 4.]]), np.array([1., 2., 3.]))
    >>> counts.tolist(), edges.tolist()
    ([[8.0, 0.0], [0.0, 8.0]], [2.0])
    """
    if len(cells) < 2:
        return cells, edges[:0]
    cuts = mdl_cuts(cells)
    return np.add.reduceat(cells, np.concatenate([[0], cuts + 1]), axis=0), edges[cuts]

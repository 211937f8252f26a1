"""Compiled loops of the models derived from pair counts: TAN's link gains, and AODE's and TAN's scores of rows.

Codes follow :mod:`nbparallel.kernels.counting` (0 missing, ``1 .. M_a``; attribute ``a``'s rows ``offsets[a]
..``). The score tables hold 0 wherever a code is missing, so a missing value adds nothing without a branch.
"""

import math

import numpy as np
from numba import njit

from nbparallel.kernels.checks import CODE_DTYPES, check_offsets, require_array, require_dtype
from nbparallel.kernels.scoring import EXP_LANES, exps
from nbparallel.kernels.vectors import add_load, load, store


BAYES_ALPHA = 0.5
"""The prior count per value of the Bayesian (Dirichlet) link score, as Weka's local score search fixes it."""


@njit(nogil=True, cache=True)
def _add_config_score(score, counts, bayes):
    """``score`` plus one parent configuration's score of the child's counts (``counts[1:]``, present values):
    its ENTROPY score ``sum n log(n / N)``, or with ``bayes`` its log marginal likelihood under a Dirichlet prior
    of ``BAYES_ALPHA`` per value; each term added to ``score`` in Weka's order."""
    n_values = len(counts) - 1
    total = 0.0
    if bayes:
        for v in range(1, n_values + 1):
            score += math.lgamma(BAYES_ALPHA + counts[v])
            total += BAYES_ALPHA + counts[v]
        if total != 0:
            score -= math.lgamma(total)
        score -= n_values * math.lgamma(BAYES_ALPHA)
        return score + math.lgamma(n_values * BAYES_ALPHA)
    for v in range(1, n_values + 1):
        total += counts[v]
    for v in range(1, n_values + 1):
        if counts[v] > 0:
            score += counts[v] * np.log(counts[v] / total)
    return score


@njit(nogil=True, cache=True)
def _ordered_gain(pairs, offsets, starts, head, tail, bayes):
    """``gains[head, tail]`` of :func:`link_gains`: the parent configurations in Weka's order, class then the
    tail's value, each score added to one running sum as Weka adds them."""
    n_classes = pairs.shape[0]
    i, j = min(head, tail), max(head, tail)
    n_head = offsets[head + 1] - offsets[head] - 1
    n_tail = offsets[tail + 1] - offsets[tail] - 1
    with_tail = 0.0
    alone = 0.0
    counts = np.zeros(n_head + 1)
    margin = np.zeros(n_head + 1)
    for c in range(n_classes):
        margin[:] = 0.0
        for w in range(1, n_tail + 1):
            for v in range(1, n_head + 1):
                x_i, x_j = (v, w) if head == i else (w, v)
                counts[v] = pairs[c, starts[offsets[i] + x_i] + offsets[j] + x_j]
                margin[v] += counts[v]
            with_tail = _add_config_score(with_tail, counts, bayes)
        alone = _add_config_score(alone, margin, bayes)
    return with_tail - alone


@njit(nogil=True, cache=True)
def _link_gains_kernel(pairs, offsets, starts, bayes):
    f = len(offsets) - 1
    gains = np.zeros((f, f))
    for head in range(f):
        for tail in range(f):
            if head != tail:
                gains[head, tail] = _ordered_gain(pairs, offsets, starts, head, tail, bayes)
    return gains


SCORES = ("entropy", "bayes")
"""The link scores :func:`link_gains` computes."""


def link_gains(pairs, offsets, starts, score="entropy"):
    """The gain of each attribute's score given the class when another attribute becomes its second parent,
    over the rows where both are present, as Weka's local score search computes it and summed in its order (so
    that equal gains compare as Weka's do).

    With ``score="entropy"``, ``gains[h, t]`` is ``sum n log(n(c, t, h) / n(c, t))`` less ``sum n log(n(c, h) /
    n(c))``: ``N_ht I(h; t | c)``, the pair's conditional mutual information times its rows (Weka's ENTROPY
    score). With ``score="bayes"``, it is the gain of the log marginal likelihood under a Dirichlet prior of
    ``BAYES_ALPHA`` per value (Weka's BAYES score, its default), not symmetric.

    Parameters
    ----------
    pairs : ndarray of float64, shape (n_classes, n_cells)
        Pair tables as :func:`nbparallel.kernels.pair_counts.count_pairs` counts them.
    offsets : ndarray of int64, shape (f + 1,)
    starts : ndarray of int64, shape (offsets[-1],)
        :func:`nbparallel.kernels.pair_counts.pair_row_starts` of ``offsets``.
    score : {"entropy", "bayes"}, default="entropy"

    Returns
    -------
    gains : ndarray of float64, shape (f, f)
        Zero on the diagonal.
    """
    require_array("pairs", pairs, 2)
    check_offsets(offsets, len(offsets) - 1)
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}")
    return _link_gains_kernel(np.ascontiguousarray(pairs, dtype=np.float64), offsets, starts.astype(np.int64),
                              score == "bayes")


@njit(nogil=True, cache=True)
def _aode_kernel(codes, offsets, log_prior, log_single, joint, cond, parent_ok, out):
    """Each row's log of the mean of its super-parents' joint probabilities, per class; naive Bayes where no
    super-parent qualifies. ``joint`` and ``cond`` are flat and class-last, their classes padded to pairs, so a
    child adds two classes by one vector load. Returns the number of rows with a code outside its attribute's
    rows (left NaN)."""
    n_rows, f = codes.shape
    n_classes = log_prior.shape[0]
    n_table_rows = np.uint64(offsets[-1])
    lanes = np.uint64(len(joint)) // max(n_table_rows, np.uint64(1))  # n_classes padded to pairs
    plane = n_table_rows * lanes
    rows = np.empty(f, np.int64)
    columns = np.empty(f, np.uint64)
    spodes = np.zeros(np.int64(lanes) * f + EXP_LANES)
    tops = np.empty(n_classes)
    bad = 0
    for n in range(n_rows):
        ok = True
        for a in range(f):
            code = np.int64(codes[n, a])
            ok &= code < offsets[a + 1] - offsets[a]
            rows[a] = offsets[a] + code
            columns[a] = np.uint64(rows[a]) * lanes
        if not ok:
            bad += 1
            out[n, :] = np.nan
            continue
        count = 0
        for p in range(f):
            if parent_ok[rows[p]]:
                base = np.uint64(rows[p]) * plane
                for pair in range(0, lanes, 2):
                    c = np.uint64(pair)
                    sums = load(joint, columns[p] + c, 2)
                    for a in range(f):
                        sums = add_load(sums, cond, base + columns[a] + c)
                    store(spodes, np.uint64(count) * lanes + c, sums)
                count += 1
        if count == 0:
            for c in range(n_classes):
                s = log_prior[c]
                for a in range(f):
                    s += log_single[rows[a], c]
                out[n, c] = s
            continue
        k_lanes = np.int64(lanes)
        for c in range(n_classes):
            tops[c] = spodes[c]
            for k in range(1, count):
                tops[c] = max(tops[c], spodes[k * k_lanes + c])
        for k in range(count):
            for c in range(n_classes):
                spodes[k * k_lanes + c] -= tops[c]
        exps(spodes, count * k_lanes)
        for c in range(n_classes):
            total = 0.0
            for k in range(count):
                total += spodes[k * k_lanes + c]
            out[n, c] = tops[c] + np.log(total / count)
    return bad


def _class_pairs(table):
    """``table`` (..., n_classes) flat, its classes padded with zeros to a multiple of two."""
    if table.shape[-1] % 2 == 0:
        return np.ascontiguousarray(table).ravel()
    padded = np.zeros(table.shape[:-1] + (table.shape[-1] + 1,))
    padded[..., :-1] = table
    return padded.ravel()


def aode_scores(codes, offsets, log_prior, log_single, log_joint, log_cond, parent_ok):
    """AODE's joint log-likelihood of each row and class (see :mod:`nbparallel.models.seminaive`).

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_rows, f)
        Any layout.
    offsets : ndarray of int64, shape (f + 1,)
    log_prior : ndarray of float64, shape (n_classes,)
    log_single : ndarray of float64, shape (offsets[-1], n_classes)
        Naive Bayes' log P(x_a | c), 0 in the missing rows.
    log_joint : ndarray of float64, shape (offsets[-1], n_classes)
        Log P(c, x_p) of each super-parent value.
    log_cond : ndarray of float64, shape (offsets[-1], offsets[-1], n_classes)
        Log P(x_a | c, x_p), rows the parent's values, columns the child's; 0 where the child is missing or
        is the parent itself.
    parent_ok : ndarray of bool, shape (offsets[-1],)
        The values that may be super-parents (never a missing row).

    Returns
    -------
    ndarray of float64, shape (n_rows, n_classes)

    Raises
    ------
    ValueError
        When a code lies outside its attribute's rows.
    """
    require_array("codes", codes, 2)
    require_dtype("codes", codes, CODE_DTYPES)
    check_offsets(offsets, codes.shape[1])
    out = np.empty((codes.shape[0], log_prior.shape[0]))
    bad = _aode_kernel(codes, offsets, log_prior, log_single, _class_pairs(log_joint), _class_pairs(log_cond),
                       parent_ok, out)
    if bad:
        raise ValueError(f"{bad} rows hold codes outside their attribute's rows of the table layout")
    return out


@njit(nogil=True, cache=True)
def _tan_kernel(codes, offsets, parents, starts, parent_sizes, log_prior, tables, out):
    """Each row's log P(c) + sum over attributes of log P(x_a | c, x_parent(a)) from flat per-attribute tables
    (n_classes, parent rows, own rows); a root reads parent row 0. Returns the number of rows with a code
    outside its attribute's rows (left NaN)."""
    n_rows, f = codes.shape
    n_classes = log_prior.shape[0]
    bad = 0
    for n in range(n_rows):
        ok = True
        for a in range(f):
            ok &= np.int64(codes[n, a]) < offsets[a + 1] - offsets[a]
        if not ok:
            bad += 1
            out[n, :] = np.nan
            continue
        for c in range(n_classes):
            s = log_prior[c]
            for a in range(f):
                size = offsets[a + 1] - offsets[a]
                parent_code = np.int64(codes[n, parents[a]]) if parents[a] >= 0 else 0
                s += tables[starts[a] + (c * parent_sizes[a] + parent_code) * size + np.int64(codes[n, a])]
            out[n, c] = s
    return bad


def tan_scores(codes, offsets, parents, starts, log_prior, tables):
    """TAN's joint log-likelihood of each row and class (see :mod:`nbparallel.models.seminaive`).

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_rows, f)
        Any layout.
    offsets : ndarray of int64, shape (f + 1,)
    parents : ndarray of int64, shape (f,)
        Each attribute's parent in the tree, -1 for the root.
    starts : ndarray of int64, shape (f,)
        Where attribute ``a``'s table starts in ``tables``: (n_classes, parent's rows or 1 for the root, own
        rows), C order, the missing row and column first.
    log_prior : ndarray of float64, shape (n_classes,)
    tables : ndarray of float64

    Returns
    -------
    ndarray of float64, shape (n_rows, n_classes)

    Raises
    ------
    ValueError
        When a code lies outside its attribute's rows.
    """
    require_array("codes", codes, 2)
    require_dtype("codes", codes, CODE_DTYPES)
    check_offsets(offsets, codes.shape[1])
    sizes = np.diff(offsets)
    parent_sizes = np.where(parents >= 0, sizes[np.maximum(parents, 0)], 1).astype(np.int64)
    out = np.empty((codes.shape[0], log_prior.shape[0]))
    bad = _tan_kernel(codes, offsets, parents.astype(np.int64), starts.astype(np.int64), parent_sizes, log_prior,
                      tables, out)
    if bad:
        raise ValueError(f"{bad} rows hold codes outside their attribute's rows of the table layout")
    return out

"""Scoring rows: joint log-likelihoods from codes and a log table, and the best class."""

import math

import numpy as np
from numba import njit

from nbparallel.kernels.checks import CODE_DTYPES, check_offsets, require_array, require_dtype


@njit(nogil=True, cache=True)
def _best_classes_kernel(jll, order):
    out = np.empty(jll.shape[0], np.int64)
    for i in range(jll.shape[0]):
        best = order[0]
        for k in order[1:]:
            if jll[i, k] > jll[i, best]:
                best = k
        out[i] = best
    return out


def best_classes(jll, order):
    """Index of each row's largest joint log-likelihood; ties go to the class first in ``order``.

    Parameters
    ----------
    jll : ndarray of float64, shape (n_rows, n_classes)
    order : ndarray of int64, shape (n_classes,)
        The classes in order of preference (for example, by decreasing prior).

    Returns
    -------
    ndarray of int64, shape (n_rows,)
    """
    require_array("jll", jll, 2)
    require_array("order", order, 1)
    if order.shape[0] != jll.shape[1] or order.shape[0] == 0:
        raise ValueError(f"order must list each of the {jll.shape[1]} classes, got {order.shape[0]}")
    return _best_classes_kernel(np.asarray(jll, dtype=np.float64), order.astype(np.int64))


def joint_log_likelihood(codes, log_table, offsets, log_prior):
    """Unnormalised log posterior of every row and class.

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_rows, f)
        Codes of all attributes (categorical and binned numeric), any layout;
        a code outside its attribute's rows raises ValueError (none is read).
    log_table : ndarray of float64, shape (offsets[-1], n_classes)
        Log conditional probabilities; the caller sets the missing rows and
        the rows of ignored attributes to 0.
    offsets : ndarray of int64, shape (f + 1,)
        Table row ranges of the attributes.
    log_prior : ndarray of float64, shape (n_classes,)
        Log class priors.

    Returns
    -------
    ndarray of float64, shape (n_rows, n_classes)
        ``log_prior[k] + sum_a log_table[offsets[a] + codes[i, a], k]`` (see :func:`score_rows`).
    """
    require_array("codes", codes, 2)
    require_array("log_prior", log_prior, 1)
    require_array("log_table", log_table, 2)
    require_array("offsets", offsets, 1)
    expected = (int(offsets[-1]), log_prior.shape[0])
    if log_table.shape != expected:
        raise ValueError(f"log_table must have shape {expected}, got {log_table.shape}")
    return score_rows(codes, _empty_codes(codes.shape[0]), log_table, offsets, log_prior, mode=JOINT)


@njit(nogil=True, cache=True)
def tally(jll, truth, predicted, confusion):
    """Add the rows with a known target to ``confusion``; return their summed log P(y|x)."""
    total = 0.0
    for i in range(jll.shape[0]):
        t = truth[i]
        if t < 0:
            continue
        best = 0
        for k in range(1, jll.shape[1]):
            if jll[i, k] > jll[i, best]:
                best = k
        top = jll[i, best]
        s = 0.0
        for k in range(jll.shape[1]):
            if k != best:
                s += np.exp(jll[i, k] - top)
        total += jll[i, t] - top - np.log1p(s)
        confusion[t, predicted[i]] += 1
    return total


# --------------------------------------------------------------------------- the scoring family
#
# Every pass that scores rows (predict, predict_proba, evaluate, boosting rounds, the EM E-step) runs one
# of the kernels below. They read a partition's codes as counting gets them, in two blocks that need not be
# joined (``first``: categorical codes, any layout, a uint8 input array itself; ``second``: binned codes),
# add one row of a (table_rows, n_classes) log table per code, and write each row's result straight into a
# preallocated output: unnormalised, normalised, probabilities, the best class, or evaluation sums. A code
# outside its attribute's rows is never read: it is counted and the wrapper raises ValueError.

JOINT, LOG_POSTERIOR, POSTERIOR = 0, 1, 2
"""Modes of :func:`score_rows`: log P(x, c), log P(c | x), P(c | x)."""

SCORE_BINS_MAX_BITS = 8
"""Mantissa bits of the binary ROC histogram (see :func:`score_bin`); fewer with more classes."""

LN2 = math.log(2.0)

SCORE_OCTAVES = 64
"""The score histograms resolve odds from 2**-64 to 2**64 (log-odds within +-44.4)."""


@njit(nogil=True, cache=True, inline="always")
def _add_codes2(codes, i, column_offset, table, offsets, t0, t1):
    bad = 0
    for a in range(codes.shape[1]):
        start = offsets[column_offset + a]
        c = np.int64(codes[i, a])
        if c >= offsets[column_offset + a + 1] - start:
            bad += 1
            continue
        row = start + c
        t0 += table[row, 0]
        t1 += table[row, 1]
    return t0, t1, bad


@njit(nogil=True, cache=True, inline="always")
def _add_codes4(codes, i, column_offset, table, offsets, k0, t0, t1, t2, t3):
    bad = 0
    for a in range(codes.shape[1]):
        start = offsets[column_offset + a]
        c = np.int64(codes[i, a])
        if c >= offsets[column_offset + a + 1] - start:
            bad += 1
            continue
        row = start + c
        t0 += table[row, k0]
        t1 += table[row, k0 + 1]
        t2 += table[row, k0 + 2]
        t3 += table[row, k0 + 3]
    return t0, t1, t2, t3, bad


@njit(nogil=True, cache=True, inline="always")
def _row_scores2(first, second, i, table, offsets, log_prior, extra, acc):
    """``acc[k] = log_prior[k] + sum_a table[offsets[a] + code_a, k] (+ extra[i, k])`` of two classes, the
    terms added in attribute order; returns the number of codes outside their attribute's rows (skipped,
    never read)."""
    t0, t1, b1 = _add_codes2(first, i, 0, table, offsets, log_prior[0], log_prior[1])
    t0, t1, b2 = _add_codes2(second, i, first.shape[1], table, offsets, t0, t1)
    if extra.shape[0]:
        t0 += extra[i, 0]
        t1 += extra[i, 1]
    acc[0] = t0
    acc[1] = t1
    return b1 + b2


@njit(nogil=True, cache=True, inline="always")
def _row_scores4(first, second, i, table, offsets, log_prior, extra, acc):
    """:func:`_row_scores2` of any number of classes (``table`` padded to a multiple of 4 columns), summed
    4 classes at a time in registers, the row's codes read once per group."""
    n_first = first.shape[1]
    bad = 0
    for k0 in range(0, table.shape[1], 4):
        t0, t1, t2, t3, b1 = _add_codes4(first, i, 0, table, offsets, k0, log_prior[k0], log_prior[k0 + 1],
                                         log_prior[k0 + 2], log_prior[k0 + 3])
        t0, t1, t2, t3, b2 = _add_codes4(second, i, n_first, table, offsets, k0, t0, t1, t2, t3)
        acc[k0] = t0
        acc[k0 + 1] = t1
        acc[k0 + 2] = t2
        acc[k0 + 3] = t3
        bad = b1 + b2
    if extra.shape[0]:
        for k in range(extra.shape[1]):
            acc[k] += extra[i, k]
    return bad


def _kernel(table, name):
    """The kernel ``name`` for a padded table (two columns, or a multiple of four)."""
    return _KERNELS[name]


def _padded(table, log_prior):
    """``table`` and ``log_prior`` with their classes padded by zeros to 2 (two classes) or a multiple of 4."""
    n_classes = log_prior.shape[0]
    width = 2 if n_classes <= 2 else -(-n_classes // 4) * 4
    padded = np.zeros((table.shape[0], width))
    padded[:, :n_classes] = table
    prior = np.zeros(width)
    prior[:n_classes] = log_prior
    return padded, prior


@njit(nogil=True, cache=True, inline="always")
def _log_normaliser(acc, n_classes):
    """``log sum_k exp(acc[k])`` over the first ``n_classes``, computed from the largest term."""
    top = acc[0]
    for k in range(1, n_classes):
        top = max(top, acc[k])
    s = 0.0
    for k in range(n_classes):
        s += 1.0 if acc[k] == top else np.exp(acc[k] - top)  # exp(0) is 1 exactly: one exp fewer a row
    return top + np.log(s)


@njit(nogil=True, cache=True, inline="always")
def _best(acc, order):
    best = order[0]
    for j in range(1, order.shape[0]):
        k = order[j]
        if acc[k] > acc[best]:
            best = k
    return best


@njit(nogil=True, cache=True, error_model="numpy")
def score_bin(odds, mantissa_bits):
    """The bin of a score given as its odds ``p / (1 - p)`` (>= 0) in a histogram of
    ``2 * SCORE_OCTAVES * 2**mantissa_bits`` bins, monotone in the odds: odds in [2**-SCORE_OCTAVES,
    2**SCORE_OCTAVES) (log-odds within +-44) fall in bins of equal width in log-odds, at most
    ``log(2) / 2**mantissa_bits`` wide (the binary exponent and the top mantissa bits, no logarithm); the
    odds beyond share the end bins, NaN the middle one."""
    n_bins = (2 * SCORE_OCTAVES) << mantissa_bits
    if np.isnan(odds):
        return n_bins // 2
    if odds <= 0.0:
        return 0
    m, e = math.frexp(odds)  # odds = m * 2**e, 0.5 <= m < 1 (infinity: e = 0 on some platforms)
    if odds == np.inf or e > SCORE_OCTAVES:
        return n_bins - 1
    if e <= -SCORE_OCTAVES:
        return 0
    return ((e + SCORE_OCTAVES - 1) << mantissa_bits) + int((2.0 * m - 1.0) * (1 << mantissa_bits))


@njit(nogil=True, cache=True, error_model="numpy")
def log_odds_bin(log_odds, mantissa_bits):
    """The bin of a score given as its log-odds, in the histogram of :func:`score_bin` (the same bins up to
    their shape within an octave: here of equal width ``log(2) / 2**mantissa_bits`` in log-odds), with no
    transcendental function: the two-class evaluation's."""
    half = SCORE_OCTAVES << mantissa_bits
    if np.isnan(log_odds):
        return half
    x = log_odds * ((1 << mantissa_bits) / LN2)
    if x >= half:
        return 2 * half - 1
    if x < -half:
        return 0
    return half + int(np.floor(x))


@njit(nogil=True, cache=True, inline="always")
def _row_scores(first, second, i, table, offsets, log_prior, extra, acc):
    """One row's joint log-likelihoods into ``acc``: :func:`_row_scores2` for a two-class table, else
    :func:`_row_scores4` (the branch is the same for every row, so it costs nothing measurable)."""
    if table.shape[1] == 2:
        return _row_scores2(first, second, i, table, offsets, log_prior, extra, acc)
    return _row_scores4(first, second, i, table, offsets, log_prior, extra, acc)


@njit(nogil=True, cache=True, error_model="numpy")
def _score_rows_kernel(first, second, table, offsets, log_prior, extra, mode, out):
    n_classes = out.shape[1]
    acc = np.empty(log_prior.shape[0])
    bad = 0
    for i in range(out.shape[0]):
        bad += _row_scores(first, second, i, table, offsets, log_prior, extra, acc)
        if mode == 0:
            for k in range(n_classes):
                out[i, k] = acc[k]
            continue
        if mode == 1:
            norm = _log_normaliser(acc, n_classes)
            for k in range(n_classes):
                out[i, k] = acc[k] - norm
            continue
        top = acc[0]
        for k in range(1, n_classes):
            top = max(top, acc[k])
        total = 0.0
        for k in range(n_classes):
            e = 1.0 if acc[k] == top else np.exp(acc[k] - top)
            out[i, k] = e
            total += e
        scale = 1.0 / total
        for k in range(n_classes):
            out[i, k] *= scale
    return bad

@njit(nogil=True, cache=True, error_model="numpy")
def _best_of_rows_kernel(first, second, table, offsets, log_prior, extra, order, out):
    acc = np.empty(log_prior.shape[0])
    bad = 0
    for i in range(out.shape[0]):
        bad += _row_scores(first, second, i, table, offsets, log_prior, extra, acc)
        out[i] = _best(acc, order)
    return bad

@njit(nogil=True, cache=True, error_model="numpy")
def _evaluate_rows_kernel(first, second, table, offsets, log_prior, extra, order, truth, eps, mantissa_bits,
                          confusion, histogram, sums):
    """Confusion counts, sum log P(y|x), sum -log clip(P(y|x), eps, 1 - eps) and the ROC histograms."""
    n_classes = confusion.shape[0]
    acc = np.empty(log_prior.shape[0])
    odds = np.empty(n_classes)
    bad = 0
    log_likelihood = 0.0
    loss = 0.0
    binary = histogram.shape[0] == 1
    log_eps, log_1m_eps = np.log(eps), np.log1p(-eps)
    for i in range(truth.shape[0]):
        t = truth[i]
        if t < 0:
            continue
        bad += _row_scores(first, second, i, table, offsets, log_prior, extra, acc)
        best = _best(acc, order)
        confusion[t, best] += 1
        top = acc[0]
        for k in range(1, n_classes):
            top = max(top, acc[k])
        total = 0.0
        for k in range(n_classes):
            odds[k] = 1.0 if acc[k] == top else np.exp(acc[k] - top)
            total += odds[k]
        log_p = acc[t] - (top + np.log(total))
        log_likelihood += log_p
        # -log of P(y|x) clipped to [eps, 1 - eps], compared in log space: no exp
        loss -= log_eps if log_p < log_eps else min(log_p, log_1m_eps)
        if binary:
            histogram[0, 0 if t == 1 else 1, log_odds_bin(acc[1] - acc[0], mantissa_bits)] += 1.0
            continue
        # one-vs-rest odds of every class: p_c / (sum of the others), without cancellation
        arg = 0
        for k in range(1, n_classes):
            if acc[k] > acc[arg]:
                arg = k
        rest = 0.0
        for k in range(n_classes):
            if k != arg:
                rest += odds[k]
        for k in range(n_classes):
            others = rest if k == arg else total - odds[k]
            histogram[k, 0 if t == k else 1, score_bin(odds[k] / others, mantissa_bits)] += 1.0
    sums[0] += log_likelihood
    sums[1] += loss
    return bad

@njit(nogil=True, cache=True, error_model="numpy")
def _expected_counts_kernel(first, second, table, offsets, log_prior, n_clusters, weights, counts, totals,
                            log_likelihood):
    n_columns = totals.shape[0]
    acc = np.empty(log_prior.shape[0])
    resp = np.empty(n_columns)
    extra = np.empty((0, n_columns))
    n_restarts = n_columns // n_clusters
    n_first = first.shape[1]
    bad = 0
    for i in range(first.shape[0]):
        bad += _row_scores(first, second, i, table, offsets, log_prior, extra, acc)
        w = weights[i]
        for r in range(n_restarts):
            lo = r * n_clusters
            top = acc[lo]
            for k in range(lo + 1, lo + n_clusters):
                top = max(top, acc[k])
            s = 0.0
            for k in range(lo, lo + n_clusters):
                resp[k] = 1.0 if acc[k] == top else np.exp(acc[k] - top)  # one exp per column, reused
                s += resp[k]
            log_likelihood[r] += w * (top + np.log(s))
            scale = w / s
            for k in range(lo, lo + n_clusters):
                resp[k] *= scale
        for k in range(n_columns):
            totals[k] += resp[k]
        for a in range(n_first):
            c = np.int64(first[i, a])
            if c < offsets[a + 1] - offsets[a]:
                row = offsets[a] + c
                for k in range(n_columns):
                    counts[row, k] += resp[k]
        for b in range(second.shape[1]):
            c = np.int64(second[i, b])
            if c < offsets[n_first + b + 1] - offsets[n_first + b]:
                row = offsets[n_first + b] + c
                for k in range(n_columns):
                    counts[row, k] += resp[k]
    return bad


_KERNELS = {"score": _score_rows_kernel, "best": _best_of_rows_kernel, "evaluate": _evaluate_rows_kernel,
            "expected": _expected_counts_kernel}


def _check_scoring(first, second, table, offsets, log_prior, extra, n_rows):
    for name, codes in (("first", first), ("second", second)):
        require_array(name, codes, 2)
        if codes.shape[1]:
            require_dtype(name, codes, CODE_DTYPES)
        if codes.shape[0] != n_rows:
            raise ValueError(f"{name} has {codes.shape[0]} rows, expected {n_rows}")
    check_offsets(offsets, first.shape[1] + second.shape[1])
    require_array("log_prior", log_prior, 1)
    require_dtype("log_prior", log_prior, (np.dtype(np.float64),))
    require_array("table", table, 2)
    require_dtype("table", table, (np.dtype(np.float64),))
    expected = (int(offsets[-1]), log_prior.shape[0])
    if table.shape != expected:
        raise ValueError(f"table must have shape {expected}, got {table.shape}")
    if extra is None:
        return np.empty((0, log_prior.shape[0]))
    require_array("extra", extra, 2)
    if extra.shape != (n_rows, log_prior.shape[0]):
        raise ValueError(f"extra must have shape {(n_rows, log_prior.shape[0])}, got {extra.shape}")
    return np.asarray(extra, dtype=np.float64)


def _empty_codes(n_rows):
    return np.empty((n_rows, 0), dtype=np.uint8)


def _raise_out_of_table(bad):
    if bad:
        raise ValueError(f"{bad} codes lie outside their attribute's rows of the log table: the codes do not "
                         "belong to this model's table (nothing was read out of bounds)")


def score_rows(first, second, table, offsets, log_prior, *, extra=None, mode=POSTERIOR, out=None):
    """Scores of every row and class, written into ``out``.

    Parameters
    ----------
    first, second : ndarray of uint8 or uint16, shape (n_rows, f1) and (n_rows, f2)
        Codes of the attributes, any layout (``second`` may have no columns): attribute ``a`` of
        ``first`` reads table rows ``offsets[a]..``, attribute ``b`` of ``second`` rows
        ``offsets[f1 + b]..``. Code 0 is the attribute's first row (missing: zeros).
    table : ndarray of float64, shape (offsets[-1], n_classes)
        Log conditional probabilities, row-major (one code's classes are contiguous).
    offsets : ndarray of int64, shape (f1 + f2 + 1,)
    log_prior : ndarray of float64, shape (n_classes,)
    extra : ndarray of float64, shape (n_rows, n_classes), optional
        Added to each row's sum last (the Gaussian attributes).
    mode : JOINT, LOG_POSTERIOR or POSTERIOR
        Unnormalised log P(x, c), normalised log P(c | x), or P(c | x) (normalised in the kernel).
    out : ndarray of float64, shape (n_rows, n_classes), optional
        Where to write (a slice of a larger array); allocated when None.

    Returns
    -------
    out

    Raises
    ------
    ValueError
        When a code lies outside its attribute's table rows (none is read).
    """
    n_rows = first.shape[0]
    extra = _check_scoring(first, second, table, offsets, log_prior, extra, n_rows)
    if mode not in (JOINT, LOG_POSTERIOR, POSTERIOR):
        raise ValueError(f"mode must be JOINT, LOG_POSTERIOR or POSTERIOR, got {mode!r}")
    if out is None:
        out = np.empty((n_rows, log_prior.shape[0]))
    elif out.shape != (n_rows, log_prior.shape[0]) or out.dtype != np.float64:
        raise ValueError(f"out must be float64 of shape {(n_rows, log_prior.shape[0])}, got {out.dtype} {out.shape}")
    second = second if second.shape[1] else _empty_codes(n_rows)
    table, prior = _padded(table, log_prior)
    _raise_out_of_table(_kernel(table, "score")(first, second, table, offsets, prior, extra, mode,
                                           out))
    return out


def best_of_rows(first, second, table, offsets, log_prior, order, *, extra=None, out=None):
    """The best class of every row (ties to the class first in ``order``), from codes as :func:`score_rows`
    takes them, written into ``out`` (int64, shape (n_rows,))."""
    n_rows = first.shape[0]
    extra = _check_scoring(first, second, table, offsets, log_prior, extra, n_rows)
    order = np.asarray(order, dtype=np.int64)
    if sorted(order.tolist()) != list(range(log_prior.shape[0])):
        raise ValueError(f"order must list each of the {log_prior.shape[0]} classes once")
    if out is None:
        out = np.empty(n_rows, dtype=np.int64)
    elif out.shape != (n_rows,) or out.dtype != np.int64:
        raise ValueError(f"out must be int64 of shape ({n_rows},), got {out.dtype} {out.shape}")
    second = second if second.shape[1] else _empty_codes(n_rows)
    table, prior = _padded(table, log_prior)
    _raise_out_of_table(_kernel(table, "best")(first, second, table, offsets, prior, extra,
                                             order, out))
    return out


def histogram_bits(n_classes):
    """Mantissa bits of the ROC score histograms of ``n_classes`` classes (fewer with more curves).

    >>> histogram_bits(2), histogram_bits(20)
    (8, 5)
    """
    curves = 1 if n_classes <= 2 else n_classes
    return max(4, SCORE_BINS_MAX_BITS - int(np.ceil(np.log2(curves))) * 2 // 3)


def n_score_bins(mantissa_bits):
    """Bins of a score histogram of ``mantissa_bits`` (see :func:`score_bin`)."""
    return (2 * SCORE_OCTAVES) << mantissa_bits


def evaluate_rows(first, second, table, offsets, log_prior, order, truth, *, extra=None):
    """One pass of evaluation sums over the rows with a known class (``truth >= 0``).

    Returns
    -------
    confusion : ndarray of int64, shape (n_classes, n_classes)
        Rows true class, columns the best class (ties to the first in ``order``).
    log_likelihood : float
        Sum of log P(y_i | x_i).
    log_loss : float
        Sum of -log P(y_i | x_i), each probability clipped to [eps, 1 - eps] (float64 eps), as
        ``sklearn.metrics.log_loss`` clips.
    histogram : ndarray of float64, shape (n_curves, 2, n_bins)
        Per ROC curve (class 1 for two classes; every class, one-vs-rest, for more), the rows of that class
        ([:, 0]) and the others ([:, 1]) by the bin (:func:`score_bin`) of their one-vs-rest odds.
    """
    n_rows = first.shape[0]
    extra = _check_scoring(first, second, table, offsets, log_prior, extra, n_rows)
    n_classes = log_prior.shape[0]
    truth = np.asarray(truth, dtype=np.int64)
    if truth.shape != (n_rows,) or (n_rows and truth.max() >= n_classes):
        raise ValueError(f"truth must hold {n_rows} class positions below {n_classes} (-1: unknown)")
    bits = histogram_bits(n_classes)
    confusion = np.zeros((n_classes, n_classes), dtype=np.int64)
    histogram = np.zeros((1 if n_classes <= 2 else n_classes, 2, n_score_bins(bits)))
    sums = np.zeros(2)
    second = second if second.shape[1] else _empty_codes(n_rows)
    order = np.asarray(order, dtype=np.int64)
    table, prior = _padded(table, log_prior)
    _raise_out_of_table(_kernel(table, "evaluate")(first, second, table, offsets, prior, extra,
                                              order, truth, np.finfo(np.float64).eps, bits, confusion, histogram,
                                              sums))
    return confusion, float(sums[0]), float(sums[1]), histogram


def expected_counts(first, second, table, offsets, log_prior, n_clusters, weights):
    """The E-step of a partition in one pass: responsibilities of every restart x cluster, normalised per
    restart and weighted, added into a table like ``table``.

    Parameters
    ----------
    first, second, table, offsets : as for :func:`score_rows`; ``table`` has R * K columns.
    log_prior : ndarray of float64, shape (R * K,)
    n_clusters : int
        K; the columns are R restarts of K clusters each.
    weights : ndarray of float64, shape (n_rows,)

    Returns
    -------
    counts : ndarray, shape table.shape
        Expected value-by-column counts (missing codes in each attribute's first row).
    totals : ndarray, shape (R * K,)
        Expected column sizes.
    log_likelihood : ndarray, shape (R,)
        Each restart's weighted sum of log P(x_i).
    """
    n_rows = first.shape[0]
    _check_scoring(first, second, table, offsets, log_prior, None, n_rows)
    if n_clusters < 1 or log_prior.shape[0] % n_clusters:
        raise ValueError(f"{log_prior.shape[0]} columns are not restarts of {n_clusters} clusters")
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (n_rows,):
        raise ValueError(f"weights must have shape ({n_rows},), got {weights.shape}")
    counts = np.zeros(table.shape)
    totals = np.zeros(log_prior.shape[0])
    log_likelihood = np.zeros(log_prior.shape[0] // n_clusters)
    second = second if second.shape[1] else _empty_codes(n_rows)
    padded, prior = _padded(table, log_prior)
    _raise_out_of_table(_kernel(padded, "expected")(first, second, padded, offsets, prior,
                                                int(n_clusters), weights,
                                                counts, totals, log_likelihood))
    return counts, totals, log_likelihood

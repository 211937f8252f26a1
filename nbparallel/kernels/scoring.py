"""Scoring rows: joint log-likelihoods from codes and a log table, and the best class."""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from nbparallel.kernels.checks import CODE_DTYPES, check_offsets, require_array, require_dtype
from nbparallel.kernels.row_sums import (ROWS_AT_ONCE, aligned_empty, block_sums, codes_outside, padded_table,
                                         row_summary)
from nbparallel.kernels.vectors import load, minus_top, store_first


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
# Every pass that scores rows from codes (predict, predict_proba, evaluate, boosting rounds) runs one of the
# kernels below. They read a partition's codes as counting gets them, in two blocks that need not be joined
# (``first``: categorical codes, any layout, a uint8 input array itself; ``second``: binned codes), sum rows
# a group at a time with :mod:`nbparallel.kernels.row_sums` (the one set of row sums), and turn each row's
# sums into its result: the best class, the scores, the exponents of the posteriors (exponentiated by
# numpy's vectorised ``exp`` a block of rows at a time), or evaluation sums. A code outside its attribute's
# rows is never read past: the kernel flags it and the wrapper raises ValueError.

JOINT, LOG_POSTERIOR, POSTERIOR = 0, 1, 2
"""Modes of :func:`score_rows`: log P(x, c), log P(c | x), P(c | x)."""

SCORE_BINS_MAX_BITS = 8
"""Mantissa bits of the binary ROC histogram (see :func:`score_bin`); fewer with more classes."""

LN2 = math.log(2.0)

SCORE_OCTAVES = 64
"""The score histograms resolve odds from 2**-64 to 2**64 (log-odds within +-44.4)."""


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


@njit(nogil=True, cache=True, inline="always")
def _score_bins_of_bits(odds, bits, mantissa_bits, bins):
    """:func:`score_bin` of each of ``odds`` (>= 0 or NaN), whose IEEE-754 bits are ``bits``, into ``bins``:
    read from the bits, with selects and no branch or libm call, so the loop is vectorised. For a normal
    number the exponent field less 1022 is frexp's exponent and the fraction's top bits are
    ``int((2 m - 1) 2**mantissa_bits)``; zero and subnormals lie below ``2**-SCORE_OCTAVES`` (bin 0),
    infinity above ``2**SCORE_OCTAVES`` (the last bin)."""
    n_bins = (2 * SCORE_OCTAVES) << mantissa_bits
    mask = (1 << mantissa_bits) - 1
    for k in range(odds.shape[0]):
        e = np.int64((bits[k] >> np.uint64(52)) & np.uint64(0x7FF)) - 1022
        fraction = np.int64(bits[k] >> np.uint64(52 - mantissa_bits)) & mask
        inside = ((e + SCORE_OCTAVES - 1) << mantissa_bits) + fraction
        b = inside if e > -SCORE_OCTAVES else 0
        b = b if e <= SCORE_OCTAVES else n_bins - 1
        b = b if odds[k] > 0.0 else 0
        bins[k] = n_bins // 2 if odds[k] != odds[k] else b


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


# Each kernel takes the padded table of :func:`~nbparallel.kernels.row_sums.padded_table` and its ``lanes``,
# a tuple whose length is the vector width (one compiled kernel per width), and sums its rows by blocks of
# ``step`` rows (:func:`block_rows`) with :func:`~nbparallel.kernels.row_sums.block_sums`.

@njit(nogil=True, cache=True)
def _best_of_rows_kernel(first, second, extra, offsets, table, prior, lanes, order, step, out):
    n_columns = prior.shape[0]
    sums = aligned_empty((step + ROWS_AT_ONCE) * n_columns)
    outside = False
    for start in range(0, out.shape[0], step):
        stop = min(start + step, out.shape[0])
        outside |= block_sums(first, second, extra, start, stop, offsets, table, prior, lanes, sums)
        for j in range(stop - start):
            out[start + j], _, _ = row_summary(sums, j * n_columns, n_columns, lanes, order)
    return outside


@njit(nogil=True, cache=True)
def _scores_kernel(first, second, extra, offsets, table, prior, lanes, order, start, stop, scores, shifted):
    """Rows ``start:stop``: their joint log-likelihoods into ``scores`` (when it has rows) and ``scores - top``
    into ``shifted`` (when it has rows; 0 for the largest, also when it is infinite: its exponential is 1),
    the exponents of the posteriors, which the caller takes vectorised. ``scores`` and ``shifted`` are
    C-contiguous."""
    n_columns = prior.shape[0]
    sums = aligned_empty((stop - start + ROWS_AT_ONCE) * n_columns)
    outside = block_sums(first, second, extra, start, stop, offsets, table, prior, lanes, sums)
    for j in range(scores.shape[0]):
        row = scores[j]
        for k in range(0, n_columns, len(lanes)):
            store_first(row, k, load(sums, j * n_columns + k, lanes), row.shape[0] - k)
    for j in range(shifted.shape[0]):
        _, top, _ = row_summary(sums, j * n_columns, n_columns, lanes, order)
        _store_exponents(sums, j * n_columns, n_columns, lanes, top, shifted[j])
    return outside


@njit(nogil=True, cache=True, inline="always")
def _store_exponents(sums, at, n_columns, lanes, top, out):
    """The row of sums at ``sums[at:]`` less ``top`` into ``out`` (its classes), exactly 0 where a score is
    ``top``: the exponents of its posteriors."""
    for k in range(0, n_columns, len(lanes)):
        store_first(out, k, minus_top(load(sums, at + k, lanes), top), out.shape[0] - k)


@njit(nogil=True, cache=True, inline="always")
def _class_sum(terms, j):
    """Row ``j`` of ``terms`` added in class order."""
    total = 0.0
    for k in range(terms.shape[1]):
        total += terms[j, k]
    return total


@njit(nogil=True, cache=True)
def _row_totals(terms, totals):
    """Each row of ``terms`` added in class order, into ``totals``; four rows at once, so that their chains
    of additions overlap."""
    n = terms.shape[0]
    for j in range(0, n - n % 4, 4):
        t0 = t1 = t2 = t3 = 0.0
        for k in range(terms.shape[1]):
            t0 += terms[j, k]
            t1 += terms[j + 1, k]
            t2 += terms[j + 2, k]
            t3 += terms[j + 3, k]
        totals[j], totals[j + 1], totals[j + 2], totals[j + 3] = t0, t1, t2, t3
    for j in range(n - n % 4, n):
        totals[j] = _class_sum(terms, j)


@njit(nogil=True, cache=True, error_model="numpy")
def _normalise_rows_kernel(terms, totals):
    """Each row of ``terms`` (the exponentials) divided by its sum, added in class order."""
    _row_totals(terms, totals)
    for j in range(terms.shape[0]):
        scale = 1.0 / totals[j]
        row = terms[j]
        for k in range(row.shape[0]):
            row[k] *= scale


@njit(nogil=True, cache=True, error_model="numpy")
def _log_normalise_rows_kernel(scores, terms, totals):
    """Each row of ``scores`` less ``top + log(sum of its terms)``: log P(c | x)."""
    _row_totals(terms, totals)
    for j in range(scores.shape[0]):
        row = scores[j]
        top = row[0]
        for k in range(1, row.shape[0]):
            top = max(top, row[k])
        norm = top + np.log(totals[j])
        for k in range(row.shape[0]):
            row[k] -= norm


@njit(nogil=True, cache=True, error_model="numpy")
def _evaluation_scores_kernel(first, second, extra, offsets, table, prior, lanes, order, truth, start, stop,
                              mantissa_bits, confusion, histogram, true_scores, tops, largest, shifted):
    """Rows ``start:stop`` with a known class, first step: their best class (ties to the first in
    ``order``) into ``confusion``; their true class's score, largest score and its class (the first on
    ties) into ``true_scores``, ``tops`` and ``largest``; the posteriors' exponents into ``shifted``; with two
    classes, the ROC counts (binned by log-odds: no exponential needed)."""
    n_columns = prior.shape[0]
    sums = aligned_empty((stop - start + ROWS_AT_ONCE) * n_columns)
    outside = block_sums(first, second, extra, start, stop, offsets, table, prior, lanes, sums)
    two = shifted.shape[1] == 2
    for j in range(stop - start):
        t = truth[start + j]
        exponents = shifted[j]
        if t < 0:
            exponents[:] = 0.0  # not read: finite for the exponential
            continue
        at = j * n_columns
        best, top, first_top = row_summary(sums, at, n_columns, lanes, order)
        confusion[t, best] += 1
        tops[j] = top
        true_scores[j] = sums[at + t]
        largest[j] = first_top
        _store_exponents(sums, at, n_columns, lanes, top, exponents)
        if two:
            histogram[0, 0 if t == 1 else 1, log_odds_bin(sums[at + 1] - sums[at], mantissa_bits)] += 1.0
    return outside


@njit(nogil=True, cache=True, error_model="numpy")
def _evaluation_odds_kernel(truth, start, stop, odds, largest, mantissa_bits, counts, totals):
    """Second step, from ``odds = exp(shifted)``: each row's sum of odds (added in class order) into
    ``totals`` and, with more than two classes, the one-vs-rest ROC counts of every class."""
    _row_totals(odds, totals)
    n_classes = odds.shape[1]
    if n_classes == 2:
        return
    ratio = np.empty(n_classes)
    ratio_bits = ratio.view(np.uint64)
    bins = np.empty(n_classes, dtype=np.int64)
    n_bins = counts.shape[2]
    flat = counts.reshape(-1)  # (class, 0: the class's rows / 1: the others', bin)
    for i in range(start, stop):
        t = truth[i]
        if t < 0:
            continue
        j = i - start
        row = odds[j]
        total = totals[j]
        # one-vs-rest odds of every class: p_c / (sum of the others), without cancellation
        top = largest[j]
        rest = 0.0
        for k in range(n_classes):
            if k != top:
                rest += row[k]
        for k in range(n_classes):
            ratio[k] = row[k] / (total - row[k])
        ratio[top] = row[top] / rest
        _score_bins_of_bits(ratio, ratio_bits, mantissa_bits, bins)
        for k in range(n_classes):
            flat[(2 * k + (t != k)) * n_bins + bins[k]] += 1


@njit(nogil=True, cache=True, error_model="numpy")
def _evaluation_sums_kernel(truth, start, stop, true_scores, tops, log_totals, log_eps, log_1m_eps, sums):
    """Last step: add sum log P(y|x) and the clipped log loss of the rows with a known class to ``sums``."""
    log_likelihood = 0.0
    loss = 0.0
    for i in range(start, stop):
        if truth[i] < 0:
            continue
        j = i - start
        log_p = true_scores[j] - (tops[j] + log_totals[j])
        log_likelihood += log_p
        # -log of P(y|x) clipped to [eps, 1 - eps], compared in log space: no exp
        loss -= log_eps if log_p < log_eps else min(log_p, log_1m_eps)
    sums[0] += log_likelihood
    sums[1] += loss


class _Table(NamedTuple):
    """A log table and prior as the kernels read them (:func:`~nbparallel.kernels.row_sums.padded_table`)."""

    flat: np.ndarray
    prior: np.ndarray
    lanes: tuple


def _check_scoring(first, second, table, offsets, log_prior, extra, n_rows):
    """``(second, extra, padded table)`` of checked arguments: ``second`` with no columns as an empty uint8
    block, ``extra`` C-contiguous (an empty block when None)."""
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
    n_classes = log_prior.shape[0]
    expected = (int(offsets[-1]), n_classes)
    if table.shape != expected:
        raise ValueError(f"table must have shape {expected}, got {table.shape}")
    if extra is None:
        extra = np.empty((0, n_classes))
    else:
        require_array("extra", extra, 2)
        if extra.shape != (n_rows, n_classes):
            raise ValueError(f"extra must have shape {(n_rows, n_classes)}, got {extra.shape}")
        extra = np.ascontiguousarray(extra, dtype=np.float64)
    second = second if second.shape[1] else _empty_codes(n_rows)
    return second, extra, _Table(*padded_table(table, log_prior))


def _empty_codes(n_rows):
    return np.empty((n_rows, 0), dtype=np.uint8)


def _raise_out_of_table(outside, first, second, offsets):
    if outside:
        raise ValueError(f"{codes_outside(first, second, offsets)} codes lie outside their attribute's rows of "
                         "the log table: the codes do not belong to this model's table (nothing was read out of "
                         "bounds)")


def score_rows(first, second, table, offsets, log_prior, *, extra=None, mode=POSTERIOR, out=None):
    """Scores of every row and class, written into ``out``.

    Parameters
    ----------
    first, second : ndarray of uint8 or uint16, shape (n_rows, f1) and (n_rows, f2)
        Codes of the attributes, any layout (``second`` may have no columns): attribute ``a`` of
        ``first`` reads table rows ``offsets[a]..``, attribute ``b`` of ``second`` rows
        ``offsets[f1 + b]..``. Code 0 is the attribute's first row (missing: zeros).
    table : ndarray of float64, shape (offsets[-1], n_classes)
        Log conditional probabilities.
    offsets : ndarray of int64, shape (f1 + f2 + 1,)
    log_prior : ndarray of float64, shape (n_classes,)
    extra : ndarray of float64, shape (n_rows, n_classes), optional
        Added to each row's sum last (the Gaussian attributes).
    mode : JOINT, LOG_POSTERIOR or POSTERIOR
        Unnormalised log P(x, c), normalised log P(c | x), or P(c | x).
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
    second, extra, padded = _check_scoring(first, second, table, offsets, log_prior, extra, n_rows)
    if mode not in (JOINT, LOG_POSTERIOR, POSTERIOR):
        raise ValueError(f"mode must be JOINT, LOG_POSTERIOR or POSTERIOR, got {mode!r}")
    if out is None:
        out = np.empty((n_rows, log_prior.shape[0]))
    elif out.shape != (n_rows, log_prior.shape[0]) or out.dtype != np.float64:
        raise ValueError(f"out must be float64 of shape {(n_rows, log_prior.shape[0])}, got {out.dtype} {out.shape}")
    target = out if out.flags.c_contiguous else np.empty(out.shape)
    outside = _scores_by_blocks(first, second, extra, offsets, padded, np.arange(log_prior.shape[0]), mode, target)
    if target is not out:
        out[...] = target
    _raise_out_of_table(outside, first, second, offsets)
    return out


def block_rows(n_classes):
    """Rows of a block of scores that stays in a core's cache (about 64k cells).

    >>> block_rows(20)
    3276
    """
    return max(64, (1 << 16) // max(n_classes, 1))


def _scores_by_blocks(first, second, extra, offsets, padded, order, mode, out):
    """``out`` (C-contiguous) of :func:`score_rows`, by blocks of rows: the kernel writes each row's scores
    (JOINT) or its exponents; for the posteriors numpy's vectorised ``exp`` takes them and a kernel
    normalises."""
    n_rows, n_classes = out.shape
    step = block_rows(n_classes)
    nothing = np.empty((0, n_classes))
    size = min(step, n_rows)
    terms = np.empty((size, n_classes)) if mode == LOG_POSTERIOR else None
    totals = np.empty(size)
    outside = False
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        block = out[start:stop]
        if mode == JOINT:
            outside |= _scores_kernel(first, second, extra, offsets, *padded, order, start, stop, block, nothing)
        elif mode == POSTERIOR:
            outside |= _scores_kernel(first, second, extra, offsets, *padded, order, start, stop, nothing, block)
            np.exp(block, out=block)
            _normalise_rows_kernel(block, totals)
        else:
            shifted = terms[:stop - start]
            outside |= _scores_kernel(first, second, extra, offsets, *padded, order, start, stop, block, shifted)
            np.exp(shifted, out=shifted)
            _log_normalise_rows_kernel(block, shifted, totals)
    return outside


def best_of_rows(first, second, table, offsets, log_prior, order, *, extra=None, out=None):
    """The best class of every row (ties to the class first in ``order``), from codes as :func:`score_rows`
    takes them, written into ``out`` (int64, shape (n_rows,))."""
    n_rows = first.shape[0]
    second, extra, padded = _check_scoring(first, second, table, offsets, log_prior, extra, n_rows)
    order = np.asarray(order, dtype=np.int64)
    if sorted(order.tolist()) != list(range(log_prior.shape[0])):
        raise ValueError(f"order must list each of the {log_prior.shape[0]} classes once")
    if out is None:
        out = np.empty(n_rows, dtype=np.int64)
    elif out.shape != (n_rows,) or out.dtype != np.int64:
        raise ValueError(f"out must be int64 of shape ({n_rows},), got {out.dtype} {out.shape}")
    outside = _best_of_rows_kernel(first, second, extra, offsets, *padded, order, block_rows(log_prior.shape[0]), out)
    _raise_out_of_table(outside, first, second, offsets)
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
    second, extra, padded = _check_scoring(first, second, table, offsets, log_prior, extra, n_rows)
    n_classes = log_prior.shape[0]
    truth = np.asarray(truth, dtype=np.int64)
    if truth.shape != (n_rows,) or (n_rows and truth.max() >= n_classes):
        raise ValueError(f"truth must hold {n_rows} class positions below {n_classes} (-1: unknown)")
    order = np.asarray(order, dtype=np.int64)
    bits = histogram_bits(n_classes)
    confusion = np.zeros((n_classes, n_classes), dtype=np.int64)
    histogram = np.zeros((1 if n_classes <= 2 else n_classes, 2, n_score_bins(bits)))
    counts = np.zeros(histogram.shape if n_classes > 2 else (0, 2, 0), dtype=np.int32)
    sums = np.zeros(2)
    eps = np.finfo(np.float64).eps
    log_eps, log_1m_eps = np.log(eps), np.log1p(-eps)
    step = block_rows(n_classes)
    size = min(step, n_rows)
    shifted = np.empty((size, n_classes))
    true_scores, tops, totals = np.empty(size), np.empty(size), np.empty(size)
    largest = np.empty(size, dtype=np.int64)
    outside = False
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        m = stop - start
        outside |= _evaluation_scores_kernel(first, second, extra, offsets, *padded, order, truth, start, stop, bits,
                                             confusion, histogram, true_scores, tops, largest, shifted[:m])
        np.exp(shifted[:m], out=shifted[:m])
        _evaluation_odds_kernel(truth, start, stop, shifted[:m], largest, bits, counts, totals)
        np.log(totals[:m], out=totals[:m])
        _evaluation_sums_kernel(truth, start, stop, true_scores, tops, totals, log_eps, log_1m_eps, sums)
    _raise_out_of_table(outside, first, second, offsets)
    if n_classes > 2:
        histogram += counts  # counted in int32: half the cache of float64
    return confusion, float(sums[0]), float(sums[1]), histogram

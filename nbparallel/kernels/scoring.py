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
    """Add the two-class table rows of row ``i``'s codes (attribute ``a`` at table attribute
    ``column_offset + a``) to ``t0, t1``; returns them and the number of codes outside their rows (skipped)."""
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
def _row_scores2(first, second, i, table, offsets, log_prior, extra):
    """``(t0, t1, bad)``: ``log_prior[k] + sum_a table[offsets[a] + code_a, k] (+ extra[i, k])`` of the two
    classes, the terms added in attribute order, and the number of codes outside their attribute's rows
    (skipped, never read)."""
    t0, t1, b1 = _add_codes2(first, i, 0, table, offsets, log_prior[0], log_prior[1])
    t0, t1, b2 = _add_codes2(second, i, first.shape[1], table, offsets, t0, t1)
    if extra.shape[0]:
        t0 += extra[i, 0]
        t1 += extra[i, 1]
    return t0, t1, b1 + b2


@njit(nogil=True, cache=True, inline="always")
def _add_codes(codes, i, column_offset, table, offsets, acc):
    """Add the table rows of row ``i``'s codes to ``acc`` (every class); returns the codes skipped."""
    n_classes = acc.shape[0]
    bad = 0
    for a in range(codes.shape[1]):
        start = offsets[column_offset + a]
        c = np.int64(codes[i, a])
        if c >= offsets[column_offset + a + 1] - start:
            bad += 1
            continue
        row = start + c
        for k in range(n_classes):
            acc[k] += table[row, k]
    return bad


@njit(nogil=True, cache=True, inline="always")
def _row_scores(first, second, i, table, offsets, log_prior, extra, acc):
    """:func:`_row_scores2` of any number of classes, into ``acc``; returns the codes skipped."""
    n_classes = acc.shape[0]
    for k in range(n_classes):
        acc[k] = log_prior[k]
    bad = _add_codes(first, i, 0, table, offsets, acc) + _add_codes(second, i, first.shape[1], table, offsets, acc)
    if extra.shape[0]:
        for k in range(n_classes):
            acc[k] += extra[i, k]
    return bad


@njit(nogil=True, cache=True, inline="always")
def _top(acc):
    top = acc[0]
    for k in range(1, acc.shape[0]):
        top = max(top, acc[k])
    return top


@njit(nogil=True, cache=True, inline="always")
def _exp_terms2(t0, t1, top):
    """``exp(t - top)`` of the two scores, 1 for the larger (also when it is infinite)."""
    return 1.0 if t0 == top else np.exp(t0 - top), 1.0 if t1 == top else np.exp(t1 - top)


@njit(nogil=True, cache=True, inline="always")
def _best(acc, order):
    """The class of the largest ``acc`` (ties to the first in ``order``), its value kept in a register."""
    best = order[0]
    value = acc[best]
    for j in range(1, order.shape[0]):
        k = order[j]
        v = acc[k]
        if v > value:
            value = v
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


# Each pass has a two-class kernel (the sums in two registers) and a kernel of any number of classes (the
# sums in a small array); the entry point picks one once per partition, so the row loop has no branch on
# the number of classes, and none on the mode.

@njit(nogil=True, cache=True, error_model="numpy")
def _score_rows2_kernel(first, second, table, offsets, log_prior, extra, mode, out):
    bad = 0
    for i in range(out.shape[0]):
        t0, t1, b = _row_scores2(first, second, i, table, offsets, log_prior, extra)
        bad += b
        if mode == 0:
            out[i, 0] = t0
            out[i, 1] = t1
            continue
        top = max(t0, t1)
        e0, e1 = _exp_terms2(t0, t1, top)
        total = e0 + e1
        if mode == 1:
            norm = top + np.log(total)
            out[i, 0] = t0 - norm
            out[i, 1] = t1 - norm
        else:
            scale = 1.0 / total
            out[i, 0] = e0 * scale
            out[i, 1] = e1 * scale
    return bad


@njit(nogil=True, cache=True, error_model="numpy")
def _joint_rows_kernel(first, second, table, offsets, log_prior, extra, out):
    """Joint log-likelihoods of any number of classes, straight into ``out``."""
    bad = 0
    for i in range(out.shape[0]):
        bad += _row_scores(first, second, i, table, offsets, log_prior, extra, out[i])
    return bad


@njit(nogil=True, cache=True, error_model="numpy")
def _block_scores_kernel(first, second, table, offsets, log_prior, extra, start, stop, acc, shifted):
    """Rows ``start:stop``, many classes: their joint log-likelihoods into ``acc`` (when it has rows) and
    ``acc - top`` into ``shifted`` (0 for the largest, also when it is infinite: its exponential is 1), the
    exponents of the posteriors, which the caller takes vectorised."""
    scores = np.empty(shifted.shape[1])
    keep = acc.shape[0] > 0
    bad = 0
    for i in range(start, stop):
        row = acc[i - start] if keep else scores
        bad += _row_scores(first, second, i, table, offsets, log_prior, extra, row)
        top = _top(row)
        for k in range(row.shape[0]):
            shifted[i - start, k] = 0.0 if row[k] == top else row[k] - top
    return bad


@njit(nogil=True, cache=True, error_model="numpy")
def _normalise_rows_kernel(terms):
    """Each row of ``terms`` (the exponentials) divided by its sum, added in class order."""
    for j in range(terms.shape[0]):
        total = 0.0
        for k in range(terms.shape[1]):
            total += terms[j, k]
        scale = 1.0 / total
        for k in range(terms.shape[1]):
            terms[j, k] *= scale


@njit(nogil=True, cache=True, error_model="numpy")
def _log_normalise_rows_kernel(acc, terms):
    """Each row of ``acc`` less ``top + log(sum of its terms)``: log P(c | x)."""
    for j in range(acc.shape[0]):
        total = 0.0
        for k in range(terms.shape[1]):
            total += terms[j, k]
        norm = _top(acc[j]) + np.log(total)
        for k in range(acc.shape[1]):
            acc[j, k] -= norm


@njit(nogil=True, cache=True, error_model="numpy")
def _best_of_rows_kernel(first, second, table, offsets, log_prior, extra, order, out):
    bad = 0
    if table.shape[1] == 2:
        first_choice, second_choice = order[0], order[1]
        for i in range(out.shape[0]):
            t0, t1, b = _row_scores2(first, second, i, table, offsets, log_prior, extra)
            bad += b
            preferred, other = (t0, t1) if first_choice == 0 else (t1, t0)
            out[i] = second_choice if other > preferred else first_choice
        return bad
    acc = np.empty(log_prior.shape[0])
    for i in range(out.shape[0]):
        bad += _row_scores(first, second, i, table, offsets, log_prior, extra, acc)
        out[i] = _best(acc, order)
    return bad


@njit(nogil=True, cache=True, error_model="numpy")
def _evaluate2_kernel(first, second, table, offsets, log_prior, extra, order, truth, log_eps, log_1m_eps,
                      mantissa_bits, confusion, histogram, sums):
    """The sums of :func:`evaluate_rows` of two classes: one ROC curve, binned by log-odds (no exp for it)."""
    bad = 0
    log_likelihood = 0.0
    loss = 0.0
    first_choice, second_choice = order[0], order[1]
    for i in range(truth.shape[0]):
        t = truth[i]
        if t < 0:
            continue
        t0, t1, b = _row_scores2(first, second, i, table, offsets, log_prior, extra)
        bad += b
        preferred, other = (t0, t1) if first_choice == 0 else (t1, t0)
        confusion[t, second_choice if other > preferred else first_choice] += 1
        top = max(t0, t1)
        e0, e1 = _exp_terms2(t0, t1, top)
        log_p = (t1 if t == 1 else t0) - (top + np.log(e0 + e1))
        log_likelihood += log_p
        # -log of P(y|x) clipped to [eps, 1 - eps], compared in log space: no exp
        loss -= log_eps if log_p < log_eps else min(log_p, log_1m_eps)
        histogram[0, 0 if t == 1 else 1, log_odds_bin(t1 - t0, mantissa_bits)] += 1.0
    sums[0] += log_likelihood
    sums[1] += loss
    return bad


@njit(nogil=True, cache=True, error_model="numpy")
def _evaluate_block_scores_kernel(first, second, table, offsets, log_prior, extra, order, truth, start, stop,
                                  confusion, acc, shifted, arg):
    """Rows ``start:stop`` with a known class, many classes, first half: their joint log-likelihoods into
    ``acc`` and ``acc - top`` into ``shifted`` (0 for the largest: its exponential is 1; the caller
    exponentiates them, vectorised), their best class into ``confusion`` and the index of their largest
    score (the first on ties) into ``arg``."""
    n_classes = confusion.shape[0]
    bad = 0
    for i in range(start, stop):
        t = truth[i]
        j = i - start
        if t < 0:
            shifted[j] = 0.0  # not read: finite for the exponential
            continue
        scores = acc[j]
        bad += _row_scores(first, second, i, table, offsets, log_prior, extra, scores)
        confusion[t, _best(scores, order)] += 1
        top = _top(scores)
        for k in range(n_classes):
            shifted[j, k] = 0.0 if scores[k] == top else scores[k] - top
        largest, value = 0, scores[0]
        for k in range(1, n_classes):
            if scores[k] > value:
                largest, value = k, scores[k]
        arg[j] = largest
    return bad


@njit(nogil=True, cache=True, error_model="numpy")
def _evaluate_block_sums_kernel(truth, start, stop, acc, odds, arg, log_eps, log_1m_eps, mantissa_bits, counts,
                                sums):
    """Second half: from ``acc`` and ``odds = exp(shifted)``, add sum log P(y|x), the clipped log loss and
    the one-vs-rest ROC counts of every class."""
    n_classes = acc.shape[1]
    ratio = np.empty(n_classes)
    ratio_bits = ratio.view(np.uint64)
    bins = np.empty(n_classes, dtype=np.int64)
    n_bins = counts.shape[2]
    flat = counts.reshape(-1)  # (class, 0: the class's rows / 1: the others', bin)
    log_likelihood = 0.0
    loss = 0.0
    for i in range(start, stop):
        t = truth[i]
        if t < 0:
            continue
        j = i - start
        top = _top(acc[j])
        total = 0.0
        for k in range(n_classes):
            total += odds[j, k]
        log_p = acc[j, t] - (top + np.log(total))
        log_likelihood += log_p
        # -log of P(y|x) clipped to [eps, 1 - eps], compared in log space: no exp
        loss -= log_eps if log_p < log_eps else min(log_p, log_1m_eps)
        # one-vs-rest odds of every class: p_c / (sum of the others), without cancellation
        largest = arg[j]
        rest = 0.0
        for k in range(n_classes):
            if k != largest:
                rest += odds[j, k]
        for k in range(n_classes):
            ratio[k] = odds[j, k] / (total - odds[j, k])
        ratio[largest] = odds[j, largest] / rest
        _score_bins_of_bits(ratio, ratio_bits, mantissa_bits, bins)
        for k in range(n_classes):
            flat[(2 * k + (t != k)) * n_bins + bins[k]] += 1
    sums[0] += log_likelihood
    sums[1] += loss




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
    if log_prior.shape[0] == 2:
        bad = _score_rows2_kernel(first, second, table, offsets, log_prior, extra, mode, out)
    elif mode == JOINT:
        bad = _joint_rows_kernel(first, second, table, offsets, log_prior, extra, out)
    else:
        bad = _posteriors_by_blocks(first, second, table, offsets, log_prior, extra, mode, out)
    _raise_out_of_table(bad)
    return out


def block_rows(n_classes):
    """Rows of a block of scores that stays in a core's cache (about 64k cells).

    >>> block_rows(20)
    3276
    """
    return max(64, (1 << 16) // max(n_classes, 1))


def _posteriors_by_blocks(first, second, table, offsets, log_prior, extra, mode, out):
    """``out`` of :func:`score_rows` in mode POSTERIOR or LOG_POSTERIOR, more than two classes, by blocks
    of rows: the kernel writes each row's exponents, numpy's vectorised ``exp`` takes them (many per row:
    the bulk of the work), a kernel normalises."""
    n_rows, n_classes = out.shape
    step = block_rows(n_classes)
    no_scores = np.empty((0, n_classes))
    terms = np.empty((min(step, n_rows), n_classes)) if mode == LOG_POSTERIOR else None
    bad = 0
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        block = out[start:stop]
        if mode == POSTERIOR:
            bad += _block_scores_kernel(first, second, table, offsets, log_prior, extra, start, stop, no_scores,
                                        block)
            np.exp(block, out=block)
            _normalise_rows_kernel(block)
        else:
            shifted = terms[:stop - start]
            bad += _block_scores_kernel(first, second, table, offsets, log_prior, extra, start, stop, block,
                                        shifted)
            np.exp(shifted, out=shifted)
            _log_normalise_rows_kernel(block, shifted)
    return bad


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
    _raise_out_of_table(_best_of_rows_kernel(first, second, table, offsets, log_prior, extra, order, out))
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
    eps = np.finfo(np.float64).eps
    log_eps, log_1m_eps = np.log(eps), np.log1p(-eps)
    if n_classes == 2:
        bad = _evaluate2_kernel(first, second, table, offsets, log_prior, extra, order, truth, log_eps, log_1m_eps,
                                bits, confusion, histogram, sums)
    else:
        bad = _evaluate_by_blocks(first, second, table, offsets, log_prior, extra, order, truth, log_eps,
                                  log_1m_eps, bits, confusion, histogram, sums)
    _raise_out_of_table(bad)
    return confusion, float(sums[0]), float(sums[1]), histogram


def _evaluate_by_blocks(first, second, table, offsets, log_prior, extra, order, truth, log_eps, log_1m_eps, bits,
                        confusion, histogram, sums):
    """:func:`evaluate_rows` of more than two classes, by blocks of rows as :func:`_posteriors_by_blocks`;
    the ROC rows are counted in int32 (half the cache of float64) and added to ``histogram`` once."""
    n_rows, n_classes = truth.shape[0], confusion.shape[0]
    step = block_rows(n_classes)
    acc = np.empty((min(step, n_rows), n_classes))
    terms = np.empty_like(acc)
    arg = np.empty(acc.shape[0], dtype=np.int64)
    counts = np.zeros(histogram.shape, dtype=np.int32)
    bad = 0
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        shifted = terms[:stop - start]
        bad += _evaluate_block_scores_kernel(first, second, table, offsets, log_prior, extra, order, truth, start,
                                             stop, confusion, acc, shifted, arg)
        np.exp(shifted, out=shifted)
        _evaluate_block_sums_kernel(truth, start, stop, acc, shifted, arg, log_eps, log_1m_eps, bits, counts, sums)
    histogram += counts
    return bad

"""Scoring rows: joint log-likelihoods from codes and a log table, the best class, posteriors and
evaluation sums; and the Gaussian attributes' log-likelihoods from their values (:func:`gaussian_log_likelihoods`),
the block the other kernels add last."""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from nbparallel.kernels.checks import CODE_DTYPES, check_offsets, require_array, require_dtype
from nbparallel.kernels.row_sums import (ROWS_AT_ONCE, aligned_empty, block_sums, code_block, codes_outside,
                                         padded_table, row_summary, sum_space)
from nbparallel.kernels.vectors import exp, less, load, log, minus_top, over_rest, store, store_first, times


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
# Every pass that scores rows from codes (predict, predict_proba, evaluate, cross-validation's scoring,
# boosting rounds) runs one of the kernels below, once per partition. They read a partition's codes as
# counting gets them, in two blocks that need not be joined (``first``: categorical codes, any layout, a
# uint8 input array itself; ``second``: binned codes), sum its rows a block at a time with
# :mod:`nbparallel.kernels.row_sums` (the one set of row sums) into a buffer that stays in the core's cache,
# and turn each row's sums into its result there: the best class, the scores, the posteriors
# (exponentials and logarithms by :mod:`nbparallel.kernels.vectors`, eight lanes at a time), or evaluation
# sums. A code outside its attribute's rows is never read past: the kernel flags it and the wrapper raises
# ValueError.

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
def _bin_of_bits(odds, bits, mantissa_bits):
    """:func:`score_bin` of ``odds`` (>= 0 or NaN) whose IEEE-754 bits are ``bits``: read from the bits, with
    selects and no branch or libm call, so that a loop of them is vectorised. For a normal number the
    exponent field less 1022 is frexp's exponent and the fraction's top bits are
    ``int((2 m - 1) 2**mantissa_bits)``; zero and subnormals lie below ``2**-SCORE_OCTAVES`` (bin 0),
    infinity above ``2**SCORE_OCTAVES`` (the last bin)."""
    n_bins = (2 * SCORE_OCTAVES) << mantissa_bits
    e = np.int64((bits >> np.uint64(52)) & np.uint64(0x7FF)) - 1022
    fraction = np.int64(bits >> np.uint64(52 - mantissa_bits)) & ((1 << mantissa_bits) - 1)
    inside = ((e + SCORE_OCTAVES - 1) << mantissa_bits) + fraction
    b = inside if e > -SCORE_OCTAVES else 0
    b = b if e <= SCORE_OCTAVES else n_bins - 1
    b = b if odds > 0.0 else 0
    return n_bins // 2 if odds != odds else b


@njit(nogil=True, cache=True, error_model="numpy", inline="always")
def log_odds_bin(log_odds, mantissa_bits):
    """The bin of a score given as its log-odds, in the histogram of :func:`score_bin` (the same bins up to
    their shape within an octave: here of equal width ``log(2) / 2**mantissa_bits`` in log-odds), with no
    transcendental function and no branch (selects, so that a loop of them is vectorised): the two-class
    evaluation's."""
    half = SCORE_OCTAVES << mantissa_bits
    x = min(max(np.floor(log_odds * ((1 << mantissa_bits) / LN2)), -half), half - 1)
    return half + np.int64(0.0 if np.isnan(log_odds) else x)


# Each kernel takes the padded table of :func:`~nbparallel.kernels.row_sums.padded_table` and its ``lanes``,
# a tuple whose length is the vector width (one compiled kernel per width), and sums its rows a block of
# :func:`block_rows` at a time with :func:`~nbparallel.kernels.row_sums.block_sums`.

EXP_LANES = 8
"""Lanes of the vectors exponentiated (or logarithms taken) at once."""


@njit(nogil=True, cache=True, inline="always")
def _two_best(sums, at, order):
    """The best and second-best class of the row of sums at ``sums[at:]``, ties to the class first in
    ``order`` (one scan, with selects)."""
    best, runner_up = order[0], -1
    top, second = sums[at + best], -np.inf
    for q in range(1, order.shape[0]):
        k = order[q]
        score = sums[at + k]
        higher, next_best = score > top, (score > second) | (runner_up < 0)
        runner_up = best if higher else (k if next_best else runner_up)
        second = top if higher else (score if next_best else second)
        best = k if higher else best
        top = score if higher else top
    return best, runner_up


@njit(nogil=True, cache=True)
def _best_of_rows_kernel(first, second, extra, offsets, table, prior, lanes, order, out, runner_up):
    """Each row's best class into ``out``, and its second best into ``runner_up`` unless that has no rows."""
    n_columns = prior.shape[0]
    step = block_rows(n_columns)
    sums = aligned_empty((step + ROWS_AT_ONCE) * n_columns)
    space = sum_space(first, second, offsets)
    outside = False
    for start in range(0, out.shape[0], step):
        stop = min(start + step, out.shape[0])
        outside |= block_sums(first, second, extra, start, stop, offsets, table, prior, lanes, space, sums)
        if runner_up.shape[0]:
            for j in range(stop - start):
                out[start + j], runner_up[start + j] = _two_best(sums, j * n_columns, order)
        else:
            for j in range(stop - start):
                out[start + j], _, _ = row_summary(sums, j * n_columns, n_columns, lanes, order)
    return outside


@njit(nogil=True, cache=True)
def _store_classes(array, index, vector, count, width):
    """Write the first ``count`` lanes of a row's ``vector`` of ``width`` lanes at ``array[index:]``, and the
    lanes past them too (one plain store; AVX2 processors take several times as long over a masked store)
    where the array has room for them. The callers write rows in order, so those lanes fall on the classes
    of later rows, written after, or on scratch space past the rows."""
    if index + width <= array.shape[0]:
        store(array, index, vector)
    else:
        store_first(array, index, vector, count)


@njit(nogil=True, cache=True)
def _exponentials(sums, n_rows, n_columns, lanes, n_classes, tops, odds):
    """``exp(score - top)`` of each of ``n_rows`` rows of sums into ``odds`` (its classes only, ``n_classes``
    a row; exactly 1 for the largest score, ``tops[j]``, also when it is infinite), and the sums of each
    row's exponentials (added in class order) returned. The exponentials are taken eight lanes at a time
    over the block (``odds`` holds whole vectors past its rows)."""
    width = len(lanes)
    for j in range(n_rows):
        for k in range(0, n_columns, width):
            _store_classes(odds, j * n_classes + k, minus_top(load(sums, j * n_columns + k, lanes), tops[j]),
                           n_classes - k, width)
    exps(odds, n_rows * n_classes)
    return _class_totals(odds, n_rows, n_classes)


@njit(nogil=True, cache=True)
def _binary_exponentials(sums, n_rows, tops, odds):
    """Two classes: each of ``n_rows`` rows' ``exp(lower score - top)`` into ``odds[j]`` (the top's
    exponential, 1, is left out) and the rows' sums of exponentials returned: the numbers of
    :func:`_exponentials`, bit for bit, from half its exponentials. Each exponent is the sum of the two
    lanes' exponents of :func:`~nbparallel.kernels.vectors.minus_top`, one of which is exactly 0 (both at a
    tie; NaN where a score is NaN, as there)."""
    for j in range(n_rows):
        top = tops[j]
        s0, s1 = sums[2 * j], sums[2 * j + 1]
        odds[j] = (0.0 if s0 == top else s0 - top) + (0.0 if s1 == top else s1 - top)
    exps(odds, n_rows)
    totals = np.ones(n_rows + EXP_LANES)
    for j in range(n_rows):
        totals[j] = 1.0 + odds[j]
    return totals


@njit(nogil=True, cache=True)
def _tops(sums, n_rows, n_columns, lanes, order, tops):
    """Each of ``n_rows`` rows' largest score, into ``tops``."""
    for j in range(n_rows):
        _, tops[j], _ = row_summary(sums, j * n_columns, n_columns, lanes, order)


@njit(nogil=True, cache=True)
def exps(values, n):
    """``exp`` of the first ``n`` of ``values``, in place, :data:`EXP_LANES` lanes at a time: whole vectors,
    so the buffer must hold ``EXP_LANES - 1`` values past them (their results unused). Lane by lane, so a
    value's bits do not depend on where it lies."""
    for q in range(0, n, EXP_LANES):
        store(values, q, exp(load(values, q, EXP_LANES)))


@njit(nogil=True, cache=True)
def logs(values, n):
    """``log`` of the first ``n`` of ``values``, in place, as :func:`exps` takes them."""
    for q in range(0, n, EXP_LANES):
        store(values, q, log(load(values, q, EXP_LANES)))


@njit(nogil=True, cache=True)
def _class_totals(terms, n_rows, n_classes):
    """Each of ``n_rows`` rows of ``terms`` (``n_classes`` a row) added in class order; four rows at once, so
    that their chains of additions overlap. A tail of ones follows, to whole vectors."""
    totals = np.ones(n_rows + EXP_LANES)
    whole = n_rows - n_rows % 4
    for j in range(0, whole, 4):
        a0, a1, a2, a3 = j * n_classes, (j + 1) * n_classes, (j + 2) * n_classes, (j + 3) * n_classes
        t0 = t1 = t2 = t3 = 0.0
        for k in range(n_classes):
            t0 += terms[a0 + k]
            t1 += terms[a1 + k]
            t2 += terms[a2 + k]
            t3 += terms[a3 + k]
        totals[j], totals[j + 1], totals[j + 2], totals[j + 3] = t0, t1, t2, t3
    for j in range(whole, n_rows):
        total = 0.0
        for k in range(n_classes):
            total += terms[j * n_classes + k]
        totals[j] = total
    return totals


@njit(nogil=True, cache=True, error_model="numpy")
def _scores_kernel(first, second, extra, offsets, table, prior, lanes, order, mode, out):
    """Every row's scores into ``out`` (C-contiguous): joint log-likelihoods, log-posteriors or posteriors
    (``mode``)."""
    n_columns = prior.shape[0]
    n_classes = order.shape[0]
    width = len(lanes)
    step = block_rows(n_columns)
    sums = aligned_empty((step + ROWS_AT_ONCE) * n_columns)
    space = sum_space(first, second, offsets)
    odds = np.zeros(sums.shape[0])  # whole vectors of exponentials past the rows: finite
    tops = np.empty(step)
    flat = out.reshape(-1)
    outside = False
    for start in range(0, out.shape[0], step):
        stop = min(start + step, out.shape[0])
        n = stop - start
        outside |= block_sums(first, second, extra, start, stop, offsets, table, prior, lanes, space, sums)
        if mode == JOINT:
            for j in range(n):
                to = (start + j) * n_classes
                for k in range(0, n_columns, width):
                    _store_classes(flat, to + k, load(sums, j * n_columns + k, lanes), n_classes - k, width)
            continue
        _tops(sums, n, n_columns, lanes, order, tops)
        if n_classes == 2:
            totals = _binary_exponentials(sums, n, tops, odds)
        else:
            totals = _exponentials(sums, n, n_columns, lanes, n_classes, tops, odds)
        if mode == LOG_POSTERIOR:
            logs(totals, n)
        for j in range(n):
            at, to = j * n_columns, (start + j) * n_classes
            if mode == POSTERIOR and n_classes == 2:  # the top's exponential is 1: the scale itself
                scale = 1.0 / totals[j]
                flat[to] = scale if sums[at] == tops[j] else odds[j] * scale
                flat[to + 1] = scale if sums[at + 1] == tops[j] else odds[j] * scale
            elif mode == POSTERIOR:
                scale = 1.0 / totals[j]
                for k in range(0, n_columns, width):
                    _store_classes(flat, to + k, times(load(odds, j * n_classes + k, lanes), scale), n_classes - k,
                                   width)
            else:
                norm = tops[j] + totals[j]
                for k in range(0, n_columns, width):
                    _store_classes(flat, to + k, less(load(sums, at + k, lanes), norm), n_classes - k, width)
    return outside


@njit(nogil=True, cache=True, error_model="numpy")
def _one_vs_rest_counts(odds, n_rows, n_classes, totals, largest, truth, mantissa_bits, cells, counts):
    """Add the one-vs-rest ROC counts of every class of the rows with a known class (``truth >= 0``):
    ``counts[c, 0 if the row's class is c else 1, bin of its odds p_c / (sum of the others)]``, the odds
    taken without cancellation (``odds[c] / (total - odds[c])``; for the largest, over the others' own sum,
    added in class order). Each row's cells are found first (``cells``), then added class by class, so that
    one class's counts stay in the core's first cache."""
    ratio = aligned_empty(n_classes + EXP_LANES)
    ratio_bits = ratio.view(np.uint64)
    n_bins = counts.shape[2]
    kept = np.empty(n_rows)
    for j in range(n_rows):  # the others' sums: the largest's odds set to 0 (adding 0 changes no sum) a while
        kept[j] = odds[j * n_classes + largest[j]]
        odds[j * n_classes + largest[j]] = 0.0
    rests = _class_totals(odds, n_rows, n_classes)
    for j in range(n_rows):
        odds[j * n_classes + largest[j]] = kept[j]
    for j in range(n_rows):
        at = j * n_classes
        for k in range(0, n_classes, EXP_LANES):  # lanes past the row's classes are not read
            store(ratio, k, over_rest(load(odds, at + k, EXP_LANES), totals[j]))
        ratio[largest[j]] = kept[j] / rests[j]
        t = truth[j]
        for k in range(n_classes):
            cells[j, k] = (2 * k + (t != k)) * n_bins + _bin_of_bits(ratio[k], ratio_bits[k], mantissa_bits)
    flat = counts.reshape(-1)  # (class, 0: the class's rows / 1: the others', bin)
    for k in range(n_classes):
        for j in range(n_rows):
            if truth[j] >= 0:
                flat[cells[j, k]] += 1


@njit(nogil=True, cache=True, error_model="numpy")
def _binary_counts(sums, n_rows, truth, mantissa_bits, cells, counts):
    """Add the ROC counts of two classes' rows with a known class (``truth >= 0``): ``counts[0, 0 if the
    row's class is 1 else 1, log_odds_bin(score 1 - score 0)]``. The rows' cells are found first, in a loop
    the compiler vectorises, then counted."""
    n_bins = counts.shape[2]
    for j in range(n_rows):
        cells[j] = log_odds_bin(sums[2 * j + 1] - sums[2 * j], mantissa_bits) + (truth[j] != 1) * n_bins
    flat = counts.reshape(-1)
    for j in range(n_rows):
        if truth[j] >= 0:
            flat[cells[j]] += 1


@njit(nogil=True, cache=True, error_model="numpy")
def _evaluation_kernel(first, second, extra, offsets, table, prior, lanes, order, truth, log_eps, log_1m_eps,
                       mantissa_bits, confusion, counts, sums_out, roc):
    """The sums of :func:`evaluate_rows` over the rows with a known class: confusion, sum of log P(y|x) and
    the clipped log loss (into ``sums_out``), and when ``roc`` the ROC counts (two classes: class 1's, binned
    by log-odds; more: one-vs-rest, of every class)."""
    n_columns = prior.shape[0]
    n_classes = order.shape[0]
    step = block_rows(n_columns)
    sums = aligned_empty((step + ROWS_AT_ONCE) * n_columns)
    space = sum_space(first, second, offsets)
    odds = np.zeros(sums.shape[0])  # whole vectors of exponentials past the rows: finite
    tops = np.empty(step)
    largest = np.empty(step, dtype=np.int64)
    cells = np.empty((step, n_classes), dtype=np.int64)
    log_likelihood = 0.0
    loss = 0.0
    outside = False
    for start in range(0, truth.shape[0], step):
        stop = min(start + step, truth.shape[0])
        n = stop - start
        outside |= block_sums(first, second, extra, start, stop, offsets, table, prior, lanes, space, sums)
        for j in range(n):
            best, tops[j], largest[j] = row_summary(sums, j * n_columns, n_columns, lanes, order)
            t = truth[start + j]
            if t >= 0:
                confusion[t, best] += 1
        if n_classes == 2:
            log_totals = _binary_exponentials(sums, n, tops, odds)
        else:
            totals = _exponentials(sums, n, n_columns, lanes, n_classes, tops, odds)
            log_totals = totals.copy() if roc else totals
        logs(log_totals, n)
        for j in range(n):
            t = truth[start + j]
            if t < 0:
                continue
            at = j * n_columns
            log_p = sums[at + t] - (tops[j] + log_totals[j])
            log_likelihood += log_p
            # -log of P(y|x) clipped to [eps, 1 - eps], compared in log space: no exp
            loss -= log_eps if log_p < log_eps else min(log_p, log_1m_eps)
        if not roc:
            continue
        if n_classes == 2:
            _binary_counts(sums, n, truth[start:stop], mantissa_bits, cells.reshape(-1), counts)
        elif n_classes > 2:
            _one_vs_rest_counts(odds, n, n_classes, totals, largest, truth[start:stop], mantissa_bits, cells,
                                counts)
    sums_out[0] += log_likelihood
    sums_out[1] += loss
    return outside


class PreparedTable(NamedTuple):
    """A log table, its offsets and log prior, checked once and laid out as the kernels read them
    (:func:`prepare_table`): what a fitted model hands to every scoring call of its table, so that a call of a
    few rows does not check and pad the same table again. ``source`` holds the arrays it was made of."""

    source: tuple
    offsets: np.ndarray
    flat: np.ndarray
    prior: np.ndarray
    lanes: tuple


def prepare_table(table, offsets, log_prior):
    """The :class:`PreparedTable` of ``table``, ``offsets`` and ``log_prior`` (as :func:`score_rows` takes
    them), checked; ValueError as :func:`score_rows` raises for them."""
    check_offsets(offsets, len(offsets) - 1)
    require_array("log_prior", log_prior, 1)
    require_dtype("log_prior", log_prior, (np.dtype(np.float64),))
    require_array("table", table, 2)
    require_dtype("table", table, (np.dtype(np.float64),))
    expected = (int(offsets[-1]), log_prior.shape[0])
    if table.shape != expected:
        raise ValueError(f"table must have shape {expected}, got {table.shape}")
    return PreparedTable((table, offsets, log_prior), np.array(offsets, dtype=np.int64),
                         *padded_table(table, log_prior))


def _check_scoring(first, second, table, offsets, log_prior, extra, n_rows, prepared=None):
    """The scoring kernels' first arguments, ``(first, second, extra, offsets, table, prior, lanes)``, from
    checked ones: the codes as :class:`~nbparallel.kernels.row_sums.CodeBlock`, ``extra`` (an empty block
    when None) and ``offsets`` C-contiguous and writeable, the table padded
    (:func:`~nbparallel.kernels.row_sums.padded_table`), or taken from ``prepared`` when it was made of these
    very arrays. The kernels so meet one numba type whatever the caller's layouts and flags: one compilation
    per code type and vector width."""
    for name, codes in (("first", first), ("second", second)):
        require_array(name, codes, 2)
        if codes.shape[1]:
            require_dtype(name, codes, CODE_DTYPES)
        if codes.shape[0] != n_rows:
            raise ValueError(f"{name} has {codes.shape[0]} rows, expected {n_rows}")
    if prepared is None or prepared.source[0] is not table or prepared.source[1] is not offsets \
            or prepared.source[2] is not log_prior:
        prepared = prepare_table(table, offsets, log_prior)
    if len(prepared.offsets) != first.shape[1] + second.shape[1] + 1:
        check_offsets(offsets, first.shape[1] + second.shape[1])
    n_classes = log_prior.shape[0]
    if extra is None:
        extra = np.empty((0, n_classes))
    else:
        require_array("extra", extra, 2)
        if extra.shape != (n_rows, n_classes):
            raise ValueError(f"extra must have shape {(n_rows, n_classes)}, got {extra.shape}")
        extra = np.require(extra, np.float64, ["C", "W"])
    return (code_block(first), code_block(second), extra, prepared.offsets, prepared.flat, prepared.prior,
            prepared.lanes)


def _empty_codes(n_rows):
    return np.empty((n_rows, 0), dtype=np.uint8)


def _raise_out_of_table(outside, first, second, offsets):
    if outside:
        raise ValueError(f"{codes_outside(first, second, offsets)} codes lie outside their attribute's rows of "
                         "the log table: the codes do not belong to this model's table (nothing was read out of "
                         "bounds)")


def score_rows(first, second, table, offsets, log_prior, *, extra=None, mode=POSTERIOR, out=None,
               prepared=None):
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
    prepared : PreparedTable, optional
        :func:`prepare_table` of these ``table``, ``offsets`` and ``log_prior`` (the same objects; else
        ignored): their checks and padding are not made again.

    Returns
    -------
    out

    Raises
    ------
    ValueError
        When a code lies outside its attribute's table rows (none is read).
    """
    n_rows = first.shape[0]
    arguments = _check_scoring(first, second, table, offsets, log_prior, extra, n_rows, prepared)
    if mode not in (JOINT, LOG_POSTERIOR, POSTERIOR):
        raise ValueError(f"mode must be JOINT, LOG_POSTERIOR or POSTERIOR, got {mode!r}")
    if out is None:
        out = np.empty((n_rows, log_prior.shape[0]))
    elif out.shape != (n_rows, log_prior.shape[0]) or out.dtype != np.float64:
        raise ValueError(f"out must be float64 of shape {(n_rows, log_prior.shape[0])}, got {out.dtype} {out.shape}")
    target = out if out.flags.c_contiguous else np.empty(out.shape)
    outside = _scores_kernel(*arguments, np.arange(log_prior.shape[0]), mode, target)
    if target is not out:
        out[...] = target
    _raise_out_of_table(outside, first, second, offsets)
    return out


@njit(nogil=True, cache=True)
def block_rows(n_columns):
    """Rows of a block of scores that stays in a core's second-level cache (at most 16k cells), a whole
    number of groups of rows summed at once.

    >>> block_rows(24)
    680
    """
    return max(ROWS_AT_ONCE, (1 << 14) // n_columns // ROWS_AT_ONCE * ROWS_AT_ONCE)


def best_of_rows(first, second, table, offsets, log_prior, order, *, extra=None, out=None, prepared=None):
    """The best class of every row (ties to the class first in ``order``), from codes as :func:`score_rows`
    takes them (and its ``prepared``), written into ``out`` (int64, shape (n_rows,))."""
    n_rows = first.shape[0]
    if out is None:
        out = np.empty(n_rows, dtype=np.int64)
    elif out.shape != (n_rows,) or out.dtype != np.int64:
        raise ValueError(f"out must be int64 of shape ({n_rows},), got {out.dtype} {out.shape}")
    _best_classes(first, second, table, offsets, log_prior, order, extra, prepared, out, _NO_RUNNER_UP)
    return out


_NO_RUNNER_UP = np.empty(0, dtype=np.int64)
"""The second-best classes :func:`best_of_rows` asks for: none (never written)."""


def _best_classes(first, second, table, offsets, log_prior, order, extra, prepared, out, runner_up):
    """:func:`_best_of_rows_kernel` of checked arguments; ValueError for a bad ``order`` or a code outside
    its attribute's rows."""
    arguments = _check_scoring(first, second, table, offsets, log_prior, extra, first.shape[0], prepared)
    order = np.array(order, dtype=np.int64)
    if sorted(order.tolist()) != list(range(log_prior.shape[0])):
        raise ValueError(f"order must list each of the {log_prior.shape[0]} classes once")
    outside = _best_of_rows_kernel(*arguments, order, out, runner_up)
    _raise_out_of_table(outside, first, second, offsets)


def two_best_of_rows(first, second, table, offsets, log_prior, order, *, extra=None, prepared=None):
    """The best and the second-best class of every row (ties to the class first in ``order``), from codes as
    :func:`score_rows` takes them (and its ``prepared``): what a row's explanation compares by default.
    ``best`` is :func:`best_of_rows`'; ``runner_up`` the first class in ``order`` other than ``best``, unless
    another scores higher (the first of those scoring highest).

    Returns
    -------
    best, runner_up : ndarray of int64, shape (n_rows,)
        With one class, ``runner_up`` is -1.
    """
    best, runner_up = np.empty(first.shape[0], dtype=np.int64), np.empty(first.shape[0], dtype=np.int64)
    _best_classes(first, second, table, offsets, log_prior, order, extra, prepared, best, runner_up)
    return best, runner_up


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


@njit(nogil=True, cache=True)
def _roc_sums_kernel(scores, out):
    for c in range(scores.shape[0]):
        area = ties = positives = below = 0.0
        for b in range(scores.shape[2]):
            p, n = scores[c, 0, b], scores[c, 1, b]
            if p == 0.0 and n == 0.0:
                continue
            area += p * (below + 0.5 * n)
            ties += p * n
            below += n
            positives += p
        out[c, 0], out[c, 1], out[c, 2], out[c, 3] = area, ties, positives, below


def roc_sums(scores):
    """Per ROC curve of score histograms ``scores`` (n_curves, 2, n_bins: a curve's positive rows, then its
    negative rows, by bin in increasing order of score): ``(area, ties, positives, negatives)``, one pass over
    the bins. ``area`` counts the pairs of a positive row and a negative row below it, a pair in the same
    bin as 1/2; ``ties`` the pairs in the same bin. Counts (whole numbers and halves) add exactly in any
    order, so these equal numpy's cumulative sums and products of the same histograms.

    Returns
    -------
    ndarray of float64, shape (n_curves, 4)
    """
    require_array("scores", scores, 3)
    if scores.shape[1] != 2:
        raise ValueError(f"scores must hold a curve's positive and negative rows (shape (n, 2, bins)), got "
                         f"{scores.shape}")
    out = np.empty((scores.shape[0], 4))
    _roc_sums_kernel(np.ascontiguousarray(scores, dtype=np.float64), out)
    return out


def evaluate_rows(first, second, table, offsets, log_prior, order, truth, *, extra=None, roc=True,
                  prepared=None):
    """One pass of evaluation sums over the rows with a known class (``truth >= 0``).

    ``roc=False`` leaves out the ROC histograms (None), which with many classes cost as much as the rest of
    the pass after the row sums: each row adds to one histogram per class. ``prepared`` as :func:`score_rows`
    takes it.

    Returns
    -------
    confusion : ndarray of int64, shape (n_classes, n_classes)
        Rows true class, columns the best class (ties to the first in ``order``).
    log_likelihood : float
        Sum of log P(y_i | x_i).
    log_loss : float
        Sum of -log P(y_i | x_i), each probability clipped to [eps, 1 - eps] (float64 eps), as
        ``sklearn.metrics.log_loss`` clips.
    histogram : ndarray of float64, shape (n_curves, 2, n_bins), or None
        Per ROC curve (class 1 for two classes; every class, one-vs-rest, for more), the rows of that class
        ([:, 0]) and the others ([:, 1]) by the bin (:func:`score_bin`) of their one-vs-rest odds; None when
        not ``roc``.
    """
    n_rows = first.shape[0]
    arguments = _check_scoring(first, second, table, offsets, log_prior, extra, n_rows, prepared)
    n_classes = log_prior.shape[0]
    truth = np.require(truth, np.int64, ["C", "W"])
    if truth.shape != (n_rows,) or (n_rows and truth.max() >= n_classes):
        raise ValueError(f"truth must hold {n_rows} class positions below {n_classes} (-1: unknown)")
    order = np.array(order, dtype=np.int64)
    bits = histogram_bits(n_classes)
    confusion = np.zeros((n_classes, n_classes), dtype=np.int64)
    # counted as int32 (half float64's cache), returned as float64 (histograms of rows add across partitions)
    counts = np.zeros((1 if n_classes <= 2 else n_classes, 2, n_score_bins(bits) if roc else 0), dtype=np.int32)
    sums = np.zeros(2)
    eps = np.finfo(np.float64).eps
    outside = _evaluation_kernel(*arguments, order, truth, np.log(eps), np.log1p(-eps),
                                 bits, confusion, counts, sums, bool(roc))
    _raise_out_of_table(outside, first, second, offsets)
    return confusion, float(sums[0]), float(sums[1]), counts.astype(np.float64) if roc else None


# --------------------------------------------------------------------------- Gaussian attributes

GAUSSIAN_FASTMATH = {"reassoc", "contract", "nsz", "arcp"}
"""The float liberties of :func:`gaussian_log_likelihoods`: the sum over attributes may be reordered (so it is
vectorised), never NaN or infinity assumed away (a NaN value is tested)."""


@njit(nogil=True, cache=True, inline="always")
def _gaussian_value(X, columns, i, j):
    """Row ``i``'s value of attribute ``j``: ``X[i, columns[j]]``, or ``X[i, j]`` when ``columns`` is None."""
    return np.float64(X[i, j]) if columns is None else np.float64(X[i, columns[j]])


@njit(nogil=True, cache=True, fastmath=GAUSSIAN_FASTMATH)
def _gaussian_kernel(X, columns, mean, half_precision, log_norm, out):
    """``out[i, k] = sum_j log_norm[k, j] + half_precision[k, j] (x_ij - mean[k, j])^2`` over the attributes
    whose value is not NaN and whose ``half_precision`` is not 0."""
    n_classes, g = mean.shape
    for i in range(X.shape[0]):
        for k in range(n_classes):
            total = 0.0
            for j in range(g):
                x = _gaussian_value(X, columns, i, j)
                d = x - mean[k, j]
                term = log_norm[k, j] + half_precision[k, j] * d * d
                total += term if (x == x and half_precision[k, j] != 0.0) else 0.0
            out[i, k] = total


def gaussian_constants(theta, var):
    """``(mean, half_precision, log_norm)``, C-contiguous (n_classes, g) arrays, of means ``theta`` and
    variances ``var`` as :func:`gaussian_log_likelihoods` reads them: a NaN variance gives zeros (it adds
    nothing), a variance of 0 scores as log N does (NaN).

    >>> [c.tolist() for c in gaussian_constants(np.array([[1.0, 2.0]]), np.array([[0.5, np.nan]]))][:2]
    [[[1.0, 0.0]], [[-1.0, 0.0]]]
    """
    usable = ~np.isnan(var)
    safe = np.where(usable, var, 1.0)
    mean = np.ascontiguousarray(np.where(usable, theta, 0.0))
    with np.errstate(divide="ignore"):  # a variance of 0 (no var_smoothing) scores as log N does: NaN
        half_precision = np.ascontiguousarray(np.where(usable, -0.5 / safe, 0.0))
        log_norm = np.ascontiguousarray(np.where(usable, -0.5 * np.log(2.0 * np.pi * safe), 0.0))
    return mean, half_precision, log_norm


def gaussian_log_likelihoods(X, columns, theta, var, out=None, constants=None):
    """Sum over Gaussian attributes of ``log N(x; theta_kj, var_kj)`` for every row and class, in one compiled
    pass over the rows.

    Parameters
    ----------
    X : ndarray of float64 or float32, shape (n_rows, n_columns)
        Any memory layout; NaN means missing (adds nothing).
    columns : sequence of int or None
        The columns of ``X`` holding the ``g`` attributes, in the order of ``theta``'s columns; None: every
        column of ``X``, in order.
    theta, var : ndarray of float64, shape (n_classes, g)
        Means and variances; a NaN variance (a class or attribute without one) adds nothing.
    out : ndarray of float64, shape (n_rows, n_classes), C-contiguous, optional
        Where to write; allocated when None.
    constants : tuple, optional
        :func:`gaussian_constants` of these ``theta`` and ``var``, made once by the caller (a fitted model);
        computed here when None.

    Returns
    -------
    out

    Examples
    --------
    >>> X = np.array([[0.0, np.nan], [1.0, 2.0]])
    >>> theta, var = np.array([[0.0, 2.0]]), np.array([[1.0, np.nan]])
    >>> gaussian_log_likelihoods(X, [0, 1], theta, var).round(4).tolist()
    [[-0.9189], [-1.4189]]
    """
    require_array("X", X, 2)
    require_dtype("X", X, (np.dtype(np.float64), np.dtype(np.float32)))
    if columns is not None:
        columns = np.asarray(columns, dtype=np.int64).reshape(-1)
        if columns.size and (columns.min() < 0 or columns.max() >= X.shape[1]):
            raise ValueError(f"columns must lie in [0, {X.shape[1]}), got {columns.tolist()}")
    g = X.shape[1] if columns is None else columns.size
    theta, var = np.asarray(theta, dtype=np.float64), np.asarray(var, dtype=np.float64)
    if theta.ndim != 2 or var.shape != theta.shape or theta.shape[1] != g:
        raise ValueError(f"theta and var must both have shape (n_classes, {g}), got {theta.shape} and {var.shape}")
    mean, half_precision, log_norm = gaussian_constants(theta, var) if constants is None else constants
    shape = (X.shape[0], theta.shape[0])
    if out is None:
        out = np.empty(shape)
    elif out.shape != shape or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise ValueError(f"out must be C-contiguous float64 of shape {shape}, got {out.dtype} {out.shape}")
    if columns is not None and columns.size and np.array_equal(columns, np.arange(columns[0],
                                                                                  columns[0] + columns.size)):
        X, columns = X[:, columns[0]:columns[0] + columns.size], None  # a range of columns: a view, no index
    _gaussian_kernel(X, columns, mean, half_precision, log_norm, out)
    return out

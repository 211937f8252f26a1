"""The row sums of every scoring pass (:mod:`nbparallel.kernels.row_sums`, through the scoring kernels) against
plain numpy references: scores equal to the bit, classes identical (ties to the order given, -inf and NaN
scores), posteriors and evaluation sums as numpy computes them, for two classes (vectors of 2 lanes) and for
three or four (4 lanes) and more (blocks of 8 lanes, one to several blocks), rows in groups and blocks of any size, codes in every layout.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from scipy.special import logsumexp

from nbparallel.kernels.row_sums import FAST_COLUMNS, SHARED_POSITIONS_BYTES, padded_table, vector_width
from nbparallel.kernels.vectors import exp, load, log, store
from nbparallel.kernels.scoring import (JOINT, LOG_POSTERIOR, POSTERIOR, SCORE_OCTAVES, best_of_rows, evaluate_rows,
                                        histogram_bits, n_score_bins, score_bin, score_rows, two_best_of_rows)


def problem(n_rows, n_classes, seed, *, layout="C", specials=False, extra=False, sizes=(3, 5, 2, 4, 6)):
    """Codes in two blocks, a log table with coarse values (many exact ties), its prior, extra scores."""
    rng = np.random.default_rng(seed)
    sizes = np.array(sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    table = np.round(np.log(rng.random((offsets[-1], n_classes))), 1)
    table[offsets[:-1]] = 0.0
    prior = np.round(np.log(rng.dirichlet(np.ones(n_classes))), 1)
    if specials:
        table[rng.random(table.shape) < 0.03] = -np.inf
        table[:, -1] = table[:, 0]  # the first and last classes tie wherever the priors do
        prior[-1] = prior[0]
    codes = np.column_stack([rng.integers(0, s, n_rows) for s in sizes])
    first, second = codes[:, :3].astype(np.uint8), codes[:, 3:].astype(np.uint16)
    if layout == "F":
        first, second = np.asfortranarray(first), np.asfortranarray(second)
    elif layout == "strided":
        first = np.repeat(first, 2, axis=1)[:, ::2]
    scores = rng.normal(0, 3, (n_rows, n_classes)) if extra else None
    if extra and specials:
        scores[rng.random(scores.shape) < 0.02] = np.nan
    return first, second, table, offsets, prior, scores


def reference_joint(first, second, table, offsets, prior, extra):
    """The prior, then each attribute's row of the table in attribute order, then the extra block."""
    jll = np.tile(prior, (first.shape[0], 1))
    for a, column in enumerate(np.column_stack([first, second]).T):
        jll = jll + table[offsets[a] + column.astype(np.int64)]
    return jll if extra is None else jll + extra


def reference_best(jll, order):
    """The class of each row's largest score, scanning ``order``: strictly larger wins (so ties, and a NaN
    first class, stay with the first in ``order``)."""
    best = np.empty(len(jll), dtype=np.int64)
    for i, row in enumerate(jll):
        best[i] = order[0]
        for k in order[1:]:
            if row[k] > row[best[i]]:
                best[i] = k
    return best


def reference_runner_up(jll, order, best):
    """Each row's largest score of a class other than ``best``, ties to the class first in ``order`` (-1 with
    one class)."""
    runner_up = np.full(len(jll), -1, dtype=np.int64)
    for i, row in enumerate(jll):
        for k in order:
            if k != best[i] and (runner_up[i] < 0 or row[k] > row[runner_up[i]]):
                runner_up[i] = k
    return runner_up


CASES = [(1, 70), (2, 1), (2, 7), (2, 130), (3, 65), (4, 90), (5, 33), (8, 64), (9, 200), (20, 333), (24, 70), (40, 129), (70, 90)]


@pytest.mark.parametrize("n_classes, n_rows", CASES)
@pytest.mark.parametrize("specials", [False, True])
def test_scores_and_classes_equal_the_references(n_classes, n_rows, specials):
    first, second, table, offsets, prior, extra = problem(n_rows, n_classes, n_classes * 1000 + n_rows,
                                                          specials=specials, extra=specials)
    jll = reference_joint(first, second, table, offsets, prior, extra)
    np.testing.assert_array_equal(score_rows(first, second, table, offsets, prior, extra=extra, mode=JOINT), jll)
    for order in (np.arange(n_classes), np.random.default_rng(n_rows).permutation(n_classes)):
        np.testing.assert_array_equal(best_of_rows(first, second, table, offsets, prior, order, extra=extra),
                                      reference_best(jll, order))
        best, runner_up = two_best_of_rows(first, second, table, offsets, prior, order, extra=extra)
        np.testing.assert_array_equal(best, reference_best(jll, order))
        np.testing.assert_array_equal(runner_up, reference_runner_up(jll, order, best))
    with np.errstate(invalid="ignore"):
        log_post = jll - logsumexp(jll, axis=1, keepdims=True)
    finite = np.isfinite(jll).all(axis=1)
    got = score_rows(first, second, table, offsets, prior, extra=extra, mode=LOG_POSTERIOR)
    np.testing.assert_allclose(got[finite], log_post[finite], rtol=0, atol=1e-12)
    got = score_rows(first, second, table, offsets, prior, extra=extra, mode=POSTERIOR)
    np.testing.assert_allclose(got[finite], np.exp(log_post[finite]), rtol=0, atol=1e-12)
    assert np.isnan(got[np.isnan(jll).any(axis=1)]).all()


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("n_classes", [2, 20])
def test_every_layout_of_codes_scores_alike(layout, n_classes):
    first, second, table, offsets, prior, _ = problem(300, n_classes, 5, layout=layout)
    jll = reference_joint(first, second, table, offsets, prior, None)
    out = np.full((300, n_classes), np.nan, order="F")  # a non-contiguous output is written too
    score_rows(first, second, table, offsets, prior, mode=JOINT, out=out)
    np.testing.assert_array_equal(out, jll)
    no_second, three = second[:, :0], table[:offsets[3]]  # the first block alone
    np.testing.assert_array_equal(best_of_rows(first, no_second, three, offsets[:4], prior, np.arange(n_classes)),
                                  reference_best(reference_joint(first, no_second, three, offsets[:4], prior, None),
                                                 np.arange(n_classes)))


@pytest.mark.parametrize("n_classes, n_rows", CASES)
def test_scores_written_into_a_slice_leave_the_rows_around_it_alone(n_classes, n_rows):
    # whole vectors are stored where the output has room for them (their lanes past a row's classes fall on
    # the next row's): never past the rows asked for, which may be one partition's slice of a larger array
    first, second, table, offsets, prior, _ = problem(n_rows, n_classes, n_classes + n_rows)
    jll = reference_joint(first, second, table, offsets, prior, None)
    log_post = jll - logsumexp(jll, axis=1, keepdims=True)
    for mode, want in ((JOINT, jll), (LOG_POSTERIOR, log_post), (POSTERIOR, np.exp(log_post))):
        whole = np.full((n_rows + 2, n_classes), 7.0)
        score_rows(first, second, table, offsets, prior, mode=mode, out=whole[1:-1])
        np.testing.assert_array_equal(whole[[0, -1]], 7.0)
        np.testing.assert_allclose(whole[1:-1], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", ["C", "F"])
@pytest.mark.parametrize("n_classes", [20, 24, 40])
def test_a_table_too_large_to_share_positions_sums_a_block_at_a_time_alike(layout, n_classes):
    sizes = (60, 50, 40, 30, 20)  # 200 table rows: 200 x 24 or 40 padded classes, over SHARED_POSITIONS_BYTES
    first, second, table, offsets, prior, extra = problem(500, n_classes, 9, layout=layout, specials=True,
                                                          extra=True, sizes=sizes)
    assert padded_table(table, prior)[0].nbytes > SHARED_POSITIONS_BYTES >= padded_table(table[:50], prior)[0].nbytes
    jll = reference_joint(first, second, table, offsets, prior, extra)
    got = score_rows(first, second, table, offsets, prior, extra=extra, mode=JOINT)
    np.testing.assert_array_equal(got.view(np.int64), jll.view(np.int64))  # to the bit, NaN and -inf too
    order = np.arange(n_classes)[::-1].copy()
    np.testing.assert_array_equal(best_of_rows(first, second, table, offsets, prior, order, extra=extra),
                                  reference_best(jll, order))


def reference_evaluation(jll, truth, n_classes):
    """Confusion (ties to the first class), sum of log P(y|x), clipped log loss and the ROC histograms."""
    known = truth >= 0
    jll, truth = jll[known], truth[known]
    rows = np.arange(len(truth))
    log_post = jll - logsumexp(jll, axis=1, keepdims=True)
    confusion = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(confusion, (truth, reference_best(jll, np.arange(n_classes))), 1)
    eps = np.finfo(np.float64).eps
    loss = -np.log(np.clip(np.exp(log_post[rows, truth]), eps, 1 - eps)).sum()
    bits = histogram_bits(n_classes)
    if n_classes == 2:
        histogram = np.zeros((1, 2, n_score_bins(bits)))
        for i in rows:
            histogram[0, 0 if truth[i] == 1 else 1, score_bin(np.exp(jll[i, 1] - jll[i, 0]), bits)] += 1
        return confusion, log_post[rows, truth].sum(), loss, histogram
    top = jll.max(axis=1, keepdims=True)
    odds = np.where(jll == top, 1.0, np.exp(jll - top))
    total = np.zeros(len(truth))
    for k in range(n_classes):  # in class order
        total = total + odds[:, k]
    ratio = odds / (total[:, None] - odds)
    largest = np.argmax(jll, axis=1)
    rest = np.zeros(len(truth))
    for k in range(n_classes):
        rest = rest + np.where(largest == k, 0.0, odds[:, k])
    ratio[rows, largest] = odds[rows, largest] / rest
    histogram = np.zeros((n_classes, 2, n_score_bins(bits)))
    for i in rows:
        for k in range(n_classes):
            histogram[k, 0 if truth[i] == k else 1, score_bin(ratio[i, k], bits)] += 1
    return confusion, log_post[rows, truth].sum(), loss, histogram


@pytest.mark.parametrize("n_classes, n_rows, specials", [(2, 5000, False), (2, 5000, True), (3, 300, False),
                                                         (4, 500, False), (20, 7000, False), (40, 100, False)])
def test_evaluation_sums_equal_the_references(n_classes, n_rows, specials):
    first, second, table, offsets, prior, extra = problem(n_rows, n_classes, 11, extra=True, specials=specials)
    truth = np.random.default_rng(3).integers(-1, n_classes, n_rows)  # -1: unknown, left out
    confusion, log_likelihood, log_loss, histogram = evaluate_rows(first, second, table, offsets, prior,
                                                                   np.arange(n_classes), truth, extra=extra)
    jll = reference_joint(first, second, table, offsets, prior, extra)
    with np.errstate(invalid="ignore"):  # -inf less -inf: NaN, as in the kernel
        want = reference_evaluation(jll, truth, n_classes)
    np.testing.assert_array_equal(confusion, want[0])
    np.testing.assert_allclose([log_likelihood, log_loss], want[1:3], rtol=1e-12)
    if n_classes > 2:
        np.testing.assert_array_equal(histogram, want[3])
    else:  # binned by log-odds: the same bins as the odds' up to their shape within an octave
        # each row's bin, of width log(2) / 2**bits in log-odds, by numpy: NaN and infinities too
        half, known = SCORE_OCTAVES << histogram_bits(2), truth >= 0
        with np.errstate(invalid="ignore"):
            log_odds = jll[known, 1] - jll[known, 0]
            steps = np.clip(np.floor(log_odds * ((1 << histogram_bits(2)) / np.log(2))), -half, half - 1)
        bins = np.where(np.isnan(log_odds), half, half + np.nan_to_num(steps)).astype(np.int64)
        by_row = np.zeros_like(histogram)
        np.add.at(by_row, (0, (truth[known] != 1).astype(np.int64), bins), 1)
        np.testing.assert_array_equal(histogram, by_row)
        np.testing.assert_allclose(np.cumsum(histogram[0, 0])[::1 << histogram_bits(2)],
                                   np.cumsum(want[3][0, 0])[::1 << histogram_bits(2)], atol=2)
    without = evaluate_rows(first, second, table, offsets, prior, np.arange(n_classes), truth, extra=extra, roc=False)
    np.testing.assert_array_equal(without[0], confusion)  # the same sums, bit for bit, and no histogram
    np.testing.assert_array_equal(without[1:3], (log_likelihood, log_loss))  # NaN where the row sums hold NaN
    assert without[3] is None


@pytest.mark.parametrize("n_classes", [2, 20])
@pytest.mark.parametrize("where", ["first", "second", "last row"])
def test_a_code_outside_its_rows_is_counted_and_refused(n_classes, where):
    first, second, table, offsets, prior, _ = problem(70, n_classes, 2)
    first, second = first.copy(), second.copy()
    if where == "first":
        first[3, 1], first[4, 2] = 5, 255  # attribute 1 has 5 rows (codes 0..4), attribute 2 has 2
        expected = 2
    elif where == "second":
        second[10, 0] = 4  # 4 rows
        expected = 1
    else:
        second[69, 1] = 6  # 6 rows; the last row of a partial group
        expected = 1
    calls = [lambda: score_rows(first, second, table, offsets, prior, mode=mode) for mode in (JOINT, POSTERIOR)]
    calls += [lambda: best_of_rows(first, second, table, offsets, prior, np.arange(n_classes)),
              lambda: evaluate_rows(first, second, table, offsets, prior, np.arange(n_classes), np.zeros(70, int))]
    for call in calls:
        with pytest.raises(ValueError, match=f"^{expected} codes lie outside"):
            call()


def test_the_padded_table_holds_whole_vectors_of_classes():
    table = np.arange(5 * 20, dtype=np.float64).reshape(5, 20)
    flat, prior, lanes = padded_table(table, np.zeros(20))
    assert len(lanes) == vector_width(20) == 8 and flat.ctypes.data % 64 == 0
    rows = flat.reshape(5, 24)  # three blocks of 8 classes a row
    np.testing.assert_array_equal(rows[:, :20], table)
    assert not rows[:, 20:].any() and np.isneginf(prior[20:]).all()
    assert FAST_COLUMNS == 64 and vector_width(2) == 2
    three = padded_table(table[:, :3], np.zeros(3))
    assert len(three[2]) == vector_width(3) == 4 and three[0].shape == (5 * 4,) and np.isneginf(three[1][3])


@njit
def _lane_wise(function, values, out):
    for q in range(0, values.shape[0], 8):
        store(out, q, function(load(values, q, 8)))


@njit
def _exp_lanes(values, out):
    _lane_wise(exp, values, out)


@njit
def _log_lanes(values, out):
    _lane_wise(log, values, out)


def test_vector_exp_and_log_are_within_an_ulp_of_numpy():
    rng = np.random.default_rng(0)
    specials = [0.0, -0.0, 1.0, -745.13, -745.14, -708.39, -708.4, 709.78, 709.79, 1e300, -1e300, np.inf, -np.inf,
                np.nan, 5e-324, -1.0, 2.2250738585072014e-308, 1.7976931348623157e308]
    for function, reference, values in (
            (_exp_lanes, np.exp, np.concatenate([-rng.random(100_000) * 760, rng.uniform(-2, 2, 10_000), specials])),
            (_log_lanes, np.log, np.concatenate([np.exp(rng.uniform(-745, 709, 100_000)), rng.random(10_000) * 1e-310,
                                                 rng.uniform(0.5, 2, 10_000), specials]))):
        values = np.concatenate([values, np.ones(-len(values) % 8)])
        got = np.empty_like(values)
        function(values, got)
        with np.errstate(all="ignore"):
            want = reference(values)
        finite = np.isfinite(want) & (want != 0)
        assert (np.abs(got[finite] - want[finite]) <= np.spacing(np.abs(want[finite]))).all()
        np.testing.assert_array_equal(got[~finite], want[~finite])  # 0, infinities, NaN as numpy gives them
    one = np.zeros(8)
    _exp_lanes(one, one)
    assert (one == 1.0).all()  # the largest score's exponential is exactly 1


def test_a_block_without_columns_is_no_block_whatever_its_dtype():
    first, second, table, offsets, prior, _ = problem(40, 3, 4)
    none = np.empty((40, 0), dtype=np.float64)
    both = reference_joint(first, second, table, offsets, prior, None)
    np.testing.assert_array_equal(score_rows(none, np.column_stack([first, second]).astype(np.uint8), table, offsets,
                                             prior, mode=JOINT), both)
    three = table[:offsets[3]]
    np.testing.assert_array_equal(best_of_rows(first, none, three, offsets[:4], prior, np.arange(3)),
                                  reference_best(reference_joint(first, none, three, offsets[:4], prior, None),
                                                 np.arange(3)))


def test_roc_sums_count_the_pairs_of_each_curve():
    from nbparallel.kernels.scoring import roc_sums

    rng = np.random.default_rng(31)
    scores = rng.integers(0, 4, (5, 2, 300)).astype(np.float64)
    scores[:, :, rng.random(300) < 0.7] = 0.0  # most bins empty, as a histogram's are
    scores[3, 1] = 0.0  # a curve without negative rows
    got = roc_sums(scores)
    for c in range(5):
        pos = np.repeat(np.arange(300), scores[c, 0].astype(int))  # each row's bin
        neg = np.repeat(np.arange(300), scores[c, 1].astype(int))
        above = (pos[:, None] > neg[None, :]).sum()
        tied = (pos[:, None] == neg[None, :]).sum()
        np.testing.assert_array_equal(got[c], [above + 0.5 * tied, tied, len(pos), len(neg)])
    with pytest.raises(ValueError, match="positive and negative rows"):
        roc_sums(np.zeros((2, 3, 4)))

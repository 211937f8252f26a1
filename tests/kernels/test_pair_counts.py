"""The pair-counting kernel against a plain Python Counter of the rows: every pair cell, single count, class total,
all-missing weight and missing target, for uint8 and uint16 codes, with and without weights."""

from collections import Counter

import numpy as np
import pytest

from nbparallel.kernels.pair_counts import count_pairs, pair_row_starts


def counter_reference(codes, y, weights, n_classes):
    """``(pairs, singles, totals, all_missing, n_missing_target)`` as Counters of plain Python values, each weight
    added in row order: ``pairs[(c, i, j, x_i, x_j)]`` for i < j, missing codes (0) included."""
    pairs, singles, totals, all_missing = Counter(), Counter(), Counter(), Counter()
    n_missing_target = 0
    for n, row in enumerate(codes.tolist()):
        c = int(y[n])
        if c < 0:
            n_missing_target += 1
            continue
        w = 1 if weights is None else float(weights[n])
        totals[c] += w
        if not any(row):
            all_missing[c] += w
        for i, x_i in enumerate(row):
            singles[(c, i, x_i)] += w
            for j in range(i + 1, len(row)):
                pairs[(c, i, j, x_i, row[j])] += w
    return pairs, singles, totals, all_missing, n_missing_target


def random_rows(rng, n_rows, sizes, dtype, n_classes):
    """Codes of attributes with ``sizes`` values (0 missing, about one in six), classes with -1 missing."""
    codes = np.column_stack([rng.integers(0, m + 1, n_rows) for m in sizes]).astype(dtype)
    codes[rng.random(codes.shape) < 0.1] = 0
    codes[: n_rows // 10] = 0  # some rows with every value missing
    y = rng.integers(-1, n_classes, n_rows)
    return codes, y


@pytest.mark.parametrize("dtype, sizes", [(np.uint8, [3, 1, 4, 2, 5]), (np.uint16, [300, 2, 7]), (np.uint8, [4]),
                                          (np.uint8, [2, 6])])
@pytest.mark.parametrize("weighted", [False, True])
def test_kernel_counts_what_a_counter_counts(dtype, sizes, weighted):
    rng = np.random.default_rng(len(sizes) + weighted)
    n_classes = 3
    codes, y = random_rows(rng, 2001, sizes, dtype, n_classes)  # odd: the last row counted on its own
    weights = rng.random(len(y)) * 3 if weighted else None
    offsets = np.concatenate([[0], np.cumsum(np.asarray(sizes) + 1)]).astype(np.int64)
    singles, pairs, totals, all_missing, n_missing_target = count_pairs(codes, y, weights, offsets, n_classes)
    ref_pairs, ref_singles, ref_totals, ref_all_missing, ref_missing_target = counter_reference(codes, y, weights,
                                                                                              n_classes)
    starts, n_cells = pair_row_starts(offsets)
    expected = np.zeros((n_classes, n_cells))
    for (c, i, j, x_i, x_j), w in ref_pairs.items():
        expected[c, starts[offsets[i] + x_i] + offsets[j] + x_j] = w
    np.testing.assert_array_equal(pairs, expected)  # exact: both add each cell's weights in row order
    expected_singles = np.zeros((offsets[-1], n_classes))
    for (c, i, x), w in ref_singles.items():
        expected_singles[offsets[i] + x, c] = w
    np.testing.assert_array_equal(singles, expected_singles)
    np.testing.assert_array_equal(totals, [ref_totals[c] for c in range(n_classes)])
    np.testing.assert_array_equal(all_missing, [ref_all_missing[c] for c in range(n_classes)])
    assert n_missing_target == ref_missing_target > 0
    assert all_missing.sum() > 0


def test_every_cell_of_the_layout_belongs_to_one_pair_of_values():
    offsets = np.array([0, 3, 5, 9, 10], dtype=np.int64)
    starts, n_cells = pair_row_starts(offsets)
    cells = [starts[r] + s for i in range(4) for r in range(offsets[i], offsets[i + 1])
             for s in range(offsets[i + 1], offsets[-1])]
    assert sorted(cells) == list(range(n_cells))


def test_column_major_codes_count_as_row_major_ones():
    rng = np.random.default_rng(5)
    codes, y = random_rows(rng, 500, [4, 4, 4], np.uint8, 2)
    offsets = np.arange(0, 16, 5, dtype=np.int64)
    row_major = count_pairs(codes, y, None, offsets, 2)
    column_major = count_pairs(np.asfortranarray(codes), y, None, offsets, 2)
    for a, b in zip(row_major, column_major):
        np.testing.assert_array_equal(a, b)


def test_no_attributes_gives_class_totals_only():
    y = np.array([0, 1, 1, -1])
    singles, pairs, totals, all_missing, n_missing_target = count_pairs(
        np.zeros((4, 0), np.uint8), y, None, np.array([0], dtype=np.int64), 2)
    assert singles.shape == (0, 2) and pairs.shape == (2, 0)
    assert totals.tolist() == all_missing.tolist() == [1.0, 2.0] and n_missing_target == 1


@pytest.mark.parametrize("change, error", [
    (dict(codes=np.zeros((3, 2), np.int32)), TypeError),
    (dict(y=np.zeros(2, np.int64)), ValueError),
    (dict(y=np.zeros(3)), TypeError),
    (dict(weights=np.ones(3, np.float32)), TypeError),
    (dict(offsets=np.array([0, 2], dtype=np.int64)), ValueError),
    (dict(n_classes=0), ValueError),
])
def test_bad_arguments_are_refused(change, error):
    args = dict(codes=np.zeros((3, 2), np.uint8), y=np.zeros(3, np.int64), weights=None,
                offsets=np.array([0, 2, 4], dtype=np.int64), n_classes=2)
    args.update(change)
    with pytest.raises(error):
        count_pairs(**args)

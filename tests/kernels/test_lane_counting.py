"""Lane counting (vector compare-and-count of uint8 codes) against np.add.at, and through the public counts."""

import numpy as np
import pytest

from nbparallel.kernels import column_ranges, count_integers, count_integers_and_ranges, count_partition
from nbparallel.kernels.lane_counting import LANES, MAX_VALUES, MIN_ROWS, block_rows, count_lanes, lane_window

FLUSH_ROWS = 255 * LANES  # rows of one class that fill its byte counters


def reference(codes, y, offsets, shift, n_classes):
    """Counts (n_classes + 1, offsets[-1]) by np.add.at: row ``offsets[a] + code + shift[a]`` of each row's
    class block, the last block for a negative class."""
    block = np.where(y < 0, n_classes, y).astype(np.int64)
    counts = np.zeros((n_classes + 1, int(offsets[-1])), np.int64)
    for a in range(codes.shape[1]):
        np.add.at(counts, (block, offsets[a] + codes[:, a].astype(np.int64) + shift[a]), 1)
    return counts


def lanes(codes, y, offsets, shift, n_classes):
    """:func:`count_lanes` of the codes into a fresh table, shape (n_classes + 1, offsets[-1])."""
    window = lane_window(np.diff(offsets), shift)
    assert window is not None
    kernel_offsets = (offsets[:-1].astype(np.uint64) + shift.astype(np.uint64))  # modulo 2**64, as the kernels
    counts = np.zeros((n_classes + 1) * int(offsets[-1]), np.int64)
    count_lanes(codes, y, kernel_offsets, window, n_classes, counts)
    return counts.reshape(n_classes + 1, -1)


def random_case(rng, n_rows, sizes, n_classes, missing_target=0.0):
    """Codes 0 .. sizes[a] - 1 (0: missing) and classes, some negative."""
    sizes = np.asarray(sizes)
    codes = (rng.random((n_rows, len(sizes))) * sizes).astype(np.uint8)
    y = rng.integers(0, n_classes, n_rows)
    y[rng.random(n_rows) < missing_target] = -1
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return codes, y, offsets


@pytest.mark.parametrize("n_rows", [1, 63, 64, 65, "block - 1", "block", "block + 1", "3 blocks + 5"])
@pytest.mark.parametrize("n_cols", [1, 3, 20, 32, 33, 64, 65, 3000])
def test_lanes_match_add_at_around_block_and_row_sizes(n_rows, n_cols):
    block = block_rows(n_cols)
    sizes = {"block - 1": block - 1, "block": block, "block + 1": block + 1, "3 blocks + 5": 3 * block + 5}
    n_rows = sizes.get(n_rows, n_rows)
    rng = np.random.default_rng(n_rows * 100 + n_cols)
    codes, y, offsets = random_case(rng, n_rows, rng.integers(1, 12, n_cols), 2)
    shift = np.zeros(n_cols, np.int64)
    np.testing.assert_array_equal(lanes(codes, y, offsets, shift, 2), reference(codes, y, offsets, shift, 2))


@pytest.mark.parametrize("n_rows", [FLUSH_ROWS - 1, FLUSH_ROWS, FLUSH_ROWS + 1, 2 * FLUSH_ROWS + LANES + 1])
def test_byte_counters_flushed_before_they_overflow(n_rows):
    """One class and one value everywhere: every lane counts once per group of 64 rows, the most it can."""
    codes = np.ones((n_rows, 5), np.uint8)
    y = np.zeros(n_rows, np.int64)
    offsets = np.arange(6, dtype=np.int64) * 2
    shift = np.zeros(5, np.int64)
    got = lanes(codes, y, offsets, shift, 1)
    np.testing.assert_array_equal(got, reference(codes, y, offsets, shift, 1))
    assert got[0, 1] == n_rows


@pytest.mark.parametrize("n_classes, missing_target", [(1, 0.0), (2, 0.1), (3, 0.0), (5, 0.05)])
def test_lanes_any_classes_and_missing_targets(n_classes, missing_target):
    """Blocks of more than two classes, or with missing targets, take the general split."""
    rng = np.random.default_rng(n_classes)
    codes, y, offsets = random_case(rng, 2 * block_rows(4) + 77, [1, 4, 11, 7], n_classes, missing_target)
    shift = np.zeros(4, np.int64)
    np.testing.assert_array_equal(lanes(codes, y, offsets, shift, n_classes),
                                  reference(codes, y, offsets, shift, n_classes))


def test_lanes_of_classes_only_one_or_zero_in_a_block():
    """Blocks of class 1 only, of class 0 only, and mixed, in one call."""
    rng = np.random.default_rng(7)
    codes, _, offsets = random_case(rng, 3 * block_rows(2), [3, 5], 2)
    y = np.repeat([1, 0, 1], block_rows(2))
    y[-100:] = rng.integers(0, 2, 100)
    shift = np.zeros(2, np.int64)
    np.testing.assert_array_equal(lanes(codes, y, offsets, shift, 2), reference(codes, y, offsets, shift, 2))


@pytest.mark.parametrize("low, span", [(0, 1), (0, MAX_VALUES - 1), (200, 10), (240, 16), (250, 6), (255, 1)])
def test_lanes_of_integers_by_value_at_the_top_of_the_bytes(low, span):
    """Raw uint8 values ``low .. low + span - 1`` counted in rows ``1 + value - low`` (count_integers' shift)."""
    rng = np.random.default_rng(low + span)
    n_rows = block_rows(3) + 333
    X = (low + rng.integers(0, span, (n_rows, 3))).astype(np.uint8)
    y = rng.integers(0, 2, n_rows)
    offsets = np.arange(4, dtype=np.int64) * (span + 1)
    shift = np.full(3, 1 - low, np.int64)
    np.testing.assert_array_equal(lanes(X, y, offsets, shift, 2), reference(X, y, offsets, shift, 2))


def test_lane_window_refuses_wide_vocabularies():
    assert lane_window([MAX_VALUES + 1], [0]) is None
    assert lane_window([256], [0]) is None
    assert lane_window([5, MAX_VALUES], [0, 0]) == (0, MAX_VALUES, MAX_VALUES)


def table_reference(codes, y, weights, offsets, n_classes):
    """count_partition's table (offsets[-1], n_classes) by np.add.at, weighted."""
    table = np.zeros((int(offsets[-1]), n_classes))
    valid = y >= 0
    w = np.ones(len(y)) if weights is None else weights
    for a in range(codes.shape[1]):
        np.add.at(table, (offsets[a] + codes[valid, a].astype(np.int64), y[valid]), w[valid])
    return table


@pytest.mark.parametrize("sizes", [[1, 2, 10], [256, 3], [11] * 20])
@pytest.mark.parametrize("weighted", [False, True])
def test_count_partition_of_many_rows_matches_add_at(sizes, weighted):
    """Past MIN_ROWS unweighted uint8 codes are counted by lanes (wide vocabularies and weights not)."""
    rng = np.random.default_rng(len(sizes))
    n_rows = MIN_ROWS + 1234
    codes, y, offsets = random_case(rng, n_rows, sizes, 3, missing_target=0.01)
    weights = rng.integers(1, 5, n_rows).astype(np.float64) if weighted else None  # integers: sums exact
    table, totals, _, n_missing = count_partition(codes, np.empty((n_rows, 0)), y, weights, offsets,
                                                  np.empty((0, 0)), 3)
    expected = table_reference(codes, y, weights, offsets, 3)
    np.testing.assert_array_equal(table, expected)
    np.testing.assert_array_equal(totals, expected[: offsets[1]].sum(axis=0))
    assert n_missing == np.count_nonzero(y < 0)


def test_count_integers_same_table_for_any_partitioning():
    rng = np.random.default_rng(3)
    n_rows = 3 * MIN_ROWS
    X = rng.integers(5, 15, (n_rows, 7), dtype=np.uint8)
    y = rng.integers(0, 2, n_rows)
    offsets = np.arange(8, dtype=np.int64) * 11
    lo = [5] * 7
    whole, totals = count_integers(X, y, lo, offsets, 2)
    cuts = [0, MIN_ROWS + 17, 2 * MIN_ROWS + 1000, n_rows]
    pieces = [count_integers(X[a:b], y[a:b], lo, offsets, 2) for a, b in zip(cuts[:-1], cuts[1:])]
    np.testing.assert_array_equal(whole, sum(p[0] for p in pieces))
    np.testing.assert_array_equal(totals, np.bincount(y, minlength=2))
    expected = np.zeros_like(whole)
    for a in range(7):
        np.add.at(expected, (offsets[a] + 1 + X[:, a].astype(np.int64) - 5, y), 1)
    np.testing.assert_array_equal(whole, expected)


def ranges_then_count(X, y, n_classes):
    """``(lo, hi, table, class_totals)`` the plain way: column_ranges, then count_integers."""
    lo, hi = column_ranges(X)
    offsets = np.concatenate([[0], np.cumsum(hi - lo + 2)]).astype(np.int64)
    return (lo, hi) + count_integers(X, y, lo, offsets, n_classes)


def assert_same_counts(got, expected):
    assert got is not None
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("n_cols", [1, 3, 20, 33, 64, 65])
@pytest.mark.parametrize("low, span", [(0, 1), (1, 10), (0, MAX_VALUES), (224, MAX_VALUES), (250, 6)])
def test_count_integers_and_ranges_equals_ranges_then_count(n_cols, low, span):
    """Ranges found while counting: the same ranges and table as a range pass and count_integers."""
    rng = np.random.default_rng(n_cols * 1000 + low + span)
    n_rows = MIN_ROWS + block_rows(n_cols) + 77
    X = (low + rng.integers(0, span, (n_rows, n_cols))).astype(np.uint8)
    y = rng.integers(0, 3, n_rows)
    assert_same_counts(count_integers_and_ranges(X, y, 3), ranges_then_count(X, y, 3))


def test_count_integers_and_ranges_widens_the_window_for_later_blocks():
    """Later blocks holding values the first did not: lower, higher, and beyond any window (counted one code
    at a time), each column with a range of its own."""
    rng = np.random.default_rng(11)
    step = block_rows(4)
    X = rng.integers(10, 14, (6 * step + 5, 4)).astype(np.uint8)
    X[2 * step + 3, 1] = 4  # lower: the window widens down
    X[3 * step + 9, 2] = 30  # higher
    X[4 * step + 1, 0], X[4 * step + 2, 3] = 0, 255  # no window of MAX_VALUES holds this block
    y = rng.integers(0, 2, len(X))
    got = count_integers_and_ranges(X, y, 2)
    assert_same_counts(got, ranges_then_count(X, y, 2))
    assert got[0].tolist() == [0, 4, 10, 10] and got[1].tolist() == [13, 13, 30, 255]


def test_count_integers_and_ranges_declines_what_lanes_do_not_count():
    """None: a first block of values wider than any window, too few rows, other dtypes and layouts."""
    rng = np.random.default_rng(5)
    X = rng.integers(0, 256, (MIN_ROWS, 3)).astype(np.uint8)
    y = rng.integers(0, 2, MIN_ROWS)
    assert count_integers_and_ranges(X, y, 2) is None
    narrow = X % 8
    assert count_integers_and_ranges(narrow[: MIN_ROWS - 1], y[: MIN_ROWS - 1], 2) is None
    assert count_integers_and_ranges(narrow.astype(np.int16), y, 2) is None
    assert count_integers_and_ranges(np.asfortranarray(narrow), y, 2) is None
    assert count_integers_and_ranges(narrow, y, 2) is not None


def test_count_integers_and_ranges_checks_the_classes():
    X = np.zeros((MIN_ROWS, 2), np.uint8)
    with pytest.raises(ValueError, match="y has"):
        count_integers_and_ranges(X, np.zeros(MIN_ROWS - 1, np.int64), 2)
    with pytest.raises(ValueError, match="1-D"):
        count_integers_and_ranges(X, np.zeros((MIN_ROWS, 1), np.int64), 2)


@pytest.mark.parametrize("n_partitions", [1, 3, 8])
def test_fit_of_uint8_codes_counted_by_lanes_is_the_same_for_any_partitioning(n_partitions):
    """Partitions of many rows, each counted by lanes with its ranges found in the pass, one of them holding
    values outside the others' window: the counts of the same rows as int16, which lanes do not count."""
    from nbparallel import NaiveBayes

    rng = np.random.default_rng(21)
    X = rng.integers(3, 9, (8 * MIN_ROWS + 11, 4)).astype(np.uint8)
    X[5 * MIN_ROWS + 7, 2], X[6 * MIN_ROWS, 0] = 0, 200  # lower, and beyond any window with the others
    y = rng.integers(0, 2, len(X))
    model = NaiveBayes(categorical_features="all", n_partitions=n_partitions).fit(X, y)
    reference = NaiveBayes(categorical_features="all", n_partitions=1).fit(X.astype(np.int16), y)  # no lanes
    assert model.counts_.equals(reference.counts_)
    np.testing.assert_array_equal(model.counts_.class_totals, ranges_then_count(X, y, 2)[3])

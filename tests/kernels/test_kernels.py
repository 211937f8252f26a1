"""Tests of nbparallel.kernels against plain-Python references."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbparallel.kernels import CodeCounter, bin_values, count_partition, joint_log_likelihood, seen_values


def make_partition(rng, n_rows, cards, n_bins, code_dtype=np.uint8, order="C",
                   y_dtype=np.int64, n_classes=3, weighted=False):
    """Random partition with missing codes, NaN, +-inf, edge hits, -1 targets."""
    f_cat, f_num = len(cards), len(n_bins)
    codes = np.empty((n_rows, f_cat), code_dtype, order=order)
    for j, m in enumerate(cards):
        codes[:, j] = rng.integers(0, m + 1, n_rows)
    values = np.asarray(rng.uniform(-1.0, 3.0, (n_rows, f_num)), order=order)
    max_b = max(n_bins, default=1)
    edges = np.full((f_num, max(max_b - 1, 0)), np.inf)
    for j, b in enumerate(n_bins):
        lo, hi = (1.0, 1.0) if j == 1 else (-1.0, 3.0)  # column 1 is constant
        edges[j, : b - 1] = lo + (hi - lo) * np.arange(1, b) / b
        if j == 1:
            values[:, j] = lo
        special = rng.integers(0, 5, n_rows)
        values[special == 0, j] = np.nan
        if b > 1:
            on_edge = edges[j, rng.integers(0, b - 1, n_rows)]
            values[special == 1, j] = on_edge[special == 1]
        values[special == 2, j] = rng.choice([-np.inf, np.inf], n_rows)[special == 2]
    offsets = np.concatenate([[0], np.cumsum([m + 1 for m in cards] + [b + 1 for b in n_bins])])
    y = rng.integers(-1, n_classes, n_rows).astype(y_dtype)
    weights = rng.uniform(0.5, 2.0, n_rows) if weighted else None
    return codes, values, y, weights, offsets.astype(np.int64), edges


def reference_count(codes, values, y, weights, offsets, edges, n_classes):
    """Row-by-row reference using Counters and np.searchsorted."""
    f_cat, f_num = codes.shape[1], values.shape[1]
    cells, totals, all_missing = Counter(), Counter(), Counter()
    n_missing_target = 0
    for i in range(codes.shape[0]):
        k = int(y[i])
        if k < 0:
            n_missing_target += 1
            continue
        w = 1.0 if weights is None else weights[i]
        totals[k] += w
        present = False
        for j in range(f_cat):
            cells[offsets[j] + int(codes[i, j]), k] += w
            present |= codes[i, j] != 0
        for j in range(f_num):
            a = f_cat + j
            x = values[i, j]
            if np.isnan(x):
                cells[offsets[a], k] += w
                continue
            n_edges = offsets[a + 1] - offsets[a] - 2
            b = np.searchsorted(edges[j, :n_edges], x, side="left")
            cells[offsets[a] + 1 + b, k] += w
            present = True
        if not present:
            all_missing[k] += w
    table = np.zeros((offsets[-1], n_classes))
    for (r, k), w in cells.items():
        table[r, k] = w
    as_array = lambda c: np.array([c[k] for k in range(n_classes)], float)  # noqa: E731
    return table, as_array(totals), as_array(all_missing), n_missing_target


def assert_same_counts(got, expected):
    for g, e in zip(got[:3], expected[:3]):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
        assert g.dtype == np.float64
    assert got[3] == expected[3] and isinstance(got[3], int)


@pytest.mark.parametrize("code_dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("weighted", [False, True])
def test_count_partition_matches_reference(code_dtype, order, weighted):
    rng = np.random.default_rng(1)
    cards = [3, 1, 300 if code_dtype == np.uint16 else 7]
    args = make_partition(rng, 500, cards, [4, 3, 1, 2], code_dtype, order,
                          weighted=weighted)
    assert_same_counts(count_partition(*args, 3), reference_count(*args, 3))


@pytest.mark.parametrize("y_dtype", [np.int8, np.int16, np.int32])
def test_count_partition_target_dtypes_and_float32_values(y_dtype):
    rng = np.random.default_rng(2)
    codes, values, y, _, offsets, edges = make_partition(rng, 300, [2], [5], y_dtype=y_dtype)
    values32 = values.astype(np.float32)
    got = count_partition(codes, values32, y, None, offsets, edges, 3)
    assert_same_counts(got, reference_count(codes, values32, y, None, offsets, edges, 3))


def test_count_partition_strided_views():
    rng = np.random.default_rng(3)
    codes, values, y, w, offsets, edges = make_partition(rng, 400, [4, 5], [3], weighted=True)
    wide_codes = np.zeros((800, 3), np.uint8)
    wide_codes[::2, 1:] = codes
    wide_values = np.zeros((400, 2))
    wide_values[:, 1:] = values
    got = count_partition(wide_codes[::2, 1:], wide_values[:, 1:], y[:, None][:, 0],
                          w, offsets, edges, 3)
    assert_same_counts(got, reference_count(codes, values, y, w, offsets, edges, 3))


@pytest.mark.parametrize("cards,n_bins", [([], [4, 2]), ([3, 2], []), ([], [])])
def test_count_partition_no_categorical_or_no_numeric(cards, n_bins):
    rng = np.random.default_rng(4)
    args = make_partition(rng, 200, cards, n_bins)
    got = count_partition(*args, 3)
    assert_same_counts(got, reference_count(*args, 3))
    if not cards and not n_bins:  # no attributes: every valid row is all-missing
        np.testing.assert_array_equal(got[2], got[1])


@pytest.mark.parametrize("n_bins", [[4, 3, 6, 1], [4, 3, 300, 1]])  # pairs of attributes share a table; 300: not
@pytest.mark.parametrize("irregular", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_count_partition_values_over_many_blocks(n_bins, irregular, weighted):
    """Numeric values are binned a block of rows at a time into a code buffer: counts over several blocks and a
    partial last one, equal-width and irregular edges, uint8 and uint16 codes, equal the reference's."""
    from nbparallel.kernels.counting import VALUE_BLOCK_CELLS

    rng = np.random.default_rng(6)
    n_rows = 2 * (VALUE_BLOCK_CELLS // len(n_bins)) + 7
    codes, values, y, w, offsets, edges = make_partition(rng, n_rows, [5], n_bins, weighted=weighted)
    if irregular:  # edges no longer equal-width: each value's bin found by counting or bisecting the edges
        edges[0, :3] = [-0.9, 0.0, 2.9]
        edges[2, : n_bins[2] - 1] = np.sort(rng.uniform(-1.0, 3.0, n_bins[2] - 1))
    got = count_partition(codes, values, y, w, offsets, edges, 3)
    assert_same_counts(got, reference_count(codes, values, y, w, offsets, edges, 3))


def test_count_partition_empty_partition():
    rng = np.random.default_rng(5)
    args = make_partition(rng, 0, [3], [4], weighted=True)
    table, totals, all_missing, n_missing = count_partition(*args, 2)
    assert table.shape == (args[4][-1], 2) and not table.any()
    assert not totals.any() and not all_missing.any() and n_missing == 0


def test_all_missing_rows():
    codes = np.array([[0, 0], [1, 0], [0, 0], [0, 2], [0, 0]], np.uint8)
    values = np.array([[np.nan], [np.nan], [1.0], [np.nan], [np.nan]])
    y = np.array([0, 1, 1, 0, -1])
    weights = np.array([2.0, 1.0, 1.0, 1.0, 5.0])
    offsets = np.array([0, 3, 6, 9], np.int64)
    edges = np.array([[0.5]])
    _, totals, all_missing, n_missing = count_partition(codes, values, y, weights, offsets, edges, 2)
    np.testing.assert_array_equal(all_missing, [2.0, 0.0])
    np.testing.assert_array_equal(totals, [3.0, 2.0])
    assert n_missing == 1


def test_clean_data_has_no_all_missing():
    rng = np.random.default_rng(6)
    codes = rng.integers(1, 4, (100, 2)).astype(np.uint8)
    codes[:50, 0] = 0  # only one attribute has missing values
    offsets = np.array([0, 4, 8], np.int64)
    got = count_partition(codes, np.empty((100, 0)), np.zeros(100, np.int64), None,
                          offsets, np.empty((0, 0)), 1)
    assert not got[2].any()


def test_edges_need_not_be_equal_width():
    rng = np.random.default_rng(7)
    edges = np.array([[-5.0, -0.1, 0.0, 0.2, 7.0, np.inf]])  # 6 bins, padded
    values = np.concatenate([rng.normal(0, 3, 500), edges[0, :5], [-np.inf, np.inf, np.nan]])[:, None]
    offsets = np.array([0, 7], np.int64)
    y = np.zeros(values.shape[0], np.int64)
    codes = np.empty((values.shape[0], 0), np.uint8)
    got = count_partition(codes, values, y, None, offsets, edges, 1)
    assert_same_counts(got, reference_count(codes, values, y, None, offsets, edges, 1))


@settings(max_examples=30, deadline=None)
@given(n_rows=st.integers(0, 60), split=st.floats(0, 1), seed=st.integers(0, 2**32 - 1),
       weighted=st.booleans())
def test_counting_is_additive_over_row_splits(n_rows, split, seed, weighted):
    rng = np.random.default_rng(seed)
    codes, values, y, w, offsets, edges = make_partition(rng, n_rows, [2, 3], [3, 1, 4],
                                                         weighted=weighted)
    cut = int(split * n_rows)
    part = lambda s: count_partition(  # noqa: E731
        codes[s], values[s], y[s], None if w is None else w[s], offsets, edges, 3)
    whole, head, tail = part(slice(None)), part(slice(None, cut)), part(slice(cut, None))
    for a, b, c in zip(whole[:3], head[:3], tail[:3]):
        np.testing.assert_allclose(a, b + c, rtol=1e-12, atol=1e-12)
    assert whole[3] == head[3] + tail[3]


def test_bin_values_matches_searchsorted():
    rng = np.random.default_rng(8)
    edges = np.full((3, 4), np.inf)
    edges[0] = [-1.0, 0.0, 0.5, 2.0]
    edges[1, :2] = [1.0, 1.0]
    n_bins = np.array([5, 3, 1], np.int64)
    values = rng.normal(0, 2, (300, 3))
    values[:4, 0] = edges[0]
    values[5:8] = [[np.nan, -np.inf, np.inf]] * 3
    values[8:10, 1] = 1.0
    got = bin_values(np.asfortranarray(values), edges, n_bins)
    assert got.dtype == np.uint8
    for j in range(3):
        expected = 1 + np.searchsorted(edges[j, : n_bins[j] - 1], values[:, j], side="left")
        expected[np.isnan(values[:, j])] = 0
        np.testing.assert_array_equal(got[:, j], expected)
    wide = bin_values(values[:, :1], np.linspace(0, 1, 299)[None, :], np.array([300]))
    assert wide.dtype == np.uint16


def test_bin_values_of_equal_width_edges_match_searchsorted():
    # a fit's edges (every model's, before empty bins merge) are binned by a guess per value and a correction
    # against the two neighbouring edges: the same bins as a search, at the edges and one float past them,
    # for ranges of every scale, one value (width 0), many bins, NaN, infinities, float32 and any layout
    from nbparallel.data.schema import Attribute
    from nbparallel.kernels.binning import binning_setup

    rng = np.random.default_rng(21)
    for trial in range(40):
        f = int(rng.integers(1, 5))
        n_bins = rng.integers(1, 300 if trial % 5 == 0 else 40, f).astype(np.int64)
        lo = rng.normal(size=f) * 10.0 ** rng.integers(-3, 4, f)
        hi = lo + rng.exponential(size=f) * 10.0 ** rng.integers(-3, 4, f)
        if trial % 4 == 0:
            hi[0] = lo[0]
        edges = np.full((f, max(int(n_bins.max()) - 1, 0)), np.inf)
        for j in range(f):
            inner = Attribute("a", "numeric", lo=lo[j], hi=hi[j], n_bins=int(n_bins[j])).edges()
            edges[j, : len(inner)] = inner
        assert binning_setup(edges, n_bins)[3]  # the guess path
        values = lo + (hi - lo) * rng.uniform(-0.2, 1.2, size=(700, f))
        values[rng.random(values.shape) < 0.05] = np.nan
        values[0, 0], values[1, 0] = np.inf, -np.inf
        for j in range(f):
            k = int(n_bins[j]) - 1
            values[2 : 2 + k, j] = edges[j, :k]
            values[2 + k : 2 + 2 * k, j] = np.nextafter(edges[j, :k], np.inf)
        for dtype in (np.float64, np.float32):
            typed = values.astype(dtype)
            for layout in (typed, np.asfortranarray(typed), typed[::-2]):
                got = bin_values(layout, edges, n_bins)
                for j in range(f):
                    column = layout[:, j].astype(np.float64)
                    expected = 1 + np.searchsorted(edges[j, : n_bins[j] - 1], column, side="left")
                    expected[np.isnan(column)] = 0
                    np.testing.assert_array_equal(got[:, j], expected)


def test_joint_log_likelihood_matches_numpy():
    rng = np.random.default_rng(9)
    offsets = np.array([0, 4, 6, 300], np.int64)
    codes = np.column_stack([rng.integers(0, 4, 50), rng.integers(0, 2, 50),
                             rng.integers(0, 294, 50)]).astype(np.uint16)
    log_table = np.log(rng.uniform(0.1, 1.0, (300, 3)))
    log_prior = np.log([0.2, 0.3, 0.5])
    expected = log_prior + sum(log_table[offsets[a] + codes[:, a].astype(int)] for a in range(3))
    got = joint_log_likelihood(np.asfortranarray(codes), log_table, offsets, log_prior)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int32, np.int64, np.uint64])
def test_seen_values_matches_unique(dtype):
    rng = np.random.default_rng(10)
    info = np.iinfo(dtype)
    small = rng.integers(max(info.min, -50), 100, 1000).astype(dtype)
    np.testing.assert_array_equal(seen_values(small), np.unique(small))
    assert seen_values(small).dtype == dtype
    extremes = np.array([info.max, info.min, info.max, 0], dtype)
    np.testing.assert_array_equal(seen_values(extremes), np.unique(extremes))
    assert seen_values(extremes[:0]).shape == (0,)


def test_seen_values_bool():
    np.testing.assert_array_equal(seen_values(np.array([True, True])), [True])
    assert seen_values(np.array([True, False])).dtype == np.bool_


def test_bad_arguments_name_the_parameter():
    rng = np.random.default_rng(11)
    codes, values, y, _, offsets, edges = make_partition(rng, 10, [2], [3])
    good = dict(codes=codes, values=values, y=y, weights=None, offsets=offsets,
                edges=edges, n_classes=3)
    bad = [
        ("codes", codes.astype(np.int32), TypeError),
        ("codes", codes[:, 0], ValueError),
        ("values", np.zeros(values.shape, np.int64), TypeError),
        ("values", values[:5], ValueError),
        ("y", y.astype(float), TypeError),
        ("y", y[:5], ValueError),
        ("weights", np.ones(5), ValueError),
        ("weights", np.ones(10, np.float32), TypeError),
        ("offsets", offsets[:-1], ValueError),
        ("offsets", offsets.astype(np.int32), TypeError),
        ("edges", edges[:, :1], ValueError),
        ("n_classes", 0, ValueError),
        ("n_classes", 2.0, TypeError),
    ]
    for name, value, error in bad:
        with pytest.raises(error, match=name):
            count_partition(**{**good, name: value})
    with pytest.raises(ValueError, match="n_bins"):
        bin_values(values, edges, np.array([3, 3], np.int64))
    with pytest.raises(ValueError, match="log_table"):
        joint_log_likelihood(codes, np.zeros((2, 2)), offsets[:2], np.zeros(2))
    with pytest.raises(TypeError, match="column"):
        seen_values(np.zeros(3))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.int64, np.uint64])
def test_column_ranges_match_numpy(dtype):
    from nbparallel.kernels import column_ranges

    rng = np.random.default_rng(5)
    X = rng.integers(-3 if np.dtype(dtype).kind == "i" else 0, 100, (1001, 7)).astype(dtype)
    info = np.iinfo(dtype)
    X[500, 1], X[999, 1], X[17, 4] = info.min, info.max, info.max  # the dtype's extremes, in the folded rows and the tail
    for layout in (X, X[:992], X[:5], np.asfortranarray(X), np.asfortranarray(X)[3:900], X[:, ::2],
                   X[:, 1:2].copy(), X[:, 1:2], X[:, 1][:, None]):  # one column: C, strided, a view
        lo, hi = column_ranges(layout)
        np.testing.assert_array_equal(lo, layout.min(axis=0))
        np.testing.assert_array_equal(hi, layout.max(axis=0))
    with pytest.raises(TypeError, match="integers or floats"):
        column_ranges(X.astype(str))
    with pytest.raises(ValueError, match="one row"):
        column_ranges(X[:0])


def test_column_ranges_of_floats_skip_nan():
    from nbparallel.kernels import column_ranges

    X = np.array([[np.nan, 1.0, np.nan], [2.0, -np.inf, np.nan], [-1.5, 3.0, np.nan]])
    lo, hi = column_ranges(X)
    np.testing.assert_array_equal(lo, [-1.5, -np.inf, np.inf])
    np.testing.assert_array_equal(hi, [2.0, 3.0, -np.inf])
    lo, hi = column_ranges(np.empty((0, 2)))
    assert np.all(lo == np.inf) and np.all(hi == -np.inf)


@pytest.mark.parametrize("f_cat", [2, 3, 6, 7])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_paired_counting_equals_one_attribute_at_a_time(f_cat, weighted, dtype):
    from nbparallel.kernels.counting import _count_codes, _count_codes_kernel

    rng = np.random.default_rng(f_cat)
    sizes = rng.integers(2, 40, f_cat) if dtype == np.uint8 else rng.integers(2, 300, f_cat)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n, K = 2000, 3
    codes = np.column_stack([rng.integers(0, s, n) for s in sizes]).astype(dtype)
    y = rng.integers(-1, K, n).astype(np.int32)
    weights = rng.random(n) * 3 if weighted else None
    dtype_counts = np.float64 if weighted else np.int32
    single = np.zeros((K + 1, offsets[-1]), dtype_counts)
    _count_codes_kernel(codes, y, weights, offsets, K, single.ravel())
    paired = np.zeros_like(single)
    _count_codes(np.asfortranarray(codes), y, weights, offsets, K, paired)  # pairs, or the fallback when large
    np.testing.assert_allclose(paired, single, rtol=1e-12)
    if not weighted:
        np.testing.assert_array_equal(paired, single)


def test_best_classes_breaks_ties_by_the_given_order():
    from nbparallel.kernels import best_classes

    jll = np.array([[0.0, 0.0, -1.0], [-2.0, 1.0, 1.0], [-np.inf, -3.0, -np.inf], [5.0, 4.0, 5.0]])
    np.testing.assert_array_equal(best_classes(jll, np.array([0, 1, 2])), [0, 1, 1, 0])
    np.testing.assert_array_equal(best_classes(jll, np.array([2, 1, 0])), [1, 2, 1, 2])
    rng = np.random.default_rng(0)
    random = rng.normal(size=(500, 4))
    np.testing.assert_array_equal(best_classes(random, np.arange(4)), random.argmax(axis=1))
    with pytest.raises(ValueError, match="order"):
        best_classes(random, np.arange(3))


@pytest.mark.parametrize("sizes, dtype", [([4, 7, 3], np.uint8), ([4, 7, 3, 9], np.uint8), ([300, 70], np.uint16),
                                          ([5], np.uint8)])
def test_code_counter_over_blocks_equals_one_kernel_call(sizes, dtype):
    """Paired (small) and unpaired (large) layouts, odd and even attribute counts, blocks of uneven sizes."""
    rng = np.random.default_rng(len(sizes))
    n, n_classes = 1000, 3
    offsets = np.concatenate([[0], np.cumsum(np.array(sizes) + 1)]).astype(np.int64)
    codes = np.column_stack([rng.integers(0, m + 1, n) for m in sizes]).astype(dtype)  # 0 = missing
    y = rng.integers(0, n_classes, n)
    counter = CodeCounter(offsets, n_classes)
    for start, stop in ((0, 1), (1, 400), (400, 400), (400, n)):
        counter.add(np.asfortranarray(codes[start:stop]), y[start:stop])
    expected = count_partition(codes, np.empty((n, 0)), y, None, offsets, np.empty((0, 0)), n_classes)[0]
    np.testing.assert_array_equal(counter.table(), expected)
    plain = Counter((offsets[j] + int(codes[i, j]), int(y[i])) for i in range(n) for j in range(len(sizes)))
    assert all(counter.table()[r, c] == k for (r, c), k in plain.items())
    with pytest.raises(ValueError, match="columns"):
        counter.add(codes[:, :1].copy() if len(sizes) > 1 else np.hstack([codes, codes]), y)
    with pytest.raises(TypeError, match="y must have an integer dtype"):
        counter.add(codes, y.astype(float))


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint32, np.int64])
def test_columns_values_match_numpys_unique(dtype):
    from nbparallel.kernels import column_ranges, columns_values

    rng = np.random.default_rng(11)
    info = np.iinfo(dtype)
    X = rng.integers(0, 9, (700, 4)).astype(dtype)
    X[::3, 1] = info.min  # a column from the dtype's minimum
    X[5, 2] = info.max
    X[:, 3] = 7  # one value
    for layout in (X, np.asfortranarray(X), X[::2, ::-1]):
        seen = columns_values(layout, *column_ranges(layout))
        for j in range(layout.shape[1]):
            if seen[j] is None:  # a span too wide for flags: the dtype's extremes of the wide dtypes
                assert int(layout[:, j].max()) - int(layout[:, j].min()) >= 2**20
                continue
            assert seen[j].dtype == dtype
            np.testing.assert_array_equal(seen[j], np.unique(layout[:, j]))
    with pytest.raises(TypeError, match="uint64"):
        columns_values(X.astype(np.uint64), *column_ranges(X))
    lo, hi = column_ranges(X)
    assert columns_values(X, lo, np.where([True, True, True, False], hi, lo - 1))[3] is None  # not read
    with pytest.raises(ValueError, match="outside the column ranges"):  # no write out of bounds either
        columns_values(X, lo + 1, hi)


def test_columns_values_stop_flagging_once_every_value_is_seen_and_still_check_the_rest():
    from nbparallel.kernels import column_ranges, columns_values

    rows = np.arange(2000)
    codes = np.stack([rows % 5 + 1, rows, 3 * rows % 5 + 1], axis=1).astype(np.uint8)  # 1..5 in the first rows
    codes[:, 1] = 7  # one value
    lo, hi = column_ranges(codes)
    assert [v.tolist() for v in columns_values(codes, lo, hi)] == [[1, 2, 3, 4, 5], [7], [1, 2, 3, 4, 5]]
    for row, column, value in ((-1, 0, 6), (-1, 1, 6), (300, 2, 0)):  # outside, rows after the ranges are full
        bad = codes.copy()
        bad[row, column] = value
        for layout in (bad, np.asfortranarray(bad), np.repeat(bad, 2, axis=0)[::2]):  # every layout checked
            with pytest.raises(ValueError, match="outside the column ranges"):
                columns_values(layout, lo, hi)
        assert columns_values(bad, *column_ranges(bad))[column].tolist() == sorted(set(bad[:, column].tolist()))
    unread = np.where([True, False, True], hi, lo - 1)  # a column not read is not checked either
    bad = codes.copy()
    bad[-1, 1] = 9
    assert columns_values(bad, lo, unread)[1] is None

"""PairCounts: + and - and the empty value, the JSON round trip, the same counts for any split of the rows, the
pair view against a direct count, and a partition's counts against naive Bayes' count table of the same rows."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbparallel import NaiveBayes
from nbparallel.summaries.counts import CountSpec
from nbparallel.summaries.pair_counts import PairCounts, count_pair_rows, pair_cells
from nbparallel.summaries.protocol import merge_summaries

SIZES = [3, 1, 4, 2]
OFFSETS = np.concatenate([[0], np.cumsum(np.asarray(SIZES) + 1)]).astype(np.int64)
N_CLASSES = 3


def rows(seed, n_rows=300):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, m + 1, n_rows) for m in SIZES]).astype(np.uint8)
    return codes, rng.integers(-1, N_CLASSES, n_rows), rng.integers(0, 4, n_rows).astype(np.float64)


def counted(codes, y, w=None):
    return PairCounts.of_codes(codes, y, w, OFFSETS, N_CLASSES)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.lists(st.integers(0, 300), max_size=6), st.booleans())
def test_any_split_of_the_rows_sums_to_the_whole(seed, cuts, weighted):
    codes, y, w = rows(seed)
    w = w if weighted else None  # integer weights: every float sum exact
    bounds = [0, *sorted(cuts), len(y)]
    parts = [counted(codes[a:b], y[a:b], None if w is None else w[a:b]) for a, b in zip(bounds, bounds[1:])]
    whole = counted(codes, y, w)
    assert merge_summaries(*parts).equals(whole)
    assert merge_summaries(*parts[::-1]).equals(whole)
    for part in parts:
        assert (whole - part).equals(merge_summaries(*[p for p in parts if p is not part],
                                                     PairCounts.empty(OFFSETS, N_CLASSES)))


def test_empty_is_the_identity_and_subtraction_the_inverse():
    a, b = counted(*rows(1)[:2]), counted(*rows(2)[:2])
    empty = PairCounts.empty(OFFSETS, N_CLASSES)
    assert (a + empty).equals(a) and (empty + a).equals(a)
    assert ((a + b) - b).equals(a) and not (a + b).equals(a)
    assert (a - a).equals(empty)


def test_json_round_trip_is_exact():
    summary = counted(*rows(3))
    back = PairCounts.from_dict(json.loads(json.dumps(summary.to_dict())))
    assert back.equals(summary)


def test_from_dict_refuses_bad_pair_tables():
    data = counted(*rows(4)[:2]).to_dict()
    with pytest.raises(ValueError, match="shape"):
        PairCounts.from_dict({**data, "pairs": [row[:-1] for row in data["pairs"]]})
    negative = [[-1.0] + row[1:] for row in data["pairs"]]
    with pytest.raises(ValueError, match="negative"):
        PairCounts.from_dict({**data, "pairs": negative})


def test_adding_another_type_or_layout_is_refused():
    summary = counted(*rows(5)[:2])
    with pytest.raises(TypeError):
        summary + summary.counts
    with pytest.raises(ValueError):
        summary + PairCounts.empty(OFFSETS[:-1], N_CLASSES)


def test_pair_view_holds_each_pair_of_present_values_of_each_class():
    codes, y, _ = rows(6)
    summary = counted(codes, y)
    for i in range(len(SIZES)):
        for j in range(len(SIZES)):
            if i == j:
                continue
            expected = np.zeros((N_CLASSES, SIZES[i], SIZES[j]))
            for row, c in zip(codes, y):
                if c >= 0 and row[i] and row[j]:
                    expected[c, row[i] - 1, row[j] - 1] += 1
            np.testing.assert_array_equal(summary.pair(i, j), expected)
            assert summary.pair(i, j, missing=True).shape == (N_CLASSES, SIZES[i] + 1, SIZES[j] + 1)
    with pytest.raises(ValueError, match="two different attributes"):
        summary.pair(1, 1)


def test_pair_cells_counts_what_a_summary_holds():
    summary = PairCounts.empty(OFFSETS, N_CLASSES)
    assert pair_cells(OFFSETS, N_CLASSES) == summary.pairs.size + summary.counts.table.size


def test_a_partition_counts_its_single_attributes_as_naive_bayes_does():
    rng = np.random.default_rng(7)
    X = pd.DataFrame({"a": rng.choice(["x", "y", None], 400), "b": rng.choice(["p", "q", "r"], 400),
                      "n": rng.normal(size=400)})
    y = rng.choice(["u", "v"], 400)
    w = rng.integers(0, 3, 400).astype(float)
    model = NaiveBayes(n_bins=4).fit(X, y, sample_weight=w)
    summary = count_pair_rows(CountSpec.of(model.schema_), None, X, y, w)
    assert summary.counts.equals(model.counts_)
    codes = model.schema_.encode(X)[0]
    binned = np.clip(np.searchsorted(model.schema_.count_edges()[0, :3], X["n"], side="left"), 0, 3) + 1
    expected = np.zeros((2, 3, 4))
    for a, n, c, wt in zip(codes[:, 1], binned, model.schema_.encode_classes(y), w):
        expected[c, a - 1, n - 1] += wt
    np.testing.assert_array_equal(summary.pair(1, 2), expected)

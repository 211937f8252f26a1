"""The summary protocol: merge laws of every summary type, the one merge, JSON forms."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbparallel.summaries.counts import CountTable, merge_tables
from nbparallel.summaries.evaluation import Evaluation
from nbparallel.summaries.features import FeatureCounts
from nbparallel.summaries.protocol import Summary, merge_summaries

OFFSETS = np.array([0, 3, 7])
K, F = 3, 5


def _ints(n, high=2**40):
    return st.lists(st.integers(0, high), min_size=n, max_size=n).map(lambda v: np.array(v, dtype=float))


@st.composite
def count_tables(draw):
    totals = draw(_ints(K))
    return CountTable(draw(_ints(int(OFFSETS[-1]) * K)).reshape(-1, K), OFFSETS, totals,
                      np.array([draw(st.integers(0, int(t))) for t in totals], dtype=float), draw(st.integers(0, 99)))


@st.composite
def feature_counts(draw):
    return FeatureCounts(draw(_ints(K)), draw(_ints(K * F)).reshape(K, F))


@st.composite
def evaluations(draw):
    # log-likelihoods that are multiples of 1/8 add exactly, like integer counts
    return Evaluation(draw(_ints(K * K, 2**30)).astype(np.int64).reshape(K, K),
                      -draw(st.integers(0, 2**30)) / 8)


EMPTY = {CountTable: lambda: CountTable.empty(OFFSETS, K), FeatureCounts: lambda: FeatureCounts.empty(K, F),
         Evaluation: lambda: Evaluation.empty(K)}
STRATEGIES = [count_tables(), feature_counts(), evaluations()]


@pytest.mark.parametrize("strategy", STRATEGIES, ids=["CountTable", "FeatureCounts", "Evaluation"])
def test_merge_laws(strategy):
    @settings(max_examples=40, deadline=None)
    @given(strategy, strategy, strategy)
    def laws(a, b, c):
        assert isinstance(a, Summary)
        assert (a + b).equals(b + a)
        assert ((a + b) + c).equals(a + (b + c))
        assert merge_summaries(a, b, c).equals((a + b) + c)
        empty = EMPTY[type(a)]()
        assert (a + empty).equals(a) and (empty + a).equals(a)
        again = type(a).from_dict(json.loads(json.dumps(a.to_dict())))
        assert again.equals(a)

    laws()


def test_count_table_plus_is_its_merge_and_merge_tables_still_works():
    a = CountTable(np.arange(21.0).reshape(7, 3), OFFSETS, np.full(3, 10.0), np.zeros(3))
    assert (a + a).equals(a.merge(a)) and merge_tables(a, a, a).equals(a + a + a)
    np.testing.assert_array_equal((a + a).table, 2 * np.arange(21.0).reshape(7, 3))


def test_summaries_of_different_types_or_layouts_do_not_add():
    with pytest.raises(TypeError, match="cannot add a Evaluation to a FeatureCounts"):
        FeatureCounts.empty(2, 3) + Evaluation.empty(2)
    with pytest.raises(ValueError, match="shapes"):
        FeatureCounts.empty(2, 3) + FeatureCounts.empty(2, 4)
    with pytest.raises(ValueError, match="at least one"):
        merge_summaries()


def test_merge_summaries_adds_floats_left_to_right():
    parts = [Evaluation.empty(1).__class__(np.zeros((1, 1), dtype=np.int64), v) for v in (1e16, 1.0, -1e16)]
    assert merge_summaries(*parts).log_likelihood == (1e16 + 1.0) - 1e16  # the order of the arguments


def test_evaluation_report_by_hand():
    report = Evaluation(np.array([[3, 1], [0, 4]]), -2.0).report()
    assert report["accuracy"] == 7 / 8 and report["n_rows"] == 8 and report["average_log_likelihood"] == -0.25


def test_feature_counts_json_holds_only_the_nonzero_cells():
    fc = FeatureCounts(np.array([2.0, 1.0]), np.zeros((2, 1000)))
    fc.feature_count[1, 7] = 3.0
    d = fc.to_dict()
    assert d["nonzero_index"] == [1007] and d["nonzero_value"] == [3.0]
    with pytest.raises(ValueError, match="inconsistent"):
        FeatureCounts.from_dict({**d, "nonzero_index": [2000]})


@pytest.mark.parametrize("strategy", [count_tables(), feature_counts()], ids=["CountTable", "FeatureCounts"])
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_subtraction_is_the_inverse_of_the_merge(strategy, data):
    """(a + b) - b == a exactly for integer counts: what cross-validation's total - fold_i relies on."""
    a, b = data.draw(strategy), data.draw(strategy)
    rest = (a + b) - b
    assert rest.equals(a)
    assert np.array_equal(rest.class_weights, a.class_weights)


def test_class_columns_take_the_summary_of_those_classes():
    """A K * k-class summary's fold i is its columns i*K .. (i+1)*K - 1, for every summary cross-validation uses."""
    from nbparallel.summaries.moments import CountsAndMoments, GaussianMoments

    rng = np.random.default_rng(0)
    table = CountTable(rng.integers(0, 9, (7, 6)).astype(float), OFFSETS, rng.integers(20, 30, 6).astype(float),
                       rng.integers(0, 3, 6).astype(float))
    moments = GaussianMoments(rng.random((6, 2)) + 1, rng.random((6, 2)), rng.random((6, 2)), np.zeros(6))
    both = CountsAndMoments(table, moments).class_columns(slice(3, 6))
    assert np.array_equal(both.counts.table, table.table[:, 3:]) and np.array_equal(both.moments.m2, moments.m2[3:])
    assert np.array_equal(both.class_weights, table.class_totals[3:] - moments.all_missing[3:])
    text = FeatureCounts(np.arange(6.0), np.arange(12.0).reshape(6, 2)).class_columns(slice(0, 3))
    assert np.array_equal(text.feature_count, [[0, 1], [2, 3], [4, 5]])
    with pytest.raises(ValueError, match="same layout"):
        table - CountTable.empty(np.array([0, 2]), 6)

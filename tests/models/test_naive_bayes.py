"""NaiveBayes against independent references: a plain counter, hand-computed SPSS values, scikit-learn."""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import CategoricalNB

import nbparallel
from nbparallel import NaiveBayes
from nbparallel.models.base import ScoringInputs

from tests.reference import plain_count, spss_posteriors


def mixed_frame(seed=0, n=600):
    """Real wine measurements plus categorical columns, with missing values and targets."""
    rng = np.random.default_rng(seed)
    wine = load_wine(as_frame=True)
    idx = rng.integers(0, len(wine.data), n)
    frame = wine.data.iloc[idx, :6].reset_index(drop=True).copy()
    frame["colour"] = pd.Series(rng.choice(["red", "white", "rose", None], n, p=[.4, .3, .2, .1]), dtype=object)
    frame["grade"] = pd.Series(rng.choice(["A", "B", "C"], n), dtype=object)
    frame.loc[rng.random(n) < 0.1, "alcohol"] = np.nan
    frame.loc[rng.random(n) < 0.05, "ash"] = np.nan
    target = wine.target.to_numpy()[idx].astype(object)
    target[rng.random(n) < 0.05] = None
    frame["label"] = target
    frame.loc[3, ["alcohol", "malic_acid", "ash", "alcalinity_of_ash", "magnesium", "total_phenols",
                  "colour", "grade"]] = [np.nan] * 6 + [None, None]
    return frame


def assert_counts_match(model, frame, target, n_bins=10, weights=None):
    """The model's count table equals the plain-Python counter, exactly."""
    columns = [c for c in frame.columns if c != target]
    kinds = ["categorical" if frame[c].dtype == object else "numeric" for c in columns]
    rows = frame[columns].astype(object).where(frame[columns].notna(), None).values.tolist()
    ref = plain_count(rows, frame[target].tolist(), kinds, n_bins, weights)
    assert list(model.classes_) == ref["classes"]
    counts, schema = model.counts_, model.schema_
    np.testing.assert_array_equal(counts.class_counts, [ref["class_counts"][c] for c in ref["classes"]])
    assert counts.n_missing_target == ref["n_missing_target"]
    for t, at in enumerate(schema.attributes):
        a = schema.columns.index(at.name)
        if at.kind == "categorical":
            assert at.categories == ref["vocab"][a]
        else:
            np.testing.assert_array_equal(at.edges(), ref["vocab"][a])
        block = counts.table[counts.offsets[t] : counts.offsets[t + 1]]
        expected = np.array([[ref["cells"][(a, i, c)] for c in ref["classes"]] for i in range(-1, len(block) - 1)])
        np.testing.assert_array_equal(block, expected, err_msg=at.name)


@pytest.mark.parametrize("split_every", [2, 3, False])
@pytest.mark.parametrize("n_partitions", [1, 2, 3, 7, 64])
def test_counts_identical_to_plain_counter_for_any_partitioning(n_partitions, split_every):
    frame = mixed_frame()
    model = NaiveBayes(n_partitions=n_partitions, split_every=split_every).fit(frame, "label")
    assert_counts_match(model, frame, "label")
    r = model.reduction_
    assert r.n_leaves == n_partitions
    if split_every == 2:
        assert r.height == math.ceil(math.log2(n_partitions))
    elif split_every is False:
        assert r.height == (n_partitions > 1) and r.max_fan_in in (0, n_partitions)
    assert r.max_fan_in <= (split_every or n_partitions)


@pytest.mark.parametrize("loader", [load_breast_cancer, load_digits])
def test_real_datasets_same_model_for_any_partitioning(loader):
    X, y = loader(return_X_y=True)
    base = NaiveBayes(n_partitions=1).fit(X, y)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])]).assign(y=y)
    assert_counts_match(base, frame, "y")
    for P in (2, 3, 7, 64):
        model = NaiveBayes(n_partitions=P).fit(X, y)
        assert model.counts_.equals(base.counts_)
        np.testing.assert_array_equal(model.predict_proba(X), base.predict_proba(X))


def test_smoothing_follows_spss_formulas():
    frame = mixed_frame(seed=1)
    # the reference has no empty-bin elimination (tested on its own below): keep columns without empty bins
    first = NaiveBayes().fit(frame, "label")
    frame = frame.drop(columns=[c for c, e in first.bin_edges_.items() if len(e) != 9])
    features = frame.drop(columns="label")
    for lam, f in (("1/N", "1/N"), (1.0, 1.0), (0.5, 2.0)):
        model = NaiveBayes(class_alpha=lam, alpha=f, n_partitions=3).fit(frame, "label")
        columns = list(features.columns)
        kinds = ["categorical" if features[c].dtype == object else "numeric" for c in columns]
        rows = features.astype(object).where(features.notna(), None).values.tolist()
        counts = plain_count(rows, frame["label"].tolist(), kinds)
        N = sum(counts["class_counts"].values())
        lam_v = 1 / N if lam == "1/N" else lam
        f_v = 1 / N if f == "1/N" else f
        assert all(len(e) == 9 for e in model.bin_edges_.values()) and len(model.bin_edges_) >= 3
        expected = [spss_posteriors(counts, row, kinds, lam_v, f_v) for row in rows[:200]]
        np.testing.assert_allclose(model.predict_proba(features.iloc[:200]), expected, rtol=1e-10, atol=1e-12)
        prior = [(counts["class_counts"][c] + lam_v) / (N + 3 * lam_v) for c in counts["classes"]]
        np.testing.assert_allclose(np.exp(model.class_log_prior_), prior, rtol=1e-12)


def test_matches_sklearn_categorical_nb_on_binned_data():
    X, y = load_digits(return_X_y=True)
    X = X[:, X.var(axis=0) > 4]  # attributes whose ten bins all occur
    lo, hi = X.min(axis=0), X.max(axis=0)
    codes = np.column_stack([
        np.searchsorted(lo[j] + (hi[j] - lo[j]) * np.arange(1, 10) / 10, X[:, j], side="left")
        for j in range(X.shape[1])
    ])
    present = [j for j in range(codes.shape[1]) if len(np.unique(codes[:, j])) == 10]
    X, codes = X[:, present], codes[:, present]
    ours = NaiveBayes(alpha=1.0, class_alpha=1.0, n_partitions=4).fit(X, y)
    counts = np.bincount(y)
    prior = (counts + 1.0) / (counts.sum() + 10 * 1.0)
    theirs = CategoricalNB(alpha=1.0, class_prior=prior).fit(codes, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(codes), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(codes))


def test_cross_validated_accuracy_matches_independent_binned_naive_bayes():
    X, y = load_breast_cancer(return_X_y=True)
    ours, theirs = [], []
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        model = NaiveBayes(alpha=1.0, class_alpha=1.0, n_partitions=3).fit(X[train], y[train])
        ours.append(model.score(X[test], y[test]))
        lo, hi = X[train].min(axis=0), X[train].max(axis=0)
        edges = [lo[j] + (hi[j] - lo[j]) * np.arange(1, 10) / 10 for j in range(X.shape[1])]
        def bins(A):
            return np.column_stack([np.searchsorted(edges[j], A[:, j], side="left") for j in range(A.shape[1])])
        ref = CategoricalNB(alpha=1.0, min_categories=10).fit(bins(X[train]), y[train])
        theirs.append(ref.score(bins(X[test]), y[test]))
    assert np.mean(ours) > 0.9
    assert abs(np.mean(ours) - np.mean(theirs)) < 0.03


def test_partial_fit_on_pieces_equals_fit_on_whole():
    rng = np.random.default_rng(3)
    n = 900
    frame = pd.DataFrame({
        "a": rng.choice(list("pqrs"), n).astype(object),
        "b": rng.choice(["x", "y", None], n).astype(object),
        "c": rng.choice([10, 20, 30], n),
    })
    y = rng.choice(["no", "yes", "maybe"], n).astype(object)
    frame.loc[:299, "a"] = frame.loc[:299, "a"].replace("s", "p")  # 's' first appears in a later piece
    y[:300] = np.where(y[:300] == "maybe", "no", y[:300])  # so does class 'maybe'
    whole = NaiveBayes(categorical_features="all", n_partitions=2).fit(frame, y)
    pieces = NaiveBayes(categorical_features="all", n_partitions=3)
    for s in (slice(0, 300), slice(300, 650), slice(650, n)):
        pieces.partial_fit(frame.iloc[s], y[s])
    assert pieces.counts_.equals(whole.counts_)
    assert list(pieces.classes_) == list(whole.classes_) == ["maybe", "no", "yes"]
    np.testing.assert_array_equal(pieces.predict_proba(frame), whole.predict_proba(frame))


def test_duplicated_rows_equal_integer_weights():
    X, y = load_breast_cancer(return_X_y=True)
    w = np.random.default_rng(0).integers(0, 4, len(y))
    weighted = NaiveBayes(n_partitions=5).fit(X, y, sample_weight=w)
    repeated = NaiveBayes(n_partitions=2).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert weighted.counts_.equals(repeated.counts_)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)


def test_weighted_counts_match_plain_counter():
    frame = mixed_frame(seed=4)
    w = np.random.default_rng(1).integers(0, 3, len(frame)).astype(float)
    model = NaiveBayes(n_partitions=7).fit(frame, "label", sample_weight=w)
    assert_counts_match(model, frame, "label", weights=w)


def test_missing_value_rules():
    frame = pd.DataFrame({
        "colour": ["r", "g", "r", None, "g", "r", "b", "g"],
        "empty": [np.nan] * 8,
        "constant": ["k"] * 8,
        "size": [1.0, 2.0, 3.0, np.nan, 5.0, 6.0, 7.0, 8.0],
    })
    y = ["p", "q", "p", "q", None, "p", "q", "q"]
    model = NaiveBayes(n_partitions=3).fit(frame, y)
    assert model.n_missing_target_ == 1
    assert set(model.ignored_attributes_) == {"empty", "constant"}
    # row 3 has every attribute but the ignored ones missing: it still counts (SPSS ignores a case
    # only when *all* predictors are missing)
    np.testing.assert_array_equal(model.counts_.class_counts, [3, 4])
    # unseen categories are treated as missing, and missing attributes drop out
    unseen = pd.DataFrame({"colour": ["purple"], "empty": [np.nan], "constant": ["z"], "size": [2.0]})
    missing = pd.DataFrame({"colour": [None], "empty": [np.nan], "constant": [None], "size": [2.0]})
    np.testing.assert_array_equal(model.predict_proba(unseen), model.predict_proba(missing))
    nothing = pd.DataFrame({"colour": [None], "empty": [np.nan], "constant": [None], "size": [np.nan]})
    np.testing.assert_allclose(model.predict_proba(nothing)[0], np.exp(model.class_log_prior_))


def test_rows_with_every_attribute_missing_are_ignored():
    X = np.array([[1.0, 2.0], [np.nan, np.nan], [3.0, 1.0], [2.0, 2.0]])
    model = NaiveBayes().fit(X, [0, 1, 1, 0])
    np.testing.assert_array_equal(model.counts_.class_counts, [2, 1])
    np.testing.assert_array_equal(model.counts_.all_missing, [0, 1])


def test_empty_bins_are_eliminated_as_in_spss():
    # ten equal-width bins on [0, 10]: edges 1..9; data only in bins 0, 1, 5 and 9
    x = np.array([0.0, 0.5, 1.5, 5.5, 5.7, 10.0, 9.5])
    y = np.array([0, 1, 0, 1, 0, 1, 0])
    model = NaiveBayes().fit(x.reshape(-1, 1), y)
    # gaps (2, 5] and (6, 9] get boundaries at their middles 3.5 and 7.5
    np.testing.assert_array_equal(model.bin_edges_["0"], [1.0, 3.5, 7.5])
    assert model.feature_log_prob_[0].shape == (4, 2)
    # raw counts keep the equal-width bins
    np.testing.assert_array_equal(model.counts_.attribute(0).sum(axis=1), [2, 1, 0, 0, 0, 2, 0, 0, 0, 2])
    below, above = model.predict_proba([[3.4]]), model.predict_proba([[3.6]])
    np.testing.assert_array_equal(below, model.predict_proba([[1.5]]))
    np.testing.assert_array_equal(above, model.predict_proba([[5.6]]))


def test_ties_go_to_the_larger_prior():
    X = np.array([["a"], ["a"], ["a"], ["b"], ["b"]], dtype=object)
    model = NaiveBayes().fit(X, ["x", "y", "y", "x", "y"])
    # equal joint log-likelihoods: the class with the larger prior ('y') wins, not the first
    order = model.inputs_of_split(np.empty((0, 0), dtype=np.uint8), None).order
    assert list(model.classes_[ScoringInputs.of_joint(np.array([[0.0, 0.0]]), order).best()]) == ["y"]
    assert list(model.classes_[ScoringInputs.of_joint(np.array([[0.0, -1.0]]), order).best()]) == ["x"]


def test_log_odds_weights_reproduce_posteriors():
    X, y = load_breast_cancer(return_X_y=True)
    model = NaiveBayes(n_partitions=3).fit(X, y)
    weights, bias = model.log_odds_weights_, model.log_odds_bias_
    codes = model.scoring_inputs(X[:50]).joined_codes().astype(int)
    logit = bias + sum(weights[a][codes[:, a] - 1] * (codes[:, a] > 0) for a in range(len(weights)))
    np.testing.assert_allclose(1 / (1 + np.exp(-logit)), model.predict_proba(X[:50])[:, 1], rtol=1e-9)
    multi = NaiveBayes().fit(*load_wine(return_X_y=True))
    with pytest.raises(AttributeError, match="two classes"):
        multi.log_odds_weights_


def test_save_and_load_round_trip(tmp_path):
    frame = mixed_frame()
    model = NaiveBayes(n_partitions=3, alpha=0.5).fit(frame, "label")
    path = tmp_path / "model.json"
    model.save(path)
    loaded = nbparallel.load(path)
    assert loaded.get_params() == model.get_params()
    assert loaded.counts_.equals(model.counts_)
    features = frame.drop(columns="label")
    np.testing.assert_array_equal(loaded.predict_proba(features), model.predict_proba(features))
    assert loaded.target_column_ == "label"
    assert json.loads(path.read_text())["format_version"] == 1


@pytest.mark.parametrize("damage, message", [
    (lambda text: text[: len(text) // 2], "not JSON"),
    (lambda text: json.dumps({"hello": 1}), "not an nbparallel model"),
    (lambda text: text.replace('"format_version": 1', '"format_version": 99'), "version 99"),
    (lambda text: text.replace('"estimator": "NaiveBayes"', '"estimator": "os.system"'), "unknown estimator"),
    (lambda text: text.replace('"offsets": [0', '"offsets": [1'), "damaged"),
    (lambda text: text.replace('"table": [[', '"table": [[-5, ', 1), "damaged"),
])
def test_damaged_model_files_raise_clear_errors(tmp_path, damage, message):
    path = tmp_path / "model.json"
    NaiveBayes().fit(*load_wine(return_X_y=True)).save(path)
    path.write_text(damage(path.read_text()))
    with pytest.raises(ValueError, match=message):
        nbparallel.load(path)


def test_pickle_files_are_refused_without_executing(tmp_path):
    import pickle

    marker = tmp_path / "executed"
    path = tmp_path / "model.json"
    path.write_bytes(pickle.dumps(_Exploit(str(marker))))
    with pytest.raises(ValueError):
        nbparallel.load(path)
    assert not marker.exists()


class _Exploit:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_failed_save_leaves_no_partial_file(tmp_path):
    frame = pd.DataFrame({"when": pd.Series([(2020, 1), (2021, 1)] * 5, dtype=object),  # tuples: unsaveable
                          "x": np.arange(10.0)})
    model = NaiveBayes().fit(frame, np.arange(10) % 2)
    path = tmp_path / "model.json"
    path.write_text("previous")
    with pytest.raises(TypeError, match="when"):
        model.save(path)
    assert path.read_text() == "previous"
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("call, error, message", [
    (lambda: NaiveBayes().fit(np.zeros((5, 2)), [0, 1, 0]), ValueError, "y has 3 rows but X has 5"),
    (lambda: NaiveBayes().fit(np.zeros((0, 2)), []), ValueError, "no rows"),
    (lambda: NaiveBayes().fit(np.zeros((4, 2)), [1, 1, 1, 1]), ValueError, "1 class"),
    (lambda: NaiveBayes().fit(np.array([[1.0], [np.inf]]), [0, 1]), ValueError, "column '0'.*infinite"),
    (lambda: NaiveBayes().fit(np.ones((2, 1)), [0, 1], sample_weight=[1, np.nan]), ValueError, "sample_weight"),
    (lambda: NaiveBayes().fit(np.ones((2, 1)), [0, 1], sample_weight=[1, -1]), ValueError, "sample_weight"),
    (lambda: NaiveBayes().fit(pd.DataFrame({"a": [1, 2]}), "target"), ValueError, "target column 'target'"),
    (lambda: NaiveBayes().fit(np.ones(3), [0, 1, 0]), ValueError, "2-dimensional"),
    (lambda: NaiveBayes(alpha=-1).fit(np.ones((2, 1)), [0, 1]), ValueError, "alpha"),
    (lambda: NaiveBayes(class_alpha="lots").fit(np.ones((2, 1)), [0, 1]), ValueError, "class_alpha"),
    (lambda: NaiveBayes(n_bins=1).fit(np.ones((2, 1)), [0, 1]), ValueError, "n_bins"),
    (lambda: NaiveBayes(split_every=1).fit(np.ones((2, 1)), [0, 1]), ValueError, "split_every"),
    (lambda: NaiveBayes(n_partitions=0).fit(np.ones((2, 1)), [0, 1]), ValueError, "n_partitions"),
    (lambda: NaiveBayes(n_partitions=2.5).fit(np.ones((2, 1)), [0, 1]), TypeError, "n_partitions"),
    (lambda: NaiveBayes(categorical_features=["nope"]).fit(np.ones((2, 1)), [0, 1]), ValueError, "nope"),
    (lambda: NaiveBayes().fit(np.ones((2, 1)), [0.5, 1.7]), ValueError, "continuous"),
    (lambda: NaiveBayes().predict(np.ones((2, 1))), Exception, "not fitted"),
    (lambda: NaiveBayes().fit(np.ones((4, 2)), [0, 1, 0, 1]).predict(np.ones((2, 3))), ValueError,
     "X has 3 features, but NaiveBayes is expecting 2"),
])
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_predict_rejects_renamed_columns():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, 0.0, 1.0]})
    model = NaiveBayes().fit(frame, [0, 1, 0])
    with pytest.raises(ValueError, match=r"missing: \['a'\]\nFeature names unseen at fit time: \['z'\]"):
        model.predict(frame.rename(columns={"a": "z"}))


def test_default_partitions_follow_workers_and_size():
    small = NaiveBayes().fit(*load_wine(return_X_y=True))
    assert small.n_partitions_ == 1
    X = np.random.default_rng(0).integers(0, 5, (300_000, 2))
    big = NaiveBayes(categorical_features="all").fit(X, X[:, 0] % 2)
    import os

    assert big.n_partitions_ == min(os.cpu_count(), math.ceil(300_000 / 65536))


def test_passes_are_recorded():
    import time

    X, y = load_wine(return_X_y=True)
    start = time.perf_counter()
    model = NaiveBayes(n_partitions=4).fit(X, y)
    fit_seconds = time.perf_counter() - start
    assert [p["kind"] for p in model.passes_] == ["schema", "count"]
    assert all(p["tree"].height == 2 for p in model.passes_)
    # each pass's time is part of the fit's (tests/engine/test_passes.py checks it is the one measured)
    assert all(p["seconds"] > 0 for p in model.passes_) and sum(p["seconds"] for p in model.passes_) <= fit_seconds


def test_scikit_learn_estimator_checks():
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(NaiveBayes(), on_fail=None)
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert len(results) > 40
    assert failed == []


@settings(max_examples=25, deadline=None)
@given(
    n_rows=st.integers(2, 300),
    n_partitions=st.integers(1, 40),
    split_every=st.sampled_from([2, 3, 5, False]),
    seed=st.integers(0, 2**16),
)
def test_model_is_independent_of_the_partitioning(n_rows, n_partitions, split_every, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "c": pd.Series(rng.choice(["u", "v", "w", None], n_rows), dtype=object),
        "x": np.where(rng.random(n_rows) < 0.1, np.nan, rng.normal(size=n_rows)),
        "k": rng.integers(0, 6, n_rows),
    })
    y = rng.choice(["a", "b"], n_rows)
    y[0], y[-1] = "a", "b"
    weights = rng.integers(1, 4, n_rows).astype(float)
    one = NaiveBayes(n_partitions=1).fit(frame, y, sample_weight=weights)
    many = NaiveBayes(n_partitions=n_partitions, split_every=split_every).fit(frame, y, sample_weight=weights)
    assert many.counts_.equals(one.counts_)
    assert many.reduction_.n_leaves == min(n_partitions, n_rows)  # no empty partitions
    np.testing.assert_array_equal(many.predict_proba(frame), one.predict_proba(frame))


def test_partial_fit_with_declared_classes():
    X = np.array([["a"], ["b"], ["a"], ["b"]], dtype=object)
    model = NaiveBayes().partial_fit(X, [0, 1, 0, 1], classes=[0, 1, 2])
    assert list(model.classes_) == [0, 1, 2]
    assert model.class_log_prior_[2] == -np.inf  # an empty class is removed from the calculations
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(proba[:, 2], 0.0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    model.partial_fit(np.array([["c"]], dtype=object), [2])
    assert np.isfinite(model.class_log_prior_).all() and model.predict(np.array([["c"]], dtype=object))[0] == 2
    with pytest.raises(ValueError, match=r"classes \[7\] not in `classes`"):
        NaiveBayes().partial_fit(X, [0, 1, 0, 7], classes=[0, 1])


def test_failed_partial_fit_leaves_the_model_as_it_was(monkeypatch):
    import nbparallel.summaries.counts as module

    X = np.array([["a"], ["b"], ["a"], ["b"]], dtype=object)
    model = NaiveBayes().partial_fit(X, [0, 1, 0, 1])
    before_counts, before_schema = model.counts_, model.schema_.to_dict()

    def interrupted(*args, **kwargs):  # e.g. the cluster is lost during the counting pass
        raise RuntimeError("counting pass interrupted")

    monkeypatch.setattr(module, "count_dataset", interrupted)
    with pytest.raises(RuntimeError, match="interrupted"):
        model.partial_fit(np.array([["c"], ["d"]], dtype=object), [0, 2])  # the schema would grow
    assert model.counts_ is before_counts and model.schema_.to_dict() == before_schema
    monkeypatch.undo()
    np.testing.assert_array_equal(model.predict(X), [0, 1, 0, 1])


def test_merged_bin_edges_stay_finite_near_the_float_limit_and_keep_their_bits_elsewhere():
    from nbparallel.models.attribute_kinds import merged_bins

    big = np.array([1.5e308, 1.6e308, 1.7e308])
    _, edges = merged_bins(np.array([1.0, 0.0, 0.0, 1.0]), big)
    assert np.isfinite(edges).all() and big[0] < edges[0] < big[2]
    rng = np.random.default_rng(0)
    ordinary = np.sort(rng.normal(scale=1e3, size=9))
    counts = rng.integers(0, 2, size=10).astype(float)
    counts[[0, -1]] = 1
    kept, edges = merged_bins(counts, ordinary)
    old = np.array([(ordinary[a] + ordinary[b - 1]) / 2 for a, b in zip(kept[:-1], kept[1:])])
    assert np.array_equal(edges, old)


def test_a_model_over_values_near_the_float_limit_is_not_degraded_to_chance():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    x = np.where(y == 1, 1.7e308, -1.7e308) * rng.uniform(0.5, 1.0, 400)
    model = NaiveBayes().fit(x.reshape(-1, 1), y)
    assert all(np.isfinite(e).all() for e in model.bin_edges_.values())
    assert model.score(x.reshape(-1, 1), y) == 1.0

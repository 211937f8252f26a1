"""Gaussian numeric attributes: per-class moments merged with Chan's formula, against GaussianNB and numpy."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.naive_bayes import GaussianNB

from nbparallel import NaiveBayes, load
from nbparallel.summaries.moments import GaussianMoments, partition_moments
from nbparallel.summaries.protocol import merge_summaries

EMPIRICAL_PRIOR = 1e-12  # class_alpha this small gives the empirical prior N_k / N, as GaussianNB's


@pytest.mark.parametrize("load_data", [load_iris, load_wine, load_breast_cancer])
def test_matches_sklearn_gaussian_nb(load_data):
    X, y = load_data(return_X_y=True)
    ours = NaiveBayes(numeric="gaussian", class_alpha=EMPIRICAL_PRIOR, n_partitions=3).fit(X, y)
    ref = GaussianNB().fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(ours.theta_, ref.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, ref.var_, rtol=1e-9)
    assert ours.epsilon_ == pytest.approx(ref.epsilon_, rel=1e-9)
    np.testing.assert_allclose(np.exp(ours.class_log_prior_), ref.class_prior_, rtol=1e-9)


def _moments_by_numpy(values, classes, weights, n_classes):
    n = np.zeros((n_classes, values.shape[1]))
    mean, m2 = n.copy(), n.copy()
    for k in range(n_classes):
        for j in range(values.shape[1]):
            rows = (classes == k) & ~np.isnan(values[:, j])
            x, w = values[rows, j], weights[rows]
            n[k, j] = w.sum()
            if n[k, j] > 0:
                mean[k, j] = np.sum(w * x) / n[k, j]
                m2[k, j] = np.sum(w * (x - mean[k, j]) ** 2)
    return n, mean, m2


@settings(max_examples=30, deadline=None)
@given(n_rows=st.integers(1, 200), n_parts=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_chan_merge_equals_one_pass_over_all_rows_for_any_split(n_rows, n_parts, seed):
    rng = np.random.default_rng(seed)
    values = rng.normal(100, 3, (n_rows, 3))
    values[rng.random(values.shape) < 0.2] = np.nan
    classes = rng.integers(-1, 3, n_rows)
    weights = rng.integers(0, 4, n_rows).astype(float)
    bounds = np.sort(rng.integers(0, n_rows + 1, n_parts - 1))
    pieces = [partition_moments(values[s:e], classes[s:e], weights[s:e], 3, np.ones(e - s, bool))
              for s, e in zip([0, *bounds], [*bounds, n_rows])]
    merged = merge_summaries(*pieces)
    n, mean, m2 = _moments_by_numpy(values, classes, weights, 3)
    np.testing.assert_array_equal(merged.n, n)
    np.testing.assert_allclose(merged.mean, mean, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(merged.m2, m2, rtol=1e-9, atol=1e-9)
    assert merged.equals(merge_summaries(*pieces))  # the same order: the same floats
    empty = GaussianMoments.empty(3, 3)
    assert (empty + merged).equals(merged) and (merged + empty).equals(merged)
    assert GaussianMoments.from_dict(merged.to_dict()).equals(merged)


def _mixed_frame(n=600, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame({
        "colour": np.array(["red", "green", "blue"])[(y + rng.integers(0, 2, n)) % 3],
        "height": rng.normal(170 + 5 * y, 8),
        "weight": rng.normal(60 + 4 * y, 5),
        "age": rng.integers(18, 80, n),
    })
    frame.loc[rng.random(n) < 0.1, "height"] = np.nan
    frame.loc[rng.random(n) < 0.1, "colour"] = None
    return frame, y


def test_model_is_the_same_for_any_partitioning_and_reproducible():
    frame, y = _mixed_frame()
    models = [NaiveBayes(numeric="gaussian", n_partitions=p, split_every=s).fit(frame, y)
              for p, s in [(1, 2), (3, 2), (7, 3), (13, False)]]
    for model in models[1:]:
        assert model.counts_.equals(models[0].counts_)
        np.testing.assert_array_equal(model.moments_.n, models[0].moments_.n)
        np.testing.assert_allclose(model.moments_.mean, models[0].moments_.mean, rtol=1e-12)
        np.testing.assert_allclose(model.moments_.m2, models[0].moments_.m2, rtol=1e-12)
    again = NaiveBayes(numeric="gaussian", n_partitions=7, split_every=3).fit(frame, y)
    assert again.moments_.equals(models[2].moments_)


def test_mixed_model_adds_gaussian_terms_to_the_counted_attributes():
    frame, y = _mixed_frame()
    mixed = NaiveBayes(numeric={"height": "gaussian", "weight": "gaussian"}, alpha=1.0).fit(frame, y)
    assert mixed.feature_kinds_ == {"colour": "categorical", "height": "gaussian", "weight": "gaussian",
                                    "age": "numeric"}
    assert mixed.gaussian_features_ == ["height", "weight"]
    counted = NaiveBayes(alpha=1.0).fit(frame[["colour", "age"]], y)
    values = frame[["height", "weight"]].to_numpy()
    n, mean, m2 = _moments_by_numpy(values, y, np.ones(len(y)), 3)  # independent reference
    var = m2 / n + 1e-9 * np.nanvar(values, axis=0).max()
    np.testing.assert_allclose(mixed.theta_, mean, rtol=1e-12)
    np.testing.assert_allclose(mixed.var_, var, rtol=1e-9)
    terms = -0.5 * np.log(2 * np.pi * var)[None] - 0.5 * (values[:, None, :] - mean[None]) ** 2 / var[None]
    gaussian = np.nansum(terms, axis=2)  # a missing height adds nothing
    expected = counted.predict_joint_log_proba(frame[["colour", "age"]]) + gaussian
    np.testing.assert_allclose(mixed.predict_joint_log_proba(frame), expected, rtol=1e-10)
    assert mixed.score(frame, y) > counted.score(frame[["colour", "age"]], y)


def test_missing_values_are_skipped_per_attribute_and_all_missing_rows_leave_the_prior():
    X = np.array([[1.0, np.nan], [2.0, 5.0], [np.nan, np.nan], [4.0, 7.0], [5.0, 9.0], [np.nan, 1.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    model = NaiveBayes(numeric="gaussian", class_alpha=EMPIRICAL_PRIOR).fit(X, y)
    np.testing.assert_array_equal(model.moments_.n, [[2, 1], [2, 3]])
    np.testing.assert_allclose(model.theta_, [[1.5, 5.0], [4.5, 17 / 3]])
    np.testing.assert_array_equal(model.moments_.all_missing, [1, 0])  # row 2 has no value at all
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [2 / 5, 3 / 5])
    only_first = model.predict_joint_log_proba(np.array([[2.0, np.nan]]))
    expected = model.class_log_prior_ - 0.5 * np.log(2 * np.pi * model.var_[:, 0]) \
        - 0.5 * (2.0 - model.theta_[:, 0]) ** 2 / model.var_[:, 0]
    np.testing.assert_allclose(only_first[0], expected)


def test_integer_weights_equal_repeated_rows():
    frame, y = _mixed_frame(n=200)
    w = np.random.default_rng(1).integers(0, 4, len(y))
    weighted = NaiveBayes(numeric="gaussian", n_partitions=3).fit(frame, y, sample_weight=w)
    repeated = NaiveBayes(numeric="gaussian").fit(frame.loc[frame.index.repeat(w)].reset_index(drop=True),
                                                  np.repeat(y, w))
    np.testing.assert_array_equal(weighted.moments_.n, repeated.moments_.n)
    np.testing.assert_allclose(weighted.theta_, repeated.theta_, rtol=1e-12)
    np.testing.assert_allclose(weighted.var_, repeated.var_, rtol=1e-9)


def test_partial_fit_adds_moments_and_new_classes():
    frame, y = _mixed_frame()
    whole = NaiveBayes(numeric="gaussian").fit(frame, y)
    order = np.argsort(y, kind="stable")  # batches by class: later batches bring new classes
    frame, y = frame.iloc[order].reset_index(drop=True), y[order]
    pieces = NaiveBayes(numeric="gaussian")  # no bins, so no ranges to fix on the first batch
    for s in range(0, len(y), 150):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a batch of one class ignores most attributes
            pieces.partial_fit(frame[s:s + 150], y[s:s + 150], classes=[0, 1, 2])
    np.testing.assert_array_equal(pieces.moments_.n, whole.moments_.n)
    np.testing.assert_allclose(pieces.theta_, whole.theta_, rtol=1e-12)
    np.testing.assert_allclose(pieces.var_, whole.var_, rtol=1e-9)


def test_save_load_round_trip(tmp_path):
    frame, y = _mixed_frame()
    for numeric in ("gaussian", {"height": "gaussian"}):
        model = NaiveBayes(numeric=numeric).fit(frame.assign(label=y), "label")
        model.save(tmp_path / "model.json")
        loaded = load(tmp_path / "model.json")
        assert loaded.gaussian_features_ == model.gaussian_features_ and loaded.moments_.equals(model.moments_)
        np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
        assert loaded.target_column_ == "label"


def test_column_choice_is_checked():
    frame, y = _mixed_frame(n=50)
    with pytest.raises(ValueError, match="numeric names column 'colour', which is categorical"):
        NaiveBayes(numeric={"colour": "gaussian"}).fit(frame, y)
    with pytest.raises(ValueError, match="numeric names column 'nope'"):
        NaiveBayes(numeric={"nope": "gaussian"}).fit(frame, y)
    with pytest.raises(ValueError, match=r"numeric\['height'\] must be"):
        NaiveBayes(numeric={"height": "normal"}).fit(frame, y)
    with pytest.raises(ValueError, match="'numeric' parameter of NaiveBayes"):
        NaiveBayes(numeric="normal").fit(frame, y)
    by_index = NaiveBayes(numeric={1: "gaussian"}).fit(frame, y)
    assert by_index.gaussian_features_ == ["height"]


def test_scikit_learn_estimator_checks():
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(NaiveBayes(numeric="gaussian"), on_fail=None)
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert len(results) > 40
    assert failed == []


def test_fit_on_a_real_dask_cluster_gives_the_local_model():
    import dask.dataframe as dd
    from distributed import Client

    from tests.dask_processes import dask_cluster

    frame, y = _mixed_frame()
    ddf = dd.from_pandas(frame.assign(label=y), npartitions=4)
    local = NaiveBayes(numeric="gaussian").fit(ddf, "label")
    with dask_cluster(n_workers=2) as (address, _), Client(address):
        remote = NaiveBayes(numeric="gaussian").fit(ddf, "label")
        proba = remote.predict_proba(frame)
    assert remote.counts_.equals(local.counts_) and remote.moments_.equals(local.moments_)
    np.testing.assert_array_equal(proba, local.predict_proba(frame))


def test_a_gaussian_column_of_one_value_is_ignored_not_a_nan():
    """A column observed with one value tells the classes nothing: alone it leaves the prior (with the warning
    that names it), never NaN; beside an informative column the model is scikit-learn's GaussianNB's."""
    import warnings

    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 60)
    constant = np.full((60, 1), 3.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        alone = NaiveBayes(numeric="gaussian", class_alpha=1e-12).fit(constant, y)
    assert any("every attribute is ignored" in str(w.message) and "constant (every observed value is 3.5)"
               in str(w.message) for w in caught)
    assert alone.ignored_attributes_ == ["0"]
    proba = alone.predict_proba(np.array([[3.5], [7.0]]))
    np.testing.assert_allclose(proba, np.tile(np.bincount(y) / 60, (2, 1)), rtol=1e-9)
    both = np.hstack([rng.normal(y, 1.0)[:, None], constant])
    ours = NaiveBayes(numeric="gaussian", class_alpha=1e-12).fit(both, y)
    np.testing.assert_allclose(ours.predict_proba(both), GaussianNB().fit(both, y).predict_proba(both), rtol=1e-9)

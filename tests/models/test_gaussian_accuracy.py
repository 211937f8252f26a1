"""Gaussian moments: the compiled shifted-sum pass and Chan's merge, against two-pass references and GaussianNB,
for any partitioning and every input form."""

import math

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import GaussianNB

import nbparallel.summaries.moments as moments_module
from nbparallel.summaries.moments import partition_moments
from nbparallel import NaiveBayes

EMPIRICAL_PRIOR = 1e-12  # class_alpha this small gives the empirical prior N_k / N, as GaussianNB's


def offset_data(n_rows=21_000, seed=0):
    """Three classes at 10^9 + k, spread 10^-3: sums of x and x^2 lose every digit of the variance."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    return 1e9 + y[:, None] + rng.normal(0, 1e-3, (n_rows, 2)), y


def two_pass(x):
    """``(mean, variance)`` of ``x`` by two passes of exactly rounded sums (math.fsum) over ``x - x[0]``: the
    mean, then the squared deviations from it. numpy's ``var`` is two passes too, but its pairwise sum of values near 10^9
    moves the mean by about 10^-6 here, which moves the variance by about 10^-5 relative."""
    d = x - x[0]  # exact differences: the mean below is not rounded to the float grid near 10^9
    centre = math.fsum(d) / len(d)
    return x[0] + centre, math.fsum((d - centre) ** 2) / len(d)


@pytest.mark.parametrize("n_partitions", range(1, 8))
def test_offset_variances_match_two_passes_for_any_partitioning(n_partitions):
    X, y = offset_data()
    model = NaiveBayes(numeric="gaussian", var_smoothing=0.0, n_partitions=n_partitions).fit(X, y)
    reference = np.array([[two_pass(X[y == k, j]) for j in range(2)] for k in range(3)])
    np.testing.assert_allclose(model.var_, reference[..., 1], rtol=1e-10)  # the target is 1e-6; measured 4e-16
    np.testing.assert_allclose(model.theta_, reference[..., 0], rtol=1e-15)


def ordinary_data(n_rows=3_000, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n_rows)
    X = rng.normal(y[:, None] * [1.0, -2.0, 0.5], [1.0, 3.0, 0.2], (n_rows, 3))
    return X, y, rng.uniform(0.1, 4.0, n_rows)


@pytest.mark.parametrize("n_partitions", [1, 4, 7])
def test_theta_and_var_equal_gaussian_nb(n_partitions):
    X, y, _ = ordinary_data()
    ours = NaiveBayes(numeric="gaussian", class_alpha=EMPIRICAL_PRIOR, var_smoothing=1e-3, n_partitions=n_partitions)
    ours.fit(X, y)
    ref = GaussianNB(var_smoothing=1e-3).fit(X, y)  # a smoothing that shows in var_
    np.testing.assert_allclose(ours.theta_, ref.theta_, rtol=1e-9)
    np.testing.assert_allclose(ours.var_, ref.var_, rtol=1e-9)
    assert ours.epsilon_ == pytest.approx(ref.epsilon_, rel=1e-9)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.parametrize("n_partitions", [1, 4, 7])
def test_weighted_moments_equal_gaussian_nb_and_weights_smooth_as_repeated_rows(n_partitions):
    """GaussianNB's epsilon is var_smoothing times the largest variance of the unweighted rows; ours, of the
    weighted ones, so that integer weights fit the model of repeated rows (tests/models/test_gaussian.py)."""
    X, y, w = ordinary_data()
    ours = NaiveBayes(numeric="gaussian", var_smoothing=1e-3, n_partitions=n_partitions).fit(X, y, sample_weight=w)
    ref = GaussianNB(var_smoothing=1e-3).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.theta_, ref.theta_, rtol=1e-9)
    np.testing.assert_allclose(ours.var_ - ours.epsilon_, ref.var_ - ref.epsilon_, rtol=1e-9)
    mean = np.average(X, axis=0, weights=w)
    assert ours.epsilon_ == pytest.approx(1e-3 * np.average((X - mean) ** 2, axis=0, weights=w).max(), rel=1e-9)


def _forms(tmp_path, X, y):
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(y=y)
    parquet, csv = tmp_path / "pq", tmp_path / "csv"
    parquet.mkdir()
    csv.mkdir()
    for i, (start, stop) in enumerate([(0, 200), (200, 450), (450, len(frame))]):
        part = frame.iloc[start:stop]
        part.to_parquet(parquet / f"part{i}.parquet", index=False)
        part.to_csv(csv / f"part{i}.csv", index=False)
    return {"numpy": (X, y), "float32 numpy": (X.astype(np.float32), y), "DataFrame": (frame, "y"),
            "Dask DataFrame": (dd.from_pandas(frame, npartitions=3), "y"), "Parquet directory": (parquet, "y"),
            "CSV directory": (csv, "y")}


def test_every_input_form_sums_its_moments_in_the_compiled_pass(tmp_path, monkeypatch):
    X, y, _ = ordinary_data(600)
    calls = []

    def spy(*args):
        calls.append(args[0].shape)
        return kernel(*args)

    kernel = moments_module.class_moments
    monkeypatch.setattr(moments_module, "class_moments", spy)
    reference = NaiveBayes(numeric="gaussian").fit(X, y)
    for form, (data, target) in _forms(tmp_path, X, y).items():
        calls.clear()
        model = NaiveBayes(numeric="gaussian", n_partitions=3).fit(data, target)
        assert len(calls) >= 1, form
        assert sum(shape[0] for shape in calls) == len(y), form
        rtol = 1e-6 if form == "float32 numpy" else 1e-12
        np.testing.assert_allclose(model.theta_, reference.theta_, rtol=rtol, err_msg=form)
        np.testing.assert_allclose(model.var_, reference.var_, rtol=rtol * 10, err_msg=form)


def test_subtracting_a_part_keeps_offset_variances():
    """Cross-validation's training moments are the total less a fold (the inverse of the merge)."""
    X, y = offset_data(6_000)
    first, second = (partition_moments(X[rows], y[rows], None, 3, np.ones(len(rows), bool))
                     for rows in (np.arange(0, 4_000), np.arange(4_000, 6_000)))
    left = (first + second) - second
    np.testing.assert_array_equal(left.n, first.n)
    np.testing.assert_allclose(left.m2 / left.n, first.m2 / first.n, rtol=1e-9)
    np.testing.assert_allclose(left.mean + left.mean_low, first.mean + first.mean_low, rtol=1e-15)


def test_rows_missing_every_attribute_leave_the_prior_and_rows_missing_the_gaussian_ones_do_not():
    frame = pd.DataFrame({"colour": ["red", None, None, "blue", "red", None],
                          "height": [1.0, np.nan, np.nan, 2.0, np.nan, 4.0],
                          "weight": [3.0, np.nan, np.nan, np.nan, np.nan, 1.0]})
    y = np.array([0, 0, 1, 1, 1, 0])
    model = NaiveBayes(numeric="gaussian", n_partitions=2).fit(frame, y)
    # rows 1 and 2 miss everything; row 4 misses only its Gaussian values (its colour is known)
    np.testing.assert_array_equal(model.moments_.all_missing, [1.0, 1.0])
    np.testing.assert_array_equal(model.moments_.n, [[2.0, 2.0], [1.0, 0.0]])

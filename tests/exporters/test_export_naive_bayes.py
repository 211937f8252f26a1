"""Export of NaiveBayes (categorical, binned, Gaussian, mixed) to PMML and ONNX, scored by the JPMML evaluator
and onnxruntime against predict_proba; where PMML scores otherwise, the documented difference."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

import nbparallel as nb
from nbparallel.exporters import export
from tests.exporters.weather import weather, write_arff


def categorical_frame(seed, n=300):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n)})
    frame["y"] = np.where((frame["a"] == "x") ^ (rng.random(n) < 0.3), "yes", "no")
    return frame


def mixed_frame(seed, n=400):
    """Categorical, binned and Gaussian columns of three classes, with missing values in each."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["low", "mid", "high"], n)
    shift = pd.Series(y).map({"low": 0.0, "mid": 1.0, "high": 2.5}).to_numpy()
    frame = pd.DataFrame({
        "colour": np.where(rng.random(n) < 0.5 + shift / 6, "red", rng.choice(["green", "blue"], n)),
        "size": rng.normal(shift, 1.0),
        "weight": rng.normal(10 * shift, 3.0 + shift),
    })
    for column in frame:
        frame.loc[rng.random(n) < 0.1, column] = None
    return frame, y


@pytest.mark.parametrize("n_partitions", [1, 3])
def test_categorical_naive_bayes(assert_exported_scores_as_model, n_partitions):
    frame = categorical_frame(0)
    model = nb.NaiveBayes(n_partitions=n_partitions).fit(frame[["a", "b"]], frame["y"])
    assert_exported_scores_as_model(model, frame[["a", "b"]])


def test_missing_values_and_unseen_categories_add_nothing(assert_exported_scores_as_model):
    frame = categorical_frame(2)
    model = nb.NaiveBayes().fit(frame[["a", "b"]], frame["y"])
    rows = pd.DataFrame({"a": ["x", None, "unseen", "y"], "b": ["p", "q", None, "other"]})
    assert_exported_scores_as_model(model, rows)


@pytest.mark.parametrize("n_partitions, n_bins", [(1, 10), (4, 10), (2, "mdl")])
def test_binned_iris(assert_exported_scores_as_model, n_partitions, n_bins):
    X, y = load_iris(return_X_y=True, as_frame=True)
    model = nb.NaiveBayes(n_partitions=n_partitions, n_bins=n_bins).fit(X, y)
    assert_exported_scores_as_model(model, X)


def test_binned_with_empty_bins_and_values_outside_the_training_range(assert_exported_scores_as_model):
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(0, 1, 100), rng.uniform(9, 10, 100)])  # the middle bins stay empty
    y = np.where(x + rng.normal(0, 2, 200) > 5, "b", "a")
    model = nb.NaiveBayes(n_bins=10).fit(pd.DataFrame({"x": x}), y)
    assert_exported_scores_as_model(model, pd.DataFrame({"x": [-5.0, 0.5, 3.0, 4.5, 5.0, 6.0, 9.5, 50.0, None]}))


@pytest.mark.parametrize("n_partitions, var_smoothing", [(1, 1e-9), (3, 1e-9), (2, 0.2)])
def test_gaussian_iris(assert_exported_scores_as_model, n_partitions, var_smoothing):
    """With var_smoothing 0.2 the epsilon added to every variance moves the probabilities by far more
    than 1e-6: the exported variances are var_, epsilon included."""
    X, y = load_iris(return_X_y=True, as_frame=True)
    model = nb.NaiveBayes(numeric="gaussian", var_smoothing=var_smoothing, n_partitions=n_partitions).fit(X, y)
    assert_exported_scores_as_model(model, X)


@pytest.mark.parametrize("numeric, n_partitions", [("gaussian", 1), ("gaussian", 4), ("binned", 2)])
def test_breast_cancer(assert_exported_scores_as_model, numeric, n_partitions):
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    model = nb.NaiveBayes(numeric=numeric, n_partitions=n_partitions).fit(X, y)
    assert_exported_scores_as_model(model, X.iloc[::2])


@pytest.mark.parametrize("n_partitions", [1, 4])
def test_mixed_model_with_missing_values_and_unseen_categories(assert_exported_scores_as_model, n_partitions):
    frame, y = mixed_frame(7)
    model = nb.NaiveBayes(numeric={"size": "binned", "weight": "gaussian"}, n_partitions=n_partitions).fit(frame, y)
    assert model.gaussian_features_ == ["weight"] and "size" in model.bin_edges_
    rows = pd.concat([frame.iloc[:50], pd.DataFrame({"colour": ["purple", None], "size": [None, 99.0],
                                                     "weight": [None, -40.0]})], ignore_index=True)
    assert_exported_scores_as_model(model, rows)


def test_tiny_gaussian_densities(assert_exported_scores_as_model):
    """A density near 1e-290 in one column (32 standard deviations from the nearest mean) agrees."""
    rng = np.random.default_rng(1)
    y = np.repeat(["a", "b"], 50)
    x = rng.normal(np.where(y == "a", 0.0, 0.5), 0.05)
    model = nb.NaiveBayes(numeric="gaussian").fit(pd.DataFrame({"x": x}), y)
    rows = pd.DataFrame({"x": [0.25, 1.0, 1.45, -0.9, 2.0]})
    assert np.exp(model.predict_joint_log_proba(rows).max(axis=1)).min() < 1e-200
    assert_exported_scores_as_model(model, rows)


def test_likelihoods_far_below_the_smallest_double(assert_exported_scores_as_model):
    """100 Gaussian columns, each value 10 standard deviations off: the likelihood of every class is near
    exp(-5000), and the evaluator, which combines the columns' probabilities in log space, still agrees."""
    rng = np.random.default_rng(2)
    y = np.repeat(["a", "b"], 100)
    X = pd.DataFrame(rng.normal(np.where(y == "a", 0.0, 0.3)[:, None], 1.0, (200, 100))).add_prefix("g")
    model = nb.NaiveBayes(numeric="gaussian").fit(X, y)
    rows = X.iloc[:5] + 10
    assert model.predict_joint_log_proba(rows).max() < -4000
    assert_exported_scores_as_model(model, rows)


def test_underflowing_gaussian_likelihoods_are_missing_in_pmml(pmml_scores, tmp_path):
    """Documented difference: a value whose Gaussian density underflows to 0 for every class (more than
    about 38 standard deviations from every class's mean) gets no probabilities from the evaluator, where
    predict_proba still ranks the classes in log space."""
    rng = np.random.default_rng(1)
    y = np.repeat(["a", "b"], 50)
    x = rng.normal(np.where(y == "a", 0.0, 1.0), 0.1)
    model = nb.NaiveBayes(numeric="gaussian").fit(pd.DataFrame({"x": x}), y)
    export(model, tmp_path / "model.pmml")
    rows = pd.DataFrame({"x": [0.5, 6.0]})
    _, probabilities = pmml_scores(tmp_path / "model.pmml", rows, model.classes_)
    expected = model.predict_proba(rows)
    assert np.max(np.abs(probabilities[0] - expected[0])) < 1e-6
    assert np.isnan(probabilities[1]).all() and np.isfinite(expected[1]).all()


def gaussian_column_a_class_never_saw():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, None, None], "c": list("pqpqp")})
    return nb.NaiveBayes(numeric="gaussian").fit(frame, ["a", "a", "a", "b", "b"]), frame


def test_gaussian_column_a_class_never_saw_is_refused_by_pmml(tmp_path):
    model, _ = gaussian_column_a_class_never_saw()
    with pytest.raises(ValueError, match=r"Gaussian column 'x'.*\['b'\]"):
        export(model, tmp_path / "model.pmml")
    assert list(tmp_path.iterdir()) == []


def test_gaussian_column_a_class_never_saw_adds_nothing_for_it_in_onnx(tmp_path):
    from tests.exporters.conftest import onnx_scores

    model, frame = gaussian_column_a_class_never_saw()
    rows = pd.concat([frame, pd.DataFrame({"x": [2.5, 40.0, -3.0], "c": ["q", None, "unseen"]})], ignore_index=True)
    export(model, tmp_path / "model.onnx")
    labels, probabilities = onnx_scores(tmp_path / "model.onnx", rows, model.classes_)
    assert np.max(np.abs(probabilities - model.predict_proba(rows))) < 1e-6
    assert labels.tolist() == model.predict(rows).tolist()


@pytest.mark.parametrize("numeric", ["binned", "gaussian"])
def test_arff_file_with_numeric_and_nominal_attributes(assert_exported_scores_as_model, tmp_path, numeric):
    rows, play = weather(120, seed=11, missing=((0, 17), (2, 13)))
    path = tmp_path / "weather.arff"
    write_arff(path, rows, play)
    model = nb.NaiveBayes(numeric=numeric, n_partitions=2).fit(str(path), "play")
    assert_exported_scores_as_model(model, rows)


def test_integer_float_and_boolean_categories(assert_exported_scores_as_model):
    rng = np.random.default_rng(0)
    n = 200
    X = pd.DataFrame({"k": rng.integers(0, 4, n), "f": rng.choice([0.5, 1.0, 2.0], n), "b": rng.random(n) < 0.4})
    y = np.where((X["k"] == 1) ^ X["b"] ^ (rng.random(n) < 0.2), "a", "b")
    model = nb.NaiveBayes(categorical_features=["k", "f", "b"]).fit(X, y)
    assert set(model.feature_kinds_.values()) == {"categorical"}
    assert_exported_scores_as_model(model, X)


def test_integer_category_range_and_uniform_prior(assert_exported_scores_as_model):
    rng = np.random.default_rng(4)
    n = 200
    X = pd.DataFrame({"k": rng.choice([0, 1, 3, 5], n), "m": rng.integers(0, 3, n)})
    y = np.where((X["k"] == 1) ^ (rng.random(n) < 0.2), "a", "b")
    model = nb.NaiveBayes(categorical_features="all", integer_categories="range", min_categories=[4, 6],
                          fit_prior=False).fit(X, y)
    rows = pd.DataFrame({"k": [2, 4, 5, 0], "m": [4, 5, 1, 3]})  # 2, 4 (k) and 3..5 (m) never seen, within range
    assert not np.allclose(model.predict_proba(rows[:1]), nb.NaiveBayes(
        categorical_features="all", fit_prior=False).fit(X, y).predict_proba(rows[:1]))
    assert_exported_scores_as_model(model, rows)

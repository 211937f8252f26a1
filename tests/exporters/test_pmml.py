"""PMML export scored by jpmml_evaluator against predict_proba."""

import numpy as np
import pandas as pd
import pytest

import nbparallel as nb
from nbparallel.exporters import export

jpmml = pytest.importorskip("jpmml_evaluator")


def categorical_frame(seed, n=300):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n)})
    frame["y"] = np.where((frame["a"] == "x") ^ (rng.random(n) < 0.3), "yes", "no")
    return frame


@pytest.mark.parametrize("n_partitions", [1, 3])
def test_categorical_naive_bayes_scored_by_jpmml(tmp_path, n_partitions):
    frame = categorical_frame(0)
    model = nb.NaiveBayes(n_partitions=n_partitions).fit(frame[["a", "b"]], frame["y"])
    path = tmp_path / "model.pmml"
    export(model, path)
    evaluator = jpmml.make_evaluator(str(path)).verify()
    result = evaluator.evaluateAll(frame[["a", "b"]])
    expected = model.predict_proba(frame[["a", "b"]])
    got = result[[f"probability({c})" for c in model.classes_]].to_numpy()
    assert np.max(np.abs(got - expected)) < 1e-6
    assert list(result["label"]) == list(model.predict(frame[["a", "b"]]))


def test_unknown_suffix_is_one_clear_error(tmp_path):
    frame = categorical_frame(1, 30)
    model = nb.NaiveBayes().fit(frame[["a", "b"]], frame["y"])
    with pytest.raises(ValueError, match="unknown suffix"):
        export(model, tmp_path / "model.xyz")
    assert list(tmp_path.iterdir()) == []


def test_missing_values_and_unseen_categories_add_nothing(tmp_path):
    frame = categorical_frame(2)
    model = nb.NaiveBayes().fit(frame[["a", "b"]], frame["y"])
    path = tmp_path / "model.pmml"
    export(model, path)
    rows = pd.DataFrame({"a": ["x", None, "unseen", "y"], "b": ["p", "q", None, "other"]})
    result = jpmml.make_evaluator(str(path)).verify().evaluateAll(rows)
    got = result[[f"probability({c})" for c in model.classes_]].to_numpy()
    assert np.max(np.abs(got - model.predict_proba(rows))) < 1e-6


@pytest.mark.parametrize("n_partitions", [1, 4])
def test_binned_iris_scored_by_jpmml(tmp_path, n_partitions):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True, as_frame=True)
    model = nb.NaiveBayes(n_partitions=n_partitions).fit(X, y)
    path = tmp_path / "iris.pmml"
    export(model, path)
    result = jpmml.make_evaluator(str(path)).verify().evaluateAll(X)
    got = result[[f"probability({c})" for c in model.classes_]].to_numpy()
    assert np.max(np.abs(got - model.predict_proba(X))) < 1e-6
    assert [str(v) for v in result["label"]] == [str(v) for v in model.predict(X)]

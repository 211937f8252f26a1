"""Export of the text models (a softmax RegressionModel in PMML, a MatMul in ONNX) and of boosting (a
MiningModel; an ONNX graph of the rounds' votes), scored by the JPMML evaluator and onnxruntime against
predict_proba; the models and paths export refuses, one clear error each and no file."""

import os
import stat

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

import nbparallel as nb
from nbparallel.exporters import export


def word_counts(seed, n=150, n_words=12):
    """Counts whose rates depend on the class (three classes), some rows long enough that the joint
    log-likelihood is far below what exp can hold."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam", "eggs"], n)
    rates = rng.uniform(0.2, 3.0, (3, n_words))
    counts = rng.poisson(rates[pd.Series(y).map({"ham": 0, "spam": 1, "eggs": 2}).to_numpy()])
    counts[:5] *= 400
    return counts, y


def as_frame(counts):
    return pd.DataFrame(counts, columns=[f"x{j}" for j in range(counts.shape[1])])


@pytest.mark.parametrize("n_partitions", [1, 3])
@pytest.mark.parametrize("model", [
    nb.MultinomialNaiveBayes(), nb.MultinomialNaiveBayes(alpha=0.3, fit_prior=False),
    nb.BernoulliNaiveBayes(), nb.BernoulliNaiveBayes(binarize=1.5), nb.BernoulliNaiveBayes(binarize=None),
    nb.ComplementNaiveBayes(), nb.ComplementNaiveBayes(norm=True),
], ids=lambda m: repr(m))
def test_text_models_fitted_on_arrays(assert_exported_scores_as_model, model, n_partitions):
    counts, y = word_counts(0)
    if getattr(model, "binarize", 0.0) is None:
        counts = (counts > 0).astype(np.int64)
    model = model.set_params(n_partitions=n_partitions).fit(counts, y)
    assert_exported_scores_as_model(model, as_frame(counts), counts)


def test_text_model_fields_are_its_feature_names(assert_exported_scores_as_model, tmp_path):
    counts, y = word_counts(1)
    frame = pd.DataFrame(counts, columns=[f"word_{j}" for j in range(counts.shape[1])])
    model = nb.MultinomialNaiveBayes().fit(frame, y)
    assert_exported_scores_as_model(model, frame)
    export(model, tmp_path / "named.pmml")
    assert 'name="word_0"' in (tmp_path / "named.pmml").read_text()


@pytest.mark.parametrize("n_partitions, n_bins", [(1, 10), (3, 10), (2, "mdl")])
def test_boosted_naive_bayes_is_a_weighted_vote(assert_exported_scores_as_model, n_partitions, n_bins):
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:, :8]
    model = nb.BoostedNaiveBayes(n_rounds=4, n_bins=n_bins, n_partitions=n_partitions).fit(X, y)
    assert len(model.estimators_) > 1
    assert_exported_scores_as_model(model, X.iloc[::2])


def test_boosted_naive_bayes_with_categorical_columns(assert_exported_scores_as_model):
    rng = np.random.default_rng(4)
    n = 300
    frame = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n), "c": rng.normal(0, 1, n)})
    y = np.where((frame["a"] == "x") ^ (frame["b"] == "p") ^ (rng.random(n) < 0.1), "yes", "no")
    model = nb.BoostedNaiveBayes(n_rounds=6, n_partitions=2).fit(frame, y)
    assert len(model.estimators_) > 1
    assert_exported_scores_as_model(model, pd.concat([frame.iloc[:60], pd.DataFrame({"a": ["w", None], "b": ["p", "q"],
                                                                                  "c": [None, 0.3]})]))


def test_boosted_naive_bayes_on_iris(assert_exported_scores_as_model):
    X, y = load_iris(return_X_y=True, as_frame=True)
    model = nb.BoostedNaiveBayes(n_rounds=5, n_partitions=2).fit(X, y)
    assert_exported_scores_as_model(model, X)


@pytest.mark.parametrize("fmt", ["pmml", "onnx"])
@pytest.mark.parametrize("model, message", [
    (nb.NaiveBayes(), "export needs a fitted model"),
    ("not a model", "export supports NaiveBayes"),
])
def test_unsupported_model_is_one_clear_error(tmp_path, model, message, fmt):
    with pytest.raises(ValueError, match=f"{fmt.upper()} {message}"):
        export(model, tmp_path / f"model.{fmt}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", ["pmml", "onnx"])
def test_model_of_another_library_is_one_clear_error(tmp_path, fmt):
    from sklearn.naive_bayes import GaussianNB

    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=f"{fmt.upper()} export supports .* got GaussianNB"):
        export(GaussianNB().fit(X, y), tmp_path / f"model.{fmt}")
    assert list(tmp_path.iterdir()) == []


def test_onnx_export_without_the_onnx_package_says_how_to_install_it(tmp_path, monkeypatch):
    import sys

    X, y = load_iris(return_X_y=True, as_frame=True)
    model = nb.NaiveBayes().fit(X, y)
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'nbparallel\[export\]'"):
        export(model, tmp_path / "model.onnx")
    assert list(tmp_path.iterdir()) == []


def test_onnx_graph_has_a_named_input_per_column_and_the_documented_outputs(tmp_path):
    import onnx

    frame = pd.DataFrame({"colour": ["red", "blue", "red", None], "size": [1.0, 2.5, None, 4.0],
                          "weight": [3.0, 1.0, 2.0, 5.0]})
    model = nb.NaiveBayes(numeric={"weight": "gaussian"}).fit(frame, [1, 2, 1, 2])
    export(model, tmp_path / "model.onnx")
    graph = onnx.load(tmp_path / "model.onnx").graph
    element = {i.name: (i.type.tensor_type.elem_type, [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim])
               for i in [*graph.input, *graph.output]}
    tensor = onnx.TensorProto
    assert element == {"colour": (tensor.STRING, ["N", 1]), "size": (tensor.DOUBLE, ["N", 1]),
                       "weight": (tensor.DOUBLE, ["N", 1]), "label": (tensor.INT64, ["N"]),
                       "probabilities": (tensor.DOUBLE, ["N", 2])}


@pytest.mark.parametrize("name", ["model.xyz", "model", "model.pmml.gz"])
def test_unknown_suffix_is_one_clear_error(tmp_path, name):
    X, y = load_iris(return_X_y=True, as_frame=True)
    with pytest.raises(ValueError, match="unknown suffix"):
        export(nb.NaiveBayes().fit(X, y), tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_missing_output_directory_is_one_clear_error(tmp_path):
    X, y = load_iris(return_X_y=True, as_frame=True)
    with pytest.raises(ValueError, match="output directory .* does not exist"):
        export(nb.NaiveBayes().fit(X, y), tmp_path / "absent" / "model.pmml")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".pmml", ".onnx"])
def test_exported_files_follow_the_umask_as_model_files_do(tmp_path, suffix):
    X, y = load_iris(return_X_y=True, as_frame=True)
    model = nb.NaiveBayes().fit(X, y)
    old = os.umask(0o027)
    try:
        export(model, tmp_path / f"model{suffix}")
        model.save(tmp_path / "model.json")
    finally:
        os.umask(old)
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in tmp_path.iterdir()}
    assert modes == {f"model{suffix}": 0o640, "model.json": 0o640}

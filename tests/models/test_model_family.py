"""The rules every estimator shares (one base): what a fresh fit clears, feature names, scoring keys."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss, roc_auc_score

from nbparallel import AutoClass, BoostedNaiveBayes, MultinomialNaiveBayes, NaiveBayes, SelectedNaiveBayes
from nbparallel.models.params import InvalidParameterError


def _frame():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 3, 80), "b": rng.normal(size=80), "c": rng.integers(0, 5, 80)})
    y = (X["a"] + (X["b"] > 0)) % 2
    return X, y.to_numpy()


ESTIMATORS = [NaiveBayes(alpha=1.0), BoostedNaiveBayes(n_rounds=3), AutoClass(n_restarts=1, max_iter=3, random_state=0),
              SelectedNaiveBayes(), MultinomialNaiveBayes()]


@pytest.mark.parametrize("model", ESTIMATORS, ids=lambda m: type(m).__name__)
def test_refit_on_an_ndarray_forgets_the_dataframe_names(model):
    X, y = _frame()
    X = X.abs() if isinstance(model, MultinomialNaiveBayes) else X
    if isinstance(model, (NaiveBayes, BoostedNaiveBayes)):
        model.fit(X.assign(label=y), "label")
        assert model.target_column_ == "label"
    else:
        model.fit(X, y)
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    model.fit(X.to_numpy(), y)
    assert not hasattr(model, "feature_names_in_") and not hasattr(model, "target_column_")
    assert model.n_features_in_ == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning about names: the ndarray fit has none
        model.predict(X.to_numpy()[:5])


@pytest.mark.parametrize("model", ESTIMATORS, ids=lambda m: type(m).__name__)
def test_every_estimator_follows_the_base_rules(model):
    from sklearn.base import clone, is_classifier

    params = model.get_params()
    copy = clone(model)  # sklearn's clone checks every parameter comes back unchanged from __init__
    assert copy is not model and copy.get_params() == params
    assert copy.set_params(**params) is copy and copy.get_params() == params
    assert not hasattr(copy, "n_features_in_")  # a clone is unfitted
    assert is_classifier(model) == (not isinstance(model, AutoClass))  # AutoClass clusters; the rest classify


@pytest.mark.parametrize("model", [m for m in ESTIMATORS if not isinstance(m, AutoClass)],
                         ids=lambda m: type(m).__name__)
def test_evaluate_is_one_report_for_every_classifier(model):
    X, y = _frame()
    X = X.abs() if isinstance(model, MultinomialNaiveBayes) else X
    model.fit(X, y)
    report = model.evaluate(X, y)
    assert set(report) == {"accuracy", "classification_error", "confusion_matrix", "precision", "recall", "f1",
                           "average_log_likelihood", "log_loss", "roc_auc", "roc_auc_error_bound", "n_rows"}
    predicted = model.predict(X)
    assert report["accuracy"] == pytest.approx(np.mean(predicted == y))
    assert report["n_rows"] == len(y)
    log_posterior = model.predict_log_proba(X)[np.arange(len(y)), np.searchsorted(model.classes_, y)]
    assert report["average_log_likelihood"] == pytest.approx(log_posterior.mean())
    proba = model.predict_proba(X)
    assert report["log_loss"] == pytest.approx(log_loss(y, proba, labels=model.classes_), rel=1e-9)
    exact = roc_auc_score(y, proba[:, 1]) if len(model.classes_) == 2 else roc_auc_score(
        y, proba, multi_class="ovr", labels=model.classes_)
    assert abs(report["roc_auc"] - exact) <= report["roc_auc_error_bound"] + 1e-12
    with pytest.raises(ValueError, match="evaluate needs y"):
        model.evaluate(X)


@pytest.mark.parametrize("make, name", [
    (lambda: NaiveBayes(alpha=-1.0), "alpha"), (lambda: BoostedNaiveBayes(n_rounds=0), "n_rounds"),
    (lambda: AutoClass(tol=float("nan")), "tol"), (lambda: NaiveBayes(split_every=1.5), "split_every"),
])
def test_parameters_are_checked_at_fit_by_the_declared_constraints(make, name):
    X, y = _frame()
    with pytest.raises(InvalidParameterError, match=f"The '{name}' parameter of .* must be"):
        make().fit(X, y)


def test_log_probabilities_are_keyed_by_input_column_with_value_labels():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, 3, 90), "c": rng.choice(["p", "q"], 90), "h": rng.normal(size=90)})
    y = rng.integers(0, 2, 90)
    model = NaiveBayes(numeric={"h": "gaussian"}, n_bins=3, alpha=1.0).fit(frame, y)
    assert list(model.log_probabilities_) == ["x", "c", "h"]  # input order, not the table's categorical-first
    c = model.log_probabilities_["c"]
    assert list(c.index) == ["p", "q"] and list(c.columns) == [0, 1]
    counts = pd.crosstab(frame["c"], y).to_numpy()
    np.testing.assert_allclose(c.to_numpy(), np.log((counts + 1) / (counts.sum(axis=0) + 2)))
    x = model.log_probabilities_["x"]
    edges = model.bin_edges_["x"]
    assert x.index[0] == f"(-inf, {edges[0]:g}]" and x.index[-1] == f"({edges[-1]:g}, inf]"
    np.testing.assert_allclose(model.log_probabilities_["h"].loc["theta"], model.theta_[:, 0])

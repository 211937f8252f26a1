"""NaiveBayes called as scikit-learn's naive Bayes is called: the positional arguments mean what they mean
there, and a refused call leaves the model as it was."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB, GaussianNB

from nbparallel import NaiveBayes


def test_partial_fit_takes_classes_third_as_scikit_learn():
    X, y = np.array([[0.0], [2.0], [4.0]]), np.array([1, 2, 2])
    ours = NaiveBayes(numeric="gaussian", class_alpha=1e-12).partial_fit(X, y, [1, 2, 3])
    theirs = GaussianNB().partial_fit(X, y, [1, 2, 3])
    assert ours.classes_.tolist() == theirs.classes_.tolist() == [1, 2, 3]
    assert np.allclose(ours.theta_, theirs.theta_, rtol=0, atol=1e-12)  # [0, 3, 0]: no row weighted


def test_partial_fit_and_fit_take_sample_weight_by_name_and_position_as_scikit_learn():
    X, y, w = np.array([[0], [1], [1], [0]]), np.array([0, 1, 1, 0]), np.array([1.0, 2.0, 0.5, 3.0])
    by_name = NaiveBayes(categorical_features="all", alpha=1.0).partial_fit(X, y, classes=[0, 1], sample_weight=w)
    fourth = NaiveBayes(categorical_features="all", alpha=1.0).partial_fit(X, y, [0, 1], w)
    fitted = NaiveBayes(categorical_features="all", alpha=1.0).fit(X, y, w)
    theirs = CategoricalNB(alpha=1.0).fit(X, y, w)
    for model in (by_name, fourth, fitted):
        assert np.allclose(model.feature_log_prob_[0].T, theirs.feature_log_prob_[0], rtol=0, atol=1e-14)


def state(model):
    """Every attribute of a model, the arrays as lists and the rest as their text (what a change would show)."""
    return {name: np.asarray(value).tolist() if isinstance(value, np.ndarray) else repr(value)
            for name, value in vars(model).items()}


def test_a_refused_partial_fit_leaves_the_model_as_it_was(tmp_path):
    model = NaiveBayes(categorical_features="all", class_prior=[.5, .5]).partial_fit(np.array([[0], [1]]), [0, 1])
    before, proba = state(model), model.predict_proba([[0]])
    model.save(tmp_path / "before.json")
    with pytest.raises(ValueError, match="class_prior"):
        model.partial_fit(np.array([[1]]), [2])  # a third class, with two priors
    assert state(model) == before
    assert model.classes_.tolist() == [0, 1]
    assert np.array_equal(model.predict_proba([[0]]), proba)
    model.save(tmp_path / "after.json")
    assert json.loads((tmp_path / "after.json").read_text()) == json.loads((tmp_path / "before.json").read_text())
    model.partial_fit(np.array([[1]]), [1])  # and it goes on as if the refused batch never came
    again = NaiveBayes(categorical_features="all", class_prior=[.5, .5]).fit(np.array([[0], [1], [1]]), [0, 1, 1])
    assert model.counts_.equals(again.counts_)


def test_a_refused_first_fit_or_partial_fit_leaves_the_model_unfitted():
    from sklearn.exceptions import NotFittedError

    for call in ("fit", "partial_fit"):
        model = NaiveBayes(numeric="gaussian", class_prior=[.5, .5])
        with pytest.raises(ValueError, match="class_prior"):
            getattr(model, call)(np.array([[0.0], [1.0], [2.0]]), [0, 1, 2])
        assert not [name for name in vars(model) if name.endswith("_")]
        with pytest.raises(NotFittedError):
            model.predict(np.array([[0.0]]))
        model.set_params(class_prior=None)
        getattr(model, call)(np.array([[0.0], [1.0], [2.0]]), [0, 1, 2])  # then fits as a fresh model
        assert model.classes_.tolist() == [0, 1, 2]


def test_a_refused_refit_keeps_the_fitted_model():
    model = NaiveBayes(categorical_features="all").fit(pd.DataFrame({"a": ["x", "y"]}), [0, 1])
    before = state(model)
    with pytest.raises(ValueError):
        model.fit(pd.DataFrame({"a": ["x", "y"]}), [0, 0])  # one class
    assert state(model) == before

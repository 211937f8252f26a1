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

"""ComplementNaiveBayes against scikit-learn's ComplementNB: dense, sparse and Dask input, any partitioning."""

import dask.array as da
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import KFold, cross_val_score
from sklearn.naive_bayes import ComplementNB

from nbparallel import ComplementNaiveBayes, cross_validate, load


def counts(n=300, n_features=40, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam", "eggs"], n, p=[0.7, 0.2, 0.1])
    rates = rng.gamma(1.0, 1.0, (3, n_features))
    X = rng.poisson(rates[np.searchsorted(["eggs", "ham", "spam"], y)])
    return X, y


@pytest.mark.parametrize("params", [{}, {"alpha": 0.3, "norm": True}, {"alpha": np.linspace(0.1, 2, 40)}])
@pytest.mark.parametrize("form, n_partitions", [("dense", 1), ("sparse", 4), ("dask", None)])
def test_equals_sklearn_complement_nb(params, form, n_partitions):
    X, y = counts()
    w = np.random.default_rng(1).integers(1, 4, len(y)).astype(float)
    reference = ComplementNB(**params).fit(X, y, sample_weight=w)
    data = {"dense": X, "sparse": sp.csr_matrix(X), "dask": da.from_array(X, chunks=(70, 40))}[form]
    model = ComplementNaiveBayes(n_partitions=n_partitions, **params)
    model.fit(data, y, sample_weight=w)
    np.testing.assert_array_equal(model.classes_, reference.classes_)
    np.testing.assert_allclose(model.feature_count_, reference.feature_count_, rtol=0, atol=0)
    np.testing.assert_allclose(model.feature_all_, reference.feature_all_, rtol=0, atol=0)
    np.testing.assert_allclose(model.feature_log_prob_, reference.feature_log_prob_, rtol=1e-12)
    X_test, _ = counts(n=120, seed=5)
    np.testing.assert_array_equal(model.predict(X_test), reference.predict(X_test))
    np.testing.assert_allclose(model.predict_proba(X_test), reference.predict_proba(X_test), rtol=1e-9, atol=1e-12)


def test_single_class_uses_the_prior_and_saved_model_predicts_the_same(tmp_path):
    X, _ = counts(n=50)
    y = np.array(["only"] * 50)
    reference = ComplementNB().fit(X, y)
    model = ComplementNaiveBayes().fit(X, y)
    np.testing.assert_allclose(model.predict_log_proba(X), reference.predict_log_proba(X))
    X, y = counts()
    model = ComplementNaiveBayes(n_partitions=3).fit(sp.csr_matrix(X), y)
    model.save(tmp_path / "c.json")
    loaded = load(tmp_path / "c.json")
    assert type(loaded) is ComplementNaiveBayes
    np.testing.assert_array_equal(loaded.feature_log_prob_, model.feature_log_prob_)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_partial_fit_equals_fit_and_cross_validation_equals_separate_fits():
    X, y = counts()
    whole = ComplementNaiveBayes().fit(X, y)
    pieces = ComplementNaiveBayes().partial_fit(X[:100], y[:100], classes=np.unique(y)).partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(pieces.feature_log_prob_, whole.feature_log_prob_)
    result = cross_validate(ComplementNaiveBayes(n_partitions=3), sp.csr_matrix(X), y, cv=5)
    np.testing.assert_array_equal(result["test_accuracy"], cross_val_score(ComplementNB(), X, y, cv=KFold(5)))


@pytest.mark.parametrize("params, match", [({"norm": "yes"}, "norm"), ({"alpha": -1.0}, "alpha")])
def test_bad_parameters_name_the_parameter(params, match):
    X, y = counts(n=30)
    with pytest.raises((ValueError, TypeError), match=match):
        ComplementNaiveBayes(**params).fit(X, y)


def test_negative_counts_are_refused():
    X, y = counts(n=30)
    X = X.astype(float)
    X[0, 0] = -1
    with pytest.raises(ValueError):
        ComplementNaiveBayes().fit(X, y)

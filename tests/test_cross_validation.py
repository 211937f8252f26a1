"""One-pass k-fold cross-validation against k separate fits (scikit-learn's cross_val_score)."""

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

from nbparallel import NaiveBayes, SelectedNaiveBayes, cross_validate
from nbparallel.cross_validation import Folds


def categorical_frame(n=480, seed=0):
    """Strings with missing values; a class depends on one attribute, and some categories are rare."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({c: pd.Series(rng.choice(list("abcd") + [None], n), dtype=object) for c in "pqr"})
    X["rare"] = pd.Series(np.where(rng.random(n) < 0.02, "seldom", "often"), dtype=object)
    y = np.where(rng.random(n) < 0.4, "x", np.where(X.p == "a", "y", "z"))
    return X, y


@pytest.mark.parametrize("cv", [KFold(5), KFold(7, shuffle=True, random_state=2),
                                StratifiedKFold(4, shuffle=True, random_state=1)])
@pytest.mark.parametrize("params", [{}, {"alpha": 1.0, "class_alpha": 0.5}])
def test_equals_k_separate_fits_on_categorical_data(cv, params):
    X, y = categorical_frame()
    result = cross_validate(NaiveBayes(n_partitions=3, **params), X, y, cv=cv)
    accuracy = cross_val_score(NaiveBayes(**params), X, y, cv=cv)
    log_loss = cross_val_score(NaiveBayes(**params), X, y, cv=cv, scoring="neg_log_loss")
    np.testing.assert_array_equal(result["test_accuracy"], accuracy)
    np.testing.assert_allclose(result["test_log_likelihood"], log_loss, rtol=1e-12, atol=1e-14)
    assert [p["kind"] for p in result["passes"]] == ["schema", "count", "score"]


def test_integer_folds_are_unshuffled_kfold_and_weights_count():
    X, y = categorical_frame(n=203)
    result = cross_validate(NaiveBayes(), X, y, cv=6)
    np.testing.assert_array_equal(result["test_accuracy"], cross_val_score(NaiveBayes(), X, y, cv=KFold(6)))
    assert result["n_test_rows"].tolist() == [34] * 5 + [33]
    # integer weights are duplicated rows: the same training counts
    w = np.random.default_rng(1).integers(1, 3, len(y)).astype(float)
    weighted = cross_validate(NaiveBayes(), X, y, cv=KFold(6), sample_weight=w)
    for i, (train, test) in enumerate(KFold(6).split(X)):
        rows = np.repeat(train, w[train].astype(int))
        model = NaiveBayes().fit(X.iloc[rows], y[rows])
        assert weighted["test_accuracy"][i] == model.score(X.iloc[test], y[test])


@pytest.mark.parametrize("n_partitions", [1, 3, 8])
def test_same_result_for_any_partitioning_lazy_or_not(n_partitions):
    X, y = categorical_frame()
    frame = X.assign(t=y)
    reference = cross_validate(NaiveBayes(n_partitions=1), X, y, cv=5)
    for result in (cross_validate(NaiveBayes(n_partitions=n_partitions), X, y, cv=5),
                   cross_validate(NaiveBayes(), dd.from_pandas(frame, npartitions=n_partitions), "t", cv=5)):
        np.testing.assert_array_equal(result["test_accuracy"], reference["test_accuracy"])
        np.testing.assert_array_equal(result["confusion_matrices"], reference["confusion_matrices"])
        np.testing.assert_allclose(result["test_log_likelihood"], reference["test_log_likelihood"], rtol=1e-12)
    lazy = cross_validate(NaiveBayes(), dd.from_pandas(frame, npartitions=n_partitions), "t", cv=5)
    assert [p["kind"] for p in lazy["passes"]] == ["lengths", "schema", "count", "score"]


def test_numeric_bins_come_from_all_rows_and_differ_little():
    X, y = load_breast_cancer(return_X_y=True)
    result = cross_validate(NaiveBayes(), X, y, cv=10)
    separate = cross_val_score(NaiveBayes(), X, y, cv=KFold(10))
    # bins cut from all rows, not each training fold: close to but not exactly the separate fits
    assert abs(result["test_accuracy"].mean() - separate.mean()) < 0.01
    assert np.abs(result["test_accuracy"] - separate).max() < 0.05


def test_folds_blocks():
    assert Folds.blocks(7, 3).of(2, 5).tolist() == [0, 1, 1, 2, 2]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"cv": 1}, ValueError, "cv must be an int"),
    ({"cv": 10_000}, ValueError, "cv must be an int"),
    ({"scoring": ("f1",)}, ValueError, "scoring"),
])
def test_bad_arguments(kwargs, error, match):
    X, y = categorical_frame(n=50)
    with pytest.raises(error, match=match):
        cross_validate(NaiveBayes(), X, y, **kwargs)


def test_other_estimators_and_lazy_splitters_are_refused():
    X, y = categorical_frame(n=50)
    with pytest.raises(TypeError, match="NaiveBayes"):
        cross_validate(SelectedNaiveBayes(), X, y)
    with pytest.raises(TypeError, match="in-memory"):
        cross_validate(NaiveBayes(), dd.from_pandas(X.assign(t=y), npartitions=2), "t", cv=KFold(3))


def test_cli_cv(tmp_path, capsys):
    from nbparallel.cli import main

    X, y = categorical_frame(n=120)
    X.assign(t=y).to_csv(tmp_path / "d.csv", index=False)
    assert main(["cv", str(tmp_path / "d.csv"), "--target", "t", "--folds", "4", "--quiet"]) == 0
    out = capsys.readouterr().out
    expected = cross_val_score(NaiveBayes(), pd.read_csv(tmp_path / "d.csv").drop(columns="t"),
                               pd.read_csv(tmp_path / "d.csv")["t"], cv=KFold(4)).mean()
    assert f"mean accuracy {expected:.4f}" in out
    assert "count (" in out and "score (" in out

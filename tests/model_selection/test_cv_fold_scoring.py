"""Cross-validation's scoring pass (each partition encoded once, each fold's rows scored from their codes)
against k separate fits scored one by one, for the folds cross_validate makes itself."""

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes, cross_validate
from nbparallel.data.partitions import PartitionInfo
from nbparallel.model_selection.folds import Folds, class_count_matrix, tally_classes


def mixed_frame(n=900, seed=0):
    """A pandas category column, a string column with missing values, an integer column and a float column
    (binned); the class depends on two of them."""
    rng = np.random.default_rng(seed)
    levels = np.array(["lo", "mid", "hi", "top"])
    cat = pd.Categorical.from_codes(rng.integers(0, 4, n), levels)
    text = pd.Series(rng.choice(["u", "v", "w", None], n), dtype=object)
    count = rng.integers(0, 7, n)
    level = rng.normal(size=n)
    y = np.where(rng.random(n) < 0.3, "c0", np.where((cat.codes > 1) ^ (level > 0), "c1", "c2"))
    return pd.DataFrame({"cat": cat, "text": text, "count": count, "level": level}), y


def fold_labels(folds, y, classes):
    """Each row's fold as cross_validate computes it for one partition holding every row."""
    codes = np.searchsorted(classes, y)
    return folds.of(PartitionInfo(0, 0), len(y), codes)


def separate_scores(X, y, labels, k, params):
    """Accuracy and average log-likelihood of fold i's rows under a model fitted on the other folds, with
    the bins of the whole data (as cross-validation cuts them)."""
    ranges = {c: (float(X[c].min()), float(X[c].max())) for c in ("count", "level")}
    accuracy, log_likelihood = [], []
    for i in range(k):
        train, test = labels != i, labels == i
        model = NaiveBayes(numeric_ranges=ranges, **params).fit(X[train], y[train])
        proba = model.predict_proba(X[test])
        truth = np.searchsorted(model.classes_, y[test])
        accuracy.append(model.score(X[test], y[test]))
        log_likelihood.append(np.mean(np.log(proba[np.arange(len(truth)), truth])))
    return np.array(accuracy), np.array(log_likelihood)


@pytest.mark.parametrize("shuffle, stratify", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("n_partitions", [1, 4])
def test_own_folds_equal_separate_fits_on_mixed_columns(shuffle, stratify, n_partitions):
    X, y = mixed_frame()
    params = {"numeric_ranges": {c: (float(X[c].min()), float(X[c].max())) for c in ("count", "level")}}
    result = cross_validate(NaiveBayes(n_partitions=n_partitions, **params), X, y, cv=5, shuffle=shuffle,
                            stratify=stratify, random_state=11)
    classes = np.unique(y)
    if stratify:
        values, counts = tally_classes(y)
        tally, order = class_count_matrix([(values, counts)], lambda v: np.searchsorted(classes, v), len(classes))
        folds = Folds.stratified(tally, 5, 11 if shuffle else None, order=order)
    else:
        folds = Folds.shuffled(len(y), 5, 11)
    labels = fold_labels(folds, y, classes)
    accuracy, log_likelihood = separate_scores(X, y, labels, 5, {})
    np.testing.assert_array_equal(result["test_accuracy"], accuracy)
    np.testing.assert_allclose(result["test_log_likelihood"], log_likelihood, rtol=1e-12)
    assert result["n_test_rows"].tolist() == np.bincount(labels, minlength=5).tolist()


def test_contiguous_folds_across_partition_edges_equal_separate_fits():
    """Seven partitions and three folds: most partitions hold rows of two folds."""
    X, y = mixed_frame(n=700, seed=3)
    params = {"numeric_ranges": {c: (float(X[c].min()), float(X[c].max())) for c in ("count", "level")}}
    result = cross_validate(NaiveBayes(n_partitions=7, **params), X, y, cv=3)
    labels = Folds.blocks(len(y), 3).of(0, len(y))
    accuracy, log_likelihood = separate_scores(X, y, labels, 3, {})
    np.testing.assert_array_equal(result["test_accuracy"], accuracy)
    np.testing.assert_allclose(result["test_log_likelihood"], log_likelihood, rtol=1e-12)


def gapped_frame(n=1000, seed=5):
    """Two float columns and a category. The values of ``gap`` in (6, 7] (bin 6 of its ten over [0, 10]) lie
    in the first fifth of the rows only: the model of the first of five contiguous folds, fitted on the other
    rows, has that bin empty between non-empty ones (merged at the middle of the gap), the others do not."""
    rng = np.random.default_rng(seed)
    gap = rng.uniform(0, 10, n)
    later = np.arange(n) >= n // 5
    gap[later & (gap > 6) & (gap <= 7)] -= 2
    gap[:2] = 0.0, 10.0  # the range [0, 10]
    level = rng.uniform(0, 1, n)
    cat = pd.Categorical.from_codes(rng.integers(0, 3, n), ["a", "b", "c"])
    y = np.where(rng.random(n) < 0.3, "c0", np.where((gap > 5) ^ (level > 0.5), "c1", "c2"))
    return pd.DataFrame({"gap": gap, "cat": cat, "level": level}), y


@pytest.mark.parametrize("n_partitions", [1, 3])
def test_codes_kept_by_the_counting_pass_score_as_their_values(monkeypatch, n_partitions):
    """Float columns (the schema pass's route): the counting pass keeps each partition's values binned under
    the counting bins and the scoring pass scores them through each fold model's table of those bins, except
    for the first fold, whose rows lie in a counting bin its model's final bins split: its values are binned
    again. Every score equals that of the same cross-validation with nothing kept, and of separate fits."""
    import nbparallel.model_selection.cross_validation as cross_validation

    X, y = gapped_frame()
    ranges = {"gap": (0.0, 10.0), "level": (float(X.level.min()), float(X.level.max()))}
    estimator = NaiveBayes(n_partitions=n_partitions, numeric_ranges=ranges)
    by_model = {}
    inputs_of_counted = NaiveBayes.inputs_of_counted

    def recorded(model, counted):
        inputs = inputs_of_counted(model, counted)
        by_model.setdefault(id(model), set()).add(inputs is None)
        return inputs

    monkeypatch.setattr(NaiveBayes, "inputs_of_counted", recorded)
    result = cross_validate(estimator, X, y, cv=5)
    # one fold model (the first's) bins its rows' values again, every row of them
    assert sorted(tuple(v) for v in by_model.values()) == [(False,)] * 4 + [(True,)]
    monkeypatch.setattr(cross_validation, "keep_budget", lambda partitions: None)
    by_model.clear()
    unkept = cross_validate(estimator, X, y, cv=5)
    assert not by_model  # nothing kept: every fold's values binned under its model's bins
    for key in ("test_accuracy", "test_log_likelihood", "test_log_loss", "test_roc_auc", "confusion_matrices"):
        np.testing.assert_array_equal(result[key], unkept[key], err_msg=key)
    labels = Folds.blocks(len(y), 5).of(0, len(y))
    for i in range(5):
        train, test = labels != i, labels == i
        model = NaiveBayes(numeric_ranges=ranges).fit(X[train], y[train])
        proba = model.predict_proba(X[test])
        truth = np.searchsorted(model.classes_, y[test])
        assert result["test_accuracy"][i] == model.score(X[test], y[test])
        np.testing.assert_allclose(result["test_log_likelihood"][i],
                                   np.mean(np.log(proba[np.arange(len(truth)), truth])), rtol=1e-12)
    assert len(NaiveBayes(numeric_ranges=ranges).fit(X[labels != 0], y[labels != 0]).bin_edges_["gap"]) == 8


def numeric_frame(n=1200, seed=3):
    """An integer column, a float column with missing values, an all-missing one, a float32 one and a string
    column; three classes."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"i": rng.integers(-5, 40, n), "f": rng.normal(size=n), "none": np.full(n, np.nan),
                      "s": pd.Series(rng.choice(["a", "b", None], n), dtype=object),
                      "f32": rng.exponential(size=n).astype(np.float32)})
    X.loc[rng.random(n) < 0.1, "f"] = np.nan
    y = np.where(rng.random(n) < 0.4, "p", np.where(X.f.fillna(0) > 0, "q", "r"))
    return X, y


SCORES = ("test_accuracy", "test_log_likelihood", "test_log_loss", "test_roc_auc", "confusion_matrices")


@pytest.mark.filterwarnings("ignore")  # the all-missing column is ignored, and says so
@pytest.mark.parametrize("params", [{}, {"n_bins": 300}, {"numeric_ranges": {"f": (-1.0, 1.0)}}, {"n_bins": "mdl"}])
@pytest.mark.parametrize("weighted", [False, True])
def test_kept_codes_across_bins_weights_and_input_forms(tmp_path, monkeypatch, params, weighted):
    """Many bins (uint16 codes, fold models splitting counting bins), values outside fixed ranges, MDL
    intervals and weighted rows, in memory, as a Dask DataFrame and as Parquet files: the same scores as with
    nothing kept, whichever route each fold model takes."""
    import dask.dataframe as dd

    import nbparallel.model_selection.cross_validation as cross_validation

    X, y = numeric_frame()
    w = np.random.default_rng(0).integers(1, 3, len(y)).astype(float) if weighted else None
    frame = X.assign(y=y, **({"w": w} if weighted else {}))
    frame.iloc[:600].to_parquet(tmp_path / "a.parquet")
    frame.iloc[600:].to_parquet(tmp_path / "b.parquet")
    forms = {"arrays": (X, y, w), "Dask": (dd.from_pandas(frame, npartitions=3), "y", "w" if weighted else None),
             "Parquet": (tmp_path, "y", "w" if weighted else None)}
    estimator = NaiveBayes(n_partitions=2, **params)
    routes = []
    inputs_of_counted = NaiveBayes.inputs_of_counted
    monkeypatch.setattr(NaiveBayes, "inputs_of_counted",
                        lambda model, counted: routes.append(inputs_of_counted(model, counted) is None) or
                        inputs_of_counted(model, counted))
    kept = {name: cross_validate(estimator, X_, y_, cv=4, sample_weight=w_) for name, (X_, y_, w_) in forms.items()}
    monkeypatch.setattr(cross_validation, "keep_budget", lambda partitions: None)
    for name, (X_, y_, w_) in forms.items():
        expected = cross_validate(estimator, X_, y_, cv=4, sample_weight=w_)
        for key in SCORES:
            np.testing.assert_array_equal(kept[name][key], expected[key], err_msg=f"{name} {key}")
        # and the forms agree: the same folds and models, sums added in another order across partitions
        np.testing.assert_array_equal(kept[name]["confusion_matrices"], kept["arrays"]["confusion_matrices"])
        np.testing.assert_allclose(kept[name]["test_log_loss"], kept["arrays"]["test_log_loss"], rtol=1e-12)
    assert len(routes) >= 3 * 4  # every form kept codes
    if params.get("n_bins") != 300:  # 300 bins: some rows of every fold lie in bins its model splits
        assert not all(routes)


def test_rows_outside_split_bins_are_scored_from_their_codes(monkeypatch):
    """A small integer column binned into ten bins over [0, 6]: every fold model has empty bins between
    non-empty ones (no integer lies in them) merged at the middle of the gap, which splits a counting bin,
    but no row lies there, so every fold's rows are scored from the kept codes; the scores equal separate fits'."""
    X, y = mixed_frame(n=700, seed=3)
    X = X[["cat", "count"]]
    ranges = {"count": (0.0, 6.0)}
    routes = []
    inputs_of_counted = NaiveBayes.inputs_of_counted
    monkeypatch.setattr(NaiveBayes, "inputs_of_counted",
                        lambda model, counted: routes.append(inputs_of_counted(model, counted) is None) or
                        inputs_of_counted(model, counted))
    result = cross_validate(NaiveBayes(n_partitions=2, numeric_ranges=ranges), X, y, cv=4)
    assert routes and not any(routes)
    labels = Folds.blocks(len(y), 4).of(0, len(y))
    for i in range(4):
        train, test = labels != i, labels == i
        model = NaiveBayes(numeric_ranges=ranges).fit(X[train], y[train])
        assert len(model.bin_edges_["count"]) == 6  # seven integers: the empty bins between them merged
        proba = model.predict_proba(X[test])
        truth = np.searchsorted(model.classes_, y[test])
        assert result["test_accuracy"][i] == model.score(X[test], y[test])
        np.testing.assert_allclose(result["test_log_likelihood"][i],
                                   np.mean(np.log(proba[np.arange(len(truth)), truth])), rtol=1e-12)

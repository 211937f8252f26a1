"""One-pass k-fold cross-validation against k separate fits (scikit-learn's cross_val_score)."""

import tracemalloc

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
from sklearn.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB

from nbparallel import (
    BernoulliNaiveBayes,
    BoostedNaiveBayes,
    MultinomialNaiveBayes,
    NaiveBayes,
    SelectedNaiveBayes,
    cross_validate,
)
from nbparallel.model_selection.cross_validation import Folds
from nbparallel.summaries.moments import partition_moments


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
    # categorical data counted by value, its rows known beforehand: every fold's table in one pass
    assert [p["kind"] for p in result["passes"]] == ["count", "score"]


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
    # a Dask frame's rows per partition are known once read: fit's pass counts them, and the fold tables are
    # counted from the codes it kept
    assert [p["kind"] for p in lazy["passes"]] == ["count", "folds", "score"]


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
    for estimator in (SelectedNaiveBayes(), BoostedNaiveBayes(), GaussianNB()):
        with pytest.raises(TypeError, match=f"got {type(estimator).__name__}$"):
            cross_validate(estimator, X, y)
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
    assert "count (" in out and "score (" in out and "mean roc-auc" in out
    assert main(["cv", str(tmp_path / "d.csv"), "--target", "t", "--folds", "4", "--scoring", "accuracy",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"mean accuracy {expected:.4f}" in out and "roc-auc" not in out and "log-loss" not in out
    with pytest.raises(SystemExit):
        main(["cv", str(tmp_path / "d.csv"), "--target", "t", "--scoring", "accuracy,auc"])
    error = capsys.readouterr().err
    assert "must name some of accuracy, log_likelihood, log_loss, roc_auc, got 'accuracy,auc'" in error


def test_the_command_line_names_the_scorings_of_cross_validate():
    from nbparallel.cli import parser
    from nbparallel.model_selection import cross_validation

    assert parser.SCORINGS == cross_validation.SCORINGS


# ----------------------------------------------------------------- Gaussian attributes

def moments_of(values, classes, w, n_classes):
    return partition_moments(values[:, None], classes, w, n_classes, np.ones(len(classes), dtype=bool))


@pytest.mark.parametrize("seed", range(5))
def test_moments_subtract_inverts_chans_merge(seed):
    """rest = total - part against the moments of the rest computed directly, on data far from 0."""
    rng = np.random.default_rng(seed)
    n = 400
    values = 1e4 + rng.normal(0, 1 + 10 * rng.random(), n)
    values[rng.random(n) < 0.1] = np.nan
    classes = rng.integers(0, 3, n)
    classes[rng.random(n) < 0.05] = -1
    w = rng.random(n) * 3
    in_part = rng.random(n) < rng.uniform(0.05, 0.6)
    in_part[classes == 2] = True  # class 2 only in the part: the rest has no rows of it
    total = moments_of(values, classes, w, 3)
    part = moments_of(values[in_part], classes[in_part], w[in_part], 3)
    direct = moments_of(values[~in_part], classes[~in_part], w[~in_part], 3)
    rest = total - part
    np.testing.assert_allclose(rest.n, direct.n, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(rest.mean, direct.mean, rtol=1e-12)
    np.testing.assert_allclose(rest.m2, direct.m2, rtol=1e-9)
    assert rest.n[2, 0] == rest.mean[2, 0] == rest.m2[2, 0] == 0.0  # as a fit of no rows
    again = rest + part  # and Chan's merge undoes it
    np.testing.assert_allclose(again.mean, total.mean, rtol=1e-12)
    np.testing.assert_allclose(again.m2, total.m2, rtol=1e-9)


def assert_equals_separate_fits(estimator, X, y, cv, rtol=1e-9, **kwargs):
    result = cross_validate(estimator, X, y, cv=cv, **kwargs)
    accuracy = cross_val_score(estimator, X, y, cv=cv)
    log_loss = cross_val_score(estimator, X, y, cv=cv, scoring="neg_log_loss")
    np.testing.assert_array_equal(result["test_accuracy"], accuracy)
    np.testing.assert_allclose(result["test_log_likelihood"], log_loss, rtol=rtol)
    return result


@pytest.mark.parametrize("cv", [KFold(5, shuffle=True, random_state=0),
                                StratifiedKFold(4, shuffle=True, random_state=1)])
@pytest.mark.parametrize("var_smoothing", [1e-9, 0.05])
def test_gaussian_equals_k_separate_fits(cv, var_smoothing):
    """Moments per fold, total minus fold, and epsilon from each training fold's variances
    (with var_smoothing=0.05 a global epsilon would change the log-likelihood by far more than 1e-9)."""
    X, y = load_wine(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan  # skipped per (attribute, row)
    result = assert_equals_separate_fits(NaiveBayes(numeric="gaussian", var_smoothing=var_smoothing, n_partitions=3),
                                         X, y, cv)
    assert [p["kind"] for p in result["passes"]] == ["schema", "count", "score"]


def mixed_frame(n=300, seed=0):
    """Categorical strings and Gaussian numbers with missing values; two rows entirely missing."""
    X, y = categorical_frame(n, seed)
    rng = np.random.default_rng(seed)
    X["h"] = np.where(y == "x", 170.0, 160.0) + rng.normal(0, 8, n)
    X["g"] = 1e3 + rng.normal(0, 1, n) + (y == "z")
    X.loc[rng.random(n) < 0.1, "h"] = np.nan
    X.loc[[3, 200], :] = None
    X[["h", "g"]] = X[["h", "g"]].astype(float)
    return X, y


@pytest.mark.parametrize("params", [{"numeric": "gaussian"}, {"numeric": {"h": "gaussian", "g": "gaussian"},
                                                              "alpha": 1.0, "class_alpha": 0.5}])
def test_mixed_categorical_and_gaussian_equals_k_separate_fits(params):
    X, y = mixed_frame()
    assert_equals_separate_fits(NaiveBayes(n_partitions=4, **params), X, y, KFold(6, shuffle=True, random_state=3))


def test_categorical_binned_and_gaussian_together_equal_k_separate_fits():
    """With the bins' range fixed (numeric_ranges), a binned column has the same bins in every fit."""
    X, y = mixed_frame()
    model = NaiveBayes(numeric={"g": "gaussian"}, numeric_ranges={"h": (100.0, 250.0)}, n_partitions=2)
    assert_equals_separate_fits(model, X, y, KFold(5, shuffle=True, random_state=0))


def test_gaussian_matches_scikit_learn_gaussian_nb():
    X, y = load_wine(return_X_y=True)
    cv = KFold(5, shuffle=True, random_state=4)
    result = cross_validate(NaiveBayes(numeric="gaussian", class_alpha=1e-12), X, y, cv=cv)
    np.testing.assert_array_equal(result["test_accuracy"], cross_val_score(GaussianNB(), X, y, cv=cv))
    np.testing.assert_allclose(result["test_log_likelihood"],
                               cross_val_score(GaussianNB(), X, y, cv=cv, scoring="neg_log_loss"), rtol=1e-6)


@pytest.mark.parametrize("n_partitions", [1, 3, 8])
def test_gaussian_same_result_for_any_partitioning(n_partitions):
    X, y = mixed_frame()
    frame = X.assign(t=y)
    model = NaiveBayes(numeric="gaussian")
    reference = cross_validate(NaiveBayes(numeric="gaussian", n_partitions=1), X, y, cv=5)
    for result in (cross_validate(NaiveBayes(numeric="gaussian", n_partitions=n_partitions), X, y, cv=5),
                   cross_validate(model, dd.from_pandas(frame, npartitions=n_partitions), "t", cv=5)):
        np.testing.assert_array_equal(result["confusion_matrices"], reference["confusion_matrices"])
        np.testing.assert_allclose(result["test_log_likelihood"], reference["test_log_likelihood"], rtol=1e-12)


# ----------------------------------------------------------------- Multinomial and Bernoulli models

def word_counts(n=360, n_features=30, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.poisson(0.7, (n, n_features)).astype(float)
    X[y == 1, :4] += rng.poisson(1.5, ((y == 1).sum(), 4))
    X[y == 2, 4:8] += rng.poisson(1.0, ((y == 2).sum(), 4))
    return X, np.array(["ham", "spam", "eggs"])[y]


def as_kind(X, kind):
    if kind == "csr":
        return sp.csr_matrix(X)
    if kind == "csc":
        return sp.csc_matrix(X)
    if kind == "dask-sparse":
        return da.from_array(X, chunks=(100, -1)).map_blocks(sp.csr_matrix)
    if kind == "dask":
        return da.from_array(X, chunks=(70, -1))
    return X


@pytest.mark.parametrize("model, reference", [(MultinomialNaiveBayes, MultinomialNB),
                                              (BernoulliNaiveBayes, BernoulliNB)])
@pytest.mark.parametrize("kind", ["dense", "csr", "csc"])
def test_text_models_equal_k_separate_fits(model, reference, kind):
    X, y = word_counts()
    data = as_kind(X, kind)
    for cv in (KFold(5, shuffle=True, random_state=0), StratifiedKFold(4, shuffle=True, random_state=2)):
        result = assert_equals_separate_fits(model(alpha=0.5, n_partitions=3), data, y, cv, rtol=1e-12)
        # and scikit-learn's own model (the same model: counts, smoothing and priors)
        np.testing.assert_array_equal(result["test_accuracy"], cross_val_score(reference(alpha=0.5), X, y, cv=cv))
        np.testing.assert_allclose(result["test_log_likelihood"], cross_val_score(
            reference(alpha=0.5), X, y, cv=cv, scoring="neg_log_loss"), rtol=1e-9)
    assert [p["kind"] for p in result["passes"]] == ["count", "score"]


@pytest.mark.parametrize("model", [MultinomialNaiveBayes, BernoulliNaiveBayes])
def test_text_models_same_result_for_any_partitioning_and_dask_arrays(model):
    X, y = word_counts()
    reference = cross_validate(model(n_partitions=1), X, y, cv=6)
    np.testing.assert_array_equal(reference["test_accuracy"], cross_val_score(model(), X, y, cv=KFold(6)))
    results = [cross_validate(model(n_partitions=n), X, y, cv=6) for n in (2, 5, 9)]
    results += [cross_validate(model(), as_kind(X, kind), y, cv=6) for kind in ("dask", "dask-sparse")]
    for result in results:
        np.testing.assert_array_equal(result["confusion_matrices"], reference["confusion_matrices"])
        np.testing.assert_allclose(result["test_log_likelihood"], reference["test_log_likelihood"], rtol=1e-12)


def test_text_weighted_real_valued_counts_equal_separate_weighted_fits():
    """tf-idf-like values and float weights: the subtracted sums agree with separate fits to rounding."""
    X, y = word_counts()
    X = sp.csr_matrix(X * np.random.default_rng(1).random(X.shape[1]))
    w = np.random.default_rng(2).random(len(y)) * 2
    cv = KFold(4, shuffle=True, random_state=5)
    result = cross_validate(MultinomialNaiveBayes(alpha=0.1), X, y, cv=cv, sample_weight=w)
    for i, (train, test) in enumerate(cv.split(X)):
        fitted = MultinomialNB(alpha=0.1).fit(X[train], y[train], sample_weight=w[train])
        assert result["test_accuracy"][i] == fitted.score(X[test], y[test])
        proba = fitted.predict_log_proba(X[test])
        expected = proba[np.arange(len(test)), np.searchsorted(fitted.classes_, y[test])].mean()
        np.testing.assert_allclose(result["test_log_likelihood"][i], expected, rtol=1e-9)


def test_sparse_input_is_never_densified():
    """2^18 features: the dense matrix would take 400 MiB; the fold tables take a few."""
    rng = np.random.default_rng(0)
    n, n_features = 200, 2**18
    X = sp.random(n, n_features, density=1e-4, format="csr", random_state=0, data_rvs=lambda k: rng.integers(1, 4, k))
    y = rng.integers(0, 2, n)
    tracemalloc.start()
    result = cross_validate(MultinomialNaiveBayes(n_partitions=2), X, y, cv=3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 150 * 2**20, peak
    np.testing.assert_array_equal(result["test_accuracy"], cross_val_score(MultinomialNB(), X, y, cv=KFold(3)))


def test_text_models_refuse_splitters_on_dask_arrays_and_bad_counts():
    X, y = word_counts(n=60)
    with pytest.raises(TypeError, match="in-memory"):
        cross_validate(MultinomialNaiveBayes(), as_kind(X, "dask"), y, cv=KFold(3))
    X[0, 0] = -1
    with pytest.raises(ValueError, match="Negative values in data passed to MultinomialNaiveBayes"):
        cross_validate(MultinomialNaiveBayes(), X, y, cv=3)


# ----------------------------------------------------------------- counted by value, rows kept as codes

def coded_inputs(tmp_path):
    """The same rows as arrays, frames, Parquet and CSV files and Dask frames, with missing values."""
    rng = np.random.default_rng(41)
    n = 1500
    X = pd.DataFrame({"s": pd.Series(rng.choice(["a", "bb", "c", None], n), dtype=object),
                      "t": pd.Series(rng.choice(["x", "y", "z"], n), dtype="str"),
                      "c": pd.Categorical(rng.choice(["lo", "hi", None], n)),
                      "k": rng.integers(-3, 4, n)})
    y = np.array(["p", "q", "r"], dtype=object)[(rng.integers(0, 3, n) + (X.k.to_numpy() > 1)) % 3]
    data = X.assign(target=y)
    parquet, csv = tmp_path / "parquet", tmp_path / "csv"
    parquet.mkdir()
    csv.mkdir()
    for i, (a, b) in enumerate([(0, 600), (600, 601), (601, n)]):
        data.iloc[a:b].to_parquet(parquet / f"part{i}.parquet", index=False)
    for i, (a, b) in enumerate([(0, 700), (700, n)]):
        data.iloc[a:b].to_csv(csv / f"part{i}.csv", index=False)
    return X, y, {"frame": (X, y), "Parquet": (str(parquet), "target"), "CSV": (str(csv), "target"),
                  "Dask": (dd.from_pandas(data, npartitions=3), "target"),
                  "Dask read_parquet": (dd.read_parquet(str(parquet)), "target")}


FOLD_KINDS = {"contiguous": {}, "shuffled": {"shuffle": True, "random_state": 3},
              "stratified": {"stratify": True, "shuffle": True, "random_state": 4},
              "repeated": {"shuffle": True, "n_repeats": 2, "random_state": 5}}


@pytest.mark.parametrize("folds", FOLD_KINDS)
def test_by_value_equals_the_schema_pass_route_for_every_input_form(tmp_path, folds):
    """Counted by value (its rows known beforehand or not, its codes kept) as after a schema pass (rows of
    weight one take that route): the same folds and the same scores."""
    X, y, forms = coded_inputs(tmp_path)
    kwargs = FOLD_KINDS[folds]
    reference = cross_validate(NaiveBayes(n_partitions=3, categorical_features="all"), X, y, cv=5,
                               sample_weight=np.ones(len(y)), **kwargs)
    assert [p["kind"] for p in reference["passes"]] == ["schema", "count", "score"]
    for name, (data, target) in forms.items():
        model = NaiveBayes(n_partitions=3 if name == "frame" else None, categorical_features="all")
        result = cross_validate(model, data, target, cv=5, **kwargs)
        rows_known = name in ("frame", "Parquet", "Dask read_parquet") and folds != "stratified"
        assert [p["kind"] for p in result["passes"]] == (["count", "score"] if rows_known
                                                        else ["count", "folds", "score"]), name
        np.testing.assert_array_equal(result["confusion_matrices"], reference["confusion_matrices"], err_msg=name)
        np.testing.assert_array_equal(result["n_test_rows"], reference["n_test_rows"], err_msg=name)
        for score in ("log_likelihood", "log_loss", "roc_auc"):
            np.testing.assert_allclose(result[f"test_{score}"], reference[f"test_{score}"], rtol=1e-12, err_msg=name)
        if name == "frame":  # the same partitions: the same sums, bit for bit
            for score in ("accuracy", "log_likelihood", "log_loss", "roc_auc"):
                np.testing.assert_array_equal(result[f"test_{score}"], reference[f"test_{score}"])


@pytest.mark.parametrize("kept", [True, False])
def test_files_are_read_once_when_their_codes_are_kept(tmp_path, monkeypatch, kept):
    """Parquet files (rows known from their footers) and CSV files (rows known once read): read by the
    counting pass only while their codes are kept, else read again by the passes after."""
    import nbparallel.data.files.readers as file_dataset
    import nbparallel.model_selection.cross_validation as cross_validation

    X, y, forms = coded_inputs(tmp_path)
    reads = []
    for reader in ("read_parquet_unit", "read_csv_unit"):  # what reads one file
        read = getattr(file_dataset, reader)
        monkeypatch.setattr(file_dataset, reader, lambda *args, read=read, **kwargs: reads.append(1) or read(*args,
                                                                                                          **kwargs))
    if not kept:
        monkeypatch.setattr(cross_validation, "keep_budget", lambda partitions: None)
    expected = cross_validate(NaiveBayes(n_partitions=1, categorical_features="all"), X, y, cv=4)
    for name, n_files, passes in (("Parquet", 3, 2), ("CSV", 2, 3)):
        reads.clear()
        result = cross_validate(NaiveBayes(n_partitions=2, categorical_features="all"), *forms[name], cv=4)
        assert len(reads) == n_files * (1 if kept else passes), name
        np.testing.assert_array_equal(result["confusion_matrices"], expected["confusion_matrices"])
        np.testing.assert_allclose(result["test_log_likelihood"], expected["test_log_likelihood"], rtol=1e-12)


def test_integer_arrays_kept_as_they_are_or_offset_equal_k_separate_fits():
    """uint8 codes (kept as they are, 0 a value like any other), negative int16 codes and a binned int32
    column, many classes, against scikit-learn's cross_val_score of separate fits."""
    rng = np.random.default_rng(43)
    n = 1200
    codes = rng.integers(0, 6, (n, 4)).astype(np.uint8)
    y = (codes[:, 0].astype(int) + codes[:, 1] + rng.integers(0, 3, n)) % 7
    for X, features in ((codes, "all"), (codes.astype(np.int16) - 3, "all")):
        result = assert_equals_separate_fits(NaiveBayes(categorical_features=features, n_partitions=3), X, y,
                                             KFold(6, shuffle=True, random_state=1), rtol=1e-12)
        assert [p["kind"] for p in result["passes"]] == ["count", "score"]
    binned = np.column_stack([codes[:, :2], rng.integers(-50, 50, n)]).astype(np.int32)
    by_value = cross_validate(NaiveBayes(n_partitions=3), binned, y, cv=5)
    schema_first = cross_validate(NaiveBayes(n_partitions=3), binned, y, cv=5, sample_weight=np.ones(n))
    assert [p["kind"] for p in by_value["passes"]] == ["count", "score"]
    for key in ("test_accuracy", "test_log_likelihood", "confusion_matrices"):
        np.testing.assert_array_equal(by_value[key], schema_first[key])


def test_integers_too_wide_to_count_by_value_take_the_schema_pass():
    rng = np.random.default_rng(47)
    X = np.column_stack([rng.integers(0, 5, 600), rng.integers(-10**6, 10**6, 600)])
    y = rng.integers(0, 2, 600)
    result = cross_validate(NaiveBayes(n_partitions=2), X, y, cv=4)
    weighted = cross_validate(NaiveBayes(n_partitions=2), X, y, cv=4, sample_weight=np.ones(600))
    assert [p["kind"] for p in result["passes"]] == ["schema", "count", "score"]
    np.testing.assert_array_equal(result["test_log_likelihood"], weighted["test_log_likelihood"])


def test_fold_tables_beyond_memory_are_refused(monkeypatch):
    import nbparallel.engine.memory as memory

    X, y = categorical_frame(n=100)
    monkeypatch.setattr(memory, "available_memory", lambda partitions=None: 10_000)
    with pytest.raises(ValueError, match="fold tables of .* classes x 50 folds x 1 repeats need about"):
        cross_validate(NaiveBayes(), X, y, cv=50)


def scoring_routes(tmp_path, route):
    """``(model, data, target, fit keywords)`` of one route of the scoring pass: every input form counted by
    value, the schema pass (weighted rows), Gaussian attributes, or a text model."""
    X, y, forms = coded_inputs(tmp_path)
    return {"by value": [(NaiveBayes(categorical_features="all"), data, target, {})
                         for data, target in forms.values()],
            "schema pass": [(NaiveBayes(categorical_features="all"), X, y, {"sample_weight": np.ones(len(y))})],
            "Gaussian": [(NaiveBayes(numeric="gaussian"), X.assign(g=np.arange(len(y)) % 7 * 0.5), y, {})],
            "text": [(MultinomialNaiveBayes(), np.abs(X[["k"]].to_numpy()) + np.eye(len(y), 3), y, {})]}[route]


def no_evaluation_kernel(*args, **kwargs):
    raise AssertionError("the evaluation kernel ran for accuracies alone")


@pytest.mark.parametrize("route", ["by value", "schema pass", "Gaussian", "text"])
def test_accuracy_alone_is_scored_by_the_predict_kernel_with_the_same_confusions(tmp_path, monkeypatch, route):
    """``scoring="accuracy"`` counts each fold's confusions from the best classes (no posterior, no ROC
    histogram): the same confusions and accuracies, bit for bit, as the full scoring's, on every input form."""
    import nbparallel.kernels.scoring as kernels

    runs = scoring_routes(tmp_path, route)
    for model, data, target, kwargs in runs:
        full = cross_validate(model, data, target, cv=5, shuffle=True, random_state=1, **kwargs)
        with monkeypatch.context() as patched:
            patched.setattr(kernels, "evaluate_rows", no_evaluation_kernel)
            alone = cross_validate(model, data, target, cv=5, shuffle=True, random_state=1, scoring="accuracy",
                                   **kwargs)
        np.testing.assert_array_equal(alone["confusion_matrices"], full["confusion_matrices"])
        np.testing.assert_array_equal(alone["test_accuracy"], full["test_accuracy"])
        assert "test_log_loss" not in alone and "test_roc_auc" not in alone
        assert [p["kind"] for p in alone["passes"]] == [p["kind"] for p in full["passes"]]


@pytest.mark.parametrize("route", ["by value", "schema pass", "Gaussian", "text"])
def test_scores_without_an_auc_collect_no_roc_histograms_and_equal_the_full_scorings(tmp_path, monkeypatch, route):
    """Without ``roc_auc`` among the scorings each fold is evaluated without its ROC histograms: the same
    accuracies, log-likelihoods and log losses, bit for bit, on every input form."""
    import nbparallel.kernels.scoring as kernels

    runs = scoring_routes(tmp_path, route)
    evaluate_rows = kernels.evaluate_rows
    asked = []

    def recorded(*args, roc=True, **kwargs):
        asked.append(roc)
        return evaluate_rows(*args, roc=roc, **kwargs)

    scorings = ("accuracy", "log_likelihood", "log_loss")
    for model, data, target, kwargs in runs:
        full = cross_validate(model, data, target, cv=5, shuffle=True, random_state=1, **kwargs)
        with monkeypatch.context() as patched:
            patched.setattr(kernels, "evaluate_rows", recorded)
            asked.clear()
            without = cross_validate(model, data, target, cv=5, shuffle=True, random_state=1, scoring=scorings,
                                     **kwargs)
        assert asked and not any(asked)
        for score in scorings:
            np.testing.assert_array_equal(without[f"test_{score}"], full[f"test_{score}"])
        assert "test_roc_auc" not in without

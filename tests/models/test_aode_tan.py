"""AODE and TAN as estimators: the same counts and model for any partitioning and input form, the probabilities
of the core functions (and Weka 3.6's) on a nominal Weka file, one-pass cross-validation equal to fitting each
fold, model files, partial_fit, and the memory check before the pair counts' pass."""

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import nbparallel
from nbparallel import AODE, TAN, cross_validate
from nbparallel.models.seminaive import aode_joint_log_likelihood, aode_tables, tan_joint_log_likelihood, tan_tables
from nbparallel.summaries.pair_counts import PairCounts
from tests.models.test_seminaive import AODE as WEKA_AODE
from tests.models.test_seminaive import BAYES_NET, probabilities, tan_options
from tests.models.weka_nominal import filled, read_example, weka_distributions

MODELS = [AODE, TAN]


def make_frame(n=300, seed=0, numeric=True):
    """Categorical columns (strings, some missing), and with ``numeric`` a float column (some missing) and an
    integer one, all depending on the class."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["no", "yes"], n)
    colour = np.where(rng.random(n) < 0.7, np.where(y == "yes", "red", "blue"), rng.choice(["red", "blue", "green"], n))
    size = np.where(colour == "red", rng.choice(["S", "M"], n), rng.choice(["M", "L"], n))
    frame = pd.DataFrame({"colour": colour, "size": size, "shape": rng.choice(["o", "x", "+"], n)})
    frame.loc[rng.random(n) < 0.05, "colour"] = None
    if numeric:
        frame["age"] = np.round(rng.normal(40, 12, n) + 8 * (y == "yes"), 1)
        frame.loc[rng.random(n) < 0.05, "age"] = np.nan
        frame["visits"] = rng.integers(0, 9, n) + 2 * (size == "L")
    frame["y"] = y
    return frame


def counts_of(model):
    return model.pair_counts_


@pytest.fixture(scope="module")
def frame():
    return make_frame()


@pytest.mark.parametrize("cls", MODELS)
def test_the_same_model_for_any_partitioning_and_input_form(cls, frame, tmp_path):
    X, y = frame.drop(columns="y"), frame["y"]
    reference = cls(n_partitions=1).fit(X, y)
    expected = reference.predict_proba(X)
    path = tmp_path / "train.parquet"
    frame.to_parquet(path, index=False)
    fits = {f"{n} partitions": cls(n_partitions=n).fit(X, y) for n in (3, 8)}
    fits["parquet file"] = cls().fit(str(path), "y")
    fits["dask frame"] = cls().fit(dd.from_pandas(frame, npartitions=4), "y")
    for form, model in fits.items():
        assert model.pair_counts_.equals(reference.pair_counts_), form
        np.testing.assert_array_equal(model.predict_proba(X), expected, err_msg=form)
    assert fits["8 partitions"].n_partitions_ == 8
    np.testing.assert_array_equal(reference.predict_proba(str(path)), expected)  # the file's target column left out
    assert reference.score(dd.from_pandas(frame, npartitions=3), "y") == reference.score(X, y)


@pytest.mark.parametrize("cls", MODELS)
def test_a_numpy_array_gives_the_model_of_its_data_frame(cls):
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, (400, 3))
    values = rng.normal(size=(400, 2))
    y = (codes[:, 0] + (values[:, 0] > 0) + rng.integers(0, 2, 400)) % 3
    array = np.column_stack([codes, values])
    frame = pd.DataFrame(array, columns=list("abcde")).astype({c: int for c in "abc"})
    from_array = cls(categorical_features=[0, 1, 2], n_partitions=3).fit(array, y)
    from_frame = cls(categorical_features=["a", "b", "c"]).fit(frame, y)
    assert from_array.pair_counts_.equals(from_frame.pair_counts_)
    np.testing.assert_array_equal(from_array.predict_proba(array), from_frame.predict_proba(frame))
    assert from_array.score(array, y) > 0.5


def nominal_pair_counts(data):
    return PairCounts.of_codes(data.codes, data.y, None, data.offsets, data.n_classes)


def declared_order(model, data):
    """The columns of ``model``'s probabilities in the ARFF file's declared class order."""
    return [list(model.classes_).index(value) for value in data.values[-1]]


@pytest.mark.parametrize("cls, core, options, weka_options", [
    (AODE, lambda counts, codes: aode_joint_log_likelihood(aode_tables(counts), codes), {}, []),
    (AODE, lambda counts, codes: aode_joint_log_likelihood(aode_tables(counts, frequency_limit=30, m_estimate=3),
                                                           codes),
     {"frequency_limit": 30, "m_estimate": 3}, ["-F", "30", "-M", "-W", "3"]),
    (TAN, lambda counts, codes: tan_joint_log_likelihood(tan_tables(counts), codes), {}, None),
    (TAN, lambda counts, codes: tan_joint_log_likelihood(tan_tables(counts, alpha=2.0, score="bayes"), codes),
     {"alpha": 2.0, "link_score": "bayes"}, None),
])
def test_a_weka_file_gives_the_core_functions_and_wekas_probabilities(cls, core, options, weka_options, tmp_path):
    train = read_example("vote")
    if cls is TAN:
        train = filled(train)  # Weka's BayesNet fills missing values with the mode
        weka_options = tan_options(options.get("link_score", "entropy"), options.get("alpha", 0.5))
    path = train.write(tmp_path / "vote.arff")
    model = cls(**options).fit(str(path), f"a{len(train.values) - 1}")
    counts = nominal_pair_counts(train)
    assert model.pair_counts_.equals(counts)  # declared values in their order, as the file's codes
    expected = probabilities(core(counts, train.codes))
    got = model.predict_proba(str(path))[:, declared_order(model, train)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    weka, _ = weka_distributions(WEKA_AODE if cls is AODE else BAYES_NET, train, train, tmp_path, *weka_options)
    np.testing.assert_allclose(got, weka, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cls", MODELS)
def test_one_pass_cross_validation_equals_fitting_each_fold(cls):
    frame = make_frame(240, seed=5, numeric=False)  # categories only: every fold's fit has the same layout
    X, y = frame.drop(columns="y"), frame["y"].to_numpy()
    k = 4
    result = cross_validate(cls(n_partitions=3), X, y, cv=k, scoring=("accuracy", "log_likelihood"))
    assert [p["kind"] for p in result["passes"]] == ["schema", "count", "score"]
    folds = np.array_split(np.arange(len(y)), k)  # KFold's contiguous folds
    for i, test in enumerate(folds):
        train = np.setdiff1d(np.arange(len(y)), test)
        model = cls().fit(X.iloc[train], y[train])
        report = model.evaluate(X.iloc[test], y[test])
        assert result["test_accuracy"][i] == pytest.approx(report["accuracy"], abs=1e-15)
        assert result["test_log_likelihood"][i] == pytest.approx(report["average_log_likelihood"], rel=1e-12)
        np.testing.assert_array_equal(result["confusion_matrices"][i], report["confusion_matrix"])


@pytest.mark.parametrize("cls", MODELS)
def test_a_model_file_gives_the_same_model_and_its_counts_are_checked(cls, frame, tmp_path):
    X = frame.drop(columns="y")
    model = cls(n_bins=7, n_partitions=2).fit(frame, "y")
    path = tmp_path / "model.json"
    model.save(path)
    loaded = nbparallel.load(path)
    assert type(loaded) is cls and loaded.get_params() == model.get_params()
    assert loaded.pair_counts_.equals(model.pair_counts_) and loaded.target_column_ == "y"
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    fitted = model.fitted_to_dict()
    short = {**fitted, "pair_counts": {**fitted["pair_counts"], "pairs": fitted["pair_counts"]["pairs"][:1]}}
    with pytest.raises(ValueError, match="pair_counts.pairs has shape"):
        cls(n_bins=7).fitted_from_dict(short)
    with pytest.raises(ValueError, match="numeric attribute 'age' has 7 bins"):
        cls(n_bins=8).fitted_from_dict(fitted)


def test_tans_file_keeps_its_tree_checked_against_the_counts(frame):
    model = TAN().fit(frame.drop(columns="y"), frame["y"])
    fitted = model.fitted_to_dict()
    names = [at.name for at in model.schema_.attributes]
    assert [None if p < 0 else names[p] for p in fitted["parents"]] == list(model.parents_.values())
    root = fitted["parents"].index(-1)
    other = fitted["parents"][(root + 1) % len(names)]
    swapped = [other if p == -1 else p for p in fitted["parents"]]
    with pytest.raises(ValueError, match="not the tree the pair counts give"):
        TAN().fitted_from_dict({**fitted, "parents": swapped})


@pytest.mark.parametrize("cls", MODELS)
def test_partial_fit_over_two_batches_equals_fit(cls):
    frame = make_frame(200, seed=7, numeric=False)
    X, y = frame.drop(columns="y"), frame["y"]
    whole = cls().fit(X, y)
    pieces = cls().partial_fit(X.iloc[:120], y.iloc[:120]).partial_fit(X.iloc[120:], y.iloc[120:])
    assert pieces.pair_counts_.equals(whole.pair_counts_)
    np.testing.assert_array_equal(pieces.predict_proba(X), whole.predict_proba(X))


@pytest.mark.parametrize("cls", MODELS)
def test_a_batch_with_new_categories_and_classes_lays_the_counts_out_anew(cls):
    frame = make_frame(200, seed=8, numeric=False)
    frame.loc[150:, "shape"] = np.where(np.arange(50) % 2, "*", "o")  # a category of the second batch only
    frame.loc[180:, "y"] = "maybe"  # and a class
    first, second = frame.iloc[:150], frame.iloc[150:]
    whole = cls().fit(frame, "y")
    pieces = cls().partial_fit(first, "y").partial_fit(second, "y")
    assert pieces.schema_.to_dict() == whole.schema_.to_dict()
    assert pieces.pair_counts_.equals(whole.pair_counts_)
    np.testing.assert_array_equal(pieces.predict_proba(frame), whole.predict_proba(frame))
    before = pieces.pair_counts_
    with pytest.raises(ValueError, match="partial_fit got columns"):
        pieces.partial_fit(second.drop(columns="size"), "y")
    assert pieces.pair_counts_ is before


@pytest.mark.parametrize("cls", MODELS)
def test_pair_counts_too_large_for_the_memory_are_refused_before_the_pass(cls):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 60))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match=r"pair counts of 2 classes x 60 attributes .* fewer bins \(n_bins\)"):
        cls(n_bins=60000).fit(X, y)


def test_a_dependence_naive_bayes_cannot_see_is_learnt():
    rng = np.random.default_rng(11)
    n = 2000
    p, q, r = rng.integers(0, 2, (3, n))
    y = np.where(rng.random(n) < 0.9, p ^ q, 1 - (p ^ q))  # the class is p xor q: no attribute alone tells it
    X = np.column_stack([p, q, r])
    naive = nbparallel.NaiveBayes(alpha=1.0, class_alpha=1.0, categorical_features="all").fit(X, y).score(X, y)
    assert naive < 0.6
    for cls in MODELS:
        assert cls(categorical_features="all").fit(X, y).score(X, y) > 0.85, cls.__name__


@pytest.mark.parametrize("cls", MODELS)
def test_integer_weights_count_as_repeated_rows(cls, frame):
    weights = np.arange(len(frame)) % 3
    weighted = cls().fit(frame, "y", sample_weight=weights)
    repeated = cls().fit(frame.loc[np.repeat(np.arange(len(frame)), weights)].reset_index(drop=True), "y")
    assert weighted.pair_counts_.equals(repeated.pair_counts_)
    X = frame.drop(columns="y")
    np.testing.assert_array_equal(weighted.predict_proba(X), repeated.predict_proba(X))


def prebinned(X, edges):
    """``X`` with each numeric column replaced by its interval under ``edges`` (right-closed, as the models bin
    values), as strings ("i0", "i1", ...; missing stays missing): independent of the models' own binning."""
    out = X.copy()
    for name, cuts in edges.items():
        values = X[name].to_numpy(dtype=np.float64)
        index = np.searchsorted(np.asarray(cuts), values, side="left")
        out[name] = np.where(np.isnan(values), None, np.char.add("i", index.astype(str)))
    return out


@pytest.mark.parametrize("cls", MODELS)
def test_mdl_bins_are_naive_bayes_cuts_and_give_the_model_of_the_prebinned_data(cls):
    frame = make_frame(500, seed=9)
    X, y = frame.drop(columns="y"), frame["y"]
    model = cls(n_bins="mdl", n_partitions=1).fit(X, y)
    naive = nbparallel.NaiveBayes(n_bins="mdl").fit(X, y)
    assert set(model.bin_edges_) == {"age", "visits"}
    for name, edges in naive.bin_edges_.items():
        np.testing.assert_array_equal(model.bin_edges_[name], edges, err_msg=name)
    assert sum(len(e) for e in model.bin_edges_.values()) >= 1  # the class depends on age: some cut is made
    assert [p["kind"] for p in model.passes_] == ["schema", "cuts", "count"]
    binned = prebinned(X, model.bin_edges_)
    reference = cls(categorical_features="all").fit(binned, y)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(binned), rtol=0, atol=1e-12)
    rng = np.random.default_rng(1)  # new values: between the training ones, and beyond their range
    unseen = X.assign(age=rng.uniform(-20, 120, len(X)))
    np.testing.assert_allclose(model.predict_proba(unseen), reference.predict_proba(prebinned(unseen,
                               model.bin_edges_)), rtol=0, atol=1e-12)
    for n in (3, 8):
        other = cls(n_bins="mdl", n_partitions=n).fit(X, y)
        assert other.pair_counts_.equals(model.pair_counts_), n
        np.testing.assert_array_equal(other.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("cls", MODELS)
def test_an_mdl_model_file_keeps_its_cuts_checked(cls, tmp_path):
    frame = make_frame(300, seed=4)
    model = cls(n_bins="mdl").fit(frame, "y")
    path = tmp_path / "model.json"
    model.save(path)
    loaded = nbparallel.load(path)
    assert loaded.pair_counts_.equals(model.pair_counts_)
    assert {k: v.tolist() for k, v in loaded.bin_edges_.items()} == {k: v.tolist() for k, v in model.bin_edges_.items()}
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    fitted = model.fitted_to_dict()
    with pytest.raises(ValueError, match=r"bin_edges\['age'\] must be ascending"):
        cls(n_bins="mdl").fitted_from_dict({**fitted, "bin_edges": {**fitted["bin_edges"], "age": [3.0, 1.0]}})
    with pytest.raises(ValueError, match="pair_counts.counts.offsets do not match"):
        cls(n_bins="mdl").fitted_from_dict({**fitted, "bin_edges": {**fitted["bin_edges"], "age": [1.0, 2.0, 3.0]}})


@pytest.mark.parametrize("cls", MODELS)
def test_mdl_bins_refuse_a_second_batch(cls):
    frame = make_frame(200, seed=2)
    model = cls(n_bins="mdl").partial_fit(frame.iloc[:100], "y")
    before = model.pair_counts_
    with pytest.raises(ValueError, match="partial_fit cannot add another batch"):
        model.partial_fit(frame.iloc[100:], "y")
    assert model.pair_counts_ is before


@pytest.mark.parametrize("cls", MODELS)
def test_mdl_cross_validation_equals_fitting_each_fold(cls):
    """Each numeric column's least and largest values lie in two folds, so that every fold's training rows have
    the whole data's range (the fine grid that the folds' cuts are found on, as naive Bayes's)."""
    frame = make_frame(400, seed=5)
    n, k = len(frame), 4
    for column in ("age", "visits"):
        lo, hi = frame[column].min(), frame[column].max()
        frame.loc[[0, n - 1], column] = lo
        frame.loc[[1, n - 2], column] = hi
    X, y = frame.drop(columns="y"), frame["y"].to_numpy()
    result = cross_validate(cls(n_bins="mdl", n_partitions=3), X, y, cv=k, scoring=("accuracy", "log_likelihood"))
    assert [p["kind"] for p in result["passes"]] == ["schema", "count", "pairs", "score"]
    cuts = []
    for i, test in enumerate(np.array_split(np.arange(n), k)):
        train = np.setdiff1d(np.arange(n), test)
        model = cls(n_bins="mdl").fit(X.iloc[train], y[train])
        cuts.append(tuple(float(e) for edges in model.bin_edges_.values() for e in edges))
        report = model.evaluate(X.iloc[test], y[test])
        assert result["test_accuracy"][i] == pytest.approx(report["accuracy"], abs=1e-15)
        assert result["test_log_likelihood"][i] == pytest.approx(report["average_log_likelihood"], rel=1e-12)
        np.testing.assert_array_equal(result["confusion_matrices"][i], report["confusion_matrix"])
    assert len(set(cuts)) > 1  # the folds' cuts differ: each fold model has intervals of its own

"""One data route: every method that takes data takes every form fit takes, with the in-memory DataFrame's answer.

The matrix is input forms x methods x models. Each form holds the same rows in the
same order: a pandas DataFrame (target by name and by values), a numpy array, a
Dask DataFrame (target by name and as a Dask Series), Dask DataFrames read from the
Parquet files, a Dask array, and CSV and Parquet files and directories (the target
column inside; prediction leaves it out). Counts must be identical; probabilities
equal to rounding of the Gaussian moments' float sums (1e-12).
"""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from nbparallel import AutoClass, BoostedNaiveBayes, Files, NaiveBayes, SelectedNaiveBayes, cross_validate

N = 240


def make_frame(n=N, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["no", "yes"], n)
    frame = pd.DataFrame({
        "colour": np.where(rng.random(n) < 0.7, np.where(y == "yes", "red", "blue"), rng.choice(["red", "blue", "green"], n)),
        "size": rng.choice(["S", "M", "L"], n),
        "age": np.round(rng.normal(40, 12, n) + 8 * (y == "yes"), 1),
        "visits": rng.integers(0, 9, n),
        "y": y,
    })
    frame.loc[rng.random(n) < 0.05, "colour"] = None
    frame.loc[rng.random(n) < 0.05, "age"] = np.nan
    return frame


FEATURES = ["colour", "size", "age", "visits"]
NUMERIC = ["age", "visits"]


@pytest.fixture(scope="module")
def frame():
    return make_frame()


@pytest.fixture(scope="module")
def test_frame():
    return make_frame(90, seed=1)


def _write(frame, directory, kind, n_files):
    directory.mkdir(parents=True, exist_ok=True)
    bounds = np.linspace(0, len(frame), n_files + 1).astype(int)
    for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        part = frame.iloc[a:b]
        path = directory / f"part{i:02d}.{kind}"
        part.to_parquet(path, index=False) if kind == "parquet" else part.to_csv(path, index=False)
    return directory


@pytest.fixture(scope="module")
def stores(tmp_path_factory, frame, test_frame):
    """The train and test rows as files and directories of both formats."""
    root = tmp_path_factory.mktemp("forms")
    out = {}
    for name, data in (("train", frame), ("test", test_frame)):
        out[name, "csv dir"] = _write(data, root / name / "csv", "csv", 3)
        out[name, "parquet dir"] = _write(data, root / name / "pq", "parquet", 4)
        out[name, "csv file"] = root / name / "one.csv"
        data.to_csv(out[name, "csv file"], index=False)
        out[name, "parquet file"] = root / name / "one.parquet"
        data.to_parquet(out[name, "parquet file"], index=False)
    return out


#: how each form presents data: (X, y) given a frame with its target column, the files, and "train" or "test"
FORMS = {
    "DataFrame, target by name": lambda f, s, which: (f, "y"),
    "DataFrame, target values": lambda f, s, which: (f[FEATURES], f["y"].to_numpy()),
    "numpy array": lambda f, s, which: (f[FEATURES].to_numpy(dtype=object), f["y"].to_numpy()),
    "Dask DataFrame, target by name": lambda f, s, which: (dd.from_pandas(f, npartitions=3), "y"),
    "Dask DataFrame, target Series": lambda f, s, which: (
        dd.from_pandas(f[FEATURES], npartitions=3), dd.from_pandas(f["y"], npartitions=3)),
    "Dask read_parquet": lambda f, s, which: (dd.read_parquet(s[which, "parquet dir"]), "y"),
    "Dask read_parquet, columns": lambda f, s, which: (
        dd.read_parquet(s[which, "parquet dir"], columns=[*FEATURES, "y"]), "y"),
    "Dask array": lambda f, s, which: (
        da.from_array(f[FEATURES].to_numpy(dtype=object), chunks=(70, 4)), da.from_array(f["y"].to_numpy(), chunks=70)),
    "CSV file": lambda f, s, which: (s[which, "csv file"], "y"),
    "CSV directory": lambda f, s, which: (s[which, "csv dir"], "y"),
    "Parquet file": lambda f, s, which: (s[which, "parquet file"], "y"),
    "Parquet directory": lambda f, s, which: (s[which, "parquet dir"], "y"),
    "Files, a path with options": lambda f, s, which: (Files(s[which, "parquet dir"]), "y"),
}
UNNAMED = {"numpy array", "Dask array"}


def numeric_features(form):
    """Arrays of objects name the numeric columns by position; the others by name."""
    return [2, 3] if form in UNNAMED else NUMERIC


MODELS = {
    "NaiveBayes": lambda form: NaiveBayes(numeric_features=numeric_features(form)),
    "NaiveBayes, Gaussian": lambda form: NaiveBayes(numeric="gaussian", numeric_features=numeric_features(form)),
    "NaiveBayes, MDL bins": lambda form: NaiveBayes(n_bins="mdl", numeric_features=numeric_features(form)),
    "BoostedNaiveBayes": lambda form: BoostedNaiveBayes(n_rounds=3, numeric_features=numeric_features(form)),
    "SelectedNaiveBayes": lambda form: SelectedNaiveBayes(max_features=2, b_estimate="exact",
                                                          numeric_features=numeric_features(form)),
}


def reference(model_name, frame, test_frame):
    model = MODELS[model_name]("DataFrame, target by name").fit(frame, "y")
    test = test_frame[FEATURES]
    return model, {"predict": model.predict(test), "proba": model.predict_proba(test),
                   "score": model.score(test, test_frame["y"]), "evaluate": model.evaluate(test_frame, "y")}


@pytest.fixture(scope="module")
def references(frame, test_frame):
    return {name: reference(name, frame, test_frame) for name in MODELS}


def same_model(a, b):
    counts = getattr(a, "counts_", None)
    if counts is not None:
        assert counts.equals(b.counts_)
    assert a.classes_.tolist() == b.classes_.tolist()


@pytest.mark.parametrize("model_name", list(MODELS))
@pytest.mark.parametrize("form", list(FORMS))
def test_every_method_takes_every_form(form, model_name, frame, test_frame, stores, references):
    expected_model, expected = references[model_name]
    X, y = FORMS[form](frame, stores, "train")
    model = MODELS[model_name](form).fit(X, y)
    same_model(model, expected_model)
    X_test, y_test = FORMS[form](test_frame, stores, "test")
    # a file or frame that holds the target column "y" leaves it out of prediction
    np.testing.assert_array_equal(model.predict(X_test), expected["predict"])
    np.testing.assert_allclose(model.predict_proba(X_test), expected["proba"], rtol=1e-12, atol=1e-15)
    with np.errstate(divide="ignore"):  # a boosted model's vote share can be 0
        np.testing.assert_allclose(model.predict_log_proba(X_test), np.log(expected["proba"]), rtol=1e-9)
    assert model.score(X_test, y_test) == pytest.approx(expected["score"], abs=1e-15)
    result = model.evaluate(X_test, y_test)
    np.testing.assert_array_equal(result["confusion_matrix"], expected["evaluate"]["confusion_matrix"])
    assert result["average_log_likelihood"] == pytest.approx(expected["evaluate"]["average_log_likelihood"],
                                                             rel=1e-12)


@pytest.mark.parametrize("form", list(FORMS))
def test_partial_fit_cross_validation_and_selection_take_every_form(form, frame, test_frame, stores):
    X, y = FORMS[form](frame, stores, "train")
    whole = NaiveBayes(numeric_features=NUMERIC, numeric_ranges={"age": (0.0, 100.0), "visits": (0.0, 9.0)})
    expected = whole.fit(frame, "y")
    ranges = {"age": (0.0, 100.0), "visits": (0.0, 9.0)} if form not in UNNAMED else {"2": (0.0, 100.0),
                                                                                    "3": (0.0, 9.0)}
    model = NaiveBayes(numeric_features=numeric_features(form), numeric_ranges=ranges).partial_fit(X, y)
    assert model.counts_.equals(expected.counts_)

    cv = cross_validate(NaiveBayes(numeric_features=numeric_features(form)), X, y, cv=4)
    cv_expected = cross_validate(NaiveBayes(numeric_features=NUMERIC), frame, "y", cv=4)
    np.testing.assert_array_equal(cv["confusion_matrices"], cv_expected["confusion_matrices"])

    X_test, y_test = FORMS[form](test_frame, stores, "test")
    selected = SelectedNaiveBayes(criterion="test", b_estimate="exact", max_features=2,
                                  numeric_features=numeric_features(form)).fit(X, y, X_test=X_test, y_test=y_test)
    reference_selection = SelectedNaiveBayes(criterion="test", b_estimate="exact", max_features=2,
                                             numeric_features=NUMERIC).fit(frame, "y", X_test=test_frame,
                                                                           y_test="y")
    names = FEATURES if form in UNNAMED else None
    chosen = [names[int(c)] for c in selected.selected_features_] if names else list(selected.selected_features_)
    assert chosen == list(reference_selection.selected_features_)


@pytest.mark.parametrize("form", list(FORMS))
def test_autoclass_takes_every_form_of_unlabelled_rows(form, frame, stores):
    """Clustering reads the same forms; the label column of a frame or of files is left out by the user."""
    X, _ = FORMS[form](frame, stores, "train")
    if isinstance(X, (pd.DataFrame, dd.DataFrame)):
        X = X.drop(columns=["y"], errors="ignore")
    elif not isinstance(X, (np.ndarray, da.Array)):
        X = Files(X, drop=["y"])
    expected = AutoClass(n_clusters=2, n_restarts=2, max_iter=5, random_state=0, numeric_features=NUMERIC).fit(
        frame[FEATURES])
    model = AutoClass(n_clusters=2, n_restarts=2, max_iter=5, random_state=0,
                      numeric_features=numeric_features(form)).fit(X)
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(frame[FEATURES]), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("form", ["DataFrame, target by name", "Parquet directory", "Dask read_parquet"])
def test_prediction_data_holding_the_target_column_leaves_it_out(form, frame, test_frame, stores):
    model = NaiveBayes(numeric_features=NUMERIC).fit(*FORMS[form](frame, stores, "train"))
    assert model.target_column_ == "y"
    X_test, _ = FORMS[form](test_frame, stores, "test")
    np.testing.assert_array_equal(model.predict(X_test), model.predict(test_frame[FEATURES]))


#: the test rows with their columns reversed and one more, in each named form
REORDERED = {
    "DataFrame": lambda f, tmp: f,
    "Dask DataFrame": lambda f, tmp: dd.from_pandas(f, npartitions=3),
    "Parquet directory": lambda f, tmp: _write(f, tmp / "pq", "parquet", 2),
    "CSV directory": lambda f, tmp: _write(f, tmp / "csv", "csv", 2),
    "Dask read_parquet": lambda f, tmp: dd.read_parquet(_write(f, tmp / "dpq", "parquet", 2)),
}


@pytest.mark.parametrize("form", list(REORDERED))
def test_named_columns_are_taken_by_name_in_any_order_and_extra_ones_are_left_out(form, frame, test_frame,
                                                                                  tmp_path):
    """As the command line takes a file's columns: the fitted ones by name, others ignored."""
    model = NaiveBayes(numeric_features=NUMERIC).fit(frame, "y")
    expected = model.predict_proba(test_frame[FEATURES])
    shuffled = test_frame[FEATURES[::-1]].assign(id=np.arange(len(test_frame)), when=pd.Timestamp("2024-01-01"))
    X = REORDERED[form](shuffled, tmp_path)
    np.testing.assert_array_equal(model.predict_proba(X), expected)
    np.testing.assert_array_equal(model.predict(X), model.classes_[expected.argmax(axis=1)])
    labelled = REORDERED[form](shuffled.assign(y=test_frame["y"]), tmp_path / "labelled")
    assert model.score(labelled, "y") == model.score(test_frame[FEATURES], test_frame["y"].to_numpy())


@pytest.mark.parametrize("form", list(REORDERED))
def test_a_missing_named_column_is_one_error_naming_it_and_the_columns_in_its_place(form, frame, test_frame,
                                                                                   tmp_path):
    model = NaiveBayes(numeric_features=NUMERIC).fit(frame, "y")
    X = REORDERED[form](test_frame[FEATURES].rename(columns={"age": "ages"}), tmp_path)
    with pytest.raises(ValueError, match=r"(?s)feature names should match.*missing: \['age'\]"
                                         r".*unseen at fit time: \['ages'\]"):
        model.predict(X)


def test_a_dask_series_target_must_be_partitioned_like_the_frame(frame):
    X = dd.from_pandas(frame[FEATURES], npartitions=3)
    with pytest.raises(ValueError, match="y has 2 partitions but X has 3"):
        NaiveBayes().fit(X, dd.from_pandas(frame["y"], npartitions=2))
    with pytest.raises(TypeError, match="y must be the name of a column or a Dask Series"):
        NaiveBayes().fit(X, frame["y"].to_numpy())


TEXT_FORMS = {
    "dense array": lambda X, y: (X, y),
    "scipy.sparse CSR": lambda X, y: (__import__("scipy.sparse").sparse.csr_matrix(X), y),
    "Dask array": lambda X, y: (da.from_array(X, chunks=(50, X.shape[1])), da.from_array(y, chunks=50)),
}


@pytest.mark.parametrize("model_type", ["MultinomialNaiveBayes", "BernoulliNaiveBayes"])
@pytest.mark.parametrize("form", list(TEXT_FORMS))
def test_text_models_take_every_form_of_count_matrix(form, model_type):
    import nbparallel

    rng = np.random.default_rng(3)
    y = rng.choice(["ham", "spam"], 160)
    X = rng.poisson(np.where(y[:, None] == "spam", 1.5, 0.6), (160, 12)).astype(float)
    cls = getattr(nbparallel, model_type)
    expected = cls().fit(X[:120], y[:120])
    Xf, yf = TEXT_FORMS[form](X[:120], y[:120])
    Xt, yt = TEXT_FORMS[form](X[120:], y[120:])
    model = cls().fit(Xf, yf)
    assert model.counts_.equals(expected.counts_)
    np.testing.assert_allclose(model.predict_proba(Xt), expected.predict_proba(X[120:]), rtol=1e-12)
    assert model.score(Xt, yt) == expected.score(X[120:], y[120:])
    np.testing.assert_array_equal(model.evaluate(Xt, yt)["confusion_matrix"],
                                  expected.evaluate(X[120:], y[120:])["confusion_matrix"])
    again = cls().partial_fit(Xf, yf, classes=["ham", "spam"])
    assert again.counts_.equals(expected.counts_)
    cv = cross_validate(cls(), Xf, yf, cv=3)
    np.testing.assert_array_equal(cv["confusion_matrices"], cross_validate(cls(), X[:120], y[:120], cv=3)[
        "confusion_matrices"])


def test_a_dask_dataframe_read_from_parquet_is_counted_by_the_route_of_its_files(frame, stores, tmp_path):
    """A plain dd.read_parquet is read as its files are (no pandas conversion by Dask); a frame that is more
    than a plain read, or whose files Dask orders otherwise, goes through Dask, with the same model."""
    from nbparallel.data.inputs import as_dataset, parquet_files_read_by

    directory = stores["train", "parquet dir"]
    files = parquet_files_read_by(dd.read_parquet(directory))
    assert files is not None and files.path == str(directory) and files.drop == ()
    assert parquet_files_read_by(dd.read_parquet(directory, columns=["colour", "y"])).drop == ("size", "age",
                                                                                                 "visits")
    path_route = as_dataset(directory, "y")
    assert as_dataset(dd.read_parquet(directory), "y").token == path_route.token
    expected = NaiveBayes().fit(frame, "y")
    unnatural = _write(frame, tmp_path / "unnatural", "parquet", 12)
    for i in range(12):  # part2 < part10 for Dask, part10 < part2 for a listing
        (unnatural / f"part{i:02d}.parquet").rename(unnatural / f"part{i}.parquet")
    others = {
        "filtered": dd.read_parquet(directory, filters=[("size", "!=", "nothing")]),
        "an operation on the frame": (lambda d: d[d["size"] != "nothing"])(dd.read_parquet(directory)),
        "files Dask orders otherwise": dd.read_parquet(unnatural),
    }
    for why, ddf in others.items():
        assert parquet_files_read_by(ddf) is None, why
        model = NaiveBayes().fit(ddf, "y")
        assert model.counts_.equals(expected.counts_), why
        np.testing.assert_array_equal(model.predict(ddf), expected.predict(frame), err_msg=why)


@pytest.mark.parametrize("form", ["arrow table", "arrow record batch", "records"])
def test_arrow_tables_and_records_are_taken_by_column_name_as_a_frame(form):
    import pyarrow as pa

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"colour": rng.choice(["red", "blue", "green"], 60), "size": rng.normal(0, 1, 60),
                          "label": rng.choice(["a", "b"], 60)})
    as_form = {"arrow table": pa.Table.from_pandas, "arrow record batch": pa.RecordBatch.from_pandas,
               "records": lambda f: f.to_dict("records")}[form]
    reference = NaiveBayes().fit(frame, "label")
    model = NaiveBayes().fit(as_form(frame), "label")
    np.testing.assert_array_equal(model.counts_.table, reference.counts_.table)
    np.testing.assert_array_equal(model.predict_proba(as_form(frame[["size", "colour"]])),
                                  reference.predict_proba(frame))
    assert model.score(as_form(frame), "label") == reference.score(frame, "label")
    np.testing.assert_array_equal(model.predict(as_form(frame)), reference.predict(frame))

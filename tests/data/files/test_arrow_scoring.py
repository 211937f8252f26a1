"""Scoring Arrow tables as the files' readers make them, without pandas.

The prediction of files reads each batch of rows as an Arrow table and codes its string dictionary
columns from their indices (:meth:`Schema.split_table`). These tests hold that route to the pandas
conversion of the same table and to a plain Python mapping of values to categories, over every kind of
column (dictionaries with missing values, values outside the vocabulary, dictionaries in another order or
with repeated entries, several chunks, plain strings, integers, numbers), and check that every model
predicts files by it as ``predict`` does, and that the scoring passes and the stateful passes (boosting,
EM, selection) over Parquet files, read at once or in tasks, code Arrow tables as frames are coded.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import nbparallel.models.prediction_files as scoring
import nbparallel.data.files.parquet as parquet
from nbparallel import AutoClass, BoostedNaiveBayes, Files, NaiveBayes, SelectedNaiveBayes, local_below
from nbparallel.models.prediction_files import predict_files
from nbparallel.data.dataset import is_arrow_table
from nbparallel.data.files.arrow import table_to_pandas
from nbparallel.data.schema import Schema

RNG = np.random.default_rng(23)
COLOURS = ["red", "green", "blue"]


def training_frame(n=600):
    colour = RNG.choice(COLOURS, n)
    frame = pd.DataFrame({"colour": colour, "shape": RNG.choice(["round", "square"], n),
                          "plain": RNG.choice(["a", "b", "c"], n), "count": RNG.integers(0, 4, n),
                          "size": RNG.normal(size=n)})
    y = np.where((colour == "red") ^ (RNG.random(n) < 0.2), "yes", "no")
    return frame, y


def dictionary(values, dictionary_values):
    """A dictionary array of ``values`` (None: missing) over ``dictionary_values``, in that order."""
    indices = pa.array([None if v is None else dictionary_values.index(v) for v in values], pa.int32())
    return pa.DictionaryArray.from_arrays(indices, pa.array(dictionary_values, pa.string()))


def scoring_table(n=40):
    """Rows as a file's reader gives them, with every oddity a dictionary column can have."""
    colour = [None if i % 7 == 0 else ["red", "green", "blue", "violet"][i % 4] for i in range(n)]
    shape = [["square", "round", None][i % 3] for i in range(n)]
    half = n // 2
    chunked = pa.chunked_array([dictionary(colour[:half], ["violet", "blue", "red", "green"]),
                                dictionary(colour[half:], ["green", "red", "blue", "violet"])])
    return pa.table({
        "colour": chunked,  # two chunks, two dictionaries, a value outside the vocabulary
        "shape": dictionary(shape, ["square", "round", "oval"]),  # missing values, an unused entry
        "plain": pa.array([["c", "a", "z", None][i % 4] for i in range(n)], pa.string()),  # no dictionary
        "count": pa.array([i % 5 for i in range(n)], pa.int64()),
        "size": pa.array([None if i % 9 == 0 else float(i) / n - 0.5 for i in range(n)], pa.float64()),
    })


def python_codes(values, categories):
    """Code 1 + position in the categories; 0 for a missing value or one outside them."""
    return [0 if v is None or v not in categories else categories.index(v) + 1 for v in values]


@pytest.mark.parametrize("layout", ["one chunk", "two chunks"])
def test_an_arrow_table_splits_as_its_pandas_conversion_and_a_python_mapping(layout):
    X, y = training_frame()
    model = NaiveBayes(categorical_features=["colour", "shape", "plain", "count"]).fit(X, y)
    table = scoring_table()
    if layout == "one chunk":
        table = table.combine_chunks()
    codes, values = model.schema_.split(table)
    want_codes, want_values = model.schema_.split(table_to_pandas(table))
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(values, want_values)
    for a, at in enumerate(model.schema_.attributes[: model.schema_.n_categorical]):
        column = table.column(at.name).to_pylist()
        np.testing.assert_array_equal(codes[:, a], python_codes(column, list(at.categories)), err_msg=at.name)
    assert codes[:, 0].tolist().count(0) > 0  # the missing and unseen colours are coded 0


def test_tables_split_one_after_another_code_each_by_its_own_dictionaries():
    """A column's lookup table of the last dictionary is kept between tables (the files of a directory share
    one): tables whose dictionaries alternate, in another order or with other entries, and repeat, each code
    as a plain Python mapping of their values, whatever came before."""
    X, y = training_frame()
    model = NaiveBayes(categorical_features=["colour", "shape", "plain", "count"]).fit(X, y)
    categories = list(model.schema_.attribute("colour").categories)
    colour = ["red", "green", None, "blue", "violet", "red"]
    orders = [["violet", "blue", "red", "green"], ["green", "red", "blue", "violet"], ["red", "green", "blue", "violet"],
              ["green", "red", "blue", "violet"], ["green", "red", "blue", "violet", "grey"]]
    for order in orders + orders[::-1]:
        table = pa.table({"colour": dictionary(colour, order), "shape": dictionary(["round"] * 6, ["round"]),
                          "plain": pa.array(["a"] * 6), "count": pa.array([1] * 6, pa.int64()),
                          "size": pa.array([0.0] * 6)})
        codes, _ = model.schema_.split(table)
        np.testing.assert_array_equal(codes[:, 0], python_codes(colour, categories), err_msg=str(order))


def test_a_dictionary_with_repeated_entries_is_split_as_pandas_reads_it():
    X, y = training_frame()
    model = NaiveBayes().fit(X[["colour"]], y)
    assert list(model.schema_.attribute("colour").categories) == sorted(COLOURS)
    repeated = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, None, 1], pa.int32()),
                                              pa.array(["red", "blue", "red"], pa.string()))
    table = pa.table({"colour": repeated})
    codes, _ = model.schema_.split(table)
    np.testing.assert_array_equal(codes, model.schema_.split(table_to_pandas(table))[0])
    np.testing.assert_array_equal(codes[:, 0], python_codes(repeated.to_pylist(), sorted(COLOURS)))


def write_directory(directory, frame, n_files=3):
    directory.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[rows].to_parquet(directory / f"part-{i}.parquet", index=False)
    return directory


@pytest.fixture
def labelled(tmp_path):
    """``(X, y, directory)``: a training frame with missing colours, and the same rows as 3 Parquet files."""
    X, y = training_frame()
    X.loc[X.index[::11], "colour"] = None
    return X, y, write_directory(tmp_path / "data", X.assign(y=y))


@pytest.fixture
def batch_forms(monkeypatch):
    """Whether each batch the prediction of files scores is an Arrow table, in order."""
    forms, predict_batch = [], scoring.batch_predictions

    def recorded(model, features, proba, batch):
        forms.append(is_arrow_table(batch))
        return predict_batch(model, features, proba, batch)

    monkeypatch.setattr(scoring, "batch_predictions", recorded)
    return forms


@pytest.fixture
def split_rows(monkeypatch):
    """The rows of each Arrow table that ``Schema.split`` codes, in order."""
    rows, split_table = [], Schema.split_table
    monkeypatch.setattr(Schema, "split_table", lambda self, table: rows.append(len(table)) or split_table(self, table))
    return rows


def route(read_at_once):
    """Small Parquet directories read at once (the default here), or in tasks as larger ones are."""
    return nullcontext() if read_at_once else local_below(0)


MODELS = {
    "naive Bayes, binned": lambda: NaiveBayes(),
    "naive Bayes, Gaussian": lambda: NaiveBayes(numeric="gaussian"),
    "boosted": lambda: BoostedNaiveBayes(n_rounds=3),
    "selected": lambda: SelectedNaiveBayes(),
    "AutoClass": lambda: AutoClass(n_clusters=2, n_restarts=1, random_state=0),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_every_model_predicts_files_through_arrow_tables_as_predict_does(name, tmp_path, labelled, batch_forms):
    X, y, directory = labelled
    model = MODELS[name]()
    model = model.fit(X) if name == "AutoClass" else model.fit(directory, "y")
    parts = predict_files(model, directory, proba=True)
    assert batch_forms and all(batch_forms)  # every batch scored as the Arrow table read
    got = pd.concat(parts, ignore_index=True)
    files = Files(directory, drop=["y"])
    np.testing.assert_array_equal(got["prediction"].to_numpy(), model.predict(files))
    np.testing.assert_allclose(got.drop(columns="prediction").to_numpy(), model.predict_proba(files), rtol=0,
                               atol=1e-12)
    np.testing.assert_array_equal(got["prediction"].to_numpy(), model.predict(X))  # the pandas route
    np.testing.assert_allclose(got.drop(columns="prediction").to_numpy(), model.predict_proba(X), rtol=0,
                               atol=1e-12)
    assert predict_files(model, directory, directory=tmp_path / "out") == [200, 200, 200]
    written = [tmp_path / "out" / f"part-{i:05d}.parquet" for i in range(3)]
    np.testing.assert_array_equal(pd.concat([pd.read_parquet(p) for p in written])["prediction"].to_numpy(),
                                  got["prediction"].to_numpy())
    labels = pq.read_schema(written[0]).field("prediction").type
    assert labels == (pa.int64() if name == "AutoClass" else pa.string())  # no dictionary, no category


@pytest.mark.parametrize("read_at_once", [True, False])
def test_the_scoring_passes_over_parquet_files_code_arrow_tables_as_frames_are_coded(labelled, split_rows,
                                                                                     read_at_once):
    X, y, directory = labelled
    reference = NaiveBayes().fit(X, y)  # in memory, through pandas
    with route(read_at_once):
        model = NaiveBayes().fit(directory, "y")
        files = Files(directory, drop=["y"])
        np.testing.assert_array_equal(model.counts_.table, reference.counts_.table)  # counted from the tables
        assert not split_rows
        np.testing.assert_array_equal(model.predict(files), reference.predict(X))
        np.testing.assert_allclose(model.predict_proba(files), reference.predict_proba(X), rtol=0, atol=1e-12)
        np.testing.assert_allclose(model.predict_log_proba(files), reference.predict_log_proba(X), rtol=0,
                                   atol=1e-12)
        assert model.score(directory, "y") == reference.score(X, y)
        got, want = model.evaluate(directory, "y"), reference.evaluate(X, y)
        for key in ("accuracy", "log_loss", "average_log_likelihood", "roc_auc"):
            assert got[key] == pytest.approx(want[key], rel=1e-12), key
        np.testing.assert_array_equal(got["confusion_matrix"], want["confusion_matrix"])
    assert sum(split_rows) == 5 * len(X)  # predict, proba, log-proba, score and evaluate: every row of every pass


@pytest.mark.parametrize("read_at_once", [True, False])
def test_the_stateful_passes_over_parquet_files_split_arrow_tables_as_frames_are_split(labelled, split_rows,
                                                                                       read_at_once):
    """Boosting rounds, EM iterations and selection steps build each partition's state from its rows."""
    X, y, directory = labelled
    with route(read_at_once):
        boosted = BoostedNaiveBayes(n_rounds=3).fit(directory, "y")
        clusters = AutoClass(n_clusters=2, n_restarts=1, max_iter=5, random_state=0).fit(Files(directory, drop=["y"]))
        selected = SelectedNaiveBayes().fit(directory, "y")
    assert split_rows
    np.testing.assert_allclose(boosted.estimator_errors_, BoostedNaiveBayes(n_rounds=3).fit(X, y).estimator_errors_,
                               rtol=1e-12)  # weighted sums, added partition by partition
    reference = AutoClass(n_clusters=2, n_restarts=1, max_iter=5, random_state=0).fit(X)
    np.testing.assert_allclose(clusters.history_, reference.history_, rtol=1e-12)
    assert selected.selected_features_ == SelectedNaiveBayes().fit(X, y).selected_features_


def test_parquet_files_read_with_na_values_are_predicted_from_frames(tmp_path, batch_forms):
    X, y = training_frame()
    X.loc[X.index[::5], "colour"] = "?"
    directory = write_directory(tmp_path / "data", X.assign(y=y))
    model = NaiveBayes().fit(Files(directory, na_values="?"), "y")
    assert "?" not in model.schema_.attribute("colour").categories
    parts = predict_files(model, directory, settings={"na_values": "?"})
    assert batch_forms and not any(batch_forms)
    np.testing.assert_array_equal(pd.concat(parts)["prediction"].to_numpy(),
                                  model.predict(Files(directory, na_values="?", drop=["y"])))


def test_footers_are_read_once_per_version_of_a_file(tmp_path, monkeypatch):
    X, y = training_frame(90)
    directory = write_directory(tmp_path / "data", X.assign(y=y))
    files = sorted(directory.iterdir())
    opened = []
    open_file = parquet._parquet_file
    monkeypatch.setattr(parquet, "_parquet_file", lambda path, **kw: opened.append(path) or open_file(path, **kw))
    first = parquet.parquet_layout(files)
    assert parquet.parquet_layout(files)[2] == first[2] == 90
    assert sorted(opened) == sorted(map(str, files))  # the second layout read no footer
    X.iloc[:10].assign(y=y[:10]).to_parquet(files[0], index=False)  # the file rewritten: another size
    opened.clear()
    assert parquet.parquet_layout(files)[2] == 10 + 60
    assert opened == [str(files[0])]


def test_the_footer_cache_keeps_to_its_size(tmp_path, monkeypatch):
    X, y = training_frame(90)
    files = sorted(write_directory(tmp_path / "data", X.assign(y=y)).iterdir())
    size = parquet.parquet_footer(files[0])[0].serialized_size
    monkeypatch.setattr(parquet, "FOOTER_CACHE_BYTES", 2 * size)
    for f in files:
        parquet.parquet_footer(f)
    kept = [key[0] for key in parquet._footers]
    assert str(files[0]) not in kept and str(files[2]) in kept  # the oldest dropped
    assert sum(m.serialized_size for m in parquet._footers.values()) <= 2 * size


def test_an_arrow_table_is_written_as_parquet_only(tmp_path):
    from nbparallel.models.prediction_files import write_table

    table = pa.table({"prediction": dictionary(["yes", "no", "yes"], ["no", "yes"])})
    with pytest.raises(ValueError, match=r"an Arrow table is written as Parquet, not to .*p\.csv"):
        write_table(table, tmp_path / "p.csv")
    assert not list(tmp_path.iterdir())  # nothing written
    write_table(table, tmp_path / "p.parquet")
    assert pq.read_table(tmp_path / "p.parquet").column("prediction").to_pylist() == ["yes", "no", "yes"]
    assert pq.read_schema(tmp_path / "p.parquet").field("prediction").type == pa.string()

"""Every input kind gives the same counts: numpy, pandas dtypes, Dask collections, CSV and Parquet."""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes
from nbparallel.data.inputs import as_dataset
from nbparallel.data.schema_pass import scan_schema
from nbparallel.engine.execution import local_below
from nbparallel.engine.recipes import Read


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(7)
    n = 3000
    return pd.DataFrame({
        "x": rng.normal(size=n),
        "k": rng.integers(0, 4, n),
        "s": rng.choice(["a", "b", "c"], n).astype(object),
        "y": rng.choice(["no", "yes"], n).astype(object),
    })


def test_pandas_dtypes_are_equivalent(frame, reference):
    typed = frame.astype({"s": "category"})
    assert NaiveBayes(n_partitions=3).fit(typed, "y").counts_.equals(reference.counts_)
    strings = frame.astype({"s": "string"})
    assert NaiveBayes(n_partitions=3).fit(strings, "y").counts_.equals(reference.counts_)


def test_dask_dataframe(frame, reference):
    ddf = dd.from_pandas(frame, npartitions=5)
    model = NaiveBayes().fit(ddf, "y")
    assert model.n_partitions_ == 5
    assert model.counts_.equals(reference.counts_)
    assert NaiveBayes(n_partitions=3).fit(ddf, "y").counts_.equals(reference.counts_)


def test_dask_array_matches_numpy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 4))
    y = (X[:, 0] > 0).astype(int)
    base = NaiveBayes(n_partitions=1).fit(X, y)
    model = NaiveBayes().fit(da.from_array(X, chunks=(700, 2)), da.from_array(y, chunks=900))
    assert model.n_partitions_ == 8
    assert model.counts_.equals(base.counts_)
    np.testing.assert_array_equal(model.predict(da.from_array(X, chunks=(1000, 4))), base.predict(X))


def test_csv_and_parquet_files_and_directories(tmp_path, frame, reference, monkeypatch):
    monkeypatch.setattr("nbparallel.engine.execution.available_workers", lambda: 2)
    frame.to_csv(tmp_path / "one.csv", index=False)
    (tmp_path / "csvs").mkdir()
    (tmp_path / "pq").mkdir()
    for i, start in enumerate(range(0, len(frame), 750)):
        part = frame.iloc[start : start + 750]
        part.to_csv(tmp_path / "csvs" / f"part{i}.csv", index=False)
        part.to_parquet(tmp_path / "pq" / f"part{i}.parquet", index=False)
    frame.to_parquet(tmp_path / "one.parquet", index=False)
    for path, parts in [("one.csv", 1), ("csvs", 2), ("pq", 2), ("one.parquet", 1)]:  # small files: a group a worker
        model = NaiveBayes().fit(str(tmp_path / path), "y")
        assert model.counts_.equals(reference.counts_), path
        assert model.n_partitions_ == parts
        assert model.target_column_ == "y"


def test_files_are_read_inside_tasks(tmp_path, frame):
    """A file deleted after the dataset is built is only missed when a task reads it (files too large to
    read at once: here, all data is sent to the cluster)."""
    frame.to_parquet(tmp_path / "data.parquet", index=False)
    with local_below(0):
        dataset = as_dataset(str(tmp_path / "data.parquet"), "y")
    assert all(isinstance(p, Read) for p in dataset.partitions)  # lazy: delayed reads, no rows on the client
    (tmp_path / "data.parquet").unlink()
    with pytest.raises(FileNotFoundError, match="data.parquet"):  # the read happens in the task
        scan_schema(dataset)


def test_weight_column_and_missing_path(tmp_path, frame, reference):
    weighted = frame.assign(w=1.0)
    assert NaiveBayes().fit(weighted, "y", sample_weight="w").counts_.equals(reference.counts_)
    with pytest.raises(ValueError, match="does not exist"):
        NaiveBayes().fit(str(tmp_path / "nowhere.csv"), "y")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ValueError, match="neither CSV"):
        NaiveBayes().fit(str(tmp_path / "notes.txt"), "y")
    with pytest.raises(ValueError, match="sample_weight column 'nope'"):
        NaiveBayes().fit(frame, "y", sample_weight="nope")


def test_negative_weight_in_a_file_column_is_an_error(tmp_path, frame):
    frame.assign(w=np.where(np.arange(len(frame)) == 5, -1.0, 1.0)).to_parquet(tmp_path / "w.parquet")
    with pytest.raises(ValueError, match="w must hold finite, non-negative"):
        NaiveBayes().fit(str(tmp_path / "w.parquet"), "y", sample_weight="w")


def test_categorical_features_option(frame):
    model = NaiveBayes(categorical_features=["k"]).fit(frame, "y")
    kinds = {at.name: at.kind for at in model.schema_.attributes}
    assert kinds == {"x": "numeric", "k": "categorical", "s": "categorical"}
    assert model.schema_.attributes[0].name == "k"  # categorical attributes come first in the table
    X = np.random.default_rng(0).integers(0, 3, (100, 2))
    assert all(at.kind == "categorical" for at in NaiveBayes(categorical_features="all").fit(X, X[:, 0]).schema_.attributes)
    with pytest.raises(TypeError, match="categorical_features"):
        NaiveBayes(categorical_features=5).fit(X, X[:, 0])


def test_strings_are_categorical_even_when_other_columns_are_listed():
    X = np.array([[1.0, "a"], [2.0, "b"], [1.0, "b"]], dtype=object)
    model = NaiveBayes(categorical_features=[0]).fit(X, [0, 1, 1])
    assert [at.kind for at in model.schema_.attributes] == ["categorical", "categorical"]


def test_integer_vocabulary_range_predicts_like_exact_categories():
    rng = np.random.default_rng(11)
    codes = rng.choice([2, 5, 9], (2000, 3))  # gaps: 3, 4, 6, 7, 8 never occur
    y = (codes[:, 0] + rng.integers(0, 3, 2000)) % 2
    as_ints = NaiveBayes(categorical_features="all", alpha=1.0).fit(codes, y)
    as_strings = NaiveBayes(alpha=1.0).fit(codes.astype(str).astype(object), y)
    assert as_ints.schema_.attributes[0].categories == list(range(2, 10))
    np.testing.assert_allclose(as_ints.predict_proba(codes), as_strings.predict_proba(codes.astype(str).astype(object)),
                               rtol=1e-12)
    unseen = np.array([[3, 5, 100]])  # inside the range but never seen, and outside it: both missing
    np.testing.assert_array_equal(as_ints.predict_proba(unseen), as_ints.predict_proba(np.array([[0, 5, -1]])))


def test_data_coded_one_to_m_is_counted_without_a_copy():
    X = np.random.default_rng(0).integers(1, 11, (500, 4)).astype(np.uint8)
    model = NaiveBayes(categorical_features="all").fit(X, X[:, 0] % 2)
    codes, _ = model.schema_.split(X)
    assert codes is X
    shifted = X - 1  # coded 0..9: shifted into place, the same counts
    assert NaiveBayes(categorical_features="all").fit(shifted, X[:, 0] % 2).counts_.equals(model.counts_)


def test_codes_outside_the_schema_are_caught_without_a_scan():
    from nbparallel.summaries.counts import CountSpec, count_rows

    X = np.random.default_rng(1).integers(1, 5, (300, 3)).astype(np.uint8)
    model = NaiveBayes(categorical_features="all").fit(X, X[:, 0] % 2)
    changed = X.copy()
    changed[17, 2] = 9  # the data changed after the schema pass
    with pytest.raises(ValueError, match="column .2. holds 1 value.s. the schema pass did not see"):
        count_rows(CountSpec.of(model.schema_), changed, X[:, 0] % 2, None)


@pytest.mark.parametrize("columns, error, message", [
    (["a", "a"], ValueError, r"duplicate column names \['a'\]"),
    ([1, "1"], ValueError, r"become the same string: 1, '1'"),
    (pd.MultiIndex.from_tuples([("a", "b"), ("a", "c")]), TypeError, "MultiIndex columns"),
])
def test_column_names_that_would_mix_columns_are_refused(columns, error, message):
    X = pd.DataFrame([[1.0, "u"], [2.0, "v"]], columns=columns)
    with pytest.raises(error, match=message):
        NaiveBayes().fit(X, [0, 1])
    with pytest.raises(error, match=message):
        NaiveBayes().fit(dd.from_pandas(X.assign(y=[0, 1]) if not isinstance(columns, pd.MultiIndex) else X,
                                        npartitions=1), "y")


@pytest.mark.parametrize("column, what", [
    (pd.to_datetime(["2020-01-01", "2020-03-01"]), "dates and times"),
    (pd.to_timedelta([1, 2], unit="D"), "time spans"),
    (np.array([1 + 2j, 3j]), "complex numbers"),
])
def test_dates_time_spans_and_complex_columns_are_refused(column, what):
    with pytest.raises(TypeError, match=f"column 'c' holds {what}"):
        NaiveBayes().fit(pd.DataFrame({"c": column, "x": [1.0, 2.0]}), [0, 1])


def test_object_columns_of_numbers_warn_that_they_are_counted_as_categories():
    X = pd.DataFrame({"n": [1.5, 2, 3, 4], "s": ["a", "b", "a", "b"]}).astype(object)
    with pytest.warns(UserWarning, match="column 'n' has dtype object but holds only numbers"):
        model = NaiveBayes().fit(X, [0, 1, 0, 1])
    assert model.schema_.feature_kinds == {"n": "categorical", "s": "categorical"}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said explicitly: no warning
        NaiveBayes(categorical_features=["n"]).fit(X, [0, 1, 0, 1])


def test_targets_that_are_not_class_labels_are_refused_on_every_path(tmp_path):
    with pytest.raises(ValueError, match="print the same but differ in type"):
        NaiveBayes().fit(np.array([[1], [2]]), np.array([1, "1"], dtype=object))
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [0.5, 1.25, 3.5, 0.1]})
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    for data in (dd.from_pandas(frame, npartitions=2), str(tmp_path / "t.parquet")):
        with pytest.raises(ValueError, match="Unknown label type: continuous"):
            NaiveBayes().fit(data, "y")


def test_values_near_the_float_limits_are_binned_without_overflow():
    X = np.array([[-1e308], [1e308], [0.5e308], [-0.7e308]] * 10)
    y = np.array([0, 1, 1, 0] * 10)
    model = NaiveBayes().fit(X, y)
    edges = model.schema_.attributes[0].edges()
    assert np.all(np.isfinite(edges)) and np.all(np.diff(edges) > 0)
    assert (model.predict(X) == y).all()


def test_a_partition_that_changed_between_the_passes_is_refused():
    from nbparallel.data.dataset import Dataset
    from nbparallel.summaries.counts import count_dataset

    part = pd.DataFrame({"s": ["a", "b"], "x": [1.0, 2.0]})
    dataset = Dataset([(part, np.array([0, 1]), None)], ["s", "x"], ["categorical", "numeric"])
    schema, _, _ = scan_schema(dataset)
    dataset.partitions[0] = (part.assign(s=["a", "new"]), np.array([0, 1]), None)
    with pytest.raises(ValueError, match="column 's' holds 1 value.s. the schema pass did not see"):
        count_dataset(dataset, schema)

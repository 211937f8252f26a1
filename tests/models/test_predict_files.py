"""Prediction to files partition by partition (``model.predict_to``, ``nbparallel predict``'s route) against
``model.predict`` and ``model.predict_proba``, for every input form.

The labels of each partition are taken from the classes by position (:meth:`predict_part`), and each
partition's task is tokenized without the model: the output must be what ``model.predict`` says, with the
dtype a DataFrame of those labels has, returned or written. Partitions are predicted a batch of rows at a
time: the files written must be those of the whole partition predicted at once, byte for byte.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from dask.base import tokenize

from nbparallel import Files, NaiveBayes
import nbparallel.models.prediction_files as scoring
from nbparallel.models.prediction_files import PartitionOutput, predict_files

RNG = np.random.default_rng(11)


def write_parts(directory, frame, n_files):
    directory.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[rows].to_parquet(directory / f"part-{i}.parquet")
    return directory


@pytest.mark.parametrize("labels", ["strings", "integers", "floats"])
def test_predictions_of_files_equal_model_predict(tmp_path, labels):
    n = 900
    X = pd.DataFrame({f"a{j}": RNG.choice(["x", "y", "z", None], n) for j in range(4)})
    y = (X["a0"].fillna("w").map({"w": 0, "x": 1, "y": 2, "z": 3}) + RNG.integers(0, 2, n)) % 3
    X["y"] = {"strings": y.map({0: "no", 1: "yes", 2: "maybe"}), "integers": y * 10,
              "floats": y * 1.0}[labels]
    directory = write_parts(tmp_path / "data", X, 3)
    model = NaiveBayes().fit(directory, "y")
    want = pd.DataFrame({"prediction": model.predict(Files(directory, drop=["y"]))})
    proba = model.predict_proba(Files(directory, drop=["y"]))
    parts = predict_files(model, directory, proba=True)
    got = pd.concat(parts, ignore_index=True)
    pd.testing.assert_frame_equal(got[["prediction"]], want)
    np.testing.assert_allclose(got.drop(columns="prediction").to_numpy(), proba, rtol=0, atol=1e-12)
    assert predict_files(model, directory, directory=tmp_path / "out") == [300, 300, 300]
    written = pd.concat([pd.read_parquet(p) for p in sorted((tmp_path / "out").glob("part-*.parquet"))],
                        ignore_index=True)
    np.testing.assert_array_equal(written["prediction"].to_numpy(), want["prediction"].to_numpy())


def test_partition_tasks_are_tokenized_by_their_settings_not_their_model():
    predict = object()
    one = PartitionOutput(predict, [], None, None, 0)
    assert tokenize(one) == tokenize(PartitionOutput(predict, [], None, None, 0))
    assert tokenize(one) != tokenize(PartitionOutput(predict, [], None, None, 1))
    assert tokenize(one) != tokenize(PartitionOutput(object(), [], None, None, 0))


def write_row_groups(frame, path, sizes):
    """``frame`` as one Parquet file whose row groups hold ``sizes`` rows (0: an empty row group)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    with pq.ParquetWriter(path, table.schema) as writer:
        start = 0
        for size in sizes:
            writer.write_table(table.slice(start, size))
            start += size
    return path


@pytest.fixture(scope="module")
def labelled():
    n = 2000
    X = pd.DataFrame({f"a{j}": RNG.choice(["x", "y", "z", None], n) for j in range(3)})
    X["num"] = np.where(RNG.random(n) < 0.05, np.nan, RNG.normal(size=n))
    X["id"] = np.arange(n) * 7
    X["y"] = np.where((X["a0"] == "x") | (X["num"] > 1), "yes", "no")
    return X


@pytest.fixture(params=["parquet", "csv"])
def files(request, tmp_path, labelled, monkeypatch):
    """``(directory, rows of each partition)``. Parquet: a file of row groups of 300 rows with empty ones
    between, one split into partitions by its row groups, and one without rows; CSV: two files and one of a
    header only."""
    import nbparallel.data.files.parquet as parquet

    monkeypatch.setattr(parquet, "ROWS_PER_PARTITION", 700)
    directory = tmp_path / "data"
    directory.mkdir()
    if request.param == "csv":
        labelled.iloc[:900].to_csv(directory / "p0.csv", index=False)
        labelled.iloc[900:].to_csv(directory / "p1.csv", index=False)
        labelled.iloc[:0].to_csv(directory / "p2.csv", index=False)
        return directory, [900, 1100, 0]
    write_row_groups(labelled.iloc[:900], directory / "p0.parquet", [300, 0, 300, 0, 300])
    write_row_groups(labelled.iloc[900:], directory / "p1.parquet", [400, 400, 300])
    write_row_groups(labelled.iloc[:0], directory / "p2.parquet", [0])
    return directory, [900, 800, 300, 0]


@pytest.mark.parametrize("suffix", ["", ".csv"])
def test_batches_write_the_files_of_whole_partitions(tmp_path, labelled, files, suffix, monkeypatch):
    directory, partition_rows = files
    model = NaiveBayes().fit(Files(directory, drop=["id"]), "y")
    written = {}
    for batch_rows in (10**9, 64):  # the whole partition at once, then batches of 64 rows (of 4 columns)
        monkeypatch.setattr(scoring, "BATCH_VALUES", 4 * batch_rows)
        out = tmp_path / f"out-{batch_rows}{suffix}"
        assert predict_files(model, directory, directory=out, proba=True, keep=["id"]) == partition_rows
        written[batch_rows] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert list(written[64]) == [f"part-{i:05d}{suffix or '.parquet'}" for i in range(len(partition_rows))]
    assert written[64] == written[10**9]
    read = pd.read_csv if suffix else pd.read_parquet
    got = pd.concat([read(tmp_path / f"out-64{suffix}" / name) for name in written[64]], ignore_index=True)
    np.testing.assert_array_equal(got["id"], labelled["id"])  # rows in order
    np.testing.assert_array_equal(got["prediction"], model.predict(Files(directory, drop=["id"])))
    np.testing.assert_allclose(got[["proba_no", "proba_yes"]].to_numpy(dtype=float),
                               model.predict_proba(Files(directory, drop=["id"])), rtol=0, atol=1e-12)


def test_batches_return_the_frames_of_whole_partitions(files, monkeypatch):
    directory, partition_rows = files
    model = NaiveBayes().fit(Files(directory, drop=["id"]), "y")
    monkeypatch.setattr(scoring, "BATCH_VALUES", 10**9)
    whole = predict_files(model, directory, proba=True, keep=["id", "a0"])
    monkeypatch.setattr(scoring, "BATCH_VALUES", 400)
    batched = predict_files(model, directory, proba=True, keep=["id", "a0"])
    assert [len(p) for p in batched] == partition_rows
    for got, want in zip(batched, whole):
        pd.testing.assert_frame_equal(got, want)


def test_a_partition_is_predicted_a_bounded_batch_at_a_time(files, monkeypatch):
    directory, partition_rows = files
    model = NaiveBayes().fit(Files(directory, drop=["id"]), "y")
    sizes = []

    def recorded(model, features, proba, X):
        sizes.append(len(X))
        return scoring_batch_predictions(model, features, proba, X)

    scoring_batch_predictions = scoring.batch_predictions
    monkeypatch.setattr(scoring, "batch_predictions", recorded)
    monkeypatch.setattr(scoring, "BATCH_VALUES", 4 * 100)  # 100 rows of the model's 4 columns
    assert predict_files(model, directory) and sum(sizes) == sum(partition_rows)
    assert max(sizes) == 100 and len(sizes) >= sum(-(-n // 100) for n in partition_rows)


@pytest.fixture(scope="module")
def fitted():
    """A model fitted on a mixed table with a string target, and that table (target included)."""
    n = 600
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n), "size": rng.normal(0, 1, n),
                      "id": np.arange(n)})
    X["y"] = np.where((X["colour"] == "red") ^ (X["size"] > 0.5), "yes", "no")
    model = NaiveBayes(n_bins=4).fit(X[["colour", "size", "y"]], "y")
    return model, X


def input_forms(frame, tmp_path, form):
    """``frame`` (the model's columns and ``id``) as the input ``form``."""
    import dask.dataframe as dd

    if form == "numpy":
        return frame[["colour", "size"]].to_numpy(dtype=object)
    if form == "pandas":
        return frame
    if form == "dask":
        return dd.from_pandas(frame, npartitions=3)
    if form == "dask array":  # chunked by columns too: predicted a run of whole rows at a time
        import dask.array as da

        return da.from_array(frame[["colour", "size"]].to_numpy(dtype=object), chunks=(200, 1))
    directory = tmp_path / f"in-{form}"
    directory.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        part = frame.iloc[rows]
        if form == "csv":
            part.to_csv(directory / f"part-{i}.csv", index=False)
        else:
            part.to_parquet(directory / f"part-{i}.parquet")
    return directory


@pytest.mark.parametrize("form", ["numpy", "pandas", "dask", "dask array", "csv", "parquet"])
@pytest.mark.parametrize("out", ["file.csv", "file.parquet", "parts/", "parts.csv/"])
def test_predict_to_writes_what_predict_and_predict_proba_say_for_every_input_form(fitted, tmp_path, form, out):
    model, X = fitted
    frame = X[["colour", "size", "id"]]
    data = input_forms(frame, tmp_path, form)
    keep = None if form in ("numpy", "dask array") else ["id"]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy input has no feature names: predict's own warning
        want_labels = model.predict(frame[["colour", "size"]])
        want_proba = model.predict_proba(frame[["colour", "size"]])
        written = model.predict_to(tmp_path / out if not out.endswith("/") else f"{tmp_path / out}/", data,
                                   proba=True, keep=keep)
    target = tmp_path / out.rstrip("/")
    if out.endswith("/"):
        files = sorted(target.glob("part-*"))
        assert written.n_files == len(files) == (1 if form in ("numpy", "pandas") else 3)
        assert all(f.suffix == (".csv" if out == "parts.csv/" else ".parquet") for f in files)
        read = [pd.read_csv(f) if f.suffix == ".csv" else pd.read_parquet(f) for f in files]
        got = pd.concat(read, ignore_index=True)
    else:
        assert written.n_files == 1
        got = pd.read_csv(target) if out.endswith(".csv") else pd.read_parquet(target)
    assert written.n_rows == len(got) == len(X)
    assert list(got.columns) == (["id"] if keep else []) + ["prediction", "proba_no", "proba_yes"]
    np.testing.assert_array_equal(got["prediction"].astype(str).to_numpy(), want_labels.astype(str))
    np.testing.assert_allclose(got[["proba_no", "proba_yes"]].to_numpy(), want_proba, rtol=1e-12, atol=1e-12)
    if keep:
        np.testing.assert_array_equal(got["id"].to_numpy(), X["id"].to_numpy())
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left


@pytest.mark.parametrize("form", ["dask", "parquet"])
@pytest.mark.parametrize("out", ["file.csv", "parts/"])
def test_predict_to_leaves_no_partial_output_on_error(fitted, tmp_path, form, out, monkeypatch):
    import threading

    model, X = fitted
    data = input_forms(X[["colour", "size", "id"]], tmp_path, form)
    method = "predict" if form == "dask" else "predict_part"  # the files' route predicts by predict_part
    original, calls, lock = getattr(type(model), method), [], threading.Lock()

    def fail_on_second_partition(self, *args, **kwargs):
        with lock:
            calls.append(1)
            failing = len(calls) == 2
        if failing:
            raise RuntimeError("disk on fire")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(model), method, fail_on_second_partition)
    with pytest.raises(RuntimeError, match="disk on fire"):
        model.predict_to(f"{tmp_path / out}" + ("/" if out.endswith("/") else ""), data)
    assert len(calls) >= 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if form == "dask" else ["in-parquet"])


def test_predict_to_names_a_missing_keep_column_and_an_unfitted_model(fitted, tmp_path):
    model, X = fitted
    with pytest.raises(ValueError, match=r"keep names columns \['nope'\]"):
        model.predict_to(tmp_path / "p.csv", X, keep=["nope"])
    with pytest.raises(ValueError, match="give the data as a DataFrame"):
        model.predict_to(tmp_path / "p.csv", X[["colour", "size"]].to_numpy(dtype=object), keep=["id"])
    with pytest.raises(Exception, match="not fitted"):
        NaiveBayes().predict_to(tmp_path / "p.csv", X)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fail", [False, True])
def test_predict_to_a_directory_url_writes_every_part_or_none(fitted, tmp_path, fail, monkeypatch):
    """A directory URL (here fsspec's in-memory store) gets its parts only once every part is written."""
    import threading

    import fsspec

    model, X = fitted
    data = input_forms(X[["colour", "size", "id"]], tmp_path, "parquet")
    fs, root = fsspec.filesystem("memory"), f"/nbparallel-predict-{fail}"
    original, calls, lock = type(model).predict_part, [], threading.Lock()

    def fail_on_second_partition(self, *args, **kwargs):
        with lock:
            calls.append(1)
            failing = fail and len(calls) == 2
        if failing:
            raise RuntimeError("store on fire")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(model), "predict_part", fail_on_second_partition)
    try:
        if fail:
            with pytest.raises(RuntimeError, match="store on fire"):
                model.predict_to(f"memory://{root}/parts/", data)
            assert len(calls) >= 2 and not fs.exists(f"{root}/parts")
            assert not fs.exists(root) or fs.ls(root, detail=False) == []  # no staged part left
        else:
            written = model.predict_to(f"memory://{root}/parts/", data)
            names = sorted(fs.ls(f"{root}/parts", detail=False))
            assert written.n_files == len(names) == 3 and fs.ls(root, detail=False) == [f"{root}/parts"]
            got = pd.concat([pd.read_parquet(fs.open(n, "rb")) for n in names], ignore_index=True)
            np.testing.assert_array_equal(got["prediction"].to_numpy(), model.predict(X[["colour", "size"]]))
    finally:
        if fs.exists(root):
            fs.rm(root, recursive=True)

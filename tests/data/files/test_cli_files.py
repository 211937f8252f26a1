"""``Files(path, drop=[...])``: columns no pass reads, for the library and for the CLI's ``--drop``.

The model fitted on files with a dropped column equals the one fitted on the
same data without that column, for CSV and Parquet, a file and a directory;
a dropped column that does not exist is an error naming it.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine

from nbparallel import AutoClass, Files, NaiveBayes
from nbparallel.data.files.readers import file_dataset, file_layout, read_files


@pytest.fixture(scope="module")
def frame():
    data = load_wine(as_frame=True)
    frame = data.data.iloc[:, :5].assign(cls=data.target)
    frame.columns = [c.replace(" ", "_") for c in frame.columns]
    frame.insert(0, "id", np.arange(len(frame)) + 1000)
    frame.insert(3, "leak", data.target.map({0: "a", 1: "b", 2: "c"}))
    return frame


def write(frame, directory, kind, n_files):
    directory.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        piece = frame.iloc[part]
        if kind == "csv":
            piece.to_csv(directory / f"part-{i}.csv", index=False)
        else:
            piece.to_parquet(directory / f"part-{i}.parquet", index=False)
    return directory if n_files > 1 else next(directory.iterdir())


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("n_files", [1, 3])
def test_dropped_columns_are_no_attributes_and_the_model_is_the_same(tmp_path, frame, kind, n_files):
    path = write(frame, tmp_path / "data", kind, n_files)
    model = NaiveBayes(n_bins=4).fit(Files(path, drop=["id", "leak"]), "cls")
    reference = NaiveBayes(n_bins=4).fit(frame.drop(columns=["id", "leak"]), "cls")
    assert model.counts_.equals(reference.counts_)
    assert list(model.feature_names_in_) == [c for c in frame.columns if c not in ("id", "leak", "cls")]
    np.testing.assert_array_equal(model.predict(frame.drop(columns=["id", "leak", "cls"])),
                                  reference.predict(frame.drop(columns=["id", "leak", "cls"])))
    # the files predict and score as they are: the dropped and target columns are left out
    np.testing.assert_array_equal(model.predict(Files(path, drop=["id", "leak"])),
                                  reference.predict(frame.drop(columns=["id", "leak", "cls"])))
    assert model.score(Files(path, drop=["id", "leak"]), "cls") == reference.score(
        frame.drop(columns=["id", "leak"]), "cls")


def test_dropped_columns_are_read_by_no_pass(tmp_path, frame):
    path = write(frame, tmp_path / "data", "csv", 2)
    dataset = file_dataset(Files(path, drop=["id", "leak"]), "cls")
    assert "id" not in dataset.columns and "leak" not in dataset.columns
    from nbparallel.engine.execution import map_partitions

    first = map_partitions(dataset.partitions[:1], lambda part: part)[0]
    assert "id" not in first.columns and "leak" not in first.columns
    assert list(read_files(Files(path, drop=["leak"])).columns) == [c for c in frame.columns if c != "leak"]
    layout = file_layout(Files(path, drop=["id"]))
    assert layout.columns == [c for c in frame.columns if c != "id"] and layout.n_partitions == 2


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_an_unknown_dropped_column_is_an_error_naming_it(tmp_path, frame, kind):
    path = write(frame, tmp_path / "data", kind, 2)
    with pytest.raises(ValueError, match="drop names column 'nope', which is not in the data"):
        NaiveBayes().fit(Files(path, drop=["id", "nope"]), "cls")
    with pytest.raises(ValueError, match="drop names column 'nope'"):
        read_files(Files(path, drop=["nope"]))
    with pytest.raises(ValueError, match="column 'cls' is both dropped and named as the target"):
        NaiveBayes().fit(Files(path, drop=["cls"]), "cls")
    with pytest.raises(TypeError, match="drop must be a list of column names"):
        Files(path, drop="id")


def test_autoclass_and_the_other_read_options_take_drop(tmp_path, frame):
    text = frame.astype({"alcohol": object})
    text.loc[::7, "alcohol"] = "?"
    path = tmp_path / "weka.csv"
    text.to_csv(path, index=False)
    files = Files(path, na_values="?", numeric_features=["alcohol"], drop=["id", "leak", "cls"])
    assert "drop=('id', 'leak', 'cls')" in repr(files)
    clusters = AutoClass(n_clusters=3, n_restarts=2, max_iter=5, random_state=0).fit(files)
    expected = frame.drop(columns=["id", "leak", "cls"]).astype({"alcohol": float})
    expected.loc[::7, "alcohol"] = np.nan
    reference = AutoClass(n_clusters=3, n_restarts=2, max_iter=5, random_state=0).fit(expected)
    np.testing.assert_allclose(clusters.counts_, reference.counts_)
    assert list(clusters.feature_names_in_) == list(expected.columns)


def test_cli_drop_reads_files_with_drop(tmp_path, frame, capsys):
    """``--drop`` is ``Files(drop=)``: the CLI model equals the library's on the data without the columns."""
    from nbparallel import load
    from nbparallel.cli import main

    path = write(frame, tmp_path / "data", "parquet", 3)
    assert main(["fit", str(path), "--target", "cls", "--drop", "id", "leak", "--bins", "4", "-o",
                 str(tmp_path / "m.json"), "--quiet"]) == 0
    reference = NaiveBayes(n_bins=4).fit(frame.drop(columns=["id", "leak"]), "cls")
    assert load(tmp_path / "m.json").counts_.equals(reference.counts_)
    assert main(["fit", str(path), "--target", "cls", "--drop", "nope", "-o", str(tmp_path / "n.json")]) == 2
    assert "--drop names columns ['nope'] that the data does not have" in capsys.readouterr().err
    assert not (tmp_path / "n.json").exists()
    pd.testing.assert_frame_equal(pd.read_parquet(path), frame)  # the files are left as they are

"""CSV and Parquet files read by pyarrow: the same counts as in memory, and clear errors."""

from contextlib import nullcontext

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nbparallel import NaiveBayes
from nbparallel.data.files.arrow import is_text
from nbparallel.data.files.readers import file_readers, read_files
from nbparallel.data.files.listing import list_files
from nbparallel.data.files.options import Files
from nbparallel.data.files.pieces import Unit, pieces
from nbparallel.data.inputs import as_dataset
from nbparallel.engine.execution import local_below, map_partitions
from nbparallel.engine.recipes import Read


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(3)
    n = 2400
    x = rng.normal(size=n)
    x[::97] = np.nan
    s = rng.choice(["red", "green", "blue"], n).astype(object)
    s[::53] = None
    return pd.DataFrame({
        "x": x,
        "k": rng.integers(-3, 4, n),
        "s": s,
        "t": rng.choice(["p", "q"], n).astype(object),
        "y": rng.choice(["no", "yes"], n).astype(object),
    })


def write_parts(frame, directory, kind, n_files, **options):
    directory.mkdir(exist_ok=True)
    for i, part in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        piece = frame.iloc[part]
        if kind == "csv":
            piece.to_csv(directory / f"part{i:02d}.csv", index=False)
        else:
            pq.write_table(pa.Table.from_pandas(piece, preserve_index=False), directory / f"part{i:02d}.parquet",
                           **options)
    return directory


def first_partition(dataset):
    return map_partitions(dataset.partitions[:1], lambda part: part)[0]


def test_parquet_partitions_are_arrow_tables_given_as_typed_frames_of_local_categories(tmp_path, frame):
    directory = write_parts(frame, tmp_path / "pq", "parquet", 3)
    with local_below(0):  # read in tasks, as a directory too large to read at once is
        dataset = as_dataset(directory, "y")
    assert dataset.n_rows == len(frame)
    table = first_partition(dataset)
    assert type(table).__name__ == "Table" and str(table.schema.field("s").type).startswith("dictionary")
    X, y = dataset.map(lambda X, y, w: (X, y))(table)  # what a pass is given
    assert dataset.map(lambda X, y, w: X, tables=True)(table).equals(table.select(dataset.columns))  # scoring
    part = X.assign(y=y)
    assert isinstance(part, pd.DataFrame)
    assert part["s"].dtype == "category" and part["t"].dtype == "category"
    assert list(y) == frame["y"].iloc[: len(part)].tolist()
    assert part["x"].dtype == np.float64 and part["k"].dtype == np.int64
    assert sorted(part["s"].cat.categories) == ["blue", "green", "red"]  # the partition's own dictionary
    assert part["s"].isna().sum() == frame["s"].iloc[: len(part)].isna().sum()


def test_small_parquet_directories_are_read_at_once_into_arrow_tables(tmp_path, frame, monkeypatch):
    import nbparallel.data.files.parquet as files
    from nbparallel.data.schema_pass import scan_schema

    directory = write_parts(frame, tmp_path / "pq", "parquet", 4)
    opened = []
    monkeypatch.setattr(files, "_open_parquet", lambda path, text, left, _open=files._open_parquet: (
        opened.append(path), _open(path, text, left))[1])
    dataset = as_dataset(directory, "y")
    assert sorted(map(str, opened)) == sorted(str(p) for p in directory.iterdir())  # each file opened once
    for part in dataset.partitions:
        assert isinstance(part, pa.Table) and all(c.num_chunks == 1 for c in part.columns)
        assert pa.types.is_dictionary(part.schema.field("s").type) and part.schema.names == ["x", "k", "s", "t", "y"]
    for path in directory.iterdir():  # the rows are in memory: the files are no longer read
        path.unlink()
    _, scan, _ = scan_schema(dataset)
    assert scan.n_rows == len(frame) and scan.classes == {"no", "yes"}
    write_parts(frame, directory, "parquet", 4)
    with local_below(1):  # kept on the cluster: read in tasks
        assert all(isinstance(p, Read) for p in as_dataset(directory, "y").partitions)
    file_bytes = sum(p.stat().st_size for p in directory.iterdir())
    opened.clear()
    with local_below(file_bytes + 1):  # small files, but larger than that once read (as the first one says)
        assert all(isinstance(p, Read) for p in as_dataset(directory, "y").partitions) and not opened
    monkeypatch.setattr(files, "SMALL_PARQUET_BYTES", 1)  # too large to read at once: read in tasks
    assert all(isinstance(p, Read) for p in as_dataset(directory, "y").partitions)


def test_files_unlike_the_first_are_not_kept_beyond_the_local_threshold(tmp_path, monkeypatch):
    """The first file says the rows are small, but the others hold many more rows per byte: their rows are
    read only while their size in memory stays under the threshold, then the partitions are read in tasks."""
    import nbparallel.data.files.parquet as files

    rng = np.random.default_rng(5)
    pd.DataFrame({"a": [f"value {i}" for i in rng.permutation(50)], "y": rng.choice(["p", "q"], 50)}).to_parquet(
        tmp_path / "part00.parquet", index=False)
    for i in (1, 2, 3):
        pd.DataFrame({"a": ["value 1"] * 20000, "y": ["p"] * 20000}).to_parquet(tmp_path / f"part0{i}.parquet",
                                                                                 index=False)
    paths = sorted(tmp_path.iterdir())
    sizes = [p.stat().st_size for p in paths]
    in_memory = [files._size_in_memory(pq.read_metadata(p)) for p in paths]
    small = max(sum(sizes), in_memory[0] * sum(sizes) / sizes[0])  # the files' bytes, the first file's estimate
    assert small < sum(in_memory) / 10
    opened = []
    monkeypatch.setattr(files, "_open_parquet", lambda path, text, left, _open=files._open_parquet: (
        opened.append(path), _open(path, text, left))[1])
    with local_below(int(small + sum(in_memory)) // 2):
        dataset = as_dataset(tmp_path, "y")
        assert all(isinstance(p, Read) for p in dataset.partitions) and len(opened) == 4
        model = NaiveBayes().fit(tmp_path, "y")
    expected = NaiveBayes().fit(pd.concat([pd.read_parquet(p) for p in paths]), "y")
    assert model.counts_.equals(expected.counts_)


def test_ranges_cover_every_numeric_column_and_skip_weighted_data(tmp_path, frame):
    directory = write_parts(frame, tmp_path / "pq", "parquet", 2, row_group_size=300)
    ranges = as_dataset(directory, "y").ranges
    assert ranges["x"] == (np.nanmin(frame["x"]), np.nanmax(frame["x"]))
    assert ranges["k"] == (frame["k"].min(), frame["k"].max())
    assert as_dataset(directory, "y", categorical_features=["k"]).ranges.keys() == {"x"}
    weighted = write_parts(frame.assign(w=1.0), tmp_path / "w", "parquet", 2)
    assert as_dataset(weighted, "y", sample_weight="w").ranges is None  # weight-0 rows do not count


def test_float_statistics_of_other_writers_or_infinite_values_are_not_trusted(tmp_path):
    table = pa.table({"x": [1.0, np.inf, 2.0], "y": ["a", "b", "a"]})
    pq.write_table(table, tmp_path / "inf.parquet")
    assert as_dataset(tmp_path / "inf.parquet", "y").ranges in (None, {})
    with pytest.raises(ValueError, match="infinite"):
        NaiveBayes().fit(tmp_path / "inf.parquet", "y")


@pytest.mark.parametrize("kind", ["parquet", "csv"])
@pytest.mark.parametrize("n_files, n_partitions", [(1, None), (4, None), (4, 2), (2, 5)])
def test_files_give_the_counts_of_the_in_memory_frame(tmp_path, frame, reference, kind, n_files, n_partitions,
                                                     monkeypatch):
    monkeypatch.setattr("nbparallel.engine.execution.available_workers", lambda: 2)
    directory = write_parts(frame, tmp_path / kind, kind, n_files)
    model = NaiveBayes(n_partitions=n_partitions).fit(directory, "y")
    assert model.counts_.equals(reference.counts_)
    assert model.schema_.to_dict() == reference.schema_.to_dict()
    assert model.n_partitions_ == (n_partitions or min(n_files, 2))  # small files: grouped, one group a worker


def test_default_partitions_group_small_files_only(tmp_path, frame, reference, monkeypatch):
    import nbparallel.data.files.pieces as pieces_module
    from nbparallel.data.files.pieces import default_pieces

    monkeypatch.setattr("nbparallel.engine.execution.available_workers", lambda: 2)
    directory = write_parts(frame, tmp_path / "pq", "parquet", 6)
    rows = len(frame) // 6
    monkeypatch.setattr(pieces_module, "MIN_PARTITION_ROWS", 2 * rows)  # pairs of files, more groups than workers
    model = NaiveBayes().fit(directory, "y")
    assert model.n_partitions_ == 3 and model.counts_.equals(reference.counts_)
    monkeypatch.setattr(pieces_module, "MIN_PARTITION_ROWS", rows)  # files as large as the least: one each
    assert len(as_dataset(directory, "y").partitions) == 6
    csv = write_parts(frame, tmp_path / "csv", "csv", 6)
    sizes = [f.stat().st_size for f in sorted(csv.iterdir())]
    monkeypatch.setattr(pieces_module, "MIN_PARTITION_BYTES", min(sizes[i] + sizes[i + 1] for i in (0, 2, 4)))
    model = NaiveBayes().fit(csv, "y")  # CSV files grouped by their bytes: pairs
    assert model.n_partitions_ == 3 and model.counts_.equals(reference.counts_)
    assert [len(p.units) for p in default_pieces([Unit("big", (10**9, 0))] * 3, 2)] == [1, 1, 1]


def test_large_parquet_files_split_by_row_groups(tmp_path, frame, reference, monkeypatch):
    import nbparallel.data.files.parquet as files
    import nbparallel.data.files.pieces as pieces_module

    monkeypatch.setattr(files, "ROWS_PER_PARTITION", 500)
    monkeypatch.setattr(pieces_module, "MIN_PARTITION_ROWS", 200)  # no run is grouped with its neighbour
    directory = write_parts(frame, tmp_path / "pq", "parquet", 2, row_group_size=250)
    dataset = as_dataset(directory, "y")
    assert len(dataset.partitions) == 6  # 1200 rows a file, in row groups of 250: runs of 500, 500, 200
    model = NaiveBayes().fit(directory, "y")
    assert model.counts_.equals(reference.counts_)


def test_pieces_group_and_split_units():
    units = [Unit(str(i), (), None, 10 * (i + 1)) for i in range(4)]
    assert [p.n_rows for p in pieces(units)] == [10, 20, 30, 40]
    assert [p.n_rows for p in pieces(units, 2)] == [30, 70]
    split = pieces(units[:1], 3)
    assert [p.n_rows for p in split] == [3, 3, 4] and sum(p.n_rows for p in split) == 10


def test_upper_case_suffixes_are_found(tmp_path, frame, reference):
    frame.to_csv(tmp_path / "DATA.CSV", index=False)
    assert NaiveBayes().fit(tmp_path / "DATA.CSV", "y").counts_.equals(reference.counts_)
    (tmp_path / "pq").mkdir()
    frame.to_parquet(tmp_path / "pq" / "Part.Parquet", index=False)
    assert list_files(tmp_path / "pq") == ([tmp_path / "pq" / "Part.Parquet"], "parquet")


def test_hidden_and_underscore_files_are_skipped(tmp_path, frame, reference):
    directory = write_parts(frame, tmp_path / "pq", "parquet", 2)
    (directory / "_SUCCESS").write_text("")
    (directory / ".part00.parquet.crc").write_bytes(b"\x00")
    assert NaiveBayes().fit(directory, "y").counts_.equals(reference.counts_)


def test_a_directory_of_both_kinds_is_an_error(tmp_path, frame):
    write_parts(frame, tmp_path / "mixed", "parquet", 2)
    frame.to_csv(tmp_path / "mixed" / "extra.csv", index=False)
    with pytest.raises(ValueError, match=r"both Parquet files \(part00.parquet.*CSV files \(extra.csv"):
        as_dataset(tmp_path / "mixed", "y")


def test_a_directory_without_data_files_is_an_error(tmp_path):
    (tmp_path / "empty" / "nested").mkdir(parents=True)
    with pytest.raises(ValueError, match=r"no CSV .* or Parquet .*subdirectories \['nested'\]"):
        as_dataset(tmp_path / "empty", "y")


def route(read_at_once):
    """Small Parquet directories read at once (the default here), or in tasks as larger ones are."""
    return nullcontext() if read_at_once else local_below(0)


@pytest.mark.parametrize("read_at_once", [True, False])
@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_files_with_differing_columns_name_the_file_and_the_column(tmp_path, frame, kind, read_at_once):
    directory = write_parts(frame, tmp_path / kind, kind, 2)
    odd = frame.rename(columns={"s": "colour"})
    if kind == "csv":
        odd.to_csv(directory / "part09.csv", index=False)
    else:
        odd.to_parquet(directory / "part09.parquet", index=False)
    with route(read_at_once), pytest.raises(ValueError, match=r"part09.* has no column 's', which .*part00"):
        as_dataset(directory, "y")


@pytest.mark.parametrize("read_at_once", [True, False])
def test_parquet_column_of_another_kind_names_the_file(tmp_path, frame, read_at_once):
    directory = write_parts(frame, tmp_path / "pq", "parquet", 2)
    frame.assign(k=frame["k"].astype(str)).to_parquet(directory / "part09.parquet", index=False)
    with route(read_at_once), pytest.raises(ValueError, match=r"column 'k' is (large_)?string in file .*part09"):
        as_dataset(directory, "y")


@pytest.mark.parametrize("read_at_once", [True, False])
def test_a_corrupted_parquet_file_is_named(tmp_path, frame, read_at_once):
    directory = write_parts(frame, tmp_path / "pq", "parquet", 3)
    path = directory / "part01.parquet"
    data = bytearray(path.read_bytes())
    data[-12:-8] = b"\xff\xff\xff\x7f"  # the footer length
    path.write_bytes(bytes(data))
    with route(read_at_once), pytest.raises(ValueError, match=r"part01.parquet is not a readable Parquet file"):
        NaiveBayes().fit(directory, "y")


@pytest.mark.parametrize("read_at_once", [True, False])
def test_a_corrupted_parquet_page_is_named(tmp_path, frame, read_at_once):
    path = tmp_path / "one.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, write_page_checksum=True,
                   compression="none")
    data = bytearray(path.read_bytes())
    for i in range(200, 260):  # inside the first column's data page
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    with route(read_at_once), pytest.raises(ValueError, match=r"cannot read parquet file .*one.parquet"):
        NaiveBayes().fit(path, "y")


def test_a_file_changed_between_passes_is_an_error(tmp_path, frame):
    path = tmp_path / "data.parquet"
    frame.to_parquet(path, index=False)
    with local_below(0):  # read in tasks, as a directory too large to read at once is
        dataset = as_dataset(path, "y")
    pd.concat([frame, frame]).to_parquet(path, index=False)
    with pytest.raises(ValueError, match=r"data.parquet' changed after the data was listed"):
        map_partitions(dataset.partitions[:1], lambda part: part)


def test_a_csv_column_empty_in_the_first_file_takes_its_type_from_the_next(tmp_path, frame, reference):
    directory = write_parts(frame, tmp_path / "csv", "csv", 3)
    first = frame.iloc[:800].assign(x=np.nan, s=None)
    first.to_csv(directory / "part00.csv", index=False)
    model = NaiveBayes().fit(directory, "y")
    expected = NaiveBayes().fit(pd.concat([first, frame.iloc[800:]]), "y")
    assert model.counts_.equals(expected.counts_)
    assert {at.name: at.kind for at in model.schema_.attributes} == {"x": "numeric", "k": "numeric",
                                                                     "s": "categorical", "t": "categorical"}


def test_na_values_keep_a_weka_column_numeric(tmp_path):
    (tmp_path / "weka.csv").write_text("a,b,class\n1.5,x,p\n?,y,q\n2.5,?,p\n3.0,x,q\n")
    with pytest.warns(UserWarning, match=r"column 'a' of CSV file .*weka.csv' holds numbers and the token '\?'"):
        plain = as_dataset(tmp_path / "weka.csv", "class")  # '?' is read as missing, with a warning
    assert plain.kinds == ["numeric", "categorical"]
    assert first_partition(plain)["a"].isna().tolist() == [False, True, False, False]
    dataset = as_dataset(Files(tmp_path / "weka.csv", na_values="?"), "class")
    assert dataset.kinds == ["numeric", "categorical"]
    part = first_partition(dataset)
    assert part["a"].isna().tolist() == [False, True, False, False]
    assert part["b"].isna().tolist() == [False, False, True, False]
    model = NaiveBayes().fit(Files(tmp_path / "weka.csv", na_values=["?"]), "class")
    assert model.schema_.attributes[0].categories == ["x", "y"]


def test_na_values_in_parquet_string_columns(tmp_path):
    pd.DataFrame({"b": ["x", "?", "y", "x"], "class": ["p", "q", "p", "q"]}).to_parquet(tmp_path / "w.parquet")
    model = NaiveBayes().fit(Files(tmp_path / "w.parquet", na_values="?"), "class")
    assert model.schema_.attributes[0].categories == ["x", "y"]


def test_pandas_index_columns_are_not_attributes(tmp_path, frame, reference):
    frame.set_index(pd.Index(np.arange(len(frame)) * 2, name="row")).to_parquet(tmp_path / "i.parquet")
    assert as_dataset(tmp_path / "i.parquet", "y").columns == ["x", "k", "s", "t"]
    assert NaiveBayes().fit(tmp_path / "i.parquet", "y").counts_.equals(reference.counts_)


def test_read_files_is_a_dask_frame_of_the_requested_columns(tmp_path, frame):
    directory = write_parts(frame, tmp_path / "csv", "csv", 3)
    ddf = read_files(directory, columns=["s", "x"])
    assert ddf.npartitions == 3 and list(ddf.columns) == ["s", "x"]
    got = ddf.compute(scheduler="sync")
    assert got["s"].astype(object).fillna("-").tolist() == frame["s"].astype(object).fillna("-").tolist()
    np.testing.assert_array_equal(got["x"].to_numpy(), frame["x"].to_numpy())
    with pytest.raises(ValueError, match="column 'nope' does not exist"):
        read_files(directory, columns=["nope"])


def test_files_option_type_errors(tmp_path):
    with pytest.raises(TypeError, match="na_values"):
        Files(tmp_path, na_values=[1])
    with pytest.raises(TypeError, match="y must be the name"):
        as_dataset(tmp_path, np.zeros(3))


def test_cli_na_values(tmp_path, capsys):
    from nbparallel import load
    from nbparallel.cli import main

    (tmp_path / "weka.csv").write_text("a,b,class\n1.5,x,p\n?,y,q\n2.5,?,p\n3.0,x,q\n0.5,y,p\n")
    assert main(["fit", str(tmp_path / "weka.csv"), "--target", "class", "-o", str(tmp_path / "m.json"),
                 "--na-values", "?", "--quiet"]) == 0
    model = load(tmp_path / "m.json")
    assert {at.name: at.kind for at in model.schema_.attributes} == {"a": "numeric", "b": "categorical"}
    assert main(["evaluate", str(tmp_path / "m.json"), str(tmp_path / "weka.csv"), "--na-values", "?"]) == 0
    assert "rows                    5" in capsys.readouterr().out


def _as_pyarrow_converts(table):
    """pyarrow's own ``to_pandas``, with the categories of unordered string dictionaries sorted."""
    frame = table.to_pandas(split_blocks=True)
    for name, t in zip(table.column_names, table.schema.types):
        if pa.types.is_dictionary(t) and is_text(t.value_type) and not t.ordered:
            frame[name] = frame[name].cat.reorder_categories(sorted(frame[name].cat.categories))
    return frame


def test_dictionary_columns_convert_as_pyarrow_converts_them(tmp_path):
    """Categoricals built from a file's dictionary indices equal pyarrow's own to_pandas, column for column,
    their categories sorted unless the dictionary is ordered."""
    from nbparallel.data.files.arrow import table_to_pandas

    rng = np.random.default_rng(8)
    n = 500
    frame = pd.DataFrame({
        "s": pd.Series(rng.choice(["a", "bb", "ccc", None], n), dtype="str"),
        "o": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"], ordered=True),
        "k": rng.integers(0, 9, n), "x": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
        "all_missing": pd.Series([None] * n, dtype="str"),
    }, index=pd.RangeIndex(1000, 1000 + n))
    path = tmp_path / "f.parquet"
    frame.iloc[:250].to_parquet(path)  # two files' worth of rows in row groups with their own dictionaries
    table = pa.Table.from_pandas(frame)
    pq.write_table(table, path, row_group_size=120)
    for read_dictionary in (["s", "o", "all_missing"], ["s"], []):
        read = pq.read_table(path, read_dictionary=read_dictionary)
        assert read.column("s").num_chunks > 1 or not read_dictionary
        for part in (read, read.slice(130, 200), read.slice(0, 0), read.select(["s"]), read.select(["k", "x"])):
            pd.testing.assert_frame_equal(table_to_pandas(part), _as_pyarrow_converts(part))
    other = pa.table({"large": pa.array(["a", None, "b", "a"] * 3, pa.large_string()).dictionary_encode(),
                      "ints": pa.array([3, 1, None, 3] * 3).dictionary_encode(),  # left to pyarrow
                      "when": pa.array([0, 5, 0, None] * 3, pa.timestamp("ns", tz="UTC")).dictionary_encode(),
                      "many": pa.DictionaryArray.from_arrays(  # a dictionary too large for the cache
                          pa.array([5, 1999, None, 0] * 3, pa.int32()), pa.array([f"w{i}" for i in range(2000)]))})
    for _ in range(2):  # the second time, the categories' dtypes come from the cache
        pd.testing.assert_frame_equal(table_to_pandas(other), _as_pyarrow_converts(other))


def test_dictionary_chunks_are_united_by_value():
    """Chunks whose dictionaries differ in order, hold other values, repeat a value or have int8 indices
    give each row its own value, and the sorted union of the values as categories."""
    from nbparallel.data.files.arrow import table_to_pandas

    def chunk(indices, dictionary, index_type=pa.int32()):
        return pa.DictionaryArray.from_arrays(pa.array(indices, index_type), pa.array(dictionary))

    for chunks in ([chunk([0, 1, None, 2], ["y", "x", "z"]),  # sorted "x", "y", "z": looked up
                    chunk([0, 1, 1], ["x", "y"]),  # starts the categories: copied
                    chunk([2, 0, 1, None, 2], ["w", "x", "w"])],  # a new value, and one twice
                   [chunk([1, 0, None], ["z", "x"], pa.int8()), chunk([0], ["a"], pa.int8())]):
        got = table_to_pandas(pa.table({"c": pa.chunked_array(chunks)}))["c"]
        assert list(got.cat.categories) == sorted({v for c in chunks for v in c.dictionary.to_pylist()})
        assert [None if pd.isna(v) else v for v in got.astype(object)] == [v for c in chunks for v in c.to_pylist()]


@pytest.mark.parametrize("case", ["null column in the first file", "index column", "numbers as text",
                                  "strings only, missing targets", "row groups"])
def test_small_directories_read_at_once_give_the_model_read_in_tasks(tmp_path, frame, case, monkeypatch):
    """The route for small directories (every file read once, Arrow tables counted from their dictionary
    indices) and the route for large ones (each partition read in its task) give the same model."""
    import nbparallel.data.files.parquet as files

    data = frame.assign(n=frame["k"].astype(str)) if case == "numbers as text" else frame
    if case == "strings only, missing targets":
        data = frame[["s", "t", "y"]].assign(y=frame["y"].where(np.arange(len(frame)) % 7 > 0))
    directory = write_parts(data, tmp_path / "pq", "parquet", 4, **({"row_group_size": 100} if case == "row groups"
                                                                      else {}))
    if case == "null column in the first file":
        pq.write_table(pa.Table.from_pandas(data.iloc[:600].assign(s=None), preserve_index=False),
                       directory / "part00.parquet")
    if case == "index column":
        data.iloc[:600].set_index(pd.Index(np.arange(600) * 3, name="row")).to_parquet(directory / "part00.parquet")
    if case == "row groups":
        monkeypatch.setattr(files, "ROWS_PER_PARTITION", 250)
    options = {"numeric_features": ["n"]} if case == "numbers as text" else {}
    at_once = NaiveBayes(**options).fit(directory, "y")
    assert isinstance(as_dataset(directory, "y", **options).partitions[0], pa.Table)
    with local_below(0):
        in_tasks = NaiveBayes(**options).fit(directory, "y")
    assert at_once.counts_.equals(in_tasks.counts_)
    assert at_once.schema_.to_dict() == in_tasks.schema_.to_dict()
    assert at_once.n_partitions_ == in_tasks.n_partitions_
    unlabelled = write_parts(data.drop(columns="y"), tmp_path / "x", "parquet", 3)
    expected = in_tasks.predict_proba(data.drop(columns="y"))
    np.testing.assert_array_equal(at_once.predict_proba(unlabelled), expected)
    with local_below(0):
        np.testing.assert_array_equal(in_tasks.predict_proba(unlabelled), expected)


def write_row_groups(frame, path, sizes):
    """``frame`` as one Parquet file whose row groups hold ``sizes`` rows (0: an empty row group)."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    with pq.ParquetWriter(path, table.schema) as writer:
        start = 0
        for size in sizes:
            writer.write_table(table.slice(start, size))
            start += size
    assert start == len(frame)
    return path


def as_values(frame):
    """The frame's values as objects (categories of different partitions compare by value), NaN as None."""
    return frame.astype(object).where(frame.notna(), None).reset_index(drop=True)


@pytest.mark.parametrize("n_partitions", [None, 2, 7])
@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_batches_are_the_partitions_rows_in_order(tmp_path, frame, kind, n_partitions, monkeypatch):
    import nbparallel.data.files.parquet as files

    monkeypatch.setattr(files, "ROWS_PER_PARTITION", 900)  # the second file: runs of row groups
    directory = tmp_path / "data"
    directory.mkdir()
    if kind == "parquet":
        write_row_groups(frame.iloc[:1000], directory / "a.parquet", [1000])
        write_row_groups(frame.iloc[1000:], directory / "b.parquet", [300, 0, 500, 250, 0, 350])
    else:
        write_parts(frame, directory, "csv", 2)
    readers = as_dataset(directory, "y", n_partitions=n_partitions).readers
    for reader in readers:
        whole = reader.read()
        batches = list(reader.batches(128))
        assert all(len(b) <= 128 for b in batches) and sum(map(len, batches)) == len(whole)
        assert all(list(b.columns) == list(whole.columns) for b in batches)
        pd.testing.assert_frame_equal(as_values(pd.concat(batches)), as_values(whole))
    rows = pd.concat([as_values(r.read()) for r in readers], ignore_index=True)
    pd.testing.assert_frame_equal(rows, as_values(frame[rows.columns]))


def test_a_partition_without_rows_is_one_empty_batch(tmp_path, frame):
    path = write_row_groups(frame.iloc[:0], tmp_path / "empty.parquet", [0, 0])
    reader, = file_readers(path)
    batch, = reader.batches(100)
    assert len(batch) == 0
    pd.testing.assert_frame_equal(batch, reader.read())


def test_batches_are_decoded_one_at_a_time_and_name_a_bad_file(tmp_path, frame):
    path = write_row_groups(frame, tmp_path / "one.parquet", [1200, 1200])
    reader, = file_readers(path)
    batches = reader.batches(500)
    assert len(next(batches)) == 500  # read when asked for: a change after the first batch is not seen yet
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(ValueError, match=r"one.parquet' changed after the data was listed"):
        next(reader.batches(500))
    path = tmp_path / "corrupt.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, write_page_checksum=True,
                   compression="none")
    data = bytearray(path.read_bytes())
    for i in range(200, 260):  # inside the first column's data page
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    reader, = file_readers(path)
    with pytest.raises(ValueError, match=r"cannot read parquet file .*corrupt.parquet"):
        list(reader.batches(500))


def test_a_file_of_fewer_rows_than_its_footer_says_is_named_by_batches(tmp_path, frame, monkeypatch):
    import nbparallel.data.files.readers as dataset_module

    path = write_row_groups(frame, tmp_path / "one.parquet", [2400])
    reader, = file_readers(path)
    monkeypatch.setattr(dataset_module, "parquet_unit_batches",
                        lambda unit, columns, types, max_rows: iter([pa.table({c: [] for c in columns})]))
    with pytest.raises(ValueError, match=r"one.parquet' has 0 rows where its metadata said 2400"):
        list(reader.batches(500))

"""ARFF files (Weka's format) as data: the same model as the same table in pandas, declared nominal values as
categories, numeric attributes as numbers, ``?`` missing; clear errors for what does not fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nbparallel import Files, NaiveBayes
from nbparallel.data.files.arff import parse_header
from nbparallel.data.files.readers import read_files

HEADER = """% Weka's weather data, with a string attribute and a value never used
@RELATION weather

@attribute outlook {sunny, overcast, rainy}
@attribute temperature numeric
@attribute 'rel humidity' REAL
@attribute windy {TRUE, FALSE}
@attribute note string
@attribute play {yes, no, 'not sure'}

@data
"""


@pytest.fixture(scope="module")
def table():
    """The rows as pandas holds them: nominal columns as categoricals of their declared values."""
    rng = np.random.default_rng(5)
    n = 400
    outlook = rng.choice(["sunny", "overcast", "rainy"], n).astype(object)
    outlook[::17] = None
    humidity = rng.integers(60, 100, n).astype(float)
    humidity[::13] = np.nan
    windy = rng.choice(["TRUE", "FALSE"], n)
    play = np.where((outlook == "overcast") | (windy == "FALSE") ^ (rng.random(n) < 0.2), "yes", "no")
    return pd.DataFrame({
        "outlook": pd.Categorical(outlook, categories=["sunny", "overcast", "rainy"]),
        "temperature": rng.normal(70, 8, n).round(1),
        "rel humidity": humidity,
        "windy": pd.Categorical(windy, categories=["TRUE", "FALSE"]),
        "note": rng.choice(["a b", "it's", "x"], n).astype(object),
        "play": pd.Categorical(play, categories=["yes", "no", "not sure"]),
    })


def _value(v, quote_all=False):
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "?"
    text = str(v)
    if quote_all or " " in text or "'" in text:
        return "'" + text.replace("'", "\\'") + "'"
    return text


def write_arff(table, path, rows=None, spaced=False, comments=False):
    lines = []
    for i, row in enumerate(table.itertuples(index=False)):
        if rows is not None and i not in rows:
            continue
        lines.append((", " if spaced else ",").join(_value(v) for v in row))
        if comments and i % 50 == 0:
            lines.append("% a comment among the rows")
            lines.append("")
    path.write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def _counts_by_label(model):
    """``{(attribute, category or bin): per-class counts}`` of a model: its counts whatever their order."""
    counted = model.schema_.counted()
    return {(at.name, value): tuple(row) for a, at in enumerate(counted.attributes)
            for value, row in zip(at.categories or range(at.n_bins), model.counts_.attribute(a).tolist())}


def test_an_arff_file_gives_the_model_of_its_table(table, tmp_path):
    path = write_arff(table, tmp_path / "weather.arff", spaced=True, comments=True)
    expected = NaiveBayes().fit(table, "play")
    model = NaiveBayes().fit(path, "play")
    assert model.feature_kinds_ == {"outlook": "categorical", "temperature": "numeric", "rel humidity": "numeric",
                                    "windy": "categorical", "note": "categorical"}
    assert _counts_by_label(model) == _counts_by_label(expected)
    assert [at.categories for at in model.schema_.attributes[:2]] == [["sunny", "overcast", "rainy"], ["TRUE", "FALSE"]]
    np.testing.assert_array_equal(model.predict(path), expected.predict(table.drop(columns="play")))
    np.testing.assert_equal(model.evaluate(path, "play"), expected.evaluate(table, "play"))


def test_rows_read_as_declared(table, tmp_path):
    path = write_arff(table, tmp_path / "weather.arff")
    frame = read_files(path).compute().reset_index(drop=True)
    assert frame["outlook"].dtype == "category" and frame["play"].dtype == "category"
    assert set(frame["play"].cat.categories) == {"yes", "no", "not sure"}  # declared, one never used
    assert frame["temperature"].dtype == np.float64 and frame["rel humidity"].dtype == np.float64
    pd.testing.assert_series_equal(frame["rel humidity"], table["rel humidity"])
    assert frame["outlook"].isna().tolist() == table["outlook"].isna().tolist()
    assert frame["outlook"].astype(object).fillna("?").tolist() == table["outlook"].astype(object).fillna("?").tolist()
    assert frame["note"].astype(str).tolist() == table["note"].tolist()


def test_a_directory_of_arff_files_and_partitions(table, tmp_path):
    directory = tmp_path / "parts"
    directory.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(table)), 3)):
        write_arff(table, directory / f"part{i}.arff", rows=set(rows))
    expected = NaiveBayes().fit(write_arff(table, tmp_path / "whole.arff"), "play")
    assert _counts_by_label(expected) == _counts_by_label(NaiveBayes().fit(table, "play"))
    for n_partitions in (None, 2, 5):
        assert NaiveBayes(n_partitions=n_partitions).fit(directory, "play").counts_.equals(expected.counts_)
    other = HEADER.replace("{sunny, overcast, rainy}", "{sunny, overcast, rainy, foggy}")
    (directory / "part3.arff").write_text(other + "sunny,70,80,TRUE,x,yes\n")
    with pytest.raises(ValueError, match=r"attribute 'outlook' is declared as \{sunny, overcast, rainy, foggy\} "
                                         r"in ARFF file .*part3.arff' but as \{sunny, overcast, rainy\}"):
        NaiveBayes().fit(directory, "play")


def test_sparse_rows_and_encodings(tmp_path):
    header = "@relation r\n@attribute a numeric\n@attribute b {x, y}\n@attribute c {p, q}\n@data\n"
    (tmp_path / "dense.arff").write_text(header + "0,x,p\n3,y,q\n0,x,q\n2,?,p\n")
    (tmp_path / "sparse.arff").write_text(header + "{}\n{0 3, 1 y, 2 q}\n{2 q}\n{0 2, 1 ?}\n")
    dense, sparse = (NaiveBayes().fit(tmp_path / name, "c") for name in ("dense.arff", "sparse.arff"))
    assert sparse.counts_.equals(dense.counts_)
    text = "@relation r\n@attribute city {Zürich, Genève}\n@attribute c {p, q}\n@data\nZürich,p\nGenève,q\n"
    (tmp_path / "latin.arff").write_bytes(text.encode("latin-1"))
    (tmp_path / "utf8.arff").write_bytes(text.encode("utf-8"))
    with pytest.raises(ValueError, match=r"cannot read ARFF file .*latin.arff' as utf-8 .*encoding='latin-1'"):
        NaiveBayes().fit(tmp_path / "latin.arff", "c")
    latin = NaiveBayes().fit(Files(tmp_path / "latin.arff", encoding="latin-1"), "c")
    assert latin.counts_.equals(NaiveBayes().fit(tmp_path / "utf8.arff", "c").counts_)
    assert latin.schema_.attributes[0].categories == ["Zürich", "Genève"]  # as declared


@pytest.mark.parametrize("text, message", [
    ("@relation r\n@attribute a {x, y}\n@attribute c {p, q}\n@data\nz,p\n",
     r"attribute 'a' of ARFF file .*bad.arff' holds 'z', which is not one of its declared values \['x', 'y'\]"),
    ("@relation r\n@attribute a numeric\n@attribute c {p, q}\n@data\n1.5,p\nlots,q\n",
     r"attribute 'a' of ARFF file .*bad.arff' is numeric but holds 'lots'"),
    ("@relation r\n@attribute a relational\n@end a\n@data\n", r"attribute 'a' has type 'relational'"),
    ("@relation r\n@attribute a numeric\n", r"ARFF file .*bad.arff' has no @data line"),
    ("@relation r\n@attribute a numeric\n@attribute c {p, q}\n@data\n1,p,{2}\n", r"instance weight"),
    ("@relation r\n@attribute a numeric\n@attribute c {p, q}\n@data\n1,p\n2,q,3\n", r"Expected 2 columns"),
])
def test_bad_arff_files_are_named(tmp_path, text, message):
    (tmp_path / "bad.arff").write_text(text)
    with pytest.raises(ValueError, match=message):
        NaiveBayes().fit(tmp_path / "bad.arff", "c")


def test_parse_header_and_options(tmp_path):
    attributes, _ = parse_header("@relation r\n@attribute 'a b' {'x y', z}\n@attribute n INTEGER\n@data\n", "f")
    assert attributes == [("a b", "nominal", ("x y", "z")), ("n", "numeric", None)]
    (tmp_path / "a.arff").write_text("@relation r\n@attribute a numeric\n@attribute c {p, q}\n@data\n1,p\n")
    with pytest.raises(ValueError, match=r"delimiter=';' is an option of CSV files, but .*a.arff' holds arff"):
        NaiveBayes().fit(Files(tmp_path / "a.arff", delimiter=";"), "c")


def test_arff_at_a_url(table, tmp_path):
    import fsspec

    text = HEADER + "sunny,70,80,TRUE,x,yes\nrainy,60,?,FALSE,y,no\n"
    fs = fsspec.filesystem("memory")
    fs.pipe_file("/nbparallel-arff/weather.arff", text.encode())
    (tmp_path / "weather.arff").write_text(text)
    try:
        model = NaiveBayes().fit("memory://nbparallel-arff/weather.arff", "play")
        assert model.counts_.equals(NaiveBayes().fit(tmp_path / "weather.arff", "play").counts_)
        expected = NaiveBayes().fit(table.iloc[:0].pipe(lambda t: pd.concat([t, pd.DataFrame({
            "outlook": ["sunny", "rainy"], "temperature": [70.0, 60.0], "rel humidity": [80.0, np.nan],
            "windy": ["TRUE", "FALSE"], "note": ["x", "y"], "play": ["yes", "no"]})])), "play")
        seen = _counts_by_label(model)
        assert {k: seen[k] for k in _counts_by_label(expected)} == _counts_by_label(expected)
        assert seen[("outlook", "overcast")] == (0, 0)  # declared, never seen
    finally:
        fs.rm("/nbparallel-arff", recursive=True)


def test_a_comment_after_a_nominal_list(tmp_path):
    """Weka's supermarket.arff ends a nominal list with a comment (``{ low, high} % low < 100``); a ``%``
    inside quotes is a value's character."""
    path = tmp_path / "shop.arff"
    path.write_text("@relation shop\n@attribute total { low, high} % low < 100\n"
                    "@attribute 'rate %' {'5%', '10% off'} % percent\n@data\nlow,'5%'\nhigh,'10% off'\n")
    attributes, _ = parse_header(path.read_text(), str(path))
    assert attributes == [("total", "nominal", ("low", "high")), ("rate %", "nominal", ("5%", "10% off"))]
    frame = read_files(str(path)).compute()
    assert frame["total"].tolist() == ["low", "high"]
    assert frame["rate %"].tolist() == ["5%", "10% off"]

"""CSV delimiter and encoding options, and a column of numbers with one missing-value token: each read gives
the model of the same table in pandas (or of the file written plainly), and bad options are named."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from nbparallel import Files, NaiveBayes
from nbparallel.data.files.csv import missing_token
from nbparallel.data.files.readers import read_files


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(9)
    n = 500
    duration = rng.integers(4, 72, n).astype(float)
    duration[rng.random(n) < 0.1] = np.nan
    city = rng.choice(["Zürich", "Genève", "Köln", "Málaga"], n)
    good = (duration < 30) ^ (rng.random(n) < 0.25)
    return pd.DataFrame({"duration": duration, "city": city, "amount": rng.normal(1000, 300, n).round(2),
                         "class": np.where(good, "good", "bad")})


def test_delimiters_and_encodings_give_the_model_of_the_table(table, tmp_path):
    expected = NaiveBayes().fit(table, "class")
    table.to_csv(tmp_path / "semi.csv", sep=";", index=False)
    table.to_csv(tmp_path / "tabs.tsv", sep="\t", index=False)
    table.to_csv(tmp_path / "latin.csv", index=False, encoding="latin-1")
    table.to_csv(tmp_path / "both.csv", sep="|", index=False, encoding="cp1252")
    for files in (Files(tmp_path / "semi.csv", delimiter=";"), tmp_path / "tabs.tsv",
                  Files(tmp_path / "latin.csv", encoding="latin-1"),
                  Files(tmp_path / "both.csv", delimiter="|", encoding="cp1252")):
        model = NaiveBayes().fit(files, "class")
        assert model.counts_.equals(expected.counts_), files
        assert model.schema_.attributes == expected.schema_.attributes
    frame = read_files(Files(tmp_path / "latin.csv", encoding="latin-1")).compute()
    assert sorted(frame["city"].cat.categories) == sorted(table["city"].unique())
    np.testing.assert_array_equal(model.predict(Files(tmp_path / "semi.csv", delimiter=";")),
                                  expected.predict(table.drop(columns="class")))


def test_wrong_delimiter_or_encoding_is_named(table, tmp_path):
    table.to_csv(tmp_path / "latin.csv", index=False, encoding="latin-1")
    with pytest.raises(ValueError, match=r"latin.csv'.*encoding='latin-1' or --encoding latin-1"):
        NaiveBayes().fit(tmp_path / "latin.csv", "class")
    table.to_csv(tmp_path / "semi.csv", sep=";", index=False)
    with pytest.raises(ValueError, match=r"target column 'class' does not exist; columns are "
                                         r"\['duration;city;amount;class'\]"):
        NaiveBayes().fit(tmp_path / "semi.csv", "class")  # a ';' file read with commas: one column
    with pytest.raises(ValueError, match=r"delimiter must be one character"):
        Files(tmp_path / "semi.csv", delimiter=";;")
    with pytest.raises(ValueError, match=r"encoding 'latin-9x' is not a known text encoding"):
        Files(tmp_path / "semi.csv", encoding="latin-9x")
    table.to_parquet(tmp_path / "t.parquet")
    with pytest.raises(ValueError, match=r"encoding='utf-8' is an option of CSV and ARFF files, but .*t.parquet"):
        NaiveBayes().fit(Files(tmp_path / "t.parquet", encoding="utf-8"), "class")


def _weka(table, token):
    text = table.astype({"duration": object})
    text.loc[table["duration"].isna(), "duration"] = token
    return text


@pytest.mark.parametrize("token", ["?", "-", "missing"])
def test_numbers_and_one_missing_token_are_read_as_numbers_with_a_warning(table, tmp_path, token):
    _weka(table, token).to_csv(tmp_path / "weka.csv", index=False)
    expected = NaiveBayes().fit(table, "class")
    t = re.escape(token)
    with pytest.warns(UserWarning, match=rf"column 'duration' of CSV file .*weka.csv' holds numbers and the token "
                                         rf"'{t}': it is read as numbers, '{t}' as missing"):
        model = NaiveBayes().fit(tmp_path / "weka.csv", "class")
    assert model.feature_kinds_["duration"] == "numeric"
    assert model.counts_.equals(expected.counts_)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said explicitly: no warning
        said = NaiveBayes().fit(Files(tmp_path / "weka.csv", na_values=token), "class")
    assert said.counts_.equals(expected.counts_)


def test_an_unsure_token_keeps_the_column_text_and_says_how_to_read_it(table, tmp_path):
    _weka(table, "many").to_csv(tmp_path / "many.csv", index=False)
    with pytest.warns(UserWarning, match=r"column 'duration' .* holds numbers and the token 'many': it is read as "
                                         r"text \(categorical\). If 'many' means a missing value, give "
                                         r"na_values=\['many'\]"):
        model = NaiveBayes().fit(tmp_path / "many.csv", "class")
    assert model.feature_kinds_["duration"] == "categorical"
    said = NaiveBayes().fit(Files(tmp_path / "many.csv", na_values="many"), "class")
    assert said.counts_.equals(NaiveBayes().fit(table, "class").counts_)


def test_another_token_after_the_first_block_is_named(table, tmp_path):
    big = pd.concat([_weka(table, "?")] * 400, ignore_index=True)  # beyond the block whose values are looked at
    big.loc[len(big) - 1, "duration"] = "n/k"
    big.to_csv(tmp_path / "late.csv", index=False)
    with pytest.warns(UserWarning, match=r"token '\?'"), \
            pytest.raises(ValueError, match=r"column 'duration' .*late.csv'.*'n/k'.*na_values"):
        NaiveBayes().fit(tmp_path / "late.csv", "class")


def test_missing_token_rule():
    assert missing_token(["1", "2.5", "?"]) == ("?", True)
    assert missing_token(["1", "--"]) == ("--", True)
    assert missing_token(["1", "Unknown"]) == ("Unknown", True)
    assert missing_token(["3", "many"]) == ("many", False)
    assert missing_token(["1", "?", "-"]) is None  # two tokens: text
    assert missing_token(["?"]) is None  # no number
    assert missing_token(["a", "b"]) is None


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
@pytest.mark.parametrize("ragged_file", [0, 1])
def test_a_ragged_row_is_named_by_its_line(tmp_path, suffix, ragged_file):
    directory = tmp_path / "data"
    directory.mkdir()
    rows = [f"{i % 7},{i % 3},{'ab'[i % 2]}" for i in range(3000)]
    bad_line = 1 + 2041  # the header is line 1
    for i in range(2):
        lines = ["a,b,label", *rows]
        if i == ragged_file:
            lines[bad_line - 1] = "1,2"
        frame_text = "\n".join(lines) + "\n"
        path = directory / f"part-{i}{suffix}"
        if suffix.endswith(".gz"):
            import gzip

            path.write_bytes(gzip.compress(frame_text.encode()))
        else:
            path.write_text(frame_text)
    expected = re.escape(f"part-{ragged_file}{suffix}' at line {bad_line}: ") + ".*Expected 3 columns, got 2"
    with pytest.raises(ValueError, match=expected):
        NaiveBayes().fit(str(directory), "label")

"""Integers beyond int64 in CSV files (issue 48 item 2): pyarrow infers such a column as float64, which merged
2**63 and 2**63 + 1 into one class. Now a column of integers in 0..2**64-1 is read as uint64, exact as in
memory (with a missing-value token too); integers no 64-bit type holds are read as text (exact), with a
warning; a later file's integer beyond the type an earlier file gave the column is refused, naming it."""

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes

BIG = [2**63, 2**63 + 1, 2**63, 2**64 - 1, 2**63 + 1, 2**64 - 1]


def test_uint64_targets_through_csv_keep_their_classes(tmp_path):
    X = pd.DataFrame({"x": ["a", "b", "a", "b", "a", "b"]})
    y = np.array(BIG, dtype=np.uint64)
    X.assign(t=y).to_csv(tmp_path / "a.csv", index=False)
    in_memory = NaiveBayes(categorical_features="all").fit(X, y)
    for source in (tmp_path, tmp_path / "a.csv"):
        model = NaiveBayes(categorical_features="all").fit(source, "t")
        assert model.classes_.tolist() == [2**63, 2**63 + 1, 2**64 - 1] == in_memory.classes_.tolist()
        assert model.classes_.dtype == np.uint64
        assert model.counts_.equals(in_memory.counts_)
        assert model.predict(X).tolist() == in_memory.predict(X).tolist()


def test_uint64_attributes_through_csv_keep_their_values(tmp_path):
    X = pd.DataFrame({"x": np.array([2**63, 5, 2**64 - 1, 2**63 + 1, 5, 2**63], dtype=np.uint64)})
    y = np.array([0, 1, 0, 1, 1, 0])
    X.assign(t=y).to_csv(tmp_path / "a.csv", index=False)
    model = NaiveBayes(categorical_features="all").fit(tmp_path, "t")
    assert model.schema_.attributes[0].categories == [5, 2**63, 2**63 + 1, 2**64 - 1]
    assert model.counts_.equals(NaiveBayes(categorical_features="all").fit(X, y).counts_)


def test_integers_beyond_64_bits_are_read_as_text_with_a_warning(tmp_path):
    (tmp_path / "a.csv").write_text("x,t\n-9223372036854775809,0\n18446744073709551616,1\n5,0\n5,1\n")
    with pytest.warns(UserWarning, match="column 'x' .* integers beyond the 64-bit integer types .* text"):
        model = NaiveBayes(categorical_features="all").fit(tmp_path, "t")
    assert model.schema_.attributes[0].categories == ["-9223372036854775809", "18446744073709551616", "5"]
    with pytest.warns(UserWarning, match="numeric_features"):
        numeric = NaiveBayes(numeric_features=["x"]).fit(tmp_path, "t")
    assert numeric.schema_.attributes[0].kind == "numeric"


def test_a_later_files_integer_beyond_int64_past_its_first_block_is_refused(tmp_path):
    (tmp_path / "a.csv").write_text("x,t\n1,0\n2,1\n")
    (tmp_path / "b.csv").write_text("x,t\n" + "2,1\n" * 400_000 + "9223372036854775808,0\n")  # past 1 MiB
    with pytest.raises(ValueError, match=r"column 'x' of CSV file .*b.csv.* holds '9223372036854775808' "
                                         r"\(beyond int64, .* such an integer in a file's first block reads the "
                                         r"column as uint64\): "
                                         r"give numeric_features=\['x'\]"):
        NaiveBayes(categorical_features="all").fit(tmp_path, "t")


def test_a_column_empty_in_the_first_file_takes_the_next_files_wide_integers(tmp_path):
    (tmp_path / "a.csv").write_text("x,t\n,0\n,1\n")
    (tmp_path / "b.csv").write_text("x,t\n9223372036854775808,0\n2,1\n")
    model = NaiveBayes(categorical_features="all").fit(tmp_path, "t")
    assert model.schema_.attributes[0].categories == [2, 2**63]


def test_wide_integers_with_a_missing_value_token_keep_their_values(tmp_path):
    (tmp_path / "a.csv").write_text("x,t\n9223372036854775808,0\n?,1\n9223372036854775809,1\n5,0\n")
    with pytest.warns(UserWarning, match="token '\\?': it is read as numbers, '\\?' as missing"):
        model = NaiveBayes(categorical_features="all").fit(tmp_path, "t")
    assert model.schema_.attributes[0].categories == [5, 2**63, 2**63 + 1]
    assert model.counts_.attribute(0).tolist() == [[1, 0], [1, 0], [0, 1]]  # the row of '?' not counted
    (tmp_path / "a.csv").write_text("x,t\n18446744073709551616,0\n?,1\n9223372036854775809,1\n5,0\n")
    with pytest.warns(UserWarning, match="token '\\?': it is read as text"):
        model = NaiveBayes(categorical_features="all").fit(tmp_path, "t")
    assert model.schema_.attributes[0].categories == ["18446744073709551616", "5", "9223372036854775809", "?"]

"""A categorical column scored with values of another type than its fitted ones (issue 58 item 1).

Numeric text where numbers were fitted reads as the numbers, numbers where numeric text was fitted as that
text; any other value of another type is one ValueError naming the column and both types. The reference is
the model's own answer for the values of the fitted type.
"""

from __future__ import annotations

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes
from nbparallel.cli import main
from nbparallel.data.value_types import other_type_positions


def _training(n=60):
    code = np.tile([1, 2, 3], n // 3)
    y = np.where(code == 1, "a", "b")
    return code, y


def _files(frame, tmp_path, name):
    """The frame as a Parquet file, a CSV file and a Dask DataFrame."""
    parquet, csv = tmp_path / f"{name}.parquet", tmp_path / f"{name}.csv"
    frame.to_parquet(parquet, index=False)
    frame.to_csv(csv, index=False)
    return parquet, csv


#: the scoring rows, of another type than the fitted ones, in each in-memory input form
FORMS = {
    "DataFrame": lambda frame: frame,
    "numpy object array": lambda frame: frame.to_numpy(dtype=object),
    "Dask DataFrame": lambda frame: dd.from_pandas(frame, npartitions=2),
}


def _fit(form, frame, y, **params):
    """A model fitted on ``frame`` as an array for the array form, else as the DataFrame (named columns)."""
    return NaiveBayes(**params).fit(frame.to_numpy(dtype=object) if form == "numpy object array" else frame, y)


@pytest.mark.parametrize("form", list(FORMS))
def test_a_model_fitted_on_numeric_text_scores_numbers_as_that_text(form):
    code, y = _training()
    model = _fit(form, pd.DataFrame({"code": code.astype(str)}), y, categorical_features=[0])
    expected = model.predict_proba(FORMS[form](pd.DataFrame({"code": ["1", "2", "3"]})))
    assert expected[0, 0] > 0.99 and expected[1, 1] > 0.99  # not the class prior
    X = pd.DataFrame({"code": [1, 2, 3]})
    X = X.to_numpy() if form == "numpy object array" else FORMS[form](X)
    np.testing.assert_array_equal(model.predict_proba(X), expected)


def test_the_issues_parquet_strings_scored_from_a_csv_file_of_integers(tmp_path, capsys):
    """`nbparallel predict strm.json int_test.csv --proba` gave the class prior on every row."""
    code, y = _training()
    train, _ = _files(pd.DataFrame({"code": code.astype(str), "y": y}), tmp_path, "strings")
    _, ints = _files(pd.DataFrame({"code": [1, 2, 3]}), tmp_path, "ints")
    text, _ = _files(pd.DataFrame({"code": ["1", "2", "3"]}), tmp_path, "text")
    model = NaiveBayes().fit(train, "y")
    expected = model.predict_proba(text)
    assert expected[0, 0] > 0.99 and expected[1, 1] > 0.99
    np.testing.assert_array_equal(model.predict_proba(ints), expected)
    model.save(tmp_path / "strm.json")
    assert main(["predict", str(tmp_path / "strm.json"), str(ints), "--proba", "-o", str(tmp_path / "p.csv")]) == 0
    written = pd.read_csv(tmp_path / "p.csv")
    np.testing.assert_allclose(written[["proba_a", "proba_b"]].to_numpy(), expected, atol=1e-4)


@pytest.mark.parametrize("form", [*FORMS, "Parquet file"])
def test_a_model_fitted_on_integers_scores_numeric_text_as_the_numbers(form, tmp_path):
    code, y = _training()
    model = _fit(form, pd.DataFrame({"code": code}), y, categorical_features="all")
    expected = model.predict_proba(FORMS.get(form, FORMS["DataFrame"])(pd.DataFrame({"code": [1, 2, 3, 9]})))
    assert expected[0, 0] > 0.99 and expected[1, 1] > 0.99
    text = pd.DataFrame({"code": ["1", " 2", "3.0", "9"]})  # 9 was never seen: unseen, as the integer 9
    X = _files(text, tmp_path, "text")[0] if form == "Parquet file" else FORMS[form](text)
    np.testing.assert_array_equal(model.predict_proba(X), expected)


@pytest.mark.parametrize("form", [*FORMS, "Parquet file"])
def test_text_that_is_no_number_where_integers_were_fitted_is_refused_naming_the_column_and_types(form, tmp_path):
    code, y = _training()
    model = _fit(form, pd.DataFrame({"code": code}), y, categorical_features="all")
    text = pd.DataFrame({"code": ["1", "x", "2"]})
    X = _files(text, tmp_path, "words")[0] if form == "Parquet file" else FORMS[form](text)
    with pytest.raises(ValueError, match=r"column '(code|0)' was fitted on int values but holds str values such as 'x'"):
        model.predict(X)


def test_numbers_where_text_with_no_number_was_fitted_are_refused():
    model = NaiveBayes().fit(pd.DataFrame({"colour": ["red", "blue"] * 10}), [0, 1] * 10)
    with pytest.raises(ValueError, match=r"column 'colour' was fitted on str values but holds int values such as 3"):
        model.predict(pd.DataFrame({"colour": [3, 4]}))


def test_missing_marks_and_values_of_the_fitted_type_are_not_refused():
    assert other_type_positions(["NA", "", "nan", "7"], [1, 2, 3], "c").tolist() == [-1, -1, -1, -1]
    assert other_type_positions([1.0, 2.5], ["1", "1.0", "2.5", "z"], "c").tolist() == [-1, 2]  # "1", "1.0": no one
    with pytest.raises(ValueError, match="fitted on int values but holds bool values"):
        other_type_positions([True], [5, 6], "c")

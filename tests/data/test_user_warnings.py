"""Warnings point at the user's line, and a text column of numbers is said as the CSV reader says it (issue 58 item 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes

Y = np.array([0, 1] * 50)


@pytest.mark.parametrize("values, says", [
    (pd.Series([1.5, 2.5] * 49 + ["n/a", "n/a"], dtype=object), "the token 'n/a', which surely means a missing value"),
    (pd.Series([1.5, 2.5] * 49 + ["twelve", 3.0], dtype=object), "the token 'twelve': it is counted as categorical"),
    (pd.Series(["1", "2.5"] * 50, dtype="str"), "has dtype (str|object) but holds only numbers, as text"),
    (pd.Series([1, 2] * 50, dtype=object), "has dtype object but holds only numbers"),
])
def test_a_column_of_numbers_counted_as_categories_warns_at_the_callers_line(values, says):
    X = pd.DataFrame({"x": values})
    with pytest.warns(UserWarning, match=says) as record:
        NaiveBayes().fit(X, Y)
    assert record[0].filename == __file__
    with pytest.warns(UserWarning, match=says) as record:
        NaiveBayes().fit(X.to_numpy(dtype=object), Y)
    assert record[0].filename == __file__


def test_the_same_values_from_a_csv_file_are_read_as_numbers_with_a_warning_at_the_callers_line(tmp_path):
    values = [1.5, 2.5] * 49 + ["n/a", "n/a"]
    (tmp_path / "t.csv").write_text("x,y\n" + "".join(f"{v},{c}\n" for v, c in zip(values, Y)).replace("n/a", "?"))
    with pytest.warns(UserWarning, match="holds numbers and the token '\\?'") as record:
        model = NaiveBayes().fit(tmp_path / "t.csv", "y")
    assert record[0].filename == __file__
    assert model.feature_kinds_["x"] == "numeric"


def test_words_and_columns_listed_as_categorical_do_not_warn(recwarn):
    NaiveBayes().fit(pd.DataFrame({"x": ["a", "b", "1"] * 33 + ["c"]}), Y)
    NaiveBayes(categorical_features=["x"]).fit(pd.DataFrame({"x": ["1", "2"] * 50}), Y)
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]


def test_feature_name_warnings_point_at_the_callers_line():
    frame = pd.DataFrame({"a": np.tile([0.5, 1.5], 50), "b": np.arange(100.0)})
    model = NaiveBayes().fit(frame, Y)
    for call in (model.predict, model.predict_proba, model.predict_log_proba):
        for _ in range(2):  # the second small array takes the direct path
            with pytest.warns(UserWarning, match="X does not have valid feature names") as record:
                call(frame.to_numpy())
            assert record[0].filename == __file__
    unnamed = NaiveBayes().fit(frame.to_numpy(), Y)
    with pytest.warns(UserWarning, match="X has feature names") as record:
        unnamed.predict(frame)
    assert record[0].filename == __file__

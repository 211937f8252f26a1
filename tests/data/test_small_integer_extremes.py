"""Small integer columns at their type's extremes, nullable or weighted (issue 48 item 1).

A nullable column's missing rows are read as its integers with 0 in their place; where 0 is in the column's
vocabulary (a range such as -127..126 holds it), that filler took a code, and the count of values the schema
pass did not see came out negative ("holds -1 value(s) the schema pass did not see"). Each form below is
checked against a plain Counter of the rows.
"""

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes, load
from tests.counter_checks import check_counts as _check


def test_the_reproduction_fits_with_its_counts():
    X = pd.DataFrame({"col1": pd.Series([-127, 126, None], dtype="Int8")})
    y = pd.Series([1.0, None, 0.0])
    w = np.array([1.0, 2.0, 3.0])
    # one observed value, of class 1: the attribute is then ignored, with a warning, never refused
    with pytest.warns(UserWarning, match="class prior alone"):
        model = NaiveBayes(categorical_features="all").fit(X, y, sample_weight=w)
    _check(model, X, y, w)
    X2 = pd.DataFrame({"col1": pd.Series([-127, 126, 0, None, -127], dtype="Int8")})
    y2, w2 = pd.Series([1.0, None, 0.0, 0.0, 0.0]), np.array([1.0, 2.0, 3.0, 1.0, 2.0])
    _check(NaiveBayes(categorical_features="all").fit(X2, y2, sample_weight=w2), X2, y2, w2)


EXTREMES = [("Int8", [-128, -127, 126, 127, 0]), ("UInt8", [0, 1, 254, 255]), ("UInt16", [0, 1, 65534, 65535]),
            ("Int16", [-32768, 0, 32767]), ("int8", [-128, -127, 0, 126, 127]), ("uint8", [0, 1, 254, 255]),
            ("uint16", [0, 65535, 1])]


def _frame(dtype, values):
    """Ten rows cycling through ``values`` (a missing value every fourth row of a nullable dtype), two classes
    and a missing target, with integer weights."""
    nullable = dtype[0].isupper()
    column = [None if nullable and i % 4 == 3 else values[i % len(values)] for i in range(10)]
    X = pd.DataFrame({"a": pd.Series(column, dtype=dtype), "b": pd.Series(column[::-1], dtype=dtype)})
    y = pd.Series([0, 1, 1, None, 0, 1, 0, 0, None, 1], dtype="Int64")
    w = np.array([1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0])
    return X, y, w


@pytest.mark.parametrize("dtype, values", EXTREMES)
@pytest.mark.parametrize("weighted", [False, True])
def test_small_integers_at_their_extremes_in_every_form(tmp_path, dtype, values, weighted):
    X, y, w = _frame(dtype, values)
    w = w if weighted else None
    model = NaiveBayes(categorical_features="all").fit(X, y, sample_weight=w)
    _check(model, X, y, w)
    order = np.random.default_rng(0).permutation(len(X))
    shuffled = NaiveBayes(categorical_features="all", n_partitions=3).fit(
        X.iloc[order].reset_index(drop=True), y.iloc[order].reset_index(drop=True),
        sample_weight=None if w is None else w[order])
    _check(shuffled, X, y, w)
    pieces = NaiveBayes(categorical_features="all")
    for start in (0, 4, 7):
        stop = {0: 4, 4: 7, 7: 10}[start]
        pieces.partial_fit(X[start:stop], y[start:stop], classes=[0, 1],
                           sample_weight=None if w is None else w[start:stop])
    _check(pieces, X, y, w)
    frame = X.assign(t=y, w=w) if weighted else X.assign(t=y)
    for i, part in enumerate(np.array_split(np.arange(len(X)), 3)):
        frame.iloc[part].to_parquet(tmp_path / f"part{i}.parquet")
    files = NaiveBayes(categorical_features="all").fit(tmp_path, "t", sample_weight="w" if weighted else None)
    _check(files, X, y, w)
    model.save(tmp_path / "model.json")
    loaded = load(tmp_path / "model.json")
    _check(loaded, X, y, w)
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))

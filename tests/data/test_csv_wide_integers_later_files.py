"""A CSV column whose integers beyond int64 first appear after the first file reads as uint64 in every file, or
as text with a warning when it also holds negative integers (issue 57 item 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes

BIG = [2**64 - 1, 2**63, 2**63 + 1]


def _write(directory, parts):
    for i, (xs, ys) in enumerate(parts):
        (directory / f"part{i}.csv").write_text("x,y\n" + "".join(f"{x},{y}\n" for x, y in zip(xs, ys)))


def _parts(small):
    return [(small, [0, 1, 0, 1]), ([5, 7], [1, 0]), (BIG + [2], [0, 0, 1, 1])]


@pytest.mark.parametrize("order", [[0, 1, 2], [2, 0, 1], [1, 2, 0]])
@pytest.mark.parametrize("n_partitions", [None, 1, 2])
def test_big_integers_of_a_later_file_read_as_uint64_exactly(tmp_path, order, n_partitions):
    parts = [_parts([1, 2, 2, 3])[i] for i in order]
    _write(tmp_path, parts)
    xs = np.array([x for p in parts for x in p[0]], dtype=np.uint64)
    ys = np.array([y for p in parts for y in p[1]])
    model = NaiveBayes(categorical_features="all", n_partitions=n_partitions).fit(tmp_path, "y")
    reference = NaiveBayes(categorical_features="all").fit(pd.DataFrame({"x": xs}), ys)
    # 2**63 and 2**63 + 1 stay two values (a float64 would make them one): the probabilities of the reference
    np.testing.assert_array_equal(model.predict_proba(tmp_path), reference.predict_proba(pd.DataFrame({"x": xs})))
    assert len(set(xs.tolist())) == 8
    rows = reference.predict_proba(pd.DataFrame({"x": np.array([2**63, 2**63 + 1], dtype=np.uint64)}))
    assert not np.array_equal(rows[0], rows[1])


def test_big_integers_of_a_later_file_beside_negative_ones_read_as_text_with_a_warning(tmp_path):
    parts = _parts([-1, 2, 2, 3])
    _write(tmp_path, parts)
    with pytest.warns(UserWarning, match="column 'x' of the 3 CSV files holds integers beyond the 64-bit") as record:
        model = NaiveBayes().fit(tmp_path, "y")
    assert record[0].filename == __file__
    assert model.feature_kinds_["x"] == "categorical"
    xs = [str(x) for p in parts for x in p[0]]
    ys = np.array([y for p in parts for y in p[1]])
    with pytest.warns(UserWarning, match="holds only numbers, as text"):
        reference = NaiveBayes().fit(pd.DataFrame({"x": xs}), ys)
    with pytest.warns(UserWarning, match="beyond the 64-bit"):
        np.testing.assert_array_equal(model.predict_proba(tmp_path), reference.predict_proba(pd.DataFrame({"x": xs})))


def test_a_fraction_in_a_later_file_of_an_integer_column_is_still_named(tmp_path):
    _write(tmp_path, [([1, 2], [0, 1]), ([2.5, 3], [0, 1])])
    with pytest.raises(ValueError, match="column 'x' of CSV file .*part1.csv.* holds '2.5'"):
        NaiveBayes().fit(tmp_path, "y")

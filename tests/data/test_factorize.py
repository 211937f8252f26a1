"""factorize gives exactly what pandas.factorize gives, on every string and object column shape."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from nbparallel.data import factorize as factorize_module
from nbparallel.data.encoding import python_value
from nbparallel.data.factorize import MAX_DISTINCT, count_values, factorize

WORDS = ["", "a", "b", "v0", "v9", "seven77", "eightchr", "a much longer string value", "é", "ñandú", "日本語",
         "emoji 🎉", "a\x00b", "x" * 300]
MISSING = [None, np.nan, pd.NA]


def assert_same_as_pandas(column):
    indices, uniques = factorize(column)
    expected_indices, expected_uniques = pd.factorize(column)
    assert indices.dtype == np.int64
    np.testing.assert_array_equal(indices, expected_indices)
    got = [python_value(v) for v in uniques]
    expected = [python_value(v) for v in expected_uniques]
    assert got == expected
    assert [type(v) for v in got] == [type(v) for v in expected]


def random_words(rng, n, missing=0.1):
    values = np.empty(n, dtype=object)
    values[:] = [WORDS[i] for i in rng.integers(0, len(WORDS), n)]
    gaps = rng.random(n) < missing
    values[gaps] = [MISSING[i] for i in rng.integers(0, len(MISSING), gaps.sum())]
    return values


def fresh_objects(values):
    """The same values held by distinct string objects (equal values, different pointers)."""
    return np.array([("".join(list(v)) + "x")[:-1] if isinstance(v, str) else v for v in values], dtype=object)


def string_columns(values):
    yield values
    yield pd.Series(values, dtype=object)
    yield pd.Series(values, dtype="str")
    yield pd.Series(values, dtype=pd.StringDtype("pyarrow"))
    yield pd.Series(values, dtype=pd.StringDtype("python"))
    yield pd.Series(values, dtype=pd.StringDtype("python", na_value=np.nan))
    strings = [None if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)) else v for v in values]
    yield pd.Series(pa.array(strings, pa.string()), dtype=pd.ArrowDtype(pa.string()))


@pytest.mark.parametrize("seed", range(12))
def test_random_string_columns_of_every_shape_match_pandas(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    values = random_words(rng, n, missing=rng.choice([0.0, 0.1, 0.5]))
    for column in string_columns(values):
        assert_same_as_pandas(column)
        if n > 4:
            assert_same_as_pandas(column[3 : n - 1] if isinstance(column, np.ndarray) else column.iloc[3 : n - 1])


def test_equal_strings_held_by_distinct_objects_merge_in_order_of_first_appearance():
    rng = np.random.default_rng(1)
    values = random_words(rng, 500)
    copies = fresh_objects(values)
    mixed = np.where(rng.random(500) < 0.5, values, copies)
    assert len({id(v) for v in mixed}) > len(set(mixed.tolist()))  # more objects than values: a real merge
    for column in (copies, mixed, pd.Series(mixed, dtype=object), pd.Series(mixed, dtype=pd.StringDtype("python"))):
        assert_same_as_pandas(column)


def test_missing_values_mixed_and_all_missing_and_empty():
    for values in ([None, np.nan, pd.NA, float("nan"), "a", None], [None] * 5, [np.nan] * 3, [], [""] * 4,
                   ["", None, "", pd.NA]):
        array = np.array(values, dtype=object)
        for column in string_columns(array):
            assert_same_as_pandas(column)
    indices, uniques = factorize(np.array([None, "b", np.nan, "a", pd.NA, "b"], dtype=object))
    assert indices.tolist() == [-1, 0, -1, 1, -1, 0] and list(uniques) == ["b", "a"]


def test_mixed_objects_and_strided_object_arrays():
    mixed = np.array([1, "1", 1.0, True, None, 2.5, ("t",), "1", 2, np.nan, b"1", 1], dtype=object)
    assert_same_as_pandas(mixed)
    assert_same_as_pandas(mixed[::-1])
    assert_same_as_pandas(mixed[1::3])
    grid = random_words(np.random.default_rng(2), 60).reshape(20, 3)
    for j in range(3):
        assert_same_as_pandas(grid[:, j])  # a column of a 2-D array: strided


def test_arrow_chunks_slices_and_large_string():
    rng = np.random.default_rng(3)
    pieces = [random_words(rng, int(rng.integers(0, 40))) for _ in range(6)]
    for arrow_type in (pa.string(), pa.large_string()):
        chunks = [pa.array([v if isinstance(v, str) else None for v in piece], arrow_type) for piece in pieces]
        chunks.append(chunks[2].slice(5, 20))  # a chunk with a non-zero offset
        chunked = pa.chunked_array(chunks, arrow_type)
        column = pd.Series(pd.arrays.ArrowStringArray(chunked)) if arrow_type == pa.large_string() else \
            pd.Series(chunked, dtype=pd.ArrowDtype(arrow_type))
        assert_same_as_pandas(column)
        for start, stop in ((1, 50), (37, 38), (60, len(column)), (0, 0)):
            assert_same_as_pandas(column.iloc[start:stop])


def test_hash_collisions_of_long_strings_compare_bytes():
    values = np.array([f"a long string number {i:05d}" for i in range(3000)] * 2, dtype=object)
    column = pd.Series(values, dtype="str")
    indices, uniques = factorize(column)
    assert indices.tolist() == list(range(3000)) * 2
    assert_same_as_pandas(column)
    assert_same_as_pandas(fresh_objects(values))


def test_numbers_and_other_columns_fall_back_to_pandas():
    for column in (np.array([3, 1, 3, 2]), np.array([0.5, np.nan, 0.5]), pd.Series([True, False, True]),
                   pd.Series(pd.to_datetime(["2020-01-02", "2020-01-01", "2020-01-02"])), pd.Categorical(["b", "a"])):
        assert_same_as_pandas(column)


def test_past_the_limit_falls_back_to_pandas(monkeypatch):
    monkeypatch.setattr(factorize_module, "MAX_DISTINCT", 64)
    monkeypatch.setattr(factorize_module, "MIN_LIMIT", 16)
    calls = []
    original = pd.factorize
    monkeypatch.setattr(factorize_module.pd, "factorize", lambda v: calls.append(len(v)) or original(v))
    values = np.array([f"w{i % 100}" for i in range(1000)], dtype=object)
    for column in (pd.Series(values, dtype="str"), values.copy(), fresh_objects(values)):
        calls.clear()
        indices, uniques = factorize(column)
        assert calls == [1000]  # the whole column, by pandas
        np.testing.assert_array_equal(indices, np.arange(1000) % 100)
        assert list(uniques) == [f"w{i}" for i in range(100)]
    calls.clear()
    indices, _ = factorize(pd.Series([f"w{i % 60}" for i in range(1000)], dtype="str"))
    assert calls == [] and indices.max() == 59  # 60 distinct values stay within the limit
    calls.clear()
    indices, _ = factorize(pd.Series([f"w{i % 60}" for i in range(200)], dtype="str"))
    assert calls == [200] and indices.max() == 59  # 60 distinct values in 200 rows: past 200 // 8 (as 32)
    assert MAX_DISTINCT == 1 << 16


def counted_by_python(column, classes, n_classes):
    """``(missing counts, {value: counts})`` by a plain loop over the rows, values in order of first appearance."""
    missing, by_value = [0] * n_classes, {}
    for value, c in zip(list(column), classes):
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
            missing[c] += 1
        else:
            by_value.setdefault(value, [0] * n_classes)[c] += 1
    return missing, by_value


@pytest.mark.parametrize("seed", range(6))
def test_count_values_equals_a_plain_counter(seed):
    rng = np.random.default_rng(seed)
    n, n_classes = int(rng.integers(0, 400)), int(rng.integers(1, 4))
    values = random_words(rng, n, missing=rng.choice([0.0, 0.2]))
    classes = rng.integers(0, n_classes, n)
    missing, by_value = counted_by_python(values, classes, n_classes)
    for column in [*string_columns(values), fresh_objects(values)]:
        counts, uniques = count_values(column, classes.astype(rng.choice([np.int64, np.int8])), n_classes)
        assert counts.shape == (len(by_value) + 1, n_classes)
        assert [python_value(v) for v in uniques] == list(by_value)  # order of first appearance
        assert counts[0].tolist() == missing
        assert counts[1:].tolist() == list(by_value.values())


def test_count_values_past_the_limit_and_of_numbers(monkeypatch):
    monkeypatch.setattr(factorize_module, "MIN_LIMIT", 16)
    calls = []
    original = pd.factorize
    monkeypatch.setattr(factorize_module.pd, "factorize", lambda v: calls.append(len(v)) or original(v))
    values = np.array([f"w{i % 300}" for i in range(1000)] + [None], dtype=object)  # 300 > the limit, 128
    classes = np.arange(1001) % 3
    for column in (pd.Series(values, dtype="str"), values, np.array([i % 7 for i in range(1001)], dtype=float)):
        calls.clear()
        counts, uniques = count_values(column, classes, 3)
        assert calls == [1001]  # the whole column, by pandas
        missing, by_value = counted_by_python(column, classes, 3)
        assert [python_value(v) for v in uniques] == list(by_value)
        assert counts[0].tolist() == missing and counts[1:].tolist() == list(by_value.values())


def test_count_values_refuses_classes_it_cannot_count():
    column = np.array(["a", "b", "a"], dtype=object)
    with pytest.raises(ValueError, match=r"classes must lie in \[0, 2\), got 0..2"):
        count_values(column, np.array([0, 2, 1]), 2)
    with pytest.raises(ValueError, match="classes must lie"):
        count_values(pd.Series(column, dtype="str"), np.array([0, -1, 1]), 2)
    with pytest.raises(TypeError, match="1-D integer array"):
        count_values(column, np.array([0.0, 1.0, 1.0]), 2)
    with pytest.raises(ValueError, match="classes has 2 rows, the column 3"):
        count_values(column, np.array([0, 1]), 2)
    with pytest.raises(ValueError, match="n_classes must be an int >= 1"):
        count_values(column, np.array([0, 0, 0]), 0)


@pytest.mark.parametrize("long_at", [None, 0, 700, 1999])
def test_short_strings_then_long_ones_across_growth_and_chunks(long_at):
    """Short strings take a pass of their own that hands over to the general one at the first long string;
    the table grows in either, across Arrow chunks, with the same ids and counts."""
    rng = np.random.default_rng(7)
    n = 2000
    values = np.array([f"s{i % 700}" for i in rng.permutation(n)], dtype=object)  # 700 distinct short strings
    values[rng.random(n) < 0.05] = None
    if long_at is not None:
        values[long_at] = "a string of more than seven bytes"
        values[long_at + 1 :: 97] = "another long one"
    classes = rng.integers(0, 3, n)
    missing, by_value = counted_by_python(values, classes, 3)
    strings = [None if v is None else v for v in values]
    chunked = pa.chunked_array([pa.array(strings[:600]), pa.array(strings[600:601]), pa.array(strings[601:])])
    for column in (pd.Series(values, dtype="str"), pd.Series(chunked, dtype=pd.ArrowDtype(pa.string()))):
        assert_same_as_pandas(column)
        counts, uniques = count_values(column, classes, 3)
        assert [python_value(v) for v in uniques] == list(by_value)
        assert counts[0].tolist() == missing and counts[1:].tolist() == list(by_value.values())

"""The columnar data layer counts exactly what the old one did, for every input kind and partitioning.

The oracle is a frozen copy of the data layer before the rewrite (tests/legacy_data.py) and,
for one mixed table, the plain Python counter of tests/reference.py.
"""

import numpy as np
import pandas as pd
import pytest

from nbparallel import kernels
from nbparallel.data.dataset import Dataset
from nbparallel.data.encoding import encode_column, observed
from nbparallel.data.inputs import as_dataset
from nbparallel.data.schema_pass import scan_schema
from nbparallel.summaries.counts import CountSpec, count_dataset, count_rows
from tests import reference
from tests.legacy_data import legacy_fit_counts

N = 600


def _fit(X, y, w=None, n_partitions=1, categorical_features="auto", split_every=2):
    dataset = as_dataset(X, y, w, n_partitions=n_partitions, categorical_features=categorical_features)
    schema, _, _ = scan_schema(dataset, split_every=split_every)
    counts, _ = count_dataset(dataset, schema, split_every=split_every)
    return schema, counts


def _inputs():
    rng = np.random.default_rng(3)
    y = rng.choice(["no", "yes", "maybe"], N).astype(object)
    strings = rng.choice(["a", "b", "c", "d", None], N).astype(object)
    floats = np.where(rng.random(N) < 0.1, np.nan, rng.normal(size=N) * 50)
    ints = rng.integers(-3, 9, N)
    yield "uint8 codes 1..M", rng.integers(1, 11, (N, 5)).astype(np.uint8), y, "all"
    yield "uint8 0..9 auto", rng.integers(0, 10, (N, 5)).astype(np.uint8), y, "auto"
    yield "int8 categorical", rng.integers(-5, 5, (N, 4)).astype(np.int8), y, "all"
    yield "int64 auto (binned)", rng.integers(-1000, 1000, (N, 3)), y, "auto"
    yield "uint64 wide categorical", rng.choice(np.array([3, 2**40, 2**62], np.uint64), (N, 2)), y, "all"
    yield "float64 with NaN", np.column_stack([floats, floats[::-1], rng.normal(size=N)]), y, "auto"
    yield "float32", rng.normal(size=(N, 3)).astype(np.float32), y, "auto"
    yield "float categorical by index", np.column_stack([np.round(floats), ints]).astype(float), y, [0]
    yield "object 2-D", np.column_stack([strings, ints.astype(object), floats]).astype(object), y, [1]
    frame = pd.DataFrame({"s": strings, "k": ints, "x": floats, "b": ints > 2,
                          "f": np.round(floats / 20), "i8": ints.astype(np.int8)})
    yield "frame object+ints", frame, y, "auto"
    yield "frame category", frame.astype({"s": "category", "k": "category"}), y, "auto"
    yield "frame str", frame.astype({"s": "str"}), y, "auto"
    yield "frame string[python]", frame.astype({"s": "string[python]"}), y, "auto"
    yield "frame nullable Int64", frame.astype({"k": "Int64"}), y, ["k"]
    yield "frame float categorical", frame, y, ["f", "i8"]
    yield "integer target", frame, ints % 4, "auto"


@pytest.mark.parametrize("n_partitions", [1, 3, 7])
def test_counts_and_schemas_are_bit_identical_to_the_old_data_layer(n_partitions):
    for name, X, y, features in _inputs():
        old_schema, old_counts = legacy_fit_counts(X, y, n_partitions=n_partitions, categorical_features=features)
        schema, counts = _fit(X, y, n_partitions=n_partitions, categorical_features=features, split_every=3)
        assert schema.to_dict() == old_schema.to_dict(), name
        for at, old_at in zip(schema.attributes[schema.n_categorical:], old_schema.attributes[schema.n_categorical:]):
            assert at.edges().tobytes() == old_at.edges().tobytes(), name  # the same bins, bit for bit
        assert counts.equals(old_counts), name


def test_weights_with_zeros_match_the_old_data_layer():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"s": rng.choice(["a", "b", "c"], N), "x": rng.normal(size=N), "k": rng.integers(0, 5, N)})
    y = rng.choice([0, 1], N)
    w = rng.integers(0, 3, N).astype(float)
    frame.loc[w == 0, "s"] = "only-weight-zero"  # values the schema pass leaves out
    for n_partitions in (1, 4):
        old_schema, old_counts = legacy_fit_counts(frame, y, w, n_partitions=n_partitions)
        schema, counts = _fit(frame, y, w, n_partitions=n_partitions)
        assert schema.to_dict() == old_schema.to_dict()
        assert "only-weight-zero" not in schema.attributes[0].categories
        assert counts.equals(old_counts)


def test_partitions_with_their_own_categories_count_like_one_table():
    """Partitions as file readers give them: each a Categorical with its own categories and order."""
    rng = np.random.default_rng(9)
    values = rng.choice(["red", "green", "blue", "teal", None], N).astype(object)
    x = rng.normal(size=N)
    y = rng.choice(["p", "q"], N).astype(object)
    whole = pd.DataFrame({"colour": values, "x": x})
    parts = []
    for s, e in [(0, 100), (100, 350), (350, 351), (351, N)]:
        colour = pd.Categorical(values[s:e], categories=rng.permutation(["teal", "red", "green", "blue", "unused"]))
        parts.append((pd.DataFrame({"colour": colour, "x": x[s:e]}), y[s:e], None))
    dataset = Dataset(parts, ["colour", "x"], ["categorical", "numeric"])
    schema, _, _ = scan_schema(dataset)
    counts, record = count_dataset(dataset, schema)
    old_schema, old_counts = legacy_fit_counts(whole, y)
    assert schema.to_dict() == old_schema.to_dict()
    assert "unused" not in schema.attributes[0].categories  # only the categories rows use
    assert counts.equals(old_counts) and record.n_leaves == 4


def test_counts_match_a_plain_python_counter():
    rng = np.random.default_rng(1)
    n = 300
    s = rng.choice(["a", "b", None], n).astype(object)
    x = np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n))
    y = rng.choice(["u", "v"], n).astype(object)
    frame = pd.DataFrame({"s": pd.Series(s, dtype="category"), "x": x})
    schema, counts = _fit(frame, y, n_partitions=4)
    plain = reference.plain_count([[a, b] for a, b in zip(s, x)], list(y), ["categorical", "numeric"])
    at = {a.name: i for i, a in enumerate(schema.attributes)}
    for k, label in enumerate(schema.classes):
        for name, a in (("s", 0), ("x", 1)):
            rows = counts.attribute(at[name])
            assert counts.missing(at[name])[k] == plain["cells"][(a, -1, label)]
            for v in range(len(rows)):
                assert rows[v, k] == plain["cells"][(a, v, label)]


def test_encode_column_remaps_dictionaries_and_reports_unknown_values():
    out = np.empty(6, np.uint8)
    column = pd.Series(["b", "z", None, "a", "b", "z"], dtype="category")
    assert encode_column(column, ["a", "b", "c"], out) == 2
    assert out.tolist() == [2, 0, 0, 1, 2, 0]
    assert encode_column(column.astype("str"), ["a", "b", "z"], out) == 0
    assert out.tolist() == [2, 3, 0, 1, 2, 3]
    assert encode_column(np.array([5, 7, 9, 6, 5, 5], np.uint8), [5, 6, 7], out) == 1
    assert out.tolist() == [1, 3, 0, 2, 1, 1]
    assert observed(column) == {"a", "b", "z"}
    assert observed(pd.Series(pd.Categorical(["x"], categories=["x", "never"]))) == {"x"}


def test_uint64_categories_above_two_to_the_63_stay_positive():
    X = np.array([[2**63 + 1], [2**64 - 1], [2**63 + 1]], dtype=np.uint64)
    schema, counts = _fit(X, [0, 1, 1], categorical_features="all")
    assert schema.attributes[0].categories == [2**63 + 1, 2**64 - 1]
    assert counts.attribute(0).tolist() == [[1.0, 1.0], [0.0, 1.0]]


def test_integer_inputs_are_never_copied_to_float(monkeypatch):
    X = np.random.default_rng(0).integers(0, 50, (1000, 4)).astype(np.uint8)
    original = np.asarray

    def no_float_copies(a, dtype=None, **kw):
        assert not (dtype is not None and np.dtype(dtype) == np.float64 and getattr(a, "size", 0) >= 1000)
        return original(a, dtype=dtype, **kw)

    dataset = as_dataset(X, X[:, 0] % 2, n_partitions=2)
    monkeypatch.setattr(np, "asarray", no_float_copies)
    schema, _, _ = scan_schema(dataset)
    codes, values, _ = schema.encode(dataset.partitions[0][0])
    assert codes.dtype == np.uint8 and values.size == 0
    assert schema.feature_kinds == {str(i): "numeric" for i in range(4)}


def test_pre_coded_data_keeps_pair_counting(monkeypatch):
    X = np.random.default_rng(0).integers(1, 11, (500, 6)).astype(np.uint8)
    y = X[:, 0] % 2
    schema, counts = _fit(X, y, categorical_features="all")
    assert np.shares_memory(schema.encode(X)[0], X)  # counted as it is, no copy
    calls = []
    paired = kernels.counting._count_code_pairs_kernel
    monkeypatch.setattr(kernels.counting, "_count_code_pairs_kernel", lambda *a: calls.append(1) or paired(*a))
    assert count_rows(CountSpec.of(schema), X, y, None).equals(counts)
    assert calls, "pre-coded uint8 data was counted without attribute pairs"
    assert counts.equals(legacy_fit_counts(X, y, categorical_features="all")[1])


def test_many_more_partitions_than_rows_are_capped():
    X = np.random.default_rng(0).normal(size=(500, 2))
    dataset = as_dataset(X, (X[:, 0] > 0).astype(int), n_partitions=10**6)
    assert len(dataset.partitions) == 500


def test_known_ranges_are_used_instead_of_the_data():
    X = np.random.default_rng(0).normal(size=(200, 2))
    dataset = as_dataset(X, (X[:, 0] > 0).astype(int))
    dataset.ranges = {"1": (-10.0, 10.0)}
    schema, _, _ = scan_schema(dataset)
    assert (schema.attributes[1].lo, schema.attributes[1].hi) == (-10.0, 10.0)
    assert schema.attributes[0].lo == X[:, 0].min()


def test_the_fitted_model_shows_each_column_kind():
    from nbparallel import NaiveBayes

    frame = pd.DataFrame({"k": [0, 1, 2, 1], "s": ["a", "b", "a", "b"], "x": [0.5, 1.5, 2.5, 3.5]})
    assert NaiveBayes().fit(frame, [0, 1, 0, 1]).feature_kinds_ == {"k": "numeric", "s": "categorical", "x": "numeric"}
    listed = NaiveBayes(categorical_features=["k"]).fit(frame, [0, 1, 0, 1])
    assert listed.feature_kinds_ == {"k": "categorical", "s": "categorical", "x": "numeric"}


def test_counting_a_large_array_block_by_block_gives_the_same_table(monkeypatch):
    from nbparallel.summaries import counts as counting

    rng = np.random.default_rng(4)
    X = np.column_stack([rng.integers(0, 7, 1000), rng.integers(-50, 50, 1000)]).astype(np.int16)
    y = rng.choice([0, 1, 2], 1000)
    old_schema, old_counts = legacy_fit_counts(X, y, categorical_features=[0])
    monkeypatch.setattr(counting, "BLOCK_ROWS", 97)
    schema, counts = _fit(X, y, categorical_features=[0])
    assert schema.to_dict() == old_schema.to_dict() and counts.equals(old_counts)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("weighted", [False, True])
def test_integer_arrays_of_every_dtype_match_the_old_data_layer(dtype, weighted):
    """Categorical and binned integer columns, any order, a missing target, rows of weight zero."""
    rng = np.random.default_rng(6)
    X = rng.integers(0, 40, (700, 5)).astype(dtype)
    y = rng.choice([0.0, 1.0, 2.0, np.nan], 700)
    w = rng.integers(0, 3, 700).astype(float) if weighted else None
    for features in ("all", "auto", [3, 1]):
        old_schema, old_counts = legacy_fit_counts(X, y, w, n_partitions=3, categorical_features=features)
        schema, counts = _fit(X, y, w, n_partitions=3, categorical_features=features)
        assert schema.to_dict() == old_schema.to_dict() and counts.equals(old_counts), features


def test_an_integer_value_outside_the_vocabulary_still_raises():
    X = np.random.default_rng(0).integers(1, 6, (200, 4)).astype(np.uint8)
    schema, _ = _fit(X, X[:, 0] % 2, categorical_features="all")
    changed = X.copy()
    changed[7, 2] = 9
    with pytest.raises(ValueError, match="column '2' holds 1 value"):
        count_rows(CountSpec.of(schema), changed, X[:, 0] % 2, None)


def test_a_frame_counted_block_by_block_gives_the_same_table(monkeypatch):
    from nbparallel.summaries import counts as counting

    rng = np.random.default_rng(8)
    frame = pd.DataFrame({"c": pd.Categorical(rng.choice(["p", "q", None], 1000)), "s": rng.choice(["a", "b"], 1000),
                          "x": rng.normal(size=1000), "k": rng.integers(0, 4, 1000)})
    y = rng.choice([0, 1], 1000)
    old_schema, old_counts = legacy_fit_counts(frame, y, n_partitions=2)
    monkeypatch.setattr(counting, "BLOCK_ROWS", 97)
    schema, counts = _fit(frame, y, n_partitions=2)
    assert schema.to_dict() == old_schema.to_dict() and counts.equals(old_counts)


def test_a_partition_whose_row_count_changed_between_the_passes_is_named():
    rng = np.random.default_rng(9)
    X, y = rng.integers(0, 5, (300, 3)), rng.choice([0, 1], 300)
    dataset = as_dataset(X, y, n_partitions=3)
    schema, _, _ = scan_schema(dataset)
    assert dataset.partition_rows == [100, 100, 100]
    x1, y1, w1 = dataset.partitions[1]
    dataset.partitions[1] = (x1[:90], y1[:90], w1)  # the same values, ten rows fewer
    with pytest.raises(ValueError, match="partition 1 had 100 rows in the schema pass but has 90"):
        count_dataset(dataset, schema)
    dataset.partitions[1] = (x1, y1, w1)
    assert count_dataset(dataset, schema)[0].class_totals.sum() == 300


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int64, np.uint64])
def test_run_codes_subtract_each_columns_first_value_and_flag_values_outside(dtype):
    from nbparallel.data.encoding import run_codes

    info = np.iinfo(dtype)
    firsts = [0, int(info.max) - 3, int(info.min) + 1]
    X = np.array([[0, info.max - 3, info.min + 1], [3, info.max, info.min + 4], [1, info.max - 4, info.min]],
                 dtype=dtype)
    codes = np.empty(X.shape, dtype=np.uint8)
    outside = run_codes(X, firsts, [4, 4, 4], codes)
    expected = np.array([[1, 1, 1], [4, 4, 4], [2, 0, 0]], dtype=np.uint8)  # first - 1: code 0
    np.testing.assert_array_equal(codes, expected)
    assert outside.tolist() == [False, False, False]
    wide = np.empty(X.shape, dtype=np.uint16)
    outside = run_codes(X, firsts, [3, 3, 3], wide)  # the largest values now lie above
    np.testing.assert_array_equal(wide[:, 0], [1, 4, 2])
    assert outside.tolist() == [True, True, True]
    outside = run_codes(X[:2], [2, int(info.max) - 3, int(info.min) + 3], [4, 4, 4], codes[:2])
    assert outside.tolist() == [True, False, True]  # 0 and info.min + 1 lie two below their runs

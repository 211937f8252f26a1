"""One-pass counting against each partition's own dictionaries equals the two passes, bit for bit."""

import json
from contextlib import nullcontext

import dask.array as da
import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes
from nbparallel.data.dataset import Dataset
from nbparallel.data.inputs import as_dataset
from nbparallel.summaries.dictionary_counts import (
    DictionaryCounts,
    count_dictionaries,
    count_in_one_pass,
    partition_coder,
    schema_of_counts,
)
from nbparallel.summaries.protocol import merge_summaries
from tests import reference
from tests.legacy_data import legacy_fit_counts
from tests.data.test_encoding import _fit, _inputs


def _one_pass(X, y, n_partitions, split_every=2):
    dataset = as_dataset(X, y, n_partitions=n_partitions, categorical_features="all")
    schema, counts, record = count_in_one_pass(dataset, split_every=split_every)
    return schema, counts, record


@pytest.mark.parametrize("n_partitions", [1, 3, 7])
def test_one_pass_equals_the_old_two_passes_for_every_input_kind(n_partitions):
    for name, X, y, _ in _inputs():
        old_schema, old_counts = legacy_fit_counts(X, y, n_partitions=n_partitions, categorical_features="all")
        schema, counts, record = _one_pass(X, y, n_partitions, split_every=3)
        assert schema.to_dict() == old_schema.to_dict(), name
        assert counts.equals(old_counts), name
        assert record.n_leaves == n_partitions


@pytest.mark.parametrize("n_partitions", [1, 2, 3, 4])
def test_one_pass_takes_the_integer_range_of_the_values_as_the_schema_pass_does(n_partitions):
    """The vocabulary of an integer column is decided from its merged values (issue 25 item 5), not from each
    partition's range: the same for every partitioning, in one pass or two."""
    X = np.array([[0], [3], [7], [9]], dtype=np.int64)
    schema, counts, _ = _one_pass(X, np.array([0, 1, 0, 1]), n_partitions=n_partitions)
    assert schema.attributes[0].categories == list(range(10))
    two_pass_schema, two_pass_counts = _fit(X, np.array([0, 1, 0, 1]), n_partitions=n_partitions,
                                            categorical_features="all")
    assert schema.to_dict() == two_pass_schema.to_dict() and counts.equals(two_pass_counts)
    wide = np.array([[-32767], [32766], [32767], [0]], dtype=np.int16)  # a span far wider than the values
    schema, counts, _ = _one_pass(wide, np.array([0, 1, 0, 1]), n_partitions=n_partitions)
    assert schema.attributes[0].categories == [-32767, 0, 32766, 32767]


def test_partitions_with_their_own_categories_and_missing_targets():
    rng = np.random.default_rng(9)
    values = rng.choice(["red", "green", "blue", "teal", None], 500).astype(object)
    y = rng.choice(["p", "q", None], 500).astype(object)
    parts = []
    for s, e in [(0, 100), (100, 350), (350, 351), (351, 500)]:
        colour = pd.Categorical(values[s:e], categories=rng.permutation(["teal", "red", "green", "blue", "unused"]))
        parts.append((pd.DataFrame({"colour": colour}), y[s:e], None))
    schema, counts, _ = count_in_one_pass(Dataset(parts, ["colour"], ["categorical"]))
    assert schema.attributes[0].categories == ["blue", "green", "red", "teal"]  # "unused" has no row
    assert counts.n_missing_target == int(pd.isna(y).sum())
    plain = reference.plain_count([[v] for v in values], list(y), ["categorical"])
    assert plain["vocab"][0] == schema.attributes[0].categories and plain["classes"] == schema.classes
    for k, label in enumerate(schema.classes):
        for i in range(-1, 4):
            assert counts.table[1 + i, k] == plain["cells"][(0, i, label)]


@pytest.mark.parametrize("n_partitions", [1, 3, 7])
def test_rows_missing_in_every_column_of_every_kind(n_partitions):
    """Strings counted while hashed and block-counted columns together: the all-missing rows span both."""
    rng = np.random.default_rng(21)
    n = 700
    gaps = rng.random(n) < 0.15  # these rows miss every value
    def column(values):
        values = values.astype(object)
        values[gaps | (rng.random(n) < 0.1)] = None
        return values
    frame = pd.DataFrame({"obj": column(rng.choice(["a", "b", "c"], n)),
                          "str": pd.Series(column(rng.choice(["x", "yy", "a long string value"], n)), dtype="str"),
                          "cat": pd.Categorical(column(rng.choice(["lo", "hi"], n))),
                          "num": pd.array(column(rng.choice([1.5, 2.5], n)), dtype="float64")})
    y = rng.choice(["p", "q"], n)
    old_schema, old_counts = legacy_fit_counts(frame, y, n_partitions=n_partitions, categorical_features="all")
    schema, counts, _ = _one_pass(frame, y, n_partitions, split_every=3)
    assert schema.to_dict() == old_schema.to_dict() and counts.equals(old_counts)
    every = frame.isna().all(axis=1).to_numpy()
    assert every.sum() >= gaps.sum() > 0
    assert counts.all_missing.tolist() == [float(np.sum(every & (y == c))) for c in schema.classes]


def test_merge_order_changes_the_layout_but_not_the_counts():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 90), "b": rng.integers(0, 4, 90)})
    y = rng.choice(["u", "v"], 90)
    parts = [count_dictionaries((False, False), frame.iloc[s : s + 30], y[s : s + 30], None) for s in (0, 30, 60)]
    dataset = Dataset([(frame, y, None)], ["a", "b"], ["categorical", "categorical"])
    reference_schema, reference_counts, _ = count_in_one_pass(dataset)
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        merged = merge_summaries(*[parts[i] for i in order])
        assert merged.count_table(reference_schema).equals(reference_counts)
    whole = merge_summaries(*parts)
    assert (DictionaryCounts.empty(2) + whole).count_table(reference_schema).equals(reference_counts)
    restored = DictionaryCounts.from_dict(json.loads(json.dumps(merge_summaries(*parts).to_dict())))
    assert restored.count_table(reference_schema).equals(reference_counts)


def test_fit_counts_categorical_data_in_one_pass_and_weighted_data_in_two():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"s": pd.Series(rng.choice(["a", "b", "c"], 400), dtype="str"),
                          "k": pd.Categorical(rng.choice(["lo", "hi"], 400))})
    y = rng.choice(["no", "yes"], 400)
    one = NaiveBayes(n_partitions=3).fit(frame, y)
    two = NaiveBayes(n_partitions=3).fit(frame, y, sample_weight=np.ones(400))
    assert [p["kind"] for p in one.passes_] == ["count"]
    assert [p["kind"] for p in two.passes_] == ["schema", "count"]
    assert one.schema_.to_dict() == two.schema_.to_dict() and one.counts_.equals(two.counts_)
    np.testing.assert_array_equal(one.predict_proba(frame), two.predict_proba(frame))


def test_one_pass_refuses_what_the_schema_pass_refuses():
    frame = pd.DataFrame({"s": ["a", "b", "a", "c"]})
    with pytest.raises(ValueError, match="continuous"):
        NaiveBayes().fit(frame, np.array([0.5, 1.25, 2.0, 0.5]))
    with pytest.raises(ValueError, match="print the same"):
        NaiveBayes().fit(frame, np.array([1, "1", 1, "1"], dtype=object))
    with pytest.raises(ValueError, match="no rows"):
        NaiveBayes().fit(frame.iloc[:0], np.array([], dtype=np.int64))


def _binned_inputs():
    """Integer inputs whose numeric columns are binned: arrays of several dtypes and ranges, and a mixed frame."""
    rng = np.random.default_rng(12)
    n = 600
    y = rng.choice(["no", "yes", "maybe"], n)
    frame = pd.DataFrame({"age": rng.integers(18, 90, n).astype(np.int16),
                          "colour": pd.Categorical(rng.choice(["red", "blue"], n)),
                          "city": rng.choice(["Oslo", "Lima", "Pune"], n).astype(object),
                          "visits": rng.integers(0, 3, n)})
    return [
        ("uint8 0..9", rng.integers(0, 10, (n, 6), dtype=np.uint8), y),
        ("int16 negative", rng.integers(-300, 20, (n, 3)).astype(np.int16), y),
        ("int64 far from 0", rng.integers(10**12, 10**12 + 40, (n, 2)), rng.integers(0, 2, n)),
        ("uint32 one value", np.full((n, 2), 7, dtype=np.uint32), y),
        ("frame", frame, y),
    ]


@pytest.mark.parametrize("n_partitions", [1, 3, 7])
def test_binned_integer_columns_count_in_one_pass_as_the_old_two_passes(n_partitions):
    for name, X, y in _binned_inputs():
        old_schema, old_counts = legacy_fit_counts(X, y, n_partitions=n_partitions, n_bins=6)
        constant = pytest.warns(UserWarning, match="ignored") if name == "uint32 one value" else nullcontext()
        with constant:
            model = NaiveBayes(n_partitions=n_partitions, n_bins=6).fit(X, y)
        assert [p["kind"] for p in model.passes_] == ["count"], name
        assert any(at.kind == "numeric" for at in model.schema_.attributes), name
        assert model.schema_.to_dict() == old_schema.to_dict(), name
        assert model.counts_.equals(old_counts), name


def test_binned_integers_against_a_plain_counter():
    rng = np.random.default_rng(5)
    X = rng.integers(-7, 13, (300, 2))
    y = rng.integers(0, 2, 300)
    model = NaiveBayes(n_partitions=4, n_bins=5).fit(X, y)
    for a in range(2):
        lo, hi = X[:, a].min(), X[:, a].max()
        edges = lo + (hi - lo) * np.arange(1, 5) / 5
        bins = np.searchsorted(edges, X[:, a].astype(float), side="left")  # right-closed, as in SPSS
        start = model.schema_.offsets[a]
        for k in range(2):
            expected = np.bincount(bins[y == k], minlength=5)
            np.testing.assert_array_equal(model.counts_.table[start + 1 : start + 6, k], expected)


def test_wide_binned_integers_and_other_numerics_take_two_passes_with_the_same_counts():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 10, (500, 3))
    X[:, 1] = rng.integers(-10**6, 10**6, 500)  # spans far more than MAX_CATEGORIES values
    y = rng.integers(0, 2, 500)
    wide = NaiveBayes(n_partitions=3).fit(X, y)
    assert [p["kind"] for p in wide.passes_] == ["schema", "count"]
    old_schema, old_counts = legacy_fit_counts(X, y, n_partitions=3)
    assert wide.schema_.to_dict() == old_schema.to_dict() and wide.counts_.equals(old_counts)
    narrow = X[:, [0, 2]]
    for model in (NaiveBayes(numeric_ranges={"0": (0, 20)}), NaiveBayes(numeric="gaussian")):
        assert [p["kind"] for p in model.fit(narrow, y).passes_] == ["schema", "count"]
    assert [p["kind"] for p in NaiveBayes().fit(narrow * 0.5, y).passes_] == ["schema", "count"]
    weighted = NaiveBayes(n_partitions=3).fit(narrow, y, sample_weight=np.ones(500))
    one = NaiveBayes(n_partitions=3).fit(narrow, y)
    assert [p["kind"] for p in weighted.passes_] == ["schema", "count"] and [p["kind"] for p in one.passes_] == ["count"]
    assert one.schema_.to_dict() == weighted.schema_.to_dict() and one.counts_.equals(weighted.counts_)


def test_binned_integers_of_a_dask_array_count_in_one_pass():
    rng = np.random.default_rng(8)
    X = rng.integers(-3, 40, (900, 4)).astype(np.int32)
    y = rng.integers(0, 3, 900)
    model = NaiveBayes(n_bins=4).fit(da.from_array(X, chunks=(200, 4)), da.from_array(y, chunks=200))
    assert [p["kind"] for p in model.passes_] == ["count"] and model.n_partitions_ == 5
    reference_model = NaiveBayes(n_bins=4, n_partitions=1).fit(X, y, sample_weight=np.ones(900))
    assert model.schema_.to_dict() == reference_model.schema_.to_dict()
    assert model.counts_.equals(reference_model.counts_)


def test_count_integers_equals_the_kernel_on_codes_and_refuses_other_dtypes():
    from nbparallel.kernels import count_integers, count_partition

    rng = np.random.default_rng(11)
    X = rng.integers(-4, 3, (500, 5))
    y = rng.integers(0, 3, 500)
    offsets = np.arange(6, dtype=np.int64) * 8  # values -4..2: 7 values + the missing row
    table, totals = count_integers(X, y, [-4] * 5, offsets, 3)
    codes = (X + 5).astype(np.uint8)
    expected, expected_totals, _, _ = count_partition(codes, np.empty((500, 0)), y, None, offsets, np.empty((0, 0)), 3)
    np.testing.assert_array_equal(table, expected)
    np.testing.assert_array_equal(totals, expected_totals)
    for bad in (X.astype(np.float64), X.astype(np.uint64)):
        with pytest.raises(TypeError, match="X must hold integers"):
            count_integers(bad, y, [-4] * 5, offsets, 3)


def test_log_probabilities_follow_a_partial_fit():
    rng = np.random.default_rng(13)
    frame = pd.DataFrame({"s": rng.choice(["a", "b"], 200)})
    y = rng.choice(["u", "v"], 200)
    model = NaiveBayes().partial_fit(frame, y, classes=["u", "v"])
    first = model.log_probabilities_["s"].copy()
    model.partial_fit(frame.assign(s="a"), np.full(200, "u"))
    assert not model.log_probabilities_["s"].equals(first)
    np.testing.assert_array_equal(model.log_probabilities_["s"].to_numpy(), model.feature_log_prob_[0])


def test_blocks_of_a_partition_add_up_to_its_counts(monkeypatch):
    """A partition counted in many small blocks of its code buffer equals the old two passes."""
    import nbparallel.summaries.dictionary_counts as dictionary_counts

    rng = np.random.default_rng(17)
    n = 20_000
    frame = pd.DataFrame({"c": pd.Categorical(rng.choice(["a", "b", None], n)), "k": rng.integers(-2, 5, n),
                          "s": rng.choice(["x", "y"], n).astype(object)})
    y = rng.choice(["u", "v"], n)
    monkeypatch.setattr(dictionary_counts, "CODE_BUFFER_BYTES", 7)  # the smallest blocks, 4096 rows
    old_schema, old_counts = legacy_fit_counts(frame, y, n_partitions=2, categorical_features="all")
    schema, counts, _ = _one_pass(frame, y, 2)
    assert schema.to_dict() == old_schema.to_dict() and counts.equals(old_counts)


@pytest.mark.parametrize("n_partitions", [1, 2, 5])
def test_arrow_tables_count_from_their_dictionary_indices(n_partitions):
    """A small Parquet directory's partitions (Arrow tables whose chunks have their own dictionaries, nulls,
    an all-missing column chunk and missing targets) count as the old two passes, and as a plain counter."""
    import pyarrow as pa

    rng = np.random.default_rng(17)
    n = 600
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z", None], n).astype(object),
                          "b": rng.choice(["lo", "hi", None], n).astype(object),
                          "k": rng.integers(-2, 3, n)})
    frame.loc[200:299, "b"] = None  # a file whose dictionary is empty
    frame.loc[::31, ["a", "b"]] = None
    y = rng.choice(["p", "q", None], n).astype(object)
    chunks = []  # one per file, each string column against the file's own dictionary
    for s in range(0, n, 100):
        part = frame.iloc[s : s + 100].assign(y=y[s : s + 100])
        chunks.append(pa.table({name: pa.array(part[name]).dictionary_encode() if name != "k" else part[name]
                                for name in part.columns}))
    tables = [pa.concat_tables(chunks[i::n_partitions], promote_options="permissive") for i in range(n_partitions)]
    rows = [np.concatenate([np.arange(s, s + 100) for s in range(i * 100, n, 100 * n_partitions)])
            for i in range(n_partitions)]
    dataset = Dataset(tables, ["a", "b", "k"], ["categorical"] * 3, target="y")
    schema, counts, _ = count_in_one_pass(dataset)
    order = np.concatenate(rows)
    old_schema, old_counts = legacy_fit_counts(frame.iloc[order].reset_index(drop=True), y[order], n_partitions=1,
                                               categorical_features="all")
    assert schema.to_dict() == old_schema.to_dict() and counts.equals(old_counts)
    plain = reference.plain_count(frame[["a", "b", "k"]].to_numpy().tolist(), list(y), ["categorical"] * 3)
    assert plain["classes"] == schema.classes and counts.n_missing_target == int(pd.isna(y).sum())
    for a, at in enumerate(schema.attributes):
        assert plain["vocab"][a] == at.categories
        for k, label in enumerate(schema.classes):
            for i in range(-1, len(at.categories)):
                assert counts.table[schema.offsets[a] + 1 + i, k] == plain["cells"][(a, i, label)]


# ------------------------------------------------------------------ rows kept as codes (cross-validation)

def _decoded(coded, a):
    """Attribute ``a``'s values from a partition's kept codes (None where missing)."""
    index = coded.codes[:, a].astype(np.int64) + coded.shift[a] - 1
    vocabulary = coded.vocabularies[a]
    return [vocabulary[i] if i >= 0 else None for i in index]


def _same_values(decoded, column):
    column = pd.Series(column).astype(object)
    missing = column.isna().to_numpy()
    assert [v is None for v in decoded] == missing.tolist()
    assert [d for d, m in zip(decoded, missing) if not m] == column[~missing].tolist()


@pytest.mark.parametrize("n_partitions", [1, 3])
def test_kept_codes_hold_the_values_and_count_as_the_one_pass(n_partitions):
    """Every input kind (arrays kept as they are, strings hashed, categories, integers offset, binned integers):
    the kept codes decode to the partition's values, and counted they give the one pass's schema and counts."""
    forms = [(name, X, y, "all") for name, X, y, _ in _inputs()]
    forms += [(name, X, y, "auto") for name, X, y in _binned_inputs()]
    for name, X, y, features in forms:
        dataset = as_dataset(X, y, n_partitions=n_partitions, categorical_features=features)
        schema, counts, _ = count_in_one_pass(dataset)
        coder = partition_coder(dataset)
        coded = [coder(part) for part in dataset.partitions]
        merged = merge_summaries(*[c.count() for c in coded])
        assert schema_of_counts(dataset, merged, 10).to_dict() == schema.to_dict(), name
        assert merged.count_table(schema).equals(counts), name
        start = 0
        for c in coded:
            rows = slice(start, start + len(c))
            for a in range(c.codes.shape[1]):
                column = X.iloc[rows, a] if isinstance(X, pd.DataFrame) else X[rows, a]
                _same_values(_decoded(c, a), column)
            start += len(c)


def test_kept_codes_count_each_row_under_the_class_columns_of_its_blocks():
    """Two repeats of four folds given as each row's fold (some rows in none) and a third as runs of rows,
    against a plain counter of the rows of each block."""
    rng = np.random.default_rng(23)
    n = 900
    frame = pd.DataFrame({"s": rng.choice(["a", "b", "c", None], n).astype(object),
                          "c": pd.Categorical(rng.choice(["lo", "hi", None], n)),
                          "k": rng.integers(-2, 3, n)})
    frame.loc[::17, ["s", "c"]] = None
    y = rng.choice(["p", "q", "r", None], n).astype(object)
    folds = [rng.integers(-1, 4, n), np.where(rng.random(n) < 0.1, -1, rng.integers(0, 4, n))]
    runs = np.repeat(np.arange(4), [300, 1, 299, 300])  # the third repeat's folds: contiguous
    blocks = [folds[0], np.where(folds[1] >= 0, folds[1] + 4, -1), runs + 8]  # each row's block in each repeat
    dataset = as_dataset(frame, y, n_partitions=3, categorical_features="all")
    schema, _, _ = count_in_one_pass(dataset)
    coder = partition_coder(dataset)
    parts, start = [], 0
    for part in dataset.partitions:
        coded = coder(part)
        rows = slice(start, start + len(coded))
        cuts = np.searchsorted(runs[rows], np.arange(5)) if len(coded) else np.zeros(5, int)
        partition_runs = [(slice(int(a), int(b)), 8 + f) for f, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])) if a < b]
        parts.append(coded.count(partition_runs, [(folds[0][rows], 0), (folds[1][rows], 4)], 12))
        start += len(coded)
    table = merge_summaries(*parts).count_table(schema)
    n_classes = len(schema.classes)
    assert table.table.shape[1] == 12 * n_classes
    for j in range(12):
        rows = np.flatnonzero((blocks[0] == j) | (blocks[1] == j) | (blocks[2] == j))
        plain = reference.plain_count(frame.iloc[rows].to_numpy().tolist(), list(y[rows]), ["categorical"] * 3)
        for k, label in enumerate(schema.classes):
            column = j * n_classes + k
            for a, at in enumerate(schema.attributes):
                values = [None] + at.categories
                cells = table.table[schema.offsets[a] : schema.offsets[a + 1], column]
                expected = [plain["cells"][(a, -1 if v is None else plain["vocab"][a].index(v), label)]
                            if v is None or v in plain["vocab"][a] else 0 for v in values]
                assert cells.tolist() == expected
            assert table.class_totals[column] == np.sum(y[rows] == label)


def test_kept_codes_count_rows_missing_every_value_and_tally_classes_in_order_of_appearance():
    from nbparallel.model_selection.folds import tally_classes

    rng = np.random.default_rng(29)
    n = 400
    frame = pd.DataFrame({"s": rng.choice(["a", "b", None], n).astype(object),
                          "c": pd.Categorical(rng.choice(["lo", "hi", None], n))})
    frame.loc[::13, :] = None
    for y in (rng.choice(["zeta", "mu", "alpha", None], n).astype(object), rng.integers(5, 9, n),
              pd.Categorical(rng.choice(["b", "a"], n), categories=["a", "b"])):
        dataset = as_dataset(frame, y, n_partitions=1, categorical_features="all")
        coded = partition_coder(dataset)(dataset.partitions[0])
        values, counts = tally_classes(np.asarray(y, dtype=object))
        tally = coded.class_tally()
        assert tally[0].tolist() == values.tolist() and tally[1].tolist() == counts.tolist()
        block = np.arange(n) % 2
        table = coded.count(blocks=[(block, 0)], n_blocks=2)
        labels = np.asarray(y, dtype=object)
        every = frame.isna().all(axis=1).to_numpy()
        width = len(coded.classes) + 1
        for b in range(2):
            for k, label in enumerate(coded.classes):
                assert table.all_missing[b * width + k] == np.sum(every & (block == b) & (labels == label))


def test_counts_of_several_blocks_merge_only_with_as_many_and_round_trip_through_json():
    rng = np.random.default_rng(31)
    frame = pd.DataFrame({"s": rng.choice(["a", "b"], 60).astype(object)})
    y = rng.choice(["u", "v"], 60)
    coded = partition_coder(as_dataset(frame, y, n_partitions=1))(as_dataset(frame, y, n_partitions=1).partitions[0])
    three = coded.count(blocks=[(np.arange(60) % 3, 0)], n_blocks=3)
    restored = DictionaryCounts.from_dict(json.loads(json.dumps(three.to_dict())))
    assert restored.n_blocks == 3 and np.array_equal(restored.table, three.table)
    assert np.array_equal((DictionaryCounts.empty(1, 3) + three).table, three.table)
    with pytest.raises(ValueError, match="blocks"):
        three + coded.count()

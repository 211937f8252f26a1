"""One-pass counting against each partition's own dictionaries equals the two passes, bit for bit."""

import json

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes
from nbparallel.data import Dataset, as_dataset
from nbparallel.dictionary_counts import DictionaryCounts, count_dictionaries, count_in_one_pass
from nbparallel.summaries import merge_summaries
from tests import reference
from tests.legacy_data import legacy_fit_counts
from tests.test_encoding import _fit, _inputs


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


def test_one_pass_keeps_each_partitions_integer_range_as_the_schema_pass_does():
    X = np.array([[0], [3], [7], [9]], dtype=np.int64)  # partitions 0..3 and 7..9: 4..6 never in range
    schema, counts, _ = _one_pass(X, np.array([0, 1, 0, 1]), n_partitions=2)
    assert schema.attributes[0].categories == [0, 1, 2, 3, 7, 8, 9]
    two_pass_schema, two_pass_counts = _fit(X, np.array([0, 1, 0, 1]), n_partitions=2, categorical_features="all")
    assert schema.to_dict() == two_pass_schema.to_dict() and counts.equals(two_pass_counts)


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


def test_merge_order_changes_the_layout_but_not_the_counts():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 90), "b": rng.integers(0, 4, 90)})
    y = rng.choice(["u", "v"], 90)
    parts = [count_dictionaries(frame.iloc[s : s + 30], y[s : s + 30], None) for s in (0, 30, 60)]
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

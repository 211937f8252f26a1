"""Attribute kinds as types, the schema's accessors, and partition info (issue 9)."""

import json
import math

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes, load
from nbparallel.data.inputs import as_dataset
from nbparallel.data.schema_pass import scan_schema
from nbparallel.model_selection.cross_validation import cross_validate
from nbparallel.models.discretisation import mdl_intervals
from nbparallel.models.attribute_kinds import (BinnedNumeric, Categorical, GaussianNumeric,
                                               final_bins_of_counting_bins, kind_of, merged_bins)
from nbparallel.persistence import model_files as io


def mixed(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "height": rng.normal(170 + 8 * y, 6),
        "colour": rng.choice(["red", "green", "blue"], n),
        "age": rng.integers(18, 80, n).astype(float),
        "size": rng.choice(["S", "M"], n),
    })
    return frame, y


def test_each_kind_derives_from_its_summary_by_hand():
    frame, y = mixed()
    model = NaiveBayes(numeric={"height": "gaussian"}, alpha=1.0).fit(frame, y)
    schema = model.schema_
    # the schema knows every column's kind; table order is only the schema's business
    assert model.feature_kinds_ == {"height": "gaussian", "colour": "categorical", "age": "numeric",
                                    "size": "categorical"}
    assert [kind_of(at.kind) for at in schema.in_input_order()] == [GaussianNumeric, Categorical, BinnedNumeric,
                                                                Categorical]
    assert [at.name for at in schema.categorical_attributes()] == ["colour", "size"]
    assert schema.position_of("age") == 2 and schema.counted().attributes[schema.counted().index_of("age")].name == "age"
    # categorical: (N_mk + 1) / (N_k + M), counted by plain Python
    colours = sorted(set(frame["colour"]))
    for k in (0, 1):
        n = [sum(1 for c, t in zip(frame["colour"], y) if c == v and t == k) for v in colours]
        expected = [math.log((c + 1) / (sum(n) + 3)) for c in n]
        np.testing.assert_allclose(model.log_probabilities_["colour"][k].to_numpy(), expected, rtol=1e-12)
    assert list(model.log_probabilities_["colour"].index) == colours
    # Gaussian: per-class mean and (ML variance + epsilon)
    for k in (0, 1):
        x = frame["height"].to_numpy()[y == k]
        assert model.log_probabilities_["height"].loc["theta", k] == pytest.approx(x.mean(), rel=1e-12)
        assert model.log_probabilities_["height"].loc["var", k] == pytest.approx(x.var() + model.epsilon_, rel=1e-9)
    # binned: labels are the intervals under the final edges
    labels = model.log_probabilities_["age"].index
    assert labels[0].startswith("(-inf, ") and labels[-1].endswith(", inf]") and len(labels) == len(model.bin_edges_["age"]) + 1


def test_fitted_arrays_are_in_input_order_with_labels():
    frame, y = mixed()
    model = NaiveBayes(numeric={"height": "gaussian"}).fit(frame, y)
    assert len(model.feature_log_prob_) == frame.shape[1]
    for j, column in enumerate(frame.columns):
        table = model.log_probabilities_[column]
        if model.feature_kinds_[column] == "gaussian":
            assert model.feature_log_prob_[j].shape == (0, 2)
        else:
            np.testing.assert_array_equal(model.feature_log_prob_[j], table.to_numpy())
            np.testing.assert_array_equal(model.log_odds_weights_[j], table[1] - table[0])
    # the log-odds weights, read by input column, reproduce the posterior of the counted columns
    counted_only = NaiveBayes().fit(frame[["colour", "age", "size"]], y)
    X = frame[["colour", "age", "size"]].iloc[:30]
    logit = counted_only.log_odds_bias_ + sum(
        counted_only.log_odds_weights_[j][[list(counted_only.log_probabilities_[c].index).index(_label(counted_only, c, v))
                                           for v in X[c]]] for j, c in enumerate(X.columns))
    np.testing.assert_allclose(1 / (1 + np.exp(-logit)), counted_only.predict_proba(X)[:, 1], rtol=1e-9)


def _label(model, column, value):
    """The value label of a training value: its category, or the interval of its bin."""
    if model.feature_kinds_[column] == "categorical":
        return str(value)
    edges = model.bin_edges_[column]
    return model.log_probabilities_[column].index[int(np.searchsorted(edges, value, side="left"))]


def test_model_files_keep_format_1_and_old_gaussian_files_load(tmp_path):
    frame, y = mixed()
    model = NaiveBayes(numeric={"height": "gaussian"}).fit(frame, y)
    path = tmp_path / "m.json"
    model.save(path)
    data = json.loads(path.read_text())
    assert data["format_version"] == 1
    kinds = {a["name"]: a["kind"] for a in data["fitted"]["schema"]["attributes"]}
    assert kinds["height"] == "numeric" and data["fitted"]["gaussian"]["columns"] == ["height"]
    # a file written before this change: Gaussian column as numeric with null range (placeholder)
    for a in data["fitted"]["schema"]["attributes"]:
        if a["name"] == "height":
            a.update(lo=None, hi=None)
    old = tmp_path / "old.json"
    io.write_json_atomic({k: v for k, v in data.items() if k != io.DIGEST_KEY}, old)
    loaded = load(old)
    assert loaded.feature_kinds_ == model.feature_kinds_
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))


@pytest.mark.parametrize("source", ["array", "frame", "dask"])
def test_partition_info_gives_global_row_offsets(source):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(101, 2))
    y = rng.integers(0, 3, 101)
    if source == "array":
        dataset = as_dataset(X, y, n_partitions=4)
    elif source == "frame":
        dataset = as_dataset(pd.DataFrame(X, columns=["a", "b"]).assign(t=y), "t", n_partitions=5)
    else:
        frame = pd.DataFrame(X, columns=["a", "b"]).assign(t=y)
        dataset = as_dataset(dd.from_pandas(frame, npartitions=3), "t")
        with pytest.raises(ValueError, match="schema pass"):
            dataset.partition_infos()
        scan_schema(dataset)
    from nbparallel.engine import execution as engine

    def first_rows(X, y, w, info):
        return [(info.index, info.row_offset, len(X), float(np.asarray(X)[0, 0]))]

    rows = engine.run_pass(dataset.partitions, dataset.map(first_rows, with_info=True), lambda *p: sum(p, []))[0]
    assert [r[0] for r in rows] == list(range(len(dataset.partitions)))
    assert sum(r[2] for r in rows) == 101 and rows[0][1] == 0
    for index, offset, n, first in rows:
        assert first == X[offset, 0]  # the offset is the global index of the partition's first row


def test_cross_validation_folds_do_not_depend_on_the_partitioning():
    frame, y = mixed(203, seed=3)
    data = frame.assign(t=y)
    reference = cross_validate(NaiveBayes(numeric={"height": "gaussian"}, n_partitions=1), frame, y, cv=4)
    for parts in (dd.from_pandas(data, npartitions=2), dd.from_pandas(data, npartitions=7),
                  dd.concat([dd.from_pandas(data.iloc[:20], npartitions=1),
                             dd.from_pandas(data.iloc[20:], npartitions=3)])):
        result = cross_validate(NaiveBayes(numeric={"height": "gaussian"}), parts, "t", cv=4)
        assert result["n_test_rows"].tolist() == [51, 51, 51, 50]
        np.testing.assert_array_equal(result["confusion_matrices"], reference["confusion_matrices"])
        np.testing.assert_allclose(result["test_log_likelihood"], reference["test_log_likelihood"], rtol=1e-9)


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown attribute kind 'count'"):
        kind_of("count")


@pytest.mark.parametrize("seed", range(6))
def test_counting_bins_map_to_the_final_bin_of_every_value_they_hold(seed):
    """Equal-width counting bins, some empty, merged (SPSS) and cut into MDL intervals: every value of a
    counting bin that final_bins_of_counting_bins does not flag as split maps to its final bin (values on and
    beside every edge, and between); a bin flagged holds values of two final bins."""
    rng = np.random.default_rng(seed)
    n_bins = 12
    counting = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    counts = rng.integers(0, 3, (n_bins, 2)).astype(float) * (rng.random((n_bins, 1)) < 0.7)
    counts[0, 0] = counts[-1, 1] = 1.0  # the range's two ends were seen
    kept, merged = merged_bins(counts.sum(axis=1), counting)
    points = np.concatenate([counting, merged, (counting[1:] + counting[:-1]) / 2, [-1.0, 2.0]])
    points = np.concatenate([points, np.nextafter(points, -np.inf), np.nextafter(points, np.inf)])
    for final in (merged, mdl_intervals(counts[kept], merged)[1]):
        codes = np.searchsorted(counting, points, side="left")  # the counting bin of each value
        truth = np.searchsorted(final, points, side="left")  # its final bin
        mapping, split = final_bins_of_counting_bins(counting, final)
        whole = ~split[codes]  # the values of counting bins no final edge splits
        np.testing.assert_array_equal(mapping[codes][whole], truth[whole])
        for b in np.flatnonzero(split):
            assert len(set(truth[codes == b])) > 1

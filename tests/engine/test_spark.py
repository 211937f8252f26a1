"""A Spark DataFrame as an input of every method, on a real local Spark: classic ``local[2]`` and Spark Connect.

The reference is the in-memory fit of the same rows (``toPandas()`` of the same DataFrame): count tables and
schemas equal exactly for 1, 3 and 8 Spark partitions, predictions equal bit for bit, and each pass's
reduction is the binary tree of height ceil(log2 P).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest

from nbparallel import AutoClass, BoostedNaiveBayes, NaiveBayes, SelectedNaiveBayes, cross_validate
from nbparallel.engine.backends.spark import SparkBackend, has_rdd, spark_partitions
from nbparallel.engine.reduce import reduce_now
from tests.engine.spark_sessions import mixed_frame, session


KINDS = ["classic", "connect"]
#: one test process starts the local Spark Connect server (its port is fixed) for all these tests
pytestmark = pytest.mark.xdist_group("spark")

ATTRIBUTES = ["colour", "size", "x"]


@pytest.fixture(scope="module", params=KINDS)
def spark(request):
    return session(request.param)


@pytest.fixture(scope="module")
def frames(spark):
    """``{n_partitions: (Spark DataFrame, its rows in pandas)}``."""
    data = mixed_frame()
    out = {}
    for n in (1, 3, 8):
        frame = spark.createDataFrame(data).repartition(n).persist()
        out[n] = (frame, frame.toPandas())
    return out


def same_counts(a, b):
    return a.schema_.to_dict() == b.schema_.to_dict() and a.counts_.equals(b.counts_)


@pytest.mark.parametrize("n", [1, 3, 8])
def test_fit_equals_the_in_memory_fit_of_the_same_rows_for_any_partitioning(frames, n):
    frame, rows = frames[n]
    model = NaiveBayes(categorical_features=["size"]).fit(frame, "label", sample_weight="w")
    reference = NaiveBayes(categorical_features=["size"]).fit(rows, "label", sample_weight="w")
    assert same_counts(model, reference)
    assert model.reduction_.n_leaves == n and model.reduction_.height == math.ceil(math.log2(n))
    np.testing.assert_array_equal(model.predict_proba(rows[ATTRIBUTES]), reference.predict_proba(rows[ATTRIBUTES]))


def test_predictions_are_a_lazy_spark_dataframe_equal_to_the_in_memory_ones(frames):
    frame, rows = frames[3]
    model = NaiveBayes().fit(rows[[*ATTRIBUTES, "label"]], "label")
    scored = model.predict_proba(frame)
    assert type(scored).__name__ == "DataFrame" and type(scored).__module__.startswith("pyspark")
    assert scored.columns == [*frame.columns, "prediction", "proba_no", "proba_yes"]
    got = scored.toPandas()
    np.testing.assert_array_equal(got[["proba_no", "proba_yes"]].to_numpy(), model.predict_proba(rows[ATTRIBUTES]))
    assert got["prediction"].tolist() == model.predict(rows[ATTRIBUTES]).tolist()
    assert model.predict(frame).select("prediction").toPandas()["prediction"].tolist() == got["prediction"].tolist()


def test_score_evaluate_explain_and_partial_fit_take_a_spark_dataframe(frames):
    frame, rows = frames[3]
    model = NaiveBayes().fit(rows[[*ATTRIBUTES, "label"]], "label")
    assert model.score(frame, "label") == model.score(rows[ATTRIBUTES], rows["label"])
    ours, reference = model.evaluate(frame, "label"), model.evaluate(rows[ATTRIBUTES], rows["label"])
    np.testing.assert_array_equal(ours["confusion_matrix"], reference["confusion_matrix"])
    # a float sum: the same to rounding (in memory the rows are one partition, on Spark three)
    assert ours["average_log_likelihood"] == pytest.approx(reference["average_log_likelihood"], rel=1e-12)
    pd.testing.assert_frame_equal(model.explain(frame.drop("label", "w")), model.explain(rows[ATTRIBUTES]))
    batches = NaiveBayes().partial_fit(frame, "label", classes=["no", "yes"]).partial_fit(frame, "label")
    assert batches.counts_.equals(NaiveBayes().fit(pd.concat([rows, rows]), "label").counts_)


def test_cross_validation_boosting_and_selection_equal_the_in_memory_ones(frames):
    frame, rows = frames[3]
    frame, rows = frame.drop("w"), rows.drop(columns="w")
    ours = cross_validate(NaiveBayes(), frame, "label", cv=3)
    reference = cross_validate(NaiveBayes(), rows, "label", cv=3)
    np.testing.assert_array_equal(ours["test_accuracy"], reference["test_accuracy"])
    boosted = BoostedNaiveBayes(n_rounds=2).fit(frame, "label")
    # a round's counts are weighted by float row weights, summed per partition: equal to rounding
    np.testing.assert_allclose(boosted.predict_proba(rows[ATTRIBUTES]),
                               BoostedNaiveBayes(n_rounds=2).fit(rows, "label").predict_proba(rows[ATTRIBUTES]),
                               rtol=1e-12, atol=1e-15)
    selected = SelectedNaiveBayes().fit(frame, "label")
    assert selected.selected_features_ == SelectedNaiveBayes().fit(rows, "label").selected_features_


def test_autoclass_clusters_a_spark_dataframe(frames):
    """EM's expected counts are float sums: equal to the in-memory fit's to rounding (partitions differ). Two
    restarts of a few iterations: every iteration is a pass of its own (a Spark job)."""
    frame, rows = frames[3]
    options = {"n_clusters": 2, "n_restarts": 2, "max_iter": 5, "random_state": 0}
    model = AutoClass(**options).fit(frame.select(*ATTRIBUTES))
    reference = AutoClass(**options).fit(rows[ATTRIBUTES])
    assert model.n_iter_ == reference.n_iter_ > 1
    np.testing.assert_allclose(model.cluster_log_prior_, reference.cluster_log_prior_, rtol=1e-9)


def test_bad_spark_inputs_are_named(frames):
    frame, rows = frames[1]
    with pytest.raises(TypeError, match="y must be the name of the target column"):
        NaiveBayes().fit(frame, rows["label"].to_numpy())
    with pytest.raises(ValueError, match="did you mean 'label'"):
        NaiveBayes().fit(frame, "Label ")
    model = NaiveBayes().fit(rows[[*ATTRIBUTES, "label"]], "label")
    with pytest.raises(ValueError, match="lacks columns \\['size'\\]"):
        model.predict(frame.drop("size"))
    with pytest.raises(ValueError, match="rename them"):
        model.predict(frame.withColumnRenamed("w", "prediction"))


@pytest.mark.parametrize("n, split_every", [(1, 2), (2, 2), (7, 2), (7, 3), (8, False)])
def test_a_pass_merges_along_the_common_tree_on_the_executors_where_there_are_rdds(spark, n, split_every):
    """A merge that nests its arguments shows the tree's every group and its order: the same as the driver's
    merge of the same leaves, on classic Spark's executors (RDDs) and on Spark Connect's driver alike."""
    frame = spark.range(0, 10 * n, numPartitions=n)
    partitions = spark_partitions(frame)
    fns = [lambda table, i=i: (i, table.column("id").to_pylist()) for i in range(n)]
    backend = SparkBackend(spark)
    summary, record = backend.map_reduce(partitions, fns, lambda *s: tuple(s), split_every)
    leaves = [(i, list(range(10 * i, 10 * i + 10))) for i in range(n)]
    assert (summary, record) == reduce_now(leaves, lambda *s: tuple(s), split_every)
    if n > 1:  # where the root's merge ran: an executor's Python worker, or this process
        root_pid, _ = backend.map_reduce(partitions, fns, lambda *s: os.getpid(), split_every)
        assert (root_pid != os.getpid()) == has_rdd(frame)

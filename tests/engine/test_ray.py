"""A Ray Dataset as an input of every method, on a real local Ray (``ray.init(num_cpus=2)``).

The reference is the in-memory fit of the same rows (``to_pandas()`` of the same Dataset): count tables and
schemas equal exactly for 1, 3 and 8 blocks, predictions equal bit for bit, and each pass's reduction is the
binary tree of height ceil(log2 P).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import ray
import ray.data

from nbparallel import AutoClass, BoostedNaiveBayes, NaiveBayes, SelectedNaiveBayes, cross_validate
from tests.engine.spark_sessions import mixed_frame

#: one test process starts the local Ray for all these tests
pytestmark = pytest.mark.xdist_group("ray")

ATTRIBUTES = ["colour", "size", "x"]


@pytest.fixture(scope="module")
def blocks():
    """``{n_blocks: (Ray Dataset, its rows in pandas)}`` on a local Ray of 2 CPUs, shut down after the module."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    data = mixed_frame()
    try:
        yield {n: (ds, ds.to_pandas()) for n in (1, 3, 8)
               for ds in [ray.data.from_pandas(data).repartition(n).materialize()]}
    finally:
        ray.shutdown()


@pytest.mark.parametrize("n", [1, 3, 8])
def test_fit_equals_the_in_memory_fit_of_the_same_rows_for_any_partitioning(blocks, n):
    ds, rows = blocks[n]
    model = NaiveBayes(categorical_features=["size"]).fit(ds, "label", sample_weight="w")
    reference = NaiveBayes(categorical_features=["size"]).fit(rows, "label", sample_weight="w")
    assert model.schema_.to_dict() == reference.schema_.to_dict() and model.counts_.equals(reference.counts_)
    assert model.reduction_.n_leaves == n and model.reduction_.height == math.ceil(math.log2(n))


def test_predictions_are_a_lazy_ray_dataset_equal_to_the_in_memory_ones(blocks):
    ds, rows = blocks[3]
    model = NaiveBayes().fit(rows[[*ATTRIBUTES, "label"]], "label")
    scored = model.predict_proba(ds)
    assert isinstance(scored, ray.data.Dataset)
    got = scored.to_pandas()
    assert got.columns.tolist() == [*rows.columns, "prediction", "proba_no", "proba_yes"]
    # Ray may hand the blocks back in another order: each row's predictions are those of its own values
    np.testing.assert_array_equal(got[["proba_no", "proba_yes"]].to_numpy(), model.predict_proba(got[ATTRIBUTES]))
    predicted = model.predict(ds).to_pandas()
    assert predicted["prediction"].tolist() == model.predict(predicted[ATTRIBUTES]).tolist()


def test_score_evaluate_explain_cross_validation_boosting_and_selection_take_a_ray_dataset(blocks):
    ds, rows = blocks[3]
    ds, rows = ds.drop_columns(["w"]), rows.drop(columns="w")
    model = NaiveBayes().fit(rows, "label")
    assert model.score(ds, "label") == model.score(rows[ATTRIBUTES], rows["label"])
    np.testing.assert_array_equal(model.evaluate(ds, "label")["confusion_matrix"],
                                  model.evaluate(rows[ATTRIBUTES], rows["label"])["confusion_matrix"])
    pd.testing.assert_frame_equal(model.explain(ds.drop_columns(["label"])), model.explain(rows[ATTRIBUTES]))
    np.testing.assert_array_equal(cross_validate(NaiveBayes(), ds, "label", cv=3)["test_accuracy"],
                                  cross_validate(NaiveBayes(), rows, "label", cv=3)["test_accuracy"])
    np.testing.assert_allclose(BoostedNaiveBayes(n_rounds=2).fit(ds, "label").predict_proba(rows[ATTRIBUTES]),
                               BoostedNaiveBayes(n_rounds=2).fit(rows, "label").predict_proba(rows[ATTRIBUTES]),
                               rtol=1e-12, atol=1e-15)  # float row weights summed per block
    assert SelectedNaiveBayes().fit(ds, "label").selected_features_ == \
        SelectedNaiveBayes().fit(rows, "label").selected_features_
    options = {"n_clusters": 2, "n_restarts": 2, "max_iter": 5, "random_state": 0}  # a pass per iteration
    clusters = AutoClass(**options).fit(ds.select_columns(ATTRIBUTES))
    np.testing.assert_allclose(clusters.cluster_log_prior_,
                               AutoClass(**options).fit(rows[ATTRIBUTES]).cluster_log_prior_, rtol=1e-9)


def test_bad_ray_inputs_are_named(blocks):
    ds, rows = blocks[1]
    with pytest.raises(TypeError, match="y must be the name of the target column"):
        NaiveBayes().fit(ds, rows["label"].to_numpy())
    with pytest.raises(ValueError, match="did you mean 'label'"):
        NaiveBayes().fit(ds, "Label ")

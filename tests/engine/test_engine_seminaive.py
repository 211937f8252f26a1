"""AODE and TAN from a Spark DataFrame (classic and Spark Connect) and a Ray Dataset, on real local engines.

The reference is the model fitted in memory on the same rows: pair counts and schemas equal exactly for 1, 3
and 8 partitions, each pass's reduction the binary tree of height ceil(log2 P), lazy predictions equal bit for
bit, and one-pass cross-validation equal to the in-memory one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import ray
import ray.data

from nbparallel import AODE, TAN, cross_validate
from tests.engine.spark_sessions import mixed_frame, session

ATTRIBUTES = ["colour", "size", "x"]
MODELS = [AODE, TAN]


def same_model(model, reference):
    return model.schema_.to_dict() == reference.schema_.to_dict() and model.pair_counts_.equals(
        reference.pair_counts_)


def fitted_alike(cls, collections):
    """The last ``(model, in-memory reference)``, each collection's model checked against its rows' fit."""
    for n, (collection, rows) in collections.items():
        model = cls(categorical_features=["size"]).fit(collection, "label", sample_weight="w")
        reference = cls(categorical_features=["size"]).fit(rows, "label", sample_weight="w")
        assert same_model(model, reference), n
        assert model.reduction_.n_leaves == n and model.reduction_.height == math.ceil(math.log2(n))
    return model, reference


@pytest.fixture(scope="module", params=["classic", "connect"])
def spark_frames(request):
    """``{n_partitions: (Spark DataFrame, its rows in pandas)}``."""
    spark = session(request.param)
    out = {}
    for n in (1, 3, 8):
        frame = spark.createDataFrame(mixed_frame()).repartition(n).persist()
        out[n] = (frame, frame.toPandas())
    return out


@pytest.fixture(scope="module")
def ray_blocks():
    """``{n_blocks: (Ray Dataset, its rows in pandas)}`` on a local Ray of 2 CPUs, shut down after the module."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield {n: (ds, ds.to_pandas()) for n in (1, 3, 8)
               for ds in [ray.data.from_pandas(mixed_frame()).repartition(n).materialize()]}
    finally:
        ray.shutdown()


@pytest.mark.xdist_group("spark")
@pytest.mark.parametrize("cls", MODELS)
def test_a_spark_dataframe_gives_the_in_memory_model_and_predictions(spark_frames, cls):
    model, reference = fitted_alike(cls, spark_frames)
    frame, rows = spark_frames[3]
    scored = model.predict_proba(frame).toPandas()  # the 8-partition model: the same as the in-memory one
    np.testing.assert_array_equal(scored[["proba_no", "proba_yes"]].to_numpy(),
                                  reference.predict_proba(rows[ATTRIBUTES]))
    assert scored["prediction"].tolist() == reference.predict(rows[ATTRIBUTES]).tolist()
    assert model.score(frame, "label") == reference.score(rows[ATTRIBUTES], rows["label"])


@pytest.mark.xdist_group("spark")
@pytest.mark.parametrize("cls", MODELS)
def test_cross_validation_of_a_spark_dataframe_equals_the_in_memory_one(spark_frames, cls):
    frame, rows = spark_frames[3]
    ours = cross_validate(cls(), frame.drop("w"), "label", cv=3)
    reference = cross_validate(cls(), rows.drop(columns="w"), "label", cv=3)
    np.testing.assert_array_equal(ours["test_accuracy"], reference["test_accuracy"])


@pytest.mark.xdist_group("ray")
@pytest.mark.parametrize("cls", MODELS)
def test_a_ray_dataset_gives_the_in_memory_model_and_predictions(ray_blocks, cls):
    model, reference = fitted_alike(cls, ray_blocks)
    ds, rows = ray_blocks[3]
    got = model.predict_proba(ds).to_pandas()
    # Ray may hand the blocks back in another order: each row's predictions are those of its own values
    np.testing.assert_array_equal(got[["proba_no", "proba_yes"]].to_numpy(), reference.predict_proba(got[ATTRIBUTES]))
    ours = cross_validate(cls(), ds.drop_columns(["w"]), "label", cv=3)
    np.testing.assert_array_equal(ours["test_accuracy"],
                                  cross_validate(cls(), rows.drop(columns="w"), "label", cv=3)["test_accuracy"])

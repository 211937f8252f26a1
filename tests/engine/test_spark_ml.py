"""nbparallel's ``pyspark.ml`` Estimator and Model on a real local Spark (classic and Spark Connect): raw columns
in, no indexer or assembler; usable in a ``Pipeline`` and a ``CrossValidator``, saved and read back.

The reference is :class:`nbparallel.NaiveBayes` fitted in memory on the same rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from pyspark.ml import Pipeline, PipelineModel
from pyspark.ml.evaluation import MulticlassClassificationEvaluator
from pyspark.ml.tuning import CrossValidator, ParamGridBuilder

from nbparallel import NaiveBayes
from nbparallel.spark_ml import NaiveBayesClassificationModel, NaiveBayesClassifier
from tests.engine.spark_sessions import mixed_frame, session

#: one test process starts the local Spark Connect server (its port is fixed) for all these tests
pytestmark = pytest.mark.xdist_group("spark")

ATTRIBUTES = ["colour", "size", "x"]


@pytest.fixture(scope="module", params=["classic", "connect"])
def spark(request):
    return session(request.param)


@pytest.fixture(scope="module")
def data(spark):
    rows = mixed_frame().drop(columns="w")
    rows["label"] = (rows["label"] == "yes").astype(float)  # Spark ML's evaluators take numeric labels
    frame = spark.createDataFrame(rows).repartition(3).persist()
    return frame, frame.toPandas()


def test_the_estimator_fits_raw_columns_as_naive_bayes_does(data):
    frame, rows = data
    model = NaiveBayesClassifier(alpha=1.0, categoricalCols=["size"]).fit(frame)
    reference = NaiveBayes(alpha=1.0, categorical_features=["size"]).fit(rows, "label")
    assert model.model.counts_.equals(reference.counts_)
    out = model.transform(frame).toPandas()
    assert out.columns.tolist() == [*frame.columns, "prediction", "probability"]
    np.testing.assert_array_equal(np.vstack(out["probability"].map(lambda v: v.toArray())),
                                  reference.predict_proba(rows[ATTRIBUTES]))
    assert out["prediction"].tolist() == reference.predict(rows[ATTRIBUTES]).tolist()


def test_a_pipeline_and_a_cross_validator_take_it_and_it_is_saved_and_read_back(data, tmp_path):
    frame, rows = data
    evaluator = MulticlassClassificationEvaluator(metricName="accuracy")
    fitted = Pipeline(stages=[NaiveBayesClassifier(inputCols=ATTRIBUTES)]).fit(frame)
    accuracy = evaluator.evaluate(fitted.transform(frame))
    assert accuracy == pytest.approx(NaiveBayes().fit(rows, "label").score(rows[ATTRIBUTES], rows["label"]))
    fitted.write().save(str(tmp_path / "pipeline"))
    again = PipelineModel.load(str(tmp_path / "pipeline"))
    assert isinstance(again.stages[0], NaiveBayesClassificationModel)
    assert again.stages[0].model.counts_.equals(fitted.stages[0].model.counts_)
    assert evaluator.evaluate(again.transform(frame)) == accuracy
    estimator = NaiveBayesClassifier()
    grid = ParamGridBuilder().addGrid(estimator.nBins, [2, 10]).build()
    tuned = CrossValidator(estimator=estimator, estimatorParamMaps=grid, evaluator=evaluator, numFolds=2,
                           seed=1).fit(frame)
    assert len(tuned.avgMetrics) == 2 and tuned.bestModel.getOrDefault("nBins") in (2, 10)
    with pytest.raises(ValueError, match="overwrite"):
        fitted.stages[0].write().save(str(tmp_path / "pipeline"))

"""Predictions of a Spark DataFrame or a Ray Dataset, as a lazy collection of the same engine.

``model.predict(data)`` and ``model.predict_proba(data)`` of a Spark DataFrame (classic or Spark Connect) or a
Ray Dataset return its rows with a ``prediction`` column, and with ``proba_<class>`` columns for the
probabilities, as ``nbparallel predict`` writes them: one map over the data's Arrow batches on the engine's
workers (:func:`nbparallel.engine.backends.spark.map_batches`, :func:`nbparallel.engine.backends.ray.map_batches`),
the model travelling with the job, each batch scored by
:func:`~nbparallel.models.prediction_files.batch_predictions` as files' batches are. Nothing is computed
until the engine is asked for rows.
"""

from __future__ import annotations

import numpy as np

from nbparallel.engine.backends import ray, spark
from nbparallel.models.prediction_files import batch_predictions, model_features, probability_columns


def is_lazy_collection(data):
    """Whether ``data`` is a Spark DataFrame or a Ray Dataset, whose predictions are lazy collections."""
    return spark.is_spark_frame(data) or ray.is_ray_dataset(data)


def label_type(classes):
    """The Arrow type of a model's class labels (its cluster numbers when it has no classes)."""
    import pyarrow as pa

    if classes is None:
        return pa.int64()
    return pa.array(list(classes)).type


class BatchScorer:
    """A batch of rows (an Arrow RecordBatch or Table) with its predictions appended, as an Arrow Table.

    ``label`` is the Arrow type of the ``prediction`` column; ``schema`` the output's schema, or None to take
    the batch's with the predictions' columns after it."""

    def __init__(self, model, features, proba, label, schema=None):
        self.model, self.features, self.proba, self.label, self.schema = model, features, proba, label, schema

    def __call__(self, batch):
        import pyarrow as pa

        table = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
        positions, probabilities = batch_predictions(self.model, self.features, self.proba, table)
        classes = getattr(self.model, "classes_", None)
        labels = pa.array(positions) if classes is None else pa.array(list(classes), self.label).take(
            pa.array(positions))
        added = {"prediction": labels, **{name: pa.array(np.asarray(column, dtype=np.float64)) for name, column
                                          in probability_columns(self.model, probabilities).items()}}
        out = table
        for name, column in added.items():
            out = out.append_column(pa.field(name, column.type), column)
        return out if self.schema is None else out.cast(self.schema)


def lazy_predictions(model, data, proba):
    """``data`` with ``prediction`` (and, with ``proba``, ``proba_<class>``) columns, lazily (see the module
    docstring). ValueError names the model's columns the data lacks, or the columns it has of those names."""
    import pyarrow as pa

    columns = list(spark.arrow_types(data)) if spark.is_spark_frame(data) else list(data.columns())
    features = model_features(model, columns)
    classes = getattr(model, "classes_", None)
    names = ["prediction"] + ([f"proba_{c}" for c in (classes if classes is not None else range(model.n_clusters))]
                              if proba else [])
    taken = [name for name in names if name in columns]
    if taken:
        raise ValueError(f"the data has columns {taken}, which the predictions would add: rename them")
    if ray.is_ray_dataset(data):
        return ray.map_batches(data, BatchScorer(model, features, proba, label_type(classes)))
    types = spark.arrow_types(data)
    schema = pa.schema([*(pa.field(n, t) for n, t in types.items()), pa.field("prediction", label_type(classes)),
                        *(pa.field(n, pa.float64()) for n in names[1:])])
    return spark.map_batches(data, BatchScorer(model, features, proba, label_type(classes), schema), schema)

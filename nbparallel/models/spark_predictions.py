"""Predictions of a Spark DataFrame, as a lazy Spark DataFrame computed on the executors.

``model.predict(frame)`` and ``model.predict_proba(frame)`` of a Spark DataFrame (classic or Spark Connect)
return the frame's rows with a ``prediction`` column, and with ``proba_<class>`` columns for the
probabilities, as ``nbparallel predict`` writes them: one ``mapInArrow`` over the frame's batches
(:func:`nbparallel.engine.backends.spark.map_batches`), the model travelling once with the job, each batch
scored by :func:`~nbparallel.models.prediction_files.batch_predictions` as files' batches are. Nothing is
computed until Spark is asked for rows.
"""

from __future__ import annotations

import numpy as np

from nbparallel.engine.backends import spark
from nbparallel.models.prediction_files import batch_predictions, model_features, probability_columns


def label_type(classes):
    """The Arrow type of a model's class labels (its cluster numbers when it has no classes)."""
    import pyarrow as pa

    if classes is None:
        return pa.int64()
    return pa.array(list(classes)).type


class BatchScorer:
    """A batch of a Spark DataFrame's rows (an Arrow RecordBatch) with its predictions appended."""

    def __init__(self, model, features, proba, schema):
        self.model, self.features, self.proba, self.schema = model, features, proba, schema

    def __call__(self, batch):
        import pyarrow as pa

        table = pa.Table.from_batches([batch])
        positions, probabilities = batch_predictions(self.model, self.features, self.proba, table)
        classes = getattr(self.model, "classes_", None)
        labels = positions if classes is None else pa.array(list(classes), self.schema.field("prediction").type).take(
            pa.array(positions))
        columns = [*table.columns, labels,
                   *(pa.array(np.asarray(c, dtype=np.float64)) for c in
                     probability_columns(self.model, probabilities).values())]
        return pa.RecordBatch.from_arrays([c.combine_chunks() if hasattr(c, "combine_chunks") else c
                                           for c in columns], schema=self.schema)


def spark_predictions(model, frame, proba):
    """``frame`` with ``prediction`` (and, with ``proba``, ``proba_<class>``) columns, lazily (see the module
    docstring). ValueError names the model's columns the frame lacks."""
    import pyarrow as pa

    types = spark.arrow_types(frame)
    features = model_features(model, list(types))
    taken = [name for name in ("prediction",) if name in types]
    classes = getattr(model, "classes_", None)
    names = [f"proba_{c}" for c in (classes if classes is not None else range(model.n_clusters))] if proba else []
    taken += [name for name in names if name in types]
    if taken:
        raise ValueError(f"the Spark DataFrame has columns {taken}, which the predictions would add: rename them")
    schema = pa.schema([*(pa.field(n, t) for n, t in types.items()), pa.field("prediction", label_type(classes)),
                        *(pa.field(n, pa.float64()) for n in names)])
    return spark.map_batches(frame, BatchScorer(model, features, proba, schema), schema)

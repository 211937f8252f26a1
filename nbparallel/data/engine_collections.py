"""A Spark DataFrame (classic or Spark Connect) or a Ray Dataset as an input: its partitions, counted where
the engine holds them.

The target and the weights are columns named by ``y`` and ``sample_weight``, as for files. The attributes'
kinds come from the collection's Arrow types by the rules of every other input
(:func:`~nbparallel.data.columns.kinds_for`): text columns are categorical, numbers numeric unless
``categorical_features`` names them. Each partition reaches its task as the Arrow table of its rows
(:mod:`nbparallel.engine.backends.spark`, :mod:`nbparallel.engine.backends.ray`), read as a Parquet file's
rows are, so that the model is the one an in-memory fit of the same rows gives. ``n_partitions``
repartitions the collection. Nothing here imports pyspark or ray: the backends do.
"""

from __future__ import annotations

import uuid
from typing import NamedTuple

from nbparallel.data.columns import column_roles, integer_columns_of, kinds_for
from nbparallel.data.dataset import Dataset
from nbparallel.data.files.arrow import pandas_dtypes
from nbparallel.engine.backends import ray, spark


class Layout(NamedTuple):
    """The roles and kinds of a collection's columns."""

    columns: list
    target: str | None
    weight: str | None
    kinds: list
    integer_columns: frozenset


def _check_names(what, y, sample_weight):
    """TypeError unless ``y`` and ``sample_weight`` are None or column names (of a ``what``)."""
    if y is not None and not isinstance(y, str):
        raise TypeError(f"with a {what}, y must be the name of the target column")
    if sample_weight is not None and not isinstance(sample_weight, str):
        raise TypeError(f"with a {what}, sample_weight must be the name of a column")


def _layout(types, what, cast_hint, y, sample_weight, require_target, categorical_features, numeric_features,
            drop, features):
    """The :class:`Layout` of a collection (``what``, for errors) whose columns have the Arrow ``types``; a text
    column made numeric is refused with ``cast_hint``, how to convert it in the engine."""
    columns, target, weight = column_roles(list(types), y, sample_weight, require_target, drop, features)
    if not columns:
        raise ValueError("the data has no attribute columns besides the target")
    dtypes = [pandas_dtypes(types)[c] for c in columns]
    kinds = kinds_for(columns, dtypes, categorical_features, numeric_features)
    text = [c for c, kind, dtype in zip(columns, kinds, dtypes) if kind == "numeric" and dtype == object]
    if text:
        raise TypeError(f"column {text[0]!r} of the {what} is text: {cast_hint} to count it as numeric")
    return Layout(columns, target, weight, kinds, integer_columns_of(columns, dtypes, kinds))


def _dataset(partitions, layout, engine):
    return Dataset(partitions, layout.columns, layout.kinds, layout.target, layout.weight,
                   token=f"{engine}-{uuid.uuid4().hex}", integer_columns=layout.integer_columns)


def spark_frame_dataset(frame, y, sample_weight, n_partitions, categorical_features, require_target,
                        numeric_features=None, drop=(), features=None):
    """The :class:`~nbparallel.data.dataset.Dataset` of a Spark DataFrame (see the module docstring); only the
    columns it uses are read."""
    _check_names("Spark DataFrame", y, sample_weight)
    types = spark.arrow_types(frame)
    layout = _layout(types, "Spark DataFrame", "cast it to a number in Spark "
                     "(DataFrame.withColumn(name, col(name).cast('double')))", y, sample_weight, require_target,
                     categorical_features, numeric_features, drop, features)
    frame = frame.select(*[c for c in types if c in layout.columns or c in (layout.target, layout.weight)])
    if n_partitions is not None:
        frame = frame.repartition(n_partitions)
    return _dataset(spark.spark_partitions(frame), layout, "spark")


def ray_dataset_dataset(data, y, sample_weight, n_partitions, categorical_features, require_target,
                        numeric_features=None, drop=(), features=None):
    """The :class:`~nbparallel.data.dataset.Dataset` of a Ray Dataset (see the module docstring); its plan
    runs once, here, to put its blocks in Ray's object store."""
    _check_names("Ray Dataset", y, sample_weight)  # before the plan runs
    if n_partitions is not None:
        data = data.repartition(n_partitions)
    blocks = ray.ray_blocks(data)
    layout = _layout(ray.arrow_types(blocks), "Ray Dataset", "convert it to numbers (Dataset.map_batches)", y,
                     sample_weight, require_target, categorical_features, numeric_features, drop, features)
    return _dataset(blocks, layout, "ray")

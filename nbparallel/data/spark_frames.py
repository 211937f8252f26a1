"""A Spark DataFrame (classic or Spark Connect) as an input: its partitions, counted on the executors.

The target and the weights are columns named by ``y`` and ``sample_weight``, as for files. The attributes'
kinds come from the DataFrame's Arrow schema by the rules of every other input
(:func:`~nbparallel.data.columns.kinds_for`): text columns are categorical, numbers numeric unless
``categorical_features`` names them. Each partition reaches its task as the Arrow table of its rows
(:mod:`nbparallel.engine.backends.spark`), read as a Parquet file's rows are, so that the model is the one an
in-memory fit of the same rows gives. Nothing here imports pyspark: the backend does.
"""

from __future__ import annotations

import uuid

from nbparallel.data.columns import column_roles, integer_columns_of, kinds_for
from nbparallel.data.dataset import Dataset
from nbparallel.data.files.arrow import pandas_dtypes
from nbparallel.engine.backends import spark


def spark_frame_dataset(frame, y, sample_weight, n_partitions, categorical_features, require_target,
                        numeric_features=None, drop=(), features=None):
    """The :class:`~nbparallel.data.dataset.Dataset` of a Spark DataFrame (see the module docstring).

    ``n_partitions`` repartitions the DataFrame (``DataFrame.repartition``); None keeps its partitions.
    """
    if y is not None and not isinstance(y, str):
        raise TypeError("with a Spark DataFrame, y must be the name of the target column")
    if sample_weight is not None and not isinstance(sample_weight, str):
        raise TypeError("with a Spark DataFrame, sample_weight must be the name of a column")
    types = spark.arrow_types(frame)
    columns, target, weight = column_roles(list(types), y, sample_weight, require_target, drop, features)
    if not columns:
        raise ValueError("the data has no attribute columns besides the target")
    dtypes = pandas_dtypes(types)
    kinds = kinds_for(columns, [dtypes[c] for c in columns], categorical_features, numeric_features)
    numeric_text = [c for c, k in zip(columns, kinds) if k == "numeric" and dtypes[c] == object]
    if numeric_text:
        raise TypeError(f"column {numeric_text[0]!r} of the Spark DataFrame is text: cast it to a number in Spark "
                        "(DataFrame.withColumn(name, col(name).cast('double'))) to count it as numeric")
    needed = [c for c in types if c in columns or c in (target, weight)]
    frame = frame.select(*needed)
    if n_partitions is not None:
        frame = frame.repartition(n_partitions)
    return Dataset(spark.spark_partitions(frame), columns, kinds, target, weight,
                   token=f"spark-{uuid.uuid4().hex}",
                   integer_columns=integer_columns_of(columns, [dtypes[c] for c in columns], kinds))

"""A Ray Dataset as an input: its blocks, counted by Ray tasks where they are.

The target and the weights are columns named by ``y`` and ``sample_weight``, as for files and Spark
DataFrames. The attributes' kinds come from the blocks' Arrow schema by the rules of every other input
(:func:`~nbparallel.data.columns.kinds_for`). Each block reaches its task as an Arrow table
(:mod:`nbparallel.engine.backends.ray`), read as a Parquet file's rows are, so that the model is the one an
in-memory fit of the same rows gives. ``n_partitions`` repartitions the Dataset (``Dataset.repartition``).
Nothing here imports ray: the backend does.
"""

from __future__ import annotations

import uuid

from nbparallel.data.columns import column_roles, integer_columns_of, kinds_for
from nbparallel.data.dataset import Dataset
from nbparallel.data.files.arrow import pandas_dtypes
from nbparallel.engine.backends import ray


def ray_dataset_dataset(data, y, sample_weight, n_partitions, categorical_features, require_target,
                        numeric_features=None, drop=(), features=None):
    """The :class:`~nbparallel.data.dataset.Dataset` of a Ray Dataset (see the module docstring)."""
    if y is not None and not isinstance(y, str):
        raise TypeError("with a Ray Dataset, y must be the name of the target column")
    if sample_weight is not None and not isinstance(sample_weight, str):
        raise TypeError("with a Ray Dataset, sample_weight must be the name of a column")
    if n_partitions is not None:
        data = data.repartition(n_partitions)
    blocks = ray.ray_blocks(data)
    types = ray.arrow_types(blocks)
    columns, target, weight = column_roles(list(types), y, sample_weight, require_target, drop, features)
    if not columns:
        raise ValueError("the data has no attribute columns besides the target")
    dtypes = pandas_dtypes(types)
    kinds = kinds_for(columns, [dtypes[c] for c in columns], categorical_features, numeric_features)
    text = [c for c, k in zip(columns, kinds) if k == "numeric" and dtypes[c] == object]
    if text:
        raise TypeError(f"column {text[0]!r} of the Ray Dataset is text: convert it to numbers "
                        "(Dataset.map_batches) to count it as numeric")
    return Dataset(blocks, columns, kinds, target, weight, token=f"ray-{uuid.uuid4().hex}",
                   integer_columns=integer_columns_of(columns, [dtypes[c] for c in columns], kinds))

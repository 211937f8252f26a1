"""What a partition function receives: rows, and where they sit in the data.

A partition is ``Part(X, y, w, info)``; ``info`` is its :class:`PartitionInfo`
(partition index and global row offset), which functions that need row
identity (folds, reproducible sampling) ask for with ``with_info=True``.
:func:`feature_names_of` is the one rule for the names of the input's columns.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from nbparallel.engine.backends.ray import is_ray_dataset


class PartitionInfo(NamedTuple):
    """Where a partition sits: its index and the global index of its first row."""

    index: int
    row_offset: int


class Part(NamedTuple):
    """One partition: features, targets (or None), weights (or None) and its info."""

    X: Any
    y: Any
    w: Any
    info: PartitionInfo


def _call(fn, args, with_info, part):
    if with_info:
        return fn(*args, part.X, part.y, part.w, part.info)
    return fn(*args, part.X, part.y, part.w)


def over_parts(fn, *args, with_info=False):
    """``fn(*args, X, y, w[, info])`` as a function of one :class:`Part` (picklable)."""
    return partial(_call, fn, args, with_info)


def feature_names_of(X):
    """Column names of a data frame when all are strings, else None.

    >>> import pandas as pd
    >>> feature_names_of(pd.DataFrame({"a": [1], "b": [2]})).tolist(), feature_names_of(np.ones((1, 2)))
    (['a', 'b'], None)
    """
    columns = X.columns() if is_ray_dataset(X) else getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray) or len(columns) == 0:
        return None
    names = np.asarray(list(columns), dtype=object)
    is_str = [isinstance(c, str) for c in names]
    if all(is_str):
        return names
    if any(is_str):
        raise TypeError("Feature names are only supported if all input features have string names, "
                        f"but X has column names of types {sorted({type(c).__name__ for c in names})}")
    return None


def is_arrow_batch(X):
    """True for a ``pyarrow.Table`` or ``RecordBatch`` (without importing pyarrow)."""
    return type(X).__name__ in ("Table", "RecordBatch") and type(X).__module__.startswith("pyarrow")


def is_records(X):
    """True for a non-empty list or tuple of dicts (records, as ``DataFrame.to_dict("records")`` gives)."""
    return isinstance(X, (list, tuple)) and len(X) > 0 and all(isinstance(row, Mapping) for row in X)


def named_columns_as_frame(X):
    """A pyarrow Table or RecordBatch, or records, as the pandas DataFrame of its named columns, so that
    they are taken by name as a DataFrame's are; any other ``X`` as it is."""
    if is_arrow_batch(X):
        return X.to_pandas()
    if is_records(X):
        import pandas as pd

        return pd.DataFrame.from_records(X)
    return X


def input_feature_names(X, columns):
    """The names of an input's attribute columns, or None: the one rule of every estimator.

    A DataFrame (pandas or Dask) whose columns are all strings, or a file (a
    path), names its attributes ``columns`` (the target and weight columns
    left out); arrays and frames with other column labels have no names.

    >>> import pandas as pd
    >>> input_feature_names(pd.DataFrame({"a": [1], "y": [0]}), ["a"]).tolist()
    ['a']
    >>> input_feature_names(np.ones((1, 1)), ["0"]) is None
    True
    """
    if type(X) is np.ndarray:
        return None
    if isinstance(X, (str, os.PathLike)):
        return np.asarray(columns, dtype=object)
    if is_arrow_batch(X) or is_records(X) or is_ray_dataset(X):
        return np.asarray(columns, dtype=object)  # their names are strings
    original = getattr(X, "columns", None)
    if original is None or isinstance(X, np.ndarray) or not all(isinstance(c, str) for c in original):
        return None
    return np.asarray(columns, dtype=object)

"""In-memory inputs (numpy, pandas, Dask) and paths to a :class:`~nbparallel.data.dataset.Dataset`.

Dask collections are read through :mod:`nbparallel.engine.backends.dask_collections`: their partitions are
:class:`~nbparallel.engine.recipes.Block` recipes, which only the Dask backend computes.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from nbparallel.data.columns import (
    CATEGORICAL,
    JOINED_TARGET,
    JOINED_WEIGHT,
    NUMERIC,
    Y_REQUIRED,
    categorical_labels,
    check_weights,
    column_names,
    column_roles,
    integer_columns_of,
    is_path,
    kinds_for,
    target_values,
)
from nbparallel.data.dataset import Dataset, default_partitions
from nbparallel.data.numeric_text import may_hold_numbers, needs_parsing, numbers_in_text, numeric_array, numeric_frame
from nbparallel.data.partitions import named_columns_as_frame
from nbparallel.data.user_warnings import warn
from nbparallel.engine.backends.dask_collections import Array, Frame, collection_of, file_order_key, series_partitions
from nbparallel.engine.backends.ray import is_ray_dataset
from nbparallel.engine.backends.spark import is_spark_frame
from nbparallel.engine.recipes import Block


#: The most distinct values of a text column that is looked at for numbers (as the CSV reader's first block).
MOST_DISTINCT = 100_000


def _object_or_text(dtype):
    """Whether a column of ``dtype`` may hold numbers that "auto" counts as categories: object or text."""
    return (isinstance(dtype, np.dtype) and dtype == object) or isinstance(dtype, pd.StringDtype)


def _warn_numbers_as_categories(X, names, kinds, categorical_features):
    """Warn when "auto" makes a column of numbers categorical (an object column of numbers, a text column of
    numeric text, either with one other token such as ``"n/a"``): surely not what was meant. The rule is
    the CSV reader's (:func:`~nbparallel.data.numeric_text.numbers_in_text`), which reads such a file's
    column as numbers."""
    if not (isinstance(categorical_features, str) and categorical_features == "auto"):
        return
    frame = isinstance(X, pd.DataFrame)
    dtypes = list(X.dtypes) if frame else [X.dtype] * X.shape[1]
    head = None  # the first rows, as one object array, when some column needs them
    for a, (name, kind, dtype) in enumerate(zip(names, kinds, dtypes)):
        if kind != CATEGORICAL or not _object_or_text(dtype):
            continue
        head = (X.iloc[:64].to_numpy(dtype=object) if frame else X[:64]) if head is None else head
        if not may_hold_numbers(head[:, a]):
            continue  # two words among the first rows settle it without a full scan
        column = pd.Series(X.iloc[:, a] if frame else X[:, a], copy=False)
        if pd.api.types.infer_dtype(column, skipna=True) in ("integer", "floating", "mixed-integer-float", "decimal"):
            found = ("numbers", None)
        else:
            values = pd.unique(column.dropna())
            found = numbers_in_text(values) if len(values) <= MOST_DISTINCT else None
        if found is not None:
            warn(_numbers_as_categories_message(name, dtype, *found))


def _numbers_as_categories_message(name, dtype, what, token):
    """The warning of a categorical column of numbers (see :func:`_warn_numbers_as_categories`)."""
    advice = ("Convert it with astype(float) or list it in numeric_features to bin it, or list it in "
              "categorical_features to say it is categorical")
    if what == "numbers":
        return (f"column {name!r} has dtype object but holds only numbers: it is counted as categorical, one "
                f"category per distinct number. {advice}")
    if what == "text":
        return (f"column {name!r} has dtype {dtype} but holds only numbers, as text: it is counted as categorical, "
                f"one category per distinct text. {advice}")
    token, safe = token
    if safe:
        return (f"column {name!r} holds numbers and the token {token!r}, which surely means a missing value: it is "
                "counted as categorical, one category per distinct value (a CSV file of these values is read as "
                f"numbers, {token!r} missing). Replace {token!r} by NaN (X.replace({token!r}, np.nan)) and convert "
                "the column with astype(float) or list it in numeric_features to bin it, or list it in "
                "categorical_features to say it is categorical")
    return (f"column {name!r} holds numbers and the token {token!r}: it is counted as categorical, one category per "
            f"distinct value. If {token!r} means a missing value, replace it by NaN (X.replace({token!r}, np.nan)) "
            "and convert the column with astype(float) or list it in numeric_features to bin it; or list it in "
            "categorical_features to say it is categorical")


def is_sparse_matrix(X):
    """Whether ``X`` is a ``scipy.sparse`` matrix or array, or a pydata ``sparse`` array, judged by its type
    (an attribute test would match a Spark DataFrame, whose unknown attributes are columns)."""
    module = type(X).__module__
    return module.startswith("scipy.sparse") or (module.split(".")[0] == "sparse" and hasattr(X, "tocsr"))


def as_dataset(X, y=None, sample_weight=None, *, n_partitions=None, categorical_features="auto",
               require_target=True, numeric_features=None, drop=(), features=None):
    """Turn any supported input into a :class:`Dataset`.

    Parameters
    ----------
    X : array-like, pandas.DataFrame, dask Array or DataFrame, str or PathLike
        The attributes; a path (or :class:`nbparallel.data.files.options.Files`, a path
        with read options) names a CSV or Parquet file or directory.
    y : array-like, str or None
        The target values, or the name of the target column of a DataFrame or
        file (it is then left out of the attributes).
    sample_weight : array-like, str or None
        Non-negative weights, or the name of a weight column.
    n_partitions : int or None
        Number of partitions; None chooses one per worker for in-memory data
        and keeps a Dask collection's or files' own partitions.
    categorical_features : "auto", "all" or list
        Which attributes are categorical; "auto" takes non-numeric columns.
    require_target : bool
        Raise when no target is given.
    numeric_features : list or None
        Attributes that are numeric whatever their dtype; text in them is
        parsed to numbers (see :mod:`nbparallel.data.numeric_text`).
    drop : collection of str
        Columns of a DataFrame or file that are no attributes (a fitted
        model's target column, when the data to predict holds it).
    features : list of str or None
        A fitted model's column names, for data to score: a DataFrame's or file's attributes are these
        columns, taken by name (in any order, other columns left out), as
        :func:`~nbparallel.data.columns.column_roles` takes them; arrays are taken by position.
    """
    if n_partitions is not None and (
        isinstance(n_partitions, bool) or not isinstance(n_partitions, (int, np.integer))
    ):
        raise TypeError(f"n_partitions must be a positive int or None, got {n_partitions!r}")
    if n_partitions is not None and n_partitions < 1:
        raise ValueError(f"n_partitions must be >= 1, got {n_partitions}")
    if type(X) is np.ndarray:  # the commonest input, a small array's scoring among them: no other form to try
        return _memory_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                               numeric_features, drop, features)
    if is_path(X):
        from nbparallel.data.files.readers import file_dataset

        return file_dataset(X, y, sample_weight, n_partitions=n_partitions,
                            categorical_features=categorical_features, require_target=require_target,
                            numeric_features=numeric_features, drop=drop, features=features)
    if is_spark_frame(X):
        from nbparallel.data.engine_collections import spark_frame_dataset

        return spark_frame_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                                   numeric_features, drop, features)
    if is_ray_dataset(X):
        from nbparallel.data.engine_collections import ray_dataset_dataset

        return ray_dataset_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                                   numeric_features, drop, features)
    collection = collection_of(X)
    if isinstance(collection, Frame):
        files = parquet_files_read_by(X) if all(v is None or isinstance(v, str) for v in (y, sample_weight)) else None
        if files is not None:  # a plain read of Parquet files: counted from the files, by the route of a path
            from nbparallel.data.files.readers import file_dataset

            return file_dataset(files, y, sample_weight, n_partitions=n_partitions,
                                categorical_features=categorical_features, require_target=require_target,
                                numeric_features=numeric_features, drop=drop, features=features)
        return _dask_frame_dataset(collection, y, sample_weight, n_partitions, categorical_features, require_target,
                                   numeric_features, drop, features)
    if isinstance(collection, Array):
        return _dask_array_dataset(collection, y, sample_weight, n_partitions, categorical_features, require_target,
                                   numeric_features)
    return _memory_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                           numeric_features, drop, features)


def _as_target(y):
    """A 1-D array of class labels; a column vector is flattened with a warning."""
    if isinstance(y, pd.Series):
        y = target_values(y)  # a nullable integer target as integers, not floats
    elif isinstance(y, pd.Categorical):
        y = categorical_labels(y)
    elif isinstance(y, (list, tuple)):
        as_given = np.asarray(y)
        if as_given.dtype.kind == "U" and not all(isinstance(v, str) for v in y):
            as_given = np.empty(len(y), dtype=object)  # numpy would make every label a string
            as_given[:] = list(y)
        y = as_given
    y = np.asarray(y)
    # scikit-learn is imported only where it is used: a fit of class labels never imports it
    if y.ndim == 2 and y.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning

        warn("A column-vector y was passed when a 1d array was expected; it was flattened to shape (n_samples,)",
             DataConversionWarning)
        y = y.ravel()
    if y.dtype.kind in "fc" and _continuous(y[~pd.isna(y)]):
        raise ValueError("Unknown label type: continuous. y must hold class labels, not continuous values")
    return y


def _continuous(y):
    """Whether float labels are scikit-learn's "continuous" target type."""
    from sklearn.utils.multiclass import type_of_target

    return type_of_target(y) == "continuous"


def _dask_frame_dataset(frame, y, sample_weight, n_partitions, categorical_features, require_target,
                        numeric_features=None, drop=(), features=None):
    """The dataset of a Dask DataFrame (a :class:`~nbparallel.engine.backends.dask_collections.Frame`)."""
    frame = frame.renamed(column_names(frame.columns))
    frame, y = _with_series(frame, y, "y", JOINED_TARGET)
    frame, sample_weight = _with_series(frame, sample_weight, "sample_weight", JOINED_WEIGHT)
    columns, target, weight = column_roles(frame.columns, y, sample_weight, require_target, drop, features)
    if not columns:
        raise ValueError("the data has no attribute columns besides the target")
    dtypes = frame.dtypes
    kinds = kinds_for(columns, [dtypes[c] for c in columns], categorical_features, numeric_features)
    frame = _parsed_dask_frame(frame, columns, kinds)
    _warn_dask_numbers_as_categories(frame, columns, kinds, categorical_features)
    if n_partitions is not None and n_partitions != frame.n_partitions:
        frame = frame.repartitioned(n_partitions)
    dtypes = frame.dtypes
    return Dataset(frame.blocks(), columns, kinds, target, weight, token=frame.token,
                   integer_columns=integer_columns_of(columns, [dtypes[c] for c in columns], kinds))


def _warn_dask_numbers_as_categories(frame, columns, kinds, categorical_features):
    """:func:`_warn_numbers_as_categories` for a Dask DataFrame, from its first partition (as the CSV reader
    decides from a file's first block): computed only when "auto" makes an object or text column categorical."""
    if not (isinstance(categorical_features, str) and categorical_features == "auto"):
        return
    dtypes = frame.dtypes
    text = [c for c, kind in zip(columns, kinds) if kind == CATEGORICAL and _object_or_text(dtypes[c])]
    if text:
        _warn_numbers_as_categories(frame.first_partition(text), text, [CATEGORICAL] * len(text),
                                    categorical_features)


def parquet_files_read_by(ddf):
    """The :class:`~nbparallel.data.files.options.Files` a Dask DataFrame reads, when it is a plain read of
    Parquet files, local or at an fsspec URL (``dask.dataframe.read_parquet(path, storage_options=...)``,
    perhaps of some columns); else None.

    Such a frame is then counted by the route of its files (footers, dictionary
    indices, small directories read at once) rather than through Dask's pandas
    conversion of every partition. "Plain" means no filters, index, categories,
    partition selection or other operation on the frame, fsspec's filesystem
    (its ``storage_options`` go to the files), files directly in one directory,
    and Dask's order of the files (natural sort) equal to the files' listing
    order, so rows come in the same order.
    """
    import os

    from nbparallel.data.files.filesystems import RemoteFile, list_remote, open_input_file
    from nbparallel.data.files.listing import list_files
    from nbparallel.data.files.options import Files

    frame = collection_of(ddf)
    read = frame.parquet_read() if isinstance(frame, Frame) else None
    if read is None:
        return None
    path, options = read
    try:
        files = Files(path, storage_options=options)
        if files.store is not None:
            _, entries = list_remote(files.path, files.store)
            if any(isinstance(e, str) and not e.startswith((".", "_")) for e in entries):
                return None  # subdirectories (hive partitions): Dask reads them, the files do not
        elif not os.path.exists(files.path) or (os.path.isdir(files.path) and any(
                e.is_dir() for e in os.scandir(files.path) if not e.name.startswith((".", "_")))):
            return None
        found, kind = list_files(files)
    except (ValueError, TypeError, ImportError):
        return None
    if kind != "parquet" or sorted(found, key=lambda f: file_order_key(f.name)) != found:
        return None
    import pyarrow.parquet as pq

    first = found[0]
    schema = pq.read_schema(open_input_file(str(first), first.store) if isinstance(first, RemoteFile) else first)
    index = {c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)}
    keep = set(map(str, frame.columns))
    return Files(path, storage_options=options, drop=[c for c in schema.names if c not in keep and c not in index])


def _with_series(frame, values, parameter, name):
    """``(frame, column name)``: a Dask Series given for ``parameter`` joined to ``frame`` as a column of its own.

    A column name (or None) is returned as it is; other values raise TypeError.
    """
    if values is None or isinstance(values, str):
        return frame, values
    n_partitions = series_partitions(values)
    if n_partitions is None:
        raise TypeError(f"with a Dask DataFrame, {parameter} must be the name of a column or a Dask Series "
                        f"partitioned like it, got {type(values).__name__}")
    if n_partitions != frame.n_partitions:
        raise ValueError(f"{parameter} has {n_partitions} partitions but X has {frame.n_partitions}: "
                         "partition them alike")
    return frame.with_column(name, values), name


def _dask_array_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                        numeric_features=None):
    """The dataset of a Dask Array (an :class:`~nbparallel.engine.backends.dask_collections.Array`)."""
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got a Dask array of shape {X.shape}")
    if n_partitions is not None:
        X = X.in_row_blocks(math.ceil(X.shape[0] / n_partitions))
    X = X.whole_rows()
    columns = [str(i) for i in range(X.shape[1])]
    kinds = kinds_for(columns, [X.dtype] * X.shape[1], categorical_features, numeric_features)
    if NUMERIC in kinds and needs_parsing(X.dtype):  # text in columns forced numeric: parsed in each partition
        X = X.mapped(numeric_array, kinds, dtype=np.float64 if CATEGORICAL not in kinds else object)
    chunks = X.row_chunks
    parts_y = parts_w = [None] * len(chunks)
    if y is None and require_target:
        raise ValueError(Y_REQUIRED)
    if y is not None:
        y = Array.of(y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y.shape[0]} rows but X has {X.shape[0]}")
        parts_y = y.aligned(chunks).row_blocks()
    if sample_weight is not None:
        w = Array.of(sample_weight)
        if w.shape[0] != X.shape[0]:
            raise ValueError(f"sample_weight has {w.shape[0]} rows but X has {X.shape[0]}")
        parts_w = w.aligned(chunks).row_blocks()
    parts = [Block((x, py, pw), _checked_tuple) for x, py, pw in zip(X.row_blocks(), parts_y, parts_w)]
    return Dataset(parts, columns, kinds, n_rows=int(X.shape[0]), token=X.token,
                   integer_columns=integer_columns_of(columns, [X.dtype] * X.shape[1], kinds))


def _parsed_dask_frame(frame, columns, kinds):
    """The Dask DataFrame with its numeric attributes that hold text parsed to float64 in every partition."""
    dtypes = frame.dtypes
    parsed = {c for c, kind in zip(columns, kinds) if kind == NUMERIC and needs_parsing(dtypes[c])}
    if not parsed:
        return frame
    kinds_in_frame = [NUMERIC if c in parsed else CATEGORICAL for c in frame.columns]
    return frame.mapped(numeric_frame, kinds_in_frame, dtypes=dict.fromkeys(parsed, np.float64))


def _checked_tuple(x, y, w):
    if w is not None:
        check_weights(w)
    return x, y, w


def _memory_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                    numeric_features=None, drop=(), features=None):
    target = None  # the target column's name, when y names one
    X = X if type(X) is np.ndarray else named_columns_as_frame(X)
    if isinstance(X, pd.DataFrame):
        frame = X.set_axis(column_names(X.columns), axis=1)
        columns, target, weight = column_roles(frame.columns, y, sample_weight, require_target, drop, features)
        dtypes = dict(zip(frame.columns, frame.dtypes))
        kinds = kinds_for(columns, [dtypes[c] for c in columns], categorical_features, numeric_features)
        X = numeric_frame(frame[columns], kinds)
        _warn_numbers_as_categories(X, columns, kinds, categorical_features)
        if target is not None:
            y = target_values(frame[target])
        if weight is not None:
            sample_weight = frame[weight].to_numpy()
    else:
        if isinstance(y, str):
            raise TypeError("y is a column name, but X is an array, not a DataFrame or a file")
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(
                f"X must be 2-dimensional (rows x attributes), got shape {X.shape}. Reshape your data "
                "with X.reshape(-1, 1) for a single attribute or X.reshape(1, -1) for a single row."
            )
        if X.dtype.kind == "c":
            raise ValueError("Complex data not supported: X must hold real numbers or categories")
        if X.dtype == np.float16:
            X = X.astype(np.float32)  # exact; the kernels take 32- and 64-bit floats
        dtype = X.dtype
        columns, kinds, integers, parsed = _array_columns(dtype, X.shape[1], categorical_features, numeric_features)
        if parsed:
            X = numeric_array(X, kinds)
        if X.dtype == object:
            _warn_numbers_as_categories(X, columns, kinds, categorical_features)
    n = X.shape[0]
    if n == 0:
        raise ValueError("X holds no rows: at least one is needed")
    if X.shape[1] == 0:
        raise ValueError(f"X has 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    if y is None and require_target:
        raise ValueError(Y_REQUIRED)
    if y is not None:
        y = _as_target(y)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-dimensional, got shape {y.shape}")
        if len(y) != n:
            raise ValueError(f"y has {len(y)} rows but X has {n}")
    if sample_weight is not None:
        sample_weight = check_weights(sample_weight)
        if sample_weight.shape != (n,):
            raise ValueError(f"sample_weight has shape {sample_weight.shape}, expected ({n},)")
    P = min(n_partitions or default_partitions(n), n)  # no empty partitions
    if P == 1 and type(X) is np.ndarray:  # one partition, the array itself
        return Dataset([(X, y, sample_weight)], columns, kinds, n_rows=n, token=str(id(X)),
                       integer_columns=integers if X.dtype == dtype else frozenset())
    bounds = [0, n] if P == 1 else np.linspace(0, n, P + 1).astype(int)
    take = (lambda a, s, e: a.iloc[s:e]) if isinstance(X, pd.DataFrame) else (lambda a, s, e: a[s:e])
    parts = [
        (
            take(X, s, e),
            None if y is None else y[s:e],
            None if sample_weight is None else sample_weight[s:e],
        )
        for s, e in zip(bounds[:-1], bounds[1:])
    ]
    if isinstance(X, pd.DataFrame):
        integers = integer_columns_of(columns, list(X.dtypes), kinds)
    elif X.dtype != dtype:  # text parsed to numbers: no integer column
        integers = frozenset()
    return Dataset(parts, columns, kinds, target=target, n_rows=n, token=str(id(X)), integer_columns=integers)


def _array_columns(dtype, width, categorical_features, numeric_features):
    """``(columns, kinds, integer columns, parsed)`` of a 2-D array of ``dtype`` with ``width`` columns, as
    its checks make them (``parsed``: its numeric columns hold text to parse, see
    :func:`~nbparallel.data.numeric_text.numeric_array`). They depend on nothing else, so they are resolved
    once per dtype, width and options (a model scoring small arrays asks for the same ones at every call)
    and kept, unless an option is no plain list of names or indices."""
    if isinstance(categorical_features, str) and numeric_features is None:  # the defaults: keys as they are
        key = (dtype, width, (categorical_features,), (None,))
    else:
        key = (dtype, width, _option_key(categorical_features), _option_key(numeric_features))
    found = _ARRAY_COLUMNS.get(key)
    if found is None:
        columns = [str(i) for i in range(width)]
        kinds = kinds_for(columns, [dtype] * width, categorical_features, numeric_features)
        found = (tuple(columns), tuple(kinds), integer_columns_of(columns, [dtype] * width, kinds),
                 NUMERIC in kinds and needs_parsing(dtype))
        if key[2] is not None and key[3] is not None and len(_ARRAY_COLUMNS) < 256:  # (a float64 dtype == None)
            _ARRAY_COLUMNS[key] = found
    columns, kinds, integers, parsed = found
    return list(columns), list(kinds), integers, parsed


_ARRAY_COLUMNS = {}  # (dtype, width, option keys) -> (columns, kinds, integer columns, parsed): a few entries


def _option_key(option):
    """A hashable key of ``categorical_features`` or ``numeric_features``: None and strings as they are in a
    tuple, a list, tuple or array of names or indices as a tuple of (type, value) pairs (1 and "1" differ);
    None for anything else (not kept)."""
    if option is None or isinstance(option, str):
        return (option,)
    if isinstance(option, (list, tuple, np.ndarray)):
        items = option.tolist() if isinstance(option, np.ndarray) else list(option)
        if all(type(v) in (str, int) for v in items):
            return tuple((type(v), v) for v in items)
    return None

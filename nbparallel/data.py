"""Inputs to partitions, and the schema that encodes them.

:func:`as_dataset` turns numpy arrays, pandas and Dask collections, and paths to
CSV or Parquet files or directories into a :class:`Dataset`: a list of
partitions (files are read inside the task that uses them) and the names and
kinds of the attributes. The schema pass (:func:`scan_schema`) finds each
categorical attribute's vocabulary (the set of values seen), each numeric
attribute's range, and the classes; :class:`Schema` then encodes a partition as
small integer codes (0 = missing) and raw numeric values that the counting
kernel bins in the same pass.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np
import pandas as pd

from . import engine
from .encoding import (
    MAX_CATEGORIES, code_dtype, column_encoder, encode_column, integer_column_encoder, integer_range, integer_table,
    numeric_values, observed, value_range,
)
from .kernels import bin_codes, bin_values, column_ranges, integer_codes

CATEGORICAL = "categorical"
NUMERIC = "numeric"  # binned numeric
GAUSSIAN = "gaussian"  # Gaussian numeric: a model's choice for a numeric column, never counted

#: Where each kind's attributes sit in a schema's table: categorical, then binned, then Gaussian.
#: Only :class:`Schema` reads it; the count table holds the counted kinds (a prefix).
TABLE_ORDER = {CATEGORICAL: 0, NUMERIC: 1, GAUSSIAN: 2}


# ---------------------------------------------------------------- datasets


@dataclass
class Dataset:
    """Partitions of rows and what their attribute columns are.

    Attributes
    ----------
    partitions : list
        Concrete partitions or ``dask.delayed`` objects; :meth:`map` wraps a
        function of ``(X, y, w)`` to take one.
    columns : list of str
        Attribute names, in input order.
    kinds : list of str
        ``"categorical"`` or ``"numeric"`` for each attribute.
    target, weight : str or None
        Column names of the target and of the sample weights in DataFrame
        partitions.
    n_rows : int or None
        Number of rows when known without reading the data.
    token : str
        Identifies the data, for task names.
    ranges : dict or None
        Numeric ``(min, max)`` per column name known without reading the data
        (for example from Parquet statistics); the schema pass then does not
        compute those columns' ranges.
    partition_rows : list of int or None
        Each partition's row count, as the schema pass read it; the counting
        pass checks it (a partition that changed in between raises), and
        :meth:`partition_infos` places the partitions' rows with it.
    integer_columns : frozenset of str
        Numeric attributes whose dtype is a numpy integer in every partition,
        known without reading the data: a fit may count them by value in one
        pass (see :mod:`nbparallel.dictionary_counts`).
    """

    partitions: list
    columns: list
    kinds: list
    target: str | None = None
    weight: str | None = None
    n_rows: int | None = None
    token: str = ""
    ranges: dict | None = None
    partition_rows: list | None = None
    integer_columns: frozenset = frozenset()

    def map(self, fn, *args, with_info=False):
        """A picklable ``part -> fn(*args, X, y, w)`` for :mod:`nbparallel.engine`.

        With ``with_info=True``, one function per partition (the engine takes
        the list) calling ``fn(*args, X, y, w, info)``, where ``info`` is the
        partition's :class:`~nbparallel.partitions.PartitionInfo`: its index
        and the global index of its first row, for row identity (folds,
        reproducible sampling) independent of the partitioning.
        """
        if not with_info:
            return partial(_apply, fn, args, self.columns, self.target, self.weight)
        return [partial(_apply_with_info, fn, args, self.columns, self.target, self.weight, info)
                for info in self.partition_infos()]

    def partition_infos(self):
        """Each partition's :class:`~nbparallel.partitions.PartitionInfo`, from the row counts.

        In-memory partitions are counted here; lazy ones (Dask collections,
        files) need the row counts the schema pass records
        (:func:`scan_schema`), else ValueError.
        """
        from .partitions import PartitionInfo

        rows = self.partition_rows
        if rows is None or len(rows) != len(self.partitions):
            if not all(isinstance(p, tuple) for p in self.partitions):
                raise ValueError("the partitions' row counts are unknown: run the schema pass "
                                 "(scan_schema) before asking for partition offsets")
            rows = [len(p[0]) for p in self.partitions]
        offsets = np.concatenate([[0], np.cumsum(rows, dtype=np.int64)])
        return [PartitionInfo(i, int(offsets[i])) for i in range(len(rows))]


def _unpack(part, columns, target, weight):
    """``(X, y, w)`` of a partition; X a DataFrame or a 2-D array."""
    if isinstance(part, tuple):
        return part
    if is_arrow_table(part):  # a small Parquet directory's rows (see nbparallel.files.file_dataset)
        from .files import _to_pandas

        part = _to_pandas(part)
    X = part[columns]
    y = part[target].to_numpy() if target is not None else None
    w = part[weight].to_numpy() if weight is not None else None
    if w is not None:
        check_weights(w, weight)
    return X, y, w


def is_arrow_table(part):
    """True for a ``pyarrow.Table`` (without importing pyarrow)."""
    return type(part).__name__ == "Table" and type(part).__module__.startswith("pyarrow")


def _apply(fn, args, columns, target, weight, part):
    return fn(*args, *_unpack(part, columns, target, weight))


def _apply_with_info(fn, args, columns, target, weight, info, part):
    return fn(*args, *_unpack(part, columns, target, weight), info)


def default_partitions(n_rows, n_workers=None, min_rows=65536):
    """Partitions for in-memory data: one per worker, none smaller than ``min_rows``.

    ``n_workers`` defaults to :func:`nbparallel.engine.available_workers`, asked
    only when the rows make more than one partition (with a ``distributed.Client``
    the question is a round trip to the scheduler, which dominated small fits).

    >>> default_partitions(10_000_000, 4), default_partitions(1000)
    (4, 1)
    """
    most = math.ceil(n_rows / min_rows)
    if most <= 1:
        return 1
    return min(engine.available_workers() if n_workers is None else n_workers, most)


def check_weights(w, name="sample_weight"):
    """Raise ValueError unless every weight is finite and non-negative."""
    w = np.asarray(w, dtype=np.float64)
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"{name} must hold finite, non-negative numbers; found NaN, infinite or negative values")
    return w


_REFUSED_KINDS = {"M": "dates and times", "m": "time spans", "c": "complex numbers"}


def _refuse_unsupported(names, dtypes):
    """Raise TypeError for a column of dates, time spans or complex numbers: no kind of attribute fits them."""
    for name, dtype in zip(names, dtypes):
        kind = getattr(dtype, "kind", None)
        if kind in _REFUSED_KINDS or isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype)):
            what = _REFUSED_KINDS.get(kind, "periods or intervals")
            advice = ("its real and imaginary parts or its modulus as numeric columns" if kind == "c" else
                      "numbers (for example the day of the year, or .astype('int64')) or strings")
            raise TypeError(f"column {name!r} holds {what} (dtype {dtype}), which naive Bayes cannot count: "
                            f"convert it to {advice} first")


def _column_names(columns):
    """The columns' names as strings; raise for MultiIndex, duplicate or colliding names."""
    if isinstance(columns, pd.MultiIndex):
        raise TypeError("X has MultiIndex columns; flatten them to one level of names first, for example "
                        "X.columns = ['_'.join(map(str, c)) for c in X.columns]")
    names = [str(c) for c in columns]
    if len(set(names)) < len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        clashing = [c for c in columns if str(c) in repeated]
        if len(set(map(repr, clashing))) == len(repeated):
            raise ValueError(f"X has duplicate column names {repeated}: give every column its own name")
        raise ValueError(f"X has column names that become the same string: {', '.join(map(repr, clashing))}; "
                         "rename them so that their str() differ")
    return names


def _warn_numbers_as_categories(X, names, kinds, categorical_features):
    """Warn when "auto" makes an object column of numbers categorical: surely not what was meant."""
    import warnings

    if not (isinstance(categorical_features, str) and categorical_features == "auto"):
        return
    frame = isinstance(X, pd.DataFrame)
    dtypes = list(X.dtypes) if frame else [X.dtype] * X.shape[1]
    head = None  # the first rows, as one object array, when some column needs them
    for a, (name, kind, dtype) in enumerate(zip(names, kinds, dtypes)):
        if kind != CATEGORICAL or not (isinstance(dtype, np.dtype) and dtype == object):
            continue
        head = (X.iloc[:64].to_numpy(dtype=object) if frame else X[:64]) if head is None else head
        if any(isinstance(v, (str, bytes)) for v in head[:, a]):  # a string settles it without a full scan
            continue
        if _holds_only_numbers(X.iloc[:, a] if frame else X[:, a]):
            warnings.warn(
                f"column {name!r} has dtype object but holds only numbers: it is counted as categorical, one "
                "category per distinct number. Convert it with astype(float) or list it in numeric_features to bin "
                "it, or list it in "
                "categorical_features to say it is categorical",
                UserWarning,
                stacklevel=5,
            )


def _holds_only_numbers(column):
    """Whether an object column's values are all numbers (missing values aside), by ``infer_dtype``'s full scan.

    Callers first look for a string among the first values, which settles it:
    the scan cost more than counting a column of strings.
    """
    return pd.api.types.infer_dtype(column, skipna=True) in ("integer", "floating", "mixed-integer-float", "decimal")


def _named_columns(selection, names, parameter):
    """The column names a list of names or indices selects; ValueError for an unknown one."""
    chosen = set()
    for c in selection:
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if not 0 <= c < len(names):
                raise ValueError(f"{parameter} index {c} is out of range for {len(names)} columns")
            chosen.add(names[c])
        elif c in names:
            chosen.add(c)
        else:
            raise ValueError(f"{parameter} names column {c!r}, which is not in the data {list(names)}")
    return chosen


def _integer_columns(names, dtypes, kinds):
    """The numeric columns whose dtype is a numpy integer of at most 63 bits."""
    return frozenset(n for n, d, kind in zip(names, dtypes, kinds)
                     if kind == NUMERIC and isinstance(d, np.dtype) and d.kind in "iu" and d != np.uint64)


def _kinds_for(names, dtypes, categorical_features, numeric_features=None):
    """Resolve ``categorical_features`` and ``numeric_features`` to kinds.

    "auto" takes the non-numeric columns, "all" every column, and a list of
    names or indices adds those numeric columns to the non-numeric ones.
    Integer columns are numeric under "auto" (binned into ``n_bins`` equal
    widths; one value per bin when their range is at most ``n_bins``); list
    them, or pass "all", to count them per value. ``numeric_features`` (names
    or indices) are numeric whatever their dtype and ``categorical_features``
    ("all" included); naming a column in both lists is an error. Dates, time
    spans and complex numbers are refused, listed in ``numeric_features`` or not.
    """
    _refuse_unsupported(names, dtypes)
    if numeric_features is None:
        numeric_features = ()
    if isinstance(numeric_features, str) or not hasattr(numeric_features, "__iter__"):
        raise TypeError(f"numeric_features must be None or a list of column names or indices, "
                        f"got {numeric_features!r}")
    forced = _named_columns(numeric_features, names, "numeric_features")
    numeric = [pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d) for d in dtypes]
    if isinstance(categorical_features, str) and categorical_features in ("auto", "all"):
        chosen = set(names) - forced if categorical_features == "all" else set()
    elif isinstance(categorical_features, str) or not hasattr(categorical_features, "__iter__"):
        raise TypeError(
            "categorical_features must be 'auto', 'all' or a list of column names or "
            f"indices, got {categorical_features!r}"
        )
    else:
        chosen = _named_columns(categorical_features, names, "categorical_features")
        both = [n for n in names if n in chosen & forced]
        if both:
            raise ValueError(f"column {both[0]!r} is named in both categorical_features and numeric_features: "
                             "say once whether it is categorical or numeric")
    return [NUMERIC if n in forced or (is_number and n not in chosen) else CATEGORICAL
            for n, is_number in zip(names, numeric)]


def _is_path(X):
    return isinstance(X, (str, os.PathLike))


def as_dataset(X, y=None, sample_weight=None, *, n_partitions=None, categorical_features="auto",
               require_target=True, numeric_features=None):
    """Turn any supported input into a :class:`Dataset`.

    Parameters
    ----------
    X : array-like, pandas.DataFrame, dask Array or DataFrame, str or PathLike
        The attributes; a path (or :class:`nbparallel.files.Files`, a path
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
        parsed to numbers (see :mod:`nbparallel.numeric_text`).
    """
    if n_partitions is not None and (
        isinstance(n_partitions, bool) or not isinstance(n_partitions, (int, np.integer))
    ):
        raise TypeError(f"n_partitions must be a positive int or None, got {n_partitions!r}")
    if n_partitions is not None and n_partitions < 1:
        raise ValueError(f"n_partitions must be >= 1, got {n_partitions}")
    if _is_path(X):
        from .files import file_dataset

        return file_dataset(X, y, sample_weight, n_partitions=n_partitions,
                            categorical_features=categorical_features, require_target=require_target,
                            numeric_features=numeric_features)
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        return _dask_frame_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                                   numeric_features)
    if isinstance(X, da.Array):
        return _dask_array_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                                   numeric_features)
    return _memory_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                           numeric_features)


_Y_REQUIRED = (
    "this estimator requires y to be passed, but the target y is None: "
    "pass target values or the name of the target column"
)


def _as_target(y):
    """A 1-D array of class labels; a column vector is flattened with a warning."""
    import warnings

    from sklearn.exceptions import DataConversionWarning
    from sklearn.utils.multiclass import type_of_target

    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it was flattened to shape (n_samples,)",
            DataConversionWarning,
            stacklevel=4,
        )
        y = y.ravel()
    if y.dtype.kind in "fc" and type_of_target(y[~pd.isna(y)]) == "continuous":
        raise ValueError("Unknown label type: continuous. y must hold class labels, not continuous values")
    return y


def _column_roles(frame_columns, y, sample_weight, require_target):
    names = [str(c) for c in frame_columns]
    target = weight = None
    if isinstance(y, str):
        if y not in names:
            raise ValueError(f"target column {y!r} does not exist; columns are {names}")
        target = y
    elif y is None and require_target:
        raise ValueError(_Y_REQUIRED)
    if isinstance(sample_weight, str):
        if sample_weight not in names:
            raise ValueError(f"sample_weight column {sample_weight!r} does not exist; columns are {names}")
        weight = sample_weight
    attributes = [n for n in names if n not in (target, weight)]
    return attributes, target, weight


def _dask_frame_dataset(ddf, y, sample_weight, n_partitions, categorical_features, require_target,
                        numeric_features=None):
    if y is not None and not isinstance(y, str):
        raise TypeError("with a Dask DataFrame or a file, y must be the name of the target column")
    if sample_weight is not None and not isinstance(sample_weight, str):
        raise TypeError("with a Dask DataFrame or a file, sample_weight must be the name of a column")
    ddf = ddf.rename(columns=dict(zip(ddf.columns, _column_names(ddf.columns))))
    columns, target, weight = _column_roles(ddf.columns, y, sample_weight, require_target)
    if not columns:
        raise ValueError("the data has no attribute columns besides the target")
    kinds = _kinds_for(columns, [ddf.dtypes[c] for c in columns], categorical_features, numeric_features)
    ddf = _parsed_dask_frame(ddf, columns, kinds)
    if n_partitions is not None and n_partitions != ddf.npartitions:
        ddf = ddf.repartition(npartitions=n_partitions)
    return Dataset(list(ddf.to_delayed()), columns, kinds, target, weight, token=ddf._name,
                   integer_columns=_integer_columns(columns, [ddf.dtypes[c] for c in columns], kinds))


def _dask_array_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                        numeric_features=None):
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got a Dask array of shape {X.shape}")
    if n_partitions is not None:
        X = X.rechunk({0: math.ceil(X.shape[0] / n_partitions)})
    X = X.rechunk({1: -1})
    chunks = X.chunks[0]
    parts_y = parts_w = [None] * len(chunks)
    if y is None and require_target:
        raise ValueError(_Y_REQUIRED)
    if y is not None:
        y = da.asarray(y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y.shape[0]} rows but X has {X.shape[0]}")
        parts_y = list(y.rechunk((chunks,)).to_delayed())
    if sample_weight is not None:
        w = da.asarray(sample_weight)
        if w.shape[0] != X.shape[0]:
            raise ValueError(f"sample_weight has {w.shape[0]} rows but X has {X.shape[0]}")
        parts_w = list(w.rechunk((chunks,)).to_delayed())
    from dask import delayed

    parts = [
        delayed(_checked_tuple, pure=True)(x, py, pw)
        for x, py, pw in zip(X.to_delayed().ravel(), parts_y, parts_w)
    ]
    columns = [str(i) for i in range(X.shape[1])]
    kinds = _kinds_for(columns, [X.dtype] * X.shape[1], categorical_features, numeric_features)
    if NUMERIC in kinds and not (np.issubdtype(X.dtype, np.number) and X.dtype != bool):
        raise TypeError(f"numeric_features cannot parse a Dask array of dtype {X.dtype}: convert it with "
                        "X.astype(float) first")
    return Dataset(parts, columns, kinds, n_rows=int(X.shape[0]), token=X.name,
                   integer_columns=_integer_columns(columns, [X.dtype] * X.shape[1], kinds))


def _parsed_dask_frame(ddf, columns, kinds):
    """The Dask DataFrame with its numeric attributes that hold text parsed to float64 in every partition."""
    from .numeric_text import needs_parsing, numeric_frame

    parsed = {c for c, kind in zip(columns, kinds) if kind == NUMERIC and needs_parsing(ddf.dtypes[c])}
    if not parsed:
        return ddf
    kinds_in_frame = [NUMERIC if c in parsed else CATEGORICAL for c in ddf.columns]
    meta = ddf._meta.astype(dict.fromkeys(parsed, np.float64))
    return ddf.map_partitions(numeric_frame, kinds_in_frame, meta=meta)


def _checked_tuple(x, y, w):
    if w is not None:
        check_weights(w)
    return x, y, w


def _memory_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target,
                    numeric_features=None):
    from .numeric_text import numeric_array, numeric_frame

    target = None  # the target column's name, when y names one
    if isinstance(X, pd.DataFrame):
        frame = X.set_axis(_column_names(X.columns), axis=1)
        columns, target, weight = _column_roles(frame.columns, y, sample_weight, require_target)
        dtypes = dict(zip(frame.columns, frame.dtypes))
        kinds = _kinds_for(columns, [dtypes[c] for c in columns], categorical_features, numeric_features)
        X = numeric_frame(frame[columns], kinds)
        _warn_numbers_as_categories(X, columns, kinds, categorical_features)
        if target is not None:
            y = frame[target].to_numpy()
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
        columns = [str(i) for i in range(X.shape[1])]
        kinds = _kinds_for(columns, [X.dtype] * X.shape[1], categorical_features, numeric_features)
        X = numeric_array(X, kinds)
        if X.dtype == object:
            _warn_numbers_as_categories(X, columns, kinds, categorical_features)
    n = X.shape[0]
    if n == 0:
        raise ValueError("X holds no rows: at least one is needed")
    if X.shape[1] == 0:
        raise ValueError(f"X has 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    if y is None and require_target:
        raise ValueError(_Y_REQUIRED)
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
        if not sample_weight.any():
            raise ValueError("sample_weight is zero for every row: at least one positive weight is needed")
    P = min(n_partitions or default_partitions(n), n)  # no empty partitions
    bounds = np.linspace(0, n, P + 1).astype(int)
    take = (lambda a, s, e: a.iloc[s:e]) if isinstance(X, pd.DataFrame) else (lambda a, s, e: a[s:e])
    parts = [
        (
            take(X, s, e),
            None if y is None else y[s:e],
            None if sample_weight is None else sample_weight[s:e],
        )
        for s, e in zip(bounds[:-1], bounds[1:])
    ]
    dtypes = list(X.dtypes) if isinstance(X, pd.DataFrame) else [X.dtype] * X.shape[1]
    return Dataset(parts, columns, kinds, target=target, n_rows=n, token=str(id(X)),
                   integer_columns=_integer_columns(columns, dtypes, kinds))


# ------------------------------------------------------------------ schema


def column_major(n_rows, n_columns, dtype):
    """An uninitialised column-major ``(n_rows, n_columns)`` array whose column stride is not a multiple of 4 KiB.

    Columns a power of two apart collide in the CPU cache: the counting kernel,
    which reads a row across every column, ran 4-5x slower on them.
    """
    itemsize = np.dtype(dtype).itemsize
    stride = -(-n_rows * itemsize // 64) * 64
    stride += 64 if stride % 4096 == 0 else 0
    buffer = np.empty((n_columns, stride // itemsize), dtype=dtype)
    return buffer[:, :n_rows].T


def _within(codes, sizes):
    """True when every column j of ``codes`` holds only 1..sizes[j]."""
    if len(codes) == 0:
        return True
    lo, hi = column_ranges(codes)
    return bool(np.all(lo >= 1) and np.all(hi <= sizes))


@dataclass
class ColumnScan:
    """Summary of the schema pass for one partition (merged by union, min and max)."""

    values: list  # per attribute: set of values (categorical) or None
    lo: np.ndarray  # per attribute: min of numeric values (NaN if none)
    hi: np.ndarray
    classes: set = field(default_factory=set)
    n_rows: int = 0
    partition_rows: tuple = ()  # each partition's rows (weight zero included), in partition order


def scan_partition(columns, kinds, known_ranges, X, y, w):
    """Schema summary of one partition: vocabularies, ranges, classes.

    Rows of weight zero are left out, as if absent. Numeric columns named in
    ``known_ranges`` are not read. A 2-D numeric array is read in one row-major
    pass for every column's min and max; DataFrame columns are read one by one,
    each as it is stored (see :mod:`nbparallel.encoding`).
    """
    partition_rows = (len(X),)
    if w is not None and np.any(w == 0):
        keep = np.asarray(w) > 0
        X = X[keep]
        y = None if y is None else np.asarray(y)[keep]
    frame = isinstance(X, pd.DataFrame)
    values = [None] * len(columns)
    lo = np.full(len(columns), np.nan)
    hi = np.full(len(columns), np.nan)
    wanted = [kind == CATEGORICAL or name not in known_ranges for name, kind in zip(columns, kinds)]
    if not frame and X.dtype.kind in "iuf" and X.dtype != np.uint64 and len(X) and any(wanted):
        block_lo, block_hi = column_ranges(X)  # one pass over every column, no copy (int64 results)
        for a, kind in enumerate(kinds):
            if kind == NUMERIC:
                if block_lo[a] <= block_hi[a]:  # else the column is all NaN here
                    lo[a], hi[a] = float(block_lo[a]), float(block_hi[a])
            elif X.dtype.kind in "iu" and block_hi[a] - block_lo[a] < MAX_CATEGORIES:
                values[a] = set(range(int(block_lo[a]), int(block_hi[a]) + 1))
            else:
                values[a] = observed(X[:, a])
    else:
        for a, (name, kind) in enumerate(zip(columns, kinds)):
            if not wanted[a]:
                continue
            column = X.iloc[:, a] if frame else X[:, a]
            if kind == CATEGORICAL:
                values[a] = observed(column)
            else:
                lo[a], hi[a] = value_range(numeric_values(column, name))
    infinite = np.isinf(lo) | np.isinf(hi)
    if infinite.any():
        name = columns[int(np.flatnonzero(infinite)[0])]
        raise ValueError(
            f"column {name!r} holds infinite values, which cannot be binned; "
            "replace them or mark the column categorical"
        )
    classes = observed(y, exact=True) if y is not None else set()
    return ColumnScan(values, lo, hi, classes, len(X), partition_rows)


def _numeric_block(X, positions, names):
    """The numeric columns at ``positions`` as one float array (a view when possible)."""
    if isinstance(X, pd.DataFrame):
        try:
            return X.iloc[:, positions].to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            for i, name in zip(positions, names):
                numeric_values(X.iloc[:, i], name)
            raise
    if positions == list(range(X.shape[1])) and X.dtype in (np.float64, np.float32):
        return X
    for i, name in zip(positions, names):
        if X.dtype.kind == "O":
            numeric_values(X[:, i], name)
    return np.asarray(X[:, positions], dtype=np.float64)


def merge_scans(*scans):
    """Union of vocabularies and classes, min and max of ranges."""
    first = scans[0]
    values = [None if v is None else set(v) for v in first.values]
    lo, hi, classes, n = first.lo.copy(), first.hi.copy(), set(first.classes), first.n_rows
    partition_rows = tuple(first.partition_rows)
    for s in scans[1:]:
        for a, v in enumerate(s.values):
            if v is not None:
                values[a] |= v
        lo, hi = np.fmin(lo, s.lo), np.fmax(hi, s.hi)
        classes |= s.classes
        n += s.n_rows
        partition_rows += tuple(s.partition_rows)
    return ColumnScan(values, lo, hi, classes, n, partition_rows)


def sort_values(values):
    """Sort a vocabulary; mixed types sort by type name first."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, v))


@dataclass
class Attribute:
    """One attribute of the schema: a vocabulary, or a range cut in equal-width bins.

    ``kind`` names its kind (``"categorical"``, ``"numeric"`` for binned or
    ``"gaussian"``); :attr:`kind_type` is the kind's class in
    :mod:`nbparallel.kinds`, which knows its value labels, how its
    log-probabilities derive from its summary and how its values score. A
    Gaussian attribute keeps the range the schema pass found but is never
    counted.
    """

    name: str
    kind: str
    categories: list | None = None
    lo: float | None = None
    hi: float | None = None
    n_bins: int | None = None

    @property
    def kind_type(self):
        """The kind as a type (:mod:`nbparallel.kinds`)."""
        from .kinds import kind_of

        return kind_of(self.kind)

    @property
    def counted(self):
        """True for the kinds a count table holds (categorical and binned)."""
        return self.kind != GAUSSIAN

    @property
    def n_values(self):
        """Number of categories or bins (0 for a Gaussian attribute, which has no table rows)."""
        if self.kind == CATEGORICAL:
            return len(self.categories)
        return self.n_bins if self.kind == NUMERIC else 0

    def edges(self):
        """Inner edges of the equal-width bins (right-closed, as in SPSS)."""
        if self.lo is None or np.isnan(self.lo):
            return np.zeros(self.n_bins - 1)
        with np.errstate(over="ignore", invalid="ignore"):
            edges = self.lo + (self.hi - self.lo) * np.arange(1, self.n_bins) / self.n_bins
        if np.all(np.isfinite(edges)):
            return edges
        steps = np.arange(1, self.n_bins) / self.n_bins  # a range near the float limits: no overflow
        return self.lo * (1 - steps) + self.hi * steps

    def to_dict(self):
        """Plain values, for JSON."""
        d = {"name": self.name, "kind": self.kind}
        if self.kind == CATEGORICAL:
            d["categories"] = [_json_value(v, self.name) for v in self.categories]
        else:
            d.update(lo=_json_float(self.lo), hi=_json_float(self.hi), n_bins=self.n_bins)
        return d

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict`."""
        if d["kind"] == CATEGORICAL:
            return cls(d["name"], CATEGORICAL, categories=list(d["categories"]))
        if d["kind"] not in (NUMERIC, GAUSSIAN):
            raise ValueError(f"unknown attribute kind {d['kind']!r}")
        lo = np.nan if d["lo"] is None else float(d["lo"])
        hi = np.nan if d["hi"] is None else float(d["hi"])
        return cls(d["name"], d["kind"], lo=lo, hi=hi, n_bins=int(d["n_bins"]))


def _json_float(x):
    return None if x is None or np.isnan(x) else float(x)


def _json_value(v, column):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, (str, int, float, bool)):
        return v
    raise TypeError(f"column {column!r} has a category {v!r} of type {type(v).__name__}, which a model file cannot hold")


@dataclass
class Schema:
    """The attributes in table order and the classes.

    The table order (categorical, then binned numeric, then Gaussian; see
    :data:`TABLE_ORDER`) is the count table's and the codes'; only this class
    relies on it. Other modules ask by kind or by name:
    :meth:`categorical_attributes`, :meth:`by_kind`, :meth:`counted`,
    :meth:`position_of`, :meth:`index_of`, :meth:`in_input_order`.
    """

    attributes: list
    columns: list  # input column names, in input order
    classes: list

    @classmethod
    def of(cls, attributes, columns, classes):
        """A schema of these attributes, put in table order (stable within a kind)."""
        return cls(sorted(attributes, key=lambda at: TABLE_ORDER[at.kind]), list(columns), list(classes))

    @staticmethod
    def in_table_order(attributes):
        """True when ``attributes`` are listed in table order."""
        ranks = [TABLE_ORDER[at.kind] for at in attributes]
        return ranks == sorted(ranks)

    def by_kind(self, kind):
        """The attributes of ``kind`` (a name such as ``"categorical"``), in table order."""
        return [at for at in self.attributes if at.kind == kind]

    def categorical_attributes(self):
        """The categorical attributes, in table order (as their codes come)."""
        return self.by_kind(CATEGORICAL)

    def binned_attributes(self):
        """The binned numeric attributes, in table order (as their values come after the codes)."""
        return self.by_kind(NUMERIC)

    def counted(self):
        """The schema of the counted attributes (categorical and binned): the count table's layout.

        Its ``columns`` are still every input column, so it encodes a
        partition's counted attributes by name.
        """
        counted = [at for at in self.attributes if at.counted]
        return self if len(counted) == len(self.attributes) else Schema(counted, self.columns, self.classes)

    def with_kinds(self, kinds):
        """The schema with the attributes named in ``kinds`` (``{name: kind}``) of those kinds."""
        if not kinds:
            return self
        return Schema.of([replace(at, kind=kinds.get(at.name, at.kind)) for at in self.attributes],
                         self.columns, self.classes)

    def attribute(self, name):
        """The attribute of an input column."""
        for at in self.attributes:
            if at.name == name:
                return at
        raise KeyError(f"no attribute {name!r}; columns are {self.columns}")

    def position_of(self, name):
        """The position of an attribute's column in the input."""
        return self.columns.index(name)

    def index_of(self, name):
        """The position of an attribute in table order."""
        return [at.name for at in self.attributes].index(name)

    def in_input_order(self):
        """The attributes in input column order."""
        return [self.attribute(c) for c in self.columns]

    @classmethod
    def from_scan(cls, scan, columns, kinds, n_bins, classes=None, ranges=None):
        """Build the schema from a merged :class:`ColumnScan` (and numeric ranges known beforehand)."""
        ranges = ranges or {}
        attrs = []
        for a, (name, kind) in enumerate(zip(columns, kinds)):
            if kind == CATEGORICAL:
                cats = sort_values(scan.values[a])
                if len(cats) > MAX_CATEGORIES:
                    raise ValueError(f"column {name!r} has {len(cats)} categories; at most {MAX_CATEGORIES} are supported")
                attrs.append(Attribute(name, CATEGORICAL, categories=cats))
            else:
                lo, hi = ranges.get(name, (scan.lo[a], scan.hi[a]))
                attrs.append(Attribute(name, NUMERIC, lo=float(lo), hi=float(hi), n_bins=n_bins))
        attrs.sort(key=lambda at: TABLE_ORDER[at.kind])
        classes = sort_values(scan.classes) if classes is None else list(classes)
        if len({str(c) for c in classes}) < len(classes):
            printed = [c for c in classes if [str(d) for d in classes].count(str(c)) > 1]
            raise ValueError(f"y holds classes that print the same but differ in type: {printed!r} "
                             f"({', '.join(type(c).__name__ for c in printed)}); make the target one type")
        return cls(attrs, list(columns), classes)

    @property
    def offsets(self):
        """Row offsets of the attributes in a count table (one missing row each)."""
        sizes = [at.n_values + 1 for at in self.attributes]
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    @property
    def feature_kinds(self):
        """The resolved kind of every input column, ``{name: kind}`` ("categorical", "numeric" or
        "gaussian"), in input order."""
        kinds = {at.name: at.kind for at in self.attributes}
        return {name: kinds[name] for name in self.columns}

    @property
    def n_categorical(self):
        """Number of categorical attributes (they come first)."""
        return sum(at.kind == CATEGORICAL for at in self.attributes)

    def count_edges(self):
        """Equal-width inner edges of the numeric attributes, padded with +inf."""
        numeric = self.attributes[self.n_categorical :]
        width = max([at.n_bins - 1 for at in numeric] + [0])
        edges = np.full((len(numeric), width), np.inf)
        for j, at in enumerate(numeric):
            edges[j, : at.n_bins - 1] = at.edges()
        return edges

    def encode_classes(self, y, w=None):
        """Class codes 0..K-1, -1 for a missing target; unknown classes raise.

        A row of weight zero is as if absent: an unknown class there is harmless.
        """
        y = np.asarray(y)
        if y.dtype.kind in "iu" and len(y) and integer_range(self.classes) == (0, len(self.classes) - 1):
            if 0 <= y.min() and y.max() < len(self.classes):
                return y  # classes 0..K-1 are their own codes (read only, never written)
        codes = np.empty(len(y), dtype=np.int32)
        n_unknown = encode_column(y, self.classes, codes)
        codes -= 1
        if n_unknown:
            unknown = (codes < 0) & ~pd.isna(y)
            if w is not None:
                codes[unknown & (np.asarray(w) == 0)] = 0  # adds weight zero
                unknown &= np.asarray(w) > 0
            if np.any(unknown):
                raise ValueError(f"y holds classes not seen in training: {sort_values(set(y[unknown].tolist()))[:5]}")
        return codes

    def split(self, X):
        """``(codes, values)``: categorical codes (0 = missing or unseen) and raw numeric values.

        Data already coded 1..M in a uint8 array is used as it is, without a copy.
        """
        frame = isinstance(X, pd.DataFrame)
        position = {c: i for i, c in enumerate(self.columns)}
        n_cat = self.n_categorical
        categorical = self.attributes[:n_cat]
        numeric = [position[at.name] for at in self.attributes[n_cat:]]
        values = _numeric_block(X, numeric, [at.name for at in self.attributes[n_cat:]])
        coded = self.coded_view(X)
        if coded is not None and _within(coded, [len(at.categories) for at in categorical]):
            return coded, values
        codes = np.empty((len(X), n_cat), dtype=code_dtype([at.n_values for at in categorical]), order="F")
        for a, at in enumerate(categorical):
            i = position[at.name]
            encode_column(X.iloc[:, i] if frame else X[:, i], at.categories, codes[:, a])
        return codes, values

    def encode(self, X):
        """A partition as the counting kernel takes it: ``(codes, values, unknown)``.

        Every attribute becomes codes (numeric ones binned under the equal-width
        edges), in one pass per column for DataFrames and one row-major pass for
        2-D arrays, except that a float array of numeric attributes is passed as
        ``values`` (the kernel bins it in the counting pass) and data coded 1..M
        in uint8 as codes, both without a copy. ``unknown`` maps the name of
        each categorical column holding values outside its vocabulary to their
        number (0 codes, counted as missing).
        """
        return self.encoder(X)(0, len(X))

    def encoder(self, X):
        """:meth:`encode` prepared once for a partition and run a block of rows at a time.

        Returns
        -------
        callable
            ``encode(start, stop)`` is ``encode(X[start:stop])``; lookup
            tables, vocabulary indexes and column views are built once.
        """
        frame = isinstance(X, pd.DataFrame)
        n_cat = self.n_categorical
        position = [self.columns.index(at.name) for at in self.attributes]
        dtype = code_dtype([at.n_values for at in self.attributes])
        if not frame and n_cat == 0 and position == list(range(X.shape[1])) and X.dtype in (np.float64, np.float32):
            return lambda start, stop: (np.empty((stop - start, 0), dtype=np.uint8), X[start:stop], {})
        coded = self.coded_view(X)
        if coded is not None and _within(coded, [len(at.categories) for at in self.attributes]):
            return lambda start, stop: (coded[start:stop], np.empty((stop - start, 0)), {})
        if not frame and X.dtype.kind in "iu":
            return self._integer_encoder(X, position, dtype)
        columns = [self._attribute_encoder(at, X.iloc[:, i] if frame else X[:, i], dtype)
                   for at, i in zip(self.attributes, position)]
        allocate = column_major if frame else (lambda n, f, dtype: np.empty((n, f), dtype=dtype))

        def encode(start, stop):
            codes = allocate(stop - start, len(columns), dtype)
            unknown = {}
            for a, (at, column) in enumerate(zip(self.attributes, columns)):
                k = column(start, stop, codes[:, a])
                if k:
                    unknown[at.name] = k
            return codes, np.empty((stop - start, 0)), unknown

        return encode

    def _attribute_encoder(self, at, column, dtype):
        """``encode(start, stop, out) -> n_unknown`` of one attribute's column (see :meth:`encoder`)."""
        if at.kind == CATEGORICAL:
            return column_encoder(column, at.categories, dtype)
        values = numeric_values(column, at.name)
        table = integer_table(at, values.dtype) if values.dtype.kind in "iu" else None
        if table is not None:
            codes = integer_column_encoder(values, *table)

            def encode_integers(start, stop, out):
                codes(start, stop, out)
                return 0

            return encode_integers
        edges, n_bins = at.edges()[None, :], np.array([at.n_bins], dtype=np.int64)

        def encode_numbers(start, stop, out):
            bin_codes(values[start:stop, None], np.zeros(1, dtype=np.int64), edges, n_bins, out[:, None])
            return 0

        return encode_numbers

    def _integer_encoder(self, X, position, dtype):
        """:meth:`encoder` of a 2-D integer array: small lookup tables, one row-major pass per block."""
        n_cat = self.n_categorical
        tables = {a: integer_table(at, X.dtype) for a, at in enumerate(self.attributes)}
        tabled = [a for a, t in tables.items() if t is not None]
        lo, table, below, above = zip(*[tables[a] for a in tabled]) if tabled else ([],) * 4
        sources = np.asarray([position[a] for a in tabled], dtype=np.int64)
        targets = np.asarray(tabled, dtype=np.int64)
        rest = [(a, self._attribute_encoder(self.attributes[a], X[:, position[a]], dtype))
                for a, t in tables.items() if t is None]

        def encode(start, stop):
            codes = np.empty((stop - start, len(self.attributes)), dtype=dtype)
            integer_codes(X[start:stop], sources, lo, table, below, above, codes, targets)
            unknown = {}
            for a in (a for a in tabled if a < n_cat):  # integers are never missing: a categorical 0 is an unknown value
                k = (stop - start) - int(np.count_nonzero(codes[:, a]))
                if k:
                    unknown[self.attributes[a].name] = k
            for a, column in rest:
                k = column(start, stop, codes[:, a])
                if k:
                    unknown[self.attributes[a].name] = k
            return codes, np.empty((stop - start, 0)), unknown

        return encode

    def coded_view(self, X):
        """X itself when it is a uint8 array laid out as codes 1..M of every attribute, else None.

        Only the layout is checked, not the values: the caller must check them
        (see :func:`nbparallel.counting.count_rows`).
        """
        if isinstance(X, pd.DataFrame) or X.dtype != np.uint8 or self.n_categorical != X.shape[1]:
            return None
        if self.columns != [at.name for at in self.attributes]:
            return None
        if any(integer_range(at.categories) != (1, len(at.categories)) or len(at.categories) >= 255
               for at in self.attributes):
            return None
        return X

    def to_dict(self):
        """Plain values, for JSON."""
        return {
            "attributes": [at.to_dict() for at in self.attributes],
            "columns": list(self.columns),
            "classes": [_json_value(c, "target") for c in self.classes],
        }

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict`."""
        return cls([Attribute.from_dict(a) for a in d["attributes"]], list(d["columns"]), list(d["classes"]))


def scan_schema(dataset, *, n_bins=10, classes=None, split_every=2, verbose=False):
    """Run the schema pass over a dataset and build its :class:`Schema`.

    Returns
    -------
    schema : Schema
    scan : ColumnScan
        The merged summary (for example its row count).
    record : nbparallel.reduce.TreeRecord
    """
    known = set(dataset.ranges or ())
    scan, record = engine.run_pass(
        dataset.partitions,
        dataset.map(scan_partition, dataset.columns, dataset.kinds, known),
        merge_scans,
        split_every=split_every,
        name="nbparallel-schema",
        token=dataset.token,
        verbose=verbose,
    )
    return schema_of_scan(dataset, scan, n_bins, classes), scan, record


def schema_of_scan(dataset, scan, n_bins, classes):
    """The :class:`Schema` of a dataset from its merged :class:`ColumnScan`; records each partition's rows.

    Raises
    ------
    ValueError
        When the data holds no rows, or the target is continuous.
    """
    if scan.n_rows == 0:
        raise ValueError("the data holds no rows: at least one is needed")
    if len(scan.partition_rows) == len(dataset.partitions):
        dataset.partition_rows = list(scan.partition_rows)
    if any(isinstance(c, float) and not c.is_integer() for c in scan.classes):
        raise ValueError("Unknown label type: continuous. y must hold class labels, not continuous values")
    return Schema.from_scan(scan, dataset.columns, dataset.kinds, n_bins, classes, dataset.ranges)


def all_codes(codes, values, edges_list):
    """One uint16 code matrix of every attribute: the categorical codes, then the
    numeric values binned under ``edges_list`` (1 + bin, 0 = missing), any edges."""
    n_bins = np.array([len(e) + 1 for e in edges_list], dtype=np.int64)
    width = max([len(e) for e in edges_list] + [0])
    edges = np.full((len(edges_list), width), np.inf)
    for j, e in enumerate(edges_list):
        edges[j, : len(e)] = e
    binned = bin_values(np.asarray(values, dtype=np.float64), edges, n_bins)
    return np.hstack([codes.astype(np.uint16), binned.astype(np.uint16)])

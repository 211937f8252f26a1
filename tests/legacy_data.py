"""A frozen copy of the data layer before issue 8 (nbparallel/data.py at 03d6733), for exactness tests.

Only the schema pass and the counting of one partition are used: the tests check
that the new data layer gives bit-identical schemas and count tables.

Inputs to partitions, and the schema that encodes them.

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
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from nbparallel.engine import execution as engine
from nbparallel.kernels import bin_values, column_ranges

CATEGORICAL = "categorical"
NUMERIC = "numeric"
MAX_CATEGORIES = 65534


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
    """

    partitions: list
    columns: list
    kinds: list
    target: str | None = None
    weight: str | None = None
    n_rows: int | None = None
    token: str = ""

    def map(self, fn, *args):
        """A picklable ``part -> fn(*args, X, y, w)`` for :mod:`nbparallel.engine`."""
        return partial(_apply, fn, args, self.columns, self.target, self.weight)


def _unpack(part, columns, target, weight):
    """``(X, y, w)`` of a partition; X a DataFrame or a 2-D array."""
    if isinstance(part, tuple):
        return part
    X = part[columns]
    y = part[target].to_numpy() if target is not None else None
    w = part[weight].to_numpy() if weight is not None else None
    if w is not None:
        check_weights(w, weight)
    return X, y, w


def _apply(fn, args, columns, target, weight, part):
    return fn(*args, *_unpack(part, columns, target, weight))


def default_partitions(n_rows, n_workers, min_rows=65536):
    """Partitions for in-memory data: one per worker, none smaller than ``min_rows``.

    >>> default_partitions(10_000_000, 4), default_partitions(1000, 8)
    (4, 1)
    """
    return max(1, min(n_workers, math.ceil(n_rows / min_rows)))


def check_weights(w, name="sample_weight"):
    """Raise ValueError unless every weight is finite and non-negative."""
    w = np.asarray(w, dtype=np.float64)
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"{name} must hold finite, non-negative numbers; found NaN, infinite or negative values")
    return w


def kinds_for(names, dtypes, categorical_features):
    """Resolve ``categorical_features`` to kinds.

    "auto" takes the non-numeric columns, "all" every column, and a list of
    names or indices adds those numeric columns to the non-numeric ones.
    """
    numeric = [pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d) for d in dtypes]
    if isinstance(categorical_features, str) and categorical_features in ("auto", "all"):
        if categorical_features == "all":
            return [CATEGORICAL] * len(names)
        return [NUMERIC if is_number else CATEGORICAL for is_number in numeric]
    if isinstance(categorical_features, str) or not hasattr(categorical_features, "__iter__"):
        raise TypeError(
            "categorical_features must be 'auto', 'all' or a list of column names or "
            f"indices, got {categorical_features!r}"
        )
    chosen = set()
    for c in categorical_features:
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if not 0 <= c < len(names):
                raise ValueError(f"categorical_features index {c} is out of range for {len(names)} columns")
            chosen.add(names[c])
        elif c in names:
            chosen.add(c)
        else:
            raise ValueError(f"categorical_features names column {c!r}, which is not in the data {list(names)}")
    return [NUMERIC if is_number and n not in chosen else CATEGORICAL for n, is_number in zip(names, numeric)]


def is_path(X):
    return isinstance(X, (str, os.PathLike))


def read_files(path):
    """A Dask DataFrame over a CSV or Parquet file or directory, read lazily."""
    p = Path(path)
    if not p.exists():
        raise ValueError(f"data path {str(p)!r} does not exist")
    import dask.dataframe as dd

    suffixes = {f.suffix.lower() for f in (p.iterdir() if p.is_dir() else [p]) if f.is_file()}
    if suffixes & {".parquet", ".pq"} or (p.is_dir() and not suffixes & {".csv"}):
        return dd.read_parquet(str(p))
    if ".csv" in suffixes:
        return dd.read_csv(str(p / "*.csv") if p.is_dir() else str(p))
    raise ValueError(f"data path {str(p)!r} is neither CSV (.csv) nor Parquet (.parquet, .pq)")


def as_dataset(X, y=None, sample_weight=None, *, n_partitions=None, categorical_features="auto",
               require_target=True):
    """Turn any supported input into a :class:`Dataset`.

    Parameters
    ----------
    X : array-like, pandas.DataFrame, dask Array or DataFrame, str or PathLike
        The attributes; a path names a CSV or Parquet file or directory.
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
    """
    if n_partitions is not None and (
        isinstance(n_partitions, bool) or not isinstance(n_partitions, (int, np.integer))
    ):
        raise TypeError(f"n_partitions must be a positive int or None, got {n_partitions!r}")
    if n_partitions is not None and n_partitions < 1:
        raise ValueError(f"n_partitions must be >= 1, got {n_partitions}")
    if is_path(X):
        X = read_files(X)
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        return _dask_frame_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target)
    if isinstance(X, da.Array):
        return _dask_array_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target)
    return _memory_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target)


Y_REQUIRED = (
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


def column_roles(frame_columns, y, sample_weight, require_target):
    names = [str(c) for c in frame_columns]
    target = weight = None
    if isinstance(y, str):
        if y not in names:
            raise ValueError(f"target column {y!r} does not exist; columns are {names}")
        target = y
    elif y is None and require_target:
        raise ValueError(Y_REQUIRED)
    if isinstance(sample_weight, str):
        if sample_weight not in names:
            raise ValueError(f"sample_weight column {sample_weight!r} does not exist; columns are {names}")
        weight = sample_weight
    attributes = [n for n in names if n not in (target, weight)]
    return attributes, target, weight


def _dask_frame_dataset(ddf, y, sample_weight, n_partitions, categorical_features, require_target):
    if y is not None and not isinstance(y, str):
        raise TypeError("with a Dask DataFrame or a file, y must be the name of the target column")
    if sample_weight is not None and not isinstance(sample_weight, str):
        raise TypeError("with a Dask DataFrame or a file, sample_weight must be the name of a column")
    ddf = ddf.rename(columns={c: str(c) for c in ddf.columns})
    columns, target, weight = column_roles(ddf.columns, y, sample_weight, require_target)
    if not columns:
        raise ValueError("the data has no attribute columns besides the target")
    kinds = kinds_for(columns, [ddf.dtypes[c] for c in columns], categorical_features)
    if n_partitions is not None and n_partitions != ddf.npartitions:
        ddf = ddf.repartition(npartitions=n_partitions)
    return Dataset(list(ddf.to_delayed()), columns, kinds, target, weight, token=ddf._name)


def _dask_array_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target):
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got a Dask array of shape {X.shape}")
    if n_partitions is not None:
        X = X.rechunk({0: math.ceil(X.shape[0] / n_partitions)})
    X = X.rechunk({1: -1})
    chunks = X.chunks[0]
    parts_y = parts_w = [None] * len(chunks)
    if y is None and require_target:
        raise ValueError(Y_REQUIRED)
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
    kinds = kinds_for(columns, [X.dtype] * X.shape[1], categorical_features)
    return Dataset(parts, columns, kinds, n_rows=int(X.shape[0]), token=X.name)


def _checked_tuple(x, y, w):
    if w is not None:
        check_weights(w)
    return x, y, w


def _memory_dataset(X, y, sample_weight, n_partitions, categorical_features, require_target):
    target = None  # the target column's name, when y names one
    if isinstance(X, pd.DataFrame):
        frame = X.rename(columns={c: str(c) for c in X.columns})
        columns, target, weight = column_roles(frame.columns, y, sample_weight, require_target)
        kinds = kinds_for(columns, [frame.dtypes[c] for c in columns], categorical_features)
        X = frame[columns]
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
        kinds = kinds_for(columns, [X.dtype] * X.shape[1], categorical_features)
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
        if not sample_weight.any():
            raise ValueError("sample_weight is zero for every row: at least one positive weight is needed")
    P = n_partitions or default_partitions(n, engine.available_workers())
    bounds = np.linspace(0, n, min(P, n) + 1).astype(int) if P <= n else np.arange(n + 1)
    bounds = np.concatenate([bounds, np.full(P + 1 - len(bounds), n)])
    take = (lambda a, s, e: a.iloc[s:e]) if isinstance(X, pd.DataFrame) else (lambda a, s, e: a[s:e])
    parts = [
        (
            take(X, s, e),
            None if y is None else y[s:e],
            None if sample_weight is None else sample_weight[s:e],
        )
        for s, e in zip(bounds[:-1], bounds[1:])
    ]
    return Dataset(parts, columns, kinds, target=target, n_rows=n, token=str(id(X)))


# ------------------------------------------------------------------ schema


def _is_missing(values):
    return pd.isna(values)


def _integer_range(vocabulary):
    """``(lo, hi)`` when the vocabulary is every integer from lo to hi, else None."""
    if vocabulary and type(vocabulary[0]) is int and type(vocabulary[-1]) is int:
        lo, hi = vocabulary[0], vocabulary[-1]
        if hi - lo + 1 == len(vocabulary) and all(type(v) is int for v in vocabulary):
            return lo, hi
    return None


def _within(codes, sizes):
    """True when every column j of ``codes`` holds only 1..sizes[j]."""
    if len(codes) == 0:
        return True
    lo, hi = column_ranges(codes)
    return bool(np.all(lo >= 1) and np.all(hi <= sizes))


def _codes(vocabulary, values):
    """Codes 1..M of the values, 0 for missing or unseen ones."""
    values = values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)
    span = _integer_range(vocabulary) if values.dtype.kind in "iu" else None
    if span is not None and len(values):
        lo, hi = span
        if values.min() >= lo and values.max() <= hi:  # a shift, vectorised
            return values.astype(np.int64) - (lo - 1) if lo != 1 else values
    return _positions(vocabulary, values) + 1


def _positions(vocabulary, values):
    """Index of each value in the vocabulary; -1 for missing or unseen values."""
    values = values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)
    if values.dtype.kind in "iu" and vocabulary and all(type(v) is int for v in vocabulary):
        lo, hi = min(vocabulary), max(vocabulary)
        if hi - lo < 2**20:  # a lookup table: one gather per value
            table = np.full(hi - lo + 2, -1, dtype=np.int32)  # the last slot catches out-of-range values
            table[np.asarray(vocabulary) - lo] = np.arange(len(vocabulary))
            offset = values.astype(np.int64) - lo
            offset[(offset < 0) | (offset > hi - lo)] = hi - lo + 1
            return table[offset]
    return pd.Index(vocabulary, dtype=object).get_indexer(values.astype(object, copy=False))


def _observed(values, exact=False):
    """The distinct non-missing values of a column, as plain Python values.

    Unless ``exact``, an integer column's vocabulary is every integer from its
    smallest to its largest value (as scikit-learn's CategoricalNB takes
    0..max), found by a vectorised min/max; values in that range that never
    occur have zero counts and are removed from the calculations like any empty
    category. A range wider than ``MAX_CATEGORIES`` falls back to the exact set.
    """
    values = values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)
    if values.dtype.kind in "iu" and not exact:
        if not len(values):
            return set()
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < MAX_CATEGORIES:
            return set(range(lo, hi + 1))
    if values.dtype.kind in "biu":
        from nbparallel.kernels import seen_values

        return set(seen_values(values).tolist())
    uniq = pd.unique(pd.Series(values, dtype=object if values.dtype.kind == "O" else None))
    return {v.item() if isinstance(v, np.generic) else v for v in uniq if not _is_missing(v)}


@dataclass
class ColumnScan:
    """Summary of the schema pass for one partition (merged by union, min and max)."""

    values: list  # per attribute: set of values (categorical) or None
    lo: np.ndarray  # per attribute: min of numeric values (NaN if none)
    hi: np.ndarray
    classes: set = field(default_factory=set)
    n_rows: int = 0


def scan_partition(columns, kinds, X, y, w):
    """Schema summary of one partition: vocabularies, ranges, classes.

    Rows of weight zero are left out, as if absent.
    """
    if w is not None and np.any(w == 0):
        keep = np.asarray(w) > 0
        X = X[keep]
        y = None if y is None else np.asarray(y)[keep]
    frame = isinstance(X, pd.DataFrame)
    values = [None] * len(columns)
    numeric = [a for a, kind in enumerate(kinds) if kind == NUMERIC]
    categorical = [a for a, kind in enumerate(kinds) if kind == CATEGORICAL]
    if not frame and X.dtype.kind in "iu" and len(X) and categorical:
        lo_int, hi_int = column_ranges(X if len(categorical) == X.shape[1] else X[:, categorical])
        for a, low, high in zip(categorical, lo_int.tolist(), hi_int.tolist()):
            values[a] = set(range(low, high + 1)) if high - low < MAX_CATEGORIES else _observed(X[:, a])
    else:
        for a in categorical:
            values[a] = _observed(X.iloc[:, a] if frame else X[:, a])
    lo = np.full(len(columns), np.nan)
    hi = np.full(len(columns), np.nan)
    if numeric and len(X):
        block_lo, block_hi = column_ranges(_numeric_block(X, numeric, [columns[a] for a in numeric]))
        seen = block_lo <= block_hi  # else the column is all NaN here
        lo[numeric], hi[numeric] = np.where(seen, block_lo, np.nan), np.where(seen, block_hi, np.nan)
        infinite = np.isinf(lo) | np.isinf(hi)
        if infinite.any():
            name = columns[int(np.flatnonzero(infinite)[0])]
            raise ValueError(
                f"column {name!r} holds infinite values, which cannot be binned; "
                "replace them or mark the column categorical"
            )
    classes = _observed(y, exact=True) if y is not None else set()
    return ColumnScan(values, lo, hi, classes, len(X))


def _numeric_block(X, positions, names):
    """The numeric columns at ``positions`` as one float array (a view when possible)."""
    if isinstance(X, pd.DataFrame):
        try:
            return X.iloc[:, positions].to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            for i, name in zip(positions, names):
                _as_float(X.iloc[:, i], name)
            raise
    if positions == list(range(X.shape[1])) and X.dtype in (np.float64, np.float32):
        return X
    for i, name in zip(positions, names):
        if X.dtype.kind == "O":
            _as_float(X[:, i], name)
    return np.asarray(X[:, positions], dtype=np.float64)


def _as_float(col, name):
    try:
        if isinstance(col, pd.Series):
            return col.to_numpy(dtype=np.float64, na_value=np.nan)
        return np.asarray(col, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"column {name!r} is numeric in the schema but holds non-numeric values: {exc}") from None


def merge_scans(*scans):
    """Union of vocabularies and classes, min and max of ranges."""
    first = scans[0]
    values = [None if v is None else set(v) for v in first.values]
    lo, hi, classes, n = first.lo.copy(), first.hi.copy(), set(first.classes), first.n_rows
    for s in scans[1:]:
        for a, v in enumerate(s.values):
            if v is not None:
                values[a] |= v
        lo, hi = np.fmin(lo, s.lo), np.fmax(hi, s.hi)
        classes |= s.classes
        n += s.n_rows
    return ColumnScan(values, lo, hi, classes, n)


def sort_values(values):
    """Sort a vocabulary; mixed types sort by type name first."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, v))


@dataclass
class Attribute:
    """One attribute of the schema: a vocabulary, or a range cut in equal-width bins."""

    name: str
    kind: str
    categories: list | None = None
    lo: float | None = None
    hi: float | None = None
    n_bins: int | None = None

    @property
    def n_values(self):
        """Number of categories or bins."""
        return len(self.categories) if self.kind == CATEGORICAL else self.n_bins

    def edges(self):
        """Inner edges of the equal-width bins (right-closed, as in SPSS)."""
        if self.lo is None or np.isnan(self.lo):
            return np.zeros(self.n_bins - 1)
        return self.lo + (self.hi - self.lo) * np.arange(1, self.n_bins) / self.n_bins

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
        if d["kind"] != NUMERIC:
            raise ValueError(f"unknown attribute kind {d['kind']!r}")
        lo = np.nan if d["lo"] is None else float(d["lo"])
        hi = np.nan if d["hi"] is None else float(d["hi"])
        return cls(d["name"], NUMERIC, lo=lo, hi=hi, n_bins=int(d["n_bins"]))


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
    """The attributes in table order (categorical first, then numeric) and the classes."""

    attributes: list
    columns: list  # input column names, in input order
    classes: list

    @classmethod
    def from_scan(cls, scan, columns, kinds, n_bins, classes=None):
        """Build the schema from a merged :class:`ColumnScan`."""
        attrs = []
        for a, (name, kind) in enumerate(zip(columns, kinds)):
            if kind == CATEGORICAL:
                cats = sort_values(scan.values[a])
                if len(cats) > MAX_CATEGORIES:
                    raise ValueError(f"column {name!r} has {len(cats)} categories; at most {MAX_CATEGORIES} are supported")
                attrs.append(Attribute(name, CATEGORICAL, categories=cats))
            else:
                attrs.append(Attribute(name, NUMERIC, lo=float(scan.lo[a]), hi=float(scan.hi[a]), n_bins=n_bins))
        attrs.sort(key=lambda at: at.kind != CATEGORICAL)
        return cls(attrs, list(columns), sort_values(scan.classes) if classes is None else list(classes))

    @property
    def offsets(self):
        """Row offsets of the attributes in a count table (one missing row each)."""
        sizes = [at.n_values + 1 for at in self.attributes]
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

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
        codes = (_codes(self.classes, y) - 1).astype(np.int32)
        unknown = (codes < 0) & ~_is_missing(y)
        if w is not None:
            codes[unknown & (np.asarray(w) == 0)] = 0  # adds weight zero
            unknown &= np.asarray(w) > 0
        if np.any(unknown):
            raise ValueError(f"y holds classes not seen in training: {sort_values(set(np.asarray(y)[unknown].tolist()))[:5]}")
        return codes

    def split(self, X):
        """``(codes, values)``: categorical codes (0 = missing or unseen) and raw numeric values.

        Data already coded 1..M in a uint8 array is used as it is, without a copy.
        """
        frame = isinstance(X, pd.DataFrame)
        position = {c: i for i, c in enumerate(self.columns)}
        n_cat = self.n_categorical
        categorical = self.attributes[:n_cat]
        dtype = np.uint8 if all(at.n_values < 255 for at in categorical) else np.uint16
        numeric = [position[at.name] for at in self.attributes[n_cat:]]
        values = _numeric_block(X, numeric, [at.name for at in self.attributes[n_cat:]])
        coded = self.coded_view(X)
        if coded is not None and _within(coded, [len(at.categories) for at in categorical]):
            return coded, values
        codes = np.empty((len(X), n_cat), dtype=dtype, order="F")
        for a, at in enumerate(categorical):
            i = position[at.name]
            codes[:, a] = _codes(at.categories, X.iloc[:, i] if frame else X[:, i])
        return codes, values

    def coded_view(self, X):
        """X itself when it is a uint8 array laid out as codes 1..M of every attribute, else None.

        Only the layout is checked, not the values: the caller must check them
        (see :func:`nbparallel.summaries.counts.count_rows`).
        """
        if isinstance(X, pd.DataFrame) or X.dtype != np.uint8 or self.n_categorical != X.shape[1]:
            return None
        if self.columns != [at.name for at in self.attributes]:
            return None
        if any(_integer_range(at.categories) != (1, len(at.categories)) or len(at.categories) >= 255
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
    record : nbparallel.engine.reduce.TreeRecord
    """
    scan, record = engine.run_pass(
        dataset.partitions,
        dataset.map(scan_partition, dataset.columns, dataset.kinds),
        merge_scans,
        split_every=split_every,
        name="nbparallel-schema",
        token=dataset.token,
        verbose=verbose,
    )
    if scan.n_rows == 0:
        raise ValueError("the data holds no rows: at least one is needed")
    return Schema.from_scan(scan, dataset.columns, dataset.kinds, n_bins, classes), scan, record


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


def legacy_count(schema, X, y, w=None):
    """One partition's count table as the old counting pass made it (compact layout)."""
    from nbparallel.kernels import count_partition
    from nbparallel.summaries.counts import CountTable

    classes = schema.encode_classes(y, w)
    codes, values = schema.split(X)
    table, totals, all_missing, n_missing = count_partition(
        codes, values, classes, w, schema.offsets, schema.count_edges(), len(schema.classes))
    return CountTable(table, schema.offsets, totals, all_missing, int(n_missing))


def legacy_fit_counts(X, y=None, w=None, *, n_partitions=1, n_bins=10, categorical_features="auto"):
    """The old schema pass and counting pass, run serially over the old partitions."""
    from nbparallel.summaries.counts import merge_tables

    dataset = as_dataset(X, y, w, n_partitions=n_partitions, categorical_features=categorical_features)
    parts = [_unpack(p, dataset.columns, dataset.target, dataset.weight) for p in dataset.partitions]
    scan = merge_scans(*[scan_partition(dataset.columns, dataset.kinds, *p) for p in parts])
    schema = Schema.from_scan(scan, dataset.columns, dataset.kinds, n_bins)
    return schema, merge_tables(*[legacy_count(schema, *p) for p in parts])

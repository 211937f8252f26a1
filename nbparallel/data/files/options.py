"""CSV and Parquet files as partitions, read by pyarrow, typed, column by column.

:func:`file_dataset` lists a file or a directory, checks on the client that
every file has the same columns (and that Parquet footers are sound), fixes
each column's type once, and returns a :class:`nbparallel.data.dataset.Dataset` whose
partitions are ``dask.delayed`` reads: the rows are read inside the task that
uses them, as pandas DataFrames of only the needed columns. String columns
come as pandas ``category`` columns converted from Arrow dictionary arrays,
each partition with its own small set of categories; numeric columns are
numpy-backed.

A small Parquet directory (under :data:`SMALL_PARQUET_BYTES`, data that stays
in this process by :func:`nbparallel.engine.execution.local_below`) is read when the
dataset is made instead, each file opened once for its footer and rows on a
thread per core; its partitions are Arrow tables, which the one-pass count
counts from their dictionary indices
(:func:`nbparallel.summaries.dictionary_counts.count_arrow_table`) and other passes
convert to pandas as above.

Parquet files are split into partitions by row groups where they are large;
their row counts come from the footers, and the numeric columns' ranges from
the row-group statistics where every row group has exact ones. CSV files are
one partition each; their column types are inferred once, from the first
file (a column empty there takes its type from the next files), and fixed
for every file.
"""

from __future__ import annotations

import os
from pathlib import Path

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.zst")


#: A Parquet file's row groups are grouped into partitions of about this many rows.
ROWS_PER_PARTITION = 2**20


#: By default, neighbouring Parquet files (or runs of row groups) smaller than this are grouped into one
#: partition, as in-memory data is (:func:`nbparallel.data.dataset.default_partitions`).
MIN_PARTITION_ROWS = 2**18


#: The same for CSV files, whose rows are not counted beforehand: about 2^18 rows of a few short columns.
MIN_PARTITION_BYTES = 2**23


#: Parquet files smaller than this in all are read when the dataset is made, each file opened once
#: (see :func:`read_parquet_files`), where they stay in this process (:func:`nbparallel.engine.execution.local_below`).
SMALL_PARQUET_BYTES = 2**24


class Files(os.PathLike):
    """A file or directory path with options for reading it; use it wherever a path goes.

    Parameters
    ----------
    path : str or PathLike
    na_values : str or list of str, optional
        Strings that mean a missing value, besides pandas' defaults (for
        example Weka's ``"?"``). In CSV files they apply to every column, so
        a numeric column with ``?`` stays numeric; in Parquet files they
        apply to string values.
    numeric_features : list of str, optional
        Columns read as numbers (float64) in every file, whatever their
        values look like: a CSV column is parsed as float64 from the start,
        a Parquet text column is parsed after reading. A value that is
        neither a number nor missing (``na_values``) raises ValueError naming
        the column, the file and the value; dates raise TypeError. The
        estimators' ``numeric_features`` does the same for their data.
    drop : list of str, optional
        Columns that are no attributes (ids, leaks): no pass reads them. A
        name that is no column of the files raises ValueError naming it, and
        so does dropping the target or weight column.

    >>> from nbparallel import NaiveBayes
    >>> NaiveBayes().fit(Files("credit.csv", na_values="?", drop=["id"]), "class")  # doctest: +SKIP
    """

    def __init__(self, path, *, na_values=None, numeric_features=None, drop=None):
        if isinstance(na_values, str):
            na_values = [na_values]
        if na_values is not None and not all(isinstance(v, str) for v in na_values):
            raise TypeError(f"na_values must be a string or a list of strings, got {na_values!r}")
        if numeric_features is not None and (isinstance(numeric_features, str) or not all(
                isinstance(c, str) for c in numeric_features)):
            raise TypeError(f"numeric_features must be a list of column names, got {numeric_features!r}")
        if drop is not None and (isinstance(drop, str) or not all(isinstance(c, str) for c in drop)):
            raise TypeError(f"drop must be a list of column names, got {drop!r}")
        self.path = os.fspath(path)
        self.na_values = None if na_values is None else tuple(na_values)
        self.numeric_features = None if numeric_features is None else tuple(numeric_features)
        self.drop = () if drop is None else tuple(drop)

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return (f"Files({self.path!r}, na_values={self.na_values!r}, numeric_features={self.numeric_features!r}, "
                f"drop={self.drop!r})")


def dropped_columns(path, names, roles=()):
    """The columns a :class:`Files` path drops (``()`` for a plain path), checked against the files' column
    ``names`` and the target and weight columns named in ``roles``; ValueError naming a wrong one."""
    drop = path.drop if isinstance(path, Files) else ()
    for name in drop:
        if name not in names:
            raise ValueError(f"drop names column {name!r}, which is not in the data {list(names)}")
        if name in roles:
            raise ValueError(f"column {name!r} is both dropped and named as the target or weight column")
    return drop


def _kind_of(path):
    name = path.name.lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(CSV_SUFFIXES):
        return "csv"
    return None


def list_files(path):
    """The data files of a file or directory path, sorted, and their format.

    Files directly in a directory are read; hidden files and names starting
    with ``_`` (``_SUCCESS``, ``_metadata``) are skipped. Suffixes are
    matched without regard to case.

    Returns
    -------
    files : list of pathlib.Path
    kind : "parquet" or "csv"
    """
    p = Path(path)
    if not p.exists():
        raise ValueError(f"data path {str(p)!r} does not exist")
    if p.is_file():
        kind = _kind_of(p)
        if kind is None:
            raise ValueError(f"data path {str(p)!r} is neither CSV (.csv) nor Parquet (.parquet, .pq)")
        return [p], kind
    entries = sorted(f for f in p.iterdir() if not f.name.startswith((".", "_")))
    by_kind = {}
    for f in entries:
        if f.is_file() and _kind_of(f) is not None:
            by_kind.setdefault(_kind_of(f), []).append(f)
    if len(by_kind) > 1:
        raise ValueError(
            f"directory {str(p)!r} holds both Parquet files ({by_kind['parquet'][0].name}, ...) and CSV files "
            f"({by_kind['csv'][0].name}, ...): put each kind in its own directory")
    if not by_kind:
        nested = [f.name for f in entries if f.is_dir()]
        hint = f"; its subdirectories {nested[:3]} are not read" if nested else ""
        raise ValueError(f"directory {str(p)!r} holds no CSV (.csv) or Parquet (.parquet, .pq) files{hint}")
    (kind, files), = by_kind.items()
    return files, kind


def file_signature(path):
    """What identifies a file's contents cheaply: its size and modification time."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def check_same_names(first, names, path, other_names):
    """Raise ValueError naming the first column one file has and the other lacks."""
    for name in names:
        if name not in other_names:
            raise ValueError(f"file {str(path)!r} has no column {name!r}, which {str(first)!r} has")
    for name in other_names:
        if name not in names:
            raise ValueError(f"file {str(path)!r} has a column {name!r}, which {str(first)!r} does not have")


def check_unique(names, path):
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(f"file {str(path)!r} has two columns named {name!r}")
        seen.add(name)

"""CSV, Parquet and ARFF files as partitions, read by pyarrow, typed, column by column.

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
from dataclasses import dataclass
from pathlib import Path

from nbparallel.data.files.filesystems import RemoteFile, list_remote, remote_info, signature_of, store_of

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.zst", ".tsv", ".tsv.gz", ".tsv.bz2", ".tsv.zst")
ARFF_SUFFIXES = (".arff", ".arff.gz", ".arff.bz2", ".arff.zst")


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
    storage_options : dict, optional
        fsspec options of a URL's filesystem (``s3://``, ``gs://``,
        ``abfs://``, ...): credentials, ``endpoint_url``, ``anon`` and so on,
        as ``dask.dataframe.read_parquet`` takes them. The files are listed
        and read by pyarrow through that filesystem, inside the tasks that
        use them. A URL without options uses the environment's credentials.
    delimiter : str, optional
        The one character between the fields of a CSV file (``","`` by
        default, a tab for ``.tsv`` files), such as ``";"``.
    encoding : str, optional
        The text encoding of CSV and ARFF files (``"utf-8"`` by default),
        such as ``"latin-1"``.

    Examples
    --------
    >>> from nbparallel import Files
    >>> Files("data/", delimiter=";", na_values="?").delimiter
    ';'

    Wherever a path goes (these read files that are not here)::

        NaiveBayes().fit(Files("credit.csv", na_values="?", drop=["id"]), "class")
        NaiveBayes().fit(Files("s3://bucket/credit/", storage_options={"anon": True}), "class")
    """

    def __init__(self, path, *, na_values=None, numeric_features=None, drop=None, storage_options=None,
                 delimiter=None, encoding=None):
        if isinstance(na_values, str):
            na_values = [na_values]
        if na_values is not None and not all(isinstance(v, str) for v in na_values):
            raise TypeError(f"na_values must be a string or a list of strings, got {na_values!r}")
        if numeric_features is not None and (isinstance(numeric_features, str) or not all(
                isinstance(c, str) for c in numeric_features)):
            raise TypeError(f"numeric_features must be a list of column names, got {numeric_features!r}")
        if drop is not None and (isinstance(drop, str) or not all(isinstance(c, str) for c in drop)):
            raise TypeError(f"drop must be a list of column names, got {drop!r}")
        if isinstance(path, Files):  # its place (and store options, unless given anew) with these read options
            storage_options = path.storage_options if storage_options is None else storage_options
            path = path.path
        if delimiter is not None and not (isinstance(delimiter, str) and len(delimiter) == 1
                                          and delimiter not in "\r\n\"'"):
            raise ValueError(f"delimiter must be one character (not a quote or a line end), got {delimiter!r}")
        if encoding is not None:
            import codecs

            if not isinstance(encoding, str):
                raise TypeError(f"encoding must be the name of a text encoding, got {encoding!r}")
            try:
                encoding = codecs.lookup(encoding).name
            except LookupError:
                raise ValueError(f"encoding {encoding!r} is not a known text encoding (such as 'utf-8', "
                                 "'latin-1', 'cp1252')") from None
        self.store, self.path = store_of(path, storage_options)
        self.storage_options = None if self.store is None else self.store.options
        self.na_values = None if na_values is None else tuple(na_values)
        self.numeric_features = None if numeric_features is None else tuple(numeric_features)
        self.drop = () if drop is None else tuple(drop)
        self.delimiter = delimiter
        self.encoding = encoding

    def __fspath__(self):
        return self.path

    def __repr__(self):
        extra = "".join(f", {k}={v!r}" for k, v in (("delimiter", self.delimiter), ("encoding", self.encoding))
                        if v is not None)
        if self.storage_options:  # their keys only: values may be credentials
            extra += f", storage_options={{{', '.join(repr(k) + ': ...' for k in sorted(self.storage_options))}}}"
        return (f"Files({self.path!r}, na_values={self.na_values!r}, numeric_features={self.numeric_features!r}, "
                f"drop={self.drop!r}{extra})")


def files_of(path):
    """``path`` as a :class:`Files` (a plain path or URL gets the default options)."""
    return path if isinstance(path, Files) else Files(path)


@dataclass(frozen=True)
class ReadOptions:
    """How the rows of text files are read: what a partition's read needs besides the columns and types."""

    #: strings read as missing, besides pandas' defaults
    na_values: tuple | None = None
    #: the CSV field delimiter (None: ``","``, or a tab for ``.tsv`` files)
    delimiter: str | None = None
    #: the text encoding of CSV and ARFF files (None: UTF-8)
    encoding: str | None = None
    #: ``((column, token), ...)``: CSV columns of numbers whose one other token is read as missing
    missing_tokens: tuple = ()

    @classmethod
    def of(cls, path):
        """The read options of a path (:class:`Files` or plain); a :class:`ReadOptions` or a tuple of
        ``na_values`` (the older form) is taken as it is."""
        if isinstance(path, ReadOptions):
            return path
        if isinstance(path, Files):
            return cls(path.na_values, path.delimiter, path.encoding)
        if isinstance(path, (tuple, list)):
            return cls(tuple(path))
        return cls()


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


def kind_of(name):
    """The format of a file by its name's suffix (any case): "parquet", "csv", "arff" or None.

    >>> kind_of("a.PARQUET"), kind_of("b.tsv"), kind_of("iris.arff"), kind_of("notes.txt")
    ('parquet', 'csv', 'arff', None)
    """
    name = name.lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(CSV_SUFFIXES):
        return "csv"
    if name.endswith(ARFF_SUFFIXES):
        return "arff"
    return None


_KINDS_NAMED = "CSV (.csv, .tsv), ARFF (.arff) or Parquet (.parquet, .pq)"
_NAMES = {"parquet": "Parquet", "csv": "CSV", "arff": "ARFF"}


def list_files(path):
    """The data files of a file or directory path or URL, sorted, and their format.

    Files directly in a directory are read; hidden files and names starting
    with ``_`` (``_SUCCESS``, ``_metadata``) are skipped. Suffixes are
    matched without regard to case. A URL (or a :class:`Files` of one) is
    listed through its filesystem, once.

    Returns
    -------
    files : list of pathlib.Path, or of :class:`~nbparallel.data.files.filesystems.RemoteFile` for a URL
    kind : "parquet", "csv" or "arff"
    """
    store, text = (path.store, path.path) if isinstance(path, Files) else store_of(path)
    if store is not None:
        shape, entries = list_remote(text, store)
        if shape == "file":
            if kind_of(entries[0].name) is None:
                raise ValueError(f"data path {text!r} is neither {_KINDS_NAMED}")
            return entries, kind_of(entries[0].name)
        files = sorted((e for e in entries if isinstance(e, RemoteFile) and not e.name.startswith((".", "_"))),
                       key=lambda e: e.name)
        nested = [e[:-1] for e in entries if isinstance(e, str) and not e.startswith((".", "_"))]
        return _one_kind(text, files, nested)
    p = Path(text)
    if not p.exists():
        raise ValueError(f"data path {str(p)!r} does not exist")
    if p.is_file():
        kind = kind_of(p.name)
        if kind is None:
            raise ValueError(f"data path {str(p)!r} is neither {_KINDS_NAMED}")
        return [p], kind
    entries = sorted(f for f in p.iterdir() if not f.name.startswith((".", "_")))
    return _one_kind(str(p), [f for f in entries if f.is_file()], [f.name for f in entries if f.is_dir()])


def _one_kind(directory, files, nested):
    by_kind = {}
    for f in files:
        if kind_of(f.name) is not None:
            by_kind.setdefault(kind_of(f.name), []).append(f)
    if len(by_kind) > 1:
        a, b = [k for k in ("parquet", "csv", "arff") if k in by_kind][:2]
        raise ValueError(
            f"directory {directory!r} holds both {_NAMES[a]} files ({by_kind[a][0].name}, ...) and {_NAMES[b]} "
            f"files ({by_kind[b][0].name}, ...): put each kind in its own directory")
    if not by_kind:
        hint = f"; its subdirectories {nested[:3]} are not read" if nested else ""
        raise ValueError(f"directory {directory!r} holds no {_KINDS_NAMED} files{hint}")
    (kind, found), = by_kind.items()
    return found, kind


def file_signature(path, store=None):
    """What identifies a file's contents cheaply: its size and modification time (or, in a store, the
    size and version its listing gave)."""
    if isinstance(path, RemoteFile):
        return path.signature
    if store is not None:
        info = remote_info(str(path), store)
        return int(info.get("size") or 0), signature_of(info)[1]
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def file_size(path):
    """The size in bytes of a local path or a listed :class:`RemoteFile`."""
    return path.size if isinstance(path, RemoteFile) else os.stat(path).st_size


def unit_store(path):
    """The :class:`Store` of a listed file (None for a local one)."""
    return path.store if isinstance(path, RemoteFile) else None


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

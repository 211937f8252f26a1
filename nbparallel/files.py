"""CSV and Parquet files as partitions, read by pyarrow, typed, column by column.

:func:`file_dataset` lists a file or a directory, checks on the client that
every file has the same columns (and that Parquet footers are sound), fixes
each column's type once, and returns a :class:`nbparallel.data.Dataset` whose
partitions are ``dask.delayed`` reads: the rows are read inside the task that
uses them, as pandas DataFrames of only the needed columns. String columns
come as pandas ``category`` columns converted from Arrow dictionary arrays,
each partition with its own small set of categories; numeric columns are
numpy-backed.

A small Parquet directory (under :data:`SMALL_PARQUET_BYTES`, data that stays
in this process by :func:`nbparallel.engine.local_below`) is read when the
dataset is made instead, each file opened once for its footer and rows on a
thread per core; its partitions are Arrow tables, which the one-pass count
counts from their dictionary indices
(:func:`nbparallel.dictionary_counts.count_arrow_table`) and other passes
convert to pandas as above.

Parquet files are split into partitions by row groups where they are large;
their row counts come from the footers, and the numeric columns' ranges from
the row-group statistics where every row group has exact ones. CSV files are
one partition each; their column types are inferred once, from the first
file (a column empty there takes its type from the next files), and fixed
for every file.
"""

from __future__ import annotations

import csv
import functools
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.zst")

#: A Parquet file's row groups are grouped into partitions of about this many rows.
ROWS_PER_PARTITION = 2**20
#: By default, neighbouring Parquet files (or runs of row groups) smaller than this are grouped into one
#: partition, as in-memory data is (:func:`nbparallel.data.default_partitions`).
MIN_PARTITION_ROWS = 2**18
#: The same for CSV files, whose rows are not counted beforehand: about 2^18 rows of a few short columns.
MIN_PARTITION_BYTES = 2**23
#: Parquet files smaller than this in all are read when the dataset is made, each file opened once
#: (see :func:`_read_parquet_files`), where they stay in this process (:func:`nbparallel.engine.local_below`).
SMALL_PARQUET_BYTES = 2**24

#: pandas' default missing-value strings (pyarrow's list plus ``<NA>`` and ``None``).
NA_VALUES = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
             "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")

_ARROW_WRITER = re.compile(r"parquet-cpp-arrow version (\d+)\.")


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

    >>> from nbparallel import NaiveBayes
    >>> NaiveBayes().fit(Files("credit.csv", na_values="?"), "class")  # doctest: +SKIP
    """

    def __init__(self, path, *, na_values=None, numeric_features=None):
        if isinstance(na_values, str):
            na_values = [na_values]
        if na_values is not None and not all(isinstance(v, str) for v in na_values):
            raise TypeError(f"na_values must be a string or a list of strings, got {na_values!r}")
        if numeric_features is not None and (isinstance(numeric_features, str) or not all(
                isinstance(c, str) for c in numeric_features)):
            raise TypeError(f"numeric_features must be a list of column names, got {numeric_features!r}")
        self.path = os.fspath(path)
        self.na_values = None if na_values is None else tuple(na_values)
        self.numeric_features = None if numeric_features is None else tuple(numeric_features)

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return f"Files({self.path!r}, na_values={self.na_values!r}, numeric_features={self.numeric_features!r})"


# ------------------------------------------------------------------ listing


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


def _signature(path):
    """What identifies a file's contents cheaply: its size and modification time."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


# ------------------------------------------------------------------ pieces


@dataclass(frozen=True)
class Unit:
    """A run of one file's rows: the whole file, or some of its Parquet row groups."""

    path: str
    signature: tuple
    row_groups: tuple | None = None
    n_rows: int | None = None


@dataclass(frozen=True)
class Piece:
    """What one partition reads: units read and concatenated, then rows ``k`` of ``m`` equal slices."""

    units: tuple
    k: int = 0
    m: int = 1

    @property
    def n_rows(self):
        """Rows of the partition, when the files' metadata says."""
        if any(u.n_rows is None for u in self.units):
            return None
        total = sum(u.n_rows for u in self.units)
        return total * (self.k + 1) // self.m - total * self.k // self.m


def pieces(units, n_partitions=None):
    """Partitions over the units: their own, or exactly ``n_partitions``.

    Fewer partitions than units group neighbouring units; more split units
    into equal row slices (each slice reads its unit).

    >>> [len(p.units) for p in pieces([Unit(str(i), ()) for i in range(5)], 2)]
    [3, 2]
    >>> [(p.k, p.m) for p in pieces([Unit("a", ()), Unit("b", ())], 3)]
    [(0, 2), (1, 2), (0, 1)]
    """
    if n_partitions is None or n_partitions == len(units):
        return [Piece((u,)) for u in units]
    if n_partitions < len(units):
        return [Piece(tuple(units[i] for i in group))
                for group in np.array_split(np.arange(len(units)), n_partitions)]
    per_unit = [n_partitions // len(units) + (i < n_partitions % len(units)) for i in range(len(units))]
    return [Piece((u,), k, m) for u, m in zip(units, per_unit) for k in range(m)]


def default_pieces(units, n_workers):
    """Each unit its own partition, neighbouring small units grouped.

    A partition costs a task, a merge and per-column work whatever its size:
    40 Parquet files of 2,500 rows took 10x DuckDB's time read one per
    partition; of 25,000 rows, 7.6 ns/cell in groups of 2^16 rows, 5.4 in
    groups of 2^18. Units are grouped until a group holds ``MIN_PARTITION_ROWS``
    rows (``MIN_PARTITION_BYTES`` bytes for CSV files), or its share of the
    whole when ``n_workers`` groups would be smaller, so that every worker
    still gets one.

    >>> units = [Unit(str(i), (0, 0), None, 1000) for i in range(10)]
    >>> [len(p.units) for p in default_pieces(units, 2)], [len(p.units) for p in default_pieces(units, 4)]
    ([5, 5], [3, 3, 3, 1])
    """
    rows = all(u.n_rows is not None for u in units)
    sizes = [u.n_rows if rows else u.signature[0] for u in units]
    target = min(MIN_PARTITION_ROWS if rows else MIN_PARTITION_BYTES, sum(sizes) / max(n_workers, 1))
    groups, group, size = [], [], 0
    for unit, unit_size in zip(units, sizes):
        group.append(unit)
        size += unit_size
        if size >= target:
            groups.append(Piece(tuple(group)))
            group, size = [], 0
    return groups + ([Piece(tuple(group))] if group else [])


# ------------------------------------------------------------------ Parquet


def _parquet_file(path, source=None, **options):
    """``pyarrow.parquet.ParquetFile`` of ``path`` (read from ``source`` when given, such as its bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path if source is None else source, **options)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"{path} is not a readable Parquet file: {exc}") from None


def _row_group_units(path, metadata, signature):
    """Units of about :data:`ROWS_PER_PARTITION` rows: runs of neighbouring row groups."""
    runs, run, rows = [], [], 0
    for g in range(metadata.num_row_groups):
        run.append(g)
        rows += metadata.row_group(g).num_rows
        if rows >= ROWS_PER_PARTITION:
            runs.append((tuple(run), rows))
            run, rows = [], 0
    if run or not runs:
        runs.append((tuple(run), rows))
    if len(runs) == 1:
        return [Unit(path, signature, None, metadata.num_rows)]
    return [Unit(path, signature, groups, n) for groups, n in runs]


def _exact_range(metadata, column, arrow_type):
    """``(lo, hi)`` of a numeric column over every row group, or None when not exactly known.

    Integer statistics are exact min/max in every conforming writer. Float
    statistics are trusted only from Arrow's writer (1.0 and later), which
    leaves NaN out of min/max; a NaN or infinite bound is not trusted (the
    schema pass then finds the range itself, and raises on infinite values).
    """
    import pyarrow as pa

    integer = pa.types.is_integer(arrow_type) and arrow_type != pa.uint64()
    floating = pa.types.is_float64(arrow_type) or pa.types.is_float32(arrow_type)
    if not (integer or floating):
        return None
    if floating:
        writer = _ARROW_WRITER.match(metadata.created_by or "")
        if writer is None or int(writer.group(1)) < 1:
            return None
    index = metadata.schema.names.index(column)
    lo = hi = None
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        if group.num_rows == 0:
            continue
        stats = group.column(index).statistics
        if stats is None or not stats.has_min_max:
            return None
        lo = stats.min if lo is None else min(lo, stats.min)
        hi = stats.max if hi is None else max(hi, stats.max)
    if lo is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    return float(lo), float(hi)


def _index_columns(schema):
    """Columns that hold a pandas index (written by ``DataFrame.to_parquet``), not data."""
    meta = schema.pandas_metadata or {}
    return {c for c in meta.get("index_columns", []) if isinstance(c, str)}


def _parquet_layout(files, opened=None):
    """Units, column types, row count and exact numeric ranges of Parquet files.

    A column whose type is ``null`` in the first file (all missing) takes
    its type from the next file that has one. ``opened`` holds each file's
    ``(metadata, signature, table)`` when the files were read already.
    """
    import pyarrow as pa

    units, schema, first, n_rows, ranges = [], None, None, 0, {}
    for i, path in enumerate(files):
        metadata, signature = opened[i][:2] if opened else (_parquet_file(str(path)).metadata, _signature(path))
        file_schema = metadata.schema.to_arrow_schema()
        if schema is None:
            schema, first = file_schema, path
            _check_unique(schema.names, path)
            types = {f.name: f.type for f in schema if f.name not in _index_columns(schema)}
            ranges = {name: _exact_range(metadata, name, t) for name, t in types.items()}
        else:
            _check_same_columns(first, schema, path, file_schema)
            for name, span in ranges.items():
                if types[name] == pa.null():
                    types[name] = file_schema.field(name).type
                other = None if span is None else _exact_range(metadata, name, file_schema.field(name).type)
                ranges[name] = None if other is None else (min(span[0], other[0]), max(span[1], other[1]))
        units += _row_group_units(str(path), metadata, signature)
        n_rows += metadata.num_rows
    return units, types, n_rows, {k: v for k, v in ranges.items() if v is not None}


def _kind_of_type(t):
    """A coarse kind of an Arrow type, for comparing files: number, text, bool or the type."""
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t):
        return "number"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "text"
    return str(t)


def _check_same_names(first, names, path, other_names):
    """Raise ValueError naming the first column one file has and the other lacks."""
    for name in names:
        if name not in other_names:
            raise ValueError(f"file {str(path)!r} has no column {name!r}, which {str(first)!r} has")
    for name in other_names:
        if name not in names:
            raise ValueError(f"file {str(path)!r} has a column {name!r}, which {str(first)!r} does not have")


def _check_same_columns(first, schema, path, other):
    if other.equals(schema, check_metadata=False):
        return
    names = list(schema.names)
    _check_same_names(first, names, path, list(other.names))
    for name in names:
        a, b = schema.field(name).type, other.field(name).type
        if "null" not in (str(a), str(b)) and _kind_of_type(a) != _kind_of_type(b):
            raise ValueError(f"column {name!r} is {b} in file {str(path)!r} but {a} in {str(first)!r}")


def _is_text(t):
    import pyarrow as pa

    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _read_parquet_unit(unit, columns, types):
    f = _parquet_file(unit.path, read_dictionary=[c for c in columns if _is_text(types[c])],
                      page_checksum_verification=True)
    if unit.row_groups is None:
        return f.read(columns=columns, use_threads=False)
    return f.read_row_groups(list(unit.row_groups), columns=columns, use_threads=False)


def _read_parquet_files(files):
    """Each file's ``(metadata, signature, table)``, every file opened once, on a thread per core; None
    for files that are not small.

    Small files (under :data:`SMALL_PARQUET_BYTES` in all, and under
    :func:`nbparallel.engine.local_below` in memory, as estimated from the
    first file) have their footers and rows read together: opening a file cost
    as much as reading 2,500 rows of it (about 0.1 ms), and reading footers
    first, then rows, opened each file twice. The string columns of the first
    file are read as dictionaries; a string column of another file that is not
    (all missing in the first file) is dictionary-encoded after reading. Rows
    are read only while the files' estimated size in memory stays under the
    local threshold (the files may not be alike): once it is spent, every
    ``table`` is None, and the footers are still given.
    """
    from . import engine

    budget = engine.local_below_bytes()
    sizes = [os.stat(f).st_size for f in files]
    if sum(sizes) >= min(SMALL_PARQUET_BYTES, budget):
        return None
    first = _parquet_file(str(files[0])).metadata
    if _size_in_memory(first) * sum(sizes) / max(sizes[0], 1) >= budget:
        return None
    text = [f.name for f in first.schema.to_arrow_schema() if _is_text(f.type)]
    n = min(len(files), os.cpu_count() or 1)  # the local pool's threads
    groups = [files[len(files) * k // n : len(files) * (k + 1) // n] for k in range(n)]
    left = _Budget(budget)
    opened = engine._map_locally([functools.partial(_open_parquet_group, text, left)] * n, groups)
    opened = [one for group in opened for one in group]
    if left.spent():
        return [(metadata, signature, None) for metadata, signature, _ in opened]
    return opened


class _Budget:
    """Bytes that threads draw from, under a lock."""

    def __init__(self, n_bytes):
        import threading

        self.left, self.lock = n_bytes, threading.Lock()

    def draw(self, n_bytes):
        """Take ``n_bytes``; True unless the budget is spent."""
        with self.lock:
            self.left -= n_bytes
            return self.left >= 0

    def spent(self):
        return self.left < 0


def _open_parquet_group(text, left, paths):
    return [_open_parquet(str(path), text, left) for path in paths]


def _open_parquet(path, text, left):
    """``(metadata, signature, table)`` of a whole Parquet file, its string columns as dictionaries; no
    table once the :class:`_Budget` ``left`` is spent (the file's footer only is read then).

    The file's bytes are read at once, then parsed: 40 files of 2,500 rows
    took 23 ms to read so on one thread, 27-29 ms opened by path.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    signature = _signature(path)
    if left.spent():
        return _parquet_file(path).metadata, signature, None
    with open(path, "rb") as file:
        source = pa.BufferReader(file.read())
    try:
        f = _parquet_file(path, source, read_dictionary=text, page_checksum_verification=True)
    except KeyError:  # a column of the first file missing here: the layout check names it
        f = _parquet_file(path, source)
    if not left.draw(_size_in_memory(f.metadata)):
        return f.metadata, signature, None
    try:
        table = f.read(use_threads=False)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"cannot read parquet file {path!r}: {exc}") from None
    for i, field in enumerate(table.schema):
        if _is_text(field.type):
            table = table.set_column(i, field.name, pc.dictionary_encode(table.column(i)))
    return f.metadata, signature, table


def _size_in_memory(metadata):
    """A Parquet file's estimated bytes in memory: its uncompressed size, and at least 4 bytes a value (a
    dictionary index)."""
    uncompressed = sum(metadata.row_group(g).total_byte_size for g in range(metadata.num_row_groups))
    return max(uncompressed, 4 * metadata.num_rows * metadata.num_columns)


def _unit_table(unit, metadata, table):
    """The rows of ``unit`` in its file's ``table``."""
    if unit.row_groups is None:
        return table
    sizes = [metadata.row_group(g).num_rows for g in range(metadata.num_row_groups)]
    start = sum(sizes[: unit.row_groups[0]])
    return table.slice(start, sum(sizes[g] for g in unit.row_groups))


# ------------------------------------------------------------------ CSV


def _csv_header(path):
    """The column names of a CSV file, from its first line."""
    import pyarrow as pa

    try:
        with pa.input_stream(str(path)) as stream:  # decompresses .gz, .bz2, .zst
            head = b""
            while b"\n" not in head and (block := stream.read(1 << 16)):
                head += block
        line = head.split(b"\n", 1)[0].decode("utf-8-sig")
    except (OSError, UnicodeDecodeError, pa.ArrowException) as exc:
        raise ValueError(f"cannot read the header of CSV file {str(path)!r}: {exc}") from None
    return next(csv.reader([line]), [])


def _csv_types(files, na_values):
    """Column types of CSV files, inferred once: from the first file, a column empty
    there from the next files that have values in it (still empty: float64)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    types = {}
    for path in files:
        try:
            with pcsv.open_csv(str(path), convert_options=_convert_options(na_values)) as reader:
                schema = reader.schema
        except (pa.ArrowException, OSError) as exc:
            raise ValueError(f"cannot read CSV file {str(path)!r}: {exc}") from None
        for field in schema:
            if types.get(field.name, pa.null()) == pa.null():
                types[field.name] = field.type
        if all(t != pa.null() for t in types.values()):
            break
    return {name: pa.float64() if t == pa.null() else t for name, t in types.items()}


def _convert_options(na_values, types=None, columns=None):
    import pyarrow.csv as pcsv

    if types is not None:
        types = {c: _dictionary(t) for c, t in types.items()}
    return pcsv.ConvertOptions(null_values=list(NA_VALUES) + [str(v) for v in na_values or ()],
                               strings_can_be_null=True, column_types=types, include_columns=columns)


def _dictionary(t):
    import pyarrow as pa

    return pa.dictionary(pa.int32(), pa.string()) if _is_text(t) else t


def _csv_layout(files, na_values):
    headers = [(path, _csv_header(path)) for path in files]
    first, names = headers[0]
    _check_unique(names, first)
    for path, other in headers[1:]:
        _check_same_names(first, names, path, other)
    types = _csv_types(files, na_values)
    units = [Unit(str(path), _signature(path)) for path in files]
    return units, types


def _read_csv_unit(unit, columns, types, na_values):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    options = _convert_options(na_values, {c: types[c] for c in columns}, columns)
    try:
        return pcsv.read_csv(unit.path, convert_options=options)
    except pa.ArrowInvalid as exc:
        raise _not_a_number(exc, unit.path) from None


_CONVERSION_ERROR = re.compile(r"In CSV column #(\d+): .*CSV conversion error to (\w+): invalid value '(.*)'", re.S)


def _not_a_number(exc, path):
    """ValueError naming the column and the value pyarrow could not read as a number (else ``exc``)."""
    match = _CONVERSION_ERROR.search(str(exc))
    names = _csv_header(path) if match else []
    if not match or int(match.group(1)) >= len(names):
        return exc
    name, value = names[int(match.group(1))], match.group(3)
    return ValueError(f"column {name!r} of CSV file {str(path)!r} is read as numbers ({match.group(2)}) but holds "
                      f"{value!r}; give such marks in na_values (--na-values) to read them as missing")


def _numeric_types(types, names):
    """``types`` with the columns ``names`` read as numbers: float64 unless already numeric.

    Raises ValueError for a name that is no column and TypeError for dates or times.
    """
    import pyarrow as pa

    types = dict(types)
    for name in names:
        if name not in types:
            raise ValueError(f"numeric_features names column {name!r}, which is not in the data {list(types)}")
        t = types[name]
        if pa.types.is_temporal(t):
            raise TypeError(f"column {name!r} holds dates or times ({t}), which numeric_features does not read "
                            "as numbers: convert them to numbers (for example days since a date) first")
        if not (pa.types.is_integer(t) or pa.types.is_floating(t)):
            types[name] = pa.float64()
    return types


def _parse_numeric_text(table, types, na_values, path):
    """A Parquet table's text (or boolean) columns that ``types`` reads as float64, parsed to numbers."""
    import pyarrow as pa

    from .numeric_text import parse_numbers

    for i, field in enumerate(table.schema):
        t = field.type
        if types[field.name] == pa.float64() and not (pa.types.is_integer(t) or pa.types.is_floating(t)):
            text = table.column(i).cast(t.value_type) if pa.types.is_dictionary(t) else table.column(i)
            numbers = parse_numbers(text.to_pandas(), field.name, na_values, f" of file {path!r}")
            table = table.set_column(i, field.name, pa.array(numbers, pa.float64()))
    return table


# ------------------------------------------------------------------ reading


def _check_unique(names, path):
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(f"file {str(path)!r} has two columns named {name!r}")
        seen.add(name)


def read_piece(kind, piece, columns, types, na_values):
    """Read one partition as a pandas DataFrame of ``columns`` (inside its task).

    Raises ValueError naming the file when it cannot be read, changed since
    the dataset was made, or has an unexpected number of rows.
    """
    import pyarrow as pa

    tables = []
    for unit in piece.units:
        if _signature(unit.path) != unit.signature:
            raise ValueError(f"file {unit.path!r} changed after the data was listed (size or time differ): "
                             "fit again on data that stays unchanged during the fit")
        try:
            if kind == "parquet":
                table = _parse_numeric_text(_read_parquet_unit(unit, columns, types), types, na_values, unit.path)
            else:
                table = _read_csv_unit(unit, columns, types, na_values)
        except (pa.ArrowException, OSError) as exc:  # ArrowInvalid included
            raise ValueError(f"cannot read {kind} file {unit.path!r}: {exc}") from None
        if unit.n_rows is not None and table.num_rows != unit.n_rows:
            raise ValueError(f"file {unit.path!r} has {table.num_rows} rows where its metadata "
                             f"said {unit.n_rows}")
        tables.append(table)
    frame = _to_pandas(_piece_table(tables, piece))
    if kind == "parquet" and na_values:
        frame = _remove_na_categories(frame, na_values)
    return frame


def _piece_table(tables, piece):
    """The partition ``piece`` of its units' ``tables``: them concatenated, then its slice of rows."""
    import pyarrow as pa

    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")
    if piece.m > 1:
        n = table.num_rows
        start, stop = n * piece.k // piece.m, n * (piece.k + 1) // piece.m
        table = table.slice(start, stop - start)
    return table


def _to_pandas(table):
    """``table.to_pandas(split_blocks=True)``, its string dictionary columns made ``Categorical`` from their
    indices by :func:`_categorical` (their categories sorted unless ordered).

    pyarrow's conversion of dictionary columns took 2.1-2.4 ns per value,
    more than counting them; the indices and dictionary as they are take 0.8.
    """
    import pandas as pd
    import pyarrow as pa

    names = table.column_names
    dictionary = {n for n, t in zip(names, table.schema.types)  # pyarrow's way for empty or odd dictionaries
                  if pa.types.is_dictionary(t) and _is_text(t.value_type) and table.column(n).num_chunks
                  and all(len(c.dictionary) and not c.dictionary.null_count for c in table.column(n).chunks)}
    if not dictionary:
        return table.to_pandas(split_blocks=True)
    rest = table.select([n for n in names if n not in dictionary]).to_pandas(split_blocks=True)
    columns = {n: _categorical(table.column(n)) if n in dictionary else rest[n] for n in names}
    return pd.DataFrame(columns, index=rest.index, copy=False)


def _categorical(chunked):
    """A string dictionary ChunkedArray as a ``pandas.Categorical`` (-1 codes where missing).

    Its categories are the dictionary's values sorted (as they are when the
    dictionary is ordered), so that the same values make the same, cached
    dtype in every partition: made afresh, a dtype cost more than looking the
    indices up, in a compiled loop that releases the GIL.
    """
    import pandas as pd
    import pyarrow.compute as pc

    from .kernels import lookup_codes

    array = chunked.chunk(0) if chunked.num_chunks == 1 else chunked.combine_chunks()  # one dictionary
    values = tuple(array.dictionary.to_pylist())
    categories = values if array.type.ordered else tuple(sorted(set(values)))
    n = len(categories)
    codes = np.empty(len(array), np.int8 if n < 127 else np.int16 if n < 32767 else np.int32)  # pandas' widths
    indices = (array.indices if not array.null_count else pc.fill_null(array.indices, -1)).to_numpy(
        zero_copy_only=False)
    if categories == values:
        codes[:] = indices
    else:
        position = {v: i for i, v in enumerate(categories)}
        lookup_codes(indices, np.array([position[v] for v in values] + [-1], dtype=codes.dtype), codes)
    make = _categorical_dtype if n <= _CACHED_DICTIONARY_SIZE else _categorical_dtype.__wrapped__
    return pd.Categorical.from_codes(codes, dtype=make(categories, array.dictionary.type, array.type.ordered),
                                     validate=False)


_CACHED_DICTIONARY_SIZE = 1024  # larger dictionaries are rarely repeated, and would fill the cache


@functools.lru_cache(maxsize=256)
def _categorical_dtype(values, arrow_type, ordered):
    """The ``CategoricalDtype`` of the categories ``values``, of the pandas dtype pyarrow gives ``arrow_type``;
    made once per small dictionary.

    Made afresh, it cost about 0.1 ms per column (its categories' index checks they are unique), which
    dominated reading small files.
    """
    import pandas as pd

    return pd.CategoricalDtype(pd.Index(list(values), dtype=_pandas_dtype(arrow_type)), ordered=ordered)


@functools.lru_cache(maxsize=None)
def _pandas_dtype(arrow_type):
    """The pandas dtype pyarrow converts values of ``arrow_type`` to."""
    import pyarrow as pa

    return pa.array([], type=arrow_type).to_pandas().dtype


def _remove_na_categories(frame, na_values):
    """Categories equal to one of ``na_values`` become missing (Parquet string columns)."""
    marks = {str(v) for v in na_values}
    for name in frame.columns:
        column = frame[name]
        if column.dtype == "category":
            drop = [c for c in column.cat.categories if str(c) in marks]
            if drop:
                frame[name] = column.cat.remove_categories(drop)
    return frame


def _pandas_dtypes(schema_types):
    """The pandas dtype each column will have (string columns are read as dictionaries)."""
    return {name: _pandas_dtype(_dictionary(t)) for name, t in schema_types.items()}


def file_dataset(path, y=None, sample_weight=None, *, n_partitions=None, categorical_features="auto",
                 require_target=True, numeric_features=None):
    """A :class:`nbparallel.data.Dataset` over a CSV or Parquet file or directory.

    Parameters
    ----------
    path : str, PathLike or Files
        A file, or a directory of files of one kind (suffixes ``.csv``,
        ``.parquet``, ``.pq``, any case); :class:`Files` adds read options.
    y, sample_weight : str or None
        Names of the target and weight columns.
    n_partitions : int or None
        None keeps the files' own partitions (a file, or runs of a large
        Parquet file's row groups), neighbouring small ones grouped (see
        :func:`default_pieces`); a number groups or splits them.
    categorical_features, require_target, numeric_features
        As for :func:`nbparallel.data.as_dataset`; ``numeric_features`` adds
        to those of a :class:`Files` path, and reads them as numbers.

    Returns
    -------
    nbparallel.data.Dataset
        With ``n_rows`` from Parquet metadata and, without a weight column,
        ``ranges``: the exact (min, max) of numeric columns from Parquet
        statistics, for the schema pass to skip.
    """
    from dask import delayed
    from dask.base import tokenize

    from . import engine
    from .data import Dataset, _column_roles, _kinds_for

    if y is not None and not isinstance(y, str):
        raise TypeError("with a file, y must be the name of the target column")
    if sample_weight is not None and not isinstance(sample_weight, str):
        raise TypeError("with a file, sample_weight must be the name of a column")
    na_values = path.na_values if isinstance(path, Files) else None
    files, kind = list_files(path)
    ranges = n_rows = opened = None
    if kind == "parquet":
        if n_partitions is None and not na_values:
            opened = _read_parquet_files(files)
        units, types, n_rows, ranges = _parquet_layout(files, opened)
    else:
        units, types = _csv_layout(files, na_values)
    columns, target, weight = _column_roles(list(types), y, sample_weight, require_target)
    if not columns:
        raise ValueError("the data has no attribute columns besides the target")
    dtypes = _pandas_dtypes(types)
    forced = list(numeric_features if numeric_features is not None else ()) + list(
        path.numeric_features or () if isinstance(path, Files) else ())
    kinds = _kinds_for(columns, [dtypes[c] for c in columns], categorical_features, forced)
    types = _numeric_types(types, [c for c, k in zip(columns, kinds) if k == "numeric"])
    needed = [c for c in types if c in columns or c in (target, weight)]
    parts = (pieces(units, n_partitions) if n_partitions is not None
             else default_pieces(units, engine.available_workers()))
    token = tokenize("nbparallel-files", kind, repr(parts), needed, na_values, {c: str(t) for c, t in types.items()})
    if opened and opened[0][2] is not None:
        partitions = _tables_of_pieces(parts, files, opened, needed, types)
    else:
        partitions = [  # named, their arguments in a partial that dask neither tokenizes nor searches for collections
            delayed(functools.partial(read_piece, kind, p, needed, types, na_values),
                    name=f"nbparallel-read-{token}", pure=True)(dask_key_name=f"nbparallel-read-{token}-{i}")
            for i, p in enumerate(parts)
        ]
    dataset = Dataset(partitions, columns, kinds, target, weight, n_rows=n_rows, token=token)
    if ranges and weight is None:  # rows of weight zero do not count in ranges
        dataset.ranges = {c: ranges[c] for c, k in zip(columns, kinds) if c in ranges and k == "numeric"}
    return dataset


def _tables_of_pieces(parts, files, opened, columns, types):
    """Each partition's Arrow table of ``columns``, one array per column, from the files read by
    :func:`_read_parquet_files` (a thread per core)."""
    import pyarrow as pa

    from . import engine

    by_path = {str(path): one for path, one in zip(files, opened)}
    numeric = any(types[c] == pa.float64() for c in columns)  # text columns read as numbers are parsed
    assemble = functools.partial(_assemble_piece, by_path, columns, types if numeric else None)
    return engine._map_locally([assemble] * len(parts), parts)


def _assemble_piece(by_path, columns, types, piece):
    """The Arrow table of ``piece``'s rows from its files' tables, its chunks combined (the dictionaries of
    a string column's chunks unified into one); text columns that ``types`` reads as numbers parsed."""
    units = []
    for unit in piece.units:
        metadata, _, table = by_path[unit.path]
        table = _unit_table(unit, metadata, table).select(columns)
        units.append(table if types is None else _parse_numeric_text(table, types, None, unit.path))
    return _piece_table(units, piece).combine_chunks()


def read_files(path, columns=None):
    """A Dask DataFrame over a CSV or Parquet file or directory (or :class:`Files`), read lazily."""
    import dask.dataframe as dd
    from dask import delayed

    na_values = path.na_values if isinstance(path, Files) else None
    files, kind = list_files(path)
    if kind == "parquet":
        units, types, _, _ = _parquet_layout(files)
    else:
        units, types = _csv_layout(files, na_values)
    if isinstance(path, Files) and path.numeric_features:
        types = _numeric_types(types, path.numeric_features)
    if columns is not None:
        missing = [c for c in columns if c not in types]
        if missing:
            raise ValueError(f"column {missing[0]!r} does not exist; columns are {list(types)}")
        types = {c: types[c] for c in columns}
    needed = list(types)
    meta = _pandas_dtypes(types)
    import pandas as pd

    empty = pd.DataFrame({c: pd.Series(dtype=d) for c, d in meta.items()})
    parts = [delayed(read_piece, pure=True)(kind, p, needed, types, na_values) for p in pieces(units)]
    return dd.from_delayed(parts, meta=empty, verify_meta=False)

"""A file or directory to a :class:`~nbparallel.data.dataset.Dataset` whose partitions read their rows.

:func:`file_dataset` lists a file or a directory, checks on the client that
every file has the same columns (and that Parquet footers are sound), fixes
each column's type once, and returns a :class:`nbparallel.data.dataset.Dataset` whose
partitions are :class:`~nbparallel.engine.recipes.Read` recipes: the rows are read inside the task that
uses them, as pandas DataFrames of only the needed columns. String columns
come as pandas ``category`` columns converted from Arrow dictionary arrays,
each partition with its own small set of categories; numeric columns are
numpy-backed.

A small Parquet directory (under :data:`~nbparallel.data.files.parquet.SMALL_PARQUET_BYTES`, data that stays
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

import contextlib
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

from nbparallel.data.columns import column_roles, kinds_for
from nbparallel.data.dataset import Dataset
from nbparallel.data.files.arff import arff_layout, read_arff_unit
from nbparallel.data.files.arrow import (
    numeric_types,
    pandas_dtypes,
    parse_numeric_text,
    remove_na_categories,
    table_to_pandas,
)
from nbparallel.data.files.csv import csv_layout, read_csv_unit, warn_missing_tokens
from nbparallel.data.files.filesystems import check_unchanged
from nbparallel.data.files.listing import file_signature, list_files, unit_store
from nbparallel.data.files.options import Files, ReadOptions, dropped_columns
from nbparallel.data.files.parquet import (
    parquet_layout,
    parquet_unit_batches,
    read_parquet_files,
    read_parquet_unit,
    tables_of_pieces,
)
from nbparallel.data.files.pieces import Piece, default_pieces, piece_table, pieces
from nbparallel.engine import execution
from nbparallel.engine.backends.dask_collections import frame_of_reads
from nbparallel.engine.recipes import Read


def file_dataset(path, y=None, sample_weight=None, *, n_partitions=None, categorical_features="auto",
                 require_target=True, numeric_features=None, drop=(), features=None):
    """A :class:`nbparallel.data.dataset.Dataset` over a CSV, Parquet or ARFF file or directory.

    Parameters
    ----------
    path : str, PathLike or Files
        A file, or a directory of files of one kind (suffixes ``.csv``,
        ``.tsv``, ``.parquet``, ``.pq``, ``.arff``, any case), local or an
        fsspec URL (``s3://``, ``gs://``, ``abfs://``, ``memory://``);
        :class:`Files` adds read options (``storage_options`` among them).
    y, sample_weight : str or None
        Names of the target and weight columns.
    n_partitions : int or None
        None keeps the files' own partitions (a file, or runs of a large
        Parquet file's row groups), neighbouring small ones grouped (see
        :func:`default_pieces`); a number groups or splits them.
    categorical_features, require_target, numeric_features, drop, features
        As for :func:`nbparallel.data.inputs.as_dataset`; ``numeric_features`` adds
        to those of a :class:`Files` path, and reads them as numbers; ``drop``
        adds to those of a :class:`Files` path (which must be columns of the
        files). Dropped columns are read by no pass.

    Returns
    -------
    nbparallel.data.dataset.Dataset
        With ``n_rows`` from Parquet metadata and, without a weight column,
        ``ranges``: the exact (min, max) of numeric columns from Parquet
        statistics, for the schema pass to skip.
    """
    if y is not None and not isinstance(y, str):
        raise TypeError("with a file, y must be the name of the target column")
    if sample_weight is not None and not isinstance(sample_weight, str):
        raise TypeError("with a file, sample_weight must be the name of a column")
    na_values = path.na_values if isinstance(path, Files) else None
    files, kind = list_files(path)
    ranges = n_rows = opened = declared = None
    if kind == "parquet":
        _check_text_options(path, kind)
        remote_on_cluster = unit_store(files[0]) is not None and execution.on_cluster()
        if n_partitions is None and not na_values and not remote_on_cluster:  # a store's rows go to the workers
            opened = read_parquet_files(files)
        units, types, n_rows, ranges = parquet_layout(files, opened)
        options = ReadOptions.of(path)
    else:
        options, units, types, declared = _text_layout(path, files, kind)
    dropped = dropped_columns(path, list(types), (y, sample_weight))
    columns, target, weight = column_roles(list(types), y, sample_weight, require_target, (*drop, *dropped),
                                           features)
    if not columns:
        raise ValueError("the data has no attribute columns besides the target")
    dtypes = pandas_dtypes(types)
    forced = list(numeric_features if numeric_features is not None else ()) + list(
        path.numeric_features or () if isinstance(path, Files) else ())
    kinds = kinds_for(columns, [dtypes[c] for c in columns], categorical_features, forced)
    types = numeric_types(types, [c for c, k in zip(columns, kinds) if k == "numeric"], as_floats=forced)
    needed = [c for c in types if c in columns or c in (target, weight)]
    parts = (pieces(units, n_partitions) if n_partitions is not None
             else default_pieces(units, execution.available_workers()))
    token = execution.token_of("nbparallel-files", kind, repr(parts), needed, repr(options),
                     {c: str(t) for c, t in types.items()})
    readers = [PieceReader(kind, p, needed, types, options) for p in parts]
    if opened and opened[0][2] is not None:
        partitions = tables_of_pieces(parts, files, opened, needed, types)
    else:
        partitions = [Read(partial(reader.read, tables=True), key=f"nbparallel-read-{token}-{i}")
                      for i, reader in enumerate(readers)]
    rows = [p.n_rows for p in parts]  # from the Parquet footers; the readers check each partition against them
    dataset = Dataset(partitions, columns, kinds, target, weight, n_rows=n_rows, token=token,
                      partition_rows=None if None in rows else rows, readers=readers,
                      declared={c: list(v) for c, v in (declared or {}).items() if c in columns} or None)
    if ranges and weight is None:  # rows of weight zero do not count in ranges
        dataset.ranges = {c: ranges[c] for c, k in zip(columns, kinds) if c in ranges and k == "numeric"}
    return dataset


def _check_text_options(path, kind):
    """ValueError for a read option the files' format does not have (a delimiter of Parquet files)."""
    if not isinstance(path, Files):
        return
    for name, formats in (("delimiter", ("csv",)), ("encoding", ("csv", "arff"))):
        if getattr(path, name) is not None and kind not in formats:
            owners = " and ".join(f.upper() for f in formats)
            raise ValueError(f"{name}={getattr(path, name)!r} is an option of {owners} files, but {path.path!r} "
                             f"holds {kind} files")


def _text_layout(path, files, kind, warn=True):
    """``(options, units, types, declared)`` of CSV or ARFF files, ``declared`` the ARFF files' nominal values
    (``{name: values}``, None for CSV); a warning for each CSV column of numbers and one other token (read as
    numbers, the token missing, where it surely means missing) unless not ``warn``."""
    _check_text_options(path, kind)
    options = ReadOptions.of(path)
    if kind == "csv":
        units, types, found = csv_layout(files, options)
        if warn:
            warn_missing_tokens(files[0], found)
        tokens = tuple((name, token) for name, (token, safe) in found.items() if safe)
        options = ReadOptions(options.na_values, options.delimiter, options.encoding, tokens)
        return options, units, types, None
    units, types, declared = arff_layout(files, options)
    return options, units, types, declared


def _layout(path, warn=True):
    """``(kind, units, types, options)`` of a file or directory path: its format, its read units, column
    types and read options."""
    files, kind = list_files(path)
    if kind == "parquet":
        _check_text_options(path, kind)
        units, types, _, _ = parquet_layout(files)
        return kind, units, types, ReadOptions.of(path)
    options, units, types, _ = _text_layout(path, files, kind, warn)
    return kind, units, types, options


class FileLayout(NamedTuple):
    """What a file or directory holds, known without reading its rows."""

    #: the column names (less those a :class:`Files` path drops)
    columns: list
    #: the files' own partitions: one per file, or per run of about ``ROWS_PER_PARTITION`` rows of a large
    #: Parquet file (``n_partitions=None`` groups small neighbours; this number keeps them apart)
    n_partitions: int


def file_layout(path):
    """The :class:`FileLayout` of a CSV or Parquet file or directory (or :class:`Files`), from the files'
    headers or footers: no rows are read."""
    _, units, types, _ = _layout(path, warn=False)
    dropped = dropped_columns(path, list(types))
    return FileLayout([c for c in types if c not in dropped], len(units))


def read_files(path, columns=None):
    """A Dask DataFrame over a CSV, Parquet or ARFF file or directory, local or a URL (or :class:`Files`),
    read lazily."""
    import pandas as pd

    readers = file_readers(path, columns)
    meta = pandas_dtypes(readers[0].types)
    empty = pd.DataFrame({c: pd.Series(dtype=d) for c, d in meta.items()})
    return frame_of_reads([r.read for r in readers], empty)


def file_readers(path, columns=None):
    """A :class:`PieceReader` for each of the files' own partitions (a file, or a run of a large Parquet file's
    row groups), of ``columns`` (by default every column a :class:`Files` path does not drop) as the files
    hold them; ValueError naming a column that does not exist."""
    kind, units, types, options = _layout(path)
    dropped = dropped_columns(path, list(types))
    types = {c: t for c, t in types.items() if c not in dropped}
    if isinstance(path, Files) and path.numeric_features:
        types = numeric_types(types, path.numeric_features)
    if columns is not None:
        missing = [c for c in columns if c not in types]
        if missing:
            raise ValueError(f"column {missing[0]!r} does not exist; columns are {list(types)}")
        types = {c: types[c] for c in columns}
    return [PieceReader(kind, p, list(types), types, options) for p in pieces(units)]


@dataclass(frozen=True, eq=False)
class PieceReader:
    """How one partition of files is read, made when the dataset is and called inside the task that uses the
    rows: the files' ``kind``, the :class:`~nbparallel.data.files.pieces.Piece`, the ``columns`` read and their
    Arrow ``types``, and the :class:`~nbparallel.data.files.options.ReadOptions`.

    Every read raises ValueError naming the file when it cannot be read, was deleted or changed since the
    dataset was made, or has another number of rows than its footer says.
    """

    kind: str
    piece: Piece
    columns: list
    types: dict
    options: ReadOptions

    def read(self, tables=False):
        """The partition as one pandas DataFrame of ``columns``; with ``tables``, a Parquet file's as the
        Arrow table read, as a small Parquet directory's partitions are (not when :meth:`_frames_only`)."""
        table = self._whole_table()
        return table if tables and not self._frames_only() else self._frame(table)

    def _whole_table(self):
        """The Arrow table of the partition's rows, read at once."""
        return piece_table([self._unit_table(unit) for unit in self.piece.units], self.piece)

    def _frames_only(self):
        """Whether this partition's rows are given as DataFrames only: Parquet files read with
        ``na_values`` (their categories are removed from DataFrames), and CSV and ARFF files, whose tables
        no pass takes as they are."""
        return self.kind != "parquet" or bool(self.options.na_values)

    def batches(self, max_rows, tables=False):
        """The partition as DataFrames of at most ``max_rows`` rows, in order, each read when it is asked for;
        at least one (an empty one for a partition without rows). With ``tables``, a Parquet file's as the
        Arrow tables read, which the scoring passes code without pandas (see
        :meth:`nbparallel.data.schema.Schema.split`; not when :meth:`_frames_only`).

        A Parquet file's rows are decoded a batch at a time, so the partition's memory is that of a batch
        whatever its size; other files (and a Parquet partition that is a slice of its files) are read whole
        and given in slices.
        """
        as_frames = not tables or self._frames_only()
        for table in self._tables(max_rows):
            yield self._frame(table) if as_frames else table

    def _tables(self, max_rows):
        """The Arrow tables of :meth:`batches`."""
        if self.kind != "parquet" or self.piece.m > 1:
            table = self._whole_table()
            for start in range(0, max(table.num_rows, 1), max_rows):
                yield table.slice(start, max_rows)
            return
        empty = True
        for unit in self.piece.units:
            for table in self._unit_batches(unit, max_rows):
                empty = False
                yield table
        if empty:
            yield self._whole_table()

    def _unit_table(self, unit):
        """The Arrow table of ``unit``'s rows, text columns that ``types`` reads as numbers parsed."""
        self._check_unchanged(unit)
        with self._named_errors(unit):
            if self.kind == "parquet":
                table = parse_numeric_text(read_parquet_unit(unit, self.columns, self.types), self.types,
                                           self.options.na_values, unit.path)
            elif self.kind == "arff":
                table = read_arff_unit(unit, self.columns, self.types, self.options)
            else:
                table = read_csv_unit(unit, self.columns, self.types, self.options)
        self._check_rows(unit, table.num_rows)
        return table

    def _unit_batches(self, unit, max_rows):
        """A Parquet unit's rows as tables of at most ``max_rows`` rows (see :meth:`_unit_table`)."""
        self._check_unchanged(unit)
        rows = 0
        with self._named_errors(unit):
            for table in parquet_unit_batches(unit, self.columns, self.types, max_rows):
                rows += table.num_rows
                yield parse_numeric_text(table, self.types, self.options.na_values, unit.path)
        self._check_rows(unit, rows)

    def _frame(self, table):
        """The pandas DataFrame of a table read here (string categories in ``na_values`` missing)."""
        frame = table_to_pandas(table)
        if self.kind == "parquet" and self.options.na_values:
            frame = remove_na_categories(frame, self.options.na_values)
        return frame

    @staticmethod
    def _check_unchanged(unit):
        if unit.store is not None:
            check_unchanged(unit.path, unit.store, unit.signature)
        elif file_signature(unit.path) != unit.signature:
            raise ValueError(f"file {unit.path!r} changed after the data was listed (size or time differ): "
                             "fit again on data that stays unchanged during the fit")

    @staticmethod
    def _check_rows(unit, n_rows):
        if unit.n_rows is not None and n_rows != unit.n_rows:
            raise ValueError(f"file {unit.path!r} has {n_rows} rows where its metadata said {unit.n_rows}")

    @contextlib.contextmanager
    def _named_errors(self, unit):
        """Arrow's and the system's errors of reading ``unit`` as a ValueError naming the file."""
        import pyarrow as pa

        try:
            yield
        except (pa.ArrowException, OSError) as exc:  # ArrowInvalid included
            raise ValueError(f"cannot read {self.kind} file {unit.path!r}: {exc}") from None

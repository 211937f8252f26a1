"""Parquet files: footers, layout checks, row-group units and reads."""

from __future__ import annotations

import functools
import math
import os
import re
import threading

from nbparallel.data.files.arrow import is_text, parse_numeric_text
from nbparallel.data.files.column_names import check_same_names, check_unique
from nbparallel.data.files.filesystems import open_input_file, read_bytes
from nbparallel.data.files.listing import file_signature, file_size, unit_store
from nbparallel.data.files.pieces import Unit, piece_table, unit_table
from nbparallel.engine import execution

_ARROW_WRITER = re.compile(r"parquet-cpp-arrow version (\d+)\.")

#: A Parquet file's row groups are grouped into partitions of about this many rows.
ROWS_PER_PARTITION = 2**20

#: Parquet files smaller than this in all are read when the dataset is made, each file opened once
#: (see :func:`read_parquet_files`), where they stay in this process (:func:`nbparallel.engine.execution.local_below`).
SMALL_PARQUET_BYTES = 2**24


def _parquet_file(path, source=None, store=None, **options):
    """``pyarrow.parquet.ParquetFile`` of ``path`` (read from ``source`` when given, such as its bytes; through
    the filesystem of ``store`` for a URL, its reads of a row group's columns gathered into few requests)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if source is None and store is not None:
            source = open_input_file(path, store)
            options.setdefault("pre_buffer", True)
        return pq.ParquetFile(path if source is None else source, **options)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"{path} is not a readable Parquet file: {exc}") from None


def _row_group_units(path, metadata, signature, store=None):
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
        return [Unit(path, signature, None, metadata.num_rows, store)]
    return [Unit(path, signature, groups, n, store) for groups, n in runs]


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


#: Footers read, by file version (see :func:`parquet_footer`), the oldest dropped once their serialized
#: size passes ``FOOTER_CACHE_BYTES``.
_footers = {}
_footers_lock = threading.Lock()
_footer_bytes = [0]  # their serialized size in all
FOOTER_CACHE_BYTES = 64 * 2**20


def parquet_footer(path):
    """``(metadata, signature)`` of a Parquet file, its footer read once per version of the file (its path,
    store, size and modification time or ETag): every pass over a directory lists it and asks for its
    footers again, and the scoring command asks twice (the columns, then the dataset)."""
    store = unit_store(path)
    signature = file_signature(path)
    key = (str(path), repr(store), signature)
    metadata = footer_read(*key)
    if metadata is None:
        metadata = _parquet_file(str(path), store=store).metadata
        with _footers_lock:
            if key not in _footers:
                _footers[key] = metadata
                _footer_bytes[0] += metadata.serialized_size
            while _footer_bytes[0] > FOOTER_CACHE_BYTES and len(_footers) > 1:
                _footer_bytes[0] -= _footers.pop(next(iter(_footers))).serialized_size
    return metadata, signature


def footer_read(path, store_repr, signature):
    """The footer of this version of a file if :func:`parquet_footer` read it in this process, else None."""
    with _footers_lock:
        return _footers.get((path, store_repr, signature))


def parquet_layout(files, opened=None):
    """Units, column types, row count and exact numeric ranges of Parquet files.

    A column whose type is ``null`` in the first file (all missing) takes
    its type from the next file that has one. ``opened`` holds each file's
    ``(metadata, signature, table)`` when the files were read already.
    """
    import pyarrow as pa

    units, schema, first, n_rows, ranges = [], None, None, 0, {}
    for i, path in enumerate(files):
        metadata, signature = opened[i][:2] if opened else parquet_footer(path)
        file_schema = metadata.schema.to_arrow_schema()
        if schema is None:
            schema, first = file_schema, path
            check_unique(schema.names, path)
            types = {f.name: f.type for f in schema if f.name not in _index_columns(schema)}
            ranges = {name: _exact_range(metadata, name, t) for name, t in types.items()}
        else:
            _check_same_columns(first, schema, path, file_schema)
            for name, span in ranges.items():
                if types[name] == pa.null():
                    types[name] = file_schema.field(name).type
                other = None if span is None else _exact_range(metadata, name, file_schema.field(name).type)
                ranges[name] = None if other is None else (min(span[0], other[0]), max(span[1], other[1]))
        units += _row_group_units(str(path), metadata, signature, unit_store(path))
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


def _check_same_columns(first, schema, path, other):
    if other.equals(schema, check_metadata=False):
        return
    names = list(schema.names)
    check_same_names(first, names, path, list(other.names))
    for name in names:
        a, b = schema.field(name).type, other.field(name).type
        if "null" not in (str(a), str(b)) and _kind_of_type(a) != _kind_of_type(b):
            raise ValueError(f"column {name!r} is {b} in file {str(path)!r} but {a} in {str(first)!r}")


def _unit_file(unit, columns, types):
    """The ``ParquetFile`` of a unit, its string ``columns`` read as dictionaries; its footer not parsed again
    when this process listed the same version of the file."""
    return _parquet_file(unit.path, store=unit.store, read_dictionary=[c for c in columns if is_text(types[c])],
                         page_checksum_verification=True,
                         metadata=footer_read(unit.path, repr(unit.store), unit.signature))


def read_parquet_unit(unit, columns, types):
    """The Arrow table of a unit's ``columns``."""
    f = _unit_file(unit, columns, types)
    if unit.row_groups is None:
        return f.read(columns=columns, use_threads=False)
    return f.read_row_groups(list(unit.row_groups), columns=columns, use_threads=False)


def parquet_unit_batches(unit, columns, types, max_rows):
    """A unit's ``columns`` as Arrow tables of at most ``max_rows`` rows, in order (none without rows), each
    decoded when it is asked for: a unit's memory is then that of one batch, not of all its rows."""
    import pyarrow as pa

    f = _unit_file(unit, columns, types)
    groups = None if unit.row_groups is None else list(unit.row_groups)
    for batch in f.iter_batches(batch_size=max_rows, row_groups=groups, columns=columns, use_threads=False):
        yield pa.Table.from_batches([batch])


def read_parquet_files(files):
    """Each file's ``(metadata, signature, table)``, every file opened once, on a thread per core; None
    for files that are not small.

    Small files (under :data:`SMALL_PARQUET_BYTES` in all, and under
    :func:`nbparallel.engine.execution.local_below` in memory, as estimated from the
    first file) have their footers and rows read together: opening a small
    file costs as much as reading its rows, and reading footers first, then
    rows, opened each file twice. The string columns of the first
    file are read as dictionaries; a string column of another file that is not
    (all missing in the first file) is dictionary-encoded after reading. Rows
    are read only while the files' estimated size in memory stays under the
    local threshold (the files may not be alike): once it is spent, every
    ``table`` is None, and the footers are still given.
    """

    budget = execution.local_below_bytes()
    sizes = [file_size(f) for f in files]
    if sum(sizes) >= min(SMALL_PARQUET_BYTES, budget):
        return None
    first = _parquet_file(str(files[0]), store=unit_store(files[0])).metadata
    if _size_in_memory(first) * sum(sizes) / max(sizes[0], 1) >= budget:
        return None
    text = [f.name for f in first.schema.to_arrow_schema() if is_text(f.type)]
    n = min(len(files), os.cpu_count() or 1)  # the local pool's threads
    groups = [files[len(files) * k // n : len(files) * (k + 1) // n] for k in range(n)]
    left = _Budget(budget)
    opened = execution.map_locally([functools.partial(_open_parquet_group, text, left)] * n, groups)
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
    return [_open_parquet(path, text, left) for path in paths]


def _open_parquet(path, text, left):
    """``(metadata, signature, table)`` of a whole Parquet file, its string columns as dictionaries; no
    table once the :class:`_Budget` ``left`` is spent (the file's footer only is read then).

    The file's bytes are read at once, then parsed, which is faster for
    small files than letting pyarrow open the path (one read instead of
    one per column chunk).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    signature, store, path = file_signature(path), unit_store(path), str(path)
    if left.spent():
        return _parquet_file(path, store=store).metadata, signature, None
    source = pa.BufferReader(read_bytes(path, store))
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
        if is_text(field.type):
            table = table.set_column(i, field.name, pc.dictionary_encode(table.column(i)))
    return f.metadata, signature, table


def _size_in_memory(metadata):
    """A Parquet file's estimated bytes in memory: its uncompressed size, and at least 4 bytes a value (a
    dictionary index)."""
    uncompressed = sum(metadata.row_group(g).total_byte_size for g in range(metadata.num_row_groups))
    return max(uncompressed, 4 * metadata.num_rows * metadata.num_columns)


def tables_of_pieces(parts, files, opened, columns, types):
    """Each partition's Arrow table of ``columns``, one array per column, from the files read by
    :func:`read_parquet_files` (a thread per core)."""
    import pyarrow as pa


    by_path = {str(path): one for path, one in zip(files, opened)}
    numeric = any(types[c] == pa.float64() for c in columns)  # text columns read as numbers are parsed
    assemble = functools.partial(_assemble_piece, by_path, columns, types if numeric else None)
    return execution.map_locally([assemble] * len(parts), parts)


def _assemble_piece(by_path, columns, types, piece):
    """The Arrow table of ``piece``'s rows from its files' tables, its chunks combined (the dictionaries of
    a string column's chunks unified into one); text columns that ``types`` reads as numbers parsed."""
    units = []
    for unit in piece.units:
        metadata, _, table = by_path[unit.path]
        table = unit_table(unit, metadata, table).select(columns)
        units.append(table if types is None else parse_numeric_text(table, types, None, unit.path))
    return piece_table(units, piece).combine_chunks()

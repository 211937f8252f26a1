"""Units of a file (a file or a run of row groups) grouped into partitions, and reading one."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


#: By default, neighbouring Parquet files (or runs of row groups) smaller than this are grouped into one
#: partition, as in-memory data is (:func:`nbparallel.data.dataset.default_partitions`).
MIN_PARTITION_ROWS = 2**18


#: The same for CSV files, whose rows are not counted beforehand: about 2^18 rows of a few short columns.
MIN_PARTITION_BYTES = 2**23


@dataclass(frozen=True)
class Unit:
    """A run of one file's rows: the whole file, or some of its Parquet row groups."""

    path: str
    signature: tuple
    row_groups: tuple | None = None
    n_rows: int | None = None
    #: the :class:`~nbparallel.data.files.filesystems.Store` of a URL (None for a local file)
    store: object = None


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

    A partition costs a task, a merge and per-column work whatever its size,
    so many small files read one per partition spend more on partitions than
    on rows, and larger groups spread that cost over more rows.
    Units are grouped until a group holds ``MIN_PARTITION_ROWS`` rows
    (``MIN_PARTITION_BYTES`` bytes for CSV files), or its share of the
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


def unit_table(unit, metadata, table):
    """The rows of ``unit`` in its file's ``table``."""
    if unit.row_groups is None:
        return table
    sizes = [metadata.row_group(g).num_rows for g in range(metadata.num_row_groups)]
    start = sum(sizes[: unit.row_groups[0]])
    return table.slice(start, sum(sizes[g] for g in unit.row_groups))


def piece_table(tables, piece):
    """The partition ``piece`` of its units' ``tables``: them concatenated, then its slice of rows."""
    import pyarrow as pa

    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")
    if piece.m > 1:
        n = table.num_rows
        start, stop = n * piece.k // piece.m, n * (piece.k + 1) // piece.m
        table = table.slice(start, stop - start)
    return table



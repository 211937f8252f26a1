"""Dask collections as inputs: what the data layer asks of a Dask DataFrame or Array, without touching Dask.

:func:`collection_of` wraps a Dask DataFrame in a :class:`Frame` and a Dask Array in an :class:`Array`; their
methods are the operations the inputs need (names, dtypes, repartitioning, a function mapped over every
partition), and their :meth:`Frame.blocks` and :meth:`Array.row_blocks` give the partitions as
engine-neutral :class:`~nbparallel.engine.recipes.Block` recipes, each holding its Dask objects opaquely,
for :mod:`nbparallel.engine.backends.dask` to compute.
"""

from __future__ import annotations

from nbparallel.engine.recipes import Block


def collection_of(X):
    """``X`` as a :class:`Frame` (a Dask DataFrame) or an :class:`Array` (a Dask Array), else None."""
    if not type(X).__module__.startswith("dask"):
        return None
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        return Frame(X)
    if isinstance(X, da.Array):
        return Array(X)
    return None


def series_partitions(values):
    """The number of partitions of a Dask Series, or None for anything else."""
    if not type(values).__module__.startswith("dask"):
        return None
    import dask.dataframe as dd

    return values.npartitions if isinstance(values, dd.Series) else None


def file_order_key(name):
    """Dask's sort key of file names (natural order: ``part2`` before ``part10``), the order
    ``dask.dataframe.read_parquet`` reads a directory's files in."""
    from dask.utils import natural_sort_key

    return natural_sort_key(name)


def computed(value):
    """A Dask Array computed to its values (on Dask's threads or the active client); other values as they
    are."""
    return value.compute() if isinstance(collection_of(value), Array) else value


def computed_blocks(data):
    """The partitions of a Dask collection (a 2-D array's as runs of whole rows), each computed here, one at
    a time, when it is taken; None for anything else."""
    if not (hasattr(data, "to_delayed") and hasattr(data, "npartitions")):
        return None
    import dask
    import numpy as np

    if hasattr(data, "chunks") and getattr(data, "ndim", 1) == 2:
        data = data.rechunk({1: -1})  # a partition is a run of whole rows
    blocks = data.to_delayed()
    blocks = list(np.ravel(blocks)) if isinstance(blocks, np.ndarray) else list(blocks)
    return (dask.compute(block, scheduler="sync")[0] for block in blocks)


def frame_of_reads(reads, meta):
    """A Dask DataFrame whose partitions are ``read()`` of each of ``reads``, with the columns of ``meta``
    (an empty pandas DataFrame)."""
    import dask.dataframe as dd
    from dask import delayed

    return dd.from_delayed([delayed(read, pure=True)() for read in reads], meta=meta, verify_meta=False)


class Frame:
    """A Dask DataFrame.

    Parameters
    ----------
    data : dask.dataframe.DataFrame
    """

    def __init__(self, data):
        self.data = data

    @property
    def columns(self):
        """The column names, as the frame has them (a pandas Index)."""
        return self.data.columns

    @property
    def dtypes(self):
        """``{name: dtype}`` of every column."""
        return dict(self.data.dtypes.items())

    @property
    def n_partitions(self):
        return self.data.npartitions

    @property
    def token(self):
        """Dask's name of the frame: it identifies its data."""
        return self.data._name

    def renamed(self, names):
        """The frame with its columns named ``names``."""
        return Frame(self.data.rename(columns=dict(zip(self.data.columns, names))))

    def with_column(self, name, series):
        """The frame with the Dask Series ``series`` (partitioned alike) as column ``name``."""
        return Frame(self.data.assign(**{name: series}))

    def mapped(self, fn, *args, dtypes):
        """``fn(partition, *args)`` on every partition, giving a frame whose columns ``dtypes`` names take
        those dtypes."""
        meta = self.data._meta.astype(dtypes)
        return Frame(self.data.map_partitions(fn, *args, meta=meta))

    def repartitioned(self, n):
        """The same rows in ``n`` partitions."""
        return Frame(self.data.repartition(npartitions=n))

    def first_partition(self, columns):
        """The first partition's ``columns``, computed."""
        return self.data[columns].partitions[0].compute()

    def blocks(self):
        """Each partition as a :class:`~nbparallel.engine.recipes.Block`."""
        return [Block((block,)) for block in self.data.to_delayed()]

    def parquet_read(self):
        """``(path, storage_options)`` when the frame is a plain ``read_parquet`` of a path (no filters,
        index, categories, partition selection or other operation, fsspec's filesystem, no other read
        arguments), else None."""
        import os

        try:
            from dask.dataframe.dask_expr.io.parquet import ReadParquet
        except ImportError:  # pragma: no cover - another Dask: read through Dask
            return None
        expr = self.data.optimize().expr
        if not isinstance(expr, ReadParquet):
            return None
        path = expr.operand("path")
        plain = (isinstance(path, (str, os.PathLike)) and expr.operand("filesystem") in (None, "fsspec")
                 and all(expr.operand(k) in (None, False, {}) for k in
                         ("filters", "index", "categories", "_partitions", "_series"))
                 and all(v is None for v in (expr.operand("kwargs") or {}).values()))
        return (path, expr.operand("storage_options") or None) if plain else None


class Array:
    """A Dask Array.

    Parameters
    ----------
    data : dask.array.Array
    """

    def __init__(self, data):
        self.data = data

    @classmethod
    def of(cls, values):
        """Values (a Dask Array, or anything ``numpy`` reads) as an :class:`Array`."""
        import dask.array as da

        return cls(da.asarray(values))

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def row_chunks(self):
        """Rows of each block along the first axis (NaN where unknown)."""
        return self.data.chunks[0]

    @property
    def n_column_chunks(self):
        return len(self.data.chunks[1]) if self.data.ndim > 1 else 1

    @property
    def token(self):
        """Dask's name of the array: it identifies its data."""
        return self.data.name

    def in_row_blocks(self, rows):
        """The array in row blocks of ``rows`` rows."""
        return Array(self.data.rechunk({0: rows}))

    def whole_rows(self):
        """One block across the columns: each row block holds whole rows."""
        return Array(self.data.rechunk({1: -1}))

    def mapped(self, fn, *args, dtype):
        """``fn(block, *args)`` on every block, giving an array of ``dtype``."""
        return Array(self.data.map_blocks(fn, *args, dtype=dtype))

    def aligned(self, row_chunks):
        """The array (1-D) in blocks of ``row_chunks`` rows."""
        return Array(self.data.rechunk((row_chunks,)))

    def row_blocks(self):
        """The Dask object of each row block (the whole rows: see :meth:`whole_rows`), in order, opaque to
        all but the Dask backend; hold them in a :class:`~nbparallel.engine.recipes.Block`."""
        blocks = self.data.to_delayed()
        return list(blocks[:, 0] if blocks.ndim == 2 else blocks)

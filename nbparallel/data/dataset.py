"""A dataset: partitions of rows and what their attribute columns are."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from nbparallel.data.columns import JOINED_TARGET, check_weights, target_values
from nbparallel.data.partitions import PartitionInfo
from nbparallel.engine import execution


@dataclass
class Dataset:
    """Partitions of rows and what their attribute columns are.

    Attributes
    ----------
    partitions : list
        Concrete partitions or engine-neutral recipes (:mod:`nbparallel.engine.recipes`); :meth:`map` wraps a
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
        pass (see :mod:`nbparallel.summaries.dictionary_counts`).
    readers : list or None
        Files: each partition's :class:`~nbparallel.data.files.readers.PieceReader`,
        which also reads it in batches of bounded size (prediction to files
        does); None for other inputs.
    declared : dict or None
        Categorical columns whose files declare their values (ARFF nominal
        attributes): ``{name: values}``, in the declared order, which becomes
        the attribute's category order, values never seen included.
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
    readers: list | None = None
    declared: dict | None = None

    @property
    def target_column(self):
        """The name of the data's own target column, or None (no target, or target values given apart)."""
        return None if self.target in (None, JOINED_TARGET) else self.target

    def map(self, fn, *args, with_info=False, tables=False, categorical_target=False):
        """A picklable ``part -> fn(*args, X, y, w)`` for :mod:`nbparallel.engine`.

        With ``with_info=True``, one function per partition (the engine takes
        the list) calling ``fn(*args, X, y, w, info)``, where ``info`` is the
        partition's :class:`~nbparallel.data.partitions.PartitionInfo`: its index
        and the global index of its first row, for row identity (folds,
        reproducible sampling) independent of the partitioning. With
        ``tables``, a partition that is an Arrow table (Parquet files) gives
        ``X`` as the table of its columns, for the scoring passes, which code
        its dictionary columns from their indices
        (:meth:`nbparallel.data.schema.Schema.split`); else every ``X`` is a
        DataFrame or an array. With ``categorical_target``, a target column read
        as categorical (a Parquet dictionary column, a pandas ``category``) is
        given as that pandas Series, for tasks that only encode it
        (:meth:`~nbparallel.data.schema.Schema.encode_classes` codes its
        categories once, where an array of labels costs a hash per row, under
        Python's lock); else ``y`` is an array.
        """
        unpack = (tables, categorical_target)
        if not with_info:
            return partial(_apply, fn, args, self.columns, self.target, self.weight, unpack)
        return [partial(_apply_with_info, fn, args, self.columns, self.target, self.weight, info, unpack)
                for info in self.partition_infos()]

    def partition_infos(self):
        """Each partition's :class:`~nbparallel.data.partitions.PartitionInfo`, from the row counts.

        In-memory partitions are counted here; lazy ones (Dask collections,
        files) need the row counts the schema pass records
        (:func:`scan_schema`), else ValueError.
        """
        rows = self.partition_rows
        if rows is None or len(rows) != len(self.partitions):
            if not all(isinstance(p, tuple) for p in self.partitions):
                raise ValueError("the partitions' row counts are unknown: run the schema pass "
                                 "(scan_schema) before asking for partition offsets")
            rows = [len(p[0]) for p in self.partitions]
        offsets = np.concatenate([[0], np.cumsum(rows, dtype=np.int64)])
        return [PartitionInfo(i, int(offsets[i])) for i in range(len(rows))]


def _unpack(part, columns, target, weight, tables=False, categorical_target=False):
    """``(X, y, w)`` of a partition; X a DataFrame or a 2-D array, or with ``tables`` the Arrow table of an
    Arrow table's columns (its target and weight converted); y an array, or with ``categorical_target`` a
    categorical target column's Series (see :meth:`Dataset.map`)."""
    if isinstance(part, tuple):
        return part
    if is_arrow_table(part):  # Parquet files' rows (see nbparallel.data.files.readers.file_dataset)
        from nbparallel.data.files.arrow import table_to_pandas

        if tables:
            labels = table_to_pandas(part.select([c for c in (target, weight) if c is not None]))
            X = part.select(columns)
            part = labels
        else:
            part = table_to_pandas(part)
            X = part[columns]
    else:
        X = part[columns]
    y = None if target is None else target_values(part[target], keep_categorical=categorical_target)
    w = part[weight].to_numpy() if weight is not None else None
    if w is not None:
        check_weights(w, weight)
    return X, y, w


def is_arrow_table(part):
    """True for a ``pyarrow.Table`` (without importing pyarrow)."""
    return type(part).__name__ == "Table" and type(part).__module__.startswith("pyarrow")


def _apply(fn, args, columns, target, weight, unpack, part):
    return fn(*args, *_unpack(part, columns, target, weight, *unpack))


def _apply_with_info(fn, args, columns, target, weight, info, unpack, part):
    return fn(*args, *_unpack(part, columns, target, weight, *unpack), info)


def default_partitions(n_rows, n_workers=None, min_rows=65536):
    """Partitions for in-memory data: one per worker, none smaller than ``min_rows``.

    ``n_workers`` defaults to :func:`nbparallel.engine.execution.available_workers`, asked
    only when the rows make more than one partition (with a ``distributed.Client``
    the question is a round trip to the scheduler, which dominated small fits).

    >>> default_partitions(10_000_000, 4), default_partitions(1000)
    (4, 1)
    """
    most = math.ceil(n_rows / min_rows)
    if most <= 1:
        return 1
    return min(execution.available_workers() if n_workers is None else n_workers, most)

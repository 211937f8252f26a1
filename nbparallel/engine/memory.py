"""Upper bounds: estimate the memory a fit or prediction will hold and refuse what cannot fit.

The estimates are deliberately simple (8 bytes per float64 cell, counted for
the arrays that live at the same time) and are compared with the memory the
workers have (:func:`nbparallel.engine.memory.available_memory`), so an absurd
parameter fails at once with a message naming it instead of being killed by
the operating system after minutes. What one task holds is also compared with
the smallest worker's memory limit (:func:`nbparallel.engine.memory.worker_memory_limit`):
a table that fits in the cluster's total but not in one worker would otherwise
have every worker that runs it killed and restarted by its nanny.
"""

from __future__ import annotations

from nbparallel.engine import execution

CELL_BYTES = 8
TABLES_PER_TASK = 3
"""Count tables a task holds at once: a merge's two inputs and its result (the tree's fan-in of 2)."""
WORKER_SHARE = 0.5
"""Share of a worker's memory limit one task's tables may take: the rest is for the worker's own
modules, the partition being read and the copies sent over the network (Dask's nanny terminates a
worker at 95 % of its limit)."""
PREDICT_CHUNK_CELLS = 1 << 22
"""Most (row x class) cells a prediction holds at once per partition (32 MiB of float64)."""


def check_memory(n_bytes, what, hint, partitions=None, task_bytes=None):
    """Raise ValueError when ``n_bytes`` exceed the memory the workers have, or ``task_bytes`` one worker's.

    Parameters
    ----------
    n_bytes : int
        Estimated bytes needed.
    what : str
        What needs them, e.g. "the count tables of n_bins=1000000".
    hint : str
        What the user can change.
    partitions : list, optional
        The partitions the work reads: when they stay local, this machine's
        memory is the limit (see :func:`nbparallel.engine.memory.available_memory`).
    task_bytes : int, optional
        Estimated bytes one task holds (:func:`nbparallel.engine.memory.task_table_bytes`):
        more than :data:`WORKER_SHARE` of the smallest worker's memory limit is refused.

    >>> check_memory(10, "ten bytes", "nothing")
    >>> check_memory(1 << 80, "the tables", "use fewer bins")
    Traceback (most recent call last):
    ...
    ValueError: the tables need about ... TiB of memory, more than the ... available; use fewer bins
    """

    available = available_memory(partitions)
    if available is not None and n_bytes > available:
        raise ValueError(f"{what} need about {_size(n_bytes)} of memory, more than the "
                         f"{_size(available)} available; {hint}")
    limit = None if task_bytes is None else worker_memory_limit(partitions)
    if limit is not None and task_bytes > WORKER_SHARE * limit:
        raise ValueError(f"{what} need about {_size(task_bytes)} of memory in one task, more than half of "
                         f"a worker's memory limit of {_size(limit)}; {hint}")


def table_bytes(n_table_rows, n_columns, n_partitions):
    """Count tables alive at once: one per running task and one per pending merge, plus the result."""
    in_flight = (1 if n_partitions <= 1 else min(n_partitions, execution.available_workers())) + 2
    return CELL_BYTES * n_table_rows * n_columns * in_flight


def task_table_bytes(n_table_rows, n_columns):
    """Count tables one task holds at once (:data:`TABLES_PER_TASK`)."""
    return CELL_BYTES * n_table_rows * n_columns * TABLES_PER_TASK


def _size(n_bytes):
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n_bytes < 1024:
            return f"{n_bytes:.0f} {unit}" if unit == "bytes" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1024
    return f"{n_bytes:.1f} TiB"


def fits_in_memory(n_bytes, available, fraction=0.5):
    """Whether data of ``n_bytes`` should be kept in ``available`` bytes of memory.

    >>> fits_in_memory(10, 100), fits_in_memory(60, 100), fits_in_memory(60, None)
    (True, False, True)
    """
    return available is None or n_bytes <= fraction * available


def available_memory(partitions=None):
    """Bytes of memory the workers can hold: the cluster's limits, or this machine's free memory.

    With ``partitions``, the memory of where a pass over them runs
    (:func:`nbparallel.engine.execution.backend_for`): this machine's when they stay local,
    which spares small fits a trip to the scheduler.
    """
    return execution.backend_for(partitions).memory()


def worker_memory_limit(partitions=None):
    """The smallest memory limit of the cluster's workers, or None (no cluster, no limits, or a local pass)."""
    return execution.backend_for(partitions).worker_memory_limit()

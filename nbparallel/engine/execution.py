"""Run one map-reduce pass on whatever executes it.

A pass maps a pure function over the partitions, each giving a small summary,
and merges the summaries with the binary tree of :mod:`nbparallel.engine.reduce`.
Where it runs is decided here, once per pass (:func:`backend_for`), explicitly, never by Dask's
global ``scheduler`` setting:

- in this process, without a task graph (:class:`~nbparallel.engine.backends.local.LocalBackend`),
  when the data is in memory and smaller than :func:`local_below` bytes (or a single in-memory partition
  with no cluster): a small fit costs what its counting costs, even with a
  ``distributed.Client`` open; several partitions are summarised on
  :func:`local_threads` threads (one per core, or Dask's ``num_workers``);
- on Dask (:class:`~nbparallel.engine.backends.dask.DaskBackend`) otherwise: on the active
  ``distributed.Client`` (a running one), or on Dask's threaded scheduler when there is no client
  (as many threads), except partitions given as readers that their tasks call
  (:func:`map_read_partitions`), which run on this process's threads unless
  progress is shown or observed.

A partition is a value in this process's memory or an engine-neutral recipe
(:mod:`nbparallel.engine.recipes`). Every way merges along the same tree and returns the same
:class:`nbparallel.engine.reduce.TreeRecord`. The engine knows nothing of what the
summaries mean.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import uuid
from functools import partial

from nbparallel.engine.backends import LostDataError
from nbparallel.engine.backends import dask as dask_backend
from nbparallel.engine.backends.local import LocalBackend
from nbparallel.engine.backends.ray import ray_backend
from nbparallel.engine.backends.spark import spark_backend
from nbparallel.engine.observing import PassObserver, current_observer, observe_passes
from nbparallel.engine.recipes import Read
from nbparallel.engine.reduce import fan_in

__all__ = ["LOCAL_BELOW", "LostDataError", "PassObserver", "available_workers", "backend_for", "local_below",
           "local_below_bytes", "local_threads", "map_locally", "map_partitions", "map_read_partitions",
           "observe_passes", "on_cluster", "pass_token", "persist", "run_pass", "runs_locally", "threads",
           "token_of"]

#: Default of :func:`local_below`: in-memory data under 32 MiB stays in this process.
LOCAL_BELOW = 32 * 2**20


_local_below = contextvars.ContextVar("nbparallel_local_below", default=LOCAL_BELOW)


@contextlib.contextmanager
def local_below(n_bytes):
    """Within the block, in-memory data under ``n_bytes`` is processed in this process.

    Such data is summarised (on :func:`local_threads` threads) and merged in this process, without a Dask graph,
    even when a ``distributed.Client`` is active: shipping a few megabytes to
    a cluster costs more than counting them. ``local_below(0)`` sends every
    pass to the client (or to Dask's threaded scheduler); a large value keeps
    more data local. The default is :data:`LOCAL_BELOW`.

    Parameters
    ----------
    n_bytes : int
        In-memory inputs smaller than this many bytes run in this process.

    Examples
    --------
    >>> from nbparallel import local_below, run_pass
    >>> with local_below(0):
    ...     run_pass([1, 2, 3], lambda x: x, max)[0]
    3
    """
    if isinstance(n_bytes, bool) or not isinstance(n_bytes, int) or n_bytes < 0:
        raise ValueError(f"local_below takes a number of bytes >= 0, got {n_bytes!r}")
    reset = _local_below.set(n_bytes)
    try:
        yield
    finally:
        _local_below.reset(reset)


def local_below_bytes():
    """The current :func:`local_below` threshold, in bytes."""
    return _local_below.get()


def local_threads():
    """Threads that run a pass in this process: Dask's ``num_workers`` setting when one is made (as
    ``dask.config.set(num_workers=2)`` or :func:`threads` limits Dask's threaded scheduler), else one per core.

    >>> with threads(3):
    ...     local_threads()
    3
    """
    n = dask_backend.configured_threads()
    return (os.cpu_count() or 1) if n is None else n


@contextlib.contextmanager
def threads(n):
    """Within the block, passes in this process (and on Dask's threaded scheduler) run on ``n`` threads.

    Parameters
    ----------
    n : int
        Number of threads, >= 1.
    """
    with dask_backend.threads_set(n):
        yield


def on_cluster():
    """Whether a cluster (a running ``distributed.Client``) is active: tasks not run locally run on its
    workers, not in this process."""
    return dask_backend.active_client() is not None


def token_of(*args):
    """A deterministic token of ``args`` (equal values, equal tokens), for task names and store keys."""
    return dask_backend.tokenize(*args)


def _n_bytes(part):
    """Approximate in-memory size of a concrete partition (0 when unknown)."""
    if isinstance(part, (tuple, list)):
        return sum(_n_bytes(p) for p in part)
    if hasattr(part, "memory_usage") and hasattr(part, "columns"):  # a pandas DataFrame
        return int(part.memory_usage(index=False).sum())
    if hasattr(part, "indptr") and hasattr(part, "indices"):  # a scipy.sparse CSR/CSC matrix
        return int(part.data.nbytes + part.indices.nbytes + part.indptr.nbytes)
    if hasattr(part, "get_total_buffer_size"):  # a pyarrow Table: nbytes is slow over many files' chunks
        return int(part.get_total_buffer_size())
    return int(getattr(part, "nbytes", 0) or 0)


def _runs_locally(partitions, client):
    if not all(type(p) is tuple for p in partitions) and any(dask_backend.is_held(p) for p in partitions):
        return False  # (a tuple of values is never held elsewhere)
    threshold = _local_below.get()
    if threshold == 0:
        return False
    return (len(partitions) == 1 and client is None) or sum(map(_n_bytes, partitions)) < threshold


def runs_locally(partitions):
    """Whether a pass over ``partitions`` runs in this process, without a task graph.

    True when every partition is in memory and either their total size is
    under :func:`local_below`, or there is a single partition and no cluster. A Spark DataFrame's partitions
    and a Ray Dataset's blocks never do.
    """
    held = spark_backend(partitions) or ray_backend(partitions)
    return held is None and _runs_locally(partitions, dask_backend.active_client())


_LOCAL = LocalBackend(local_threads)


def backend_for(partitions=None):
    """The backend that runs a pass over ``partitions``: Spark's executors for a Spark DataFrame's partitions,
    Ray's tasks for a Ray Dataset's blocks, this process's threads when they stay local (:func:`runs_locally`),
    else Dask (on the active client, or its threaded scheduler). Without ``partitions``, the backend of data
    that does not stay local."""
    if partitions and type(partitions[0]) is not tuple:  # a tuple of values is no engine's partition
        engine = spark_backend(partitions) or ray_backend(partitions)
        if engine is not None:
            return engine
    client = dask_backend.active_client()
    if partitions is not None and _runs_locally(partitions, client):
        return _LOCAL
    return dask_backend.DaskBackend(client, local_threads)


def available_workers():
    """Number of threads that will run tasks: the cluster's, or :func:`local_threads`."""
    return backend_for().threads()


def map_locally(fns, partitions):
    """``[f(p) for f, p in zip(fns, partitions)]``, on :func:`local_threads` threads when there are several
    partitions.

    The kernels release the GIL, so the partitions are counted at the same
    time, one per thread, not one after the other. Each function runs
    in a copy of the caller's context (its ``local_below`` and numpy error
    state); one that runs a pass itself runs that pass in its own thread.
    A function's error is raised once no other one runs (those not yet
    started are dropped), so no task writes after the caller cleans up.
    """
    return _LOCAL.map(partitions, fns)


def _per_partition(fn, partitions):
    """``fn`` as one function per partition (it may already be a list of them)."""
    if isinstance(fn, (list, tuple)):
        if len(fn) != len(partitions):
            raise ValueError(f"{len(fn)} functions for {len(partitions)} partitions")
        return list(fn)
    return [fn] * len(partitions)


def persist(partitions):
    """The partitions kept in memory for several passes.

    Local in-memory data is returned as it is; recipes are computed; on a client, recipes are
    persisted on the workers and concrete partitions sent to them (unless they stay local, see
    :func:`runs_locally`).
    """
    return backend_for(partitions).persist(partitions)


def pass_token(data_token=None):
    """The part of a pass's task keys that sets them apart: a random part, then the data's token when given.

    Random rather than a hash of the pass's functions and arguments: hashing pickles every model and table
    they carry (tens of milliseconds for a cross-validation's ten models), and no two passes share keys
    anyway (each computes its own result from its own functions). Its 32 hex digits come first, where
    :func:`~nbparallel.engine.backends.dask.pass_kind` finds the end of a key's kind.
    """
    unique = uuid.uuid4().hex
    return f"{unique}-{data_token}" if data_token else unique


def run_pass(partitions, summarize, merge, *, split_every=2, name="pass", token=None, verbose=False):
    """Summarize every partition and merge the summaries with a tree.

    Parameters
    ----------
    partitions : list
        The partitions, each a concrete value, a recipe of :mod:`nbparallel.engine.recipes`
        (for example a partition read from a file inside its task) or a ``dask.delayed`` object.
    summarize : callable or list of callables
        Pure function ``summarize(partition) -> summary``, or one per partition.
    merge : callable
        ``merge(*summaries) -> summary``, associative and commutative.
    split_every : int >= 2, False or None
        Fan-in of the reduction tree (2 by default, False for one flat merge).
    name : str
        Name of the pass, the prefix of its task keys.
    token : str, optional
        Identifies the data in the task keys, after a part unique to this pass (:func:`pass_token`).
    verbose : bool
        Show a progress bar (not for a pass that runs in this process).

    Returns
    -------
    summary : object
        The merged summary.
    record : nbparallel.engine.reduce.TreeRecord
        The shape of the reduction tree.

    Examples
    --------
    >>> from nbparallel import run_pass
    >>> summary, record = run_pass([1, 2, 3, 4], lambda x: x * x, lambda *s: sum(s))
    >>> summary, record.height
    (30, 2)
    """
    fan_in(split_every, len(partitions))  # a bad split_every fails before any work
    backend = backend_for(partitions)
    return backend.map_reduce(partitions, _per_partition(summarize, partitions), merge, split_every, name=name,
                              token=pass_token(token), verbose=verbose)


def map_partitions(partitions, fn, *, name="map", token=None, verbose=False):
    """Apply ``fn`` to every partition and return the results in order."""
    backend = backend_for(partitions)
    return backend.map(partitions, _per_partition(fn, partitions), name=name,
                       token=None if backend is _LOCAL else pass_token(token), verbose=verbose)  # no task keys


def _itself(value):
    return value


def map_read_partitions(readers, fn, *, name="map", token=None, verbose=False):
    """:func:`map_partitions` of partitions that their tasks read: ``readers`` are small objects, each the
    recipe of one partition (as a file's reader is), given to ``fn`` inside the task that reads its rows.

    Without a cluster, with no progress shown or observed and passes allowed to run locally (:func:`local_below` not
    0), they run on this process's threads (:func:`map_locally`): no task graph is built and scheduled for
    rows that never leave this process. Else each reader is the argument of a task and is read where
    that task runs (on a cluster, by its worker).
    """
    if not on_cluster() and not verbose and current_observer() is None and _local_below.get() != 0:
        return map_locally(_per_partition(fn, readers), readers)
    unique = pass_token(token)
    partitions = [Read(partial(_itself, reader), key=f"{name}-reader-{unique}-{i}")  # not searched, not hashed
                  for i, reader in enumerate(readers)]
    return map_partitions(partitions, fn, name=name, token=token, verbose=verbose)

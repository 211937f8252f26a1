"""Run one map-reduce pass on whatever executes it.

A pass maps a pure function over the partitions, each giving a small summary,
and merges the summaries with the binary tree of :mod:`nbparallel.engine.reduce`.
Where it runs is decided here, explicitly, never by Dask's global ``scheduler`` setting:

- in this process, without a Dask graph, when the data is in memory and
  smaller than :func:`local_below` bytes (or a single in-memory partition
  with no cluster): a small fit costs what its counting costs, even with a
  ``distributed.Client`` open; several partitions are summarised on
  :func:`local_threads` threads (one per core, or Dask's ``num_workers``);
- on the active ``distributed.Client`` (a running one) otherwise;
- on Dask's threaded scheduler when there is no client (as many threads),
  except partitions given as readers that their tasks call
  (:func:`map_read_partitions`), which run on this process's threads unless
  progress is shown or observed.

Every way merges along the same tree and returns the same
:class:`nbparallel.engine.reduce.TreeRecord`. The engine knows nothing of what the
summaries mean.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import threading
import uuid
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

from nbparallel.engine.progress import ProgressLine
from nbparallel.engine.reduce import fan_in, reduce_now, tree_reduce

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


def active_client():
    """The active, running ``distributed.Client``, or None for local execution.

    A client that failed to connect (it may linger as Dask's default client)
    is not active.
    """
    if "distributed" not in sys.modules:  # no client can exist; do not import distributed
        return None
    from distributed import default_client

    try:
        client = default_client()
    except ValueError:
        return None
    return client if client.status == "running" else None


def local_threads():
    """Threads that run a pass in this process: Dask's ``num_workers`` setting when one is made (as
    ``dask.config.set(num_workers=2)`` limits Dask's threaded scheduler), else one per core.

    >>> import dask
    >>> with dask.config.set(num_workers=3):
    ...     local_threads()
    3
    """
    import dask

    n = dask.config.get("num_workers", None)
    if n is None:
        return os.cpu_count() or 1
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"Dask's num_workers setting must be an integer >= 1, got {n!r}")
    return n


def available_workers():
    """Number of threads that will run tasks: the cluster's, or :func:`local_threads`."""
    client = active_client()
    if client is not None:
        n = sum(client.nthreads().values())
        if n:
            return n
    return local_threads()


def _is_lazy(part):
    """True for a delayed partition or one held by a cluster (a Future)."""
    return hasattr(part, "__dask_graph__") or type(part).__name__ == "Future"


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


def runs_locally(partitions, client=None):
    """Whether a pass over ``partitions`` runs in this process, without a Dask graph.

    True when every partition is in memory and either their total size is
    under :func:`local_below`, or there is a single partition and no client.
    """
    if any(_is_lazy(p) for p in partitions):
        return False
    threshold = _local_below.get()
    if threshold == 0:
        return False
    return (len(partitions) == 1 and client is None) or sum(map(_n_bytes, partitions)) < threshold


def _local_scheduler(partitions):
    """The threaded scheduler, or the synchronous one for a single (lazy) partition."""
    return "sync" if len(partitions) == 1 else "threads"


def _scheduler_function(name):
    """Dask's local scheduler ``name`` as its function.

    Given a name, ``dask.compute`` imports ``distributed`` to look for a
    client (a heavy import, once per process); the function it runs needs
    none of that.
    """
    if name == "sync":
        from dask.local import get_sync

        return get_sync
    from dask.threaded import get

    return get


_local = threading.local()  # .pool: this thread is one of the pool's


_pools = (None, {})  # (the process id that made them, {threads: pool}): a forked child makes its own


_pool_lock = threading.Lock()


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
    global _pools
    if len(partitions) < 2 or getattr(_local, "pool", False):  # one partition: no threads to ask about
        return [f(p) for f, p in zip(fns, partitions)]
    threads = local_threads()
    if threads < 2:
        return [f(p) for f, p in zip(fns, partitions)]
    with _pool_lock:
        if _pools[0] != os.getpid():
            _pools = (os.getpid(), {})
        pool = _pools[1].get(threads)
        if pool is None:
            pool = _pools[1][threads] = ThreadPoolExecutor(threads, thread_name_prefix="nbparallel-local",
                                                           initializer=lambda: setattr(_local, "pool", True))
    futures = [pool.submit(contextvars.copy_context().run, f, p) for f, p in zip(fns, partitions)]
    wait(futures, return_when=FIRST_EXCEPTION)
    for future in futures:  # after a failure, the tasks not yet started never start
        future.cancel()
    wait(futures)  # and the failure is raised once no task runs: none writes after the caller cleans up
    failed = next((f for f in futures if not f.cancelled() and f.exception() is not None), None)
    if failed is not None:
        raise failed.exception()
    return [future.result() for future in futures]


def _per_partition(fn, partitions):
    """``fn`` as one function per partition (it may already be a list of them)."""
    if isinstance(fn, (list, tuple)):
        if len(fn) != len(partitions):
            raise ValueError(f"{len(fn)} functions for {len(partitions)} partitions")
        return list(fn)
    return [fn] * len(partitions)


def _leaves(partitions, fn, name, token, client):
    """One task per partition applying ``fn`` (or its own function of the list ``fn``),
    and the futures the caller must hold.

    On a distributed client, concrete data is scattered to the workers once;
    the returned futures keep it there until the pass is computed.
    """
    from dask import delayed

    parts = list(partitions)
    concrete = [i for i, p in enumerate(parts) if not _is_lazy(p)]
    futures = []
    if client is not None and concrete:
        futures = client.scatter([parts[i] for i in concrete], hash=False)
        for i, future in zip(concrete, futures):
            parts[i] = future
    leaves = [
        delayed(f, pure=False)(part, dask_key_name=f"{name}-map-{token}-{i}")  # named: nothing hashed
        for i, (f, part) in enumerate(zip(_per_partition(fn, parts), parts))
    ]
    return leaves, futures


def compute(obj, verbose=False, *, scheduler="threads", partitions=None):
    """Compute a delayed object (or a list of them) on the active client or ``scheduler``.

    When ``verbose``, the pass is drawn on stderr, never into the output: on the labelled
    :class:`~nbparallel.engine.progress.ProgressLine` locally, on distributed's bar on a client; while
    :func:`observe_passes` holds an observer, the observer is told instead.

    The local scheduler is always named explicitly, so a Dask config left
    behind by a failed ``distributed.Client`` cannot redirect it. When the
    graph reads ``partitions`` that stay local (:func:`runs_locally`), it is
    computed in this thread even with a client.
    """
    import dask

    client = active_client()
    if partitions is not None and runs_locally(partitions, client):
        return dask.compute(obj, scheduler=_scheduler_function("sync"))[0]
    observer = _observer.get()
    if observer is not None:  # the observer shows the pass; no bar of its own
        return _compute_observed(obj, observer, client, scheduler)
    if client is None:
        if not verbose:
            return dask.compute(obj, scheduler=_scheduler_function(scheduler))[0]
        return _compute_observed(obj, ProgressLine(numbered=False), client, scheduler)
    future = client.compute(obj)
    if verbose:
        from distributed import progress

        with contextlib.redirect_stdout(sys.stderr):  # distributed's text bar writes to stdout
            progress(future)
    return client.gather(future)


_KIND = None


def pass_kind(obj):
    """The pass kind of a computation from its task keys (``nbparallel-KIND-...-<token>``), or None.

    The kind is the ``name`` its caller gave the pass: the engine carries it to the observer, unread.
    """
    import re

    global _KIND
    if _KIND is None:
        _KIND = re.compile(r"nbparallel-([a-z-]+?)(?:-(?:map|summary|state))?-[0-9a-f]{32}")
    first = obj[0] if isinstance(obj, (list, tuple)) and obj else obj
    match = _KIND.match(str(getattr(first, "key", "")))
    return match.group(1) if match else None


class PassObserver:
    """What is told of every pass run on Dask while :func:`observe_passes` holds it (the methods do nothing
    here; an observer overrides those it needs).

    Events are generic: a pass of a kind (the ``name`` its caller gave it, or None) started, ``done`` of its
    ``total`` tasks are finished, the pass finished. What a kind means, and how it is shown, is the
    observer's business.
    """

    def pass_started(self, kind):
        """A pass of ``kind`` starts."""

    def pass_progressed(self, done, total):
        """``done`` of the pass's ``total`` tasks are finished (told only on Dask's local schedulers)."""

    def pass_finished(self):
        """The pass ended (done, or failed)."""


_observer = contextvars.ContextVar("nbparallel_pass_observer", default=None)


@contextlib.contextmanager
def observe_passes(observer):
    """Within the block, every pass run on Dask tells ``observer`` (a :class:`PassObserver`) how it goes,
    instead of drawing a bar of its own.

    Parameters
    ----------
    observer : PassObserver
        Told ``pass_started(kind)``, ``pass_progressed(done, total)`` and ``pass_finished()``.

    Examples
    --------
    >>> from nbparallel import observe_passes
    >>> class Printer:
    ...     def pass_started(self, kind): print("started", kind)
    ...     def pass_progressed(self, done, total): pass
    ...     def pass_finished(self): print("finished")
    >>> with observe_passes(Printer()):
    ...     pass
    """
    reset = _observer.set(observer)
    try:
        yield observer
    finally:
        _observer.reset(reset)


def _task_callback(observer):
    """A Dask local-scheduler callback that tells ``observer`` of every finished task."""
    from dask.callbacks import Callback

    class Tasks(Callback):
        def _start_state(self, dsk, state):
            self.total = max(1, sum(len(state[k]) for k in ("ready", "waiting", "running")) + len(
                state.get("finished", ())))
            self.done = 0

        def _posttask(self, key, result, dsk, state, worker_id):
            self.done += 1
            observer.pass_progressed(min(self.done, self.total), self.total)

    return Tasks()


def _compute_observed(obj, observer, client, scheduler):
    """Compute ``obj``, telling ``observer`` the pass's start, progress and end."""
    import dask

    observer.pass_started(pass_kind(obj))
    try:
        if client is None:
            with _task_callback(observer):
                return dask.compute(obj, scheduler=_scheduler_function(scheduler))[0]
        return client.gather(client.compute(obj))
    finally:
        observer.pass_finished()


def persist(partitions):
    """The partitions kept in memory for several passes.

    Local in-memory data is returned as it is; delayed partitions are
    computed; on a client, lazy partitions are persisted on the workers and
    concrete ones scattered to them (unless they stay local, see
    :func:`runs_locally`).
    """
    import dask

    client = active_client()
    parts = list(partitions)
    if runs_locally(parts, client):
        return parts
    if client is None:
        lazy = [i for i, p in enumerate(parts) if _is_lazy(p)]
        persisted = dask.persist(*[parts[i] for i in lazy], scheduler=_scheduler_function("threads"))
        for i, value in zip(lazy, persisted):
            parts[i] = value
        return parts
    lazy = [p for p in parts if _is_lazy(p)]
    concrete = [p for p in parts if not _is_lazy(p)]
    kept = iter(client.persist(lazy)) if lazy else iter(())
    scattered = iter(client.scatter(concrete, hash=False)) if concrete else iter(())
    return [next(kept) if _is_lazy(p) else next(scattered) for p in parts]


class LostDataError(RuntimeError):
    """In-memory partitions sent to the cluster were lost with a worker (killed, or its link cut).

    Partitions read from files or computed by Dask are recomputed elsewhere
    when a worker leaves; data scattered from this process cannot be.
    """


@contextlib.contextmanager
def lost_data_as_error(name, scattered):
    """Turn Dask's cancellation of a pass whose scattered partitions were lost into a :class:`LostDataError`."""
    try:
        yield
    except Exception as exc:
        from concurrent.futures import CancelledError

        if not scattered or not isinstance(exc, CancelledError):
            raise
        raise LostDataError(
            f"pass {name!r} lost its data: a worker holding in-memory partitions sent to the cluster left it "
            f"(killed, or its network link cut), and such partitions cannot be recomputed; run it again, or give "
            f"the data as files or a Dask collection, whose partitions are recomputed on the other workers "
            f"(Dask: {exc})") from exc


def pass_token(data_token=None):
    """The part of a pass's task keys that sets them apart: a random part, then the data's token when given.

    Random rather than a hash of the pass's functions and arguments: hashing pickles every model and table
    they carry (tens of milliseconds for a cross-validation's ten models), and no two passes share keys
    anyway (each computes its own result from its own functions). Its 32 hex digits come first, where
    :func:`pass_kind` finds the end of a key's kind.
    """
    unique = uuid.uuid4().hex
    return f"{unique}-{data_token}" if data_token else unique


def run_pass(partitions, summarize, merge, *, split_every=2, name="pass", token=None, verbose=False):
    """Summarize every partition and merge the summaries with a tree.

    Parameters
    ----------
    partitions : list
        The partitions, each a concrete value or a ``dask.delayed`` object
        (for example a partition read from a file inside its task).
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
    client = active_client()
    if runs_locally(partitions, client):
        return reduce_now(map_locally(_per_partition(summarize, partitions), partitions), merge, split_every)
    token = pass_token(token)
    leaves, scattered = _leaves(partitions, summarize, name, token, client)
    root, record = tree_reduce(leaves, merge, split_every, name=f"{name}-{token}")
    with lost_data_as_error(name, scattered):
        result = compute(root, verbose, scheduler=_local_scheduler(partitions))
    del scattered  # the data may leave the workers now
    return result, record


def map_partitions(partitions, fn, *, name="map", token=None, verbose=False):
    """Apply ``fn`` to every partition and return the results in order."""
    client = active_client()
    if runs_locally(partitions, client):
        return map_locally(_per_partition(fn, partitions), partitions)
    token = pass_token(token)
    leaves, scattered = _leaves(partitions, fn, name, token, client)
    with lost_data_as_error(name, scattered):
        results = list(compute(leaves, verbose, scheduler=_local_scheduler(partitions)))
    del scattered
    return results


def map_read_partitions(readers, fn, *, name="map", token=None, verbose=False):
    """:func:`map_partitions` of partitions that their tasks read: ``readers`` are small objects, each the
    recipe of one partition (as a file's reader is), given to ``fn`` inside the task that reads its rows.

    Without a cluster, with no progress shown or observed and passes allowed to run locally (:func:`local_below` not
    0), they run on this process's threads (:func:`map_locally`): no Dask graph is built and scheduled for
    rows that never leave this process. Else each reader is the argument of a Dask task and is read where
    that task runs (on a cluster, by its worker).
    """
    from dask import delayed

    if active_client() is None and not verbose and _observer.get() is None and _local_below.get() != 0:
        return map_locally(_per_partition(fn, readers), readers)
    unique = pass_token(token)
    partitions = [delayed(reader, name=f"{name}-reader-{unique}-{i}", traverse=False)  # not searched, not hashed
                  for i, reader in enumerate(readers)]
    return map_partitions(partitions, fn, name=name, token=token, verbose=verbose)

"""The Dask backend: a pass's tasks on the active ``distributed.Client``, or on Dask's threaded scheduler.

Partitions become Dask tasks here and nowhere else: a concrete one is scattered to a cluster's workers once
(or put in the graph without a cluster), a :class:`~nbparallel.engine.recipes.Read` becomes a task that
makes it, a :class:`~nbparallel.engine.recipes.Block` the task of its Dask objects. The summaries are merged
by a tree of Dask tasks shaped as :func:`nbparallel.engine.reduce.plan` shapes every backend's. The local
scheduler is always named explicitly, so a Dask config left behind by a failed client cannot redirect it.
Dask and distributed are imported only when a pass needs them.
"""

from __future__ import annotations

import contextlib
import re
import sys
import weakref
from operator import getitem

from nbparallel.engine.backends import Backend, LostDataError
from nbparallel.engine.backends.local import machine_memory
from nbparallel.engine.observing import current_observer
from nbparallel.engine.progress import ProgressLine
from nbparallel.engine.recipes import Block, Read, is_recipe
from nbparallel.engine.reduce import plan


def active_client():
    """The active, running ``distributed.Client``, or None.

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


def configured_threads():
    """Dask's ``num_workers`` setting (as ``dask.config.set(num_workers=2)`` makes it), or None."""
    import dask

    n = dask.config.get("num_workers", None)
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"Dask's num_workers setting must be an integer >= 1, got {n!r}")
    return n


@contextlib.contextmanager
def threads_set(n):
    """Within the block, Dask's ``num_workers`` setting is ``n``."""
    import dask

    with dask.config.set(num_workers=n):
        yield


def tokenize(*args):
    """Dask's deterministic token of ``args``: equal for equal values."""
    from dask.base import tokenize as dask_tokenize

    return dask_tokenize(*args)


def is_dask_object(part):
    """True for a Dask collection or delayed object, or a value held by a cluster (a Future), given as a
    partition as it is."""
    return hasattr(part, "__dask_graph__") or type(part).__name__ == "Future"


def is_held(part):
    """Whether a partition is not a value in this process: a recipe, or a Dask object (:func:`is_dask_object`)."""
    return is_recipe(part) or is_dask_object(part)


_tasks = weakref.WeakKeyDictionary()  # recipe -> its Dask object, made once


def task_of(recipe):
    """The Dask object (a ``Delayed`` or a ``Future``) that makes a recipe's partition."""
    task = _tasks.get(recipe)
    if task is None:
        from dask import delayed

        if isinstance(recipe, Read):  # named: the function's arguments are neither tokenized nor searched
            task = delayed(recipe.fn, name=recipe.key, pure=True)(dask_key_name=recipe.key)
        elif recipe.fn is None:
            task = recipe.handles[0]
        else:
            task = delayed(recipe.fn, pure=True)(*recipe.handles, *recipe.args)
        _tasks[recipe] = task
    return task


def _task(part):
    """A recipe's Dask object, or a Dask object as it is."""
    return task_of(part) if is_recipe(part) else part


def tree_reduce(leaves, merge, split_every=2, name="reduce"):
    """Build the reduction tree of :func:`nbparallel.engine.reduce.plan` over Dask delayed leaves.

    Parameters
    ----------
    leaves : list of dask.delayed.Delayed
        The partition summaries, in partition order.
    merge : callable
        ``merge(*summaries) -> summary``, associative; called with 2 to
        ``split_every`` arguments, left to right in partition order.
    split_every : int >= 2, False or None
        Fan-in of each merge task; False merges everything in one task.
    name : str
        Prefix of the merge task keys; include a token of the inputs so that
        the same inputs give the same keys.

    Returns
    -------
    root : dask.delayed.Delayed
        The merged summary.
    record : TreeRecord
        The shape of the tree.
    """
    from dask import delayed

    levels, record = plan(len(leaves), split_every)
    level = list(leaves)
    for height, groups in enumerate(levels, start=1):
        level = [
            level[a] if b - a == 1
            else delayed(merge, pure=True)(*level[a:b], dask_key_name=f"{name}-merge-{height}-{i}")
            for i, (a, b) in enumerate(groups)
        ]
    return level[0], record


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


def compute(obj, verbose=False, client=None, *, scheduler="threads"):
    """Compute a delayed object (or a list of them) on ``client``, or on Dask's local ``scheduler``.

    When ``verbose``, the pass is drawn on stderr, never into the output: on the labelled
    :class:`~nbparallel.engine.progress.ProgressLine` locally, on distributed's bar on a client; while
    :func:`~nbparallel.engine.observing.observe_passes` holds an observer, the observer is told instead.
    """
    import dask

    observer = current_observer()
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
    global _KIND
    if _KIND is None:
        _KIND = re.compile(r"nbparallel-([a-z-]+?)(?:-(?:map|summary|state))?-[0-9a-f]{32}")
    first = obj[0] if isinstance(obj, (list, tuple)) and obj else obj
    match = _KIND.match(str(getattr(first, "key", "")))
    return match.group(1) if match else None


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


@contextlib.contextmanager
def lost_data_as_error(name, scattered):
    """Turn Dask's cancellation of a pass whose scattered partitions were lost into a
    :class:`~nbparallel.engine.backends.LostDataError`."""
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


def _local_scheduler(partitions):
    """The threaded scheduler, or the synchronous one for a single partition."""
    return "sync" if len(partitions) == 1 else "threads"


def _worker_limits(client):
    return [w.get("memory_limit") or 0 for w in client.scheduler_info()["workers"].values()]


class DaskBackend(Backend):
    """Dask: the tasks run on ``client``'s workers, or on Dask's threaded scheduler without one.

    Parameters
    ----------
    client : distributed.Client or None
        The running client (:func:`active_client`), or None.
    local_threads : callable
        Returns this process's number of threads (for a client whose workers report none).
    """

    def __init__(self, client, local_threads):
        self.client = client
        self.in_process = client is None
        self._local_threads = local_threads

    def threads(self):
        """The cluster's threads, else this process's."""
        if self.client is not None:
            n = sum(self.client.nthreads().values())
            if n:
                return n
        return self._local_threads()

    def _leaves(self, partitions, fns, name, token):
        """One task per partition applying its function, and the futures the caller must hold.

        On a client, concrete data is scattered to the workers once; the returned futures keep it there
        until the pass is computed.
        """
        from dask import delayed

        parts = [task_of(p) if is_recipe(p) else p for p in partitions]
        concrete = [i for i, p in enumerate(partitions) if not is_held(p)]
        futures = []
        if self.client is not None and concrete:
            futures = self.client.scatter([parts[i] for i in concrete], hash=False)
            for i, future in zip(concrete, futures):
                parts[i] = future
        leaves = [
            delayed(f, pure=False)(part, dask_key_name=f"{name}-map-{token}-{i}")  # named: nothing hashed
            for i, (f, part) in enumerate(zip(fns, parts))
        ]
        return leaves, futures

    def map(self, partitions, fns, *, name="map", token=None, verbose=False):
        """``[fn(part) ...]`` as one Dask task per partition."""
        leaves, scattered = self._leaves(partitions, fns, name, token)
        with lost_data_as_error(name, scattered):
            results = list(compute(leaves, verbose, self.client, scheduler=_local_scheduler(partitions)))
        del scattered  # the data may leave the workers now
        return results

    def map_reduce(self, partitions, fns, merge, split_every, *, name="pass", token=None, verbose=False):
        """The summaries merged by a tree of Dask tasks."""
        leaves, scattered = self._leaves(partitions, fns, name, token)
        root, record = tree_reduce(leaves, merge, split_every, name=f"{name}-{token}")
        with lost_data_as_error(name, scattered):
            result = compute(root, verbose, self.client, scheduler=_local_scheduler(partitions))
        del scattered
        return result, record

    def map_reduce_stateful(self, partitions, states, fns, merge, split_every, *, keep, name="pass", token=None,
                            verbose=False):
        """:meth:`map_reduce` of ``fn(part, state)``; kept states stay on the workers (on a client) or
        come to this process."""
        from dask import delayed

        parts = [task_of(p) if is_recipe(p) else p for p in partitions]
        leaves = [delayed(fn, pure=True)(part, state, dask_key_name=f"{name}-map-{token}-{i}")
                  for i, (fn, part, state) in enumerate(zip(fns, parts, states))]
        summaries = [delayed(getitem, pure=True)(leaf, 1, dask_key_name=f"{name}-summary-{token}-{i}")
                     for i, leaf in enumerate(leaves)]
        new_states = [delayed(getitem, pure=True)(leaf, 0, dask_key_name=f"{name}-state-{token}-{i}")
                      for i, leaf in enumerate(leaves)] if keep else []
        root, record = tree_reduce(summaries, merge, split_every, name=f"{name}-{token}")
        if self.client is not None and new_states:
            root, *kept = self.client.persist([root, *new_states])
            return root.compute(), record, kept
        summary, *kept = compute([root, *new_states], verbose, self.client)
        return summary, record, kept if keep else None

    def persist(self, partitions):
        """Recipes computed and kept (on the workers with a client); concrete partitions scattered to a
        client's workers, else kept as they are."""
        import dask

        parts = list(partitions)
        lazy = [i for i, p in enumerate(parts) if is_held(p)]
        if self.client is None:
            persisted = dask.persist(*[_task(parts[i]) for i in lazy], scheduler=_scheduler_function("threads"))
            for i, value in zip(lazy, persisted):
                parts[i] = Block((value,))
            return parts
        concrete = [i for i, p in enumerate(parts) if not is_held(p)]
        kept = self.client.persist([_task(parts[i]) for i in lazy]) if lazy else []
        scattered = self.client.scatter([parts[i] for i in concrete], hash=False) if concrete else []
        for i, value in [*zip(lazy, kept), *zip(concrete, scattered)]:
            parts[i] = Block((value,))
        return parts

    def memory(self):
        """The sum of the workers' memory limits (None without limits), or this machine's free memory."""
        if self.client is None:
            return machine_memory()
        return sum(_worker_limits(self.client)) or None

    def worker_memory_limit(self):
        """The smallest worker memory limit, or None (no client, or no limits)."""
        if self.client is None:
            return None
        limits = _worker_limits(self.client)
        return min(limits) if limits and min(limits) > 0 else None

"""The local backend: a pass's tasks on this process's threads, without any graph.

The kernels release the GIL, so the partitions are counted at the same time, one per thread; the summaries
are merged in this process along the same tree as every backend's (:func:`nbparallel.engine.reduce.reduce_now`).
"""

from __future__ import annotations

import contextvars
import os
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from functools import partial

from nbparallel.engine.backends import Backend
from nbparallel.engine.reduce import reduce_now

_local = threading.local()  # .pool: this thread is one of the pool's


_pools = (None, {})  # (the process id that made them, {threads: pool}): a forked child makes its own


_pool_lock = threading.Lock()


def in_pool():
    """Whether this thread is one of the pools' (a pass run from a task runs in that task's thread)."""
    return getattr(_local, "pool", False)


def map_on_threads(fns, partitions, threads):
    """``[f(p) for f, p in zip(fns, partitions)]`` on ``threads`` threads of a pool kept for the process.

    Each function runs in a copy of the caller's context (its ``local_below`` and numpy error state). A
    function's error is raised once no other one runs (those not yet started are dropped), so no task
    writes after the caller cleans up.
    """
    global _pools
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


def machine_memory():
    """This machine's free memory in bytes (None without psutil)."""
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil comes with distributed
        return None
    return psutil.virtual_memory().available


class LocalBackend(Backend):
    """This process's threads.

    Parameters
    ----------
    threads : callable
        Returns the number of threads, asked only when there are several partitions to run.
    """

    in_process = True

    def __init__(self, threads):
        self._threads = threads

    def threads(self):
        """Number of threads that run tasks."""
        return self._threads()

    def map(self, partitions, fns, *, name="map", token=None, verbose=False):
        """``[fn(part) ...]``, on :meth:`threads` threads when there are several partitions."""
        if len(partitions) < 2 or in_pool():  # one partition: no threads to ask about
            return [f(p) for f, p in zip(fns, partitions)]
        threads = self.threads()
        if threads < 2:
            return [f(p) for f, p in zip(fns, partitions)]
        return map_on_threads(fns, partitions, threads)

    def map_reduce(self, partitions, fns, merge, split_every, *, name="pass", token=None, verbose=False):
        """The summaries made by :meth:`map`, merged in this process."""
        return reduce_now(self.map(partitions, fns), merge, split_every)

    def map_reduce_stateful(self, partitions, states, fns, merge, split_every, *, keep, name="pass", token=None,
                            verbose=False):
        """:meth:`map_reduce` of ``fn(part, state)``; the new states are kept in this process."""
        leaves = self.map(partitions, [partial(fn, state=state) for fn, state in zip(fns, states)])
        summary, record = reduce_now([leaf[1] for leaf in leaves], merge, split_every)
        return summary, record, [leaf[0] for leaf in leaves] if keep else None

    def persist(self, partitions):
        """The partitions as they are: they are in this process's memory."""
        return list(partitions)

    def memory(self):
        """This machine's free memory (:func:`machine_memory`)."""
        return machine_memory()

    def worker_memory_limit(self):
        """None: no worker has a limit of its own."""
        return None

"""Run one map-reduce pass on whatever executes Dask graphs.

A pass maps a pure function over the partitions, each giving a small summary,
and merges the summaries with :func:`nbparallel.reduce.tree_reduce`. It runs on
the active ``distributed.Client`` when there is one, and on Dask's local
threaded scheduler otherwise (no set-up). The engine knows nothing of what the
summaries mean.
"""

from __future__ import annotations

import os

import dask
from dask import delayed
from dask.base import tokenize
from dask.delayed import Delayed

from .reduce import tree_reduce


def active_client():
    """The active ``distributed.Client``, or None to use the local scheduler."""
    try:
        from distributed import default_client
    except ImportError:  # pragma: no cover - distributed is a dependency
        return None
    try:
        return default_client()
    except ValueError:
        return None


def available_workers():
    """Number of threads that will run tasks: the cluster's, or this machine's cores."""
    client = active_client()
    if client is not None:
        n = sum(client.nthreads().values())
        if n:
            return n
    return os.cpu_count() or 1


def _is_lazy_or_remote(part):
    """True for a delayed partition or one already held by the cluster (a Future)."""
    if isinstance(part, Delayed):
        return True
    try:
        from distributed import Future
    except ImportError:  # pragma: no cover - distributed is a dependency
        return False
    return isinstance(part, Future)


def _leaves(partitions, fn, name, token):
    """One task per partition applying ``fn``, and the futures the caller must hold.

    On a distributed client, concrete data is scattered to the workers once;
    the returned futures keep it there until the pass is computed.
    """
    client = active_client()
    concrete = [i for i, p in enumerate(partitions) if not _is_lazy_or_remote(p)]
    parts = list(partitions)
    futures = []
    if client is not None and concrete:
        futures = client.scatter([parts[i] for i in concrete], hash=False)
        for i, future in zip(concrete, futures):
            parts[i] = future
    leaves = [
        delayed(fn, pure=True)(part, dask_key_name=f"{name}-map-{token}-{i}")
        for i, part in enumerate(parts)
    ]
    return leaves, futures


def compute(obj, verbose=False):
    """Compute a delayed object (or a list of them), with a progress bar if asked."""
    client = active_client()
    if not verbose:
        return dask.compute(obj)[0]
    if client is None:
        from dask.diagnostics import ProgressBar

        with ProgressBar():
            return dask.compute(obj)[0]
    from distributed import progress

    future = client.compute(obj)
    progress(future)
    return future.result()


def run_pass(partitions, summarize, merge, *, split_every=2, name="pass", token=None, verbose=False):
    """Summarize every partition and merge the summaries with a tree.

    Parameters
    ----------
    partitions : list
        The partitions, each a concrete value or a ``dask.delayed`` object
        (for example a partition read from a file inside its task).
    summarize : callable
        Pure function ``summarize(partition) -> summary``.
    merge : callable
        ``merge(*summaries) -> summary``, associative and commutative.
    split_every : int >= 2, False or None
        Fan-in of the reduction tree (2 by default, False for one flat merge).
    name : str
        Name of the pass, the prefix of its task keys.
    token : str, optional
        Identifies the data; the same data should give the same token. By
        default the partitions' identities. The task keys also depend on
        ``summarize`` and ``merge``.
    verbose : bool
        Show a progress bar.

    Returns
    -------
    summary : object
        The merged summary.
    record : nbparallel.reduce.TreeRecord
        The shape of the reduction tree.
    """
    token = tokenize(summarize, merge, token or [id(p) for p in partitions])
    leaves, scattered = _leaves(partitions, summarize, name, token)
    root, record = tree_reduce(leaves, merge, split_every, name=f"{name}-{token}")
    result = compute(root, verbose)
    del scattered  # the data may leave the workers now
    return result, record


def map_partitions(partitions, fn, *, name="map", token=None, verbose=False):
    """Apply ``fn`` to every partition and return the results in order."""
    token = tokenize(fn, token or [id(p) for p in partitions])
    leaves, scattered = _leaves(partitions, fn, name, token)
    results = list(compute(leaves, verbose))
    del scattered
    return results

"""Where a pass's tasks run: one small interface, :class:`Backend`, and its implementations.

- :mod:`~nbparallel.engine.backends.local`: this process's threads, for partitions in its memory;
- :mod:`~nbparallel.engine.backends.dask`: Dask, on the active ``distributed.Client`` or Dask's threaded
  scheduler, and Dask's collections as inputs (:mod:`~nbparallel.engine.backends.dask_collections`).

:func:`nbparallel.engine.execution.backend_for` chooses one per pass. Partitions are values in this
process's memory or the engine-neutral recipes of :mod:`nbparallel.engine.recipes`; a backend turns them
into its own tasks, and every backend merges the summaries along the tree of :mod:`nbparallel.engine.reduce`,
so the result is the same bit for bit wherever it ran. These modules (and :mod:`nbparallel.cluster`) are the
only ones that import an engine (``dask``, ``distributed``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class Backend(ABC):
    """What runs a pass's tasks.

    Every method takes the partitions as values or recipes (:mod:`nbparallel.engine.recipes`) and one
    function per partition; ``name`` prefixes the tasks' names and ``token`` sets them apart
    (:func:`nbparallel.engine.execution.pass_token`); ``verbose`` shows the pass's progress.
    """

    #: whether the tasks run in this process (and may write into its arrays)
    in_process = True

    @abstractmethod
    def threads(self):
        """Number of threads that run tasks."""

    @abstractmethod
    def map(self, partitions, fns, *, name, token, verbose=False):
        """``[fn(part) for fn, part in zip(fns, partitions)]``, in partition order."""

    @abstractmethod
    def map_reduce(self, partitions, fns, merge, split_every, *, name, token, verbose=False):
        """``(summary, record)``: the partitions' summaries merged along the tree of
        :func:`nbparallel.engine.reduce.plan`, and its :class:`~nbparallel.engine.reduce.TreeRecord`."""

    @abstractmethod
    def map_reduce_stateful(self, partitions, states, fns, merge, split_every, *, keep, name, token,
                            verbose=False):
        """``(summary, record, states)``: ``fn(part, state) -> (new_state, summary)`` on every partition, the
        summaries merged as :meth:`map_reduce` merges them; with ``keep``, the new states are kept where they
        were made (values, or this backend's recipes) for the next pass, else ``states`` is None."""

    @abstractmethod
    def persist(self, partitions):
        """The partitions kept in memory (this process's, or the workers') for several passes."""

    @abstractmethod
    def memory(self):
        """Bytes of memory the tasks can hold together, or None when unknown."""

    @abstractmethod
    def worker_memory_limit(self):
        """The smallest memory limit of one worker, or None (no workers, or no limits)."""


class LostDataError(RuntimeError):
    """In-memory partitions sent to the cluster were lost with a worker (killed, or its link cut).

    Partitions read from files or computed by the engine's collections are recomputed elsewhere
    when a worker leaves; data sent from this process cannot be.
    """

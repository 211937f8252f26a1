"""The pass scheduler: successive map-reduce passes over the same partitions.

Iterative algorithms run one pass after
another over the same data. :class:`PassScheduler` keeps the partitions in
memory between passes when they fit (in this process, or on a cluster's workers:
:meth:`nbparallel.engine.backends.Backend.persist`) and re-reads them otherwise, and
records every pass: its kind, the shape of its reduction tree and its wall
time. A *stateful* pass also leaves a per-partition value behind (for example
per-row weights) that the next stateful pass receives; it is kept
only while the partitions are, and the pass function rebuilds it when it gets
None. :class:`Checkpoint` saves the small driver-side state after each pass
as JSON so that an interrupted fit resumes where it stopped.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

from nbparallel.engine import execution
from nbparallel.engine.memory import available_memory, fits_in_memory


def _identity(X, y, w):
    return X, y, w


def _stateful_leaf(unpack, fn, args, part, state):
    return fn(*args, state, *unpack(part))


class PassScheduler:
    """Run and record successive passes over one dataset.

    Parameters
    ----------
    dataset : nbparallel.data.dataset.Dataset
        The partitions every pass reads.
    split_every : int >= 2 or False
        Fan-in of every pass's reduction tree.
    persist : "auto", True or False
        Keep the partitions (and the stateful passes' per-partition state) in
        memory between passes: always, never (re-read them for every pass), or
        when their estimated size is at most half the available memory.
    verbose : bool
        Show a progress bar for each pass.

    Attributes
    ----------
    passes : list of dict
        One entry per pass run: ``kind``, ``tree`` (a TreeRecord) and ``seconds``.
    persisted : bool
        Whether the partitions are kept in memory.
    """

    def __init__(self, dataset, *, split_every=2, persist="auto", verbose=False):
        if not (persist is True or persist is False or persist == "auto"):
            raise ValueError(f"persist must be 'auto', True or False, got {persist!r}")
        self.dataset = dataset
        self.split_every = split_every
        self.persist = persist
        self.verbose = verbose
        self.passes = []
        self.persisted = False
        self._states = None
        if persist is True:
            self._persist()

    # ------------------------------------------------------------ memory

    def _persist(self):
        """Keep the partitions in (worker) memory; concrete local data already is."""
        self.dataset = replace(self.dataset, partitions=execution.persist(self.dataset.partitions))
        self.persisted = True

    def keep_if_fits(self, n_rows):
        """With ``persist="auto"``, keep the partitions in memory when ``n_rows`` rows fit there."""
        if self.persist != "auto" or self.persisted:
            return
        n_bytes = 8 * n_rows * (len(self.dataset.columns) + 2)
        if fits_in_memory(n_bytes, available_memory()):
            self._persist()

    # ------------------------------------------------------------ passes

    def record(self, kind, record, start):
        """Record a pass run outside :meth:`run` (kind, tree record, start time from ``time.perf_counter``)."""
        self.passes.append({"kind": kind, "tree": record, "seconds": time.perf_counter() - start})

    def run(self, kind, fn, merge, *args):
        """One pass: ``fn(*args, X, y, w)`` summarizes each partition, ``merge`` combines.

        Returns the merged summary.
        """
        start = time.perf_counter()
        summary, record = execution.run_pass(
            self.dataset.partitions, self.dataset.map(fn, *args), merge, split_every=self.split_every,
            name=f"nbparallel-{kind}", token=self.dataset.token, verbose=self.verbose)
        self.record(kind, record, start)
        return summary

    def run_stateful(self, kind, fn, merge, *args):
        """One pass that also updates a per-partition state.

        ``fn(*args, state, X, y, w) -> (new_state, summary)``, where ``state`` is
        what the previous stateful pass left for this partition, or None on
        the first pass and whenever the partitions are not kept in memory
        (``fn`` must then rebuild it from the rows, by
        :meth:`nbparallel.data.schema.Schema.split`: ``X`` may be an Arrow
        table, and ``y`` a categorical Series that only
        :meth:`~nbparallel.data.schema.Schema.encode_classes` reads, see
        :meth:`nbparallel.data.dataset.Dataset.map`).

        It runs where :func:`~nbparallel.engine.execution.run_pass` would run it
        (:func:`~nbparallel.engine.execution.backend_for`): partitions that stay in this process run on a
        thread each, without a task graph.

        Returns the merged summary.
        """
        start = time.perf_counter()
        # a state is built by splitting the rows into codes and encoding the target: a categorical target
        # column comes as its Series, not made into an array of labels on every pass
        unpack = self.dataset.map(_identity, tables=True, categorical_target=True)
        parts = self.dataset.partitions
        states = self._states or [None] * len(parts)
        summary, record, kept = execution.backend_for(parts).map_reduce_stateful(
            parts, states, [partial(_stateful_leaf, unpack, fn, args)] * len(parts), merge, self.split_every,
            keep=self.persisted, name=f"nbparallel-{kind}", token=execution.pass_token(self.dataset.token),
            verbose=self.verbose)
        self._states = kept or None
        self.record(kind, record, start)
        return summary


def passes_to_json(passes):
    """Pass records as plain values."""
    return [{**p, "tree": p["tree"].to_dict()} for p in passes]

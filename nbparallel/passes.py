"""The pass scheduler: successive map-reduce passes over the same partitions.

Iterative algorithms (boosting rounds, EM iterations) run one pass after
another over the same data. :class:`PassScheduler` keeps the partitions in
memory between passes when they fit (``dask.persist`` locally, ``client.persist``
or ``client.scatter`` on a distributed cluster) and re-reads them otherwise, and
records every pass: its kind, the shape of its reduction tree and its wall
time. A *stateful* pass also leaves a per-partition value behind (for example
the rows' boosting weights) that the next stateful pass receives; it is kept
only while the partitions are, and the pass function rebuilds it when it gets
None. :class:`Checkpoint` saves the small driver-side state after each pass
as JSON so that an interrupted fit resumes where it stopped.
"""

from __future__ import annotations

import json
import time
import warnings
from dataclasses import replace
from operator import getitem
from pathlib import Path

from dask import delayed
from dask.base import tokenize

from . import engine, io
from .data import scan_schema
from .reduce import TreeRecord, tree_reduce

CHECKPOINT_FORMAT = "nbparallel-checkpoint"


def fits_in_memory(n_bytes, available, fraction=0.5):
    """Whether data of ``n_bytes`` should be kept in ``available`` bytes of memory.

    >>> fits_in_memory(10, 100), fits_in_memory(60, 100), fits_in_memory(60, None)
    (True, False, True)
    """
    return available is None or n_bytes <= fraction * available


def available_memory(partitions=None):
    """Bytes of memory the workers can hold: the cluster's limits, or this machine's free memory.

    With ``partitions``, the memory of where a pass over them runs: this
    machine's when they stay local (:func:`nbparallel.engine.runs_locally`),
    which spares small fits a round trip to the scheduler.
    """
    client = engine.active_client()
    if client is not None and not (partitions is not None and engine.runs_locally(partitions, client)):
        limits = [w.get("memory_limit") or 0 for w in client.scheduler_info()["workers"].values()]
        return sum(limits) or None
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil comes with distributed
        return None
    return psutil.virtual_memory().available


def _identity(X, y, w):
    return X, y, w


def _stateful_leaf(unpack, fn, args, part, state):
    return fn(*args, state, *unpack(part))


class PassScheduler:
    """Run and record successive passes over one dataset.

    Parameters
    ----------
    dataset : nbparallel.data.Dataset
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
        self.dataset = replace(self.dataset, partitions=engine.persist(self.dataset.partitions))
        self.persisted = True

    def _maybe_persist(self, n_rows):
        if self.persist != "auto" or self.persisted:
            return
        n_bytes = 8 * n_rows * (len(self.dataset.columns) + 2)
        if fits_in_memory(n_bytes, available_memory()):
            self._persist()

    # ------------------------------------------------------------ passes

    def _record(self, kind, record, start):
        self.passes.append({"kind": kind, "tree": record, "seconds": time.perf_counter() - start})

    def schema(self, *, n_bins, classes=None):
        """The schema pass; with ``persist="auto"`` it then decides whether to persist.

        Returns
        -------
        schema : nbparallel.data.Schema
        scan : nbparallel.data.ColumnScan
        """
        start = time.perf_counter()
        schema, scan, record = scan_schema(self.dataset, n_bins=n_bins, classes=classes,
                                           split_every=self.split_every, verbose=self.verbose)
        self._record("schema", record, start)
        self._maybe_persist(scan.n_rows)
        return schema, scan

    def _token(self, kind, fn, args):
        return tokenize(kind, fn, args, self.dataset.token, len(self.passes))

    def run(self, kind, fn, merge, *args):
        """One pass: ``fn(*args, X, y, w)`` summarizes each partition, ``merge`` combines.

        Returns the merged summary.
        """
        start = time.perf_counter()
        summary, record = engine.run_pass(
            self.dataset.partitions, self.dataset.map(fn, *args), merge, split_every=self.split_every,
            name=f"nbparallel-{kind}", token=self._token(kind, fn, args), verbose=self.verbose)
        self._record(kind, record, start)
        return summary

    def run_stateful(self, kind, fn, merge, *args):
        """One pass that also updates a per-partition state.

        ``fn(*args, state, X, y, w) -> (new_state, summary)``, where ``state`` is
        what the previous stateful pass left for this partition, or None on
        the first pass and whenever the partitions are not kept in memory
        (``fn`` must then rebuild it from the rows).

        Returns the merged summary.
        """
        start = time.perf_counter()
        token = self._token(kind, fn, args)
        unpack = self.dataset.map(_identity)
        states = self._states or [None] * len(self.dataset.partitions)
        leaves = [
            delayed(_stateful_leaf, pure=True)(unpack, fn, args, part, state,
                                              dask_key_name=f"nbparallel-{kind}-map-{token}-{i}")
            for i, (part, state) in enumerate(zip(self.dataset.partitions, states))
        ]
        summaries = [delayed(getitem, pure=True)(leaf, 1, dask_key_name=f"nbparallel-{kind}-summary-{token}-{i}")
                     for i, leaf in enumerate(leaves)]
        new_states = [delayed(getitem, pure=True)(leaf, 0, dask_key_name=f"nbparallel-{kind}-state-{token}-{i}")
                      for i, leaf in enumerate(leaves)]
        root, record = tree_reduce(summaries, merge, self.split_every, name=f"nbparallel-{kind}-{token}")
        summary, kept = self._compute(root, new_states if self.persisted else [])
        self._states = kept or None
        self._record(kind, record, start)
        return summary

    def _compute(self, root, keep):
        """Compute ``root``; keep ``keep`` in (worker) memory for the next pass."""
        client = engine.active_client()
        parts = self.dataset.partitions
        if client is not None and keep and not engine.runs_locally(parts, client):
            root, *keep = client.persist([root, *keep])
            return root.compute(), keep
        summary, *keep = engine.compute([root, *keep], self.verbose, partitions=parts)
        return summary, keep


def passes_to_json(passes):
    """Pass records as plain values."""
    return [{**p, "tree": p["tree"].to_dict()} for p in passes]


def passes_from_json(data):
    """Inverse of :func:`passes_to_json`."""
    return [{**p, "tree": TreeRecord.from_dict(p["tree"])} for p in data]


class Checkpoint:
    """The state of an iterative fit after its last completed pass, as a JSON file.

    Parameters
    ----------
    path : str, PathLike or None
        The file; None disables checkpointing.
    fingerprint : dict
        JSON values identifying the data and the parameters that decide the
        result; a file with a different fingerprint is not resumed from.
    """

    def __init__(self, path, fingerprint):
        self.path = None if path is None else Path(path)
        self.fingerprint = json.loads(json.dumps(fingerprint, default=io.json_param))

    @classmethod
    def for_fit(cls, estimator, schema, n_rows, ignore=()):
        """The checkpoint of ``estimator.checkpoint``, fingerprinted by data and parameters.

        Parameters that do not change the result (``checkpoint``, ``verbose``,
        ``n_partitions``, ``split_every``, ``persist``) and those in ``ignore``
        (for example the number of iterations, so that a longer run resumes a
        shorter one) are left out of the fingerprint.
        """
        skipped = {"checkpoint", "verbose", "n_partitions", "split_every", "persist", *ignore}
        params = {k: v for k, v in estimator.get_params().items() if k not in skipped}
        fingerprint = {"estimator": type(estimator).__name__, "params": params,
                       "schema": schema.to_dict(), "n_rows": int(n_rows)}
        return cls(estimator.checkpoint, fingerprint)

    def load(self, restore=None):
        """The saved state, or None when there is no file or it cannot be resumed from.

        Parameters
        ----------
        restore : callable, optional
            ``restore(state)`` checks the saved state and returns what the fit
            resumes from (returned in its place); its ValueError, TypeError or
            KeyError means the file is damaged.

        A file that is not a checkpoint, belongs to other data or parameters,
        or is damaged (wrong digest, values against the format) is not
        resumed from: a warning names it and the fit starts afresh.
        """
        if self.path is None or not self.path.exists():
            return None
        try:
            data = io.read_json(self.path, "nbparallel checkpoint")
            if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
                raise ValueError(f"{self.path} is not an nbparallel checkpoint")
            io.check_digest(data, self.path, "nbparallel checkpoint")
            if data.get("fingerprint") != self.fingerprint:
                warnings.warn(f"checkpoint {self.path} belongs to other data or parameters; starting afresh",
                              stacklevel=3)
                return None
            if "state" not in data:
                raise ValueError(f"{self.path} is a damaged nbparallel checkpoint file: no 'state'")
            if restore is None:
                return data["state"]
            try:
                return restore(data["state"])
            except (ValueError, TypeError, KeyError, IndexError, ArithmeticError) as exc:
                raise ValueError(f"{self.path} is a damaged nbparallel checkpoint file: {exc}") from None
        except ValueError as exc:
            warnings.warn(f"{exc}; starting afresh", stacklevel=3)
            return None

    def save(self, state):
        """Write ``state`` (JSON values) atomically; nothing when disabled."""
        if self.path is not None:
            io.write_json_atomic({"format": CHECKPOINT_FORMAT, "fingerprint": self.fingerprint,
                                  "state": state}, self.path)

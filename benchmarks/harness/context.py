"""Where an experiment runs: the local threaded scheduler or a cluster's workers."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import dask


@dataclass(frozen=True)
class Parameter:
    """An option of one experiment, ``--name VALUE`` on its command line.

    Attributes
    ----------
    default : object
        Its value in a full run; its type (or its first item's, for a list) is the option's.
    help : str
        What it sets, for ``nbparallel bench EXPERIMENT --help``.
    quick : object, optional
        Its value in a ``--quick`` run; None: the default.
    kind : type, optional
        The type of its values where the default does not show it (a default of None).
    choices : tuple, optional
        The values it may take.
    """

    default: object
    help: str
    quick: object = None
    kind: type = None
    choices: tuple = None

    def value(self, given, quick):
        """The value of a run: ``given`` on the command line, else the quick or the full run's default."""
        if given is not None:
            return given
        return self.quick if quick and self.quick is not None else self.default

    def argument(self):
        """Keyword arguments of :meth:`argparse.ArgumentParser.add_argument` for this option."""
        if isinstance(self.default, bool):
            return {"action": "store_true", "default": None, "help": self.help}
        many = isinstance(self.default, (list, tuple))
        kind = self.kind or type(self.default[0] if many else self.default)
        return {"type": kind, "nargs": "+" if many else None, "default": None, "choices": self.choices,
                "help": f"{self.help} (default {self.default!r}"
                        + ("" if self.quick is None else f", --quick {self.quick!r}") + ")"}


def parameters(**declared):
    """Declare the experiment's own :class:`Parameter` s: ``@parameters(rows=Parameter(10**7, "rows"))``."""
    def declare(experiment):
        experiment.parameters = declared
        return experiment
    return declare


@dataclass
class Context:
    """The options every experiment receives.

    Attributes
    ----------
    quick : bool
        Tiny sizes: a smoke run of a few seconds.
    results_dir : pathlib.Path
        Where the results are written.
    client : distributed.Client or None
        The cluster to run on; None runs on this machine's threads.
    parameters : dict
        The values of the experiment's own :class:`Parameter` s, by name.
    """

    quick: bool
    results_dir: Path
    client: object = None
    parameters: dict = field(default_factory=dict)

    def max_workers(self):
        """Workers available: the cluster's worker processes, or this machine's cores."""
        if self.client is None:
            return os.cpu_count() or 1
        return len(self._worker_addresses())

    def _worker_addresses(self):
        return sorted(self.client.scheduler_info(n_workers=-1)["workers"])

    @contextlib.contextmanager
    def workers(self, n):
        """Run the graphs computed inside on ``n`` workers only.

        Locally, Dask's threaded scheduler with ``n`` threads; on a cluster,
        tasks restricted to its first ``n`` workers.
        """
        if self.client is None:
            with dask.config.set(scheduler="threads", num_workers=n):
                yield
            return
        chosen = self._worker_addresses()[:n]
        with self.client.as_current(), dask.annotate(workers=chosen, allow_other_workers=False):
            yield

    def place(self, X, y, n, n_partitions):
        """The data where ``n`` workers will read it.

        Locally, the arrays as they are. On a cluster, Dask arrays of
        ``n_partitions`` row blocks held in the memory of the first ``n``
        workers, so that timings leave out sending the data.
        """
        if self.client is None:
            return X, y
        import dask.array as da

        rows = -(-len(y) // n_partitions)
        arrays = (da.from_array(X, chunks=(rows, -1)), da.from_array(y, chunks=rows))
        return tuple(self.client.persist(arrays, workers=self._worker_addresses()[:n]))

    def worker_counts(self):
        """1 .. N workers: every count up to 8, then powers of two and N."""
        n = self.max_workers()
        counts = {k for k in range(1, min(n, 8) + 1)} | {2**i for i in range(n.bit_length()) if 2**i <= n} | {n}
        return sorted(counts)

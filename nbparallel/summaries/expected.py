"""Expected counts under a clustering model: the summary of an AutoClass E-step."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nbparallel.summaries.protocol import check_same_type


@dataclass(frozen=True, eq=False)
class ExpectedCounts:
    """The summary of an EM pass: expected counts of every restart x cluster.

    Attributes
    ----------
    table : ndarray, shape (table_rows, R * K)
        Expected value-by-cluster counts, laid out as a count table.
    totals : ndarray, shape (R * K,)
        Expected cluster sizes.
    log_likelihood : ndarray, shape (R,)
        Each restart's weighted log-likelihood of the rows.
    """

    table: np.ndarray
    totals: np.ndarray
    log_likelihood: np.ndarray

    @classmethod
    def empty(cls, n_table_rows, n_restarts, n_clusters):
        """No rows: all zeros."""
        return cls(np.zeros((n_table_rows, n_restarts * n_clusters)), np.zeros(n_restarts * n_clusters),
                   np.zeros(n_restarts))

    def __add__(self, other):
        check_same_type(self, other)
        if self.table.shape != other.table.shape or self.log_likelihood.shape != other.log_likelihood.shape:
            raise ValueError(f"cannot add expected counts of shapes {self.table.shape} and {other.table.shape}")
        return ExpectedCounts(self.table + other.table, self.totals + other.totals,
                              self.log_likelihood + other.log_likelihood)

    def to_dict(self):
        """Plain lists, for JSON."""
        return {"table": self.table.tolist(), "totals": self.totals.tolist(),
                "log_likelihood": self.log_likelihood.tolist()}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`."""
        table = np.asarray(data["table"], dtype=np.float64)
        totals = np.asarray(data["totals"], dtype=np.float64)
        log_likelihood = np.asarray(data["log_likelihood"], dtype=np.float64)
        if table.ndim != 2 or totals.shape != (table.shape[1],) or log_likelihood.ndim != 1:
            raise ValueError("expected counts have inconsistent shapes")
        return cls(table, totals, log_likelihood)

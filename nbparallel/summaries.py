"""The summary protocol: what one partition of a pass produces.

A summary is a value with

- ``a + b``: an associative and commutative merge (raw sums and counts only:
  smoothing, logarithms and probabilities are derived afterwards, never merged);
- an empty value, the identity of ``+`` (``Summary.empty(...)``, whose
  arguments are the layout, e.g. the number of classes);
- a JSON form: ``to_dict()`` and the classmethod ``from_dict(d)``.

:func:`merge_summaries` is the one merge every pass hands to
:func:`nbparallel.engine.run_pass`: it adds its arguments left to right, and the
reduction tree pairs summaries by partition index, so float sums are added in
the same order for a given partitioning, and integer counts are identical for
any partitioning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Summary(Protocol):
    """What a pass's per-partition summary provides."""

    def __add__(self, other): ...

    def to_dict(self) -> dict: ...

    @classmethod
    def from_dict(cls, data): ...


def merge_summaries(*summaries):
    """Merge summaries left to right: ``((s0 + s1) + s2) + ...``.

    >>> merge_summaries(Evaluation.empty(2), Evaluation.empty(2)).n_rows
    0
    """
    if not summaries:
        raise ValueError("merge_summaries needs at least one summary")
    result = summaries[0]
    for summary in summaries[1:]:
        result = result + summary
    return result


def check_same_type(a, b):
    """Raise TypeError unless ``b`` can be added to ``a``."""
    if type(a) is not type(b):
        raise TypeError(f"cannot add a {type(b).__name__} to a {type(a).__name__}")


@dataclass(frozen=True, eq=False)
class Evaluation:
    """What scoring labelled data sums: confusion counts and log-likelihood.

    Attributes
    ----------
    confusion : ndarray of int64, shape (n_classes, n_classes)
        Rows: true class, columns: predicted class. Cross-validation keeps
        one per fold, shape (n_folds, n_classes, n_classes), and adds them
        the same way.
    log_likelihood : float, or ndarray of shape (n_folds,)
        Sum over the rows of log P(y_i | x_i).
    """

    confusion: np.ndarray
    log_likelihood: float = 0.0

    @classmethod
    def empty(cls, n_classes):
        """No rows scored."""
        return cls(np.zeros((n_classes, n_classes), dtype=np.int64), 0.0)

    @property
    def n_rows(self):
        """Number of rows scored."""
        return int(self.confusion.sum())

    def __add__(self, other):
        check_same_type(self, other)
        if self.confusion.shape != other.confusion.shape:
            raise ValueError(f"cannot add evaluations of {len(self.confusion)} and {len(other.confusion)} classes")
        return Evaluation(self.confusion + other.confusion, self.log_likelihood + other.log_likelihood)

    def equals(self, other):
        """True when both hold exactly the same sums."""
        return (isinstance(other, Evaluation) and np.array_equal(self.confusion, other.confusion)
                and self.log_likelihood == other.log_likelihood)

    def report(self):
        """Accuracy, classification error, confusion matrix, per-class precision, recall
        and F1, average log-likelihood and number of rows."""
        n = self.n_rows
        return {
            "accuracy": float(np.trace(self.confusion) / n) if n else float("nan"),
            "classification_error": float(1 - np.trace(self.confusion) / n) if n else float("nan"),
            "confusion_matrix": self.confusion,
            **per_class_scores(self.confusion),
            "average_log_likelihood": float(self.log_likelihood / n) if n else float("nan"),
            "n_rows": n,
        }

    def to_dict(self):
        """Plain values, for JSON."""
        return {"confusion": self.confusion.tolist(), "log_likelihood": float(self.log_likelihood)}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`."""
        confusion = np.asarray(data["confusion"], dtype=np.int64)
        if confusion.ndim != 2 or confusion.shape[0] != confusion.shape[1] or np.any(confusion < 0):
            raise ValueError("an evaluation's confusion matrix must be square and non-negative")
        return cls(confusion, float(data["log_likelihood"]))


def per_class_scores(confusion):
    """Per-class precision, recall and F1 from a confusion matrix (rows true, columns predicted); 0 where undefined.

    >>> per_class_scores(np.array([[3, 1], [0, 4]]))["recall"].tolist()
    [0.75, 1.0]
    """
    hits = np.diag(confusion).astype(np.float64)
    predicted, actual = confusion.sum(axis=0), confusion.sum(axis=1)
    precision = np.divide(hits, predicted, out=np.zeros_like(hits), where=predicted > 0)
    recall = np.divide(hits, actual, out=np.zeros_like(hits), where=actual > 0)
    both = precision + recall
    f1 = np.divide(2 * precision * recall, both, out=np.zeros_like(hits), where=both > 0)
    return {"precision": precision, "recall": recall, "f1": f1}

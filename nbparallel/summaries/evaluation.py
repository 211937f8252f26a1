"""The evaluation summary: confusion counts and log-likelihood sums of labelled rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nbparallel.summaries.protocol import check_same_type


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

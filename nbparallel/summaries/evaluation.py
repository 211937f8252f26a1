"""The evaluation summary: confusion counts and log-likelihood sums of labelled rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nbparallel.kernels.scoring import roc_sums
from nbparallel.summaries.protocol import check_same_type


@dataclass(frozen=True, eq=False)
class Evaluation:
    """What scoring labelled data sums: confusion counts, log-likelihood, log loss and ROC score histograms.

    Everything is a sum over rows, so partitions' evaluations merge by ``+`` in any order and the merged
    value gives every metric of :meth:`report`. :meth:`PartitionedClassifier.evaluation
    <nbparallel.models.base.PartitionedClassifier.evaluation>` makes one from data; each partition's comes
    from one kernel pass (:func:`nbparallel.kernels.scoring.evaluate_rows`), which cross-validation can
    call per fold the same way.

    Attributes
    ----------
    confusion : ndarray of int64, shape (n_classes, n_classes)
        Rows: true class, columns: predicted class. Cross-validation keeps
        one per fold, shape (n_folds, n_classes, n_classes), and adds them
        the same way.
    log_likelihood : float, or ndarray of shape (n_folds,)
        Sum over the rows of log P(y_i | x_i).
    log_loss : float, or ndarray of shape (n_folds,)
        Sum over the rows of -log P(y_i | x_i), each probability clipped to [eps, 1 - eps] (float64 eps)
        as ``sklearn.metrics.log_loss`` clips it.
    scores : ndarray of float64, shape (n_curves, 2, n_bins), or None
        ROC score histograms: per curve (class 1 of two; each class, one-vs-rest, of more), the rows of that
        class ([c, 0]) and of the others ([c, 1]) by the bin of their log-odds (bins in increasing order of
        the score; :func:`nbparallel.kernels.scoring.score_bin`). None when not collected; None is the
        identity of ``+``.
    """

    confusion: np.ndarray
    log_likelihood: float = 0.0
    log_loss: float = 0.0
    scores: np.ndarray | None = None

    @classmethod
    def empty(cls, n_classes):
        """No rows scored."""
        return cls(np.zeros((n_classes, n_classes), dtype=np.int64), 0.0, 0.0, None)

    @property
    def n_rows(self):
        """Number of rows scored."""
        return int(self.confusion.sum())

    def __add__(self, other):
        check_same_type(self, other)
        if self.confusion.shape != other.confusion.shape:
            raise ValueError(f"cannot add evaluations of {len(self.confusion)} and {len(other.confusion)} classes")
        if self.scores is None or other.scores is None:
            scores = other.scores if self.scores is None else self.scores
        elif self.scores.shape != other.scores.shape:
            raise ValueError(f"cannot add score histograms of shapes {self.scores.shape} and {other.scores.shape}")
        else:
            scores = self.scores + other.scores
        return Evaluation(self.confusion + other.confusion, self.log_likelihood + other.log_likelihood,
                          self.log_loss + other.log_loss, scores)

    def equals(self, other):
        """True when both hold exactly the same sums."""
        same_scores = (self.scores is None and other.scores is None) or (
            self.scores is not None and other.scores is not None and np.array_equal(self.scores, other.scores))
        return (isinstance(other, Evaluation) and np.array_equal(self.confusion, other.confusion)
                and np.array_equal(self.log_likelihood, other.log_likelihood)
                and np.array_equal(self.log_loss, other.log_loss) and same_scores)

    def roc_auc(self):
        """``(auc, error_bound)`` from the score histograms: the ROC AUC (two classes: of class 1's score;
        more: the unweighted mean of every class's one-vs-rest AUC, as ``sklearn.metrics.roc_auc_score``
        with ``multi_class="ovr"``, ``average="macro"``), NaN when a curve lacks positive or negative rows
        or no histogram was collected.

        Rows in different bins are ordered exactly (the bins are monotone in the score); the pairs of a
        positive and a negative row in the same bin count 1/2, as tied scores do in the exact AUC, so
        ``|auc - exact| <= error_bound = 1/2 * sum_b pos_b neg_b / (P N)`` (averaged over the curves),
        which is also the bound against ``roc_auc_score`` up to rows whose probabilities round to the
        same float.
        """
        if self.scores is None or self.scores.ndim != 3:
            return float("nan"), float("nan")
        area, ties, positives, negatives = roc_sums(self.scores).T  # one pass over each curve's bins
        pairs = positives * negatives
        if not np.all(pairs > 0):
            return float("nan"), float("nan")
        return float(np.mean(area / pairs)), float(np.mean(0.5 * ties / pairs))

    def report(self):
        """Accuracy, classification error, confusion matrix, per-class precision, recall
        and F1, average log-likelihood, log loss, ROC AUC (and its error bound) and number of rows."""
        n = self.n_rows
        auc, bound = self.roc_auc()
        return {
            "accuracy": float(np.trace(self.confusion) / n) if n else float("nan"),
            "classification_error": float(1 - np.trace(self.confusion) / n) if n else float("nan"),
            "confusion_matrix": self.confusion,
            **per_class_scores(self.confusion),
            "average_log_likelihood": float(self.log_likelihood / n) if n else float("nan"),
            "log_loss": float(self.log_loss / n) if n else float("nan"),
            "roc_auc": auc,
            "roc_auc_error_bound": bound,
            "n_rows": n,
        }

    def to_dict(self):
        """Plain values, for JSON (the histograms' nonzero cells only)."""
        d = {"confusion": self.confusion.tolist(), "log_likelihood": float(self.log_likelihood),
             "log_loss": float(self.log_loss)}
        if self.scores is not None:
            flat = self.scores.ravel()
            nonzero = np.flatnonzero(flat)
            d["scores"] = {"shape": list(self.scores.shape), "index": nonzero.tolist(), "value": flat[nonzero].tolist()}
        return d

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`."""
        confusion = np.asarray(data["confusion"], dtype=np.int64)
        if confusion.ndim != 2 or confusion.shape[0] != confusion.shape[1] or np.any(confusion < 0):
            raise ValueError("an evaluation's confusion matrix must be square and non-negative")
        scores = None
        if data.get("scores") is not None:
            shape = tuple(int(n) for n in data["scores"]["shape"])
            index = np.asarray(data["scores"]["index"], dtype=np.int64)
            if len(shape) != 3 or shape[1] != 2 or np.any(index < 0) or np.any(index >= np.prod(shape)):
                raise ValueError("an evaluation's score histograms are inconsistent")
            scores = np.zeros(int(np.prod(shape)))
            scores[index] = np.asarray(data["scores"]["value"], dtype=np.float64)
            scores = scores.reshape(shape)
        return cls(confusion, float(data["log_likelihood"]), float(data.get("log_loss", 0.0)), scores)


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

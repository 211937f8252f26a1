"""Per-class feature sums of count matrices: the text models' summary."""

from __future__ import annotations

import numpy as np

from nbparallel.kernels.sparse import BAD_INDEX, NEGATIVE, NOT_FINITE, count_csr
from nbparallel.summaries.protocol import check_same_type


class FeatureCounts:
    """Per-class row weights and per-class sums of every feature.

    Parameters
    ----------
    class_count : ndarray of float64, shape (n_classes,)
    feature_count : ndarray of float64, shape (n_classes, n_features)
    """

    def __init__(self, class_count, feature_count):
        self.class_count = class_count
        self.feature_count = feature_count

    @classmethod
    def empty(cls, n_classes, n_features):
        """The summary of no rows."""
        return cls(np.zeros(n_classes), np.zeros((n_classes, n_features)))

    def __add__(self, other):
        check_same_type(self, other)
        if self.feature_count.shape != other.feature_count.shape:
            raise ValueError(f"cannot add feature counts of shapes {self.feature_count.shape} "
                             f"and {other.feature_count.shape}")
        return FeatureCounts(self.class_count + other.class_count, self.feature_count + other.feature_count)

    @property
    def class_weights(self):
        """The weight of each class's rows."""
        return self.class_count

    def __sub__(self, part):
        """The sums of the rows here but not in ``part``, the inverse of ``+`` (clipped at zero)."""
        check_same_type(self, part)
        return FeatureCounts(np.maximum(self.class_count - part.class_count, 0),
                             np.maximum(self.feature_count - part.feature_count, 0))

    def class_columns(self, columns):
        """The sums of the classes at ``columns`` (a slice or index array), in that order."""
        return FeatureCounts(self.class_count[columns], self.feature_count[columns])

    def equals(self, other):
        """True when both hold exactly the same counts."""
        return (isinstance(other, FeatureCounts) and np.array_equal(self.class_count, other.class_count)
                and np.array_equal(self.feature_count, other.feature_count))

    def to_dict(self):
        """JSON form; the feature counts as their non-zero cells (flat index, value)."""
        flat = self.feature_count.ravel()
        nonzero = np.flatnonzero(flat)
        return {"class_count": self.class_count.tolist(), "shape": list(self.feature_count.shape),
                "nonzero_index": nonzero.tolist(), "nonzero_value": flat[nonzero].tolist()}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`; checks shapes and values."""
        class_count = np.asarray(data["class_count"], dtype=np.float64)
        n_classes, n_features = (int(v) for v in data["shape"])
        index = np.asarray(data["nonzero_index"], dtype=np.int64)
        value = np.asarray(data["nonzero_value"], dtype=np.float64)
        if (class_count.shape != (n_classes,) or index.shape != value.shape or index.ndim != 1
                or np.any(index < 0) or np.any(index >= n_classes * n_features)):
            raise ValueError("feature counts have inconsistent shapes")
        if not (np.all(np.isfinite(value)) and np.all(np.isfinite(class_count))):
            raise ValueError("feature counts hold non-finite values")
        feature_count = np.zeros(n_classes * n_features)
        feature_count[index] = value
        return cls(class_count, feature_count.reshape(n_classes, n_features))


def count_part(classes, n_features, binarize, allow_negative, model_name, X, y, w):
    """The :class:`FeatureCounts` of one partition (CSR through the numba kernel)."""
    import scipy.sparse as sp  # here, not at the top: a categorical fit (the counting plan imports this module)
    # never needs scipy, and importing it costs a small command-line fit a tenth of its time
    codes = np.searchsorted(classes, y)
    codes = np.minimum(codes, len(classes) - 1)
    if not np.array_equal(classes[codes], y):
        raise ValueError(f"y holds labels {sorted(set(np.asarray(y)[classes[codes] != y].tolist()))[:10]} "
                         f"not in classes {classes.tolist()}")
    weights = np.ones(len(y)) if w is None else w
    if sp.issparse(X):
        if binarize is not None:
            check_sparse_threshold(binarize)
        class_count, feature_count, status = count_csr(
            X.indptr, X.indices, X.data, codes.astype(np.int64), weights, len(classes), n_features,
            0.0 if binarize is None else float(binarize), binarize is not None, allow_negative)
    else:
        status = NOT_FINITE if not np.all(np.isfinite(X)) else NEGATIVE if not allow_negative and np.any(X < 0) else 0
        values = X if binarize is None else (X > binarize).astype(np.float64)
        onehot = np.zeros((len(y), len(classes)))
        onehot[np.arange(len(y)), codes] = weights
        class_count, feature_count = onehot.sum(axis=0), onehot.T @ values
    if status == NEGATIVE:
        raise ValueError(f"Negative values in data passed to {model_name} (input X): counts must be >= 0")
    if status == NOT_FINITE:
        raise ValueError("Input X contains NaN or infinity.")
    if status == BAD_INDEX:
        raise ValueError("X is a CSR matrix with column indices outside 0..n_features-1")
    return FeatureCounts(class_count, np.asarray(feature_count, dtype=np.float64))


def check_sparse_threshold(threshold):
    """A sparse matrix's absent entries are zeros: they must stay absent after binarizing."""
    if threshold < 0:
        raise ValueError(f"binarize must be >= 0 for a sparse X, got {threshold}: absent entries would count "
                         "as present")

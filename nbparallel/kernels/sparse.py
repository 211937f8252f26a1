"""Numba kernels of the text models: per-class feature sums of a CSR partition.

The kernels release the GIL, so partitions count in parallel on threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

OK, NEGATIVE, NOT_FINITE, BAD_INDEX = 0, 1, 2, 3


@njit(nogil=True, cache=True)
def count_csr(indptr, indices, data, classes, weights, n_classes, n_features, threshold, binarize, allow_negative):
    """Per-class sums of the rows of a CSR matrix.

    Parameters
    ----------
    indptr, indices, data : ndarray
        The CSR arrays of the partition.
    classes : ndarray of int64
        Class index of each row.
    weights : ndarray of float64
        Weight of each row.
    n_classes, n_features : int
    threshold : float
        With ``binarize``, a value counts 1 when above it, else 0.
    binarize : bool
    allow_negative : bool
        When False, a negative value stops the count with status NEGATIVE.

    Returns
    -------
    class_count : ndarray, shape (n_classes,)
    feature_count : ndarray, shape (n_classes, n_features)
    status : int
        OK, or the first problem met: NEGATIVE, NOT_FINITE or BAD_INDEX.
    """
    class_count = np.zeros(n_classes)
    feature_count = np.zeros((n_classes, n_features))
    for i in range(len(indptr) - 1):
        c = classes[i]
        w = weights[i]
        class_count[c] += w
        for p in range(indptr[i], indptr[i + 1]):
            v = data[p]
            j = indices[p]
            if not np.isfinite(v):
                return class_count, feature_count, NOT_FINITE
            if j < 0 or j >= n_features:
                return class_count, feature_count, BAD_INDEX
            if v < 0 and not allow_negative:
                return class_count, feature_count, NEGATIVE
            if binarize:
                v = 1.0 if v > threshold else 0.0
            feature_count[c, j] += w * v
    return class_count, feature_count, OK

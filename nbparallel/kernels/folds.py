"""Compiled loop of cross-validation's shuffled folds: the seeded Feistel permutation of row indices."""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import require_array, require_dtype


@njit(nogil=True, cache=True)
def _feistel_kernel(index, n, keys, half, m1, m2, out):
    mask = (np.uint64(1) << half) - np.uint64(1)
    s29, s32 = np.uint64(29), np.uint64(32)
    for i in range(index.shape[0]):
        x = index[i]
        while True:  # cycle walking: a permutation of the domain restricted to 0 .. n-1
            left, right = x >> half, x & mask
            for r in range(keys.shape[0]):
                f = right ^ keys[r]
                f *= m1
                f ^= f >> s29
                f *= m2
                f ^= f >> s32
                f &= mask
                f ^= left
                left, right = right, f
            x = (left << half) | right
            if x < n:
                break
        out[i] = np.int64(x)


def feistel_permute(index, n, keys, half, m1, m2):
    """``pi(index)`` of the keyed Feistel network on ``2 * half`` bits (uint64 wrapping arithmetic), walked
    until it falls in ``0 .. n-1``: a permutation of ``0 .. n-1`` computed from each index alone.

    Parameters
    ----------
    index : ndarray of uint64, values below ``n``
    n : int, at most ``2 ** (2 * half)``
    keys : ndarray of uint64, one per round
    half : int, bits of each half
    m1, m2 : numpy.uint64, the round function's multipliers
    """
    require_array("index", index, 1)
    require_dtype("index", index, (np.dtype(np.uint64),))
    require_array("keys", keys, 1)
    require_dtype("keys", keys, (np.dtype(np.uint64),))
    if not 1 <= half <= 31 or not 0 < n <= 1 << (2 * half):
        raise ValueError(f"half must be 1..31 and n in 1..2**(2 * half), got half={half}, n={n}")
    if index.size and index.max() >= np.uint64(n):
        raise ValueError(f"index holds values not below n={n}")
    out = np.empty(index.shape[0], dtype=np.int64)
    _feistel_kernel(index, np.uint64(n), keys, np.uint64(half), np.uint64(m1), np.uint64(m2), out)
    return out


@njit(nogil=True, cache=True)
def _class_fold_codes_kernel(classes, fold, n_classes, first, out):
    for i in range(classes.shape[0]):
        out[i] = -1 if classes[i] < 0 or fold[i] < 0 else classes[i] + n_classes * (fold[i] + first)


def class_fold_codes(classes, fold, n_classes, first=0):
    """``class + n_classes * (first + fold)`` of every row as int32, -1 where the class or the fold is
    (-1: none); ``first`` numbers a repeat's folds after the earlier repeats'."""
    require_array("classes", classes, 1)
    require_array("fold", fold, 1)
    if classes.shape != fold.shape:
        raise ValueError(f"classes and fold must have the same shape, got {classes.shape} and {fold.shape}")
    if first < 0 or (classes.size and (int(classes.max()) >= n_classes
                                       or (int(fold.max()) + first + 1) * n_classes > np.iinfo(np.int32).max)):
        raise ValueError(f"classes must lie below n_classes={n_classes}, first be >= 0 and the codes fit in int32")
    out = np.empty(classes.shape[0], dtype=np.int32)
    _class_fold_codes_kernel(classes, fold, int(n_classes), int(first), out)
    return out

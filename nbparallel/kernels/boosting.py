"""Boosting rounds: the class a learner predicts for each row, the rows it gets wrong, their next weights.

A boosting round scores the same rows again and again, one learner after another. The rows' codes are
checked against the table layout once (:class:`~nbparallel.kernels.checks.CheckedCodes`), so the round
kernel reads them without a bound check per code. Each row's class scores are summed exactly as the
scoring family sums them (:mod:`nbparallel.kernels.scoring`: the log prior, then the attributes' terms in attribute order), so the
predicted classes are the same to the bit. Rows are scored several at a time (four with two classes, two
with more), so that their sums, each a chain of dependent additions, overlap.
"""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import CheckedCodes, require_array, require_dtype


@njit(nogil=True, cache=True, inline="always")
def _row_sum(codes, i, column_offset, offsets, table, k, total):
    """``total`` plus column ``k`` of the table rows of row ``i``'s codes, in attribute order."""
    for a in range(codes.shape[1]):
        total += table[np.uint64(offsets[column_offset + a]) + np.uint64(codes[i, a]), k]
    return total


@njit(nogil=True, cache=True, inline="always")
def _sums4(codes, i, column_offset, offsets, table, k, t0, t1, t2, t3):
    """Column ``k`` of four consecutive rows ``i .. i + 3``, added to ``t0 .. t3``, in attribute order."""
    for a in range(codes.shape[1]):
        base = np.uint64(offsets[column_offset + a])
        t0 += table[base + np.uint64(codes[i, a]), k]
        t1 += table[base + np.uint64(codes[i + 1, a]), k]
        t2 += table[base + np.uint64(codes[i + 2, a]), k]
        t3 += table[base + np.uint64(codes[i + 3, a]), k]
    return t0, t1, t2, t3


@njit(nogil=True, cache=True, inline="always")
def _pair4(first, second, offsets, table, log_prior, i):
    """Both classes' sums of rows ``i .. i + 3``."""
    f1 = first.shape[1]
    p0, p1 = log_prior[0], log_prior[1]
    a0, b0, c0, d0 = _sums4(first, i, 0, offsets, table, 0, p0, p0, p0, p0)
    a0, b0, c0, d0 = _sums4(second, i, f1, offsets, table, 0, a0, b0, c0, d0)
    a1, b1, c1, d1 = _sums4(first, i, 0, offsets, table, 1, p1, p1, p1, p1)
    a1, b1, c1, d1 = _sums4(second, i, f1, offsets, table, 1, a1, b1, c1, d1)
    return a0, a1, b0, b1, c0, c1, d0, d1


@njit(nogil=True, cache=True, inline="always")
def _better(first_choice, t0, t1):
    """The better of two classes, ties to ``first_choice``."""
    if first_choice == 0:
        return 1 if t1 > t0 else 0
    return 0 if t0 > t1 else 1


@njit(nogil=True, cache=True)
def _predict_two_kernel(first, second, offsets, table, log_prior, order, out):
    n_rows = first.shape[0]
    f1 = first.shape[1]
    head = order[0]
    for i in range(0, n_rows - n_rows % 4, 4):
        a0, a1, b0, b1, c0, c1, d0, d1 = _pair4(first, second, offsets, table, log_prior, i)
        out[i] = _better(head, a0, a1)
        out[i + 1] = _better(head, b0, b1)
        out[i + 2] = _better(head, c0, c1)
        out[i + 3] = _better(head, d0, d1)
    for i in range(n_rows - n_rows % 4, n_rows):
        t0 = _row_sum(second, i, f1, offsets, table, 0, _row_sum(first, i, 0, offsets, table, 0, log_prior[0]))
        t1 = _row_sum(second, i, f1, offsets, table, 1, _row_sum(first, i, 0, offsets, table, 1, log_prior[1]))
        out[i] = _better(head, t0, t1)


@njit(nogil=True, cache=True, inline="always")
def _add_two_rows(codes, i0, i1, column_offset, offsets, table, acc0, acc1):
    """Add the table rows of rows ``i0`` and ``i1``'s codes to ``acc0`` and ``acc1`` (every class)."""
    for a in range(codes.shape[1]):
        base = np.uint64(offsets[column_offset + a])
        row0 = base + np.uint64(codes[i0, a])
        row1 = base + np.uint64(codes[i1, a])
        for k in range(acc0.shape[0]):
            acc0[k] += table[row0, k]
            acc1[k] += table[row1, k]


@njit(nogil=True, cache=True, inline="always")
def _best(acc, order):
    """The class of the largest ``acc``, ties to the first in ``order``."""
    best = order[0]
    value = acc[best]
    for j in range(1, order.shape[0]):
        if acc[order[j]] > value:
            best = order[j]
            value = acc[best]
    return best


@njit(nogil=True, cache=True)
def _predict_any_kernel(first, second, offsets, table, log_prior, order, out):
    n_rows = first.shape[0]
    f1 = first.shape[1]
    acc0 = np.empty(log_prior.shape[0])
    acc1 = np.empty(log_prior.shape[0])
    for i in range(0, n_rows, 2):
        j = min(i + 1, n_rows - 1)  # an odd last row is scored twice
        acc0[:] = log_prior
        acc1[:] = log_prior
        _add_two_rows(first, i, j, 0, offsets, table, acc0, acc1)
        _add_two_rows(second, i, j, f1, offsets, table, acc0, acc1)
        out[i] = _best(acc0, order)
        out[j] = _best(acc1, order)


def predict(codes, table, log_prior, order, out=None):
    """The best class of every row (ties to the class first in ``order``), as
    :func:`nbparallel.kernels.scoring.best_of_rows` finds it, of codes checked once.

    Parameters
    ----------
    codes : CheckedCodes
    table : ndarray of float64, shape (codes.offsets[-1], n_classes)
        Log conditional probabilities.
    log_prior : ndarray of float64, shape (n_classes,)
    order : ndarray of int64, shape (n_classes,)
        The classes by preference on ties.
    out : ndarray of int64, shape (n_rows,), optional

    Returns
    -------
    out
    """
    if not isinstance(codes, CheckedCodes):
        raise TypeError(f"codes must be CheckedCodes, got {type(codes).__name__}")
    require_array("log_prior", log_prior, 1)
    n_classes = log_prior.shape[0]
    table = np.ascontiguousarray(table, dtype=np.float64)
    if table.shape != (int(codes.offsets[-1]), n_classes):
        raise ValueError(f"table must have shape {(int(codes.offsets[-1]), n_classes)}, got {table.shape}")
    order = np.asarray(order, dtype=np.int64)
    if sorted(order.tolist()) != list(range(n_classes)):
        raise ValueError(f"order must list each of the {n_classes} classes once")
    if out is None:
        out = np.empty(len(codes), dtype=np.int64)
    elif out.shape != (len(codes),) or out.dtype != np.int64:
        raise ValueError(f"out must be int64 of shape ({len(codes)},), got {out.dtype} {out.shape}")
    kernel = _predict_two_kernel if n_classes == 2 else _predict_any_kernel
    kernel(codes.first, codes.second, codes.offsets, table, np.asarray(log_prior, dtype=np.float64), order, out)
    return out


@njit(nogil=True, cache=True)
def _reweight_kernel(weights, wrong, right_factor, wrong_factor, out):
    for i in range(weights.shape[0]):
        out[i] = weights[i] * (wrong_factor if wrong[i] else right_factor)


def reweight(weights, wrong, right_factor, wrong_factor):
    """``weights * np.where(wrong, wrong_factor, right_factor)``, without the temporary factor array.

    Parameters
    ----------
    weights : ndarray of float64, shape (n_rows,)
    wrong : ndarray of bool, shape (n_rows,)
    right_factor, wrong_factor : float

    Returns
    -------
    ndarray of float64, shape (n_rows,)
    """
    require_array("weights", weights, 1)
    require_dtype("weights", weights, (np.dtype(np.float64),))
    require_array("wrong", wrong, 1)
    require_dtype("wrong", wrong, (np.dtype(np.bool_),))
    if wrong.shape != weights.shape:
        raise ValueError(f"wrong has shape {wrong.shape}, weights {weights.shape}")
    out = np.empty_like(weights)
    _reweight_kernel(weights, wrong, float(right_factor), float(wrong_factor), out)
    return out


@njit(nogil=True, cache=True)
def _round_labels_kernel(predicted, classes, n_classes, wrong, labels):
    for i in range(classes.shape[0]):
        c = classes[i]
        miss = c >= 0 and predicted[i] != c
        wrong[i] = miss
        labels[i] = c + n_classes * miss if c >= 0 else -1


def round_labels(predicted, classes, n_classes):
    """The rows a learner gets wrong and their class codes in a 2K-class count.

    Parameters
    ----------
    predicted : ndarray of int64, shape (n_rows,)
        The learner's class of every row.
    classes : ndarray of int, shape (n_rows,)
        True class positions, -1 for a missing target (never wrong).
    n_classes : int
        K.

    Returns
    -------
    wrong : ndarray of bool, shape (n_rows,)
    labels : ndarray of int32, shape (n_rows,)
        ``class + K * wrong``, -1 for a missing target.
    """
    require_array("predicted", predicted, 1)
    require_array("classes", classes, 1)
    if predicted.shape != classes.shape:
        raise ValueError(f"predicted has shape {predicted.shape}, classes {classes.shape}")
    wrong = np.empty(classes.shape[0], dtype=np.bool_)
    labels = np.empty(classes.shape[0], dtype=np.int32)
    _round_labels_kernel(predicted, classes, int(n_classes), wrong, labels)
    return wrong, labels

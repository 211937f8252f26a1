"""Scoring rows: joint log-likelihoods from codes and a log table, and the best class."""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import CODE_DTYPES, check_offsets, require_array, require_dtype


@njit(nogil=True, cache=True)
def _joint_log_likelihood_kernel(codes, log_table, offsets, log_prior):
    n_rows, n_attrs = codes.shape
    n_classes = log_prior.shape[0]
    row_offset = offsets.astype(np.uint64)
    out = np.empty((n_rows, n_classes))
    by_class = np.ascontiguousarray(log_table.T)  # one class's column is contiguous
    for i in range(n_rows):
        for k in range(n_classes):  # the row's codes stay in L1; the sum stays in a register
            total = log_prior[k]
            for a in range(n_attrs):
                total += by_class[k, row_offset[a] + codes[i, a]]
            out[i, k] = total
    return out


@njit(nogil=True, cache=True)
def _best_classes_kernel(jll, order):
    out = np.empty(jll.shape[0], np.int64)
    for i in range(jll.shape[0]):
        best = order[0]
        for k in order[1:]:
            if jll[i, k] > jll[i, best]:
                best = k
        out[i] = best
    return out


def best_classes(jll, order):
    """Index of each row's largest joint log-likelihood; ties go to the class first in ``order``.

    Parameters
    ----------
    jll : ndarray of float64, shape (n_rows, n_classes)
    order : ndarray of int64, shape (n_classes,)
        The classes in order of preference (for example, by decreasing prior).

    Returns
    -------
    ndarray of int64, shape (n_rows,)
    """
    require_array("jll", jll, 2)
    require_array("order", order, 1)
    if order.shape[0] != jll.shape[1] or order.shape[0] == 0:
        raise ValueError(f"order must list each of the {jll.shape[1]} classes, got {order.shape[0]}")
    return _best_classes_kernel(np.asarray(jll, dtype=np.float64), order.astype(np.int64))


def joint_log_likelihood(codes, log_table, offsets, log_prior):
    """Unnormalised log posterior of every row and class.

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_rows, f)
        Codes of all attributes (categorical and binned numeric), any layout;
        not range-checked.
    log_table : ndarray of float64, shape (offsets[-1], n_classes)
        Log conditional probabilities; the caller sets the missing rows and
        the rows of ignored attributes to 0.
    offsets : ndarray of int64, shape (f + 1,)
        Table row ranges of the attributes.
    log_prior : ndarray of float64, shape (n_classes,)
        Log class priors.

    Returns
    -------
    ndarray of float64, shape (n_rows, n_classes)
        ``log_prior[k] + sum_a log_table[offsets[a] + codes[i, a], k]``.
    """
    require_array("codes", codes, 2)
    require_dtype("codes", codes, CODE_DTYPES)
    check_offsets(offsets, codes.shape[1])
    require_array("log_prior", log_prior, 1)
    require_dtype("log_prior", log_prior, (np.dtype(np.float64),))
    require_array("log_table", log_table, 2)
    require_dtype("log_table", log_table, (np.dtype(np.float64),))
    expected = (int(offsets[-1]), log_prior.shape[0])
    if log_table.shape != expected:
        raise ValueError(f"log_table must have shape {expected}, got {log_table.shape}")
    return _joint_log_likelihood_kernel(
        codes, np.ascontiguousarray(log_table), offsets, log_prior
    )


@njit(nogil=True, cache=True)
def tally(jll, truth, predicted, confusion):
    """Add the rows with a known target to ``confusion``; return their summed log P(y|x)."""
    total = 0.0
    for i in range(jll.shape[0]):
        t = truth[i]
        if t < 0:
            continue
        best = 0
        for k in range(1, jll.shape[1]):
            if jll[i, k] > jll[i, best]:
                best = k
        top = jll[i, best]
        s = 0.0
        for k in range(jll.shape[1]):
            if k != best:
                s += np.exp(jll[i, k] - top)
        total += jll[i, t] - top - np.log1p(s)
        confusion[t, predicted[i]] += 1
    return total

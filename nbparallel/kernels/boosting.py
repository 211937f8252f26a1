"""Boosting rounds: the rows a learner gets wrong and their next weights.

The class a learner predicts for each row is :func:`nbparallel.kernels.scoring.best_of_rows`, the scoring
family's (its rows summed by :mod:`nbparallel.kernels.row_sums`), so a round's classes are the model's own
predictions to the bit.
"""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import require_array, require_dtype


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

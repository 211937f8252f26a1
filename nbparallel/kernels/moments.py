"""Per-class moments of float columns in one compiled pass: weighted counts and shifted sums.

For each (class, column) the pass sums ``n = sum w``, ``s1 = sum w (x - c)`` and ``s2 = sum w (x - c)^2``
over the rows of that class where ``x`` is not NaN, with a shift ``c`` per (class, column): the first
non-missing value of that class and column met in the rows. Deviations from a value of the data itself are
of the order of the spread, not of the values, so ``M2 = s2 - s1^2 / n`` keeps its digits on data far from 0
(values of 10^9 spread by 10^-3), where sums of ``x`` and ``x^2`` lose them all. Each value is read once.

Like every kernel here it releases the GIL (Dask threads run partitions in parallel) and is cached on disk.
"""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import VALUE_DTYPES, check_n_classes, require_array, require_dtype, require_rows


@njit(nogil=True, cache=True, inline="always")
def _value(X, columns, i, j):
    """Row ``i``'s value of summarised column ``j``: ``X[i, columns[j]]``, or ``X[i, j]`` when ``columns`` is
    None (every column of ``X``, read without an index: a loop the compiler vectorises)."""
    return np.float64(X[i, j]) if columns is None else np.float64(X[i, columns[j]])


@njit(nogil=True, cache=True, inline="always")
def _set_shifts(X, columns, i, k, shift, unset):
    """Take row ``i``'s non-missing values as the shifts of class ``k``'s columns that have none yet."""
    for j in range(shift.shape[1]):
        x = _value(X, columns, i, j)
        if np.isnan(shift[k, j]) and not np.isnan(x):
            shift[k, j] = x
            unset[k] -= 1


@njit(nogil=True, cache=True)
def _moments_kernel(X, columns, y, weights, shift, n, s1, s2, none_present):
    """Add rows' shifted sums into ``n``, ``s1``, ``s2`` (n_classes, g), setting ``shift`` (NaN: unset) on
    the way; ``none_present[k]`` gets the weight of class ``k``'s rows with every column missing."""
    g = shift.shape[1]
    unset = np.full(shift.shape[0], g, dtype=np.int64)
    for k in range(shift.shape[0]):
        for j in range(g):
            if not np.isnan(shift[k, j]):
                unset[k] -= 1
    for i in range(X.shape[0]):
        k = np.int64(y[i])
        if k < 0:
            continue
        w = 1.0 if weights is None else weights[i]
        if unset[k] > 0:
            _set_shifts(X, columns, i, k, shift, unset)
        present = 0
        for j in range(g):
            x = _value(X, columns, i, j)
            known = not np.isnan(x)
            d = x - shift[k, j] if known else 0.0
            n[k, j] += w if known else 0.0
            s1[k, j] += w * d
            s2[k, j] += w * d * d
            present += known
        if present == 0:
            none_present[k] += w


def class_moments(X, columns, y, weights, n_classes):
    """Per-class weighted count, mean and M2 of the columns ``columns`` of ``X``, NaN skipped, in one pass.

    Parameters
    ----------
    X : ndarray of float64 or float32, shape (n_rows, n_columns)
        Any memory layout; NaN means missing (skipped for that column only).
    columns : sequence of int
        The columns of ``X`` summarised, in this order (``g`` of them).
    y : ndarray of int, shape (n_rows,)
        Class codes in ``[0, n_classes)``; a negative code (missing target) skips the row.
    weights : ndarray of float64, shape (n_rows,), or None
        Row weights; None means 1 each.
    n_classes : int

    Returns
    -------
    n, mean, mean_low, m2 : ndarray of float64, shape (n_classes, g)
        Weight of the known values, their weighted mean as a float ``mean`` and what it leaves out
        (``mean + mean_low`` is the mean to about 1e-32 relative), and the sum of weighted squared deviations
        from it; all 0 where ``n`` is 0.
    none_present : ndarray of float64, shape (n_classes,)
        Weight of each class's rows with every one of the ``g`` columns missing.

    Examples
    --------
    >>> X = np.array([[1.0, np.nan], [3.0, 2.0], [10.0, 4.0]])
    >>> n, mean, _, m2, none = class_moments(X, [0, 1], np.array([0, 0, 1]), None, 2)
    >>> n.tolist(), mean.tolist(), m2.tolist(), none.tolist()
    ([[2.0, 1.0], [1.0, 1.0]], [[2.0, 2.0], [10.0, 4.0]], [[2.0, 0.0], [0.0, 0.0]], [0.0, 0.0])
    """
    require_array("X", X, 2)
    require_dtype("X", X, VALUE_DTYPES)
    columns = np.asarray(columns, dtype=np.int64).reshape(-1)
    if columns.size and (columns.min() < 0 or columns.max() >= X.shape[1]):
        raise ValueError(f"columns must lie in [0, {X.shape[1]}), got {columns.tolist()}")
    require_array("y", y, 1)
    if y.dtype.kind not in "iu":
        raise TypeError(f"y must have an integer dtype, got {y.dtype}")
    require_rows("y", y, X.shape[0])
    check_n_classes(n_classes)
    n_classes = int(n_classes)
    if len(y) and y.max() >= n_classes:
        raise ValueError(f"y must hold class codes below {n_classes}, got {int(y.max())}")
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
        require_array("weights", weights, 1)
        require_rows("weights", weights, X.shape[0])
    shape = (n_classes, columns.size)
    shift = np.full(shape, np.nan)
    n, s1, s2 = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    none_present = np.zeros(n_classes)
    if columns.size and np.array_equal(columns, np.arange(columns[0], columns[0] + columns.size)):
        X, columns = X[:, columns[0]:columns[0] + columns.size], None  # a range of columns: a view, no index
    _moments_kernel(X, columns, y, weights, shift, n, s1, s2, none_present)
    known = n > 0
    safe_n = np.where(known, n, 1.0)
    shift, deviation = np.where(known, shift, 0.0), np.where(known, s1 / safe_n, 0.0)
    mean = shift + deviation
    shift_part = mean - deviation  # Knuth's TwoSum: mean + mean_low == shift + deviation exactly
    mean_low = (shift - shift_part) + (deviation - (mean - shift_part))
    m2 = np.where(known, np.maximum(s2 - s1 * deviation, 0.0), 0.0)
    return n, mean, mean_low, m2, none_present

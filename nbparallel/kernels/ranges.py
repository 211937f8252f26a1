"""Column ranges and the distinct values of integer columns, in one compiled pass."""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import FLAG_RANGE_LIMIT, require_array


@njit(nogil=True, cache=True)
def _flag_values_kernel(column, lowest, flags):
    for x in column:
        flags[x - lowest] = True


@njit(nogil=True, cache=True)
def _flag_columns_kernel(X, lo, spans, starts, flags):
    """``flags[starts[j] + x - lo[j]] = True`` for each value ``x`` of each column ``j`` with ``starts[j] >= 0``,
    row-major, until every flag is set. Returns ``(outside, stop)``: whether a value lay outside its column's
    ``spans[j]`` values from ``lo[j]`` (not flagged: nothing is written out of bounds), and the row it stopped
    at (the rows from there can add no value, only one outside)."""
    unseen = 0
    for j in range(X.shape[1]):
        if starts[j] >= 0:
            unseen += spans[j]
    outside = False
    i = 0
    while i < X.shape[0] and unseen > 0:
        for j in range(X.shape[1]):
            if starts[j] >= 0:
                offset = np.uint64(np.int64(X[i, j]) - lo[j])  # below lo: a huge unsigned offset
                if offset < np.uint64(spans[j]):
                    at = np.uint64(starts[j]) + offset
                    if not flags[at]:
                        flags[at] = True
                        unseen -= 1
                else:
                    outside = True
        i += 1
    return outside, i


@njit(nogil=True, cache=True)
def _column_ranges_kernel(X, lo, hi):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            v = X[i, j]
            if v < lo[j]:
                lo[j] = v
            if v > hi[j]:
                hi[j] = v


def column_ranges(X):
    """Per-column minimum and maximum of a 2-D numeric array, in one row-major pass.

    NaN values are skipped; a column with no other value gets ``lo = +inf``
    and ``hi = -inf``.

    Parameters
    ----------
    X : ndarray of integers or floats, shape (n_rows, n_columns)

    Returns
    -------
    lo, hi : ndarray of int64 (integer X, at least one row; uint64 for uint64 X) or float64
    """
    require_array("X", X, 2)
    if X.dtype.kind not in "iuf":
        raise TypeError(f"X must hold integers or floats, got dtype {X.dtype}")
    if X.dtype.kind == "f":
        lo = np.full(X.shape[1], np.inf)
        hi = np.full(X.shape[1], -np.inf)
    elif X.shape[0] == 0:
        raise ValueError("an integer X must have at least one row")
    elif X.flags.c_contiguous and X.shape[1] > 1:
        return _folded_integer_ranges(X)
    else:
        lo = X[0].astype(_wide_dtype(X.dtype))
        hi = lo.copy()
        if X.strides[0] == X.itemsize or X.shape[1] == 1:  # Fortran order, rows of it, or one column
            _column_major_ranges_kernel(X, lo, hi)
            return lo, hi
    _column_ranges_kernel(X, lo, hi)
    return lo, hi


@njit(nogil=True, cache=True)
def _column_major_ranges_kernel(X, lo, hi):
    """Per-column min and max of an integer array whose columns are each contiguous, into ``lo``/``hi``
    (which hold starting values): a column at a time, by ``min`` and ``max`` along it, so that the loop
    becomes vector instructions (:func:`_column_ranges_kernel` reads a row across the columns)."""
    for j in range(X.shape[1]):
        low, high = lo[j], hi[j]
        for i in range(X.shape[0]):
            v = X[i, j]
            low = min(low, v)
            high = max(high, v)
        lo[j], hi[j] = low, high


@njit(nogil=True, cache=True)
def _lane_ranges_kernel(rows, lo_out, hi_out):
    """Per-column min and max of a 2-D integer array into ``lo_out``/``hi_out`` (which hold starting values).

    The accumulators are local copies, so LLVM knows they alias nothing, and each is stored every time from
    a select rather than conditionally, so the inner loop over the contiguous columns becomes vector
    compares and blends: for 8-byte integers too, which have no vector min or max before AVX-512 (``min``
    and ``max`` there stayed scalar).
    """
    lo = lo_out.copy()
    hi = hi_out.copy()
    for i in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            v = rows[i, j]
            low, high = lo[j], hi[j]
            lo[j] = v if v < low else low
            hi[j] = v if v > high else high
    lo_out[:] = lo
    hi_out[:] = hi


def _folded_integer_ranges(X, fold=16):
    """Column ranges of a C-ordered integer array in one vectorised pass over a wide view.

    Viewing ``fold`` rows as one gives the compiled loop a long contiguous
    inner row, one min and one max per value: faster than two numpy
    reductions, which read the array twice.
    """
    n, f = X.shape
    whole = n - n % fold
    info = np.iinfo(X.dtype)
    lo = np.full(f * fold, info.max, dtype=X.dtype)
    hi = np.full(f * fold, info.min, dtype=X.dtype)
    _lane_ranges_kernel(X[:whole].reshape(-1, f * fold), lo, hi)
    lo, hi = lo.reshape(fold, f).min(axis=0), hi.reshape(fold, f).max(axis=0)
    if whole < n:
        lo, hi = np.minimum(lo, X[whole:].min(axis=0)), np.maximum(hi, X[whole:].max(axis=0))
    return lo.astype(_wide_dtype(X.dtype)), hi.astype(_wide_dtype(X.dtype))


def _wide_dtype(dtype):
    """The dtype of an integer column's range: int64, or uint64 for uint64 (whose values from 2**63 on
    int64 cannot hold)."""
    return np.dtype(np.uint64) if dtype == np.uint64 else np.dtype(np.int64)


def seen_values(column):
    """Sorted distinct values of an integer or bool column.

    A flag-array pass (O(n), no sort) when the value range is small, i.e.
    for 1- and 2-byte dtypes or ``max - min < 2**20``; ``np.unique``
    otherwise.

    Parameters
    ----------
    column : ndarray of int, uint or bool, shape (n,)

    Returns
    -------
    ndarray of the same dtype, sorted ascending.
    """
    require_array("column", column, 1)
    if column.dtype.kind not in "iub":
        raise TypeError(f"column must have an integer or bool dtype, got {column.dtype}")
    if column.dtype.kind == "b":
        return seen_values(column.view(np.uint8)).view(np.bool_)
    if column.shape[0] == 0:
        return column[:0].copy()
    if column.dtype.itemsize <= 2:
        lowest = int(np.iinfo(column.dtype).min)
        n_flags = 2 ** (8 * column.dtype.itemsize)
    else:
        lowest = int(column.min())
        n_flags = int(column.max()) - lowest + 1
        if n_flags > FLAG_RANGE_LIMIT:
            return np.unique(column)
    flags = np.zeros(n_flags, np.bool_)
    # compile with a 64-bit lowest so ``x - lowest`` cannot wrap around
    lowest_typed = np.uint64(lowest) if column.dtype.kind == "u" else np.int64(lowest)
    _flag_values_kernel(column, lowest_typed, flags)
    if column.dtype == np.uint64:  # values from 2**63 on: unsigned arithmetic
        return np.flatnonzero(flags).astype(np.uint64) + np.uint64(lowest)
    return (np.flatnonzero(flags) + lowest).astype(column.dtype)


def columns_values(X, lo, hi):
    """Sorted distinct values of each column of a 2-D integer array whose column ranges are known, in one
    row-major pass of flags over the ranges: a C-ordered array's columns are not read one by one, each a
    strided pass over the whole array. The pass stops once every value of every range is flagged (codes seen
    in full within the first rows, as categorical codes mostly are); the rows after are only checked to lie
    within the ranges, by the vectorised :func:`column_ranges`.

    Parameters
    ----------
    X : ndarray of integers (not uint64), shape (n_rows, n_columns)
    lo, hi : ndarray of int64, shape (n_columns,)
        Each column's minimum and maximum (:func:`column_ranges`); a column given ``hi < lo`` is not read.

    Returns
    -------
    list of ndarray of X's dtype, or None for a column not read or spanning more than ``FLAG_RANGE_LIMIT``
    values (its caller finds them otherwise).

    Raises
    ------
    ValueError
        When a value lies outside its column's ``lo .. hi``.
    """
    require_array("X", X, 2)
    if X.dtype.kind not in "iu" or X.dtype == np.uint64:
        raise TypeError(f"X must hold integers other than uint64, got dtype {X.dtype}")
    lo, hi = np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64)
    if lo.shape != (X.shape[1],) or hi.shape != (X.shape[1],):
        raise ValueError(f"lo and hi must hold one value per column of X ({X.shape[1]})")
    spans = hi - lo + 1
    small = (spans >= 1) & (spans <= FLAG_RANGE_LIMIT)
    starts = np.where(small, np.concatenate([[0], np.cumsum(np.where(small, spans, 0))[:-1]]), -1)
    flags = np.zeros(int(np.where(small, spans, 0).sum()), np.bool_)
    outside, stop = _flag_columns_kernel(X, lo, spans, starts, flags) if len(X) and small.any() else (False, len(X))
    if stop < len(X):  # every value of the ranges seen: the other rows need only lie in them
        rest_lo, rest_hi = column_ranges(X[stop:])
        outside |= bool(np.any(small & ((rest_lo < lo) | (rest_hi > hi))))
    if outside:
        raise ValueError("X holds values outside the column ranges lo .. hi given")
    return [(np.flatnonzero(flags[starts[j]:starts[j] + spans[j]]) + lo[j]).astype(X.dtype) if small[j] else None
            for j in range(X.shape[1])]

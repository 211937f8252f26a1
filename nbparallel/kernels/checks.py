"""Argument checks of the kernels' public wrappers: dtypes, shapes, offsets and edges; and
:class:`CheckedCodes`, a partition's codes checked once for passes that score them many times."""

import numpy as np
from numba import njit

CODE_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16))
VALUE_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
INT32_MAX = np.iinfo(np.int32).max
FLAG_RANGE_LIMIT = 2**20


def require_array(name, arr, ndim):
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {type(arr).__name__}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")


def require_dtype(name, arr, dtypes):
    if arr.dtype not in dtypes:
        names = ", ".join(str(d) for d in dtypes)
        raise TypeError(f"{name} must have dtype in ({names}), got {arr.dtype}")


def require_rows(name, arr, n_rows):
    if arr.shape[0] != n_rows:
        raise ValueError(f"{name} has {arr.shape[0]} rows, codes has {n_rows}")


def check_offsets(offsets, n_attrs):
    require_array("offsets", offsets, 1)
    require_dtype("offsets", offsets, (np.dtype(np.int64),))
    if offsets.shape[0] != n_attrs + 1:
        raise ValueError(
            f"offsets must have length n_attrs + 1 = {n_attrs + 1}, "
            f"got {offsets.shape[0]}"
        )
    if offsets[0] != 0 or np.any(np.diff(offsets) < 1):
        raise ValueError(
            "offsets must start at 0 and increase by at least 1 per attribute"
        )


def check_edges(edges, n_bins):
    require_array("edges", edges, 2)
    require_dtype("edges", edges, (np.dtype(np.float64),))
    if edges.shape[0] != n_bins.shape[0]:
        raise ValueError(
            f"edges must have one row per numeric attribute ({n_bins.shape[0]}), "
            f"got {edges.shape[0]}"
        )
    if n_bins.shape[0] and edges.shape[1] < n_bins.max() - 1:
        raise ValueError(
            f"edges must have at least max(n_bins) - 1 = {n_bins.max() - 1} "
            f"columns, got {edges.shape[1]}"
        )


def check_n_classes(n_classes):
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)):
        raise TypeError(f"n_classes must be an int, got {type(n_classes).__name__}")
    if n_classes < 1:
        raise ValueError(f"n_classes must be >= 1, got {n_classes}")


@njit(nogil=True, cache=True)
def _codes_outside(codes, offsets, column_offset):
    """Number of codes of ``codes`` at or beyond their attribute's table rows."""
    bad = 0
    for a in range(codes.shape[1]):
        size = offsets[column_offset + a + 1] - offsets[column_offset + a]
        for i in range(codes.shape[0]):
            bad += np.int64(codes[i, a]) >= size
    return bad


class CheckedCodes:
    """A partition's codes, checked once against a table layout, for passes that score them many times.

    Parameters
    ----------
    first, second : ndarray of uint8 or uint16, shape (n_rows, f1) and (n_rows, f2)
        Codes as :func:`nbparallel.kernels.scoring.score_rows` takes them (any layout; attribute ``a`` of
        ``first`` reads table rows ``offsets[a]..``, then ``second``'s attributes).
    offsets : ndarray of int64, shape (f1 + f2 + 1,)

    Raises
    ------
    ValueError
        When a code lies outside its attribute's rows.
    """

    def __init__(self, first, second, offsets):
        for name, codes in (("first", first), ("second", second)):
            require_array(name, codes, 2)
            if codes.shape[1]:
                require_dtype(name, codes, CODE_DTYPES)
        if second.shape[0] != first.shape[0]:
            raise ValueError(f"second has {second.shape[0]} rows, first has {first.shape[0]}")
        check_offsets(offsets, first.shape[1] + second.shape[1])
        self.first = first if first.shape[1] else np.empty((first.shape[0], 0), dtype=np.uint8)
        self.second = second if second.shape[1] else np.empty((first.shape[0], 0), dtype=np.uint8)
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        bad = (_codes_outside(self.first, self.offsets, 0)
               + _codes_outside(self.second, self.offsets, self.first.shape[1]))
        if bad:
            raise ValueError(f"{bad} codes lie outside their attribute's rows of the table layout")

    def __len__(self):
        return self.first.shape[0]

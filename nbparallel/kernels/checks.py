"""Argument checks of the kernels' public wrappers: dtypes, shapes, offsets and edges."""

import numpy as np

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

"""Per-class counts of every pair of attributes in one pass over the rows (numba): the counts AODE and TAN derive from.

Attribute ``a`` owns the rows ``offsets[a] .. offsets[a + 1] - 1`` of the single-attribute layout of
:mod:`nbparallel.kernels.counting`: the first counts missing values (code 0), the others codes ``1 .. M_a``.
The pair table of a class is the upper block triangle of the attributes' co-occurrence matrix over those
rows: row ``r`` of attribute ``i`` holds the columns of every later attribute, ``offsets[i + 1] ..
offsets[-1] - 1``, and the rows are laid end to end (:func:`pair_row_starts`). The cell of codes ``(x_i,
x_j)``, ``i < j``, is therefore ``start[offsets[i] + x_i] + offsets[j] + x_j``: per row, each attribute's
start and each attribute's column are found once, and each of the row's pairs costs one addition and one
increment. Missing codes are counted too (their row and column), so the loop has no branch; the cells of
two present values are the pair counts, and the margins need no second pass.

Weighted rows add their weight in row order, as :func:`nbparallel.kernels.counting.count_partition` adds
it, so a cell is the same float as a sequential sum of its rows' weights.
"""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import (
    CODE_DTYPES,
    INT32_MAX,
    check_n_classes,
    check_offsets,
    require_array,
    require_dtype,
    require_rows,
)


def pair_row_starts(offsets):
    """Where each row of the single-attribute layout starts in a class's pair table, minus its first column.

    Parameters
    ----------
    offsets : ndarray of int64, shape (f + 1,)
        The attributes' rows (missing row first), as for :func:`count_pairs`.

    Returns
    -------
    starts : ndarray of int64, shape (offsets[-1],)
        The cell of row ``r`` (attribute ``i``) and column ``s`` (of an attribute ``j > i``) is
        ``starts[r] + s``.
    n_cells : int
        Cells of one class's pair table.

    Examples
    --------
    >>> starts, n_cells = pair_row_starts(np.array([0, 2, 5, 7]))  # 3 attributes of 2, 3 and 2 rows
    >>> starts.tolist(), n_cells  # rows of attribute 0 hold 5 columns, of attribute 1 two, of attribute 2 none
    ([-2, 3, 5, 7, 9, 9, 9], 16)
    """
    sizes = np.diff(offsets)
    lengths = np.repeat(offsets[-1] - offsets[1:], sizes)  # each row's number of columns
    ends = np.cumsum(lengths)
    first_column = np.repeat(offsets[1:], sizes)
    return (ends - lengths - first_column).astype(np.int64), int(ends[-1]) if len(ends) else 0


@njit(nogil=True, cache=True, inline="always")
def _row_cells(codes, y, weights, n, offsets, starts, n_cells, n_classes, singles, rows, bases, h):
    """Row ``n``'s increment (1 or its weight), its attributes' rows in ``rows[h]`` and their pair-table starts
    in ``bases[h]``; its single counts are added."""
    increment = 1 if weights is None else weights[n]
    k = np.int64(y[n])
    k = k if k >= 0 else n_classes
    single_base = np.uint64(k) * np.uint64(offsets[-1])
    pair_base = np.uint64(k) * n_cells
    for j in range(codes.shape[1]):
        r = np.uint64(offsets[j]) + np.uint64(codes[n, j])
        rows[h, j] = r
        bases[h, j] = pair_base + starts[r]
        singles[single_base + r] += increment
    return increment


@njit(nogil=True, cache=True)
def _count_pairs_kernel(codes, y, weights, offsets, starts, n_cells, n_classes, singles, pairs):
    """Add the rows into ``singles`` (n_classes + 1, offsets[-1]) and ``pairs`` (n_classes + 1, n_cells),
    flat; block ``n_classes`` of both is the sink of rows with a missing target.

    Two rows at a time: their increments do not wait on each other, and each cell still adds its rows in
    row order. ``starts`` is taken as uint64, modulo 2**64: a start below 0 plus its column is the cell.
    """
    n_rows, f = codes.shape
    starts = starts.astype(np.uint64)
    cells = np.uint64(n_cells)
    rows, bases = np.empty((2, f), np.uint64), np.empty((2, f), np.uint64)
    for n in range(0, n_rows - 1, 2):
        first = _row_cells(codes, y, weights, n, offsets, starts, cells, n_classes, singles, rows, bases, 0)
        second = _row_cells(codes, y, weights, n + 1, offsets, starts, cells, n_classes, singles, rows, bases, 1)
        for i in range(f - 1):
            base, base2 = bases[0, i], bases[1, i]
            for j in range(i + 1, f):
                pairs[base + rows[0, j]] += first
                pairs[base2 + rows[1, j]] += second
    if n_rows % 2:
        last = _row_cells(codes, y, weights, n_rows - 1, offsets, starts, cells, n_classes, singles, rows, bases, 0)
        for i in range(f - 1):
            for j in range(i + 1, f):
                pairs[bases[0, i] + rows[0, j]] += last


@njit(nogil=True, cache=True)
def _all_missing_kernel(codes, y, weights, n_classes):
    """Weight per class of the rows with a known target whose every code is 0."""
    all_missing = np.zeros(n_classes)
    for n in range(codes.shape[0]):
        k = np.int64(y[n])
        if k < 0:
            continue
        present = False
        for j in range(codes.shape[1]):
            if codes[n, j] != 0:
                present = True
                break
        if not present:
            all_missing[k] += 1.0 if weights is None else weights[n]
    return all_missing


def count_pairs(codes, y, weights, offsets, n_classes):
    """Count one partition's rows of codes: per class, every attribute's values and every pair's.

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_rows, f)
        Any memory layout; 0 means missing, ``1 .. M_a`` are the values of attribute ``a``. Not
        range-checked: the caller guarantees ``codes[:, a] < offsets[a + 1] - offsets[a]``.
    y : ndarray of int, shape (n_rows,)
        Class codes in ``[0, n_classes)``, or -1 for a missing target (the row is skipped). Not
        range-checked.
    weights : ndarray of float64, shape (n_rows,), or None
        Case weights; None means every weight is 1 (integer counters, fastest).
    offsets : ndarray of int64, shape (f + 1,)
        The attributes' rows, ``M_a + 1`` each (the missing row first).
    n_classes : int
        Number of classes, >= 1.

    Returns
    -------
    singles : ndarray of float64, shape (offsets[-1], n_classes)
        Weighted counts of each attribute's values (missing rows included), laid out as
        :class:`~nbparallel.summaries.counts.CountTable`'s table.
    pairs : ndarray of float64, shape (n_classes, n_cells)
        Each class's pair table (see the module docstring and :func:`pair_row_starts`), missing rows and
        columns included.
    class_totals : ndarray of float64, shape (n_classes,)
        Weight of the rows with a known target.
    all_missing : ndarray of float64, shape (n_classes,)
        Weight of the rows with a known target whose every attribute is missing.
    n_missing_target : int
        Number of rows with a missing target.
    """
    require_array("codes", codes, 2)
    require_dtype("codes", codes, CODE_DTYPES)
    n_rows, f = codes.shape
    require_array("y", y, 1)
    if y.dtype.kind not in "iu":
        raise TypeError(f"y must have an integer dtype, got {y.dtype}")
    require_rows("y", y, n_rows)
    if weights is not None:
        require_array("weights", weights, 1)
        require_dtype("weights", weights, (np.dtype(np.float64),))
        require_rows("weights", weights, n_rows)
    check_offsets(offsets, f)
    check_n_classes(n_classes)
    n_classes = int(n_classes)
    starts, n_cells = pair_row_starts(offsets)
    if weights is not None:
        dtype = np.float64
    else:
        dtype = np.int32 if n_rows <= INT32_MAX else np.int64
    singles = np.zeros((n_classes + 1, int(offsets[-1])), dtype)
    pairs = np.zeros((n_classes + 1, n_cells), dtype)
    if f:
        _count_pairs_kernel(codes, y, weights, offsets, starts, n_cells, n_classes, singles.ravel(), pairs.ravel())
    valid = y >= 0
    class_totals = np.bincount(y[valid].astype(np.int64), None if weights is None else weights[valid], n_classes)
    if not f:
        all_missing = class_totals.astype(np.float64)
    elif singles[:n_classes, offsets[:-1]].sum(axis=0).min() > 0:  # every attribute is missing somewhere
        all_missing = _all_missing_kernel(codes, y, weights, n_classes)
    else:
        all_missing = np.zeros(n_classes)
    return (np.ascontiguousarray(singles[:n_classes].T, dtype=np.float64), pairs[:n_classes].astype(np.float64),
            class_totals.astype(np.float64), all_missing, int(n_rows - np.count_nonzero(valid)))

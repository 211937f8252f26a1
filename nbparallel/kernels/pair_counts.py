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


@njit(nogil=True, cache=True)
def _count_pairs_kernel(codes, y, weights, offsets, starts, n_cells, n_classes, singles, pairs, all_missing):
    """Add the rows into ``singles`` (n_classes + 1, offsets[-1]) and ``pairs`` (n_classes + 1, n_cells),
    flat; block ``n_classes`` of both is the sink of rows with a missing target. ``all_missing`` gets the
    weight per class of the rows whose every code is 0."""
    n_rows, f = codes.shape
    n_table_rows = np.uint64(offsets[-1])
    row_offset = offsets.astype(np.uint64)
    row_start = starts.astype(np.uint64)  # modulo 2**64: a start below 0 plus its column is the cell
    cells = np.uint64(n_cells)
    rows = np.empty(f, np.uint64)
    bases = np.empty(f, np.uint64)
    for n in range(n_rows):
        increment = 1 if weights is None else weights[n]
        k = np.int64(y[n])
        k = k if k >= 0 else n_classes
        single_base = np.uint64(k) * n_table_rows
        pair_base = np.uint64(k) * cells
        present = 0
        for j in range(f):
            code = np.uint64(codes[n, j])
            present |= code
            r = row_offset[j] + code
            rows[j] = r
            bases[j] = pair_base + row_start[r]
            singles[single_base + r] += increment
        for i in range(f - 1):
            base = bases[i]
            for j in range(i + 1, f):
                pairs[base + rows[j]] += increment
        if present == 0 and k < n_classes:
            all_missing[k] += increment


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
    all_missing = np.zeros(n_classes)
    if f:
        _count_pairs_kernel(codes, y, weights, offsets, starts, n_cells, n_classes, singles.ravel(), pairs.ravel(),
                            all_missing)
    valid = y >= 0
    class_totals = np.bincount(y[valid].astype(np.int64), None if weights is None else weights[valid], n_classes)
    if not f:
        all_missing = class_totals.astype(np.float64)
    return (np.ascontiguousarray(singles[:n_classes].T, dtype=np.float64), pairs[:n_classes].astype(np.float64),
            class_totals.astype(np.float64), all_missing, int(n_rows - np.count_nonzero(valid)))

"""Integers and dictionary indices to codes through small lookup tables (numba)."""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import require_array


@njit(nogil=True, cache=True)
def _integer_codes_kernel(X, columns, lo, span, tables, out, targets):
    """``out[:, targets[k]]`` = ``tables[k, x - lo[k]]`` for ``x = X[:, columns[k]]`` when
    ``x - lo[k]`` (modulo 2**64) is at most ``span[k]``; else ``tables[k, -2]`` below the range
    and ``tables[k, -1]`` above it.

    ``lo`` has X's dtype; the unsigned difference makes one comparison test
    both ends. Every index is unsigned and the small arrays are local copies,
    so numba adds no bounds fix-ups and LLVM keeps them out of the loop.
    """
    columns = columns.astype(np.uint64)
    targets = targets.astype(np.uint64)
    lo = lo.copy()
    span = span.copy()
    tables = tables.copy()
    below_slot = np.uint64(tables.shape[1] - 2)
    for i in range(X.shape[0]):
        row = np.uint64(i)
        for k in range(columns.shape[0]):
            at = np.uint64(k)
            x = X[row, columns[at]]
            offset = np.uint64(x - lo[at])
            slot = offset if offset <= span[at] else below_slot + np.uint64(x > lo[at])
            out[row, targets[at]] = tables[at, slot]


@njit(nogil=True, cache=True)
def _small_integer_codes_kernel(X, tables, out):
    """``out[i, k] = tables[k, X[i, k]]``: X unsigned, each table covering its whole dtype.

    Unsigned indices and no indirection: numba adds no bounds fix-up, and the
    loop runs at one load, one gather and one store per value.
    """
    for i in range(X.shape[0]):
        row = np.uint64(i)
        for k in range(X.shape[1]):
            out[row, np.uint64(k)] = tables[np.uint64(k), X[row, np.uint64(k)]]


@njit(nogil=True, cache=True)
def _small_integer_codes_gather_kernel(X, columns, tables, out, targets):
    """:func:`_small_integer_codes_kernel` for some columns of X into some columns of out."""
    columns = columns.astype(np.uint64)
    targets = targets.astype(np.uint64)
    for i in range(X.shape[0]):
        row = np.uint64(i)
        for k in range(columns.shape[0]):
            out[row, targets[k]] = tables[np.uint64(k), X[row, columns[k]]]


@njit(nogil=True, cache=True)
def _unsigned_lookup_kernel(indices, table, out):
    """``out[i] = table[indices[i]]`` for unsigned indices: no bounds fix-up, no branch."""
    for i in range(indices.shape[0]):
        out[i] = table[indices[i]]


@njit(nogil=True, cache=True)
def _lookup_kernel(indices, table, out):
    """``out[i] = table[indices[i]]``; a negative index (missing) takes the table's last entry."""
    last = table.shape[0] - 1
    for i in range(indices.shape[0]):
        k = indices[i]
        out[i] = table[k] if k >= 0 else table[last]


def integer_codes(X, columns, lo, tables, below, above, out, targets=None):
    """Integer columns as codes through small lookup tables, in one row-major pass, no copy.

    Parameters
    ----------
    X : ndarray of integers, shape (n_rows, n_columns), any layout
    columns : ndarray of int64, shape (k,)
    lo : sequence of int, length k
        The value of each table's first entry, representable in X's dtype.
    tables : list of k 1-D integer arrays
        ``tables[k][x - lo[k]]`` is the code of value x; x is inside when that
        index is in range, and ``lo[k] + len(tables[k]) - 1`` must be
        representable in X's dtype.
    below, above : sequence of int, length k
        The code of a value below or above its table.
    out : ndarray of uint8 or uint16, shape (n_rows, m), any layout
    targets : ndarray of int64, shape (k,), optional
        The column of ``out`` each column's codes go to (default ``0..k-1``).

    """
    require_array("X", X, 2)
    if X.dtype.kind not in "iu":
        raise TypeError(f"X must hold integers, got dtype {X.dtype}")
    info = np.iinfo(X.dtype)
    hi = [int(v) + len(t) - 1 for v, t in zip(lo, tables)]
    if any(not info.min <= int(v) <= info.max for v in [*lo, *hi]):
        raise ValueError(f"the tables' ranges must be representable in X's dtype {X.dtype}")
    targets = np.arange(len(tables), dtype=np.int64) if targets is None else targets
    if X.dtype.itemsize <= 2:  # a table over the whole dtype: no range checks
        every = np.arange(info.min, info.max + 1, dtype=np.int64)
        full = np.empty((len(tables), len(every)), dtype=out.dtype)
        for k, (start, t) in enumerate(zip(lo, tables)):
            index = np.clip(every - int(start), 0, len(t) - 1)
            full[k] = np.where(every < int(start), below[k], np.where(index < every - int(start), above[k], t[index]))
        unsigned = X.view(np.dtype(f"u{X.dtype.itemsize}"))
        full = full[:, every.astype(X.dtype).view(unsigned.dtype).argsort()]  # indexed by the unsigned view
        in_place = np.array_equal(columns, targets) and np.array_equal(columns, np.arange(len(tables)))
        if X.shape[1] == len(tables) and in_place:
            _small_integer_codes_kernel(unsigned, full, out)
        else:
            _small_integer_codes_gather_kernel(unsigned, columns, full, out, targets)
        return
    width = max([len(t) for t in tables] + [1])
    padded = np.zeros((len(tables), width + 2), dtype=out.dtype)
    for k, t in enumerate(tables):
        padded[k, : len(t)] = t
    padded[:, -2], padded[:, -1] = below, above
    span = np.asarray([len(t) - 1 for t in tables], dtype=np.uint64)
    _integer_codes_kernel(X, columns, np.asarray(lo, dtype=X.dtype), span, padded, out, targets)


@njit(nogil=True, cache=True)
def _run_codes_kernel(X, columns, lo, span, out):
    for k in range(columns.shape[0]):
        if not 0 <= columns[k] < X.shape[1]:
            return False
    for i in range(X.shape[0]):
        for k in range(columns.shape[0]):
            offset = np.uint64(np.int64(X[i, columns[k]]) - lo[k])  # below lo: a huge unsigned offset
            out[i, k] = offset + 1 if offset <= span[k] else 0
    return True


def run_codes(X, columns, lo, span, dtype):
    """The codes of columns ``columns`` of a signed-integer array whose vocabularies are runs of consecutive
    integers, in one pass: ``x - lo[k] + 1`` for ``lo[k] <= x <= lo[k] + span[k]``, else 0 (unseen).

    Parameters
    ----------
    X : ndarray of signed integers, shape (n_rows, n_columns), any layout
    columns : ndarray of int64, shape (k,)
    lo : ndarray of int64, shape (k,)
        Each run's first value, above int64's least.
    span : ndarray of uint64, shape (k,)
        Each run's last value less its first; ``lo + span`` below int64's largest, so that one unsigned
        comparison of ``x - lo`` tests both ends.
    dtype : uint8 or uint16
        The codes' type, holding ``span + 1``.

    Returns
    -------
    ndarray of ``dtype``, shape (n_rows, k), C-contiguous

    Raises
    ------
    ValueError
        When a column lies outside X (nothing is read).
    """
    out = np.empty((X.shape[0], len(columns)), dtype=dtype)
    if not _run_codes_kernel(X, columns, lo, span, out):
        raise ValueError(f"columns must lie in [0, {X.shape[1]}), got {columns.tolist()}")
    return out


def lookup_codes(indices, table, out):
    """``out[i] = table[indices[i]]``, a negative index taking ``table[-1]``: a dictionary's
    local indices (pandas codes, factorize, Arrow) onto global codes in one pass, no temporary.

    Parameters
    ----------
    indices : ndarray of integers, shape (n,)
        Local dictionary indices in ``-1 .. len(table) - 2``; not range-checked.
    table : ndarray of uint8, uint16 or int32, shape (n_local + 1,)
    out : ndarray, shape (n,)
    """
    require_array("indices", indices, 1)
    if indices.dtype.kind == "i" and indices.dtype.itemsize <= 2:  # pandas codes: a table over the whole dtype
        n_entries = 2 ** (8 * indices.dtype.itemsize)
        full = np.zeros(n_entries, dtype=table.dtype)
        full[: len(table) - 1] = table[:-1]
        full[-1] = table[-1]  # index -1, read unsigned
        _unsigned_lookup_kernel(indices.view(np.dtype(f"u{indices.dtype.itemsize}")), full, out)
        return
    _lookup_kernel(indices, table, out)

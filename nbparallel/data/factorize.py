"""``pandas.factorize`` for string and object columns: the same result from one faster, compiled pass.

:func:`factorize` returns what ``pandas.factorize`` returns (indices in order
of first appearance, -1 for a missing value, and the distinct values), by one
compiled hash pass (numba, open addressing with linear probing):

- **Arrow strings** (pandas ``str`` / ``StringDtype("pyarrow")``, ``ArrowDtype``
  strings; ``string`` or ``large_string``, any chunking and slice offset): the
  pass reads each chunk's offsets, data and validity buffers. A string of at
  most 7 bytes is packed with its length into one ``uint64`` key, compared
  without touching its bytes; a longer one is hashed and compared byte by byte
  with a copy of the first occurrence. The distinct values are then taken from
  the rows of their first occurrences.
- **Object arrays** (object ndarrays and Series, ``StringDtype("python")``):
  values that repeat are nearly always the same Python objects, so the pass
  hashes the object pointers (read as integers, no reference counting), then
  ``pandas.factorize`` merges the few distinct objects that hold equal values
  and finds the missing ones; the two index maps compose. Since the distinct
  objects are in order of first appearance, so are the values.

:func:`count_values` runs the same passes but, instead of writing an index
per row, adds each row to its value's per-class counts: the one-pass fit
counts string columns that way, with no index array written or read again.

Both stop and fall back to ``pandas.factorize`` as soon as a column of ``n``
rows has more distinct keys (strings or objects) than its limit,
``min(MAX_DISTINCT, max(MIN_LIMIT, n // 8))`` rounded up to a power of two:
the tables stay small (at most ~5 MB, grown by doubling from 64 slots), and a
column of mostly distinct values, where the pass would only add to the work of
``pandas.factorize`` on its distinct values, goes to ``pandas.factorize`` early. Any other column
(numbers, 2-D arrays, other extension types) goes to ``pandas.factorize``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nbparallel.kernels.hashing import (
    EMPTY_KEY,
    FIRST_SLOTS,
    pointer_indices,
    rehash,
    remap,
    short_string_indices,
    string_indices,
)

__all__ = ["factorize", "count_values", "MAX_DISTINCT", "MIN_LIMIT"]


MAX_DISTINCT = 1 << 16
"""Most distinct keys the compiled passes hold before falling back to ``pandas.factorize``."""


MIN_LIMIT = 1 << 10
"""Distinct keys any column may have on the compiled passes, however short."""


class _Table:
    """Growing arrays of one hash pass: slots, per id its key, hash and first row, and the counts when counting.

    ``counts`` has one row for missing values and one per id (``n_classes``
    columns), or no rows when the pass writes indices instead.
    """

    def __init__(self, n_rows, strings=False, n_classes=0):
        self.limit = min(MAX_DISTINCT, max(MIN_LIMIT, n_rows // 8))
        self.strings = strings
        self.empty_key = EMPTY_KEY if strings else 0  # never the key of a short string, nor a pointer
        if strings:  # byte ranges of the long strings in ``store``
            self.ends = np.zeros(FIRST_SLOTS // 2 + 1, dtype=np.int64)
            self.store = np.empty(256, dtype=np.uint8)
        self.slot_keys = np.full(FIRST_SLOTS, self.empty_key, dtype=np.uint64)
        self.slot_ids = np.full(FIRST_SLOTS, -1, dtype=np.int64)
        self.keys = np.empty(FIRST_SLOTS // 2, dtype=np.uint64)
        self.hashes = np.empty(FIRST_SLOTS // 2, dtype=np.uint64)
        self.first = np.empty(FIRST_SLOTS // 2, dtype=np.int64)
        self.counts = np.zeros((FIRST_SLOTS // 2 + 1 if n_classes else 0, n_classes), dtype=np.int64)
        self.count = 0

    def grow_store(self):
        """Double the store of long strings' bytes."""
        grown = np.empty(2 * len(self.store), dtype=np.uint8)
        grown[: len(self.store)] = self.store
        self.store = grown

    def grow(self):
        """Double the table; False when it already holds the column's limit of ids."""
        if len(self.keys) >= self.limit:
            return False
        size = 2 * len(self.keys)
        for name in ("keys", "hashes", "first"):
            grown = np.empty(size, dtype=getattr(self, name).dtype)
            grown[: self.count] = getattr(self, name)[: self.count]
            setattr(self, name, grown)
        if self.strings:
            grown = np.zeros(size + 1, dtype=np.int64)
            grown[: self.count + 1] = self.ends[: self.count + 1]
            self.ends = grown
        if len(self.counts):
            grown = np.zeros((size + 1, self.counts.shape[1]), dtype=np.int64)
            grown[: self.count + 1] = self.counts[: self.count + 1]
            self.counts = grown
        self.slot_keys = np.full(2 * size, self.empty_key, dtype=np.uint64)
        self.slot_ids = np.full(2 * size, -1, dtype=np.int64)
        rehash(self.keys, self.hashes, self.count, self.slot_keys, self.slot_ids)
        return True


def _pointers(values):
    """The object pointers of a 1-D object array as a ``uintp`` view (no reference counting).

    The view's base holds ``values``, so the objects outlive it.
    """

    class _Addresses:
        __array_interface__ = {"data": (values.__array_interface__["data"][0], True), "shape": values.shape,
                               "strides": values.strides, "typestr": np.dtype(np.uintp).str, "version": 3}
        owner = values

    return np.asarray(_Addresses())


def _factorize_objects(values, classes=None, n_classes=0):
    """``(indices, uniques)`` of a 1-D object array by its pointers, or None past the limit.

    With ``classes`` (int64, one per row), ``(counts, uniques)`` instead, as :func:`count_values` gives them.
    """
    pointers = _pointers(values)
    counting = classes is not None
    out = None if counting else np.empty(len(values), dtype=np.int64)
    classes = np.empty(0, dtype=np.int64) if classes is None else classes
    table = _Table(len(values), n_classes=n_classes if counting else 0)
    row = 0
    while True:
        row, table.count = pointer_indices(pointers, row, out, classes, table.counts, table.slot_keys,
                                            table.slot_ids, table.keys, table.hashes, table.first, table.count)
        if row == len(values):
            break
        if not table.grow():
            return None
    merged, uniques = pd.factorize(values[table.first[: table.count]])
    uniques = np.asarray(uniques, dtype=object)
    if counting:  # distinct objects holding equal values (or missing ones) add up
        counts = np.zeros((len(uniques) + 1, n_classes), dtype=np.int64)
        np.add.at(counts, merged + 1, table.counts[1 : table.count + 1])
        return counts, uniques
    if not np.array_equal(merged, np.arange(table.count)):
        remap(out, merged)
    return out, uniques


def _buffer(buffer, dtype):
    return np.empty(0, dtype=dtype) if buffer is None else np.frombuffer(buffer, dtype=dtype)


def _factorize_arrow(chunked, classes=None, n_classes=0):
    """``(indices, uniques)`` of an Arrow string ChunkedArray, or None past the limit.

    With ``classes`` (int64, one per row), ``(counts, uniques)`` instead, as :func:`count_values` gives them.
    """
    import pyarrow as pa

    offset_dtype = np.int64 if pa.types.is_large_string(chunked.type) else np.int32
    counting = classes is not None
    out = None if counting else np.empty(len(chunked), dtype=np.int64)
    classes = np.empty(0, dtype=np.int64) if classes is None else classes
    table = _Table(len(chunked), strings=True, n_classes=n_classes if counting else 0)
    row0 = 0
    for chunk in chunked.chunks:
        if not len(chunk):
            continue
        validity, offsets, data = chunk.buffers()
        validity = _buffer(validity if chunk.null_count else None, np.uint8)
        offsets, data = _buffer(offsets, offset_dtype), _buffer(data, np.uint8)
        row, kernel = 0, short_string_indices
        while True:
            row, table.count = kernel(
                offsets, data, validity, chunk.offset, len(chunk), row, row0, out, classes, table.counts,
                table.slot_keys, table.slot_ids, table.keys, table.hashes, table.first, table.store, table.ends,
                table.count)
            if row == len(chunk):
                break
            if table.count >= len(table.slot_ids) // 2:  # the table is half full
                if not table.grow():
                    return None
            elif kernel is short_string_indices:  # a long string: the general pass takes the rest of the chunk
                kernel = string_indices
            else:  # a long string that does not fit in the store
                table.grow_store()
        row0 += len(chunk)
    uniques = chunked.take(pa.array(table.first[: table.count])).to_numpy(zero_copy_only=False)
    return (table.counts[: table.count + 1] if counting else out), np.asarray(uniques, dtype=object)


def _arrow_strings(column):
    """The Arrow ChunkedArray of a pandas Series of Arrow-backed strings, else None."""
    import pyarrow as pa

    dtype = column.dtype
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        chunked = column.array.__arrow_array__()
    elif isinstance(dtype, pd.ArrowDtype):
        chunked = column.array.__arrow_array__()
    else:
        return None
    if not (pa.types.is_string(chunked.type) or pa.types.is_large_string(chunked.type)):
        return None
    return chunked


def _object_values(column):
    """A column of Python objects as a 1-D object ndarray (a view), else None."""
    if isinstance(column, np.ndarray):
        return column if column.dtype == object and column.ndim == 1 else None
    if isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "python":
        values = np.asarray(column.array)
    elif column.dtype == object:
        values = column.to_numpy()
    else:
        return None
    return values if values.dtype == object and values.ndim == 1 else None


def factorize(column):
    """``pandas.factorize(column)``, by a compiled hash pass for string and object columns.

    Parameters
    ----------
    column : 1-D ndarray or pandas.Series
        Object arrays and Series, and pandas string Series (Arrow or Python
        storage) take the fast passes; anything else, and any column with more
        distinct strings or objects than its limit (see the module's
        docstring), goes to ``pandas.factorize``.

    Returns
    -------
    indices : int64 ndarray
        Position of each row's value in ``uniques``, -1 for a missing value.
    uniques : ndarray or pandas.Index
        The distinct non-missing values in order of first appearance: an
        object ndarray on the fast passes; on the fallback, as
        ``pandas.factorize`` gives them (an ``Index`` for a Series), since
        making Python objects of many distinct values costs as much as the
        factorization.

    Examples
    --------
    >>> indices, uniques = factorize(pd.Series(["b", None, "a", "b"], dtype="str"))
    >>> indices.tolist(), uniques.tolist()
    ([0, -1, 1, 0], ['b', 'a'])
    """
    result = _compiled_pass(column)
    return pd.factorize(column) if result is None else result


def count_values(column, classes, n_classes):
    """Rows of each distinct value of ``column`` per class, by :func:`factorize`'s pass writing no indices.

    The hash pass adds each row to its value's counts as it goes, so no
    index array is written or read again.

    Parameters
    ----------
    column : 1-D ndarray or pandas.Series
        As for :func:`factorize`.
    classes : int ndarray, shape (len(column),)
        Each row's class, in ``[0, n_classes)``; anything else raises
        ValueError or TypeError before any counting.
    n_classes : int >= 1

    Returns
    -------
    counts : int64 ndarray, shape (1 + len(uniques), n_classes)
        Row 0 counts the missing values, row ``1 + u`` the value ``uniques[u]``.
    uniques : ndarray or pandas.Index
        As :func:`factorize` gives them.

    Examples
    --------
    >>> counts, uniques = count_values(pd.Series(["b", None, "a", "b"], dtype="str"), np.array([0, 1, 1, 1]), 2)
    >>> counts.tolist(), uniques.tolist()
    ([[0, 1], [1, 1], [0, 1]], ['b', 'a'])
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 1:
        raise ValueError(f"n_classes must be an int >= 1, got {n_classes!r}")
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.dtype.kind not in "iu":
        raise TypeError(f"classes must be a 1-D integer array, got {classes.dtype} of shape {classes.shape}")
    if len(classes) != len(column):
        raise ValueError(f"classes has {len(classes)} rows, the column {len(column)}")
    if len(classes) and (classes.min() < 0 or classes.max() >= n_classes):
        raise ValueError(f"classes must lie in [0, {n_classes}), got {classes.min()}..{classes.max()}")
    return count_trusted_values(column, classes, int(n_classes))


def count_trusted_values(column, classes, n_classes):
    """:func:`count_values` with ``classes`` trusted to lie in ``[0, n_classes)`` (the one-pass fit's own)."""
    classes = np.ascontiguousarray(classes, dtype=np.int64)
    result = _compiled_pass(column, classes, n_classes)
    if result is not None:
        return result
    indices, uniques = pd.factorize(column)
    cells = (indices + 1) * n_classes + classes
    return np.bincount(cells, minlength=(len(uniques) + 1) * n_classes).reshape(-1, n_classes), uniques


def _compiled_pass(column, classes=None, n_classes=0):
    """The compiled pass's ``(indices or counts, uniques)`` of a string or object column, else None."""
    if isinstance(column, pd.Series):
        chunked = _arrow_strings(column)
        if chunked is not None:
            result = _factorize_arrow(chunked, classes, n_classes)
            if result is not None:
                return result
    if isinstance(column, (np.ndarray, pd.Series)):
        values = _object_values(column)
        if values is not None:
            return _factorize_objects(values, classes, n_classes)
    return None

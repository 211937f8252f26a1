"""Per-partition hot loops of naive Bayes counting (numba); scoring's are in :mod:`nbparallel.kernels.scoring`.

Every compiled function releases the GIL (``nogil=True``) so Dask threads
count partitions in parallel, and is cached on disk (``cache=True``).

Table layout shared by all functions: attribute ``a`` (categoricals first,
then numerics) owns the table rows ``offsets[a] .. offsets[a + 1] - 1``.
The first of those rows counts missing values; the others count codes
``1 .. M_a`` of a categorical attribute, or bins ``0 .. B_a - 1`` of a
numeric attribute (row ``offsets[a] + 1 + bin``).

Table indices are computed in ``uint64`` on purpose: numba then skips its
negative-index wraparound fix-up on every table access.
"""

import numpy as np
from numba import njit

from nbparallel.kernels.binning import block_binner
from nbparallel.kernels.checks import (
    CODE_DTYPES,
    INT32_MAX,
    VALUE_DTYPES,
    check_edges,
    check_n_classes,
    check_offsets,
    require_array,
    require_dtype,
    require_rows,
)
from nbparallel.kernels.lane_counting import MIN_ROWS as LANE_MIN_ROWS
from nbparallel.kernels.lane_counting import count_bytes, count_lanes, lane_window


@njit(nogil=True, cache=True, inline="always")
def _row_start(y, weights, i, n_classes, n_table_rows):
    """Row i's increment (1 or its weight) and the start of its class block in a flat table.

    A missing target (y < 0) goes to block ``n_classes``, the sink.
    """
    increment = 1 if weights is None else weights[i]
    k = np.int64(y[i])
    k = k if k >= 0 else n_classes
    return increment, np.uint64(k) * n_table_rows


@njit(nogil=True, cache=True)
def _count_codes_kernel(codes, y, weights, offsets, n_classes, counts):
    """Add the categorical counts into ``counts`` laid out as (n_classes + 1, R).

    Block ``n_classes`` of ``counts`` is a sink for rows with a missing
    target, so the loop needs no branch and no bookkeeping per row.
    """
    n_rows, f_cat = codes.shape
    n_table_rows = np.uint64(offsets[-1])
    row_offset = offsets.astype(np.uint64)
    for i in range(n_rows):
        increment, base = _row_start(y, weights, i, n_classes, n_table_rows)
        for j in range(f_cat):
            counts[base + row_offset[j] + np.uint64(codes[i, j])] += increment


_PAIR_TABLE_LIMIT = 4096  # largest table a pair of attributes may share (rows)
PAIR_MIN_ROWS = 1 << 16
"""Fewest rows whose integers :func:`count_integers` counts in pairs of attributes: below them adding the pairs'
margins costs more than pairing saves."""


@njit(nogil=True, cache=True)
def _count_code_pairs_kernel(codes, y, weights, pair_offsets, widths, n_classes, counts):
    """Count attributes two at a time, into one table per pair: half the stores.

    Attributes ``2p`` and ``2p + 1`` share the rows ``pair_offsets[p] +
    code_a * widths[p] + code_b``; an odd last attribute has rows of its own.
    ``counts`` is laid out as (n_classes + 1, pair_offsets[-1]), the last block a
    sink for rows with a missing target.
    """
    n_rows, f_cat = codes.shape
    n_pairs = f_cat // 2
    n_table_rows = np.uint64(pair_offsets[-1])
    row_offset = pair_offsets.astype(np.uint64)
    width = widths.astype(np.uint64)
    for i in range(n_rows):
        increment, base = _row_start(y, weights, i, n_classes, n_table_rows)
        for p in range(n_pairs):
            cell = row_offset[p] + np.uint64(codes[i, 2 * p]) * width[p] + np.uint64(codes[i, 2 * p + 1])
            counts[base + cell] += increment
        if f_cat % 2:
            counts[base + row_offset[n_pairs] + np.uint64(codes[i, f_cat - 1])] += increment


def _shifted(offsets, shift):
    """``offsets`` as uint64 with ``shift[j]`` added to ``offsets[j]`` modulo 2**64, as the kernels add."""
    out = offsets.astype(np.uint64)
    for j, s in enumerate(shift):
        out[j] = (int(offsets[j]) + int(s)) % 2**64
    return out


class _CodeLayout:
    """Where the kernels count the codes of the first ``f_cat`` attributes of ``offsets``.

    Pairs of attributes share a table when it is small (half the stores). With ``lanes`` (unweighted,
    C-contiguous uint8 codes of many rows: see :func:`lane_countable`), codes of a narrow window of values are
    counted by vector compare-and-count instead (:mod:`nbparallel.kernels.lane_counting`).

    Unpaired, the codes are counted straight into the table (``offsets[-1]``
    rows); paired, into a table of their own (``n_rows`` rows), whose margins
    :meth:`add_to` adds to the table.

    With ``shift``, attribute ``j``'s code is ``codes[:, j] + shift[j]``: raw
    integers counted by value with ``shift = 1 - min``, no code array written.
    The addition is modulo 2**64, like every table index, so it is exact for
    any shift as long as the shifted codes lie in the attribute's rows.
    """

    def __init__(self, offsets, f_cat, shift=None, pair=True, lanes=False):
        self.offsets, self.f_cat = offsets, f_cat
        sizes = np.diff(offsets[: f_cat + 1])
        self.sizes = sizes
        pair_sizes = sizes[0 : f_cat - 1 : 2] * sizes[1:f_cat:2]
        shift = np.zeros(f_cat, dtype=np.int64) if shift is None else shift
        self.window = lane_window(sizes, shift) if lanes and f_cat else None
        self.paired = self.window is None and pair and f_cat >= 2 and pair_sizes.max() <= _PAIR_TABLE_LIMIT
        if not self.paired:
            self.kernel_offsets = _shifted(offsets, shift)
            self.n_rows = int(offsets[-1])
            return
        blocks = np.concatenate([pair_sizes, sizes[f_cat - 1 :] if f_cat % 2 else []]).astype(np.int64)
        self.pair_offsets = np.concatenate([[0], np.cumsum(blocks)]).astype(np.int64)
        self.widths = np.ascontiguousarray(sizes[1:f_cat:2])  # one layout: numba compiles a kernel per layout
        pair_shift = [int(shift[2 * p]) * int(self.widths[p]) + int(shift[2 * p + 1]) for p in range(f_cat // 2)]
        pair_shift += [int(shift[-1])] if f_cat % 2 else []
        self.kernel_offsets = _shifted(self.pair_offsets, pair_shift)
        self.n_rows = int(self.pair_offsets[-1])

    def count(self, codes, y, weights, n_classes, counts):
        """Add the rows of ``codes`` into ``counts`` of shape (n_classes + 1, self.n_rows)."""
        if self.window is not None:
            count_lanes(codes, y, self.kernel_offsets, self.window, n_classes, counts.ravel())
        elif self.paired:
            _count_code_pairs_kernel(codes, y, weights, self.kernel_offsets, self.widths, n_classes, counts.ravel())
        else:
            _count_codes_kernel(codes, y, weights, self.kernel_offsets, n_classes, counts.ravel())

    def add_to(self, table, counts):
        """Add kernel ``counts`` (n_classes + 1, self.n_rows) into ``table`` (n_classes + 1, offsets[-1]).

        A pair's table has each of its attributes' counts as margins.
        """
        if not self.paired:
            table += counts
            return
        offsets, sizes, pair_offsets, f_cat = self.offsets, self.sizes, self.pair_offsets, self.f_cat
        for p in range(f_cat // 2):
            a, b = 2 * p, 2 * p + 1
            block = counts[:, pair_offsets[p] : pair_offsets[p + 1]].reshape(-1, sizes[a], sizes[b])
            table[:, offsets[a] : offsets[a + 1]] += block.sum(axis=2)
            table[:, offsets[b] : offsets[b + 1]] += block.sum(axis=1)
        if f_cat % 2:
            table[:, offsets[f_cat - 1] : offsets[f_cat]] += counts[:, pair_offsets[-2] :]


def lane_countable(codes, weights):
    """Whether the rows of ``codes`` may be counted by lanes: unweighted, C-contiguous uint8, at least
    :data:`~nbparallel.kernels.lane_counting.MIN_ROWS` of them."""
    return (weights is None and codes.dtype == np.uint8 and codes.flags.c_contiguous
            and codes.shape[0] >= LANE_MIN_ROWS)


def _count_codes(codes, y, weights, offsets, n_classes, counts, shift=None, pair=True):
    """Add the categorical counts into ``counts`` (n_classes + 1, rows), by lanes where they apply, else
    pairing attributes when small (unless not ``pair``)."""
    layout = _CodeLayout(offsets, codes.shape[1], shift, pair, lane_countable(codes, weights))
    if not layout.paired:
        layout.count(codes, y, weights, n_classes, counts)
        return
    paired = np.zeros((n_classes + 1, layout.n_rows), counts.dtype)
    layout.count(codes, y, weights, n_classes, paired)
    layout.add_to(counts, paired)


VALUE_BLOCK_CELLS = 1 << 16
"""Numeric values binned at once into a code buffer (at most this many cells: 64 KiB of uint8 codes, which
stay in the core's cache while they are counted)."""


def _count_values(values, y, weights, offsets, edges, n_classes, counts):
    """Bin the numeric ``values`` and add their counts into ``counts`` (n_classes + 1, table rows), whose rows
    ``offsets[0]..offsets[-1]`` are the numeric attributes'.

    A block of rows at a time is binned into a small code buffer by a loop the compiler vectorises
    (:mod:`nbparallel.kernels.binning`), then counted as codes are, pairs of attributes sharing a table
    (:class:`_CodeLayout`): binning and counting value by value in one loop, each count waiting on the
    arithmetic of its bin, is slower.
    """
    n_rows, f_num = values.shape
    n_bins = offsets[1:] - offsets[:-1] - 1
    bin_block = block_binner(edges, n_bins)
    layout = _CodeLayout(offsets - offsets[0], f_num)
    block_counts = np.zeros((n_classes + 1, layout.n_rows), counts.dtype)
    step = max(1, VALUE_BLOCK_CELLS // f_num)
    codes = np.empty((min(step, n_rows), f_num), np.uint8 if n_bins.max() < 256 else np.uint16)
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        block = codes[: stop - start]
        bin_block(values[start:stop], block)
        layout.count(block, y[start:stop], None if weights is None else weights[start:stop], n_classes,
                     block_counts)
    layout.add_to(counts[:, offsets[0]:offsets[-1]], block_counts)


@njit(nogil=True, cache=True)
def _all_missing_kernel(codes, values, y, weights, n_classes):
    """Weight per class of valid-target rows whose every attribute is missing."""
    n_rows, f_cat = codes.shape
    f_num = values.shape[1]
    all_missing = np.zeros(n_classes)
    for i in range(n_rows):
        k = np.int64(y[i])
        if k < 0:
            continue
        present = False
        for j in range(f_cat):
            if codes[i, j] != 0:
                present = True
                break
        if not present:
            for j in range(f_num):
                if not np.isnan(values[i, j]):
                    present = True
                    break
        if not present:
            if weights is None:
                all_missing[k] += 1.0
            else:
                all_missing[k] += weights[i]
    return all_missing


def count_partition(codes, values, y, weights, offsets, edges, n_classes):
    """Count one partition: attribute-value-class table and class totals.

    Numeric values are binned in the same pass, a block of rows at a time into a code buffer that stays in
    the core's cache (no binned copy of the partition).

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_rows, f_cat)
        Categorical codes, any memory layout; 0 means missing, ``1 .. M_j``
        are the values of attribute ``j``. Not range-checked: the caller
        guarantees ``codes[:, j] < offsets[j + 1] - offsets[j]``.
    values : ndarray of float64 or float32, shape (n_rows, f_num)
        Raw numeric values, any memory layout; NaN means missing.
    y : ndarray of int, shape (n_rows,)
        Class codes in ``[0, n_classes)``, or -1 for a missing target (the row
        is skipped). Not range-checked: the caller guarantees the range.
    weights : ndarray of float64, shape (n_rows,), or None
        Case weights; None means every weight is 1 (fastest path).
    offsets : ndarray of int64, shape (f_cat + f_num + 1,)
        Table row ranges of the attributes (see module docstring).
    edges : ndarray of float64, shape (f_num, max_B - 1)
        Ascending inner bin edges of numeric attribute ``j`` in
        ``edges[j, :B_j - 1]``, padded with +inf; ``B_j`` is
        ``offsets[f_cat + j + 1] - offsets[f_cat + j] - 1``. The bin of ``x``
        is ``np.searchsorted(edges[j, :B_j - 1], x, side="left")``, exactly.
        Equal-width edges are fastest: the bin is guessed arithmetically from
        the first and last edge and corrected by comparing with the two
        neighbouring edges. Edges too irregular for that (checked once per
        call) are binned by bisection into a temporary code array; the result
        is exact either way.
    n_classes : int
        Number of classes, >= 1.

    Returns
    -------
    table : ndarray of float64, shape (offsets[-1], n_classes)
        Weighted counts of rows with a valid target.
    class_totals : ndarray of float64, shape (n_classes,)
        Weight of rows with a valid target.
    all_missing : ndarray of float64, shape (n_classes,)
        Weight of rows with a valid target whose every attribute is missing
        (every row with a valid target when there are no attributes).
    n_missing_target : int
        Number of rows with a missing target.
    """
    require_array("codes", codes, 2)
    require_dtype("codes", codes, CODE_DTYPES)
    n_rows, f_cat = codes.shape
    require_array("values", values, 2)
    require_dtype("values", values, VALUE_DTYPES)
    require_rows("values", values, n_rows)
    require_array("y", y, 1)
    if y.dtype.kind not in "iu":
        raise TypeError(f"y must have an integer dtype, got {y.dtype}")
    require_rows("y", y, n_rows)
    if weights is not None:
        require_array("weights", weights, 1)
        require_dtype("weights", weights, (np.dtype(np.float64),))
        require_rows("weights", weights, n_rows)
    f_num = values.shape[1]
    check_offsets(offsets, f_cat + f_num)
    n_bins = offsets[f_cat + 1 :] - offsets[f_cat:-1] - 1
    check_edges(edges, n_bins)
    check_n_classes(n_classes)
    n_classes = int(n_classes)

    n_table_rows = int(offsets[-1])
    if weights is not None:
        counter_dtype = np.float64
    elif n_rows <= INT32_MAX:
        counter_dtype = np.int32
    else:
        counter_dtype = np.int64
    counts = np.zeros((n_classes + 1, n_table_rows), counter_dtype)
    if f_cat:
        _count_codes(codes, y, weights, offsets, n_classes, counts)
    if f_num:
        _count_values(values, y, weights, offsets[f_cat:], edges, n_classes, counts)
    table = np.ascontiguousarray(counts[:n_classes].T, dtype=np.float64)

    # every valid row lands once in the rows of any attribute, say the first
    n_attrs = f_cat + f_num
    if n_attrs > 0:
        class_totals = table[: offsets[1]].sum(axis=0)
    else:
        valid = y >= 0
        class_totals = np.bincount(
            y[valid].astype(np.int64), None if weights is None else weights[valid], n_classes
        ).astype(np.float64)
    if weights is None and n_attrs > 0:
        n_missing_target = int(counts[n_classes, : offsets[1]].sum())
    else:
        n_missing_target = int(np.count_nonzero(y < 0))

    if n_attrs == 0:
        all_missing = class_totals.copy()
    elif table[offsets[:-1]].sum(axis=1).min() > 0:
        # every attribute has a missing value somewhere: look for rows
        # where all of them are missing at once
        all_missing = _all_missing_kernel(codes, values, y, weights, n_classes)
    else:
        all_missing = np.zeros(n_classes)
    return table, class_totals, all_missing, n_missing_target


def count_integers(X, y, lo, offsets, n_classes):
    """Count one partition of integer attributes by value, reading X as it is (no code array).

    Parameters
    ----------
    X : ndarray of signed or unsigned integers (not uint64), shape (n_rows, f)
        Any memory layout. Not range-checked: the caller guarantees
        ``lo[j] <= X[:, j] <= lo[j] + offsets[j + 1] - offsets[j] - 2``.
    y : ndarray of int, shape (n_rows,)
        Class codes in ``[0, n_classes)``.
    lo : sequence of int, length f
        Each attribute's smallest value: value ``x`` counts in row ``offsets[j] + 1 + x - lo[j]``.
    offsets : ndarray of int64, shape (f + 1,)
    n_classes : int

    Returns
    -------
    table : ndarray of float64, shape (offsets[-1], n_classes)
        Row ``offsets[j]`` (missing values) is zero: integers are never missing.
    class_totals : ndarray of float64, shape (n_classes,)
    """
    require_array("X", X, 2)
    if X.dtype.kind not in "iu" or X.dtype == np.uint64:
        raise TypeError(f"X must hold integers of at most 63 bits, got dtype {X.dtype}")
    require_array("y", y, 1)
    require_rows("y", y, X.shape[0])
    check_offsets(offsets, X.shape[1])
    check_n_classes(n_classes)
    counts = np.zeros((int(n_classes) + 1, int(offsets[-1])), np.int32 if len(X) <= INT32_MAX else np.int64)
    if X.shape[1]:
        _count_codes(X, y, None, offsets, int(n_classes), counts, shift=[1 - int(v) for v in lo],
                     pair=len(X) >= PAIR_MIN_ROWS)
    table = np.ascontiguousarray(counts[:n_classes].T, dtype=np.float64)
    return table, table[: offsets[1]].sum(axis=0) if X.shape[1] else np.bincount(y, minlength=n_classes) * 1.0


def count_integers_and_ranges(X, y, n_classes):
    """:func:`count_integers` of uint8 codes with each column's range found in the same pass (no pass for
    the ranges first), where lanes count them.

    Parameters
    ----------
    X : ndarray, shape (n_rows, f)
    y : ndarray of int, shape (n_rows,)
        Class codes in ``[0, n_classes)``.
    n_classes : int

    Returns
    -------
    lo, hi, table, class_totals : or None
        Each column's smallest and largest value, and :func:`count_integers` of ``X`` with ``lo`` and the
        offsets of the ranges ``lo .. hi``. None where lanes do not count ``X`` (see :func:`lane_countable`;
        columns, or a first block of rows, of values spanning more than the widest window), or ``X`` has no
        column.
    """
    require_array("y", y, 1)
    check_n_classes(n_classes)
    if not isinstance(X, np.ndarray) or X.ndim != 2 or not X.shape[1] or not lane_countable(X, None):
        return None
    require_rows("y", y, X.shape[0])
    by_byte = count_bytes(X, y, int(n_classes))
    if by_byte is None:
        return None
    seen = by_byte.any(axis=0)  # (f, 256)
    lo, hi = seen.argmax(axis=1), 255 - seen[:, ::-1].argmax(axis=1)
    offsets = np.concatenate([[0], np.cumsum(hi - lo + 2)]).astype(np.int64)
    table = np.zeros((int(offsets[-1]), int(n_classes)))
    for j in range(X.shape[1]):
        table[offsets[j] + 1 : offsets[j + 1]] = by_byte[:n_classes, j, lo[j] : hi[j] + 1].T
    return lo.astype(np.int64), hi.astype(np.int64), table, table[: offsets[1]].sum(axis=0)


class CodeCounter:
    """Unweighted counts of many blocks of codes added into one table, with no work per block beyond the kernel.

    Parameters
    ----------
    offsets : ndarray of int64, shape (f + 1,)
        The attributes' table rows, as for :func:`count_partition`.
    n_classes : int
        Class codes are ``0 .. n_classes - 1``.

    Examples
    --------
    >>> counter = CodeCounter(np.array([0, 3, 5]), 2)
    >>> counter.add(np.array([[1, 1], [2, 0]], dtype=np.uint8), np.array([0, 1]))
    >>> counter.add(np.array([[1, 1]], dtype=np.uint8), np.array([1]))
    >>> counter.table().tolist()
    [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 1.0], [1.0, 1.0]]
    """

    def __init__(self, offsets, n_classes):
        require_array("offsets", offsets, 1)
        check_offsets(offsets, len(offsets) - 1)
        check_n_classes(n_classes)
        self.offsets, self.n_classes = offsets, int(n_classes)
        self._layout = _CodeLayout(offsets, len(offsets) - 1) if len(offsets) > 1 else None
        self._counts = np.zeros((self.n_classes + 1, self._layout.n_rows if self._layout else 0), np.int64)

    def add(self, codes, y):
        """Count one block.

        Parameters
        ----------
        codes : ndarray of uint8 or uint16, shape (n_rows, f)
            As for :func:`count_partition` (any layout, not range-checked).
        y : ndarray of int, shape (n_rows,)
            Class codes in ``[0, n_classes)`` (not range-checked).
        """
        require_array("codes", codes, 2)
        require_dtype("codes", codes, CODE_DTYPES)
        if codes.shape[1] != len(self.offsets) - 1:
            raise ValueError(f"codes has {codes.shape[1]} columns, offsets describe {len(self.offsets) - 1}")
        require_array("y", y, 1)
        if y.dtype.kind not in "iu":
            raise TypeError(f"y must have an integer dtype, got {y.dtype}")
        require_rows("y", y, codes.shape[0])
        if self._layout is not None:
            self._layout.count(codes, y, None, self.n_classes, self._counts)

    def table(self):
        """The counts so far, shape (offsets[-1], n_classes), float64."""
        table = np.zeros((self.n_classes + 1, int(self.offsets[-1])), np.int64)
        if self._layout is not None:
            self._layout.add_to(table, self._counts)
        return np.ascontiguousarray(table[: self.n_classes].T, dtype=np.float64)

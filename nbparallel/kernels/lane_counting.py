"""Unweighted counts of row-major uint8 codes of small vocabularies, by vector compare-and-count.

A scalar count adds one table cell per code (or per pair of codes), a load and a store each. Here a block of
rows is first split by class into one buffer per class (each row copied by 32-byte loads and stores), and
each buffer is counted 64 bytes at a time: byte ``q`` of a group of 64 rows (``64 * n_cols`` bytes) always
holds attribute ``q % n_cols``, so every lane of a vector at position ``q`` of the groups counts one
attribute, and comparing the vector with each value of the window ``low .. low + n_values - 1`` adds 1 to
that value's byte counter in the lanes that hold it (:func:`nbparallel.kernels.byte_vectors.count_equal`).
The byte counters are added into 32-bit ones before they can reach 256, and those into the table once, at
the end. Every count is an integer: the table is the scalar kernel's, exactly, for any rows.

:func:`count_bytes` needs no window beforehand (nor a pass for the columns' ranges to make one): each
block's smallest and largest byte, read while the block comes into the cache, widen the window as the
rows need, the counters of the narrower one added into the table first.
"""

import numpy as np
from numba import njit

from nbparallel.kernels.byte_vectors import LANES, copy_32, count_equal, largest, load, smallest, store

BLOCK_BYTES = 1 << 17
"""Bytes of codes split by class at a time (their buffers stay in the core's cache while they are counted)."""

WINDOW_STEP = 2
"""The window's width is a multiple of it: each vector loaded is compared with four values, their counters
held in registers, and a width of ``4k + 2`` with the last two by a loop of their own."""

MAX_VALUES = 32
"""Widest value window counted by lanes: each value costs a comparison per 64 codes, and above it the
scalar count of pairs of codes is faster."""

MIN_ROWS = 1 << 14
"""Fewest rows counted by lanes: the buffers of fewer cost more to make than the lanes save."""

_MAX_GROUPS = 255  # groups of 64 rows a byte counter may count before it is added into the 32-bit counters


@njit(nogil=True, cache=True)
def block_rows(n_cols):
    """Rows of ``n_cols`` codes split at a time: :data:`BLOCK_BYTES` of them, at least 64 rows and at most
    255 groups of 64 (what a byte counter can count)."""
    return min(_MAX_GROUPS * LANES, max(LANES, BLOCK_BYTES // n_cols))


def lane_window(sizes, shift):
    """The window of byte values ``(low, n_values, pad)`` that lane counting compares codes with, or None.

    Attribute ``a``'s code ``c`` counts in its row ``c + shift[a]``, one of ``0 .. sizes[a] - 1``; the window
    holds every such code that a byte can be (:func:`window_of`). None when the window would be wider than
    :data:`MAX_VALUES`.
    """
    sizes, shift = np.asarray(sizes, np.int64), np.asarray(shift, np.int64)
    lowest = max(0, int((-shift).min()))
    highest = min(255, int((sizes - 1 - shift).max()))
    if highest < lowest:
        return None
    low, n_values, pad = window_of(lowest, highest)
    return (low, n_values, pad) if n_values else None


@njit(nogil=True, cache=True)
def window_of(lowest, highest):
    """``(low, n_values, pad)``: the window of byte values from ``lowest`` to ``highest``, ``n_values`` a
    multiple of :data:`WINDOW_STEP`, and ``pad`` a byte outside it (written after a class's last row);
    ``n_values`` is 0 when the window would be wider than :data:`MAX_VALUES`."""
    n_values = -(-(highest - lowest + 1) // WINDOW_STEP) * WINDOW_STEP
    if n_values > MAX_VALUES:
        return 0, 0, 0
    low = min(lowest, 256 - n_values)
    pad = low + n_values if low + n_values <= 255 else low - 1
    return low, n_values, pad


@njit(nogil=True, cache=True, inline="always")
def _copy_row(flat, source, buffers, target, n_cols):
    """Copy ``n_cols`` bytes from ``flat[source]`` to ``buffers[target]``, 32 at a time: the bytes after them,
    up to a multiple of 32, may be overwritten, and are read from ``flat`` (the caller keeps them inside it).

    A loop whose trip count LLVM cannot know keeps it from vectorising the caller's loop over rows (which
    would scalarise every copy).
    """
    c = 0
    while True:
        copy_32(flat, source + c, buffers, target + c)
        c += LANES // 2
        if c >= n_cols:
            break


@njit(nogil=True, cache=True, inline="always")
def _block_of(y, i, sink):
    k = np.int64(y[i])
    return k if k >= 0 else sink


@njit(nogil=True, cache=True)
def _split_two(flat, n_cols, y, start, stop, capacity, buffers):
    """:func:`_split_block` of rows of classes 0 and 1 only, by arithmetic on two positions held in registers
    (unsigned: numba adds no negative-index fix-up).

    Returns the rows in each buffer and whether every class was 0 or 1 (if not, the buffers are garbage).
    """
    width, second_start = np.uint64(n_cols), np.uint64(capacity)
    at_first, at_second = np.uint64(0), second_start
    classes = np.uint64(0)  # every class OR-ed: at most 1 when all are 0 or 1 (a negative one is huge)
    for i in range(np.uint64(start), np.uint64(stop)):
        k = np.uint64(y[i])
        classes |= k
        is_second = k & np.uint64(1)
        _copy_row(flat, np.int64(i * width), buffers, np.int64(at_second if is_second else at_first), n_cols)
        at_second += width * is_second
        at_first += width - width * is_second
    return np.int64(at_first // width), np.int64((at_second - second_start) // width), classes <= 1


@njit(nogil=True, cache=True)
def _split_block(flat, n_cols, y, start, stop, sink, capacity, buffers, fill):
    """Copy rows ``start .. stop - 1`` of ``flat`` (row-major, ``n_cols`` bytes a row) to their class's buffer,
    ``capacity`` bytes from ``class * capacity``; ``fill[class]`` counts each buffer's rows (all zero before).

    Rows of classes 0 and 1 only (the usual block with two classes) are copied by :func:`_split_two`; others
    through ``fill``, whose stores and loads make a chain through memory.
    """
    wide = -(-n_cols // (LANES // 2)) * (LANES // 2)
    safe_stop = max(start, min(stop, (flat.size - wide) // n_cols + 1))  # rows read wide within flat
    two = sink >= 2
    if two:
        n_first, n_second, two = _split_two(flat, n_cols, y, start, safe_stop, capacity, buffers)
        fill[0], fill[1] = n_first, n_second
    if not two:
        fill[:] = 0
        for i in range(start, safe_stop):
            k = _block_of(y, i, sink)
            _copy_row(flat, i * n_cols, buffers, k * capacity + fill[k] * n_cols, n_cols)
            fill[k] += 1
    for i in range(safe_stop, stop):
        k = _block_of(y, i, sink)
        target = k * capacity + fill[k] * n_cols
        for j in range(n_cols):
            buffers[target + j] = flat[i * n_cols + j]
        fill[k] += 1


@njit(nogil=True, cache=True, inline="always")
def _count_four(buffers, at, n_groups, group_bytes, counters, slot, value, ones):
    c0, c1 = load(counters, slot), load(counters, slot + LANES)
    c2, c3 = load(counters, slot + 2 * LANES), load(counters, slot + 3 * LANES)
    for g in range(n_groups):
        x = load(buffers, at + g * group_bytes)
        c0 = count_equal(c0, x, value, ones)
        c1 = count_equal(c1, x, value + 1, ones)
        c2 = count_equal(c2, x, value + 2, ones)
        c3 = count_equal(c3, x, value + 3, ones)
    store(counters, slot, c0)
    store(counters, slot + LANES, c1)
    store(counters, slot + 2 * LANES, c2)
    store(counters, slot + 3 * LANES, c3)


@njit(nogil=True, cache=True, inline="always")
def _count_two(buffers, at, n_groups, group_bytes, counters, slot, value, ones):
    c0, c1 = load(counters, slot), load(counters, slot + LANES)
    for g in range(n_groups):
        x = load(buffers, at + g * group_bytes)
        c0 = count_equal(c0, x, value, ones)
        c1 = count_equal(c1, x, value + 1, ones)
    store(counters, slot, c0)
    store(counters, slot + LANES, c1)


@njit(nogil=True, cache=True)
def _count_buffer(buffers, start, n_groups, n_cols, low, n_values, counters, ones_given):
    """Add the groups of 64 rows of one class's buffer into its byte counters (``n_cols`` positions of
    ``n_values`` vectors); ``ones_given`` holds 64 ones (see :func:`~nbparallel.kernels.byte_vectors.count_equal`).
    Each vector loaded is compared with four values, the last two with two (``n_values`` is even)."""
    group_bytes = LANES * n_cols
    ones = load(ones_given, 0)
    for p in range(n_cols):
        at = start + p * LANES
        fours = n_values // 4 * 4
        for v in range(0, fours, 4):
            _count_four(buffers, at, n_groups, group_bytes, counters, (p * n_values + v) * LANES, low + v, ones)
        if fours < n_values:
            _count_two(buffers, at, n_groups, group_bytes, counters, (p * n_values + fours) * LANES, low + fours,
                       ones)


@njit(nogil=True, cache=True)
def _widen(counters, wide, start, stop):
    """Add byte counters ``start .. stop - 1`` into the 32-bit ones and zero them."""
    for q in range(start, stop):
        wide[q] += counters[q]
        counters[q] = 0


@njit(nogil=True, cache=True)
def _byte_range(flat, start, stop, scratch):
    """The smallest and largest byte of ``flat[start:stop]``, 64 lanes at a time (``scratch``: 64 bytes)."""
    lowest, highest = 255, 0
    end = start + (stop - start) // LANES * LANES
    if end > start:
        lows = highs = load(flat, start)
        for q in range(start + LANES, end, LANES):
            x = load(flat, q)
            lows, highs = smallest(lows, x), largest(highs, x)
        store(scratch, 0, lows)
        for b in scratch:
            lowest = min(lowest, np.int64(b))
        store(scratch, 0, highs)
        for b in scratch:
            highest = max(highest, np.int64(b))
    for q in range(end, stop):
        lowest, highest = min(lowest, np.int64(flat[q])), max(highest, np.int64(flat[q]))
    return lowest, highest


@njit(nogil=True, cache=True)
def _add_wide(wide, n_blocks, n_cols, low, n_values, kernel_offsets, counts):
    """Add the 32-bit counters of the window from ``low`` into ``counts`` and zero them."""
    per_class = n_cols * n_values * LANES
    n_table_rows = counts.size // n_blocks
    for k in range(n_blocks):
        for p in range(n_cols):
            for v in range(n_values):
                slot = k * per_class + (p * n_values + v) * LANES
                code = np.uint64(low + v)
                for lane in range(LANES):
                    n = wide[slot + lane]
                    if n:
                        attribute = (p * LANES + lane) % n_cols
                        counts[np.uint64(k * n_table_rows) + kernel_offsets[attribute] + code] += n
                        wide[slot + lane] = 0


@njit(nogil=True, cache=True)
def _count_block_scalar(flat, n_cols, y, start, stop, sink, kernel_offsets, counts):
    """Count rows ``start .. stop - 1`` one code at a time (a block whose bytes leave the window)."""
    n_table_rows = counts.size // (sink + 1)
    for i in range(start, stop):
        base = np.uint64(_block_of(y, i, sink) * n_table_rows)
        for j in range(n_cols):
            counts[base + kernel_offsets[j] + np.uint64(flat[i * n_cols + j])] += 1


@njit(nogil=True, cache=True)
def _lane_count_kernel(flat, n_cols, y, n_classes, window, adapt, kernel_offsets, counts, ones):
    """Count every row by lanes in ``window`` (``low, n_values, pad``); with ``adapt``, the window is found
    from the bytes of each block before it is counted, widened as blocks need, a block outside any window
    of :data:`MAX_VALUES` counted one code at a time. Returns False (nothing counted) when ``adapt`` and
    the first block needs that."""
    low, n_values, pad = window[0], window[1], window[2]
    n_rows = flat.size // n_cols
    n_blocks = n_classes + 1  # the last: rows with a missing target
    step = block_rows(n_cols)
    capacity = (step + LANES) * n_cols + LANES
    buffers = np.empty(n_blocks * capacity, np.uint8)
    widest = MAX_VALUES if adapt else n_values
    counters = np.zeros(n_blocks * n_cols * widest * LANES, np.uint8)
    wide = np.zeros(n_blocks * n_cols * widest * LANES, np.uint32)
    groups_counted = np.zeros(n_blocks, np.int64)
    fill = np.zeros(n_blocks, np.int64)
    seen_low, seen_high = 255, 0
    scratch = np.empty(LANES, np.uint8)
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        if adapt:
            lowest, highest = _byte_range(flat, start * n_cols, stop * n_cols, scratch)
            if lowest < low or highest >= low + n_values or n_values == 0:
                wider = window_of(min(seen_low, lowest), max(seen_high, highest))
                if wider[1] == 0:  # the window stays as it is, for the blocks after this one
                    if start == 0:
                        return False
                    _count_block_scalar(flat, n_cols, y, start, stop, n_classes, kernel_offsets, counts)
                    continue
                seen_low, seen_high = min(seen_low, lowest), max(seen_high, highest)
                if n_values:
                    _widen(counters, wide, 0, counters.size)
                    _add_wide(wide, n_blocks, n_cols, low, n_values, kernel_offsets, counts)
                    groups_counted[:] = 0
                low, n_values, pad = wider
        per_class = n_cols * n_values * LANES
        fill[:] = 0
        _split_block(flat, n_cols, y, start, stop, n_classes, capacity, buffers, fill)
        for k in range(n_blocks):
            if fill[k] == 0:
                continue
            n_groups = -(-fill[k] // LANES)
            buffers[k * capacity + fill[k] * n_cols : k * capacity + n_groups * LANES * n_cols] = pad
            if groups_counted[k] + n_groups > _MAX_GROUPS:
                _widen(counters, wide, k * per_class, (k + 1) * per_class)
                groups_counted[k] = 0
            groups_counted[k] += n_groups
            _count_buffer(buffers, k * capacity, n_groups, n_cols, low, n_values, counters[k * per_class :], ones)
    if n_values:
        _widen(counters, wide, 0, counters.size)
        _add_wide(wide, n_blocks, n_cols, low, n_values, kernel_offsets, counts)
    return True


def count_lanes(codes, y, kernel_offsets, window, n_classes, counts):
    """Add the unweighted counts of ``codes`` into ``counts`` (flat, ``n_classes + 1`` blocks of table rows).

    Parameters
    ----------
    codes : ndarray of uint8, shape (n_rows, n_cols), C-contiguous
        Attribute ``a``'s code ``c`` counts in table row ``kernel_offsets[a] + c`` (modulo 2**64) of its
        row's class block. Not range-checked: the caller guarantees the rows exist.
    y : ndarray of int, shape (n_rows,)
        Class codes ``0 .. n_classes - 1``; a negative one counts in the last block.
    kernel_offsets : ndarray of uint64, shape (n_cols,)
    window : tuple
        ``(low, n_values, pad)`` of :func:`lane_window`, holding every code.
    n_classes : int
    counts : ndarray of int32, int64 or float64, shape ((n_classes + 1) * table rows,)
    """
    _lane_count_kernel(codes.reshape(-1), codes.shape[1], y, n_classes, np.asarray(window, np.int64), False,
                       kernel_offsets, counts, np.ones(LANES, np.uint8))  # a vector LLVM cannot know is constant


def count_bytes(codes, y, n_classes):
    """Unweighted counts of ``codes`` by byte value, with no pass for the columns' ranges first: the window
    of values is found from each block's bytes as the rows are counted.

    Parameters
    ----------
    codes : ndarray of uint8, shape (n_rows, n_cols), C-contiguous
    y : ndarray of int, shape (n_rows,)
        Class codes ``0 .. n_classes - 1``; a negative one counts in the last block.
    n_classes : int

    Returns
    -------
    counts : ndarray of int64, shape (n_classes + 1, n_cols, 256), or None
        Row ``[k, a, b]`` counts the rows of class ``k`` whose attribute ``a`` is byte ``b``. None (nothing
        counted) when the first block's bytes span more than :data:`MAX_VALUES` values.
    """
    n_rows, n_cols = codes.shape
    counts = np.zeros((n_classes + 1) * n_cols * 256, np.int64)
    if n_cols and n_rows:
        kernel_offsets = np.arange(n_cols, dtype=np.uint64) * np.uint64(256)
        if not _lane_count_kernel(codes.reshape(-1), n_cols, y, n_classes, np.zeros(3, np.int64), True,
                                  kernel_offsets, counts, np.ones(LANES, np.uint8)):
            return None
    return counts.reshape(n_classes + 1, n_cols, 256)

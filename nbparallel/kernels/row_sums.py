"""Row sums of a log table: the one set of primitives of every pass that scores rows from their codes.

Row ``i``'s score of class ``k`` is ``log_prior[k] + sum_a table[offsets[a] + code_a, k] (+ extra[i, k])``,
added in that order: the prior, the attributes in order (``first``'s, then ``second``'s), the extra block
(Gaussian attributes) last. Predict, predict_proba, evaluate and boosting rounds all sum rows here
(:func:`block_sums`), so a row's scores are the same to the bit in every pass, and so is the class a pass
picks (:func:`row_summary`).

How, for speed. The classes of a row are vectors of float64 lanes (:mod:`nbparallel.kernels.vectors`): one
of 2 lanes for two classes, of 4 for three or four, else blocks of 8 (one AVX-512 register), the table's rows
padded to whole vectors by :func:`padded_table`. Rows are taken a group of :data:`GROUP_ROWS` at a time: their codes become
positions in the table first (16 codes at a time, which also flags a code outside its attribute's rows: it
reads its attribute's first row instead, and the caller raises ValueError), then several rows are summed
at once, a vector load and addition per attribute and block of classes (eight rows and one block; four rows
and three blocks, which share each position read, when the table is small enough for the core's first cache:
:data:`SHARED_POSITIONS_BYTES`), so that their chains of dependent additions overlap.
A row's classes are still each added in their own order: the sums are those of scalar code, bit for bit.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from nbparallel.kernels.vectors import (POSITIONS_AT_ONCE, add, add_load, bit_count, equal_bits, larger, load,
                                        load_first, lowest_bit, nan_bits, positions16, store, top)

GROUP_ROWS = 64
"""Rows whose positions are computed at once (a multiple of :data:`ROWS_AT_ONCE`)."""

ROWS_AT_ONCE = 8
"""Rows summed at once."""

POSITION_LIMIT = 2**32
"""Table cells addressable by the uint32 positions."""

SHARED_POSITIONS_BYTES = 1 << 14
"""Largest padded table (bytes) whose blocks of classes are summed three at once (four rows, each position
read serving three vectors). A larger table's blocks are summed one at a time (eight rows at once), so that
only one block's share of the table needs to stay in the core's first-level cache: the three blocks of a
20-class table of 20 attributes of 10 values (38 KB) do not fit a 32 KB one."""


def vector_width(n_classes):
    """Lanes of the vectors that hold a row's classes: 2 for two classes, 4 for three or four (half the
    padding of 8: a quarter less work per row on AVX2, whose registers hold 4), else 8 (in blocks).

    >>> vector_width(2), vector_width(3), vector_width(4), vector_width(5), vector_width(20)
    (2, 4, 4, 8, 8)
    """
    return 2 if n_classes <= 2 else 4 if n_classes <= 4 else 8


def padded_table(table, log_prior):
    """The table and prior as :func:`block_sums` reads them: each row's classes padded to whole vectors.

    Returns
    -------
    flat : ndarray of float64, shape (table_rows * n_columns,)
        The table row-major, its rows padded with 0 to ``n_columns`` (whole vectors of classes). 64-byte
        aligned, so that an 8-lane load of a row of whole cache lines never straddles two.
    prior : ndarray of float64, shape (n_columns,)
        The log prior, -inf in the padding (so a padded lane never scores above a class).
    lanes : tuple of float
        ``width`` zeros, the vector width as the kernels take it (:mod:`nbparallel.kernels.vectors`).

    Raises
    ------
    ValueError
        When the padded table has more cells than uint32 positions address.
    """
    n_rows, n_classes = table.shape
    width = vector_width(n_classes)
    n_columns = -(-n_classes // width) * width
    if n_rows * n_columns >= POSITION_LIMIT:
        raise ValueError(f"table has {n_rows} rows of {n_classes} classes: more cells than the scoring kernels "
                         f"address ({POSITION_LIMIT})")
    padded = np.zeros((n_rows, n_columns))
    padded[:, :n_classes] = table
    flat = aligned_empty(n_rows * n_columns)
    flat[:] = padded.reshape(-1)
    prior = np.full(n_columns, -np.inf)
    prior[:n_classes] = log_prior
    return flat, prior, (0.0,) * width


@njit(nogil=True, cache=True)
def aligned_empty(size):
    """An uninitialised float64 array of ``size`` whose first element is 64-byte aligned."""
    buffer = np.empty(size + 8)
    skip = (-(buffer.ctypes.data // 8)) % 8
    return buffer[skip:skip + size]


ROW_MAJOR, COLUMN_MAJOR, STRIDED = 1, 2, 0
"""Layouts of a block of codes in memory: each row's codes consecutive (C-contiguous), each column's
consecutive (a column-major block, its columns any distance apart), or neither."""


class CodeBlock(NamedTuple):
    """A 2-D block of codes as the kernels read it: its elements from the first, and the steps between them.

    Every layout and writeable flag of a block is the same numba type (a read-only 1-D view of its uint8 or
    uint16 elements and three integers), so the scoring kernels are compiled once per code type and vector
    width, not once more for each memory layout a caller happens to pass (C, Fortran, strided).

    Attributes
    ----------
    elements : ndarray of uint8 or uint16, 1-D, read-only
        From the block's first code to its last, as they lie in memory.
    n_columns : int
    row_step, column_step : int
        Elements from a code to the next row's and the next column's.
    """

    elements: np.ndarray
    n_columns: int
    row_step: int
    column_step: int


_NO_CODES = np.empty(0, dtype=np.uint8)
_NO_CODES.flags.writeable = False
_NO_COLUMNS = CodeBlock(_NO_CODES, 0, 0, 0)
"""The block of every array of codes with no columns (read-only and empty, so one serves all)."""


def code_block(codes):
    """The :class:`CodeBlock` of a 2-D array of codes (a view: nothing is copied unless its strides are
    negative or not whole elements). A block with no columns is an empty uint8 block."""
    n_rows, n_columns = codes.shape
    if n_columns == 0:
        return _NO_COLUMNS
    if n_rows == 0:
        empty = np.empty(0, dtype=codes.dtype)
        empty.flags.writeable = False
        return CodeBlock(empty, n_columns, 0, 0)
    if codes.flags.c_contiguous or codes.flags.f_contiguous:  # its elements in memory order, by a plain view
        row_major = codes.flags.c_contiguous
        elements = (codes if row_major else codes.T).reshape(-1)
        elements.flags.writeable = False
        return CodeBlock(elements, n_columns, n_columns if row_major else 1, 1 if row_major else n_rows)
    size = codes.itemsize
    if any(stride < 0 or stride % size for stride in codes.strides):
        codes = np.ascontiguousarray(codes)
    row_step, column_step = (stride // size for stride in codes.strides)
    span = (n_rows - 1) * row_step + (n_columns - 1) * column_step + 1
    elements = np.lib.stride_tricks.as_strided(codes, shape=(span,), strides=(size,), writeable=False)
    return CodeBlock(elements, n_columns, row_step, column_step)


@njit(nogil=True, cache=True, inline="always")
def _layout(block):
    """``(layout, column_stride)``: a :class:`CodeBlock`'s layout and, column-major, the distance from a
    column's first code to the next column's, in codes."""
    _, n_columns, row_step, column_step = block
    if column_step == 1 and row_step == n_columns:
        return ROW_MAJOR, 1
    if row_step == 1:
        return COLUMN_MAJOR, column_step
    return STRIDED, 0


@njit(nogil=True, cache=True, inline="always")
def _tiles(layout, offsets, column_offset, n_codes):
    """A block's attributes' first table rows and sizes as :func:`~nbparallel.kernels.vectors.positions16`
    reads them: row-major, repeated for every row of a group (so that a group's positions are one loop over
    its codes); column-major, 16 copies of each attribute's."""
    repeat = GROUP_ROWS if layout == ROW_MAJOR else POSITIONS_AT_ONCE if layout == COLUMN_MAJOR else 0
    bases, sizes = np.empty(repeat * n_codes, dtype=np.uint32), np.empty(repeat * n_codes, dtype=np.uint32)
    for r in range(repeat):
        for a in range(n_codes):
            q = r * n_codes + a if layout == ROW_MAJOR else a * repeat + r
            bases[q] = offsets[column_offset + a]
            sizes[q] = offsets[column_offset + a + 1] - offsets[column_offset + a]
    return bases, sizes


@njit(nogil=True, cache=True, inline="always")
def _code_position(block, row, a, base, size, scale):
    """``(position, outside)`` of one code of a :class:`CodeBlock`: ``(base + code) * scale``, or
    ``base * scale`` when it is outside its attribute's ``size`` rows."""
    elements, _, row_step, column_step = block
    code = np.uint64(elements[np.uint64(row) * np.uint64(row_step) + np.uint64(a) * np.uint64(column_step)])
    inside = code < np.uint64(size)
    return (np.uint64(base) + (code if inside else np.uint64(0))) * np.uint64(scale), not inside


@njit(nogil=True, cache=True, inline="always")
def _group_positions(block, layout, column_stride, bases, sizes, start, stop, offsets, column_offset, scale,
                     positions):
    """Positions ``(offsets[a] + code) * scale`` in the padded table (``scale`` cells a row) of rows ``start:stop`` of a
    :class:`CodeBlock` (attribute ``a`` at table attribute ``column_offset + a``), into ``positions``: row ``j``
    and attribute ``a`` at ``j * row_step + a * attribute_step``, row-major for row-major codes, else
    attribute-major; 16 codes at once where they are consecutive. The rows after ``stop - start`` up to the
    group's end get position 0 (a valid cell). A code outside its attribute's rows gets its attribute's
    first row and sets the flag returned.

    Returns ``(outside, row_step, attribute_step)``.
    """
    elements, f = block.elements, block.n_columns
    n = stop - start
    outside = False
    if layout == ROW_MAJOR:
        whole = n * f - n * f % POSITIONS_AT_ONCE
        for q in range(0, whole, POSITIONS_AT_ONCE):
            outside |= positions16(elements, start * f + q, bases, sizes, q, scale, positions, q)
        for q in range(whole, n * f):
            a = q % f
            positions[q], out = _code_position(block, start + q // f, a, bases[a], sizes[a], scale)
            outside |= out
        for q in range(n * f, GROUP_ROWS * f):
            positions[q] = 0
        return outside, f, 1
    whole = n - n % POSITIONS_AT_ONCE if layout == COLUMN_MAJOR else 0
    for a in range(f):
        at = a * GROUP_ROWS
        for j in range(0, whole, POSITIONS_AT_ONCE):
            outside |= positions16(elements, start + j + a * column_stride, bases, sizes, a * POSITIONS_AT_ONCE,
                                   scale, positions, at + j)
        base, size = offsets[column_offset + a], offsets[column_offset + a + 1] - offsets[column_offset + a]
        for j in range(whole, n):
            positions[at + j], out = _code_position(block, start + j, a, base, size, scale)
            outside |= out
        for j in range(n, GROUP_ROWS):
            positions[at + j] = 0
    return outside, 1, GROUP_ROWS


@njit(nogil=True, cache=True, inline="always")
def _add_attributes(table, column, positions, offset, n_attributes, row_step, attribute_step, j, lanes, s0, s1, s2,
                    s3, s4, s5, s6, s7):
    """Rows ``j .. j + 7`` of a group and a block of attributes (positions from ``positions[offset]``): lanes
    ``column ..`` of the table rows of their codes added to ``s0 .. s7``, in attribute order."""
    step = np.uint64(row_step)  # unsigned indices: no wraparound test per load
    r = np.uint64(offset) + np.uint64(j) * step
    for a in range(n_attributes):
        at = r + np.uint64(a) * np.uint64(attribute_step)
        s0 = add_load(s0, table, column + positions[at])
        s1 = add_load(s1, table, column + positions[at + step])
        s2 = add_load(s2, table, column + positions[at + np.uint64(2) * step])
        s3 = add_load(s3, table, column + positions[at + np.uint64(3) * step])
        s4 = add_load(s4, table, column + positions[at + np.uint64(4) * step])
        s5 = add_load(s5, table, column + positions[at + np.uint64(5) * step])
        s6 = add_load(s6, table, column + positions[at + np.uint64(6) * step])
        s7 = add_load(s7, table, column + positions[at + np.uint64(7) * step])
    return s0, s1, s2, s3, s4, s5, s6, s7


@njit(nogil=True, cache=True, inline="always")
def _add_attributes3(table, columns, positions, offset, n_attributes, row_step, attribute_step, j, lanes, sums):
    """:func:`_add_attributes` of rows ``j .. j + 3`` and three blocks of lanes at once (``columns``: their
    first lanes), so that each position read serves three vectors; ``sums`` the twelve vectors, row by row."""
    s0a, s0b, s0c, s1a, s1b, s1c, s2a, s2b, s2c, s3a, s3b, s3c = sums
    b0, b1, b2 = columns
    step = np.uint64(row_step)
    r = np.uint64(offset) + np.uint64(j) * step
    for a in range(n_attributes):
        at = r + np.uint64(a) * np.uint64(attribute_step)
        p0, p1 = np.uint64(positions[at]), np.uint64(positions[at + step])
        p2, p3 = np.uint64(positions[at + np.uint64(2) * step]), np.uint64(positions[at + np.uint64(3) * step])
        s0a, s0b, s0c = add_load(s0a, table, b0 + p0), add_load(s0b, table, b1 + p0), add_load(s0c, table, b2 + p0)
        s1a, s1b, s1c = add_load(s1a, table, b0 + p1), add_load(s1b, table, b1 + p1), add_load(s1c, table, b2 + p1)
        s2a, s2b, s2c = add_load(s2a, table, b0 + p2), add_load(s2b, table, b1 + p2), add_load(s2c, table, b2 + p2)
        s3a, s3b, s3c = add_load(s3a, table, b0 + p3), add_load(s3b, table, b1 + p3), add_load(s3c, table, b2 + p3)
    return s0a, s0b, s0c, s1a, s1b, s1c, s2a, s2b, s2c, s3a, s3b, s3c


@njit(nogil=True, cache=True, inline="always")
def _sum_block(group, end, start, table, prior, lanes, sums, positions, f1, row1, step1, f2, row2, step2, k):
    """Lanes ``k ..`` (one block of classes) of the sums of rows ``group:end``, eight rows at once."""
    n_columns = prior.shape[0]
    column = np.uint64(k)
    p = load(prior, k, lanes)
    for j in range(0, end - group, ROWS_AT_ONCE):
        s0, s1, s2, s3, s4, s5, s6, s7 = _add_attributes(table, column, positions, 0, f1, row1, step1, j, lanes,
                                                         p, p, p, p, p, p, p, p)
        s0, s1, s2, s3, s4, s5, s6, s7 = _add_attributes(table, column, positions, GROUP_ROWS * f1, f2, row2,
                                                         step2, j, lanes, s0, s1, s2, s3, s4, s5, s6, s7)
        at = (group - start + j) * n_columns + k
        store(sums, at, s0)
        store(sums, at + n_columns, s1)
        store(sums, at + 2 * n_columns, s2)
        store(sums, at + 3 * n_columns, s3)
        store(sums, at + 4 * n_columns, s4)
        store(sums, at + 5 * n_columns, s5)
        store(sums, at + 6 * n_columns, s6)
        store(sums, at + 7 * n_columns, s7)


@njit(nogil=True, cache=True, inline="always")
def _sum_blocks3(group, end, start, table, prior, lanes, sums, positions, f1, row1, step1, f2, row2, step2, k):
    """Lanes ``k .. k + 23`` (three blocks of classes) of the sums of rows ``group:end``, four rows at once."""
    n_columns = prior.shape[0]
    columns = (np.uint64(k), np.uint64(k + 8), np.uint64(k + 16))
    pa, pb, pc = load(prior, k, lanes), load(prior, k + 8, lanes), load(prior, k + 16, lanes)
    for j in range(0, end - group, 4):
        s = _add_attributes3(table, columns, positions, 0, f1, row1, step1, j, lanes,
                             (pa, pb, pc, pa, pb, pc, pa, pb, pc, pa, pb, pc))
        s0a, s0b, s0c, s1a, s1b, s1c, s2a, s2b, s2c, s3a, s3b, s3c = _add_attributes3(
            table, columns, positions, GROUP_ROWS * f1, f2, row2, step2, j, lanes, s)
        at = (group - start + j) * n_columns + k
        store(sums, at, s0a)
        store(sums, at + 8, s0b)
        store(sums, at + 16, s0c)
        store(sums, at + n_columns, s1a)
        store(sums, at + n_columns + 8, s1b)
        store(sums, at + n_columns + 16, s1c)
        store(sums, at + 2 * n_columns, s2a)
        store(sums, at + 2 * n_columns + 8, s2b)
        store(sums, at + 2 * n_columns + 16, s2c)
        store(sums, at + 3 * n_columns, s3a)
        store(sums, at + 3 * n_columns + 8, s3b)
        store(sums, at + 3 * n_columns + 16, s3c)


@njit(nogil=True, cache=True, inline="always")
def _add_extra(extra, n_classes, group, end, start, lanes, sums, n_columns):
    """The extra block's rows (``extra`` flat, ``n_classes`` a row; 0 beyond them) added last to the sums of
    rows ``group:end``."""
    for i in range(group, end):
        at = (i - start) * n_columns
        for k in range(0, n_columns, len(lanes)):
            term = load_first(extra, i * n_classes + k, n_classes - k, lanes)
            store(sums, at + k, add(load(sums, at + k, lanes), term))


@njit(nogil=True, cache=True)
def sum_space(first, second, offsets):
    """What :func:`block_sums` keeps from one block of rows to the next: each :class:`CodeBlock`'s layout,
    column stride and tiles of its attributes' first rows and sizes, and a group's positions."""
    f1, f2 = first.n_columns, second.n_columns
    layout1, stride1 = _layout(first)
    layout2, stride2 = _layout(second)
    bases1, sizes1 = _tiles(layout1, offsets, 0, f1)
    bases2, sizes2 = _tiles(layout2, offsets, f1, f2)
    positions = np.empty(GROUP_ROWS * (f1 + f2), dtype=np.uint32)
    return layout1, stride1, bases1, sizes1, layout2, stride2, bases2, sizes2, positions


@njit(nogil=True, cache=True)
def block_sums(first, second, extra, start, stop, offsets, table, prior, lanes, space, sums):
    """The sums of rows ``start:stop``, row ``start + j`` at ``sums[j * n_columns:]`` (its classes, then -inf
    in the padding; ``n_columns = prior.shape[0]``).

    Parameters
    ----------
    first, second : CodeBlock
        The rows' codes (see :func:`nbparallel.kernels.scoring.score_rows`), as :func:`code_block` gives them.
    extra : 2-D C-contiguous float64 array, (n_rows, n_classes) or no rows
        Added last.
    table, prior, lanes
        As :func:`padded_table` gives them.
    space : tuple
        :func:`sum_space` of these codes.
    sums : 1-D float64 array
        At least ``(stop - start + ROWS_AT_ONCE) * n_columns`` long (the rows after ``stop`` up to a whole
        number of :data:`ROWS_AT_ONCE` are written too).

    Returns
    -------
    bool
        Whether a code lies outside its attribute's rows (it read its attribute's first row instead).
    """
    layout1, stride1, bases1, sizes1, layout2, stride2, bases2, sizes2, positions = space
    width = len(lanes)
    n_columns = prior.shape[0]
    f1, f2 = first.n_columns, second.n_columns
    positions2 = positions[GROUP_ROWS * f1:]
    extra_flat, n_extra = extra.reshape(-1), extra.shape[1]
    three_at_once = width == 8 and table.shape[0] * 8 <= SHARED_POSITIONS_BYTES
    outside = False
    for group in range(start, stop, GROUP_ROWS):
        end = min(group + GROUP_ROWS, stop)
        outside1, row1, step1 = _group_positions(first, layout1, stride1, bases1, sizes1, group, end, offsets, 0,
                                                 n_columns, positions)
        outside2, row2, step2 = _group_positions(second, layout2, stride2, bases2, sizes2, group, end, offsets, f1,
                                                 n_columns, positions2)
        outside = outside or outside1 or outside2
        k = 0
        while k < n_columns:
            if three_at_once and n_columns - k >= 24:  # three blocks, four rows at once
                _sum_blocks3(group, end, start, table, prior, lanes, sums, positions, f1, row1, step1, f2, row2,
                             step2, k)
                k += 24
            else:
                _sum_block(group, end, start, table, prior, lanes, sums, positions, f1, row1, step1, f2, row2,
                            step2, k)
                k += width
        if extra.shape[0]:
            _add_extra(extra_flat, n_extra, group, end, start, lanes, sums, n_columns)
    return outside


FAST_COLUMNS = 64
"""Padded classes up to which a row's classes at its top are found as the bits of one integer."""


@njit(nogil=True, cache=True, inline="always")
def row_lanes(sums, at, n_columns, lanes):
    """``(top, at_top, nan)`` of the row of sums at ``sums[at:]`` (``n_columns <= FAST_COLUMNS``): its largest
    score, the classes holding it (bit ``k`` for class ``k``) and the NaN scores (bits likewise); ``top`` and
    ``at_top`` mean nothing when ``nan`` is not 0."""
    width = len(lanes)
    largest = load(sums, at, lanes)
    nan = nan_bits(largest)
    for k in range(width, n_columns, width):
        block = load(sums, at + k, lanes)
        largest = larger(largest, block)
        nan |= nan_bits(block) << np.uint64(k)
    value = top(largest)
    at_top = np.uint64(0)
    for k in range(0, n_columns, width):
        at_top |= equal_bits(load(sums, at + k, lanes), value) << np.uint64(k)
    return value, at_top, nan


@njit(nogil=True, cache=True, inline="always")
def scan_best(sums, at, order):
    """The reference scan: the class of the largest score, ties (and a NaN first class) to the first in
    ``order``."""
    best = order[0]
    value = sums[at + best]
    for j in range(1, order.shape[0]):
        k = order[j]
        v = sums[at + k]
        if v > value:
            value = v
            best = k
    return best


@njit(nogil=True, cache=True, inline="always")
def scan_top(sums, at, n_classes):
    """``(top, first class at it)`` of a row of sums as a scan in class order finds them: NaN (and class 0)
    when the first class is NaN, else the largest of the others that are not."""
    value = sums[at]
    first = 0
    for k in range(1, n_classes):
        if sums[at + k] > value:
            value = sums[at + k]
            first = k
    return value, first


@njit(nogil=True, cache=True, inline="always")
def row_summary(sums, at, n_columns, lanes, order):
    """``(best, top, first)`` of the row of sums at ``sums[at:]``, as the reference scans find them: the best
    class, ties to the first in ``order`` (:func:`scan_best`); the largest score and the first class holding
    it (:func:`scan_top`). Two classes: compared directly; more (or one, its padding lane a
    -inf score), vectorised when no score is NaN and the classes fit ``FAST_COLUMNS``."""
    if len(lanes) == 2 and order.shape[0] == 2:
        s0, s1 = sums[at], sums[at + 1]
        first, second = order[0], order[1]
        best = second if sums[at + second] > sums[at + first] else first
        return best, max(s0, s1), 1 if s1 > s0 else 0
    if n_columns <= FAST_COLUMNS:
        value, at_top, nan = row_lanes(sums, at, n_columns, lanes)
        if not nan:
            first = lowest_bit(at_top)
            return (first if bit_count(at_top) == 1 else scan_best(sums, at, order)), value, first
    value, first = scan_top(sums, at, order.shape[0])
    return scan_best(sums, at, order), value, first


def codes_outside(first, second, offsets):
    """The number of codes at or beyond their attribute's table rows (the count a ValueError reports)."""
    sizes = np.diff(offsets)
    f1 = first.shape[1]
    return int((first >= sizes[:f1]).sum() + (second >= sizes[f1:]).sum())


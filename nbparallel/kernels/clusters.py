"""The AutoClass E-step: responsibilities of every restart and cluster, added into expected counts.

One pass per EM iteration scores the same rows under new parameters. So each partition's codes are read
once, on the first pass, into :class:`JointCodes`: runs of consecutive attributes joined into one code each,
the row of their joint values, checked as they are joined. Every pass then reads one code, and one row of a
table of the group's summed log parameters, per group rather than per attribute, and adds each row's
responsibilities into one row of group counts, summed into attribute counts at the end: with groups of three
attributes, a third of the loads and additions. A row's score is the log prior, then the groups' terms in
attribute order (each the sum of its attributes' terms in attribute order): the sum attribute by attribute up
to rounding.

The rows go by blocks that stay in a core's cache, all in one compiled call: each row's scores are summed and
each restart's shifted by their largest; the block's exponentials are taken eight lanes at a time
(:func:`nbparallel.kernels.vectors.exp`, where a plain compiled loop calls the scalar library exp per score);
each row is normalised per restart and its responsibilities added into the rows of its codes; the
normalisers' logarithms are taken as the exponentials are, and the rows' log-likelihoods and cluster sizes
added in row order. A restart's clusters are summed and added in
registers, four columns at a time, and the number of clusters (up to four) or of columns in a group of four
is a constant of each compiled loop (:func:`_score_rows`, :func:`_add_rows`, :func:`_row_sums`), not a
variable tested in every step of the inner loops. No padded column is loaded or added.
"""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import CODE_DTYPES, check_offsets, require_array, require_dtype
from nbparallel.kernels.scoring import EXP_LANES, block_rows, exps, logs

JOINT_CELLS = 1 << 14  # cells of a group's table (128 KiB of float64: it stays in a core's cache)


def joint_groups(sizes, max_rows):
    """The first attribute of every run of consecutive attributes with at most ``max_rows`` joint values (the
    product of their table rows; an attribute with more is a group alone), then the number of attributes.

    >>> joint_groups(np.array([11, 11, 11, 11, 3, 300]), 1331).tolist()
    [0, 3, 5, 6]
    """
    starts, rows = [0], 1
    for a, size in enumerate(sizes):
        if a > starts[-1] and rows * size > max_rows:
            starts.append(a)
            rows = 1
        rows *= int(size)
    return np.array(starts[:len(sizes)] + [len(sizes)], dtype=np.int64)


@njit(nogil=True, cache=True)
def _join_codes_kernel(first, second, sizes, strides, groups, out):
    """Add each attribute's code times its stride into its group's code (``out`` zeros); the number of codes
    at or beyond their attribute's rows."""
    f1 = first.shape[1]
    bad = 0
    for i in range(out.shape[0]):
        for a in range(f1):
            code = np.int64(first[i, a])
            bad += code >= sizes[a]
            out[i, groups[a]] += code * strides[a]
        for b in range(second.shape[1]):
            code = np.int64(second[i, b])
            bad += code >= sizes[f1 + b]
            out[i, groups[f1 + b]] += code * strides[f1 + b]
    return bad


@njit(nogil=True, cache=True, inline="always")
def _rows_of_values(sizes, strides, groups, joint_offsets, a):
    """The joint rows of attribute ``a``'s values: ``start + outer * span + code * stride + inner`` for
    ``outer < n_outer``, ``code < size``, ``inner < stride``."""
    stride = strides[a]
    span = sizes[a] * stride
    start = joint_offsets[groups[a]]
    return start, (joint_offsets[groups[a] + 1] - start) // span, span, stride


@njit(nogil=True, cache=True)
def _join_table_kernel(table, offsets, sizes, strides, groups, joint_offsets, joint):
    """Add each attribute's rows into the joint rows of its values, in attribute order (``joint`` zeros)."""
    for a in range(sizes.shape[0]):
        start, n_outer, span, stride = _rows_of_values(sizes, strides, groups, joint_offsets, a)
        for outer in range(n_outer):
            for code in range(sizes[a]):
                row = start + outer * span + code * stride
                for inner in range(stride):
                    for k in range(table.shape[1]):
                        joint[row + inner, k] += table[offsets[a] + code, k]


@njit(nogil=True, cache=True)
def _split_counts_kernel(joint, offsets, sizes, strides, groups, joint_offsets, counts):
    """Each attribute row the sum of the joint rows of its value, in joint row order (``counts`` zeros)."""
    for a in range(sizes.shape[0]):
        start, n_outer, span, stride = _rows_of_values(sizes, strides, groups, joint_offsets, a)
        for outer in range(n_outer):
            for code in range(sizes[a]):
                row = start + outer * span + code * stride
                for inner in range(stride):
                    for k in range(joint.shape[1]):
                        counts[offsets[a] + code, k] += joint[row + inner, k]


class JointCodes:
    """A partition's codes, runs of consecutive attributes joined into one code each and checked, for the
    passes of an EM fit.

    Parameters
    ----------
    first, second : ndarray of uint8 or uint16, shape (n_rows, f1) and (n_rows, f2)
        Codes as :func:`nbparallel.kernels.scoring.score_rows` takes them (any layout; attribute ``a`` of
        ``first`` reads table rows ``offsets[a]..``, then ``second``'s attributes).
    offsets : ndarray of int64, shape (f1 + f2 + 1,)
    n_columns : int
        Columns of the tables the codes will read: a group has at most ``JOINT_CELLS // n_columns`` joint
        values, so that its table stays in a core's cache.

    Attributes
    ----------
    codes : ndarray of uint8 or uint16, shape (n_rows, n_groups)
        Each group's joint value: the sum of its attributes' codes times their strides.
    offsets : ndarray of int64, shape (n_groups + 1,)
        The groups' rows of a joint table.
    attribute_offsets : ndarray of int64
        ``offsets`` as given.
    sizes, groups, strides : ndarray of int64, shape (f1 + f2,)
        Each attribute's table rows, its group, and the product of the sizes of the attributes after it in
        its group.

    Raises
    ------
    ValueError
        When a code lies outside its attribute's rows.
    """

    def __init__(self, first, second, offsets, n_columns):
        for name, codes in (("first", first), ("second", second)):
            require_array(name, codes, 2)
            if codes.shape[1]:
                require_dtype(name, codes, CODE_DTYPES)
        if second.shape[0] != first.shape[0]:
            raise ValueError(f"second has {second.shape[0]} rows, first has {first.shape[0]}")
        check_offsets(offsets, first.shape[1] + second.shape[1])
        if isinstance(n_columns, bool) or not isinstance(n_columns, (int, np.integer)) or n_columns < 1:
            raise ValueError(f"n_columns must be an int >= 1, got {n_columns!r}")
        self.attribute_offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self.sizes = np.diff(self.attribute_offsets)
        starts = joint_groups(self.sizes, max(1, JOINT_CELLS // int(n_columns)))
        self.groups = np.repeat(np.arange(len(starts) - 1), np.diff(starts)).astype(np.int64)
        self.strides = np.ones(len(self.sizes), dtype=np.int64)
        for a in range(len(self.sizes) - 2, -1, -1):
            if self.groups[a] == self.groups[a + 1]:
                self.strides[a] = self.strides[a + 1] * self.sizes[a + 1]
        rows = [int(np.prod(self.sizes[a:b])) for a, b in zip(starts[:-1], starts[1:])]
        self.offsets = np.concatenate([[0], np.cumsum(rows, dtype=np.int64)]).astype(np.int64)
        dtype = np.uint8 if max(rows, default=0) <= 256 else np.uint16
        self.codes = np.zeros((first.shape[0], len(rows)), dtype=dtype)
        first = first if first.shape[1] else np.empty((first.shape[0], 0), dtype=np.uint8)
        second = second if second.shape[1] else np.empty((first.shape[0], 0), dtype=np.uint8)
        bad = _join_codes_kernel(first, second, self.sizes, self.strides, self.groups, self.codes)
        if bad:
            raise ValueError(f"{bad} codes lie outside their attribute's rows of the table layout")

    def __len__(self):
        return self.codes.shape[0]

    def join_table(self, table):
        """A table of the groups' joint values from one of the attributes' values (float64, shape
        ``(offsets[-1], table.shape[1])``): each joint row the sum of its attributes' rows, in attribute
        order."""
        joint = np.zeros((int(self.offsets[-1]), table.shape[1]))
        _join_table_kernel(np.asarray(table, dtype=np.float64), self.attribute_offsets, self.sizes, self.strides,
                           self.groups, self.offsets, joint)
        return joint

    def split_counts(self, joint):
        """Counts of the attributes' values from counts of the groups' joint values (each the sum over the
        group's other attributes)."""
        counts = np.zeros((int(self.attribute_offsets[-1]), joint.shape[1]))
        _split_counts_kernel(joint, self.attribute_offsets, self.sizes, self.strides, self.groups, self.offsets,
                             counts)
        return counts


@njit(nogil=True, cache=True, inline="always")
def _sums(codes, i, offsets, table, width, k, n, t0, t1, t2, t3):
    """Columns ``k .. k + n - 1`` (``n <= 4``) of the table rows of row ``i``'s codes added to ``t0 ..``, in
    group order (``table`` flat, ``width`` columns a row; unsigned indices, so that the loads are adjacent and
    unchecked)."""
    for g in range(codes.shape[1]):
        at = (np.uint64(offsets[g]) + np.uint64(codes[i, g])) * width + k
        t0 += table[at]
        if n > 1:
            t1 += table[at + np.uint64(1)]
        if n > 2:
            t2 += table[at + np.uint64(2)]
        if n > 3:
            t3 += table[at + np.uint64(3)]
    return t0, t1, t2, t3


@njit(nogil=True, cache=True, inline="always")
def _adds(codes, i, offsets, counts, width, k, n, r0, r1, r2, r3):
    """Add ``r0 ..`` into columns ``k .. k + n - 1`` of the table rows of row ``i``'s codes (``counts`` flat)."""
    for g in range(codes.shape[1]):
        at = (np.uint64(offsets[g]) + np.uint64(codes[i, g])) * width + k
        counts[at] += r0
        if n > 1:
            counts[at + np.uint64(1)] += r1
        if n > 2:
            counts[at + np.uint64(2)] += r2
        if n > 3:
            counts[at + np.uint64(3)] += r3


@njit(nogil=True, cache=True, inline="always")
def _row_sums(codes, i, offsets, table, width, k, n, t0, t1, t2, t3):
    """:func:`_sums` with ``n`` a constant of each compiled loop (a variable one was tested in every step)."""
    if n == 4:
        return _sums(codes, i, offsets, table, width, k, 4, t0, t1, t2, t3)
    if n == 3:
        return _sums(codes, i, offsets, table, width, k, 3, t0, t1, t2, t3)
    if n == 2:
        return _sums(codes, i, offsets, table, width, k, 2, t0, t1, t2, t3)
    return _sums(codes, i, offsets, table, width, k, 1, t0, t1, t2, t3)


@njit(nogil=True, cache=True, inline="always")
def _row_adds(codes, i, offsets, counts, width, k, n, r0, r1, r2, r3):
    """:func:`_adds` with ``n`` a constant of each compiled loop."""
    if n == 4:
        _adds(codes, i, offsets, counts, width, k, 4, r0, r1, r2, r3)
    elif n == 3:
        _adds(codes, i, offsets, counts, width, k, 3, r0, r1, r2, r3)
    elif n == 2:
        _adds(codes, i, offsets, counts, width, k, 2, r0, r1, r2, r3)
    else:
        _adds(codes, i, offsets, counts, width, k, 1, r0, r1, r2, r3)


@njit(nogil=True, cache=True, inline="always")
def _load(values, j, k, n):
    """``values[j, k .. k + n - 1]`` as four numbers (zeros past ``n``)."""
    return (values[j, k], values[j, k + 1] if n > 1 else 0.0, values[j, k + 2] if n > 2 else 0.0,
            values[j, k + 3] if n > 3 else 0.0)


@njit(nogil=True, cache=True, inline="always")
def _store(values, j, k, n, t0, t1, t2, t3):
    """``values[j, k .. k + n - 1] = t0 ..``."""
    values[j, k] = t0
    if n > 1:
        values[j, k + 1] = t1
    if n > 2:
        values[j, k + 2] = t2
    if n > 3:
        values[j, k + 3] = t3


@njit(nogil=True, cache=True, inline="always")
def _shift(t, top):
    """``t - top``, and 0 for the largest score itself (so that an infinite one still weighs one)."""
    return 0.0 if t == top else t - top


@njit(nogil=True, cache=True, inline="always")
def _score_rows(codes, offsets, table, log_prior, n_clusters, n, start, shifted, tops):
    """:func:`_block_scores_kernel` with ``n`` (``n_clusters`` up to four, else 0) a constant."""
    width = np.uint64(log_prior.shape[0])
    p = log_prior.reshape((1, -1))
    for j in range(shifted.shape[0]):
        i = start + j
        for r in range(tops.shape[1]):
            lo = r * n_clusters
            if n:  # the restart's scores stay in registers
                t0, t1, t2, t3 = _load(p, 0, lo, n)
                t0, t1, t2, t3 = _sums(codes, i, offsets, table, width, np.uint64(lo), n, t0, t1, t2, t3)
                top = max(max(t0, t1 if n > 1 else t0), max(t2 if n > 2 else t0, t3 if n > 3 else t0))
                _store(shifted, j, lo, n, _shift(t0, top), _shift(t1, top), _shift(t2, top), _shift(t3, top))
            else:
                for k in range(lo, lo + n_clusters, 4):
                    m = min(4, lo + n_clusters - k)
                    t0, t1, t2, t3 = _load(p, 0, k, m)
                    t0, t1, t2, t3 = _row_sums(codes, i, offsets, table, width, np.uint64(k), m, t0, t1, t2, t3)
                    _store(shifted, j, k, m, t0, t1, t2, t3)
                top = shifted[j, lo]
                for k in range(lo + 1, lo + n_clusters):
                    top = max(top, shifted[j, k])
                for k in range(lo, lo + n_clusters):
                    shifted[j, k] = _shift(shifted[j, k], top)
            tops[j, r] = top


@njit(nogil=True, cache=True, error_model="numpy")
def _block_scores_kernel(codes, offsets, table, log_prior, n_clusters, start, shifted, tops):
    """Rows ``start ..`` (as many as ``shifted`` has): each score less its restart's largest (``tops``)."""
    if n_clusters == 1:
        _score_rows(codes, offsets, table, log_prior, n_clusters, 1, start, shifted, tops)
    elif n_clusters == 2:
        _score_rows(codes, offsets, table, log_prior, n_clusters, 2, start, shifted, tops)
    elif n_clusters == 3:
        _score_rows(codes, offsets, table, log_prior, n_clusters, 3, start, shifted, tops)
    elif n_clusters == 4:
        _score_rows(codes, offsets, table, log_prior, n_clusters, 4, start, shifted, tops)
    else:
        _score_rows(codes, offsets, table, log_prior, n_clusters, 0, start, shifted, tops)


@njit(nogil=True, cache=True, inline="always")
def _add_rows(codes, offsets, n_clusters, n, start, weights, resp, norms, counts):
    """:func:`_block_add_kernel` with ``n`` (``n_clusters`` up to four, else 0) a constant."""
    width = np.uint64(resp.shape[1])
    for j in range(resp.shape[0]):
        i = start + j
        for r in range(norms.shape[1]):
            lo = r * n_clusters
            if n:  # the restart's responsibilities stay in registers
                e0, e1, e2, e3 = _load(resp, j, lo, n)
                s = e0
                if n > 1:
                    s += e1
                if n > 2:
                    s += e2
                if n > 3:
                    s += e3
                norms[j, r] = s
                scale = weights[i] / s
                r0, r1, r2, r3 = e0 * scale, e1 * scale, e2 * scale, e3 * scale
                _store(resp, j, lo, n, r0, r1, r2, r3)
                _adds(codes, i, offsets, counts, width, np.uint64(lo), n, r0, r1, r2, r3)
            else:
                s = 0.0
                for k in range(lo, lo + n_clusters):
                    s += resp[j, k]
                norms[j, r] = s
                scale = weights[i] / s
                for k in range(lo, lo + n_clusters, 4):
                    m = min(4, lo + n_clusters - k)
                    e0, e1, e2, e3 = _load(resp, j, k, m)
                    r0, r1, r2, r3 = e0 * scale, e1 * scale, e2 * scale, e3 * scale
                    _store(resp, j, k, m, r0, r1, r2, r3)
                    _row_adds(codes, i, offsets, counts, width, np.uint64(k), m, r0, r1, r2, r3)


@njit(nogil=True, cache=True, error_model="numpy")
def _block_add_kernel(codes, offsets, n_clusters, start, weights, resp, norms, counts):
    """Each row's exponentials (``resp``) over their restart's sum (written to ``norms``) times its weight,
    in place, and added into the table rows of its codes."""
    if n_clusters == 1:
        _add_rows(codes, offsets, n_clusters, 1, start, weights, resp, norms, counts)
    elif n_clusters == 2:
        _add_rows(codes, offsets, n_clusters, 2, start, weights, resp, norms, counts)
    elif n_clusters == 3:
        _add_rows(codes, offsets, n_clusters, 3, start, weights, resp, norms, counts)
    elif n_clusters == 4:
        _add_rows(codes, offsets, n_clusters, 4, start, weights, resp, norms, counts)
    else:
        _add_rows(codes, offsets, n_clusters, 0, start, weights, resp, norms, counts)


@njit(nogil=True, cache=True, inline="always")
def _column_sums(values, k, n, t0, t1, t2, t3):
    """Columns ``k .. k + n - 1`` (``n <= 4``) of ``values`` added down the rows to ``t0 ..``: four chains
    of additions that overlap."""
    for j in range(values.shape[0]):
        t0 += values[j, k]
        if n > 1:
            t1 += values[j, k + 1]
        if n > 2:
            t2 += values[j, k + 2]
        if n > 3:
            t3 += values[j, k + 3]
    return t0, t1, t2, t3


@njit(nogil=True, cache=True, inline="always")
def _add_column_sums(values, sums):
    """Add the columns of ``values`` into ``sums`` (shape (1, n_columns)), each in row order, four at a time
    in registers (:func:`_column_sums` with ``n`` a constant of each compiled loop)."""
    for k in range(0, values.shape[1], 4):
        n = min(4, values.shape[1] - k)
        t0, t1, t2, t3 = _load(sums, 0, k, n)
        if n == 4:
            t0, t1, t2, t3 = _column_sums(values, k, 4, t0, t1, t2, t3)
        elif n == 3:
            t0, t1, t2, t3 = _column_sums(values, k, 3, t0, t1, t2, t3)
        elif n == 2:
            t0, t1, t2, t3 = _column_sums(values, k, 2, t0, t1, t2, t3)
        else:
            t0, t1, t2, t3 = _column_sums(values, k, 1, t0, t1, t2, t3)
        _store(sums, 0, k, n, t0, t1, t2, t3)


@njit(nogil=True, cache=True, error_model="numpy")
def _block_totals_kernel(weights, start, resp, tops, log_norms, totals, log_likelihood):
    """Add a block's responsibilities into ``totals`` (shape (1, R * K)) and its rows' weighted
    ``top + log(sum)`` into ``log_likelihood`` (shape (R,)), each in row order."""
    _add_column_sums(resp, totals)
    for r in range(tops.shape[1]):
        total = log_likelihood[r]
        for j in range(tops.shape[0]):
            total += weights[start + j] * (tops[j, r] + log_norms[j, r])
        log_likelihood[r] = total


@njit(nogil=True, cache=True, error_model="numpy")
def _expected_counts_kernel(codes, offsets, joint, log_prior, n_clusters, weights, step, counts, totals,
                            log_likelihood):
    """:func:`expected_counts` of rows ``0 ..`` a block of ``step`` rows at a time: scores, exponentials,
    responsibilities added, logarithms of the normalisers, totals."""
    n_rows, n_columns = codes.shape[0], log_prior.shape[0]
    n_restarts = n_columns // n_clusters
    # the scores and normalisers with room for whole vectors of exponentials and logarithms past them
    scores = np.empty(step * n_columns + EXP_LANES)
    normalisers = np.empty(step * n_restarts + EXP_LANES)
    block, tops = scores[:step * n_columns].reshape((step, n_columns)), np.empty((step, n_restarts))
    norms = normalisers[:step * n_restarts].reshape((step, n_restarts))
    for start in range(0, n_rows, step):
        size = min(step, n_rows - start)
        resp, top, norm = block[:size], tops[:size], norms[:size]
        _block_scores_kernel(codes, offsets, joint, log_prior, n_clusters, start, resp, top)
        exps(scores, size * n_columns)
        _block_add_kernel(codes, offsets, n_clusters, start, weights, resp, norm, counts)
        logs(normalisers, size * n_restarts)
        _block_totals_kernel(weights, start, resp, top, norm, totals, log_likelihood)


def expected_counts(codes, table, log_prior, n_clusters, weights):
    """The E-step of a partition in one pass: responsibilities of every restart x cluster, normalised per
    restart and weighted, added into a table like ``table``.

    Parameters
    ----------
    codes : JointCodes
    table : ndarray of float64, shape (codes.attribute_offsets[-1], R * K)
        Log parameters: R restarts of K clusters.
    log_prior : ndarray of float64, shape (R * K,)
    n_clusters : int
        K.
    weights : ndarray of float64, shape (n_rows,)

    Returns
    -------
    counts : ndarray, shape table.shape
        Expected value-by-column counts (missing codes in each attribute's first row).
    totals : ndarray, shape (R * K,)
        Expected column sizes.
    log_likelihood : ndarray, shape (R,)
        Each restart's weighted sum of log P(x_i).
    """
    if not isinstance(codes, JointCodes):
        raise TypeError(f"codes must be JointCodes, got {type(codes).__name__}")
    require_array("log_prior", log_prior, 1)
    require_dtype("log_prior", log_prior, (np.dtype(np.float64),))
    n_columns = log_prior.shape[0]
    n_table_rows = int(codes.attribute_offsets[-1])
    if table.shape != (n_table_rows, n_columns):
        raise ValueError(f"table must have shape {(n_table_rows, n_columns)}, got {table.shape}")
    if isinstance(n_clusters, bool) or not isinstance(n_clusters, (int, np.integer)) or n_clusters < 1 \
            or n_columns % n_clusters:
        raise ValueError(f"{n_columns} columns are not restarts of n_clusters={n_clusters!r} clusters")
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (len(codes),):
        raise ValueError(f"weights must have shape ({len(codes)},), got {weights.shape}")
    joint = codes.join_table(table).ravel()
    log_prior = np.ascontiguousarray(log_prior)
    n_restarts, n_clusters = n_columns // n_clusters, int(n_clusters)
    counts = np.zeros((int(codes.offsets[-1]), n_columns))
    totals, log_likelihood = np.zeros((1, n_columns)), np.zeros(n_restarts)
    step = min(block_rows(n_columns), max(len(codes), 1))
    _expected_counts_kernel(codes.codes, codes.offsets, joint, log_prior, n_clusters, weights, step,
                            counts.ravel(), totals, log_likelihood)
    return codes.split_counts(counts), totals[0], log_likelihood

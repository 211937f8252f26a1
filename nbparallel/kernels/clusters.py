"""The AutoClass E-step: responsibilities of every restart and cluster, added into expected counts.

One pass per EM iteration scores the same rows under new parameters, so the rows' codes are checked once
(:class:`~nbparallel.kernels.checks.CheckedCodes`) and read without a bound check per code. Each row's
scores summed four columns at a time in
registers, normalised per restart, then added into the table rows of its codes, four columns at a time
(three, two or one for the last ones: no padded column is added).
"""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import CheckedCodes, require_array, require_dtype


@njit(nogil=True, cache=True, inline="always")
def _sums4(codes, i, column_offset, offsets, table, width, k, t0, t1, t2, t3):
    """Columns ``k .. k + 3`` of row ``i``'s codes added to ``t0 .. t3``, in attribute order (``table``
    flat, ``width`` columns a row; unsigned indices, so that the four loads are adjacent and unchecked)."""
    for a in range(codes.shape[1]):
        at = (np.uint64(offsets[column_offset + a]) + np.uint64(codes[i, a])) * width + k
        t0 += table[at]
        t1 += table[at + np.uint64(1)]
        t2 += table[at + np.uint64(2)]
        t3 += table[at + np.uint64(3)]
    return t0, t1, t2, t3


@njit(nogil=True, cache=True, inline="always")
def _add4(codes, i, column_offset, offsets, counts, width, k, r0, r1, r2, r3):
    """Add ``r0 .. r3`` into columns ``k .. k + 3`` of the table rows of row ``i``'s codes (``counts`` flat)."""
    for a in range(codes.shape[1]):
        at = (np.uint64(offsets[column_offset + a]) + np.uint64(codes[i, a])) * width + k
        counts[at] += r0
        counts[at + np.uint64(1)] += r1
        counts[at + np.uint64(2)] += r2
        counts[at + np.uint64(3)] += r3


@njit(nogil=True, cache=True, inline="always")
def _add3(codes, i, column_offset, offsets, counts, width, k, r0, r1, r2):
    """:func:`_add4` of three columns."""
    for a in range(codes.shape[1]):
        at = (np.uint64(offsets[column_offset + a]) + np.uint64(codes[i, a])) * width + k
        counts[at] += r0
        counts[at + np.uint64(1)] += r1
        counts[at + np.uint64(2)] += r2


@njit(nogil=True, cache=True, inline="always")
def _add1(codes, i, column_offset, offsets, counts, width, k, r0):
    """:func:`_add4` of one column."""
    for a in range(codes.shape[1]):
        at = (np.uint64(offsets[column_offset + a]) + np.uint64(codes[i, a])) * width + k
        counts[at] += r0


@njit(nogil=True, cache=True, error_model="numpy")
def _expected_counts_kernel(first, second, offsets, table, log_prior, n_clusters, n_columns, weights, counts,
                            totals, log_likelihood):
    width = log_prior.shape[0]
    step = np.uint64(width)
    f1 = first.shape[1]
    resp = np.zeros(width)
    for i in range(first.shape[0]):
        for k in range(0, width, 4):
            p, at = log_prior, np.uint64(k)
            t0, t1, t2, t3 = _sums4(first, i, 0, offsets, table, step, at, p[k], p[k + 1], p[k + 2], p[k + 3])
            resp[k], resp[k + 1], resp[k + 2], resp[k + 3] = _sums4(second, i, f1, offsets, table, step, at,
                                                                    t0, t1, t2, t3)
        w = weights[i]
        for lo in range(0, n_columns, n_clusters):
            top = resp[lo]
            for k in range(lo + 1, lo + n_clusters):
                top = max(top, resp[k])
            s = 0.0
            for k in range(lo, lo + n_clusters):
                resp[k] = 1.0 if resp[k] == top else np.exp(resp[k] - top)  # one exp per column, reused
                s += resp[k]
            log_likelihood[lo // n_clusters] += w * (top + np.log(s))
            scale = w / s
            for k in range(lo, lo + n_clusters):
                resp[k] *= scale
        for k in range(n_columns):
            totals[k] += resp[k]
        for k in range(0, n_columns - n_columns % 4, 4):
            at = np.uint64(k)
            _add4(first, i, 0, offsets, counts, step, at, resp[k], resp[k + 1], resp[k + 2], resp[k + 3])
            _add4(second, i, f1, offsets, counts, step, at, resp[k], resp[k + 1], resp[k + 2], resp[k + 3])
        if n_columns % 4 == 3:
            k = n_columns - 3
            at = np.uint64(k)
            _add3(first, i, 0, offsets, counts, step, at, resp[k], resp[k + 1], resp[k + 2])
            _add3(second, i, f1, offsets, counts, step, at, resp[k], resp[k + 1], resp[k + 2])
        elif n_columns % 4:
            for k in range(n_columns - n_columns % 4, n_columns):
                _add1(first, i, 0, offsets, counts, step, np.uint64(k), resp[k])
                _add1(second, i, f1, offsets, counts, step, np.uint64(k), resp[k])


def expected_counts(codes, table, log_prior, n_clusters, weights):
    """The E-step of a partition in one pass: responsibilities of every restart x cluster, normalised per
    restart and weighted, added into a table like ``table``.

    Parameters
    ----------
    codes : CheckedCodes
    table : ndarray of float64, shape (codes.offsets[-1], R * K)
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
    if not isinstance(codes, CheckedCodes):
        raise TypeError(f"codes must be CheckedCodes, got {type(codes).__name__}")
    require_array("log_prior", log_prior, 1)
    require_dtype("log_prior", log_prior, (np.dtype(np.float64),))
    n_columns = log_prior.shape[0]
    if table.shape != (int(codes.offsets[-1]), n_columns):
        raise ValueError(f"table must have shape {(int(codes.offsets[-1]), n_columns)}, got {table.shape}")
    if isinstance(n_clusters, bool) or not isinstance(n_clusters, (int, np.integer)) or n_clusters < 1 \
            or n_columns % n_clusters:
        raise ValueError(f"{n_columns} columns are not restarts of n_clusters={n_clusters!r} clusters")
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (len(codes),):
        raise ValueError(f"weights must have shape ({len(codes)},), got {weights.shape}")
    width = -(-n_columns // 4) * 4
    padded = np.zeros((table.shape[0], width))
    padded[:, :n_columns] = table
    prior = np.zeros(width)
    prior[:n_columns] = log_prior
    counts = np.zeros((table.shape[0], width))
    totals = np.zeros(n_columns)
    log_likelihood = np.zeros(n_columns // n_clusters)
    _expected_counts_kernel(codes.first, codes.second, codes.offsets, padded.ravel(), prior, int(n_clusters),
                            n_columns, weights, counts.ravel(), totals, log_likelihood)
    return np.ascontiguousarray(counts[:, :n_columns]), totals, log_likelihood

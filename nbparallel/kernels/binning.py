"""Equal-width binning inside compiled loops: values to bin codes."""

import numpy as np
from numba import njit

from nbparallel.kernels.checks import VALUE_DTYPES, check_edges, require_array, require_dtype
from nbparallel.kernels.vectors import add, count_below, load, load_first, store_codes

COUNTED_EDGES = 32
"""Most edges of an attribute counted 8 attributes at a time (:func:`_counted_codes`); one vector comparison per
edge and 8 values, fewer instructions than a scalar guess and its correction up to about this many."""

_EIGHT = (0.0,) * 8  # the lanes of the vectors of 8 attributes (numba types the width from the tuple)


@njit(nogil=True, cache=True)
def binning_setup(edges, n_bins):
    """Sentinel-padded edges and an O(1) bin guess for each numeric attribute.

    Returns ``padded`` with ``padded[j] = [-inf, edges[j, :B_j - 1], +inf, ...]``
    (edge ``b`` at index ``b + 1``, so neighbour lookups need no bound
    checks), ``first_edge`` and ``inv_width`` such that the guess
    ``(x - first_edge) * inv_width + 1`` (NaN counting as 0, clamped to
    ``[0, B_j - 1]``) is the bin of ``x`` for equal-width edges, and
    ``guess_within_one``: whether every guess provably lies within one bin of
    the true bin, which holds when the guess at every edge ``e_i`` is within
    0.25 of ``i + 1`` (the guess is monotone in ``x``). With one distinct
    edge value the width is taken infinite, which is exact.
    """
    f_num = n_bins.shape[0]
    max_bins = 1
    for j in range(f_num):
        max_bins = max(max_bins, n_bins[j])
    padded = np.full((f_num, max_bins + 1), np.inf)
    first_edge = np.zeros(f_num)
    inv_width = np.full(f_num, np.inf)
    guess_within_one = True
    for j in range(f_num):
        n_edges = n_bins[j] - 1
        padded[j, 0] = -np.inf
        padded[j, 1 : n_edges + 1] = edges[j, :n_edges]
        if n_edges == 0:
            continue
        first_edge[j] = edges[j, 0]
        span = edges[j, n_edges - 1] - edges[j, 0]
        if span == 0:
            continue
        inv_width[j] = (n_edges - 1) / span
        for i in range(n_edges):
            guess = (edges[j, i] - first_edge[j]) * inv_width[j] + 1.0
            if not abs(guess - (i + 1)) <= 0.25:
                guess_within_one = False
    return padded, first_edge, inv_width, guess_within_one


@njit(nogil=True, cache=True, inline="always")
def bin_slot(x, j, flat_padded, padded_width, first_edge, inv_width, last_bin):
    """1 + the bin of ``x`` under attribute ``j``'s equal-width edges, 0 for NaN.

    The bin is guessed arithmetically and corrected by one branch-free
    comparison with each neighbouring edge, which is exact when
    ``binning_setup`` found every guess within one bin. ``last_bin`` is float64
    (each attribute's bins less one), so that the clamped guess is compared and
    converted without an integer conversion of the bound per value.
    """
    guess = (x - first_edge[j]) * inv_width[j] + 1.0
    guess = guess if guess > 0.0 else 0.0  # also maps NaN to 0
    guess = guess if guess < last_bin[j] else last_bin[j]
    guess_bin = np.int64(guess)  # within 0 .. last bin: a signed conversion, one instruction
    at = np.uint64(j) * padded_width + np.uint64(guess_bin)
    too_high = (flat_padded[at] >= x) & (guess_bin > 0)
    too_low = flat_padded[at + np.uint64(1)] < x
    slot = np.uint64(guess_bin + 1 + np.int64(too_low) - np.int64(too_high))
    return slot if x == x else np.uint64(0)


@njit(nogil=True, cache=True)
def _bin_codes_kernel(X, columns, padded, first_edge, inv_width, last_bin, out):
    """``out[:, k]`` = 1 + bin of ``X[:, columns[k]]`` (0 for NaN), row by row, any real dtype."""
    padded_width = np.uint64(padded.shape[1])
    flat_padded = padded.ravel()
    for i in range(X.shape[0]):
        for k in range(columns.shape[0]):
            x = np.float64(X[i, columns[k]])
            out[i, k] = bin_slot(x, k, flat_padded, padded_width, first_edge, inv_width, last_bin)


@njit(nogil=True, cache=True)
def _equal_width_codes(values, padded, first_edge, inv_width, last_bin, out):
    """``out[i, j]`` = 1 + bin of ``values[i, j]`` (0 for NaN) by :func:`bin_slot`, row by row: the edges'
    :func:`binning_setup` found every guess within one bin; ``last_bin`` is :func:`last_bins`."""
    padded_width = np.uint64(padded.shape[1])
    flat_padded = padded.ravel()
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            out[i, j] = bin_slot(np.float64(values[i, j]), j, flat_padded, padded_width, first_edge, inv_width,
                                 last_bin)


@njit(nogil=True, cache=True)
def _counted_codes(values, edges_by_rank, zeros, out, lanes):
    """``out[i, j]`` = 1 + the number of edges of attribute ``j`` below ``values[i, j]`` (0 for NaN): exactly
    ``1 + np.searchsorted(edges_j, x, side="left")``, 8 attributes of a row at a time.

    ``values`` and ``out`` (uint8) are C-contiguous; ``edges_by_rank[e, j]`` is attribute ``j``'s edge ``e``,
    +inf past its last and past the attributes (rows of a multiple of 8, a multiple of 4 rows); ``zeros`` 8
    zeros.
    """
    n_rows, f_num = values.shape
    flat, codes = values.ravel(), out.ravel()
    padded = edges_by_rank.ravel()
    row_width = edges_by_rank.shape[1]
    start = load(zeros, 0, lanes)
    for i in range(n_rows):
        for j in range(0, f_num, 8):
            n = min(8, f_num - j)
            at = i * f_num + j
            # a masked load costs several plain ones: the lanes past the row, read from the next, are not stored
            x = load(flat, at, lanes) if at + 8 <= flat.size else load_first(flat, at, n, lanes)
            c0 = c1 = c2 = c3 = start  # four sums: a chain of one addition per edge would wait on each
            for e in range(0, edges_by_rank.shape[0], 4):
                edge = e * row_width + j
                c0 = count_below(c0, load(padded, edge, lanes), x)
                c1 = count_below(c1, load(padded, edge + row_width, lanes), x)
                c2 = count_below(c2, load(padded, edge + 2 * row_width, lanes), x)
                c3 = count_below(c3, load(padded, edge + 3 * row_width, lanes), x)
            store_codes(codes, at, add(add(c0, c1), add(c2, c3)), x, n)


def edges_by_rank(edges, n_bins):
    """``edges`` (f_num, max edges) as :func:`_counted_codes` reads them: edge ``e`` of every attribute in row
    ``e``, +inf past an attribute's last edge and past the attributes, rows of a multiple of 8 and a multiple of 4
    rows."""
    f_num = edges.shape[0]
    n_edges = int(n_bins.max()) - 1 if f_num else 0
    table = np.full((-(-n_edges // 4) * 4, -(-f_num // 8) * 8), np.inf)
    for j in range(f_num):
        table[: n_bins[j] - 1, j] = edges[j, : n_bins[j] - 1]
    return table


def last_bins(n_bins):
    """Each attribute's last bin (``n_bins - 1``) as float64, the bound :func:`bin_slot` clamps its guess to."""
    return (np.asarray(n_bins) - 1).astype(np.float64)


_LINEAR_SEARCH_EDGES = 16  # up to this many edges, counting beats bisection


@njit(nogil=True, cache=True)
def _edge_codes(values, edges, n_bins, out):
    """``out[i, j]`` = 1 + bin of ``values[i, j]`` (0 for NaN) under any ascending edges (see
    :func:`bin_values`): the edges below each value counted, or bisected when there are many."""
    n_rows, f_num = values.shape
    for i in range(n_rows):  # row by row: the order C-ordered values lie in memory
        for j in range(f_num):
            x = values[i, j]
            if np.isnan(x):
                out[i, j] = 0
                continue
            n_edges = n_bins[j] - 1
            if n_edges <= _LINEAR_SEARCH_EDGES:  # branch-free count of the edges below x
                below = 0
                for e in range(n_edges):
                    below += edges[j, e] < x
                out[i, j] = below + 1
                continue
            lo = 0
            hi = n_edges
            while lo < hi:  # bisect left: number of edges strictly below x
                mid = (lo + hi) >> 1
                if edges[j, mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            out[i, j] = lo + 1


def bin_values(values, edges, n_bins):
    """Bin numeric values against arbitrary ascending edges.

    Parameters
    ----------
    values : ndarray of float64 or float32, shape (n_rows, f_num)
        Raw values, any memory layout; NaN means missing.
    edges : ndarray of float64, shape (f_num, max(n_bins) - 1)
        Ascending inner edges of attribute ``j`` in ``edges[j, :n_bins[j] - 1]``,
        padded with +inf.
    n_bins : ndarray of int64, shape (f_num,)
        Number of bins of each attribute, >= 1.

    Returns
    -------
    codes : ndarray of uint8 or uint16, shape (n_rows, f_num)
        0 for NaN, otherwise ``1 + np.searchsorted(edges_j, x, side="left")``.
        uint8 when ``max(n_bins) < 256``, else uint16.
    """
    require_array("values", values, 2)
    require_dtype("values", values, VALUE_DTYPES)
    require_array("n_bins", n_bins, 1)
    require_dtype("n_bins", n_bins, (np.dtype(np.int64),))
    if n_bins.shape[0] != values.shape[1]:
        raise ValueError(
            f"n_bins must have one entry per column of values ({values.shape[1]}), "
            f"got {n_bins.shape[0]}"
        )
    if np.any(n_bins < 1):
        raise ValueError("n_bins must be >= 1 for every attribute")
    check_edges(edges, n_bins)
    max_code = int(n_bins.max()) if n_bins.shape[0] else 0
    if max_code >= 2**16:
        raise ValueError(f"n_bins must be < 65536, got {max_code}")
    out = np.empty(values.shape, np.uint8 if max_code < 256 else np.uint16)
    block_binner(edges, n_bins)(values, out)
    return out


def block_binner(edges, n_bins):
    """``bin_block(values, out)``: :func:`bin_values` of a block of values written into ``out`` (codes of its
    shape, not checked), the edges prepared once for many blocks: C-contiguous float64 values into uint8
    codes, with at most :data:`COUNTED_EDGES` edges an attribute, by counting the edges below each value 8
    attributes at a time (:func:`_counted_codes`); others, equal-width edges (every fit's before empty bins are
    merged) by a guess per value (:func:`binning_setup`), irregular ones by counting or bisecting the edges
    below each value."""
    padded, first_edge, inv_width, guess_within_one = binning_setup(edges, n_bins)
    if guess_within_one:
        last_bin = last_bins(n_bins)

        def guessed(values, out):
            _equal_width_codes(values, padded, first_edge, inv_width, last_bin, out)
    else:
        def guessed(values, out):
            _edge_codes(values, edges, n_bins, out)
    if not n_bins.shape[0] or n_bins.max() - 1 > COUNTED_EDGES:
        return guessed
    by_rank, zeros = edges_by_rank(edges, n_bins), np.zeros(8)

    def bin_block(values, out):
        if (values.dtype == np.float64 and values.flags.c_contiguous and out.dtype == np.uint8
                and out.flags.c_contiguous):
            _counted_codes(values, by_rank, zeros, out, _EIGHT)
        else:
            guessed(values, out)

    return bin_block


def bin_codes(X, columns, edges, n_bins, out):
    """Write 1 + the bin of each value (0 = NaN) of some columns into a code array.

    The bins are ``np.searchsorted(edges[k, :n_bins[k] - 1], x, side="left")``
    exactly, as :func:`count_partition` bins; integer columns are binned as
    they are, each value converted to float64 in a register (no copy).

    Parameters
    ----------
    X : ndarray of integers or floats, shape (n_rows, n_columns), any layout
    columns : ndarray of int64, shape (k,)
        The columns of X to bin.
    edges : ndarray of float64, shape (k, max(n_bins) - 1)
        Inner edges, padded with +inf.
    n_bins : ndarray of int64, shape (k,)
    out : ndarray of uint8 or uint16, shape (n_rows, k), any layout
    """
    require_array("X", X, 2)
    if X.dtype.kind not in "iuf":
        raise TypeError(f"X must hold integers or floats, got dtype {X.dtype}")
    check_edges(edges, n_bins)
    if columns.shape[0] == 0:
        return
    padded, first_edge, inv_width, guess_within_one = binning_setup(edges, n_bins)
    if guess_within_one:
        _bin_codes_kernel(X, columns, padded, first_edge, inv_width, last_bins(n_bins), out)
    else:  # irregular edges: bisect (a float copy of these columns; rare)
        out[:] = bin_values(np.asarray(X[:, columns], dtype=np.float64), edges, n_bins)

"""Compiled loops of SPSS forward feature selection: every candidate attribute's log-likelihood sums in one
pass over a partition's codes, and the draws of simulated cases.

A row's term for candidate ``c`` is ``log sum_k exp(base_k + t_c[x, k])``, ``base`` the row's log-scores
under the subset. Instead of ``K`` exponentials and a logarithm per (row, candidate), the tables are used
as probabilities scaled by each table row's largest entry (``exp(t - max t)``, computed once per model):
the subset's scores of a row are a product of table rows (rescaled when they grow small), a candidate's
sum is a dot product with its table row, and the logarithms of unweighted rows are taken of running
products, once every few dozen rows. No class that matters can underflow while the spread of the factors
(each table row's largest minus smallest log-probability, summed over a term's factors) stays within
``RANGE_LIMIT``; a term beyond it is summed in log space, as the plain formula does.

Rows with the same subset values have the same scores. While the subset's value combinations are few next
to the rows (the first steps of a selection), the rows are first counted by (subset combination,
candidate value), as a count table is counted, and each combination is scored once
(:func:`use_groups` decides).
"""

import math

import numpy as np
from numba import njit

from nbparallel.kernels.checks import CODE_DTYPES, require_array, require_dtype

#: A row's scaled subset scores are rescaled to a largest entry of 1 when that entry falls below this.
RESCALE_BELOW = 1e-20
#: A term whose factors spread over more than this (natural log units) is summed in log space: below it every
#: scaled product stays above 1e-20 * exp(-2 * RANGE_LIMIT), a normal float.
RANGE_LIMIT = 300.0
#: Running products are folded into their logarithm when they leave [1 / FOLD_AT, FOLD_AT].
FOLD_AT = 1e150
#: At most this many (subset combination x candidate value) cells are counted per partition (4 bytes each,
#: 8 with weights).
GROUP_CELLS = 1 << 22


class CandidateTables:
    """A model's log tables as :func:`candidate_sums` reads them, prepared once per model.

    Parameters
    ----------
    stacked : ndarray of float64, shape (n_table_rows, K)
        Every attribute's log p^j_mk, code 0 (missing) a row of zeros, attribute ``a`` from row
        ``starts[a]``.
    starts : ndarray of int64, shape (n_attributes + 1,)
    log_prior : ndarray of float64, shape (K,)

    Besides them: ``scaled``, ``exp(t - max_k t)`` of every table row, each row's largest entry
    ``row_max`` and its spread ``row_range`` (``max_k t - min_k t``; infinite for a row holding ``-inf``,
    whose terms are then summed in log space), and the same of the prior.
    """

    def __init__(self, stacked, starts, log_prior):
        require_array("stacked", stacked, 2)
        self.stacked = np.ascontiguousarray(stacked, dtype=np.float64)
        self.log_prior = np.ascontiguousarray(log_prior, dtype=np.float64)
        self.starts = np.asarray(starts, dtype=np.int64)
        n_rows, n_classes = self.stacked.shape
        if self.log_prior.shape != (n_classes,) or n_classes < 1:
            raise ValueError(f"log_prior must have shape ({n_classes},) with stacked's classes, got "
                             f"{self.log_prior.shape}")
        if (self.starts.ndim != 1 or len(self.starts) < 1 or self.starts[0] != 0 or self.starts[-1] != n_rows
                or np.any(np.diff(self.starts) < 1)):
            raise ValueError(f"starts must be increasing row offsets from 0 to {n_rows}, got {self.starts}")
        row_max, row_min = self.stacked.max(axis=1), self.stacked.min(axis=1)
        finite = np.isfinite(row_max)
        with np.errstate(invalid="ignore"):
            self.scaled = np.ascontiguousarray(
                np.where(finite[:, None], np.exp(self.stacked - np.where(finite, row_max, 0.0)[:, None]), 0.0))
            self.row_range = np.where(np.isfinite(row_min), row_max - row_min, np.inf)
        self.row_max = row_max
        self.prior_max = float(self.log_prior.max())
        self.prior_range = float(self.prior_max - self.log_prior.min())
        self.prior_scaled = np.exp(self.log_prior - self.prior_max)

    @property
    def n_attributes(self):
        return len(self.starts) - 1


@njit(nogil=True, cache=True)
def _log_space_term(codes, i, subset, stacked, starts, log_prior, extra_row):
    """``log sum_k exp(log_prior_k + sum_{a in subset} t_a[x_a, k] + t[extra_row, k])`` in log space
    (``extra_row`` -1: none), as the unscaled formula sums it."""
    n_classes = log_prior.shape[0]
    acc = log_prior.copy()
    for s in range(subset.shape[0]):
        r = starts[subset[s]] + codes[i, subset[s]]
        for k in range(n_classes):
            acc[k] += stacked[r, k]
    if extra_row >= 0:
        for k in range(n_classes):
            acc[k] += stacked[extra_row, k]
    top = -np.inf
    for k in range(n_classes):
        top = max(top, acc[k])
    total = 0.0
    for k in range(n_classes):
        total += np.exp(acc[k] - top)
    return top + np.log(total)


@njit(nogil=True, cache=True)
def _dot(e, scaled, r):
    """``sum_k e[k] * scaled[r, k]``; past eight classes in four interleaved sums (the adds of one do not
    wait on another)."""
    n = e.shape[0]
    if n == 2:
        return e[0] * scaled[r, 0] + e[1] * scaled[r, 1]
    if n < 8:
        s = 0.0
        for k in range(n):
            s += e[k] * scaled[r, k]
        return s
    s0 = s1 = s2 = s3 = 0.0
    k = 0
    while k + 4 <= n:
        s0 += e[k] * scaled[r, k]
        s1 += e[k + 1] * scaled[r, k + 1]
        s2 += e[k + 2] * scaled[r, k + 2]
        s3 += e[k + 3] * scaled[r, k + 3]
        k += 4
    while k < n:
        s0 += e[k] * scaled[r, k]
        k += 1
    return (s0 + s1) + (s2 + s3)


@njit(nogil=True, cache=True)
def _subset_scores(codes, i, subset, starts, scaled, row_max, row_range, prior_scaled, prior_max, prior_range, e):
    """Row ``i``'s subset scores as ``shift + log e[k]`` (``e`` written here): ``(shift, present,
    spread)``, ``present`` when some subset value is not missing, ``spread`` the factors' spread (past
    ``RANGE_LIMIT`` the row's terms are summed in log space and ``e`` is left unfinished)."""
    shift = prior_max
    spread = prior_range
    for k in range(e.shape[0]):
        e[k] = prior_scaled[k]
    present = False
    for s in range(subset.shape[0]):
        x = codes[i, subset[s]]
        if x == 0:
            continue  # missing: no factor
        present = True
        r = starts[subset[s]] + x
        spread += row_range[r]
        if spread > RANGE_LIMIT:
            return shift, present, spread
        shift += row_max[r]
        top = 0.0
        for k in range(e.shape[0]):
            e[k] *= scaled[r, k]
            top = max(top, e[k])
        if top < RESCALE_BELOW:
            shift += np.log(top)
            for k in range(e.shape[0]):
                e[k] /= top
    return shift, present, spread


@njit(nogil=True, cache=True)
def _candidate_sums_kernel(codes, labels, weights, subset, candidates, stacked, starts, scaled, row_max,
                           row_range, log_prior, prior_scaled, prior_max, prior_range, sums, kept):
    """The candidate sums, row by row. Returns the rows with a code outside its attribute (left out, or
    summed in part)."""
    n_classes = log_prior.shape[0]
    n_terms = candidates.shape[0] + 1
    weighted = weights.shape[0] > 0
    labelled = labels.shape[0] > 0
    e = np.empty(n_classes)
    product = np.ones(n_terms)  # unweighted rows: running products of the terms' scaled sums
    folded = np.zeros(n_terms)  # ... and the logarithms already taken of them
    bad = 0
    for i in range(codes.shape[0]):
        if labelled and labels[i] < 0:
            continue
        w = weights[i] if weighted else 1.0
        if w == 0:
            continue
        outside = False
        for s in range(subset.shape[0]):
            outside |= starts[subset[s]] + codes[i, subset[s]] >= starts[subset[s] + 1]
        if outside:
            bad += 1
            continue
        shift, present, spread = _subset_scores(codes, i, subset, starts, scaled, row_max, row_range,
                                                prior_scaled, prior_max, prior_range, e)
        base_sum = 0.0
        for k in range(n_classes):
            base_sum += e[k]
        if present:
            if spread > RANGE_LIMIT:
                sums[0] += w * _log_space_term(codes, i, subset, stacked, starts, log_prior, -1)
            elif weighted:
                sums[0] += w * (shift + np.log(base_sum))
            else:
                sums[0] += shift
                p = product[0] * base_sum
                if p < 1.0 / FOLD_AT or p > FOLD_AT:
                    folded[0] += np.log(p)
                    p = 1.0
                product[0] = p
            kept[0] += w
        for j in range(candidates.shape[0]):
            c = candidates[j]
            x = codes[i, c]
            if x == 0 and not present:
                continue  # every predictor of the subset is missing: the term is ignored
            kept[j + 1] += w
            if x == 0:
                total, extra_shift, r, log_space = base_sum, 0.0, -1, spread > RANGE_LIMIT
            else:
                r = starts[c] + x
                if r >= starts[c + 1]:
                    bad += 1
                    break
                log_space = spread + row_range[r] > RANGE_LIMIT
                total, extra_shift = (0.0, 0.0) if log_space else (_dot(e, scaled, r), row_max[r])
            if log_space:
                sums[j + 1] += w * _log_space_term(codes, i, subset, stacked, starts, log_prior, r)
            elif weighted:
                sums[j + 1] += w * (shift + extra_shift + np.log(total))
            else:
                sums[j + 1] += shift + extra_shift
                p = product[j + 1] * total
                if p < 1.0 / FOLD_AT or p > FOLD_AT:
                    folded[j + 1] += np.log(p)
                    p = 1.0
                product[j + 1] = p
    for j in range(n_terms):
        sums[j] += folded[j] + np.log(product[j])
    return bad


@njit(nogil=True, cache=True)
def _group_counts_kernel(codes, labels, weights, subset, radix, candidates, cell_starts, cells, totals):
    """Rows by subset combination ``g`` (mixed radix of the subset's codes): their weight in ``totals[g]``
    and, by each candidate's value, in ``cells[g, cell_starts[j] + x]``. Returns the rows with a code
    outside its attribute (left out, or counted in part)."""
    weighted = weights.shape[0] > 0
    labelled = labels.shape[0] > 0
    bad = 0
    for i in range(codes.shape[0]):
        if labelled and labels[i] < 0:
            continue
        w = weights[i] if weighted else 1.0
        g = 0
        for s in range(subset.shape[0]):
            x = codes[i, subset[s]]
            if x >= radix[s]:
                g = -1
                break
            g = g * radix[s] + x
        if g < 0:
            bad += 1
            continue
        totals[g] += w
        for j in range(candidates.shape[0]):
            x = codes[i, candidates[j]]
            if x >= cell_starts[j + 1] - cell_starts[j]:
                bad += 1
                break
            cells[g, cell_starts[j] + x] += w
    return bad


@njit(nogil=True, cache=True)
def _grouped_sums_kernel(cells, totals, subset, radix, candidates, cell_starts, n_attributes, stacked, starts,
                         scaled, row_max, row_range, log_prior, prior_scaled, prior_max, prior_range, sums, kept):
    """The candidate sums from :func:`_group_counts_kernel`'s counts: each subset combination scored once,
    each of its cells weighted by its count."""
    e = np.empty(log_prior.shape[0])
    combination = np.zeros((1, n_attributes), dtype=np.int64)  # the combination's codes, as one row
    for g in range(totals.shape[0]):
        if totals[g] == 0:
            continue
        rest = g
        for s in range(subset.shape[0] - 1, -1, -1):
            combination[0, subset[s]] = rest % radix[s]
            rest //= radix[s]
        shift, present, spread = _subset_scores(combination, 0, subset, starts, scaled, row_max, row_range,
                                                prior_scaled, prior_max, prior_range, e)
        base_sum = 0.0
        for k in range(e.shape[0]):
            base_sum += e[k]
        base_term = 0.0
        if present:
            if spread > RANGE_LIMIT:
                base_term = _log_space_term(combination, 0, subset, stacked, starts, log_prior, -1)
            else:
                base_term = shift + np.log(base_sum)
            sums[0] += totals[g] * base_term
            kept[0] += totals[g]
        for j in range(candidates.shape[0]):
            for x in range(cell_starts[j + 1] - cell_starts[j]):
                n = cells[g, cell_starts[j] + x]
                if n == 0 or (x == 0 and not present):
                    continue  # no row, or every predictor of the subset missing: the term is ignored
                kept[j + 1] += n
                if x == 0:
                    sums[j + 1] += n * base_term
                    continue
                r = starts[candidates[j]] + x
                if spread + row_range[r] > RANGE_LIMIT:
                    sums[j + 1] += n * _log_space_term(combination, 0, subset, stacked, starts, log_prior, r)
                else:
                    sums[j + 1] += n * (shift + row_max[r] + np.log(_dot(e, scaled, r)))


def candidate_sums(tables, codes, labels, weights, subset, candidates):
    """The sums behind B(J) for a subset and for the subset plus each candidate, in one scan of the rows.

    For every row, the subset's per-class score ``log pi_k + sum_{j in S} log p^j_{x_j k}`` is made once;
    each candidate's term adds its own and takes the log-sum-exp over classes (SPSS, "Missing Values": a
    missing value contributes no factor). A row's term is ignored when every predictor of the subset, and
    the candidate, are missing. ``B(J) = -(1/N') sum_i log(sum_k pi_k prod_{j: x_ji not missing}
    p^j_{x_ji k})`` is then ``-sums / kept``.

    Parameters
    ----------
    tables : CandidateTables
    codes : ndarray of uint8 or uint16, shape (n, n_attributes)
        Codes under the model's bins; 0 is missing.
    labels : ndarray of int, shape (n,) or None
        Rows with a negative label are skipped (unknown target); None: every row counts.
    weights : ndarray of float64, shape (n,) or None
    subset, candidates : sequences of attribute positions

    Returns
    -------
    sums : ndarray of shape (1 + len(candidates),)
        ``sum_i w_i log(sum_k pi_k prod_j p^j_{x_ji k})`` over the kept rows, for the subset and then each
        candidate with it.
    kept : ndarray of shape (1 + len(candidates),)
        Weight of the kept rows (N').
    """
    require_array("codes", codes, 2)
    require_dtype("codes", codes, CODE_DTYPES)
    if codes.shape[1] != tables.n_attributes:
        raise ValueError(f"codes has {codes.shape[1]} attributes, the tables {tables.n_attributes}")
    subset = np.asarray(subset, dtype=np.int64)
    candidates = np.asarray(candidates, dtype=np.int64)
    n = codes.shape[0]
    for name, columns in (("subset", subset), ("candidates", candidates)):
        if columns.size and (columns.min() < 0 or columns.max() >= codes.shape[1]):
            raise ValueError(f"{name} holds positions outside the {codes.shape[1]} attributes")
    labels = np.empty(0, dtype=np.int64) if labels is None else np.asarray(labels)
    weights = np.empty(0) if weights is None else np.asarray(weights, dtype=np.float64)
    for name, array in (("labels", labels), ("weights", weights)):
        if array.shape != (n,) and array.shape != (0,):
            raise ValueError(f"{name} must have shape ({n},), got {array.shape}")
    if labels.dtype.kind not in "iu":
        raise TypeError(f"labels must have an integer dtype, got {labels.dtype}")
    t = tables
    sums, kept = np.zeros(len(candidates) + 1), np.zeros(len(candidates) + 1)
    sizes = np.diff(t.starts)
    n_groups = math.prod(int(sizes[a]) for a in subset)
    cell_starts = np.concatenate([[0], np.cumsum(sizes[candidates])]).astype(np.int64)
    if use_groups(n, len(candidates), n_groups, n_groups * int(cell_starts[-1])):
        dtype = np.float64 if weights.shape[0] else np.int32  # unweighted rows: exact counts in half the memory
        cells, totals = np.zeros((n_groups, int(cell_starts[-1])), dtype=dtype), np.zeros(n_groups, dtype=dtype)
        bad = _group_counts_kernel(codes, labels, weights, subset, sizes[subset], candidates, cell_starts, cells,
                                   totals)
        _grouped_sums_kernel(cells, totals, subset, sizes[subset], candidates, cell_starts, codes.shape[1],
                             t.stacked, t.starts, t.scaled, t.row_max, t.row_range, t.log_prior, t.prior_scaled,
                             t.prior_max, t.prior_range, sums, kept)
    else:
        bad = _candidate_sums_kernel(codes, labels, weights, subset, candidates, t.stacked, t.starts, t.scaled,
                                     t.row_max, t.row_range, t.log_prior, t.prior_scaled, t.prior_max,
                                     t.prior_range, sums, kept)
    if bad:
        raise ValueError(f"codes of {bad} rows lie outside their attribute's rows of the tables (nothing was "
                         "read out of bounds)")
    return sums, kept


def use_groups(n_rows, n_candidates, n_groups, n_cells):
    """Whether to count the rows by subset combination first: when the cells (combinations x candidate
    values) fit in ``GROUP_CELLS`` and are fewer than half the (row, candidate) pairs, which they replace
    as the units scored.

    >>> use_groups(10**6, 20, 1, 220), use_groups(10**6, 16, 11**4, 11**4 * 176), use_groups(1000, 20, 121, 24000)
    (True, True, False)
    """
    return n_cells <= GROUP_CELLS and 2 * n_cells < n_rows * n_candidates


@njit(nogil=True, cache=True)
def _draw_codes_kernel(cdf, y, u, out):
    n_values = cdf.shape[1]
    for i in range(y.shape[0]):
        below = 0
        for m in range(n_values):
            below += cdf[y[i], m] < u[i]
        out[i] = 1 + min(below, n_values - 1)


def draw_codes(cdf, y, u, out):
    """Codes of simulated cases by inverse transform sampling: ``out[i] = 1 + min(#{m: cdf[y_i, m] < u_i},
    M - 1)``, ``cdf`` (K x M) each class's cumulative value probabilities, ``u`` uniform draws."""
    cdf = np.ascontiguousarray(cdf, dtype=np.float64)
    require_array("cdf", cdf, 2)
    y = np.asarray(y, dtype=np.int64)
    u = np.asarray(u, dtype=np.float64)
    require_array("out", out, 1)
    if out.dtype.kind not in "iu":
        raise TypeError(f"out must have an integer dtype, got {out.dtype}")
    if y.shape != u.shape or out.shape != y.shape:
        raise ValueError(f"y, u and out must have the same shape, got {y.shape}, {u.shape}, {out.shape}")
    if y.size and (y.min() < 0 or y.max() >= cdf.shape[0]):
        raise ValueError(f"y holds class positions outside 0..{cdf.shape[0] - 1}")
    if cdf.shape[1] < 1:
        raise ValueError("cdf must have at least one value per class")
    _draw_codes_kernel(cdf, y, u, out)
    return out

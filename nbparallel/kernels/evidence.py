"""Per-attribute evidence of each row: one class's log-likelihood terms minus another's, in one compiled pass
over the rows' codes and Gaussian values, written straight into the output array (each row's two classes
given by the scoring kernels' :func:`~nbparallel.kernels.scoring.two_best_of_rows`).

The pass takes the rows a block at a time (:data:`BLOCK_ROWS`): it sets the block's classes ``c`` and ``c'``,
then fills the output one attribute at a time, so that every inner loop runs over rows (a column-major output
is written in order). With few classes, each attribute's cell is one read from a table of the class pairs'
differences (:func:`class_pairs`, :func:`gaussian_pairs`), indexed by the row's pair ``c * n_classes + c'``;
with many, two reads from the per-class tables."""

import numpy as np
from numba import njit

from nbparallel.kernels.scoring import GAUSSIAN_FASTMATH

BLOCK_ROWS = 1024
"""Rows whose evidence one step of the pass makes, attribute by attribute: their codes, values and output
stay in a core's cache meanwhile."""

PAIR_CELLS = 1 << 16
"""The largest table of class-pair differences (``n_classes ** 2 x`` cells) :func:`evidence_rows` makes
(512 KiB): one read a cell instead of two, while it stays in a core's cache."""


@njit(nogil=True, cache=True, inline="always", fastmath=GAUSSIAN_FASTMATH)
def _gaussian_term(x, mean, half_precision, log_norm):
    """log N(x; mean, var) from the terms :func:`gaussian_terms` makes; 0 for a (class, attribute) without a
    variance (a select, not a branch, as the scoring kernel takes it)."""
    d = x - mean
    term = log_norm + half_precision * d * d
    return term if half_precision != 0.0 else 0.0


@njit(nogil=True, cache=True, inline="always")
def _counted_evidence(codes, a, offset, column, start, n, table, pairs, pair, chosen, other, out):
    """Rows ``start..start + n``'s evidence of the counted attribute whose codes are ``codes[:, a]`` and
    table rows start at ``offset``, into ``out[:, column]``."""
    if pairs.shape[0] > 0:
        for i in range(n):
            out[start + i, column] = pairs[pair[i], offset + codes[start + i, a]]
    else:
        for i in range(n):
            cell = offset + codes[start + i, a]
            out[start + i, column] = table[cell, chosen[start + i]] - table[cell, other[start + i]]


@njit(nogil=True, cache=True, inline="always", fastmath=GAUSSIAN_FASTMATH)
def _gaussian_evidence(gaussian, g, j, column, start, n, terms, term_pairs, pair, chosen, other, out):
    """Rows ``start..start + n``'s evidence of Gaussian attribute ``j``, whose values are ``gaussian[:, g]``,
    into ``out[:, column]``; 0 for a missing value (NaN)."""
    if term_pairs.shape[2] > 0:
        shift, mean_c, precision_c, mean_o, precision_o = term_pairs[j]
        for i in range(n):
            x, p = gaussian[start + i, g], pair[i]
            term = (shift[p] + _gaussian_term(x, mean_c[p], precision_c[p], 0.0)
                    - _gaussian_term(x, mean_o[p], precision_o[p], 0.0))
            out[start + i, column] = term if x == x else 0.0
    else:
        mean, precision, log_norm = terms[j]
        for i in range(n):
            x, c, o = gaussian[start + i, g], chosen[start + i], other[start + i]
            term = (_gaussian_term(x, mean[c], precision[c], log_norm[c])
                    - _gaussian_term(x, mean[o], precision[o], log_norm[o]))
            out[start + i, column] = term if x == x else 0.0


@njit(nogil=True, cache=True, fastmath=GAUSSIAN_FASTMATH)
def _evidence_kernel(first, second, offsets, table, pairs, log_prior, best, runner_up, for_class, against,
                     gaussian, gaussian_columns, terms, term_pairs, columns, chosen, other, out):
    """Each row's classes and its evidence for them into ``out``, a block of rows at a time: ``c`` is
    ``for_class``, else the row's best class; ``c'`` is ``against``, else the best class other than ``c``. A
    counted attribute reads ``pairs`` (row ``c * n_classes + c'``: the table's column c minus column c') when it
    has rows, else ``table``; a Gaussian one ``term_pairs`` likewise, else ``terms``."""
    n_rows, n_classes, last = out.shape[0], log_prior.shape[0], out.shape[1] - 1
    n_first, n_counted = first.shape[1], first.shape[1] + second.shape[1]
    pair = np.empty(BLOCK_ROWS, np.int64)
    for start in range(0, n_rows, BLOCK_ROWS):
        n = min(BLOCK_ROWS, n_rows - start)
        for i in range(n):
            c = for_class if for_class >= 0 else best[start + i]
            o = against if against >= 0 else (runner_up[start + i] if best[start + i] == c else best[start + i])
            chosen[start + i], other[start + i], pair[i] = c, o, c * n_classes + o
            out[start + i, last] = log_prior[c] - log_prior[o]
        for a in range(n_first):
            _counted_evidence(first, a, offsets[a], columns[a], start, n, table, pairs, pair, chosen, other, out)
        for b in range(n_counted - n_first):
            _counted_evidence(second, b, offsets[n_first + b], columns[n_first + b], start, n, table, pairs, pair,
                              chosen, other, out)
        for j in range(gaussian_columns.shape[0]):
            _gaussian_evidence(gaussian, gaussian_columns[j], j, columns[n_counted + j], start, n, terms,
                               term_pairs, pair, chosen, other, out)


def class_pairs(table):
    """The table's column differences of every class pair, shape (n_classes ** 2, n_cells), row
    ``c * n_classes + c'`` holding column c minus column c'; no rows when larger than :data:`PAIR_CELLS`."""
    n_cells, n_classes = table.shape
    if n_classes * n_classes * n_cells > PAIR_CELLS:
        return np.empty((0, n_cells))
    return np.ascontiguousarray((table.T[:, None, :] - table.T[None, :, :]).reshape(n_classes * n_classes, n_cells))


def gaussian_terms(theta, var):
    """The Gaussian attributes' terms, shape (g, 3, n_classes): per attribute, ``(mean, half_precision,
    log_norm)`` of each class, log N(x; theta, var) being ``log_norm + half_precision * (x - mean) ** 2``; all
    three 0 where a variance is NaN (no data), so that the attribute adds nothing there (as
    :func:`nbparallel.kernels.scoring.gaussian_log_likelihoods` scores)."""
    theta, var = np.asarray(theta, dtype=np.float64), np.asarray(var, dtype=np.float64)
    usable = ~np.isnan(var)
    safe = np.where(usable, var, 1.0)
    with np.errstate(divide="ignore"):
        half_precision = np.where(usable, -0.5 / safe, 0.0)
        log_norm = np.where(usable, -0.5 * np.log(2.0 * np.pi * safe), 0.0)
    return np.ascontiguousarray(np.stack([np.where(usable, theta, 0.0), half_precision, log_norm]).transpose(2, 0, 1))


def gaussian_pairs(terms):
    """The Gaussian terms of every class pair, shape (g, 5, n_classes ** 2): per attribute, at column
    ``c * n_classes + c'``, ``log_norm[c] - log_norm[c']``, then ``mean[c]``, ``half_precision[c]``,
    ``mean[c']``, ``half_precision[c']``; no columns when larger than :data:`PAIR_CELLS`."""
    g, _, n_classes = terms.shape
    if 5 * g * n_classes * n_classes > PAIR_CELLS:
        return np.empty((g, 5, 0))
    mean, half_precision, log_norm = (terms[:, t] for t in range(3))
    chosen, other = np.divmod(np.arange(n_classes * n_classes), n_classes)
    return np.ascontiguousarray(np.stack([log_norm[:, chosen] - log_norm[:, other], mean[:, chosen],
                                          half_precision[:, chosen], mean[:, other], half_precision[:, other]],
                                         axis=1))


def evidence_rows(first, second, table, offsets, log_prior, best, runner_up, for_class, against, columns, out,
                  gaussian=None, gaussian_columns=None, theta=None, var=None):
    """Write each row's evidence for class c against c' into ``out``; return ``(c, c')`` per row.

    Parameters
    ----------
    first, second : ndarray of unsigned int, shape (n_rows, n_first) and (n_rows, n_second)
        The rows' codes, as :func:`nbparallel.kernels.scoring.score_rows` reads them: attribute ``a``
        (``first``'s, then ``second``'s) reads table rows ``offsets[a] + code``.
    table : ndarray of float64, shape (n_cells, n_classes)
        The log table.
    offsets : sequence of int
        Each counted attribute's first table row.
    log_prior : ndarray of float64, shape (n_classes,)
        Log class priors.
    best, runner_up : ndarray of int64, shape (n_rows,), or None
        Each row's best and second-best class (:func:`nbparallel.kernels.scoring.two_best_of_rows`); None
        when ``for_class`` and ``against`` are both given (then they are not read).
    for_class, against : int
        Class ``c`` (negative: the row's best class) and ``c'`` (negative: the best class other than ``c``).
    columns : sequence of int
        The column of ``out`` of each counted attribute, then of each Gaussian attribute.
    out : ndarray of float64, shape (n_rows, n_columns)
        Written in place (any layout; column-major is written fastest): ``table[cell, c] - table[cell, c']``
        per counted attribute, the Gaussian log-density difference per Gaussian attribute,
        ``log_prior[c] - log_prior[c']`` in the last column.
    gaussian : ndarray of float64 or float32, shape (n_rows, n_values), optional
        The Gaussian attributes' values (NaN: missing, adds nothing), in its columns ``gaussian_columns``.
    gaussian_columns : sequence of int, optional
        The columns of ``gaussian`` holding the ``g`` Gaussian attributes, in the order of ``theta``'s.
    theta, var : ndarray of float64, shape (n_classes, g), optional
        Their means and variances.

    Returns
    -------
    chosen, other : ndarray of int64, shape (n_rows,)
        ``c`` and ``c'`` of each row.

    Examples
    --------
    >>> table = np.log(np.array([[0.5, 0.5], [0.8, 0.2], [0.2, 0.8]]))
    >>> codes, none = np.array([[1], [2]], np.uint8), np.empty((2, 0), np.uint8)
    >>> out = np.empty((2, 2))
    >>> best, runner_up = np.array([0, 1]), np.array([1, 0])
    >>> c, o = evidence_rows(codes, none, table, [0], np.log([0.5, 0.5]), best, runner_up, -1, -1, [0], out)
    >>> c.tolist(), out.round(3).tolist()
    ([0, 1], [[1.386, 0.0], [1.386, 0.0]])
    """
    n_rows, n_classes = first.shape[0], len(log_prior)
    if gaussian is None:
        gaussian, gaussian_columns = np.empty((n_rows, 0)), []
        theta = var = np.empty((n_classes, 0))
    if best is None:
        best = runner_up = np.empty(0, np.int64)
    terms = gaussian_terms(theta, var)
    chosen, other = np.empty(n_rows, np.int64), np.empty(n_rows, np.int64)
    table = np.asarray(table, np.float64)
    _evidence_kernel(first, second, np.asarray(offsets, np.int64), table, class_pairs(table),
                     np.asarray(log_prior, np.float64), np.asarray(best, np.int64), np.asarray(runner_up, np.int64),
                     int(for_class), int(against), gaussian, np.asarray(gaussian_columns, np.int64), terms,
                     gaussian_pairs(terms), np.asarray(columns, np.int64), chosen, other, out)
    return chosen, other

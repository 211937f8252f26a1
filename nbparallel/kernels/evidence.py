"""Per-attribute evidence of each row: one class's log-likelihood terms minus another's, in one compiled pass
over the rows' codes and Gaussian values, written straight into the output array (the two classes of each
row found from its joint log-likelihoods as the scoring kernels give them)."""

import numpy as np
from numba import njit

from nbparallel.kernels.scoring import GAUSSIAN_FASTMATH


@njit(nogil=True, cache=True, inline="always", fastmath=GAUSSIAN_FASTMATH)
def _gaussian_term(x, mean, half_precision, log_norm):
    """log N(x; mean, var) from the terms :func:`gaussian_terms` makes; 0 for a missing value (NaN) or a
    (class, attribute) without a variance (a select, not a branch, as the scoring kernel takes it)."""
    d = x - mean
    term = log_norm + half_precision * d * d
    return term if (x == x and half_precision != 0.0) else 0.0


@njit(nogil=True, cache=True, inline="always")
def _row_classes(joint, i, order, for_class, against):
    """Row ``i``'s ``c`` (``for_class``, or its largest joint log-likelihood, ties to the class first in
    ``order``) and ``c'`` (``against``, or the largest other class)."""
    c = for_class
    if c < 0:
        c = order[0]
        for q in range(1, order.shape[0]):
            if joint[i, order[q]] > joint[i, c]:
                c = order[q]
    o = against
    if o < 0:
        for q in range(order.shape[0]):
            k = order[q]
            if k != c and (o < 0 or joint[i, k] > joint[i, o]):
                o = k
    return c, o


@njit(nogil=True, cache=True, fastmath=GAUSSIAN_FASTMATH)
def _evidence_kernel(first, second, table, pairs, offsets, log_prior, joint, order, for_class, against, gaussian,
                     gaussian_columns, mean, half_precision, log_norm, columns, chosen, other, out):
    """Each row's classes and its evidence for them into ``out``; a counted attribute's from ``pairs``
    (row ``c * n_classes + c'``: the table's column c minus column c') when it has rows, else from ``table``."""
    n_first, n_second, g = first.shape[1], second.shape[1], gaussian_columns.shape[0]
    n_classes, last, paired = log_prior.shape[0], out.shape[1] - 1, pairs.shape[0] > 0
    for i in range(first.shape[0]):
        c, o = _row_classes(joint, i, order, for_class, against)
        chosen[i], other[i] = c, o
        if paired:
            difference = pairs[c * n_classes + o]
            for a in range(n_first):
                out[i, columns[a]] = difference[offsets[a] + first[i, a]]
            for b in range(n_second):
                out[i, columns[n_first + b]] = difference[offsets[n_first + b] + second[i, b]]
        else:
            for a in range(n_first):
                cell = offsets[a] + first[i, a]
                out[i, columns[a]] = table[cell, c] - table[cell, o]
            for b in range(n_second):
                cell = offsets[n_first + b] + second[i, b]
                out[i, columns[n_first + b]] = table[cell, c] - table[cell, o]
        for j in range(g):
            x = gaussian[i, gaussian_columns[j]]
            out[i, columns[n_first + n_second + j]] = (
                _gaussian_term(x, mean[c, j], half_precision[c, j], log_norm[c, j])
                - _gaussian_term(x, mean[o, j], half_precision[o, j], log_norm[o, j]))
        out[i, last] = log_prior[c] - log_prior[o]


PAIR_CELLS = 1 << 16
"""The largest table of class-pair differences (``n_classes ** 2 x`` table rows) :func:`evidence_rows` makes
(512 KiB): one read a cell instead of two, while it stays in a core's cache."""


def class_pairs(table):
    """The table's column differences of every class pair, shape (n_classes ** 2, n_cells), row
    ``c * n_classes + c'`` holding column c minus column c'; no rows when larger than :data:`PAIR_CELLS`."""
    n_cells, n_classes = table.shape
    if n_classes * n_classes * n_cells > PAIR_CELLS:
        return np.empty((0, n_cells))
    return np.ascontiguousarray((table.T[:, None, :] - table.T[None, :, :]).reshape(n_classes * n_classes, n_cells))


def gaussian_terms(theta, var):
    """``(mean, half_precision, log_norm)``, each (n_classes, g): log N(x; theta, var) is
    ``log_norm + half_precision * (x - mean) ** 2``; all three 0 where a variance is NaN (no data), so that
    the attribute adds nothing there (as :func:`nbparallel.kernels.scoring.gaussian_log_likelihoods` scores)."""
    theta, var = np.asarray(theta, dtype=np.float64), np.asarray(var, dtype=np.float64)
    usable = ~np.isnan(var)
    safe = np.where(usable, var, 1.0)
    with np.errstate(divide="ignore"):
        half_precision = np.where(usable, -0.5 / safe, 0.0)
        log_norm = np.where(usable, -0.5 * np.log(2.0 * np.pi * safe), 0.0)
    return np.where(usable, theta, 0.0), half_precision, log_norm


def evidence_rows(first, second, table, offsets, log_prior, joint, order, for_class, against, columns, out,
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
    joint : ndarray of float64, shape (n_rows, n_classes), or None
        The rows' joint log-likelihoods (:func:`nbparallel.kernels.scoring.score_rows`), from which ``c``
        and ``c'`` are found; None when both are given (then it is not read).
    order : sequence of int
        The classes by preference on ties.
    for_class, against : int
        Class ``c`` (negative: the row's largest joint log-likelihood) and ``c'`` (negative: the largest
        other class).
    columns : sequence of int
        The column of ``out`` of each counted attribute, then of each Gaussian attribute.
    out : ndarray of float64, shape (n_rows, n_columns)
        Written in place: ``table[cell, c] - table[cell, c']`` per counted attribute, the Gaussian
        log-density difference per Gaussian attribute, ``log_prior[c] - log_prior[c']`` in the last column.
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
    >>> prior = np.log([0.5, 0.5])
    >>> joint = prior + table[codes[:, 0]]
    >>> c, o = evidence_rows(codes, none, table, [0], prior, joint, [0, 1], -1, -1, [0], out)
    >>> c.tolist(), out.round(3).tolist()
    ([0, 1], [[1.386, 0.0], [1.386, 0.0]])
    """
    n_rows, n_classes = first.shape[0], len(log_prior)
    if gaussian is None:
        gaussian, gaussian_columns = np.empty((n_rows, 0)), []
        theta = var = np.empty((n_classes, 0))
    mean, half_precision, log_norm = gaussian_terms(theta, var)
    chosen, other = np.empty(n_rows, np.int64), np.empty(n_rows, np.int64)
    table = np.asarray(table, np.float64)
    joint = np.empty((0, n_classes)) if joint is None else np.asarray(joint, np.float64)
    _evidence_kernel(first, second, table, class_pairs(table), np.asarray(offsets, np.int64),
                     np.asarray(log_prior, np.float64), joint, np.asarray(order, np.int64), int(for_class),
                     int(against), gaussian, np.asarray(gaussian_columns, np.int64), mean, half_precision, log_norm,
                     np.asarray(columns, np.int64), chosen, other, out)
    return chosen, other

"""Per-attribute evidence of each row: one class's log-likelihood terms minus another's, in one compiled pass
over the rows' codes and Gaussian values, written straight into the output array (each row's two classes
given by the scoring kernels' :func:`~nbparallel.kernels.scoring.two_best_of_rows`). With few classes, each
attribute's cell is one read from a table of the class pairs' differences (:func:`class_pairs`,
:func:`gaussian_pairs`), indexed by the row's pair ``c * n_classes + c'``; with many, two reads from the
per-class tables."""

import numpy as np
from numba import njit

from nbparallel.kernels.scoring import GAUSSIAN_FASTMATH

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


@njit(nogil=True, cache=True, fastmath=GAUSSIAN_FASTMATH)
def _evidence_kernel(first, second, offsets, table, pairs, log_prior, chosen, other, gaussian, gaussian_columns,
                     terms, term_pairs, columns, out):
    """Each row's evidence for its classes ``chosen`` against ``other`` into ``out``. A counted attribute
    reads ``pairs`` (row ``c * n_classes + c'``: the table's column c minus column c') when it has rows, else
    ``table``; a Gaussian one ``term_pairs`` likewise, else ``terms``."""
    n_first, n_second, g = first.shape[1], second.shape[1], gaussian_columns.shape[0]
    n_classes, last = log_prior.shape[0], out.shape[1] - 1
    paired, terms_paired = pairs.shape[0] > 0, term_pairs.shape[0] > 0
    for i in range(out.shape[0]):
        c, o = chosen[i], other[i]
        p = c * n_classes + o
        if paired:
            difference = pairs[p]
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
            if terms_paired:
                term = (term_pairs[p, j, 0] + _gaussian_term(x, term_pairs[p, j, 1], term_pairs[p, j, 2], 0.0)
                        - _gaussian_term(x, term_pairs[p, j, 3], term_pairs[p, j, 4], 0.0))
            else:
                term = (_gaussian_term(x, terms[0, j, c], terms[1, j, c], terms[2, j, c])
                        - _gaussian_term(x, terms[0, j, o], terms[1, j, o], terms[2, j, o]))
            out[i, columns[n_first + n_second + j]] = term if x == x else 0.0
        out[i, last] = log_prior[c] - log_prior[o]


def class_pairs(table):
    """The table's column differences of every class pair, shape (n_classes ** 2, n_cells), row
    ``c * n_classes + c'`` holding column c minus column c'; no rows when larger than :data:`PAIR_CELLS`."""
    n_cells, n_classes = table.shape
    if n_classes * n_classes * n_cells > PAIR_CELLS:
        return np.empty((0, n_cells))
    return np.ascontiguousarray((table.T[:, None, :] - table.T[None, :, :]).reshape(n_classes * n_classes, n_cells))


def gaussian_terms(theta, var):
    """The Gaussian attributes' terms, shape (3, g, n_classes): ``(mean, half_precision, log_norm)``, each
    (g, n_classes), log N(x; theta, var) being ``log_norm + half_precision * (x - mean) ** 2``; all three 0
    where a variance is NaN (no data), so that the attribute adds nothing there (as
    :func:`nbparallel.kernels.scoring.gaussian_log_likelihoods` scores)."""
    theta, var = np.asarray(theta, dtype=np.float64).T, np.asarray(var, dtype=np.float64).T
    usable = ~np.isnan(var)
    safe = np.where(usable, var, 1.0)
    with np.errstate(divide="ignore"):
        half_precision = np.where(usable, -0.5 / safe, 0.0)
        log_norm = np.where(usable, -0.5 * np.log(2.0 * np.pi * safe), 0.0)
    return np.ascontiguousarray(np.stack([np.where(usable, theta, 0.0), half_precision, log_norm]))


def gaussian_pairs(terms):
    """The Gaussian terms of every class pair, shape (n_classes ** 2, g, 5): at row ``c * n_classes + c'``, per
    attribute, ``log_norm[c] - log_norm[c']``, ``mean[c]``, ``half_precision[c]``, ``mean[c']`` and
    ``half_precision[c']``; no rows when larger than :data:`PAIR_CELLS`."""
    _, g, n_classes = terms.shape
    if 5 * g * n_classes * n_classes > PAIR_CELLS:
        return np.empty((0, g, 5))
    mean, half_precision, log_norm = terms
    chosen, other = np.divmod(np.arange(n_classes * n_classes), n_classes)
    return np.ascontiguousarray(np.stack([log_norm[:, chosen] - log_norm[:, other], mean[:, chosen],
                                          half_precision[:, chosen], mean[:, other], half_precision[:, other]],
                                         axis=2).transpose(1, 0, 2))


def evidence_rows(first, second, table, offsets, log_prior, chosen, other, columns, out, gaussian=None,
                  gaussian_columns=None, theta=None, var=None):
    """Write each row's evidence for its class ``chosen`` against ``other`` into ``out``.

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
    chosen, other : ndarray of int64, shape (n_rows,)
        Each row's classes ``c`` and ``c'`` (positions in the table's columns).
    columns : sequence of int
        The column of ``out`` of each counted attribute, then of each Gaussian attribute.
    out : ndarray of float64, shape (n_rows, n_columns)
        Written in place (a row-major output is written in order): ``table[cell, c] - table[cell, c']`` per
        counted attribute, the Gaussian log-density difference per Gaussian attribute, ``log_prior[c] -
        log_prior[c']`` in the last column.
    gaussian : ndarray of float64 or float32, shape (n_rows, n_values), optional
        The Gaussian attributes' values (NaN: missing, adds nothing), in its columns ``gaussian_columns``.
    gaussian_columns : sequence of int, optional
        The columns of ``gaussian`` holding the ``g`` Gaussian attributes, in the order of ``theta``'s.
    theta, var : ndarray of float64, shape (n_classes, g), optional
        Their means and variances.

    Returns
    -------
    out

    Examples
    --------
    >>> table = np.log(np.array([[0.5, 0.5], [0.8, 0.2], [0.2, 0.8]]))
    >>> codes, none = np.array([[1], [2]], np.uint8), np.empty((2, 0), np.uint8)
    >>> chosen, other = np.array([0, 1]), np.array([1, 0])
    >>> out = evidence_rows(codes, none, table, [0], np.log([0.5, 0.5]), chosen, other, [0], np.empty((2, 2)))
    >>> out.round(3).tolist()
    [[1.386, 0.0], [1.386, 0.0]]
    """
    n_rows, n_classes = first.shape[0], len(log_prior)
    if gaussian is None:
        gaussian, gaussian_columns = np.empty((n_rows, 0)), []
        theta = var = np.empty((n_classes, 0))
    terms = gaussian_terms(theta, var)
    table = np.asarray(table, np.float64)
    _evidence_kernel(first, second, np.asarray(offsets, np.int64), table, class_pairs(table),
                     np.asarray(log_prior, np.float64), np.asarray(chosen, np.int64), np.asarray(other, np.int64),
                     gaussian, np.asarray(gaussian_columns, np.int64), terms, gaussian_pairs(terms),
                     np.asarray(columns, np.int64), out)
    return out

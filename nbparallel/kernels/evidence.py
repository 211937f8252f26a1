"""Per-attribute evidence of each row: table cells of one class minus another's, in one pass over the codes."""

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def _evidence_kernel(first, second, table, offsets, log_prior, joint, order, for_class, against, columns, out,
                     chosen, other):
    n_first = first.shape[1]
    for i in range(first.shape[0]):
        c = for_class
        if c < 0:
            c = order[0]
            for k in order[1:]:
                if joint[i, k] > joint[i, c]:
                    c = k
        o = against
        if o < 0:
            for k in order:
                if k != c and (o < 0 or joint[i, k] > joint[i, o]):
                    o = k
        chosen[i] = c
        other[i] = o
        for a in range(n_first):
            cell = offsets[a] + first[i, a]
            out[i, columns[a]] = table[cell, c] - table[cell, o]
        for b in range(second.shape[1]):
            cell = offsets[n_first + b] + second[i, b]
            out[i, columns[n_first + b]] = table[cell, c] - table[cell, o]
        out[i, out.shape[1] - 1] = log_prior[c] - log_prior[o]


def evidence_rows(first, second, table, offsets, log_prior, joint, order, for_class, against, columns, out):
    """Write each row's evidence for class c against c' into ``out``; return ``(c, c')`` per row.

    Attribute ``a`` of the codes (``first`` then ``second``, as
    :func:`nbparallel.kernels.scoring.score_rows` reads them) writes
    ``table[offsets[a] + code, c] - table[offsets[a] + code, c']`` into column ``columns[a]`` of ``out``;
    the last column gets ``log_prior[c] - log_prior[c']``. ``c`` is ``for_class``, or (when negative) the
    row's largest ``joint``, ties to the class first in ``order``; ``c'`` is ``against``, or (when
    negative) the largest other class.
    """
    n_rows = first.shape[0]
    chosen, other = np.empty(n_rows, np.int64), np.empty(n_rows, np.int64)
    _evidence_kernel(first, second, table, np.asarray(offsets, np.int64), log_prior, joint,
                     np.asarray(order, np.int64), int(for_class), int(against), np.asarray(columns, np.int64), out,
                     chosen, other)
    return chosen, other

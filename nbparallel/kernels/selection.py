"""Compiled loops of SPSS forward feature selection: every candidate attribute's log-likelihood sums in one
pass over a partition's codes."""

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def _log_sum_exp_row(scores, extra):
    """log sum_k exp(scores[k] + extra[k])."""
    top = -np.inf
    for k in range(scores.shape[0]):
        top = max(top, scores[k] + extra[k])
    total = 0.0
    for k in range(scores.shape[0]):
        total += np.exp(scores[k] + extra[k] - top)
    return top + np.log(total)


@njit(nogil=True, cache=True)
def candidate_sums_kernel(codes, w, base, present, columns, stacked, starts, sums, kept):
    zero = np.zeros(base.shape[1])
    for i in range(codes.shape[0]):
        if w[i] == 0:
            continue
        if present[i]:
            sums[0] += w[i] * _log_sum_exp_row(base[i], zero)
            kept[0] += w[i]
        for j in range(columns.shape[0]):
            code = codes[i, columns[j]]
            if code == 0 and not present[i]:
                continue  # every predictor of the subset is missing: the term is ignored
            sums[j + 1] += w[i] * _log_sum_exp_row(base[i], stacked[starts[j] + code])
            kept[j + 1] += w[i]

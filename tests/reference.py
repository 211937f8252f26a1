"""Independent plain-Python references: counting and naive Bayes with dicts and loops.

Nothing here imports nbparallel; the tests compare the package against it.
"""

import math
from collections import Counter


def is_missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


def equal_width_edges(lo, hi, n_bins):
    """Inner edges lo + (hi - lo) * i / n_bins, i = 1..n_bins-1 (as the SPSS document's equal widths)."""
    return [lo + (hi - lo) * i / n_bins for i in range(1, n_bins)]


def bin_of(x, edges):
    """Right-closed bins: the number of edges strictly below x."""
    return sum(1 for e in edges if e < x)


def plain_count(rows, labels, kinds, n_bins=10, weights=None):
    """Count like the SPSS document, row by row.

    Parameters
    ----------
    rows : list of lists
        Attribute values per row (None or NaN = missing).
    labels : list
        Target per row (None = missing).
    kinds : list of "categorical" / "numeric"

    Returns
    -------
    dict with ``classes``, ``vocab`` (per attribute: sorted categories or bin
    edges), ``class_counts`` (Counter, rows with at least one known attribute),
    ``cells`` (Counter of (attribute, value index, class), value index -1 for
    missing) and ``n_missing_target``.
    """
    weights = [1.0] * len(rows) if weights is None else list(weights)
    live = [i for i in range(len(rows)) if weights[i] > 0]
    classes = sorted({labels[i] for i in live if not is_missing(labels[i])})
    vocab = []
    for a, kind in enumerate(kinds):
        seen = [rows[i][a] for i in live if not is_missing(rows[i][a])]
        if kind == "categorical":
            vocab.append(sorted(set(seen)))
        else:
            vocab.append(equal_width_edges(min(seen), max(seen), n_bins) if seen else [0.0] * (n_bins - 1))
    class_counts, cells, n_missing_target = Counter(), Counter(), 0
    for row, label, w in zip(rows, labels, weights):
        if is_missing(label):
            n_missing_target += 1
            continue
        if w == 0:
            continue
        if not all(is_missing(v) for v in row):
            class_counts[label] += w
        for a, (v, kind) in enumerate(zip(row, kinds)):
            if is_missing(v):
                index = -1
            elif kind == "categorical":
                index = vocab[a].index(v)
            else:
                index = bin_of(v, vocab[a])
            cells[(a, index, label)] += w
    return {
        "classes": classes,
        "vocab": vocab,
        "class_counts": class_counts,
        "cells": cells,
        "n_missing_target": n_missing_target,
    }


def spss_posteriors(counts, row, kinds, lam, f):
    """Posterior P(class | row) by the SPSS formulas, from plain counts (no empty bins)."""
    classes, vocab = counts["classes"], counts["vocab"]
    N = sum(counts["class_counts"][c] for c in classes)
    scores = []
    for c in classes:
        logp = math.log((counts["class_counts"][c] + lam) / (N + len(classes) * lam))
        for a, (v, kind) in enumerate(zip(row, kinds)):
            n_values = len(vocab[a]) if kind == "categorical" else len(vocab[a]) + 1
            if is_missing(v) or (kind == "categorical" and v not in vocab[a]):
                continue
            index = vocab[a].index(v) if kind == "categorical" else bin_of(v, vocab[a])
            N_jk = sum(counts["cells"][(a, m, c)] for m in range(n_values))
            logp += math.log((counts["cells"][(a, index, c)] + f) / (N_jk + n_values * f))
        scores.append(logp)
    top = max(scores)
    z = sum(math.exp(s - top) for s in scores)
    return [math.exp(s - top) / z for s in scores]

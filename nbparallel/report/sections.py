"""Which report draws a model (its ``report_sections``), and what its sections share: labels of values and
bins, and the mutual information of an attribute and the class."""

from __future__ import annotations

import numpy as np

from nbparallel.data.columns import CATEGORICAL
from nbparallel.models.registry import kinds_where, names_of


def bin_labels(edges):
    """Short labels of the bins under inner ``edges``: "<= hi", "(lo, hi]", "> lo".

    >>> bin_labels([1.5, 3.0]), bin_labels([])
    (['<= 1.5', '(1.5, 3]', '> 3'], ['all values'])
    """
    if not len(edges):
        return ["all values"]
    bounds = [-np.inf, *edges, np.inf]
    return [f"<= {hi:.3g}" if not np.isfinite(lo) else f"> {lo:.3g}" if not np.isfinite(hi) else f"({lo:.3g}, {hi:.3g}]"
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def value_labels(at, fit):
    """Short labels of a counted attribute's values: categories, or bins."""
    return fit.labels if at.kind == CATEGORICAL else bin_labels(fit.edges)


def report_sections(model):
    """What the report draws of ``model``, as the model says (its ``report_sections()``): a dict with
    ``kind`` ("naive Bayes", "text", "clusters" or "semi-naive": AODE and TAN), ``model`` (the model drawn: a boosted model's first
    learner) and, by kind, ``note`` (said under the title) or ``name`` (a text model's kind); TypeError for
    objects that have no report."""
    sections = getattr(model, "report_sections", None)
    if not callable(sections):
        drawn = names_of(kinds_where(lambda kind: kind.report), "or")
        raise TypeError(f"a report needs a {drawn} model, got {type(model).__name__}")
    return sections()


def report_kind(model):
    """Which report draws ``model``: "naive Bayes" (boosted models too), "text", "clusters" or "semi-naive"; TypeError
    for other objects."""
    return report_sections(model)["kind"]


def mutual_information(cells):
    """Mutual information (bits) of attribute and class from value-by-class counts.

    >>> round(mutual_information(np.array([[5., 0.], [0., 5.]])), 6)
    1.0
    """
    total = cells.sum()
    if total <= 0:
        return 0.0
    joint = cells / total
    outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
    nz = joint > 0
    return float(np.sum(joint[nz] * np.log2(joint[nz] / outer[nz])))

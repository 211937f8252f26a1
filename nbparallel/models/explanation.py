"""Per-row evidence of a naive Bayes prediction: each attribute's log-likelihood ratio for one class
against another.

Naive Bayes' log-odds of class c against c' is an exact sum, ``log pi_c - log pi_c'`` plus one term
``log P(x_j | c) - log P(x_j | c')`` per attribute (Elkan's weights of evidence). :func:`explain_part`
gives those terms for the rows of one partition, read from the same codes and log table the scoring
kernels read (:class:`~nbparallel.models.base.ScoringInputs`), so that each row's terms sum to its
``predict_log_proba`` difference. A missing value (code 0, whose table row is zeros) adds nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nbparallel.kernels import scoring

PRIOR = "(prior)"
"""The name of the column of the class priors' log ratio."""


def class_index(model, label, name):
    """The position in ``model.classes_`` of class ``label`` (None stays None); ValueError naming
    ``name`` when the model has no such class."""
    if label is None:
        return None
    found = np.flatnonzero(np.asarray(model.classes_) == label)
    if not len(found):
        raise ValueError(f"{name}={label!r} is not a class of the model; classes are {list(model.classes_)}")
    return int(found[0])


def chosen_classes(joint, for_class, against):
    """``(c, c_other)`` per row: ``for_class`` (default: the best class) against ``against`` (default: the
    best class other than c), as positions in the classes."""
    n_rows = joint.shape[0]
    ranked = np.argsort(-joint, axis=1, kind="stable")
    c = ranked[:, 0] if for_class is None else np.full(n_rows, for_class)
    if against is not None:
        return c, np.full(n_rows, against)
    masked = joint.copy()
    masked[np.arange(n_rows), c] = -np.inf
    return c, np.argmax(masked, axis=1)


def explain_part(model, X, for_class, against):
    """The evidence of one partition's rows (a DataFrame, columns as :meth:`explain` documents)."""
    inputs = model.scoring_inputs(X)
    joint = inputs.scores(scoring.JOINT)
    if joint.shape[1] < 2:
        raise ValueError("explain needs a model of at least two classes")
    c, other = chosen_classes(joint, for_class, against)
    if np.any(c == other):
        raise ValueError("for_class and against name the same class")
    rows = np.arange(len(c))
    columns = {}
    codes = np.hstack([inputs.first.astype(np.int64), inputs.second.astype(np.int64)])
    for a, name in enumerate(model.counted_attribute_names()):
        cells = inputs.offsets[a] + codes[:, a]
        columns[name] = inputs.table[cells, c] - inputs.table[cells, other]
    for name, terms in model.gaussian_terms(X).items():
        columns[name] = terms[rows, c] - terms[rows, other]
    order = [name for name in model.explained_features() if name in columns]
    frame = pd.DataFrame({name: columns[name] for name in order})
    frame[PRIOR] = inputs.log_prior[c] - inputs.log_prior[other]
    return frame

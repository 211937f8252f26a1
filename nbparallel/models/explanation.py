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

from nbparallel.kernels import scoring
from nbparallel.kernels.evidence import evidence_rows

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


def explain_part(model, X, for_class, against, out=None):
    """The evidence of one partition's rows, written into ``out`` (rows x (attributes + 1), then None) or
    returned as an array (columns as :meth:`explain` documents)."""
    inputs = model.scoring_inputs(X)
    if len(inputs.log_prior) < 2:
        raise ValueError("explain needs a model of at least two classes")
    names = model.explained_features()
    column = {name: j for j, name in enumerate(names)}
    given = out is not None
    out = np.empty((len(inputs.first), len(names) + 1)) if out is None else out
    counted = [column[name] for name in model.counted_attribute_names()]
    chosen, other = evidence_rows(inputs.first, inputs.second, inputs.table, inputs.offsets, inputs.log_prior,
                                  inputs.scores(scoring.JOINT), inputs.order, -1 if for_class is None else for_class,
                                  -1 if against is None else against, counted, out)
    for name, evidence in model.gaussian_evidence(X, chosen, other).items():
        out[:, column[name]] = evidence
    return None if given else out


def evidence_columns(model):
    """The columns of :meth:`explain`: the attributes in input order, then ``(prior)``."""
    return [*model.explained_features(), PRIOR]

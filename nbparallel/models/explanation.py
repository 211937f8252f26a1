"""Per-row evidence of a naive Bayes prediction: each attribute's log-likelihood ratio for one class
against another.

Naive Bayes' log-odds of class c against c' is an exact sum, ``log pi_c - log pi_c'`` plus one term
``log P(x_j | c) - log P(x_j | c')`` per attribute (Elkan's weights of evidence). :func:`explain_part`
gives those terms for the rows of one partition, read from the same codes and log table the scoring
kernels read (:class:`~nbparallel.models.base.ScoringInputs`) and the Gaussian values, so that each row's
terms sum to its ``predict_log_proba`` difference. A missing value (code 0, whose table row is zeros) adds nothing.
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
    returned as an array (columns as :meth:`explain` documents): one compiled pass over the rows
    (:func:`~nbparallel.kernels.evidence.evidence_rows`) after the scoring kernels' pass that finds each
    row's classes (the joint log-likelihoods :meth:`predict` reads)."""
    inputs, gaussian = model.explanation_inputs(X)
    if len(inputs.log_prior) < 2:
        raise ValueError("explain needs a model of at least two classes")
    names = model.explained_features()
    column = {name: j for j, name in enumerate(names)}
    given = out is not None
    out = np.empty((len(inputs.first), len(names) + 1)) if out is None else out
    columns = [column[name] for name in (*model.counted_attribute_names(), *model.gaussian_features_)]
    values, value_columns, theta, var = gaussian if gaussian is not None else (None, None, None, None)
    joint = inputs.scores(scoring.JOINT) if for_class is None or against is None else None
    evidence_rows(inputs.first, inputs.second, inputs.table, inputs.offsets, inputs.log_prior, joint, inputs.order,
                  -1 if for_class is None else for_class, -1 if against is None else against, columns, out,
                  values, value_columns, theta, var)
    return None if given else out


def evidence_columns(model):
    """The columns of :meth:`explain`: the attributes in input order, then ``(prior)``."""
    return [*model.explained_features(), PRIOR]

"""Per-row evidence of a naive Bayes prediction: each attribute's log-likelihood ratio for one class
against another.

Naive Bayes' log-odds of class c against c' is an exact sum, ``log pi_c - log pi_c'`` plus one term
``log P(x_j | c) - log P(x_j | c')`` per attribute (Elkan's weights of evidence). :func:`explain_part`
gives those terms for the rows of one partition, read from the same codes and log table the scoring
kernels read (:class:`~nbparallel.models.base.ScoringInputs`) and the Gaussian values, so that each row's
terms sum to its ``predict_log_proba`` difference. A missing value (code 0, whose table row is zeros) adds
nothing.

A text model (:class:`~nbparallel.models.text.TextNaiveBayes`) has one term per feature, most of them absent
from a row: :func:`explain_terms` lists each row's top terms by absolute evidence, then the rest summed and
the prior, in a long frame (:data:`TERM_COLUMNS`) whose entries of a row sum to its log-odds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from nbparallel.engine import execution
from nbparallel.kernels.evidence import evidence_rows

PRIOR = "(prior)"
"""The name of the column of the class priors' log ratio."""

CLASS = "(class)"
"""The column of :meth:`explain` naming each row's class ``c``, whose evidence the row gives."""

VERSUS = "(versus)"
"""The column of :meth:`explain` naming each row's class ``c'``, against which ``c`` is weighed."""

LOG_ODDS = "(log-odds)"
"""The column of :meth:`explain` holding each row's ``log P(c | x) - log P(c' | x)``: the sum of its attributes'
cells and ``(prior)``."""


def class_index(model, label, name):
    """The position in ``model.classes_`` of class ``label`` (None stays None); ValueError naming
    ``name`` when the model has no such class."""
    if label is None:
        return None
    found = np.flatnonzero(np.asarray(model.classes_) == label)
    if not len(found):
        raise ValueError(f"{name}={label!r} is not a class of the model; classes are {list(model.classes_)}")
    return int(found[0])


def explained_classes(model, for_class, against):
    """``(c, c')``: the positions of ``for_class`` and ``against`` in ``model.classes_`` (None stays None);
    ValueError for a class the model lacks, for both naming one class, or for a model of one class."""
    if len(model.classes_) < 2:
        raise ValueError("explain needs a model of at least two classes")
    c, other = class_index(model, for_class, "for_class"), class_index(model, against, "against")
    if c is not None and c == other:
        raise ValueError(f"for_class and against name the same class {for_class!r}")
    return c, other


def compared_classes(inputs, for_class, against):
    """Each row's ``c`` and ``c'`` as int64 arrays (see :func:`pair_of_best_two`), from the rows' best two
    classes (:meth:`~nbparallel.models.base.ScoringInputs.two_best`) when either is None."""
    n_rows = len(inputs.first)
    if for_class is not None and against is not None:
        return np.full(n_rows, for_class), np.full(n_rows, against)
    return pair_of_best_two(*inputs.two_best(), for_class, against)


def pair_of_best_two(best, runner_up, for_class, against):
    """Each row's ``c`` and ``c'`` from its best and second-best class: ``c`` is ``for_class``, else the row's
    best class other than ``against`` (its predicted class, unless that is ``against``); ``c'`` is
    ``against``, else the best class other than ``c``."""
    n_rows = len(best)
    if for_class is None:
        chosen = best if against is None else np.where(best == against, runner_up, best)
    else:
        chosen = np.full(n_rows, for_class)
    if against is None:
        return chosen, np.where(best == chosen, runner_up, best)
    return chosen, np.full(n_rows, against)


def explain_part(model, X, for_class, against, out=None):
    """``(evidence, chosen, other)`` of one partition's rows: the evidence written into ``out`` (rows x
    (attributes + 1), then ``evidence`` is None) or returned as an array (the attributes in input order,
    then ``(prior)``), and each row's classes ``c`` and ``c'`` (positions in ``classes_``). One compiled pass
    over the rows (:func:`~nbparallel.kernels.evidence.evidence_rows`) after the scoring kernels' pass that
    finds each row's best two classes (:meth:`~nbparallel.models.base.ScoringInputs.two_best`)."""
    inputs, gaussian = model.explanation_inputs(X)
    names = model.explained_features()
    column = {name: j for j, name in enumerate(names)}
    given = out is not None
    out = np.empty((len(inputs.first), len(names) + 1)) if out is None else out
    columns = [column[name] for name in (*model.counted_attribute_names(), *model.gaussian_features_)]
    values, value_columns, theta, var = gaussian if gaussian is not None else (None, None, None, None)
    chosen, other = compared_classes(inputs, for_class, against)
    evidence_rows(inputs.first, inputs.second, inputs.table, inputs.offsets, inputs.log_prior, chosen, other,
                  columns, out, values, value_columns, theta, var)
    return None if given else out, chosen, other


def evidence_columns(model):
    """The evidence columns of :meth:`explain`: the attributes in input order, then ``(prior)``."""
    return [*model.explained_features(), PRIOR]


def evidence_frame(model, evidence, chosen, other, index=None):
    """The DataFrame of :meth:`explain`: ``(class)`` and ``(versus)`` (the labels of each row's ``c`` and
    ``c'``), the :func:`evidence_columns` of ``evidence`` (rows x (attributes + 1)), and ``(log-odds)``, their
    sum."""
    frame = pd.DataFrame(evidence, columns=evidence_columns(model), index=index, copy=False)
    classes = np.asarray(model.classes_)
    frame.insert(0, CLASS, classes[np.asarray(chosen, np.int64)])
    frame.insert(1, VERSUS, classes[np.asarray(other, np.int64)])
    frame[LOG_ODDS] = evidence.sum(axis=1)
    return frame


TERM_COLUMNS = ["row", "class", "versus", "rank", "term", "evidence", "log_odds"]
"""The columns of a text model's :meth:`explain`: the row's position in the input, the labels of its classes
``c`` and ``c'``, the term's rank in the row (1 for the largest evidence in absolute value; 0 for the two
entries below), the term (feature name, or index when the model has no names), its evidence, and the row's
``log P(c | x) - log P(c' | x)`` (the sum of the row's evidence)."""

OTHER_TERMS = "(other terms)"
"""The term of the entry holding the evidence of a row's terms outside its top."""


def check_top(top):
    """``top`` as an int of at least 1, or None (every term); ValueError otherwise."""
    if top is None:
        return None
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top must be a positive integer or None (every term), got {top!r}")
    return int(top)


def row_classes(joint, for_class, against):
    """Each row's ``c`` and ``c'`` (:func:`pair_of_best_two`) from ``joint`` (rows x classes): its largest
    joint log-likelihood and the largest other one (ties to the first class)."""
    rows = np.arange(len(joint))
    best = np.argmax(joint, axis=1)
    others = np.array(joint, dtype=np.float64)
    others[rows, best] = -np.inf
    return pair_of_best_two(best, np.argmax(others, axis=1), for_class, against)


def term_evidence_part(model, X, for_class, against, top):
    """One partition's term entries, as arrays ``(row, rank, term, evidence)`` (``term`` -1 for
    ``(other terms)``, -2 for ``(prior)``; rows numbered from 0 in the partition), then each row's classes
    ``chosen`` and ``other`` (positions in ``classes_``).

    With the model's linear form ``jll = values @ weights.T + intercept``
    (:meth:`~nbparallel.models.text.TextNaiveBayes.term_weights`), a present term ``j`` of row ``i`` gives
    ``values[i, j] * (weights[c, j] - weights[c', j])`` and ``(prior)`` ``intercept[c] - intercept[c']``,
    so that a row's entries sum to ``jll[i, c] - jll[i, c']``.
    """
    weights, intercept = model.term_weights()
    values = sp.csr_matrix(model.term_values(X), dtype=np.float64)
    values.sum_duplicates()
    chosen, other = row_classes(model.joint_log_likelihood_part(X), for_class, against)
    n_rows = values.shape[0]
    rows = np.repeat(np.arange(n_rows), np.diff(values.indptr))
    terms = values.indices.astype(np.int64)
    evidence = values.data * (weights[chosen[rows], terms] - weights[other[rows], terms])
    order = np.lexsort((-np.abs(evidence), rows))
    rows, terms, evidence = rows[order], terms[order], evidence[order]
    rank = np.arange(len(rows)) - values.indptr[rows] + 1
    kept = np.ones(len(rows), dtype=bool) if top is None else rank <= top
    rest = np.bincount(rows[~kept], evidence[~kept], minlength=n_rows)
    prior = intercept[chosen] - intercept[other]
    every = np.arange(n_rows)
    row = np.concatenate([rows[kept], every, every])
    key = np.concatenate([rank[kept], np.full(n_rows, len(rank) + 1), np.full(n_rows, len(rank) + 2)])
    order = np.lexsort((key, row))
    rank = np.concatenate([rank[kept], np.zeros(2 * n_rows, np.int64)])[order]
    term = np.concatenate([terms[kept], np.full(n_rows, -1), np.full(n_rows, -2)])[order]
    return row[order], rank, term, np.concatenate([evidence[kept], rest, prior])[order], chosen, other


def term_task(model, for_class, against, top, X, y, w):
    """:func:`term_evidence_part` of one partition (a task of :func:`explain_terms`' pass)."""
    return term_evidence_part(model, X, for_class, against, top)


def explain_terms(model, X, for_class, against, top):
    """The top terms of each row of ``X`` (any input the model's ``predict`` takes, read in one pass), as
    :meth:`nbparallel.models.text.TextNaiveBayes.explain` documents."""
    top = check_top(top)
    c, other = explained_classes(model, for_class, against)
    data = model.scoring_data(X)
    parts = execution.map_partitions(data.partitions, data.map(term_task, model, c, other, top),
                                     name="nbparallel-explain-terms", token=data.token, verbose=bool(model.verbose))
    return term_frame(model, list(parts))


def term_frame(model, parts):
    """The partitions' :func:`term_evidence_part` arrays, rows numbered over the whole input, as one
    DataFrame of :data:`TERM_COLUMNS`."""
    offsets = np.cumsum([0] + [len(part[4]) for part in parts])
    row = (np.concatenate([part[0] + offset for part, offset in zip(parts, offsets)]) if parts
           else np.zeros(0, np.int64)).astype(np.int64)
    rank, term, evidence, chosen, other = (np.concatenate([part[k] for part in parts]) if parts
                                           else np.zeros(0, np.int64) for k in (1, 2, 3, 4, 5))
    names = getattr(model, "feature_names_in_", None)
    labels = np.asarray(names if names is not None else np.arange(model.n_features_in_), dtype=object)
    term = np.asarray(term, dtype=np.int64)
    text = np.where(term == -1, OTHER_TERMS, np.where(term == -2, PRIOR, labels[np.maximum(term, 0)]))
    evidence = evidence.astype(np.float64)
    classes = np.asarray(model.classes_)
    log_odds = np.bincount(row, evidence, minlength=len(chosen))
    return pd.DataFrame({"row": row, "class": classes[chosen.astype(np.int64)][row],
                         "versus": classes[other.astype(np.int64)][row], "rank": rank.astype(np.int64),
                         "term": text, "evidence": evidence, "log_odds": log_odds[row]})

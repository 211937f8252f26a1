"""Exact k-fold cross-validation of naive Bayes in one counting pass and one scoring pass.

Naive Bayes is its counts, and counts add. One pass counts every fold's table
at once, as boosting counts right and wrong rows: the row of class ``y`` in
fold ``f`` is counted under class code ``y + K * f`` of a ``K * k``-class table.
After the reduce, fold i's model is derived from the total minus fold i's
table (:meth:`NaiveBayes.from_counts`), and one more pass scores every row
with the model that did not see it. Folds come from the global row index
(contiguous blocks, as scikit-learn's unshuffled ``KFold``) or from a
scikit-learn splitter, never from the partitioning, so the scores are the same
for any ``n_partitions``.

Categorical attributes give exactly the models of k separate fits: a category
or class that fold i's training rows lack has zero counts there, which the
model treats as a category never seen (as missing) or a class never predicted,
as a separate fit does. Numeric attributes differ: the equal-width bins are
cut from the range of all the rows, not of each training fold, so a fold's
bins can be slightly wider or shifted (see ``benchmarks/bench_cv.py`` for the
measured difference).
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd
from dask import delayed
from dask.delayed import Delayed
from numba import njit

from . import engine
from .counts import CountTable, merge_tables
from .counting import CountSpec
from .data import scan_schema
from .kernels import count_partition
from .models.naive_bayes import NaiveBayes, check_classes

SCORINGS = ("accuracy", "log_likelihood")


class Folds:
    """The fold of every global row index: contiguous blocks, or an explicit array."""

    def __init__(self, bounds=None, labels=None):
        self.bounds, self.labels = bounds, labels

    @classmethod
    def blocks(cls, n_rows, k):
        """k contiguous folds, the first ``n_rows % k`` one row longer (scikit-learn's ``KFold``).

        >>> Folds.blocks(10, 3).of(0, 10).tolist()
        [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
        """
        sizes = np.full(k, n_rows // k)
        sizes[: n_rows % k] += 1
        return cls(bounds=np.concatenate([[0], np.cumsum(sizes)]))

    def segments(self, offset, n):
        """``(fold, rows)`` covering the rows ``offset .. offset + n - 1``; rows is a slice for blocks."""
        if self.labels is None:
            starts = np.clip(self.bounds - offset, 0, n)
            return [(i, slice(int(a), int(b))) for i, (a, b) in enumerate(zip(starts[:-1], starts[1:])) if a < b]
        labels = self.labels[offset : offset + n]
        return [(int(i), np.flatnonzero(labels == i)) for i in np.unique(labels)]

    def of(self, offset, n):
        """Folds of the rows ``offset .. offset + n - 1``."""
        fold = np.empty(n, dtype=np.int32)
        for i, rows in self.segments(offset, n):
            fold[rows] = i
        return fold


@njit(nogil=True, cache=True)
def _tally(jll, truth, predicted, confusion):
    """Add the rows with a known target to ``confusion``; return their summed log P(y|x) and count."""
    total, n = 0.0, 0
    for i in range(jll.shape[0]):
        t = truth[i]
        if t < 0:
            continue
        best = 0
        for k in range(1, jll.shape[1]):
            if jll[i, k] > jll[i, best]:
                best = k
        top = jll[i, best]
        s = 0.0
        for k in range(jll.shape[1]):
            if k != best:
                s += np.exp(jll[i, k] - top)
        total += jll[i, t] - top - np.log1p(s)
        confusion[t, predicted[i]] += 1
        n += 1
    return total, n


def _pair(offset, part):
    return offset, part


def _n_rows(X, y, w):
    return len(X)


def _at_offset(template, fn, args, item):
    """Run ``fn(*args, offset, X, y, w)`` on a partition tagged with its global row offset."""
    offset, part = item
    return template.map(fn, *args, offset)(part)


def _count_folds(spec, folds, k, offset, X, y, w):
    """One partition's counts in a ``K * k``-class table: class code ``y + K * fold``."""
    classes = spec.schema.encode_classes(y, w)
    n_classes = len(spec.schema.classes)
    labels = folds.of(offset, len(classes))
    labels *= n_classes
    labels += classes
    labels[classes < 0] = -1
    codes, values = spec.schema.split(X)
    weights = None if w is None else np.asarray(w, dtype=np.float64)
    table, totals, all_missing, n_missing = count_partition(
        codes, values, labels, weights, spec.offsets, spec.edges, n_classes * k)
    return CountTable(table, spec.offsets, totals, all_missing, int(n_missing))


def _score_folds(models, folds, offset, X, y, w):
    """Per fold: confusion counts and summed log P(y|x) of its rows under the model that did not see them."""
    schema = models[0].schema_
    k, n_classes = len(models), len(schema.classes)
    truth = schema.encode_classes(y)
    codes, values = schema.split(X)
    confusion = np.zeros((k, n_classes, n_classes), dtype=np.int64)
    loglik, n = np.zeros(k), np.zeros(k, dtype=np.int64)
    for i, rows in folds.segments(offset, len(truth)):
        model = models[i]
        jll = model.joint_log_likelihood_of_codes(model.encode_split(codes[rows], values[rows]))
        loglik[i], n[i] = _tally(jll, truth[rows], model.best_classes(jll), confusion[i])
    return confusion, loglik, n


def _add_scores(*parts):
    return tuple(sum(p[i] for p in parts) for i in range(3))


def _fold_table(counts, i, n_classes):
    cols = slice(i * n_classes, (i + 1) * n_classes)
    return CountTable(counts.table[:, cols], counts.offsets, counts.class_totals[cols], counts.all_missing[cols])


def _folds_from_splitter(cv, X, y, n_rows):
    """Fold labels from a scikit-learn splitter whose test folds partition the rows."""
    labels = np.full(n_rows, -1, dtype=np.int64)
    for i, (train, test) in enumerate(cv.split(X, y)):
        if np.any(labels[test] >= 0) or len(train) + len(test) != n_rows:
            raise ValueError("cv must split the rows into disjoint test folds whose training rows are all "
                             "the others (as KFold or StratifiedKFold do)")
        labels[test] = i
    if np.any(labels < 0):
        raise ValueError("cv left some rows out of every test fold: each row must be in exactly one")
    return Folds(labels=labels), i + 1


def cross_validate(estimator, X, y=None, *, cv=10, scoring=SCORINGS, sample_weight=None):
    """Exact k-fold cross-validation of a :class:`NaiveBayes` in one counting and one scoring pass.

    Parameters
    ----------
    estimator : NaiveBayes
        Its parameters (smoothing, bins, categorical features, partitions)
        are used; it is not fitted.
    X, y, sample_weight
        As for :meth:`NaiveBayes.fit`: arrays, DataFrames, Dask collections
        or paths, the target as values or a column name.
    cv : int >= 2 or scikit-learn splitter, default 10
        k contiguous folds of the global row order (scikit-learn's unshuffled
        ``KFold``), or, for in-memory data, a splitter such as
        ``StratifiedKFold(shuffle=True)`` whose test folds partition the rows.
    scoring : sequence of "accuracy", "log_likelihood"
        Per-fold scores: accuracy, and the SPSS average log-likelihood
        ``mean log P(y_i | x_i)`` (scikit-learn's ``neg_log_loss``).

    Returns
    -------
    dict
        ``test_<score>`` (array of k), ``n_test_rows`` (rows with a known
        target per fold), ``confusion_matrices`` (k, K, K), ``classes``, and
        ``passes`` (kind and seconds of each pass: "lengths" only for data
        whose partitions' lengths are unknown, "schema", "count", "score").
    """
    if type(estimator) is not NaiveBayes:
        raise TypeError(f"cross_validate takes a NaiveBayes estimator, got {type(estimator).__name__}")
    if estimator.numeric != "binned":
        raise ValueError("cross_validate counts folds in one count table, so it takes numeric='binned' only; "
                         f"got numeric={estimator.numeric!r}")
    scoring = (scoring,) if isinstance(scoring, str) else tuple(scoring)
    unknown = [s for s in scoring if s not in SCORINGS]
    if unknown or not scoring:
        raise ValueError(f"scoring must name some of {SCORINGS}, got {scoring!r}")
    estimator._check_params()
    dataset = estimator.dataset(X, y, sample_weight)
    passes, split_every, verbose = [], estimator.split_every, bool(estimator.verbose)

    def record(kind, start):
        passes.append({"kind": kind, "seconds": time.perf_counter() - start})

    start = time.perf_counter()
    concrete = all(isinstance(p, tuple) for p in dataset.partitions)
    if concrete:
        lengths = [len(p[0]) for p in dataset.partitions]
    else:
        lengths = engine.map_partitions(dataset.partitions, dataset.map(_n_rows), name="nbparallel-cv-lengths",
                                        token=dataset.token, verbose=verbose)
        record("lengths", start)
    n_rows = int(sum(lengths))
    if hasattr(cv, "split"):
        if not concrete:
            raise TypeError("a scikit-learn splitter needs in-memory data; for Dask collections and files pass "
                            "cv as the number of folds")
        folds, k = _folds_from_splitter(cv, *_in_memory(dataset))
    else:
        if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or not 2 <= cv <= n_rows:
            raise ValueError(f"cv must be an int between 2 and the number of rows ({n_rows}) "
                             f"or a scikit-learn splitter, got {cv!r}")
        folds, k = Folds.blocks(n_rows, int(cv)), int(cv)
    offsets = np.concatenate([[0], np.cumsum(lengths)])[:-1]
    tagged = [delayed(_pair, pure=True)(int(o), p) if isinstance(p, Delayed) else (int(o), p)
              for o, p in zip(offsets, dataset.partitions)]
    template = replace(dataset, partitions=[])

    start = time.perf_counter()
    schema, _, _ = scan_schema(dataset, n_bins=estimator.n_bins, split_every=split_every, verbose=verbose)
    check_classes(schema.classes)
    record("schema", start)

    start = time.perf_counter()
    counts, _ = engine.run_pass(tagged, _folded(template, _count_folds, CountSpec.of(schema), folds, k),
                                merge_tables, split_every=split_every, name="nbparallel-cv-count",
                                token=dataset.token, verbose=verbose)
    record("count", start)
    n_classes = len(schema.classes)
    tables = [_fold_table(counts, i, n_classes) for i in range(k)]
    total = merge_tables(*tables)
    models = []
    for i, table in enumerate(tables):
        train = CountTable(np.maximum(total.table - table.table, 0), total.offsets,
                           np.maximum(total.class_totals - table.class_totals, 0),
                           np.maximum(total.all_missing - table.all_missing, 0))
        if train.class_counts.sum() <= 0:
            raise ValueError(f"fold {i}'s training rows hold no usable case")
        models.append(NaiveBayes.from_counts(train, schema, n_features_in=len(dataset.columns),
                                             **estimator.get_params()))

    start = time.perf_counter()
    (confusion, loglik, n), _ = engine.run_pass(
        tagged, _folded(template, _score_folds, models, folds), _add_scores, split_every=split_every,
        name="nbparallel-cv-score", token=dataset.token, verbose=verbose)
    record("score", start)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = {"accuracy": np.trace(confusion, axis1=1, axis2=2) / n, "log_likelihood": loglik / n}
    return {**{f"test_{s}": scores[s] for s in scoring}, "n_test_rows": n, "confusion_matrices": confusion,
            "classes": np.asarray(schema.classes), "passes": passes}


def _folded(template, fn, *args):
    """The summarize function of a pass over offset-tagged partitions."""
    return partial(_at_offset, template, fn, args)


def _in_memory(dataset):
    """``(X, y, n_rows)`` of in-memory partitions, to hand a splitter."""
    Xs = [p[0] for p in dataset.partitions]
    frame = pd.concat(Xs) if isinstance(Xs[0], pd.DataFrame) else np.concatenate(Xs)
    return frame, np.concatenate([p[1] for p in dataset.partitions]), len(frame)

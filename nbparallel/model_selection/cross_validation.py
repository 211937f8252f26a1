"""Exact k-fold cross-validation of naive Bayes in one counting pass and one scoring pass.

Naive Bayes is its sums, and sums add. One pass sums every fold's statistics
at once, as boosting counts right and wrong rows: the row of class ``y`` in
fold ``f`` is summed under class code ``y + K * f`` of a ``K * k``-class
summary. After the reduce, fold i's training summary is the total minus fold
i's (``total - fold_i``: every summary subtracts), its model is derived from it as a fit would derive it,
and one more pass scores every row with the model that did not see it. Folds
come from the global row index (contiguous blocks, as scikit-learn's
unshuffled ``KFold``) or from a scikit-learn splitter, never from the
partitioning, so the scores are the same for any ``n_partitions``.

The models and their summaries:

- :class:`NaiveBayes`, categorical and binned attributes: a count table
  (:class:`CountTable`); subtraction is exact.
- :class:`NaiveBayes` with Gaussian attributes (``numeric="gaussian"`` or a
  dict): the count table and the per-class weighted count, mean and M2
  (:class:`CountsAndMoments`); a fold is taken out by the inverse of Chan's
  merge (``GaussianMoments.__sub__``), and ``var_smoothing``'s epsilon comes from
  each training fold's variances, as in a separate fit.
- :class:`MultinomialNaiveBayes`, :class:`BernoulliNaiveBayes` on dense,
  ``scipy.sparse`` or Dask arrays: per-class feature sums
  (:class:`FeatureCounts`); sparse rows are never densified.

Categorical attributes, Gaussian attributes and the text models give the
models of k separate fits (counts exactly, moments to rounding): a category or
class that fold i's training rows lack has zero counts there, which the model
treats as a category never seen (as missing) or a class never predicted, as a
separate fit does. Binned numeric attributes differ: the equal-width bins are
cut from the range of all the rows, not of each training fold, so a fold's
bins can be slightly wider or shifted (see ``benchmarks/bench_cv.py`` for the
measured difference).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from nbparallel.data.schema import scan_schema
from nbparallel.data.sparse import as_partitions, is_dask_array, row_slice
from nbparallel.engine import execution, memory
from nbparallel.kernels.counting import count_partition
from nbparallel.kernels.scoring import tally
from nbparallel.models.gaussian import gaussian_log_likelihood
from nbparallel.models.naive_bayes import NaiveBayes, check_classes
from nbparallel.models.plan import CountingPlan
from nbparallel.models.text import BernoulliNaiveBayes, MultinomialNaiveBayes
from nbparallel.summaries.counts import CountSpec, CountTable
from nbparallel.summaries.evaluation import Evaluation
from nbparallel.summaries.features import count_part
from nbparallel.summaries.moments import CountsAndMoments, GaussianMoments, gaussian_values, partition_moments
from nbparallel.summaries.protocol import merge_summaries

SCORINGS = ("accuracy", "log_likelihood")
TEXT_MODELS = (MultinomialNaiveBayes, BernoulliNaiveBayes)


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

    def labels_of(self, classes, n_classes, offset):
        """Class-fold codes ``class + n_classes * fold`` of a partition's rows (-1 stays -1)."""
        labels = self.of(offset, len(classes))
        labels *= n_classes
        labels += classes
        labels[classes < 0] = -1
        return labels


def _score(k, n_classes, segments):
    """Per fold, confusion counts and summed log P(y|x) of ``(fold, jll, truth, predicted)`` segments,
    as one :class:`~nbparallel.summaries.evaluation.Evaluation` with a leading fold axis."""
    confusion = np.zeros((k, n_classes, n_classes), dtype=np.int64)
    loglik = np.zeros(k)
    for i, jll, truth, predicted in segments:
        loglik[i] = tally(np.ascontiguousarray(jll, dtype=np.float64), truth, predicted, confusion[i])
    return Evaluation(confusion, loglik)


def _count_folds(spec, folds, k, gaussian, X, y, w, info):
    """One partition's summary in a ``K * k``-class layout (class code ``y + K * fold``): the count
    table of the counted attributes, and with Gaussian columns (their positions) their moments too.
    ``info`` (:class:`~nbparallel.data.partitions.PartitionInfo`) places its rows in the global order."""
    offset = info.row_offset
    n_classes = len(spec.schema.classes)
    classes = spec.schema.encode_classes(y, w)
    labels = folds.labels_of(classes, n_classes, offset)
    codes, values = spec.schema.split(X)
    weights = None if w is None else np.asarray(w, dtype=np.float64)
    edges = spec.edges if values.shape[1] else np.empty((0, 0))
    table, totals, all_missing, n_missing = count_partition(
        codes, values, labels, weights, spec.offsets, edges, n_classes * k)
    counts = CountTable(table, spec.offsets, totals, all_missing, int(n_missing))
    if not gaussian:
        return counts
    others_missing = (codes == 0).all(axis=1) & np.isnan(values).all(axis=1)
    numbers = gaussian_values(X, list(gaussian))
    moments = GaussianMoments.empty(n_classes * k, len(gaussian))
    for i, rows in folds.segments(offset, len(labels)):  # per fold: K-class moments, K-wide one-hot
        fold = partition_moments(numbers[rows], classes[rows], None if weights is None else weights[rows],
                                 n_classes, others_missing[rows])
        cols = slice(i * n_classes, (i + 1) * n_classes)
        for name in ("n", "mean", "m2", "all_missing"):
            getattr(moments, name)[cols] = getattr(fold, name)
    return CountsAndMoments(counts, moments)


def _score_folds(models, folds, gaussian, X, y, w, info):
    """Per fold: confusion counts and summed log P(y|x) of its rows under the model that did not see them."""
    offset = info.row_offset
    schema = models[0].schema_
    truth = schema.encode_classes(y)
    codes, values = schema.counted().split(X)
    numbers = gaussian_values(X, list(gaussian)) if gaussian else None

    def segments():
        for i, rows in folds.segments(offset, len(truth)):
            model = models[i]
            jll = model.joint_log_likelihood_of_codes(model.encode_split(codes[rows], values[rows]))
            if gaussian:
                jll += gaussian_log_likelihood(numbers[rows], model.theta_, model.var_)
            yield i, jll, truth[rows], model.best_classes(jll)

    return _score(len(models), len(schema.classes), segments())


class _NaiveBayesRun:
    """Cross-validation of a :class:`NaiveBayes`: DataFrames, arrays, Dask collections, files."""

    def __init__(self, estimator, X, y, sample_weight, record):
        self.estimator, self.record = estimator, record
        self.dataset = dataset = estimator.dataset(X, y, sample_weight)
        self.verbose = bool(estimator.verbose)
        start = time.perf_counter()
        # the schema pass also counts each partition's rows: the offsets that place them in the global order
        schema, _, _ = scan_schema(dataset, n_bins=estimator.n_bins, split_every=estimator.split_every,
                                   verbose=self.verbose)
        check_classes(schema.classes)
        record("schema", start)
        self.infos = dataset.partition_infos()
        self.n_rows = int(sum(dataset.partition_rows))
        plan = CountingPlan.for_table(estimator.get_params(), dataset, by_value=False)
        self.schema = plan.finish_schema(schema)
        self.gaussian = plan.gaussian_positions(self.schema)
        self.classes = np.asarray(schema.classes)

    def in_memory(self):
        """``(X, y)`` of in-memory data, to hand a splitter."""
        if not all(isinstance(p, tuple) for p in self.dataset.partitions):
            raise TypeError("a scikit-learn splitter needs in-memory data; for Dask collections and files pass "
                            "cv as the number of folds")
        Xs = [p[0] for p in self.dataset.partitions]
        frame = pd.concat(Xs) if isinstance(Xs[0], pd.DataFrame) else np.concatenate(Xs)
        return frame, np.concatenate([p[1] for p in self.dataset.partitions])

    def _run(self, kind, fn, args, merge):
        start = time.perf_counter()
        out, _ = execution.run_pass(self.dataset.partitions, self.dataset.map(fn, *args, with_info=True), merge,
                                 split_every=self.estimator.split_every, name=f"nbparallel-cv-{kind}",
                                 token=self.dataset.token, verbose=self.verbose)
        self.record(kind, start)
        return out

    def count(self, folds, k):
        """Every fold's summary in one counting pass; returns the k fold summaries."""
        table = self.schema.counted()
        n_classes = len(self.classes)
        memory.check_memory(memory.table_bytes(table.offsets[-1] + 2 * len(self.gaussian), n_classes * k,
                                               len(self.dataset.partitions)),
                            f"the fold tables of {n_classes} classes x {k} folds", "use fewer folds or bins",
                            self.dataset.partitions)
        summary = self._run("count", _count_folds, (CountSpec.of(table), folds, k, self.gaussian),
                            merge_summaries)
        return [summary.class_columns(slice(i * n_classes, (i + 1) * n_classes)) for i in range(k)]

    def model(self, train):
        counts, moments = train, None
        if isinstance(train, CountsAndMoments):
            counts, moments = train.counts, train.moments
        return NaiveBayes.from_counts(counts, self.schema, n_features_in=len(self.dataset.columns),
                                      moments=moments, **self.estimator.get_params())

    def score(self, models, folds):
        return self._run("score", _score_folds, (models, folds, self.gaussian), merge_summaries)


def _count_text_folds(classes, folds, k, n_features, binarize, allow_negative, name, X, y, w, info):
    """One partition's :class:`FeatureCounts` over class-fold codes ``y + K * fold``."""
    codes = np.searchsorted(classes, y).astype(np.int64)
    labels = folds.labels_of(codes, len(classes), info.row_offset)
    return count_part(np.arange(len(classes) * k), n_features, binarize, allow_negative, name, X, labels, w)


def _score_text_folds(models, folds, X, y, w, info):
    truth = np.searchsorted(models[0].classes_, y).astype(np.int64)

    def segments():
        for i, rows in folds.segments(info.row_offset, len(truth)):
            part = row_slice(X, rows.start, rows.stop) if isinstance(rows, slice) else X[rows]
            jll = models[i].joint_log_likelihood_part(part)
            yield i, jll, truth[rows], models[i].best_classes(jll)

    return _score(len(models), len(models[0].classes_), segments())


class _TextRun:
    """Cross-validation of a multinomial or Bernoulli model: dense, scipy.sparse or Dask arrays."""

    def __init__(self, estimator, X, y, sample_weight, record):
        self.estimator, self.record, self.X = estimator, record, X
        self.data = as_partitions(X, y, sample_weight, n_partitions=estimator.n_partitions)
        self.n_rows = self.data.n_rows
        self.classes = np.unique(self.data.y)

    def in_memory(self):
        if is_dask_array(self.X):
            raise TypeError("a scikit-learn splitter needs in-memory data; for Dask arrays pass cv as the "
                            "number of folds")
        return self.X, self.data.y

    def _run(self, kind, fn, args, merge):
        start = time.perf_counter()
        estimator, data = self.estimator, self.data
        out, _ = execution.run_pass(data.partitions, data.map(fn, *args, with_info=True), merge,
                                 split_every=estimator.split_every, name=f"nbparallel-cv-text-{kind}",
                                 token=data.token, verbose=bool(estimator.verbose))
        self.record(kind, start)
        return out

    def count(self, folds, k):
        estimator, data = self.estimator, self.data
        check_classes(self.classes)
        n_classes = len(self.classes)
        memory.check_memory(memory.table_bytes(data.n_features, n_classes * k, len(data.partitions)),
                            f"the fold tables of {n_classes} classes x {k} folds x {data.n_features} features",
                            "use fewer folds or fewer features", data.partitions)
        plan = estimator.counting_plan()
        summary = self._run("count", _count_text_folds,
                            (self.classes, folds, k, data.n_features, plan.binarize, plan.allow_negative,
                             type(estimator).__name__), merge_summaries)
        return [summary.class_columns(slice(i * n_classes, (i + 1) * n_classes)) for i in range(k)]

    def model(self, train):
        return type(self.estimator).from_counts(train, self.classes, n_features_in=self.data.n_features,
                                                feature_names_in=self.data.feature_names,
                                                **self.estimator.get_params())

    def score(self, models, folds):
        return self._run("score", _score_text_folds, (models, folds), merge_summaries)


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


def _runner(estimator):
    if type(estimator) is NaiveBayes:
        return _NaiveBayesRun
    if type(estimator) in TEXT_MODELS:
        return _TextRun
    raise TypeError("cross_validate takes a NaiveBayes (categorical, binned or Gaussian attributes: "
                    "numeric='gaussian'), MultinomialNaiveBayes or BernoulliNaiveBayes estimator, "
                    f"got {type(estimator).__name__}")


def cross_validate(estimator, X, y=None, *, cv=10, scoring=SCORINGS, sample_weight=None):
    """Exact k-fold cross-validation in one counting and one scoring pass.

    Parameters
    ----------
    estimator : NaiveBayes, MultinomialNaiveBayes or BernoulliNaiveBayes
        Its parameters (smoothing, bins, categorical and Gaussian features,
        partitions) are used; it is not fitted.
    X, y, sample_weight
        As for the estimator's ``fit``: for :class:`NaiveBayes` arrays,
        DataFrames, Dask collections or paths, the target as values or a
        column name; for the text models dense, ``scipy.sparse`` or Dask
        arrays and the labels.
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
        ``passes`` (kind and seconds of each pass: "schema" for NaiveBayes
        (it also counts each partition's rows, which place them in the global
        row order), "count", "score").
    """
    run_type = _runner(estimator)
    scoring = (scoring,) if isinstance(scoring, str) else tuple(scoring)
    unknown = [s for s in scoring if s not in SCORINGS]
    if unknown or not scoring:
        raise ValueError(f"scoring must name some of {SCORINGS}, got {scoring!r}")
    estimator._check_params()
    passes = []

    def record(kind, start):
        passes.append({"kind": kind, "seconds": time.perf_counter() - start})

    run = run_type(estimator, X, y, sample_weight, record)
    if hasattr(cv, "split"):
        folds, k = _folds_from_splitter(cv, *run.in_memory(), run.n_rows)
    else:
        if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or not 2 <= cv <= run.n_rows:
            raise ValueError(f"cv must be an int between 2 and the number of rows ({run.n_rows}) "
                             f"or a scikit-learn splitter, got {cv!r}")
        folds, k = Folds.blocks(run.n_rows, int(cv)), int(cv)
    tests = run.count(folds, k)
    total = merge_summaries(*tests)
    models = []
    for i, test in enumerate(tests):
        train = total - test
        if train.class_weights.sum() <= 0:
            raise ValueError(f"fold {i}'s training rows hold no usable case")
        models.append(run.model(train))
    scores = run.score(models, folds)
    confusion, loglik = scores.confusion, scores.log_likelihood
    n = confusion.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = {"accuracy": np.trace(confusion, axis1=1, axis2=2) / n, "log_likelihood": loglik / n}
    return {**{f"test_{s}": scores[s] for s in scoring}, "n_test_rows": n, "confusion_matrices": confusion,
            "classes": run.classes, "passes": passes}


"""Exact k-fold cross-validation of naive Bayes in one counting pass and one scoring pass.

Naive Bayes is its sums, and sums add. One pass sums every fold's statistics
at once, as boosting counts right and wrong rows: the row of class ``y`` in
fold ``f`` is summed under class code ``y + K * f`` of a ``K * k``-class
summary. After the reduce, fold i's training summary is the total minus fold
i's (``total - fold_i``: every summary subtracts), its model is derived from it as a fit would derive it,
and one more pass scores every row with the model that did not see it. Folds
come from the global row index (contiguous blocks, as scikit-learn's
unshuffled ``KFold``; shuffled by a seeded permutation of the index;
stratified as ``StratifiedKFold``, see :mod:`nbparallel.model_selection.folds`)
or from a scikit-learn splitter, never from the partitioning, so the scores are
the same for any ``n_partitions``. Repeated cross-validation counts every
repeat's folds in the same counting pass and scores them in the same scoring
pass.

How the passes read the data: a :class:`NaiveBayes` whose attributes are categorical or
binned integer columns, on unweighted rows, is counted by value as its fit is
(:mod:`nbparallel.summaries.dictionary_counts`: no schema pass), each partition coded
once against its own dictionaries; its codes
(:class:`~nbparallel.summaries.dictionary_counts.CodedRows`) stay in memory while they
fit, so the scoring pass reads no file and hashes no string again. Where each
partition's first row is known beforehand (in-memory data, Parquet footers) and
the folds need no class ranks, that counting pass is the only one; else (CSV
files, Dask collections, stratified folds) fit's own pass comes first and the
fold tables are counted from the kept codes. Other models take a schema pass
first, which also tallies each partition's rows per class for stratified folds;
without Gaussian attributes their counting pass keeps each partition's codes as
counted (numeric values binned once, under the counting bins) while they fit, and
the scoring pass scores them through each fold model's log table re-indexed to
the counting bins (:meth:`NaiveBayes.inputs_of_counted`), binning no value again
unless a row lies in a counting bin that the model's final bins split.

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
- any other counting model the registry marks ``cross_validated``: a schema pass, then
  its summary type counted from codes by its ``of_codes`` (its ``-`` takes a fold
  out), each fold's rows scored by the fold model's ``scoring_inputs``.

Categorical attributes, Gaussian attributes and the text models give the
models of k separate fits (counts exactly, moments to rounding): a category or
class that fold i's training rows lack has zero counts there, which the model
treats as a category never seen (as missing) or a class never predicted, as a
separate fit does. Binned numeric attributes differ: the equal-width bins are
cut from the range of all the rows, not of each training fold, so a fold's
bins can be slightly wider or shifted (``nbparallel bench cv`` measures the
difference, ``benchmarks/harness/cv.py``).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd

from nbparallel.data.partitions import PartitionInfo
from nbparallel.data.sparse import as_partitions, check_weights, is_dask_array, row_slice
from nbparallel.engine import execution
from nbparallel.model_selection.folds import Folds, class_count_matrix, tally_classes
from nbparallel.models.base import ScoringInputs
from nbparallel.models.discretisation import MDL
from nbparallel.models.mdl_layout import interval_recoding, mdl_bin_edges
from nbparallel.models.plan import CountingPlan, check_classes
from nbparallel.models.registry import kind_of_model, kinds_where, names_of
from nbparallel.summaries.counts import CountTable
from nbparallel.summaries.evaluation import Evaluation
from nbparallel.summaries.features import FeatureCounts
from nbparallel.summaries.pair_counts import PairCounts
from nbparallel.summaries.fold_counts import (
    PerRepeat,
    TableLimit,
    check_text_tables,
    count_blocks,
    count_coded_folds,
    count_fold_pair_trains,
    count_folds,
    count_text_folds,
    count_whole,
    fold_blocks,
    fold_spec,
    keep_budget,
    map_and_reduce,
    scan_pass,
    score_functions,
)
from nbparallel.summaries.protocol import merge_summaries

SCORINGS = ("accuracy", "log_likelihood", "log_loss", "roc_auc")


def _take(X, rows):
    """Rows of one partition's features (a slice or an index array)."""
    if isinstance(X, pd.DataFrame):
        return X.iloc[rows]
    if isinstance(rows, slice):
        return row_slice(X, rows.start, rows.stop)
    return X[rows]


def _score(models, repeats, measure, X, truth, classes, w, info):
    """Per fold of every repeat, the :class:`~nbparallel.summaries.evaluation.Evaluation` (confusion counts,
    log-likelihood, log loss, ROC score histograms) of its rows under the model that did not see them, as one
    :class:`PerRepeat` of ``len(models)`` evaluations (the scoring kernel of ``model.evaluate``). ``measure``
    is ``ScoringInputs.evaluation`` (with ``roc=False`` when no AUC is asked), or ``ScoringInputs.confusion``
    when only accuracies are asked."""
    k = len(models) // len(repeats)
    n_classes = len(models[0].classes_)
    out = [Evaluation.empty(n_classes) for _ in models]
    for r, folds in enumerate(repeats):
        for i, rows in folds.segments(info, len(truth), classes, w):
            model = models[r * k + i]
            out[r * k + i] = measure(model.scoring_inputs(_take(X, rows)), truth[rows])
    return PerRepeat(tuple(out))


def _score_folds(models, repeats, measure, kept, X, y, w, info):
    """Per fold of every repeat: the evaluation of its rows under the model that did not see them.

    Every fold's model shares the schema, so the partition is split into categorical codes and numeric
    values once (strings and categories mapped to the vocabulary once per partition); each fold's rows are
    then scored from their codes by one kernel call, its numeric values binned under its model's bins. The
    codes the counting pass kept (``kept``, by partition: None where it kept none) are scored as they are,
    through each model's table of the counting bins, unless a row lies in a counting bin its final bins split."""
    schema = models[0].schema_
    truth = schema.encode_classes(y)
    classes = schema.encode_classes(y, w) if w is not None else truth
    counted = kept[info.index]
    split = None
    k = len(models) // len(repeats)
    out = [Evaluation.empty(len(models[0].classes_)) for _ in models]
    for r, folds in enumerate(repeats):
        for i, rows in folds.segments(info, len(truth), classes, w):
            model = models[r * k + i]
            inputs = None if counted is None else model.inputs_of_counted(counted[rows])
            if inputs is None:
                split = schema.counted().split(X) if split is None else split
                gaussian = None if model.scores_from_codes else _take(X, rows)  # their log-likelihoods added last
                inputs = model.inputs_of_split(split[0][rows], split[1][rows], gaussian)
            out[r * k + i] = measure(inputs, truth[rows])
    return PerRepeat(tuple(out))


class _WithSchemaRun:
    """Cross-validation of a :class:`NaiveBayes` after a schema pass: Gaussian attributes, weighted rows,
    fixed bin ranges and integer columns too wide to count by value; DataFrames, arrays, Dask collections,
    files."""

    def __init__(self, estimator, dataset, plan, record, stratify):
        self.estimator, self.record = estimator, record
        self.verbose = bool(estimator.verbose)
        start = time.perf_counter()
        # the three passes read the same partitions, read once when they fit in memory; the schema pass also
        # counts each partition's rows (the offsets that place them in the global order) and, for stratified
        # folds, each partition's rows per class (the class ranks)
        scheduler, merged = scan_pass(dataset, tally_classes if stratify else None,
                                      split_every=estimator.split_every, verbose=self.verbose)
        dataset = scheduler.dataset
        self.schema = plan.schema_of_scan(dataset, merged.scan)
        self.classes = np.asarray(self.schema.classes)
        if stratify:
            self.class_counts, self.class_order = class_count_matrix(merged.tallies, self.schema.encode_classes,
                                                                     len(self.classes))
        record("schema", start)
        self.infos = dataset.partition_infos()
        self.n_rows = int(sum(dataset.partition_rows))
        scheduler.keep_if_fits(self.n_rows)
        self.dataset = scheduler.dataset
        self.gaussian = plan.gaussian_positions(self.schema)

    def in_memory(self):
        """``(X, y)`` of in-memory data, to hand a splitter."""
        return _in_memory(self.dataset)

    def stratified(self, k, seed, stream):
        return Folds.stratified(self.class_counts, k, seed, stream, order=self.class_order)

    def count(self, repeats, k):
        """Every fold's summary of every repeat in one counting pass; returns a list of k fold summaries
        per repeat."""
        table = self.schema.counted()
        n_classes = len(self.classes)
        limit = TableLimit.of(self.dataset.partitions)
        limit.check(table.offsets[-1] + 2 * len(self.gaussian), n_classes, k, len(repeats))
        start = time.perf_counter()
        budget = keep_budget(self.dataset.partitions)
        tasks = self.dataset.map(count_folds, fold_spec(self.schema), repeats, k, self.gaussian, budget,
                                 with_info=True)
        kept, summary = map_and_reduce(self.dataset.partitions, tasks, split_every=self.estimator.split_every,
                                       token=self.dataset.token, verbose=self.verbose)
        self.kept = tuple(kept)
        self.record("count", start)
        return self, [[part.class_columns(slice(i * n_classes, (i + 1) * n_classes)) for i in range(k)]
                      for part in summary.parts]

    def model(self, train):
        return type(self.estimator).from_counts(train, self.schema, n_features_in=len(self.dataset.columns),
                                                **self.estimator.get_params())

    def score(self, models, repeats, measure):
        start = time.perf_counter()
        tasks = self.dataset.map(_score_folds, models, repeats, measure, self.kept, with_info=True,
                                 categorical_target=True)
        out, _ = execution.run_pass(self.dataset.partitions, tasks, merge_summaries,
                                    split_every=self.estimator.split_every, name="nbparallel-cv-score",
                                    token=self.dataset.token, verbose=self.verbose)
        self.record("score", start)
        return out


class _ByValueRun:
    """Cross-validation of a :class:`NaiveBayes` whose attributes are categorical or binned integer columns
    and whose rows are unweighted, counted by value as its fit counts (no schema pass: see
    :mod:`nbparallel.summaries.dictionary_counts`), each partition's rows kept as codes
    (:class:`~nbparallel.summaries.dictionary_counts.CodedRows`) for the passes after while they fit in this
    process's memory: files are read and strings hashed once.

    When every partition's first row is known beforehand (in-memory data, Parquet footers) and the folds
    need no class ranks, one counting pass counts every fold's table (a row of its partition's class ``c``
    in fold ``f`` under column ``c + (K + 1) * f``); else a first pass counts the rows and their classes (fit's
    pass) and a second counts the fold tables from the kept codes (reading only partitions not kept). The
    scoring pass scores kept codes through each model's log table re-indexed to the partition's
    dictionaries.
    """

    def __init__(self, estimator, dataset, plan, record, stratify):
        self.estimator, self.dataset, self.plan, self.record = estimator, dataset, plan, record
        self.verbose = bool(estimator.verbose)
        self.coder = plan.partition_coder(dataset)
        self.parts = list(dataset.partitions)  # a partition, or its CodedRows once kept
        self.budget = keep_budget(self.parts)
        self.limit = TableLimit.of(self.parts)
        self.schema = None
        rows = _known_rows(dataset)
        if rows is None or stratify:  # the rows, classes and vocabularies first: fit's own pass
            summary = self._pass("count", [partial(count_whole, self.coder, stratify, self.budget)] * len(self.parts))
            rows = list(summary.counts.partition_rows)
            self._set_schema(summary.counts)
            if stratify:
                self.class_counts, self.class_order = class_count_matrix(summary.tallies, self.schema.encode_classes,
                                                                         len(self.classes))
        self.dataset = replace(dataset, partition_rows=rows)
        self.infos = self.dataset.partition_infos()
        self.n_rows = int(sum(rows))

    def in_memory(self):
        """``(X, y)`` of in-memory data, to hand a splitter."""
        return _in_memory(self.dataset)

    def _set_schema(self, counts):
        self.schema = self.plan.schema_of_counts(self.dataset, counts)
        self.classes = np.asarray(self.schema.classes)

    def _pass(self, kind, fns):
        """One pass over the partitions (or their kept codes): each leaf gives its CodedRows to keep (or None)
        and its summary; returns the merged summary."""
        start = time.perf_counter()
        kept, summary = map_and_reduce(self.parts, fns, split_every=self.estimator.split_every,
                                       token=self.dataset.token, verbose=self.verbose, columns=self.dataset.columns)
        self.parts = [part if codes is None else codes for part, codes in zip(self.parts, kept)]
        self.record(kind, start)
        return summary

    def stratified(self, k, seed, stream):
        return Folds.stratified(self.class_counts, k, seed, stream, order=self.class_order)

    def count(self, repeats, k):
        """``(run, fold summaries)``: every fold's count table of every repeat in one pass, a list of k fold
        tables per repeat, counted by this run; or by a run after a schema pass when an integer column is too
        wide to count by value."""
        return self.plan.by_value_or(
            lambda: (self, self._count_by_value(repeats, k)),
            lambda plan: _WithSchemaRun(self.estimator, self.dataset, plan, self.record, stratify=False).count(
                repeats, k))

    def _count_by_value(self, repeats, k):
        classes = None if self.schema is None else self.schema.classes
        blocks = partial(fold_blocks, repeats, k, classes)
        counts = self._pass("count" if self.schema is None else "folds",
                            [partial(count_blocks, self.coder, blocks, k, len(repeats), self.budget, self.limit, info)
                             for info in self.infos])
        if self.schema is None:
            self._set_schema(counts)
        table = counts.count_table(self.schema)
        n = len(self.classes)
        return [[table.class_columns(slice((r * k + i) * n, (r * k + i + 1) * n)) for i in range(k)]
                for r in range(len(repeats))]

    def model(self, train):
        return type(self.estimator).from_counts(train, self.schema, n_features_in=len(self.dataset.columns),
                                                **self.estimator.get_params())

    def score(self, models, repeats, measure):
        start = time.perf_counter()
        read = self.dataset.map(_score_folds, models, repeats, measure, (None,) * len(self.parts),  # not kept
                                with_info=True, categorical_target=True)
        fns = score_functions(self.parts, self.infos, read, models, repeats, measure)
        out, _ = execution.run_pass(self.parts, fns, merge_summaries, split_every=self.estimator.split_every,
                                    name="nbparallel-cv-score", token=self.dataset.token, verbose=self.verbose)
        self.record("score", start)
        return out


def _naive_bayes_run(estimator, X, y, sample_weight, record, stratify):
    """The cross-validation run of a :class:`NaiveBayes`: by value where its fit counts by value, else after
    a schema pass."""
    dataset = estimator.dataset(X, y, sample_weight)
    plan = CountingPlan.for_table(estimator.get_params(), dataset, weighted=sample_weight is not None)
    return plan.by_value_or(lambda: _ByValueRun(estimator, dataset, plan, record, stratify),
                            lambda two_passes: _WithSchemaRun(estimator, dataset, two_passes, record, stratify))


class _CodedRun(_WithSchemaRun):
    """Cross-validation of a counting model of another summary type, counted from codes after a schema pass:
    every fold's summary by the summary type's ``of_codes`` in one counting pass, and each fold's rows scored
    by its model's ``scoring_inputs``; a fold's model is ``from_counts(total - fold)``, as for the others."""

    def count(self, repeats, k):
        """Every fold's summary of every repeat in one counting pass: a list of k fold summaries per repeat."""
        summary_type = type(self.estimator).summary_type
        n_classes = len(self.classes)
        n_rows = summary_type.table_size(self.schema)[0]  # a task's table: its rows of the classes' counts
        TableLimit.of(self.dataset.partitions).check(n_rows, n_classes, k, len(repeats))
        start = time.perf_counter()
        tasks = self.dataset.map(count_coded_folds, summary_type, fold_spec(self.schema), repeats, k, with_info=True)
        summary, _ = execution.run_pass(self.dataset.partitions, tasks, merge_summaries,
                                        split_every=self.estimator.split_every, name="nbparallel-cv-count",
                                        token=self.dataset.token, verbose=self.verbose)
        self.record("count", start)
        return self, [[part.class_columns(slice(i * n_classes, (i + 1) * n_classes)) for i in range(k)]
                      for part in summary.parts]

    def score(self, models, repeats, measure):
        start = time.perf_counter()
        tasks = self.dataset.map(_score_coded_folds, models, repeats, measure, with_info=True)
        out, _ = execution.run_pass(self.dataset.partitions, tasks, merge_summaries,
                                    split_every=self.estimator.split_every, name="nbparallel-cv-score",
                                    token=self.dataset.token, verbose=self.verbose)
        self.record("score", start)
        return out


class _MDLPairRun(_CodedRun):
    """Cross-validation of AODE or TAN with ``n_bins="mdl"``, whose folds' pair counts lie in layouts of their own:
    after the schema pass, one counting pass of every fold's fine counts (naive Bayes's, :class:`_WithSchemaRun`),
    each fold's MDL cuts from its training rows' fine counts (``total - fold``, as naive Bayes's fold models cut
    theirs, on the whole data's fine grid), then one pass of every fold's training pair counts in its intervals
    (:func:`~nbparallel.summaries.fold_counts.count_fold_pair_trains`), and the scoring pass."""

    def count(self, repeats, k):
        run, fine = _WithSchemaRun.count(self, repeats, k)
        self.bin_edges = [[mdl_bin_edges(self.schema, merge_summaries(*tests) - test) for test in tests]
                          for tests in fine]
        recodings = tuple(tuple(interval_recoding(self.schema, edges) for edges in fold_edges)
                          for fold_edges in self.bin_edges)
        cells = max(PairCounts.table_size(self.schema, r.offsets)[0] for fold in recodings for r in fold)
        TableLimit.of(self.dataset.partitions).check(cells, len(self.classes), k, len(repeats))
        start = time.perf_counter()
        tasks = self.dataset.map(count_fold_pair_trains, fold_spec(self.schema), recodings, repeats, k,
                                 with_info=True)
        summary, _ = execution.run_pass(self.dataset.partitions, tasks, merge_summaries,
                                        split_every=self.estimator.split_every, name="nbparallel-cv-pairs",
                                        token=self.dataset.token, verbose=self.verbose)
        self.record("pairs", start)
        self.trains = [list(part.parts) for part in summary.parts]
        return run, fine

    def model_of_fold(self, j, k):
        """Fold ``j``'s model (repeat ``j // k``, fold ``j % k``): its training pair counts in its intervals."""
        r, i = divmod(j, k)
        return type(self.estimator).from_counts(self.trains[r][i], (self.schema, self.bin_edges[r][i]),
                                                n_features_in=len(self.dataset.columns),
                                                **self.estimator.get_params())


def _score_coded_folds(models, repeats, measure, X, y, w, info):
    """Per fold of every repeat: the evaluation of its rows under the model that did not see them, each scored
    by the model's own ``scoring_inputs``."""
    schema = models[0].schema_
    truth = schema.encode_classes(y)
    return _score(models, repeats, measure, X, truth, schema.encode_classes(y, w) if w is not None else truth, w,
                  info)


def _coded_run(estimator, X, y, sample_weight, record, stratify):
    """The cross-validation run of a counting model of a summary type counted from codes after a schema pass."""
    dataset = estimator.dataset(X, y, sample_weight)
    plan = estimator.counting_plan(dataset, weighted=sample_weight is not None)
    return (_MDLPairRun if getattr(estimator, "n_bins", None) == MDL else _CodedRun)(estimator, dataset, plan, record,
                                                                                     stratify)


def _in_memory(dataset):
    """``(X, y)`` of a dataset of in-memory partitions, to hand a splitter."""
    if not all(isinstance(p, tuple) for p in dataset.partitions):
        raise TypeError("a scikit-learn splitter needs in-memory data; for Dask collections and files pass "
                        "cv as the number of folds")
    Xs = [p[0] for p in dataset.partitions]
    frame = pd.concat(Xs) if isinstance(Xs[0], pd.DataFrame) else np.concatenate(Xs)
    return frame, np.concatenate([p[1] for p in dataset.partitions])


def _known_rows(dataset):
    """Each partition's row count when known before reading it (in-memory data, files' metadata), else None."""
    rows = dataset.partition_rows
    if rows is not None and len(rows) == len(dataset.partitions):
        return list(rows)
    if all(isinstance(p, tuple) for p in dataset.partitions):
        return [len(p[0]) for p in dataset.partitions]
    return None


def _score_text_folds(models, repeats, measure, X, y, w, info):
    truth = np.searchsorted(models[0].classes_, y).astype(np.int64)
    return _score(models, repeats, measure, X, truth, truth, None, info)


class _TextRun:
    """Cross-validation of a multinomial or Bernoulli model: dense, scipy.sparse or Dask arrays. Its labels
    are in memory, so stratified folds need no tally in a pass (``stratify`` is not used here)."""

    def __init__(self, estimator, X, y, sample_weight, record, stratify):
        self.estimator, self.record, self.X = estimator, record, X
        self.data = as_partitions(X, y, sample_weight, n_partitions=estimator.n_partitions)
        self.n_rows = self.data.n_rows
        self.classes = np.unique(self.data.y)
        self.sample_weight = sample_weight

    def stratified(self, k, seed, stream):
        """Stratified folds from the labels, which are in memory: one fold label per row."""
        y = self.data.y
        codes = np.searchsorted(self.classes, y).astype(np.int64)
        if self.sample_weight is not None:
            codes[check_weights(self.sample_weight, self.n_rows) == 0] = -1
        values, counts = tally_classes(codes[codes >= 0])
        tally, order = class_count_matrix([(values, counts)], lambda v: v, len(self.classes))
        labels = Folds.stratified(tally, k, seed, stream, order=order).of(PartitionInfo(0, 0), len(codes), codes)
        return Folds(k, labels=labels)

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

    def count(self, repeats, k):
        estimator, data = self.estimator, self.data
        check_classes(self.classes)
        n_classes = len(self.classes)
        check_text_tables(data, n_classes, k, len(repeats))
        plan = estimator.counting_plan(data)
        summary = self._run("count", count_text_folds,
                            (self.classes, repeats, k, data.n_features, plan.binarize, plan.allow_negative,
                             type(estimator).__name__), merge_summaries)
        return self, [[part.class_columns(slice(i * n_classes, (i + 1) * n_classes)) for i in range(k)]
                      for part in summary.parts]

    def model(self, train):
        return type(self.estimator).from_counts(train, self.classes, n_features_in=self.data.n_features,
                                                feature_names_in=self.data.feature_names,
                                                **self.estimator.get_params())

    def score(self, models, repeats, measure):
        return self._run("score", _score_text_folds, (models, repeats, measure), merge_summaries)


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
    return Folds(i + 1, labels=labels), i + 1


#: the run of an estimator by its summary type: attribute tables (with Gaussian moments) or count matrices; any
#: other summary type is counted from codes after a schema pass (:class:`_CodedRun`)
RUNS = {CountTable: _naive_bayes_run, FeatureCounts: _TextRun}


def _runner(estimator):
    """The run of ``estimator``'s kind (one the registry marks ``cross_validated``), by its summary type (any
    other than those of :data:`RUNS` counted by its ``of_codes``, :class:`_CodedRun`)."""
    kind = kind_of_model(estimator)
    if kind is None or not kind.cross_validated:
        taken = names_of(kinds_where(lambda k: k.cross_validated), "or")
        raise TypeError(f"cross_validate takes a {taken} estimator, got {type(estimator).__name__}")
    return RUNS.get(type(estimator).summary_type, _coded_run)


def _check_fold_options(cv, shuffle, stratify, n_repeats, random_state):
    if not isinstance(shuffle, (bool, np.bool_)):
        raise TypeError(f"shuffle must be True or False, got {shuffle!r}")
    if not isinstance(stratify, (bool, np.bool_)):
        raise TypeError(f"stratify must be True or False, got {stratify!r}")
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
        raise ValueError(f"n_repeats must be an int >= 1, got {n_repeats!r}")
    if n_repeats > 1 and not shuffle:
        raise ValueError(f"n_repeats={n_repeats} needs shuffle=True: unshuffled repeats are the same folds")
    if random_state is not None and (isinstance(random_state, bool)
                                     or not isinstance(random_state, (int, np.integer)) or random_state < 0):
        raise ValueError(f"random_state must be None or an int >= 0, got {random_state!r}")
    if hasattr(cv, "split") and (shuffle or stratify or n_repeats != 1 or random_state is not None):
        raise ValueError("shuffle, stratify, n_repeats and random_state describe folds cross_validate makes; "
                         "with a scikit-learn splitter as cv, set them on the splitter")


def fold_seed(random_state):
    """The seed of shuffled folds: ``random_state``, or a fresh one from the operating system."""
    if random_state is not None:
        return int(random_state)
    return int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])


def warn_unseen_classes(tests, total, classes, k):
    """Warn, per fold, about the classes its test rows hold and its training rows lack."""
    for j, test in enumerate(tests):
        held = np.asarray(test.class_weights) > 0
        lacking = held & (np.asarray((total - test).class_weights) <= 0)
        if lacking.any():
            r, i = divmod(j, k)
            where = f"fold {i}" + (f" of repeat {r}" if len(tests) > k else "")
            names = [c.item() if isinstance(c, np.generic) else c for c in np.asarray(classes)[lacking]]
            warnings.warn(f"{where}: its test rows hold classes {names} that its training rows lack, so they "
                          f"are never predicted right; shuffle or stratify the folds (shuffle=True, "
                          f"stratify=True; on the command line --shuffle --stratify)", UserWarning, stacklevel=3)


def cross_validate(estimator, X, y=None, *, cv=10, scoring=SCORINGS, sample_weight=None, shuffle=False,
                   stratify=False, n_repeats=1, random_state=None):
    """Exact k-fold cross-validation in one counting and one scoring pass.

    Parameters
    ----------
    estimator : NaiveBayes, MultinomialNaiveBayes, BernoulliNaiveBayes or ComplementNaiveBayes
        Its parameters (smoothing, bins, categorical and Gaussian features,
        partitions) are used; it is not fitted.
    X, y, sample_weight
        As for the estimator's ``fit``: for :class:`NaiveBayes` arrays,
        DataFrames, Dask collections or paths, the target as values or a
        column name; for the text models dense, ``scipy.sparse`` or Dask
        arrays and the labels.
    cv : int >= 2 or scikit-learn splitter, default 10
        k folds, made from each row's global index as the counting pass reads
        it (any input, files included): by default contiguous blocks of the
        row order (scikit-learn's unshuffled ``KFold``), shuffled and/or
        stratified as the next parameters say. Or, for in-memory data, a
        splitter such as ``StratifiedKFold(shuffle=True)`` whose test folds
        partition the rows.
    shuffle : bool, default False
        Folds over a seeded pseudo-random permutation of the rows (``KFold(k,
        shuffle=True)``'s sizes).
    stratify : bool, default False
        ``StratifiedKFold``'s folds: each class's rows spread over the folds,
        each fold's count of a class within one row of every other fold's
        (exactly ``StratifiedKFold(k)`` when not shuffled). Rows of weight
        zero are in no fold.
    n_repeats : int, default 1
        Repeated cross-validation (``RepeatedKFold``), each repeat shuffled
        with its own permutation; every repeat's folds are counted in the
        same counting pass and scored in the same scoring pass. Needs
        ``shuffle=True``.
    random_state : int or None
        Seed of the shuffled folds; None draws one, returned as
        ``folds["random_state"]``.
    scoring : sequence of "accuracy", "log_likelihood", "log_loss", "roc_auc"
        Per-fold scores, all in the same scoring pass, as ``evaluate`` computes
        them: accuracy, the SPSS average log-likelihood ``mean log P(y_i |
        x_i)`` (scikit-learn's ``neg_log_loss`` before clipping), the log loss
        (``sklearn.metrics.log_loss``: probabilities clipped to [eps, 1 - eps])
        and the ROC AUC (binary, or one-vs-rest macro average), from mergeable
        score histograms: ``test_roc_auc_error_bound`` bounds each fold's
        difference from the exact AUC. Accuracy alone is scored by the
        predict kernel (the best class of each row, no posterior), the others
        by the evaluation kernel.

    Returns
    -------
    dict
        ``test_<score>`` (array of k * n_repeats, repeat by repeat),
        ``n_test_rows`` (rows with a known target per fold),
        ``confusion_matrices`` (k * n_repeats, K, K), ``classes``, ``fold``
        and ``repeat`` (each entry's fold and repeat), ``folds`` (the fold
        settings: ``n_splits``, ``n_repeats``, ``shuffle``, ``stratify``,
        ``random_state``), and ``passes`` (kind and seconds of each pass:
        "count" and "score"; before them "schema" for a NaiveBayes not
        counted by value (it also counts each partition's rows and classes,
        which place them in the global row order and class ranks); for AODE and
        TAN with ``n_bins="mdl"``, "pairs" after "count" (the fine counts that
        cut each fold: its training pairs in its own intervals); for one
        counted by value whose rows or class ranks are known only once read,
        "count" is fit's pass and "folds" counts the fold tables from the
        codes it kept).

    Warns
    -----
    UserWarning
        When a fold's test rows hold a class its training rows lack, naming
        the fold and the classes.

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import NaiveBayes, cross_validate
    >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]] * 5)
    >>> y = np.array([0, 1, 1, 0] * 5)
    >>> result = cross_validate(NaiveBayes(categorical_features="all"), X, y, cv=5, scoring="accuracy")
    >>> float(np.mean(result["test_accuracy"]))
    1.0
    """
    run_type = _runner(estimator)
    scoring = (scoring,) if isinstance(scoring, str) else tuple(scoring)
    unknown = [s for s in scoring if s not in SCORINGS]
    if unknown or not scoring:
        raise ValueError(f"scoring must name some of {SCORINGS}, got {scoring!r}")
    _check_fold_options(cv, shuffle, stratify, n_repeats, random_state)
    estimator.validate_params()
    passes = []

    def record(kind, start):
        passes.append({"kind": kind, "seconds": time.perf_counter() - start})

    run = run_type(estimator, X, y, sample_weight, record, bool(stratify))
    seed = fold_seed(random_state) if shuffle else None
    if hasattr(cv, "split"):
        folds, k = _folds_from_splitter(cv, *run.in_memory(), run.n_rows)
        repeats = [folds]
    else:
        if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or not 2 <= cv <= run.n_rows:
            raise ValueError(f"cv must be an int between 2 and the number of rows ({run.n_rows}) "
                             f"or a scikit-learn splitter, got {cv!r}")
        k = int(cv)
        if stratify:
            repeats = [run.stratified(k, seed, r) for r in range(n_repeats)]
        elif shuffle:
            repeats = [Folds.shuffled(run.n_rows, k, seed, r) for r in range(n_repeats)]
        else:
            repeats = [Folds.blocks(run.n_rows, k)]
    run, per_repeat = run.count(repeats, k)  # a run counted by value may fall back to a schema pass
    total = merge_summaries(*per_repeat[0])
    tests = [test for fold_tests in per_repeat for test in fold_tests]
    warn_unseen_classes(tests, total, run.classes, k)
    models = []
    for j, test in enumerate(tests):
        train = total - test
        if train.class_weights.sum() <= 0:
            raise ValueError(f"fold {j % k}'s training rows hold no usable case")
        models.append(run.model_of_fold(j, k) if hasattr(run, "model_of_fold") else run.model(train))
    if set(scoring) == {"accuracy"}:
        measure = ScoringInputs.confusion
    else:  # the ROC histograms only where an AUC is asked: with many classes they are half the scoring pass
        measure = partial(ScoringInputs.evaluation, roc="roc_auc" in scoring)
    reports = [e.report() for e in run.score(models, repeats, measure).parts]
    confusion = np.stack([e["confusion_matrix"] for e in reports])
    n = confusion.sum(axis=(1, 2))
    names = {"accuracy": "accuracy", "log_likelihood": "average_log_likelihood", "log_loss": "log_loss",
             "roc_auc": "roc_auc"}
    scores = {s: np.array([e[names[s]] for e in reports]) for s in scoring}
    if "roc_auc" in scoring:
        scores["roc_auc_error_bound"] = np.array([e["roc_auc_error_bound"] for e in reports])
    index = np.arange(len(tests))
    return {**{f"test_{s}": v for s, v in scores.items()}, "n_test_rows": n, "confusion_matrices": confusion,
            "classes": run.classes, "fold": index % k, "repeat": index // k,
            "folds": {"n_splits": k, "n_repeats": len(repeats), "shuffle": bool(shuffle),
                      "stratify": bool(stratify), "random_state": seed},
            "passes": passes}

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

import math
import time
import warnings
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd

from nbparallel.data.columns import CATEGORICAL
from nbparallel.data.partitions import PartitionInfo
from nbparallel.data.schema_pass import ColumnScan, merge_scans, scan_partition, schema_of_scan
from nbparallel.data.sparse import as_partitions, check_weights, is_dask_array, row_slice
from nbparallel.data.vocabularies import EqualValuesOfTypes
from nbparallel.engine import execution, memory
from nbparallel.engine.reduce import reduce_now
from nbparallel.engine.scheduler import PassScheduler
from nbparallel.kernels.counting import count_partition
from nbparallel.model_selection.folds import Folds, class_count_matrix, tally_classes
from nbparallel.models.base import ScoringInputs
from nbparallel.models.complement import ComplementNaiveBayes
from nbparallel.models.naive_bayes import NaiveBayes, check_classes
from nbparallel.models.plan import BY_VALUE, CountingPlan
from nbparallel.models.text import BernoulliNaiveBayes, MultinomialNaiveBayes
from nbparallel.summaries.counts import CountSpec, CountTable
from nbparallel.summaries.dictionary_counts import (
    CodedRows,
    DictionaryCounts,
    WideIntegers,
    partition_coder,
    schema_of_counts,
)
from nbparallel.summaries.evaluation import Evaluation
from nbparallel.summaries.features import count_part
from nbparallel.summaries.moments import CountsAndMoments, GaussianMoments, gaussian_values, partition_moments
from nbparallel.summaries.protocol import merge_summaries

SCORINGS = ("accuracy", "log_likelihood", "log_loss", "roc_auc")
TEXT_MODELS = (MultinomialNaiveBayes, BernoulliNaiveBayes, ComplementNaiveBayes)


@dataclass(frozen=True)
class PerRepeat:
    """One summary per repeat of the folds, merged repeat by repeat."""

    parts: tuple

    def __add__(self, other):
        return PerRepeat(tuple(a + b for a, b in zip(self.parts, other.parts)))


@dataclass(frozen=True)
class ScanAndClasses:
    """The schema pass's summary and each partition's rows per class (stratified folds; else None), in partition
    order."""

    scan: ColumnScan
    tallies: tuple

    def __add__(self, other):
        return ScanAndClasses(merge_scans(self.scan, other.scan), self.tallies + other.tallies)


def _scan_and_tally(columns, kinds, known, tally, X, y, w):
    """The schema pass's summary of a partition, with its rows per class when ``tally`` (stratified folds)."""
    return ScanAndClasses(scan_partition(columns, kinds, known, X, y, w), (tally_classes(y, w) if tally else None,))


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


def _count_folds(spec, repeats, k, gaussian, budget, X, y, w, info):
    """One partition's codes as counted to keep (or None) and its summaries, one per repeat of the folds
    (:class:`PerRepeat`).

    Without Gaussian attributes, and within ``budget`` bytes, the codes are kept as counted
    (:meth:`~nbparallel.summaries.counts.CountSpec.counted_codes`: the numeric values binned once), which the
    counting kernel counts and the scoring pass scores (:meth:`NaiveBayes.inputs_of_counted`): no value is
    binned, and no string encoded, again there."""
    n_classes = len(spec.schema.classes)
    classes = spec.schema.encode_classes(y, w)
    codes, values = spec.schema.split(X)
    kept = None
    at_most = 2 * len(values) * (codes.shape[1] + values.shape[1])  # uint16 codes at most
    if not gaussian and budget is not None and at_most <= budget:
        codes = kept = spec.counted_codes(codes, values)
        values = values[:, :0]
    weights = None if w is None else np.asarray(w, dtype=np.float64)
    numbers = gaussian_values(X, list(gaussian)) if gaussian else None
    return kept, PerRepeat(tuple(_count_repeat(spec, folds, k, gaussian, n_classes, classes, codes, values, weights,
                                               numbers, info) for folds in repeats))


def _count_repeat(spec, folds, k, gaussian, n_classes, classes, codes, values, weights, numbers, info):
    """One partition's summary in a ``K * k``-class layout (class code ``y + K * fold``): the count
    table of the counted attributes, and with Gaussian columns (their positions) their moments too.
    ``info`` (:class:`~nbparallel.data.partitions.PartitionInfo`) places its rows in the global order."""
    labels = folds.labels_of(classes, n_classes, info, weights)
    edges = spec.edges if values.shape[1] else np.empty((0, 0))
    table, totals, all_missing, n_missing = count_partition(
        codes, values, labels, weights, spec.offsets, edges, n_classes * k)
    counts = CountTable(table, spec.offsets, totals, all_missing, int(n_missing))
    if not gaussian:
        return counts
    others_missing = (codes == 0).all(axis=1) & np.isnan(values).all(axis=1)
    moments = GaussianMoments.empty(n_classes * k, len(gaussian))
    for i, rows in folds.segments(info, len(labels), classes, weights):  # per fold: K-class moments
        fold = partition_moments(numbers[rows], classes[rows], None if weights is None else weights[rows],
                                 n_classes, others_missing[rows])
        cols = slice(i * n_classes, (i + 1) * n_classes)
        for name in ("n", "mean", "m2", "all_missing"):
            getattr(moments, name)[cols] = getattr(fold, name)
    return CountsAndMoments(counts, moments)


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

    def __init__(self, estimator, dataset, record, stratify):
        self.estimator, self.record = estimator, record
        self.verbose = bool(estimator.verbose)
        start = time.perf_counter()
        # the three passes read the same partitions: read them once when they fit in memory (known from the
        # files' metadata before the schema pass, else from the rows it counts)
        scheduler = PassScheduler(dataset, split_every=estimator.split_every, verbose=self.verbose)
        if scheduler.dataset.n_rows is not None:
            scheduler.keep_if_fits(scheduler.dataset.n_rows)
        dataset = scheduler.dataset
        # the schema pass also counts each partition's rows (the offsets that place them in the global
        # order) and, for stratified folds, each partition's rows per class (the class ranks)
        known = set(dataset.ranges or ())
        merged, _ = execution.run_pass(
            dataset.partitions, dataset.map(_scan_and_tally, dataset.columns, dataset.kinds, known, stratify),
            merge_summaries, split_every=estimator.split_every, name="nbparallel-cv-schema",
            token=dataset.token, verbose=self.verbose)
        plan = CountingPlan.for_table(estimator.get_params(), dataset, by_value=False)
        schema = schema_of_scan(dataset, merged.scan, plan.n_bins, None)
        check_classes(schema.classes)
        if stratify:
            self.class_counts, self.class_order = class_count_matrix(merged.tallies, schema.encode_classes,
                                                                     len(schema.classes))
        record("schema", start)
        self.infos = dataset.partition_infos()
        self.n_rows = int(sum(dataset.partition_rows))
        scheduler.keep_if_fits(self.n_rows)
        self.dataset = scheduler.dataset
        self.schema = plan.finish_schema(schema)
        self.gaussian = plan.gaussian_positions(self.schema)
        self.classes = np.asarray(schema.classes)

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
        limit = _TableLimit.of(self.dataset.partitions)
        limit.check(table.offsets[-1] + 2 * len(self.gaussian), n_classes, k, len(repeats))
        start = time.perf_counter()
        budget = _keep_budget(self.dataset.partitions)
        tasks = self.dataset.map(_count_folds, CountSpec.of(table), repeats, k, self.gaussian, budget,
                                 with_info=True)
        leaves = execution.map_partitions(self.dataset.partitions, tasks, name="nbparallel-cv-count",
                                          token=self.dataset.token, verbose=self.verbose)
        self.kept = tuple(kept for kept, _ in leaves)
        summary, _ = reduce_now([leaf for _, leaf in leaves], merge_summaries, self.estimator.split_every)
        self.record("count", start)
        return [[part.class_columns(slice(i * n_classes, (i + 1) * n_classes)) for i in range(k)]
                for part in summary.parts]

    def model(self, train):
        counts, moments = train, None
        if isinstance(train, CountsAndMoments):
            counts, moments = train.counts, train.moments
        return NaiveBayes.from_counts(counts, self.schema, n_features_in=len(self.dataset.columns),
                                      moments=moments, **self.estimator.get_params())

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
        self.coder = partition_coder(dataset)
        self.parts = list(dataset.partitions)  # a partition, or its CodedRows once kept
        self.budget = _keep_budget(self.parts)
        self.limit = _TableLimit.of(self.parts)
        self.schema = None
        rows = _known_rows(dataset)
        if rows is None or stratify:  # the rows, classes and vocabularies first: fit's own pass
            summary = self._pass("count", [partial(_count_whole, self.coder, stratify, self.budget)] * len(self.parts))
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

    def in_two_passes(self):
        """The same cross-validation after a schema pass (an integer column too wide to count by value)."""
        return _WithSchemaRun(self.estimator, self.dataset, self.record, stratify=False)

    def _set_schema(self, counts):
        schema = schema_of_counts(self.dataset, counts, self.plan.n_bins)
        check_classes(schema.classes)
        self.schema = self.plan.finish_schema(schema)
        self.classes = np.asarray(schema.classes)

    def _pass(self, kind, fns):
        """One pass over the partitions (or their kept codes): each leaf gives its CodedRows to keep (or None)
        and its summary; returns the merged summary."""
        start = time.perf_counter()
        try:
            leaves = execution.map_partitions(self.parts, fns, name="nbparallel-cv-count", token=self.dataset.token,
                                              verbose=self.verbose)
            summary, _ = reduce_now([leaf[1] for leaf in leaves], merge_summaries, self.estimator.split_every)
        except EqualValuesOfTypes as exc:
            raise exc.naming(self.dataset.columns) from None
        self.parts = [part if kept is None else kept for part, (kept, _) in zip(self.parts, leaves)]
        self.record(kind, start)
        return summary

    def stratified(self, k, seed, stream):
        return Folds.stratified(self.class_counts, k, seed, stream, order=self.class_order)

    def count(self, repeats, k):
        """Every fold's count table of every repeat in one pass; returns a list of k fold tables per repeat."""
        classes = None if self.schema is None else self.schema.classes
        blocks = partial(_fold_blocks, repeats, k, classes)
        counts = self._pass("count" if self.schema is None else "folds",
                            [partial(_count_blocks, self.coder, blocks, k, len(repeats), self.budget, self.limit, info)
                             for info in self.infos])
        if self.schema is None:
            self._set_schema(counts)
        table = counts.count_table(self.schema)
        n = len(self.classes)
        return [[table.class_columns(slice((r * k + i) * n, (r * k + i + 1) * n)) for i in range(k)]
                for r in range(len(repeats))]

    def model(self, train):
        return NaiveBayes.from_counts(train, self.schema, n_features_in=len(self.dataset.columns),
                                      **self.estimator.get_params())

    def score(self, models, repeats, measure):
        start = time.perf_counter()
        read = self.dataset.map(_score_folds, models, repeats, measure, (None,) * len(self.parts),  # not kept
                                with_info=True, categorical_target=True)
        fns = [partial(_score_coded, models, repeats, measure, info) if isinstance(part, CodedRows) else read[i]
               for i, (part, info) in enumerate(zip(self.parts, self.infos))]
        out, _ = execution.run_pass(self.parts, fns, merge_summaries, split_every=self.estimator.split_every,
                                    name="nbparallel-cv-score", token=self.dataset.token, verbose=self.verbose)
        self.record("score", start)
        return out


def _naive_bayes_run(estimator, X, y, sample_weight, record, stratify):
    """The cross-validation run of a :class:`NaiveBayes`: by value where its fit counts by value, else after
    a schema pass."""
    dataset = estimator.dataset(X, y, sample_weight)
    plan = CountingPlan.for_table(estimator.get_params(), dataset, weighted=sample_weight is not None)
    if plan.kind == BY_VALUE:
        try:
            return _ByValueRun(estimator, dataset, plan, record, stratify)
        except WideIntegers:  # an integer column too wide to count by value
            pass
    return _WithSchemaRun(estimator, dataset, record, stratify)


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


def _keep_budget(partitions):
    """Bytes of codes each partition may keep between passes: half this process's free memory shared among
    the partitions; None (keep nothing) when the passes run on a cluster's workers, whose codes would travel."""
    client = execution.active_client()
    if client is not None and not execution.runs_locally(partitions, client):
        return None
    available = memory.available_memory(partitions)
    return math.inf if available is None else 0.5 * available / max(len(partitions), 1)


@dataclass(frozen=True)
class _TableLimit:
    """The memory the fold tables may take: ``cell_bytes`` per table cell (the tables alive at once, see
    :func:`nbparallel.engine.memory.table_bytes`) within ``available`` bytes (None: unknown)."""

    cell_bytes: int
    available: int | None

    @classmethod
    def of(cls, partitions):
        return cls(memory.table_bytes(1, 1, len(partitions)), memory.available_memory(partitions))

    def check(self, n_table_rows, n_classes, k, n_repeats):
        """ValueError when the fold tables of ``n_classes`` classes do not fit."""
        n_bytes = int(n_table_rows) * n_classes * k * n_repeats * self.cell_bytes
        if self.available is not None and n_bytes > self.available:
            memory.check_memory(n_bytes, f"the fold tables of {n_classes} classes x {k} folds x {n_repeats} repeats",
                                "use fewer folds, repeats or bins")


@dataclass(frozen=True)
class _CountsAndTallies:
    """The first by-value pass's summary: the counts, and each partition's rows per class (stratified folds;
    else None) in partition order."""

    counts: DictionaryCounts
    tallies: tuple

    def __add__(self, other):
        return _CountsAndTallies(self.counts + other.counts, self.tallies + other.tallies)


def _kept(coded, budget):
    """``coded`` when it is to be kept (within ``budget`` bytes), else None."""
    return coded if budget is not None and coded.nbytes <= budget else None


def _count_whole(coder, tally, budget, part):
    """A partition's codes to keep (or None) and its :class:`_CountsAndTallies`: its counts (one block,
    as its fit counts them) and, with ``tally``, its rows per class."""
    coded = coder(part)
    counts = coded.count()
    return _kept(coded, budget), _CountsAndTallies(counts, (coded.class_tally() if tally else None,))


def _fold_blocks(repeats, k, classes, coded, info):
    """``(runs, blocks)`` of :meth:`CodedRows.count`: each row's block ``fold + k * repeat`` under every
    repeat's folds, as runs of rows for contiguous folds, else as each row's fold (-1: in none). ``classes``:
    the schema's classes (stratified folds place rows by class rank), or None."""
    truth = None if classes is None else _truth(classes, coded)
    runs, blocks = [], []
    for r, folds in enumerate(repeats):
        if folds.is_contiguous:
            runs += [(rows, i + k * r) for i, rows in folds.segments(info, len(coded))]
        else:
            blocks.append((folds.of(info, len(coded), truth), k * r))
    return runs, blocks


def _count_blocks(coder, blocks, k, n_repeats, budget, limit, info, part):
    """A partition's codes to keep (or None) and its :class:`DictionaryCounts` of ``k * n_repeats`` blocks,
    each row counted under its block of every repeat (``blocks(coded, info)``: see :func:`_fold_blocks`);
    ``part`` is the partition or its kept codes."""
    coded = part if isinstance(part, CodedRows) else coder(part)
    limit.check(sum(len(v) + 1 for v in coded.vocabularies), len(coded.classes) + 1, k, n_repeats)
    return _kept(coded, budget), coded.count(*blocks(coded, info), k * n_repeats)


def _class_positions(classes, local):
    """The position in ``classes`` of each of a partition's classes ``local``, and -1 after them (the
    code of a missing target)."""
    index = {c: i for i, c in enumerate(classes)}
    return np.array([index[c] for c in local] + [-1], dtype=np.int64)


def _truth(classes, coded):
    """The position in ``classes`` of each kept row's class, -1 for a missing target: the kept class codes
    themselves when they are those positions (no array per row)."""
    positions = _class_positions(classes, coded.classes)
    same = np.array_equal(positions[:-1], np.arange(len(classes)))
    if same and not np.any(coded.classes_of_rows == len(classes)):
        return coded.classes_of_rows
    return positions[coded.classes_of_rows]


def _score_coded(models, repeats, measure, info, coded):
    """:func:`_score_folds` of a partition's kept codes: each fold's rows scored by the scoring kernel through
    its model's log table re-indexed to the partition's dictionaries (a lookup of the table's rows per model,
    no work per row), the terms added in the table's order as from the model's own codes."""
    schema = models[0].schema_
    truth = _truth(schema.classes, coded)
    codes, rows_of = _local_table_rows(schema, coded)
    k = len(models) // len(repeats)
    out = [Evaluation.empty(len(schema.classes)) for _ in models]
    for r, folds in enumerate(repeats):
        for i, rows in folds.segments(info, len(truth), truth):
            model = models[r * k + i]
            inputs = model.inputs_of_split(codes[rows], None)
            table_rows, offsets = rows_of(model, inputs.offsets)
            out[r * k + i] = measure(inputs._replace(table=inputs.table[table_rows], offsets=offsets), truth[rows])
    return PerRepeat(tuple(out))


def _local_table_rows(schema, coded):
    """``(codes, rows_of)``: a partition's codes with its attributes in table order, and
    ``rows_of(model, model_offsets) -> (rows, offsets)``, the rows of a model's log table that the
    partition's codes ``0 ..`` of each attribute stand for (0, the missing row, for a missing value)
    and the offsets of those codes."""
    attributes = schema.counted().attributes
    order = [schema.position_of(at.name) for at in attributes]
    codes = coded.codes if order == list(range(coded.codes.shape[1])) else np.asfortranarray(coded.codes[:, order])
    vocabularies = [coded.vocabularies[a] for a in order]
    places = []  # per attribute: the vocabulary index of each code, -1 for none
    for a, vocabulary in zip(order, vocabularies):
        places.append(np.arange(len(vocabulary) + 1 - coded.shift[a]) + coded.shift[a] - 1)
    offsets = np.concatenate([[0], np.cumsum([len(p) for p in places])]).astype(np.int64)
    categorical = {}  # the model codes of the categorical attributes, the same for every model
    for j, (at, vocabulary, place) in enumerate(zip(attributes, vocabularies, places)):
        if at.kind == CATEGORICAL:  # the categories hold every value seen, of the same types (merged by value)
            code = {v: i + 1 for i, v in enumerate(at.categories)}
            model_codes = np.array([code.get(v, 0) for v in vocabulary] + [0], dtype=np.int64)
            categorical[j] = model_codes[place]  # place -1 reads the appended 0: the missing row
    binned = [j for j, at in enumerate(attributes) if at.kind != CATEGORICAL]
    values = np.full((max([len(places[j]) for j in binned] + [0]), len(binned)), np.nan)
    for b, j in enumerate(binned):
        valid = places[j] >= 0
        values[: len(places[j])][valid, b] = np.asarray(vocabularies[j], dtype=np.float64)[places[j][valid]]

    def rows_of(model, model_offsets):
        bins = model.inputs_of_split(values[:, :0], values).second if binned else None
        model_codes = [categorical[j] if j in categorical else bins[: len(places[j]), binned.index(j)]
                       for j in range(len(attributes))]
        return np.concatenate([model_offsets[j] + c.astype(np.int64) for j, c in enumerate(model_codes)]
                              + [np.zeros(0, np.int64)]), offsets

    return codes, rows_of


def _count_text_folds(classes, repeats, k, n_features, binarize, allow_negative, name, X, y, w, info):
    """One partition's :class:`FeatureCounts` over class-fold codes ``y + K * fold``, one per repeat."""
    codes = np.searchsorted(classes, y).astype(np.int64)
    return PerRepeat(tuple(
        count_part(np.arange(len(classes) * k), n_features, binarize, allow_negative, name, X,
                   folds.labels_of(codes, len(classes), info), w) for folds in repeats))


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
        memory.check_memory(memory.table_bytes(data.n_features, n_classes * k * len(repeats), len(data.partitions)),
                            f"the fold tables of {n_classes} classes x {k} folds x {len(repeats)} repeats x "
                            f"{data.n_features} features", "use fewer folds, repeats or features", data.partitions)
        plan = estimator.counting_plan()
        summary = self._run("count", _count_text_folds,
                            (self.classes, repeats, k, data.n_features, plan.binarize, plan.allow_negative,
                             type(estimator).__name__), merge_summaries)
        return [[part.class_columns(slice(i * n_classes, (i + 1) * n_classes)) for i in range(k)]
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


def _runner(estimator):
    if type(estimator) is NaiveBayes:
        return _naive_bayes_run
    if type(estimator) in TEXT_MODELS:
        return _TextRun
    raise TypeError("cross_validate takes a NaiveBayes (categorical, binned or Gaussian attributes: "
                    "numeric='gaussian'), MultinomialNaiveBayes, BernoulliNaiveBayes or ComplementNaiveBayes "
                    "estimator, "
                    f"got {type(estimator).__name__}")


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
        which place them in the global row order and class ranks); for one
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
    try:
        per_repeat = run.count(repeats, k)
    except WideIntegers:  # an integer column too wide to count by value: after a schema pass
        run = run.in_two_passes()
        per_repeat = run.count(repeats, k)
    total = merge_summaries(*per_repeat[0])
    tests = [test for fold_tests in per_repeat for test in fold_tests]
    warn_unseen_classes(tests, total, run.classes, k)
    models = []
    for j, test in enumerate(tests):
        train = total - test
        if train.class_weights.sum() <= 0:
            raise ValueError(f"fold {j % k}'s training rows hold no usable case")
        models.append(run.model(train))
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

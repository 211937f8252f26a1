"""Per-fold summaries of cross-validation, counted in one pass.

A row of class ``y`` in fold ``f`` is counted under class code ``y + K * f``
of a ``K * k``-class summary (:func:`count_folds`, :func:`count_text_folds`), or,
counted by value, under block ``f`` of its partition's dictionaries
(:func:`count_blocks`); a fold's training summary is then the total minus the
fold's. The folds are objects with ``labels_of``, ``segments``, ``of`` and
``is_contiguous`` (:class:`nbparallel.model_selection.folds.Folds`). This module
also runs cross-validation's schema pass, which tallies each partition's rows
per class (:func:`scan_pass`), and the counting passes that keep each
partition's codes for the scoring pass (:func:`keep_budget`,
:func:`map_and_reduce`); it checks that the fold tables fit in memory
(:class:`TableLimit`, :func:`check_text_tables`) and scores kept codes
(:func:`score_coded`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from nbparallel.data.columns import CATEGORICAL
from nbparallel.data.schema_pass import ColumnScan, merge_scans, scan_partition
from nbparallel.data.vocabularies import EqualValuesOfTypes
from nbparallel.engine import execution, memory
from nbparallel.engine.reduce import reduce_now
from nbparallel.engine.scheduler import PassScheduler
from nbparallel.kernels.counting import count_partition
from nbparallel.summaries.counts import CountSpec, CountTable
from nbparallel.summaries.dictionary_counts import CodedRows, DictionaryCounts
from nbparallel.summaries.evaluation import Evaluation
from nbparallel.summaries.features import count_part
from nbparallel.summaries.moments import CountsAndMoments, GaussianMoments, gaussian_values, partition_moments
from nbparallel.summaries.pair_counts import PairCounts
from nbparallel.summaries.protocol import merge_summaries


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


def scan_and_tally(columns, kinds, known, tally, X, y, w):
    """The schema pass's summary of a partition, with its rows per class ``tally(y, w)`` unless ``tally`` is
    None (stratified folds)."""
    return ScanAndClasses(scan_partition(columns, kinds, known, X, y, w), (None if tally is None else tally(y, w),))



def count_folds(spec, repeats, k, gaussian, budget, X, y, w, info):
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



def count_coded_folds(summary_type, spec, repeats, k, X, y, w, info):
    """One partition's summaries of ``summary_type``, one per repeat of the folds (:class:`PerRepeat`), each in
    a ``K * k``-class layout (class code ``y + K * fold``): its rows as codes under ``spec`` (numeric values
    binned under the counting bins) counted by the summary type's own ``of_codes(codes, classes, weights,
    offsets, n_classes)``. ``info`` (:class:`~nbparallel.data.partitions.PartitionInfo`) places its rows in the
    global order."""
    n_classes = len(spec.schema.classes)
    classes = spec.schema.encode_classes(y, w)
    codes = spec.counted_codes(*spec.schema.split(X))
    weights = None if w is None else np.asarray(w, dtype=np.float64)
    return PerRepeat(tuple(summary_type.of_codes(codes, folds.labels_of(classes, n_classes, info, weights), weights,
                                                 spec.offsets, n_classes * k) for folds in repeats))


def count_fold_pair_trains(spec, recodings, repeats, k, X, y, w, info):
    """One partition's pair counts of every fold's training rows, each in its own layout: per repeat
    (:class:`PerRepeat`) a :class:`PerRepeat` of the k folds' :class:`~nbparallel.summaries.pair_counts.PairCounts`,
    fold i's of the rows in no other fold than i's complement, recoded by ``recodings[repeat][i]`` (a
    :class:`~nbparallel.summaries.pair_counts.Recoding`: the fold's MDL intervals). Rows of a missing target are
    in no fold's counts."""
    n_classes = len(spec.schema.classes)
    classes = spec.schema.encode_classes(y, w)
    codes = spec.counted_codes(*spec.schema.split(X))
    weights = None if w is None else np.asarray(w, dtype=np.float64)
    out = []
    for folds, fold_recodings in zip(repeats, recodings):
        labels = folds.labels_of(classes, n_classes, info, weights)
        fold = np.where(labels >= 0, labels // n_classes, -1)
        trains = []
        for i, recoding in enumerate(fold_recodings[:k]):
            rows = (labels >= 0) & (fold != i)
            trains.append(PairCounts.of_codes(recoding(codes[rows]), labels[rows] % n_classes,
                                              None if weights is None else weights[rows], recoding.offsets, n_classes))
        out.append(PerRepeat(tuple(trains)))
    return PerRepeat(tuple(out))


def keep_budget(partitions):
    """Bytes of codes each partition may keep between passes: half this process's free memory shared among
    the partitions; None (keep nothing) when the passes run on a cluster's workers, whose codes would travel."""
    if not execution.backend_for(partitions).in_process:
        return None
    available = memory.available_memory(partitions)
    return math.inf if available is None else 0.5 * available / max(len(partitions), 1)


@dataclass(frozen=True)
class TableLimit:
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
class CountsAndTallies:
    """The first by-value pass's summary: the counts, and each partition's rows per class (stratified folds;
    else None) in partition order."""

    counts: DictionaryCounts
    tallies: tuple

    def __add__(self, other):
        return CountsAndTallies(self.counts + other.counts, self.tallies + other.tallies)


def _kept(coded, budget):
    """``coded`` when it is to be kept (within ``budget`` bytes), else None."""
    return coded if budget is not None and coded.nbytes <= budget else None


def count_whole(coder, tally, budget, part):
    """A partition's codes to keep (or None) and its :class:`CountsAndTallies`: its counts (one block,
    as its fit counts them) and, with ``tally``, its rows per class."""
    coded = coder(part)
    counts = coded.count()
    return _kept(coded, budget), CountsAndTallies(counts, (coded.class_tally() if tally else None,))


def fold_blocks(repeats, k, classes, coded, info):
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


def count_blocks(coder, blocks, k, n_repeats, budget, limit, info, part):
    """A partition's codes to keep (or None) and its :class:`DictionaryCounts` of ``k * n_repeats`` blocks,
    each row counted under its block of every repeat (``blocks(coded, info)``: see :func:`fold_blocks`);
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



def score_coded(models, repeats, measure, info, coded):
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



def count_text_folds(classes, repeats, k, n_features, binarize, allow_negative, name, X, y, w, info):
    """One partition's :class:`FeatureCounts` over class-fold codes ``y + K * fold``, one per repeat."""
    codes = np.searchsorted(classes, y).astype(np.int64)
    return PerRepeat(tuple(
        count_part(np.arange(len(classes) * k), n_features, binarize, allow_negative, name, X,
                   folds.labels_of(codes, len(classes), info), w) for folds in repeats))


def fold_spec(schema):
    """The :class:`~nbparallel.summaries.counts.CountSpec` :func:`count_folds` counts under: ``schema``'s
    counted attributes."""
    return CountSpec.of(schema.counted())


def scan_pass(dataset, tally, *, split_every, verbose):
    """The schema pass of cross-validation: ``(scheduler, ScanAndClasses)``. Its partitions are kept in memory
    (:class:`~nbparallel.engine.scheduler.PassScheduler`: the scheduler's dataset) when they fit, known from the
    files' metadata before the pass; ``tally(y, w)`` (or None) gives each partition's rows per class."""
    scheduler = PassScheduler(dataset, split_every=split_every, verbose=verbose)
    if scheduler.dataset.n_rows is not None:
        scheduler.keep_if_fits(scheduler.dataset.n_rows)
    dataset = scheduler.dataset
    known = set(dataset.ranges or ())
    merged, _ = execution.run_pass(
        dataset.partitions, dataset.map(scan_and_tally, dataset.columns, dataset.kinds, known, tally),
        merge_summaries, split_every=split_every, name="nbparallel-cv-schema", token=dataset.token,
        verbose=verbose)
    return scheduler, merged


def map_and_reduce(parts, fns, *, split_every, token, verbose, columns=None):
    """One pass whose leaves give ``(kept, summary)``: the kept values by partition and the merged summary.
    With ``columns``, equal values of different types name their column."""
    try:
        leaves = execution.map_partitions(parts, fns, name="nbparallel-cv-count", token=token, verbose=verbose)
        summary, _ = reduce_now([leaf[1] for leaf in leaves], merge_summaries, split_every)
    except EqualValuesOfTypes as exc:
        if columns is None:
            raise
        raise exc.naming(columns) from None
    return [kept for kept, _ in leaves], summary


def score_functions(parts, infos, read, models, repeats, measure):
    """Per partition, the scoring of its kept codes (:func:`score_coded`) or ``read[i]`` where it kept none."""
    return [partial(score_coded, models, repeats, measure, info) if isinstance(part, CodedRows) else read[i]
            for i, (part, info) in enumerate(zip(parts, infos))]


def check_text_tables(data, n_classes, k, n_repeats):
    """ValueError when the fold tables of a count matrix's ``data`` (:func:`count_text_folds`) do not fit."""
    memory.check_memory(memory.table_bytes(data.n_features, n_classes * k * n_repeats, len(data.partitions)),
                        f"the fold tables of {n_classes} classes x {k} folds x {n_repeats} repeats x "
                        f"{data.n_features} features", "use fewer folds, repeats or features", data.partitions,
                        task_bytes=memory.task_table_bytes(data.n_features, n_classes * k * n_repeats))

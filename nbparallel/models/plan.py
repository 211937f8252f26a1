"""The counting plan: what a counting pass over a dataset makes, decided in one place.

Every method that counts (``fit``, ``partial_fit``, cross-validation, boosting,
feature selection, AutoClass) asks :class:`CountingPlan` instead of deciding for
itself, from a model's parameters and the dataset. A plan names the summary type
its counting makes (``CountingPlan.summary``):

- :class:`~nbparallel.summaries.dictionary_counts.DictionaryCounts`: one pass.
  Each partition counts against its own dictionaries (integers by value) and the
  tree merges the tables by value: every attribute categorical or an integer
  column binned over the data's own range, rows unweighted.
- :class:`~nbparallel.summaries.counts.CountTable`: a schema pass (vocabularies,
  ranges, classes), then a counting pass of codes into one count table.
- :class:`~nbparallel.summaries.moments.CountsAndMoments`: the same, with the
  Gaussian columns' per-class moments summed in the counting pass.
- :class:`~nbparallel.summaries.features.FeatureCounts`: per-class feature sums
  of a count matrix, for the text models.

The counting pass after a schema pass is the summary type's own
(``counting_pass``), and so is the size of its tables (``table_size``), checked
against the memory before the pass. The plan also finishes the schema the way the model's
parameters say (which numeric columns are Gaussian, fixed bin ranges), so a
fold, a boosting round or a selected model is counted exactly as a fit is.
:meth:`CountingPlan.run` runs the counting: the one pass by value or the schema
pass (falling back to the schema pass, in :meth:`CountingPlan.by_value_or`,
when an integer column is too wide to count by value), the finished schema and
its class checks, then the counting pass.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from nbparallel.data import user_warnings
from nbparallel.data.columns import BINNED, GAUSSIAN, NUMERIC
from nbparallel.data.schema import Schema
from nbparallel.data.schema_pass import scan_schema, schema_of_scan
from nbparallel.data.vocabularies import sort_values
from nbparallel.engine import execution, memory
from nbparallel.models.discretisation import counting_bins
from nbparallel.summaries import dictionary_counts
from nbparallel.summaries.counts import CountTable
from nbparallel.summaries.dictionary_counts import DictionaryCounts
from nbparallel.summaries.features import FeatureCounts, count_part
from nbparallel.summaries.moments import CountsAndMoments, gaussian_positions
from nbparallel.summaries.protocol import merge_summaries

ALWAYS_FITS = 1 << 20
"""Bytes of count tables that any machine or worker running Python has to spare: tables up to this size are
not compared with the memory (a look at it costs more than a small fit's counting)."""


class Counting(NamedTuple):
    """What :meth:`CountingPlan.run` counted.

    Attributes
    ----------
    schema : Schema
        The finished schema.
    summary : CountTable, CountsAndMoments or None
        The counts (None when the counting pass was not asked for and the one pass by value did not run).
    record : TreeRecord
        The tree record of the last pass run.
    n_rows : int
        The rows read (the schema pass's row count; by value, the summary's ``n_rows``).
    """

    schema: Schema
    summary: object
    record: object
    n_rows: int


def check_classes(classes, hint=""):
    """Raise ValueError unless there are at least two classes to tell apart (``hint`` ends the message)."""
    if len(classes) < 2:
        raise ValueError(f"y has 1 class {list(classes)}: at least two classes are needed{hint}")


def check_first_batch(scan, classes):
    """Raise ValueError when ``partial_fit``'s first batch holds no class label (its target missing in every
    row, or every weight zero) and ``classes`` is not given: the classes are unknown. Given ``classes``, such a
    batch adds what it has (its rows to ``n_missing_target_``), as the same rows do in a ``fit``."""
    if scan is None or not scan.labelled or scan.classes or classes is not None:
        return
    raise ValueError(f"y holds no class label: its value is missing in every one of the {scan.n_rows} rows of "
                     "partial_fit's first batch (of non-zero weight), so the classes are unknown: pass classes= "
                     "to name them")


@dataclass(frozen=True)
class CountingPlan:
    """How a dataset is counted, and how its schema is finished.

    Attributes
    ----------
    summary : type
        The summary type the counting makes: ``DictionaryCounts`` (one pass by value), ``CountTable`` or
        ``CountsAndMoments`` (after a schema pass), ``FeatureCounts`` (a count matrix).
    n_bins : int
        Equal-width bins counted for a binned numeric attribute (the fine
        grid for ``n_bins="mdl"``, :func:`~nbparallel.models.discretisation.counting_bins`).
    gaussian_columns : tuple of str
        Numeric columns modelled by per-class Gaussians, in input order.
    numeric_ranges : dict
        ``{column: (lo, hi)}`` bin ranges fixed beforehand.
    binarize : float or None
        Threshold that makes a count matrix 0/1 (Bernoulli), None to sum counts.
    allow_negative : bool
        Whether a count matrix may hold negative values (Bernoulli thresholds them).
    """

    summary: type
    n_bins: int = 10
    gaussian_columns: tuple = ()
    numeric_ranges: dict = field(default_factory=dict)
    binarize: float | None = None
    allow_negative: bool = True

    @classmethod
    def for_table(cls, params, dataset, *, weighted=False, by_value=True):
        """The plan of a naive Bayes model with parameters ``params`` (its ``get_params()``) for ``dataset``.

        ``weighted``: the rows carry sample weights. ``by_value=False`` rules
        out the one-pass count (``partial_fit`` adds to a fixed layout).
        """
        gaussian = tuple(gaussian_columns(params.get("numeric", BINNED), dataset))
        ranges = dict(params.get("numeric_ranges") or {})
        if gaussian:
            summary = CountsAndMoments
        elif by_value and not weighted and dictionary_counts.applies(dataset) and not (
                NUMERIC in dataset.kinds and ranges):
            summary = DictionaryCounts
        else:
            summary = CountTable
        return cls(summary, counting_bins(params.get("n_bins", 10)), gaussian, ranges)

    @classmethod
    def for_matrix(cls, binarize, allow_negative):
        """The plan of a text model: per-class feature sums, thresholded at ``binarize`` unless None."""
        return cls(FeatureCounts, binarize=binarize, allow_negative=allow_negative)

    def in_two_passes(self):
        """This plan with the schema found by a pass of its own (when counting by value is not possible): a plan
        by value counts a ``CountTable`` after the schema pass (it has no Gaussian columns); any other plan
        already counts after one, its own summary type."""
        return replace(self, summary=CountTable) if self.summary is DictionaryCounts else self

    def by_value_or(self, by_value, after_schema_pass):
        """``by_value()`` when this plan counts by value, else ``after_schema_pass(plan)`` with the plan of a
        schema pass then a counting pass; also when ``by_value()`` finds an integer column too wide to count
        by value (:class:`~nbparallel.summaries.dictionary_counts.WideIntegers`, caught here only)."""
        if self.summary is DictionaryCounts:
            try:
                return by_value()
            except dictionary_counts.WideIntegers:
                pass
        return after_schema_pass(self.in_two_passes())

    # ------------------------------------------------------------ the counting

    def run(self, dataset, run_pass, *, classes=None, extend=None, count=True, supervised=True, batch=False):
        """Count ``dataset`` as this plan says: :class:`Counting` ``(schema, summary, record, n_rows)``.

        Parameters
        ----------
        dataset : nbparallel.data.dataset.Dataset
        run_pass : callable
            ``run_pass(kind, fn, *args, **kwargs)`` runs and records one pass, calling
            ``fn(*args, split_every=..., verbose=..., **kwargs)`` and returning what it returns.
        classes : sequence or None
            The classes ``partial_fit`` was given; y may hold no other.
        extend : callable or None
            ``extend(schema) -> schema``: the batch's schema grown into a fitted model's (``partial_fit``
            after a fit); the bins' ranges are then the fitted ones.
        count : bool
            Run the counting pass when the one pass by value did not count (False: the caller counts).
        supervised : bool
            Check that there are at least two classes (False for clustering).
        batch : bool
            A ``partial_fit`` batch: added to a fitted model (``extend``), it may hold no class label (only its
            missing targets are counted); a first one must name at least two classes, by its labels or ``classes``.
        """
        def by_value():
            schema, counts, record = run_pass("count", self.count_by_value, dataset)
            return self, schema, counts, record, None

        def schema_pass(plan):
            schema, scan, record = run_pass("schema", scan_schema, dataset, n_bins=plan.n_bins,
                                            classes=None if classes is None else sort_values(set(classes)),
                                            require_labels=not batch)
            return plan, schema, None, record, scan

        plan, schema, summary, record, scan = self.by_value_or(by_value, schema_pass)
        schema = plan.finish_schema(schema, fix_ranges=extend is None)
        if extend is not None:
            schema = extend(schema)
        elif classes is not None and not set(scan.classes) <= set(schema.classes):
            raise ValueError(f"y holds classes {sorted(set(scan.classes) - set(schema.classes))} not in `classes`")
        if batch and extend is None:
            check_first_batch(scan, classes)
        if supervised:
            check_classes(schema.classes, "; pass classes= to name every class of partial_fit's batches"
                          if batch and extend is None and classes is None else "")
        if count:
            check_table_memory(schema, dataset.partitions, plan.summary)
        if summary is None and count:
            summary, record = run_pass("count", plan.count, dataset, schema)
        n_rows = scan.n_rows if scan is not None else summary.n_rows
        return Counting(schema, summary, record, n_rows)

    def schema_of_scan(self, dataset, scan):
        """The finished schema of ``dataset``'s merged schema-pass summary ``scan``
        (:class:`~nbparallel.data.schema_pass.ColumnScan`), after the class checks."""
        return self._finished(schema_of_scan(dataset, scan, self.n_bins, None))

    def schema_of_counts(self, dataset, counts):
        """The finished schema of ``dataset``'s merged counts by value
        (:class:`~nbparallel.summaries.dictionary_counts.DictionaryCounts`), after the class checks."""
        return self._finished(dictionary_counts.schema_of_counts(dataset, counts, self.n_bins))

    def _finished(self, schema):
        check_classes(schema.classes)
        return self.finish_schema(schema)

    @staticmethod
    def partition_coder(dataset):
        """The function that codes a partition of ``dataset`` against its own dictionaries, as the pass by
        value counts it (:func:`~nbparallel.summaries.dictionary_counts.partition_coder`)."""
        return dictionary_counts.partition_coder(dataset)

    # ------------------------------------------------------------ the schema

    def finish_schema(self, schema, *, fix_ranges=True):
        """The scanned ``schema`` with the Gaussian columns of that kind and, with ``fix_ranges``,
        the bins' ranges fixed by ``numeric_ranges`` (a warning where the data reach beyond them)."""
        schema = schema.with_kinds(dict.fromkeys(self.gaussian_columns, GAUSSIAN))
        return fixed_ranges(schema, self.numeric_ranges) if fix_ranges else schema

    @staticmethod
    def gaussian_positions(schema):
        """The input positions of the Gaussian attributes, in table order."""
        return gaussian_positions(schema)

    # ------------------------------------------------------------ the passes

    def count_by_value(self, dataset, *, split_every=2, verbose=False):
        """The one pass of a plan by value (``DictionaryCounts``): ``(schema, counts, tree record)``; raises
        :class:`~nbparallel.summaries.dictionary_counts.WideIntegers` when an integer column's
        values are too far apart to count by value (then count :meth:`in_two_passes`)."""
        return dictionary_counts.count_in_one_pass(dataset, n_bins=self.n_bins, split_every=split_every,
                                                   verbose=verbose)

    def count(self, dataset, schema, *, split_every=2, verbose=False):
        """The counting pass of ``CountTable`` or ``CountsAndMoments`` under ``schema`` (the summary type's
        ``counting_pass``): ``(summary, tree record)``."""
        return self.summary.counting_pass(dataset, schema, split_every=split_every, verbose=verbose)

    def count_matrix(self, data, classes, model_name, *, split_every=2, verbose=False):
        """The counting pass of ``FeatureCounts``: ``(FeatureCounts, tree record)`` of a count matrix."""
        summarise = data.map(count_part, classes, data.n_features, self.binarize, self.allow_negative, model_name)
        return execution.run_pass(data.partitions, summarise, merge_summaries, split_every=split_every,
                                  name="nbparallel-text-count", token=data.token, verbose=verbose)


def check_table_memory(schema, partitions, summary, offsets=None):
    """ValueError naming the count tables of ``schema`` (of the ``summary`` type: its ``table_size``, of the layout
    ``offsets`` when given) when those a pass over ``partitions`` holds at once do not fit the memory
    (:func:`~nbparallel.engine.memory.check_memory`); tables of at most :data:`ALWAYS_FITS` bytes are not compared
    with it."""
    n_rows, n_columns, what, hint = summary.table_size(schema) if offsets is None else summary.table_size(
        schema, offsets)
    n_bytes = memory.table_bytes(n_rows, n_columns, len(partitions))
    task_bytes = memory.task_table_bytes(n_rows, n_columns)
    if max(n_bytes, task_bytes) <= ALWAYS_FITS:
        return
    memory.check_memory(n_bytes, what, hint, partitions, task_bytes=task_bytes)


def recorded_by(scheduler):
    """The ``run_pass`` of :meth:`CountingPlan.run` over a :class:`~nbparallel.engine.scheduler.PassScheduler`'s
    dataset: each pass recorded by the scheduler."""
    def run_pass(kind, fn, *args, **kwargs):
        start = time.perf_counter()
        out = fn(*args, split_every=scheduler.split_every, verbose=scheduler.verbose, **kwargs)
        scheduler.record(kind, out[-1], start)
        return out

    return run_pass


def gaussian_columns(numeric, dataset):
    """The numeric columns that ``numeric`` ("binned", "gaussian" or ``{column: how}``) models as Gaussian,
    in input order; ValueError naming a column that is not in the data or not numeric."""
    if isinstance(numeric, str):
        return [c for c, kind in zip(dataset.columns, dataset.kinds) if kind == NUMERIC and numeric == GAUSSIAN]
    chosen = {}
    for key, how in numeric.items():
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= key < len(dataset.columns):
            key = dataset.columns[key]
        if key not in dataset.columns:
            raise ValueError(f"numeric names column {key!r}, which is not in the data {list(dataset.columns)}")
        if how not in (BINNED, GAUSSIAN):
            raise ValueError(f"numeric[{key!r}] must be {BINNED!r} or {GAUSSIAN!r}, got {how!r}")
        if dataset.kinds[dataset.columns.index(key)] != NUMERIC:
            raise ValueError(f"numeric names column {key!r}, which is categorical: only numeric columns can "
                             "be binned or Gaussian")
        chosen[key] = how
    return [c for c in dataset.columns if chosen.get(c) == GAUSSIAN]


def check_ranges(ranges):
    """Raise unless ``ranges`` is None or ``{column name: (lo, hi)}`` with finite lo < hi."""
    if ranges is None:
        return
    if not isinstance(ranges, dict):
        raise TypeError(f"numeric_ranges must be a dict {{column: (lo, hi)}} or None, got {ranges!r}")
    for name, bounds in ranges.items():
        ok = isinstance(name, str) and isinstance(bounds, (tuple, list)) and len(bounds) == 2 and all(
            isinstance(b, (int, float, np.integer, np.floating)) and not isinstance(b, bool) and np.isfinite(b)
            for b in bounds)
        if not ok or not bounds[0] < bounds[1]:
            raise ValueError(f"numeric_ranges[{name!r}] must be (lo, hi) with finite lo < hi, got {bounds!r}")


def fixed_ranges(schema, ranges):
    """The schema with the bin ranges of ``ranges`` (``{column: (lo, hi)}``) applied; warns where the
    data reach beyond them."""
    numeric = {at.name for at in schema.binned_attributes()}
    unknown = sorted(set(ranges) - numeric)
    if unknown:
        raise ValueError(f"numeric_ranges names {unknown}, which are not numeric columns; "
                         f"numeric columns are {sorted(numeric)}")
    if not ranges:
        return schema
    fixed = [replace(at, lo=float(ranges[at.name][0]), hi=float(ranges[at.name][1])) if at.name in ranges else at
             for at in schema.attributes]
    fixed_schema = Schema.of(fixed, schema.columns, schema.classes)
    warn_out_of_range(fixed_schema, schema)
    return fixed_schema


def warn_out_of_range(fixed, seen, detailed=5):
    """Warn once, at the user's line, naming every numeric attribute whose values in ``seen`` (a batch's schema)
    leave ``fixed``'s range; the ranges of the first ``detailed`` are given."""
    seen_by_name = {at.name: at for at in seen.attributes}
    outside = []
    for at in fixed.binned_attributes():
        batch = seen_by_name.get(at.name)
        if batch is None or batch.lo is None or np.isnan(batch.lo) or np.isnan(at.lo):
            continue
        if batch.lo < at.lo or batch.hi > at.hi:
            outside.append((at, batch))
    if not outside:
        return
    details = "; ".join(f"column {at.name!r} has values in [{batch.lo:g}, {batch.hi:g}], outside the fixed bin "
                        f"range [{at.lo:g}, {at.hi:g}]" for at, batch in outside[:detailed])
    if len(outside) > detailed:
        details += f"; and {len(outside) - detailed} more columns: {[at.name for at, _ in outside[detailed:]]}"
    user_warnings.warn(f"{details}: they are counted in the end bins. Give numeric_ranges={{{outside[0][0].name!r}: "
                       f"(lo, hi), ...}} to cover the whole data")

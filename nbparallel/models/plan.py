"""The counting plan: what a counting pass over a dataset makes, decided in one place.

Every method that counts (``fit``, ``partial_fit``, cross-validation, boosting,
feature selection, AutoClass) asks :class:`CountingPlan` instead of deciding for
itself, from a model's parameters and the dataset:

- :data:`BY_VALUE`: one pass. Each partition counts against its own
  dictionaries (integers by value) and the tree merges the tables by value
  (:mod:`nbparallel.summaries.dictionary_counts`): every attribute categorical
  or an integer column binned over the data's own range, rows unweighted.
- :data:`WITH_SCHEMA`: a schema pass (vocabularies, ranges, classes), then a
  counting pass of codes into one :class:`~nbparallel.summaries.counts.CountTable`.
- :data:`WITH_MOMENTS`: the same, with the Gaussian columns' per-class moments
  summed in the counting pass (:class:`~nbparallel.summaries.moments.CountsAndMoments`).
- :data:`SPARSE`: per-class feature sums of a count matrix, for the text models
  (:class:`~nbparallel.summaries.features.FeatureCounts`).

The plan also finishes the schema the way the model's parameters say (which
numeric columns are Gaussian, fixed bin ranges), so a fold, a boosting round
or a selected model is counted exactly as a fit is.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace

import numpy as np

from nbparallel.data.columns import BINNED, GAUSSIAN, NUMERIC
from nbparallel.data.schema import Schema
from nbparallel.engine import execution
from nbparallel.models.discretisation import counting_bins
from nbparallel.summaries import dictionary_counts
from nbparallel.summaries.counts import CountSpec, count_dataset
from nbparallel.summaries.features import count_part
from nbparallel.summaries.moments import count_and_moments
from nbparallel.summaries.protocol import merge_summaries

BY_VALUE = "by value"
WITH_SCHEMA = "with schema"
WITH_MOMENTS = "with moments"
SPARSE = "sparse"


@dataclass(frozen=True)
class CountingPlan:
    """How a dataset is counted, and how its schema is finished.

    Attributes
    ----------
    kind : str
        :data:`BY_VALUE`, :data:`WITH_SCHEMA`, :data:`WITH_MOMENTS` or :data:`SPARSE`.
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

    kind: str
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
            kind = WITH_MOMENTS
        elif by_value and not weighted and dictionary_counts.applies(dataset) and not (
                NUMERIC in dataset.kinds and ranges):
            kind = BY_VALUE
        else:
            kind = WITH_SCHEMA
        return cls(kind, counting_bins(params.get("n_bins", 10)), gaussian, ranges)

    @classmethod
    def for_matrix(cls, binarize, allow_negative):
        """The plan of a text model: per-class feature sums, thresholded at ``binarize`` unless None."""
        return cls(SPARSE, binarize=binarize, allow_negative=allow_negative)

    def in_two_passes(self):
        """This plan with the schema found by a pass of its own (when counting by value is not possible)."""
        return replace(self, kind=WITH_MOMENTS if self.gaussian_columns else WITH_SCHEMA)

    # ------------------------------------------------------------ the schema

    def finish_schema(self, schema, *, fix_ranges=True):
        """The scanned ``schema`` with the Gaussian columns of that kind and, with ``fix_ranges``,
        the bins' ranges fixed by ``numeric_ranges`` (a warning where the data reach beyond them)."""
        schema = schema.with_kinds(dict.fromkeys(self.gaussian_columns, GAUSSIAN))
        return fixed_ranges(schema, self.numeric_ranges) if fix_ranges else schema

    @staticmethod
    def gaussian_positions(schema):
        """The input positions of the Gaussian attributes, in table order."""
        return tuple(schema.position_of(at.name) for at in schema.by_kind(GAUSSIAN))

    # ------------------------------------------------------------ the passes

    def count_by_value(self, dataset, *, split_every=2, verbose=False):
        """The one pass of :data:`BY_VALUE`: ``(schema, counts, tree record)``; raises
        :class:`~nbparallel.summaries.dictionary_counts.WideIntegers` when an integer column's
        values are too far apart to count by value (then count :meth:`in_two_passes`)."""
        return dictionary_counts.count_in_one_pass(dataset, n_bins=self.n_bins, split_every=split_every,
                                                   verbose=verbose)

    def count(self, dataset, schema, *, split_every=2, verbose=False):
        """The counting pass of :data:`WITH_SCHEMA` or :data:`WITH_MOMENTS` under ``schema``:
        ``(CountTable or CountsAndMoments, tree record)``."""
        table = schema.counted()
        if self.kind != WITH_MOMENTS:
            return count_dataset(dataset, table, split_every=split_every, verbose=verbose)
        summarise = dataset.map(count_and_moments, CountSpec.of(table), self.gaussian_positions(schema),
                                tuple(schema.position_of(at.name) for at in table.attributes))
        return execution.run_pass(dataset.partitions, summarise, merge_summaries, split_every=split_every,
                                  name="nbparallel-count", token=dataset.token, verbose=verbose)

    def count_matrix(self, data, classes, model_name, *, split_every=2, verbose=False):
        """The counting pass of :data:`SPARSE`: ``(FeatureCounts, tree record)`` of a count matrix."""
        summarise = data.map(count_part, classes, data.n_features, self.binarize, self.allow_negative, model_name)
        return execution.run_pass(data.partitions, summarise, merge_summaries, split_every=split_every,
                                  name="nbparallel-text-count", token=data.token, verbose=verbose)


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


def warn_out_of_range(fixed, seen):
    """Warn for each numeric attribute whose values in ``seen`` (a batch's schema) leave ``fixed``'s range."""
    seen_by_name = {at.name: at for at in seen.attributes}
    for at in fixed.binned_attributes():
        batch = seen_by_name.get(at.name)
        if batch is None or batch.lo is None or np.isnan(batch.lo) or np.isnan(at.lo):
            continue
        if batch.lo < at.lo or batch.hi > at.hi:
            warnings.warn(
                f"column {at.name!r} has values in [{batch.lo:g}, {batch.hi:g}], outside the fixed bin range "
                f"[{at.lo:g}, {at.hi:g}]: they are counted in the end bins. Give numeric_ranges={{{at.name!r}: "
                f"(lo, hi)}} to cover the whole data", UserWarning, stacklevel=4)

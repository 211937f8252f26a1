"""The schema pass: one pass over the partitions finds the vocabularies, the ranges and the classes.

:func:`scan_partition` summarises one partition as a :class:`ColumnScan`,
:func:`merge_scans` merges two by union, min and max (in any order, with the
same result), and :func:`schema_of_scan` builds the
:class:`~nbparallel.data.schema.Schema` of the merged scan; :func:`scan_schema`
and :func:`schema_pass` run the pass on the engine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nbparallel.data.columns import CATEGORICAL, NUMERIC
from nbparallel.data.encoding import MAX_CATEGORIES, numeric_values, observed, value_range
from nbparallel.data.schema import Schema
from nbparallel.data.vocabularies import EqualValuesOfTypes, check_equal_values, union_of_values
from nbparallel.engine import execution
from nbparallel.kernels.ranges import column_ranges, columns_values


class TooManyCategories(ValueError):
    """A categorical column with more values than a schema holds, met in a task of the schema pass.

    Raised where the values are collected (a partition, a merge), before sets of millions of values
    fill a worker's memory; ``position`` is the attribute's, named by :meth:`naming`.
    """

    def __init__(self, position, n_values):
        super().__init__(f"column at position {position} has more than {MAX_CATEGORIES} categories "
                         f"(at least {n_values}); at most {MAX_CATEGORIES} are supported")
        self.position, self.n_values = position, n_values

    def __reduce__(self):
        return type(self), (self.position, self.n_values)

    def naming(self, columns):
        """The error with the attribute's column name."""
        return ValueError(str(self).replace(f"column at position {self.position}",
                                            f"column {columns[self.position]!r}"))


def check_vocabulary_sizes(values):
    """Raise :class:`TooManyCategories` when a categorical attribute's set of ``values`` is too large."""
    for a, v in enumerate(values):
        if v is not None and len(v) > MAX_CATEGORIES:
            raise TooManyCategories(a, len(v))


@dataclass
class ColumnScan:
    """Summary of the schema pass for one partition (merged by union, min and max)."""

    values: list  # per attribute: set of values (categorical) or None
    lo: np.ndarray  # per attribute: min of numeric values (NaN if none)
    hi: np.ndarray
    classes: set = field(default_factory=set)
    n_rows: int = 0
    partition_rows: tuple = ()  # each partition's rows (weight zero included), in partition order
    integers: tuple = ()  # per attribute: True when its values are a column of integers (numpy, nullable, Arrow)
    labelled: bool = False  # True when the rows came with a target (its values perhaps all missing)


def scan_partition(columns, kinds, known_ranges, X, y, w):
    """Schema summary of one partition: vocabularies, ranges, classes.

    Rows of weight zero are left out, as if absent. Numeric columns named in
    ``known_ranges`` are not read. A 2-D numeric array is read in one row-major
    pass for every column's min and max; DataFrame columns are read one by one,
    each as it is stored (see :mod:`nbparallel.data.encoding`).
    """
    partition_rows = (len(X),)
    if w is not None and np.any(w == 0):
        keep = np.asarray(w) > 0
        X = X[keep]
        y = None if y is None else np.asarray(y)[keep]
    frame = isinstance(X, pd.DataFrame)
    values = [None] * len(columns)
    lo = np.full(len(columns), np.nan)
    hi = np.full(len(columns), np.nan)
    wanted = [kind == CATEGORICAL or name not in known_ranges for name, kind in zip(columns, kinds)]
    if not frame and X.dtype.kind in "iuf" and X.dtype != np.uint64 and len(X) and any(wanted):
        block_lo, block_hi = column_ranges(X)  # one pass over every column, no copy (int64 results)
        # an integer array's distinct values: one more row-major pass, not a strided one per column (a numeric
        # column given hi < lo is not read)
        counted = np.array([kind != NUMERIC for kind in kinds])
        seen = columns_values(X, block_lo, np.where(counted, block_hi, block_lo - 1)) if X.dtype.kind in "iu" \
            else [None] * len(kinds)
        for a, kind in enumerate(kinds):
            if kind == NUMERIC:
                if block_lo[a] <= block_hi[a]:  # else the column is all NaN here
                    lo[a], hi[a] = float(block_lo[a]), float(block_hi[a])
            else:
                values[a] = observed(X[:, a]) if seen[a] is None else set(seen[a].tolist())
    else:
        for a, (name, kind) in enumerate(zip(columns, kinds)):
            if not wanted[a]:
                continue
            column = X.iloc[:, a] if frame else X[:, a]
            if kind == CATEGORICAL:
                values[a] = check_equal_values(observed(column), column, name)
            else:
                lo[a], hi[a] = value_range(numeric_values(column, name))
    check_vocabulary_sizes(values)
    infinite = np.isinf(lo) | np.isinf(hi)
    if infinite.any():
        name = columns[int(np.flatnonzero(infinite)[0])]
        raise ValueError(
            f"column {name!r} holds infinite values, which cannot be binned; "
            "replace them or mark the column categorical"
        )
    classes = check_equal_values(observed(y, exact=True), y, "y") if y is not None else set()
    integers = tuple(kind == CATEGORICAL and _is_integer_column(X, a, frame) for a, kind in enumerate(kinds))
    return ColumnScan(values, lo, hi, classes, len(X), partition_rows, integers, y is not None)


def _is_integer_column(X, a, frame):
    """True when column ``a`` of a partition is a column of integers (numpy, nullable or Arrow)."""
    return pd.api.types.is_integer_dtype(X.dtypes.iloc[a]) if frame else X.dtype.kind in "iu"


def merge_scans(*scans):
    """Union of vocabularies and classes, min and max of ranges."""
    first = scans[0]
    values = [None if v is None else set(v) for v in first.values]
    lo, hi, classes, n = first.lo.copy(), first.hi.copy(), set(first.classes), first.n_rows
    partition_rows = tuple(first.partition_rows)
    integers, labelled = tuple(first.integers), first.labelled
    for s in scans[1:]:
        for a, v in enumerate(s.values):
            if v is not None:
                values[a] = union_of_values(values[a], v, a)
        lo, hi = np.fmin(lo, s.lo), np.fmax(hi, s.hi)
        classes = union_of_values(classes, s.classes, "target")
        n += s.n_rows
        partition_rows += tuple(s.partition_rows)
        integers = tuple(a or b for a, b in zip(integers, s.integers)) if integers and s.integers \
            else integers or tuple(s.integers)
        labelled = labelled or s.labelled
    check_vocabulary_sizes(values)
    return ColumnScan(values, lo, hi, classes, n, partition_rows, integers, labelled)


def scan_schema(dataset, *, n_bins=10, classes=None, split_every=2, verbose=False, require_labels=True):
    """Run the schema pass over a dataset and build its :class:`Schema`.

    ``require_labels=False`` accepts a target missing in every row (a schema of no class): a batch that
    ``partial_fit`` adds to a fitted model, which only counts its missing targets.

    Returns
    -------
    schema : Schema
    scan : ColumnScan
        The merged summary (for example its row count).
    record : nbparallel.engine.reduce.TreeRecord
    """
    known = set(dataset.ranges or ())
    try:
        scan, record = execution.run_pass(
            dataset.partitions,
            dataset.map(scan_partition, dataset.columns, dataset.kinds, known),
            merge_scans,
            split_every=split_every,
            name="nbparallel-schema",
            token=dataset.token,
            verbose=verbose,
        )
    except (EqualValuesOfTypes, TooManyCategories) as exc:
        raise exc.naming(dataset.columns) from None
    return schema_of_scan(dataset, scan, n_bins, classes, require_labels), scan, record


def schema_of_scan(dataset, scan, n_bins, classes, require_labels=True):
    """The :class:`Schema` of a dataset from its merged :class:`ColumnScan`; records each partition's rows.

    Raises
    ------
    ValueError
        When the data holds no rows (or, with ``require_labels``, none of non-zero weight), or the target is
        continuous, or (with ``require_labels`` and no
        ``classes``) missing in every row.
    """
    if not sum(scan.partition_rows):
        raise ValueError("the data holds no rows: at least one is needed")
    if scan.n_rows == 0 and require_labels:  # a partial_fit batch of zero weights adds nothing
        raise ValueError("sample_weight is zero for every row: at least one positive weight is needed")
    if len(scan.partition_rows) == len(dataset.partitions):
        dataset.partition_rows = list(scan.partition_rows)
    if any(isinstance(c, float) and not c.is_integer() for c in scan.classes):
        raise ValueError("Unknown label type: continuous. y must hold class labels, not continuous values")
    if scan.labelled and not scan.classes and classes is None and require_labels:
        raise ValueError(f"y holds no class label: its value is missing in every one of the {scan.n_rows} rows "
                         "(of non-zero weight); pass a target column with values")
    warn_many_integer_classes(scan.classes, scan.n_rows)
    return Schema.from_scan(scan, dataset.columns, dataset.kinds, n_bins, classes, dataset.ranges, dataset.declared)


def warn_many_integer_classes(classes, n_rows):
    """Warn when an integer target has more than 50 classes, or more than 10 making over 10% of the rows'
    values: it is probably a measurement, not a class label."""
    import warnings

    if len(classes) <= 10 or not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in classes):
        return
    if len(classes) > 50 or len(classes) > 0.1 * n_rows:
        warnings.warn(f"y is an integer target with {len(classes)} distinct values in {n_rows} rows: each value "
                      "is a class of its own; if y is a measurement, bin it or choose another target",
                      UserWarning, stacklevel=2)


def schema_pass(scheduler, *, n_bins, classes=None):
    """The schema pass of an iterative fit, recorded by its :class:`~nbparallel.engine.scheduler.PassScheduler`.

    With ``persist="auto"`` the scheduler then decides, from the rows counted,
    whether to keep the partitions in memory for the passes that follow.

    Returns
    -------
    schema : Schema
    scan : ColumnScan
    """
    start = time.perf_counter()
    schema, scan, record = scan_schema(scheduler.dataset, n_bins=n_bins, classes=classes,
                                       split_every=scheduler.split_every, verbose=scheduler.verbose)
    scheduler.record("schema", record, start)
    scheduler.keep_if_fits(scan.n_rows)
    return schema, scan

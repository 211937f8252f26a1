"""Inputs to partitions, and the schema that encodes them.

:func:`as_dataset` turns numpy arrays, pandas and Dask collections, and paths to
CSV or Parquet files or directories into a :class:`Dataset`: a list of
partitions (files are read inside the task that uses them) and the names and
kinds of the attributes. The schema pass (:func:`scan_schema`) finds each
categorical attribute's vocabulary (the set of values seen), each numeric
attribute's range, and the classes; :class:`Schema` then encodes a partition as
small integer codes (0 = missing) and raw numeric values that the counting
kernel bins in the same pass.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from nbparallel.data.columns import CATEGORICAL, GAUSSIAN, NUMERIC, TABLE_ORDER
from nbparallel.data.encoding import (
    MAX_CATEGORIES,
    code_dtype,
    column_encoder,
    encode_column,
    integer_column_encoder,
    integer_range,
    integer_table,
    numeric_values,
    observed,
    value_range,
)
from nbparallel.engine import execution
from nbparallel.kernels.binning import bin_codes, bin_values
from nbparallel.kernels.lookup import integer_codes
from nbparallel.kernels.ranges import column_ranges


def column_major(n_rows, n_columns, dtype):
    """An uninitialised column-major ``(n_rows, n_columns)`` array whose column stride is not a multiple of 4 KiB.

    Columns a power of two apart collide in the CPU cache: the counting kernel,
    which reads a row across every column, ran several times slower on them
    (measured: see docs/data-layer.md).
    """
    itemsize = np.dtype(dtype).itemsize
    stride = -(-n_rows * itemsize // 64) * 64
    stride += 64 if stride % 4096 == 0 else 0
    buffer = np.empty((n_columns, stride // itemsize), dtype=dtype)
    return buffer[:, :n_rows].T


def _within(codes, sizes):
    """True when every column j of ``codes`` holds only 1..sizes[j]."""
    if len(codes) == 0:
        return True
    lo, hi = column_ranges(codes)
    return bool(np.all(lo >= 1) and np.all(hi <= sizes))


@dataclass
class ColumnScan:
    """Summary of the schema pass for one partition (merged by union, min and max)."""

    values: list  # per attribute: set of values (categorical) or None
    lo: np.ndarray  # per attribute: min of numeric values (NaN if none)
    hi: np.ndarray
    classes: set = field(default_factory=set)
    n_rows: int = 0
    partition_rows: tuple = ()  # each partition's rows (weight zero included), in partition order


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
        for a, kind in enumerate(kinds):
            if kind == NUMERIC:
                if block_lo[a] <= block_hi[a]:  # else the column is all NaN here
                    lo[a], hi[a] = float(block_lo[a]), float(block_hi[a])
            elif X.dtype.kind in "iu" and block_hi[a] - block_lo[a] < MAX_CATEGORIES:
                values[a] = set(range(int(block_lo[a]), int(block_hi[a]) + 1))
            else:
                values[a] = observed(X[:, a])
    else:
        for a, (name, kind) in enumerate(zip(columns, kinds)):
            if not wanted[a]:
                continue
            column = X.iloc[:, a] if frame else X[:, a]
            if kind == CATEGORICAL:
                values[a] = observed(column)
            else:
                lo[a], hi[a] = value_range(numeric_values(column, name))
    infinite = np.isinf(lo) | np.isinf(hi)
    if infinite.any():
        name = columns[int(np.flatnonzero(infinite)[0])]
        raise ValueError(
            f"column {name!r} holds infinite values, which cannot be binned; "
            "replace them or mark the column categorical"
        )
    classes = observed(y, exact=True) if y is not None else set()
    return ColumnScan(values, lo, hi, classes, len(X), partition_rows)


def _numeric_block(X, positions, names):
    """The numeric columns at ``positions`` as one float array (a view when possible)."""
    if isinstance(X, pd.DataFrame):
        try:
            return X.iloc[:, positions].to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            for i, name in zip(positions, names):
                numeric_values(X.iloc[:, i], name)
            raise
    if positions == list(range(X.shape[1])) and X.dtype in (np.float64, np.float32):
        return X
    for i, name in zip(positions, names):
        if X.dtype.kind == "O":
            numeric_values(X[:, i], name)
    return np.asarray(X[:, positions], dtype=np.float64)


def merge_scans(*scans):
    """Union of vocabularies and classes, min and max of ranges."""
    first = scans[0]
    values = [None if v is None else set(v) for v in first.values]
    lo, hi, classes, n = first.lo.copy(), first.hi.copy(), set(first.classes), first.n_rows
    partition_rows = tuple(first.partition_rows)
    for s in scans[1:]:
        for a, v in enumerate(s.values):
            if v is not None:
                values[a] |= v
        lo, hi = np.fmin(lo, s.lo), np.fmax(hi, s.hi)
        classes |= s.classes
        n += s.n_rows
        partition_rows += tuple(s.partition_rows)
    return ColumnScan(values, lo, hi, classes, n, partition_rows)


def sort_values(values):
    """Sort a vocabulary; mixed types sort by type name first."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, v))


@dataclass
class Attribute:
    """One attribute of the schema: a vocabulary, or a range cut in equal-width bins.

    ``kind`` names its kind (``"categorical"``, ``"numeric"`` for binned or
    ``"gaussian"``); :func:`nbparallel.models.kinds.kind_of` gives the kind's
    class, which knows its value labels, how its log-probabilities derive from
    its summary and how its values score. A
    Gaussian attribute keeps the range the schema pass found but is never
    counted.
    """

    name: str
    kind: str
    categories: list | None = None
    lo: float | None = None
    hi: float | None = None
    n_bins: int | None = None


    @property
    def counted(self):
        """True for the kinds a count table holds (categorical and binned)."""
        return self.kind != GAUSSIAN

    @property
    def n_values(self):
        """Number of categories or bins (0 for a Gaussian attribute, which has no table rows)."""
        if self.kind == CATEGORICAL:
            return len(self.categories)
        return self.n_bins if self.kind == NUMERIC else 0

    def edges(self):
        """Inner edges of the equal-width bins (right-closed, as in SPSS)."""
        if self.lo is None or np.isnan(self.lo):
            return np.zeros(self.n_bins - 1)
        with np.errstate(over="ignore", invalid="ignore"):
            edges = self.lo + (self.hi - self.lo) * np.arange(1, self.n_bins) / self.n_bins
        if np.all(np.isfinite(edges)):
            return edges
        steps = np.arange(1, self.n_bins) / self.n_bins  # a range near the float limits: no overflow
        return self.lo * (1 - steps) + self.hi * steps

    def to_dict(self):
        """Plain values, for JSON."""
        d = {"name": self.name, "kind": self.kind}
        if self.kind == CATEGORICAL:
            d["categories"] = [_json_value(v, self.name) for v in self.categories]
        else:
            d.update(lo=_json_float(self.lo), hi=_json_float(self.hi), n_bins=self.n_bins)
        return d

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict`."""
        if d["kind"] == CATEGORICAL:
            return cls(d["name"], CATEGORICAL, categories=list(d["categories"]))
        if d["kind"] not in (NUMERIC, GAUSSIAN):
            raise ValueError(f"unknown attribute kind {d['kind']!r}")
        lo = np.nan if d["lo"] is None else float(d["lo"])
        hi = np.nan if d["hi"] is None else float(d["hi"])
        return cls(d["name"], d["kind"], lo=lo, hi=hi, n_bins=int(d["n_bins"]))


def _json_float(x):
    return None if x is None or np.isnan(x) else float(x)


def _json_value(v, column):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, (str, int, float, bool)):
        return v
    raise TypeError(f"column {column!r} has a category {v!r} of type {type(v).__name__}, which a model file cannot hold")


@dataclass
class Schema:
    """The attributes in table order and the classes.

    The table order (categorical, then binned numeric, then Gaussian; see
    :data:`TABLE_ORDER`) is the count table's and the codes'; only this class
    relies on it. Other modules ask by kind or by name:
    :meth:`categorical_attributes`, :meth:`by_kind`, :meth:`counted`,
    :meth:`position_of`, :meth:`index_of`, :meth:`in_input_order`.
    """

    attributes: list
    columns: list  # input column names, in input order
    classes: list

    @classmethod
    def of(cls, attributes, columns, classes):
        """A schema of these attributes, put in table order (stable within a kind)."""
        return cls(sorted(attributes, key=lambda at: TABLE_ORDER[at.kind]), list(columns), list(classes))

    @staticmethod
    def in_table_order(attributes):
        """True when ``attributes`` are listed in table order."""
        ranks = [TABLE_ORDER[at.kind] for at in attributes]
        return ranks == sorted(ranks)

    def by_kind(self, kind):
        """The attributes of ``kind`` (a name such as ``"categorical"``), in table order."""
        return [at for at in self.attributes if at.kind == kind]

    def categorical_attributes(self):
        """The categorical attributes, in table order (as their codes come)."""
        return self.by_kind(CATEGORICAL)

    def binned_attributes(self):
        """The binned numeric attributes, in table order (as their values come after the codes)."""
        return self.by_kind(NUMERIC)

    def counted(self):
        """The schema of the counted attributes (categorical and binned): the count table's layout.

        Its ``columns`` are still every input column, so it encodes a
        partition's counted attributes by name.
        """
        counted = [at for at in self.attributes if at.counted]
        return self if len(counted) == len(self.attributes) else Schema(counted, self.columns, self.classes)

    def with_kinds(self, kinds):
        """The schema with the attributes named in ``kinds`` (``{name: kind}``) of those kinds."""
        if not kinds:
            return self
        return Schema.of([replace(at, kind=kinds.get(at.name, at.kind)) for at in self.attributes],
                         self.columns, self.classes)

    def attribute(self, name):
        """The attribute of an input column."""
        for at in self.attributes:
            if at.name == name:
                return at
        raise KeyError(f"no attribute {name!r}; columns are {self.columns}")

    def position_of(self, name):
        """The position of an attribute's column in the input."""
        return self.columns.index(name)

    def index_of(self, name):
        """The position of an attribute in table order."""
        return [at.name for at in self.attributes].index(name)

    def in_input_order(self):
        """The attributes in input column order."""
        return [self.attribute(c) for c in self.columns]

    @classmethod
    def from_scan(cls, scan, columns, kinds, n_bins, classes=None, ranges=None):
        """Build the schema from a merged :class:`ColumnScan` (and numeric ranges known beforehand)."""
        ranges = ranges or {}
        attrs = []
        for a, (name, kind) in enumerate(zip(columns, kinds)):
            if kind == CATEGORICAL:
                cats = sort_values(scan.values[a])
                if len(cats) > MAX_CATEGORIES:
                    raise ValueError(f"column {name!r} has {len(cats)} categories; at most {MAX_CATEGORIES} are supported")
                attrs.append(Attribute(name, CATEGORICAL, categories=cats))
            else:
                lo, hi = ranges.get(name, (scan.lo[a], scan.hi[a]))
                attrs.append(Attribute(name, NUMERIC, lo=float(lo), hi=float(hi), n_bins=n_bins))
        attrs.sort(key=lambda at: TABLE_ORDER[at.kind])
        classes = sort_values(scan.classes) if classes is None else list(classes)
        if len({str(c) for c in classes}) < len(classes):
            printed = [c for c in classes if [str(d) for d in classes].count(str(c)) > 1]
            raise ValueError(f"y holds classes that print the same but differ in type: {printed!r} "
                             f"({', '.join(type(c).__name__ for c in printed)}); make the target one type")
        return cls(attrs, list(columns), classes)

    @property
    def offsets(self):
        """Row offsets of the attributes in a count table (one missing row each)."""
        sizes = [at.n_values + 1 for at in self.attributes]
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    @property
    def feature_kinds(self):
        """The resolved kind of every input column, ``{name: kind}`` ("categorical", "numeric" or
        "gaussian"), in input order."""
        kinds = {at.name: at.kind for at in self.attributes}
        return {name: kinds[name] for name in self.columns}

    @property
    def n_categorical(self):
        """Number of categorical attributes (they come first)."""
        return sum(at.kind == CATEGORICAL for at in self.attributes)

    def count_edges(self):
        """Equal-width inner edges of the numeric attributes, padded with +inf."""
        numeric = self.attributes[self.n_categorical :]
        width = max([at.n_bins - 1 for at in numeric] + [0])
        edges = np.full((len(numeric), width), np.inf)
        for j, at in enumerate(numeric):
            edges[j, : at.n_bins - 1] = at.edges()
        return edges

    def encode_classes(self, y, w=None):
        """Class codes 0..K-1, -1 for a missing target; unknown classes raise.

        A row of weight zero is as if absent: an unknown class there is harmless.
        """
        y = np.asarray(y)
        if y.dtype.kind in "iu" and len(y) and integer_range(self.classes) == (0, len(self.classes) - 1):
            if 0 <= y.min() and y.max() < len(self.classes):
                return y  # classes 0..K-1 are their own codes (read only, never written)
        codes = np.empty(len(y), dtype=np.int32)
        n_unknown = encode_column(y, self.classes, codes)
        codes -= 1
        if n_unknown:
            unknown = (codes < 0) & ~pd.isna(y)
            if w is not None:
                codes[unknown & (np.asarray(w) == 0)] = 0  # adds weight zero
                unknown &= np.asarray(w) > 0
            if np.any(unknown):
                raise ValueError(f"y holds classes not seen in training: {sort_values(set(y[unknown].tolist()))[:5]}")
        return codes

    def split(self, X):
        """``(codes, values)``: categorical codes (0 = missing or unseen) and raw numeric values.

        Data already coded 1..M in a uint8 array is used as it is, without a copy.
        """
        frame = isinstance(X, pd.DataFrame)
        position = {c: i for i, c in enumerate(self.columns)}
        n_cat = self.n_categorical
        categorical = self.attributes[:n_cat]
        numeric = [position[at.name] for at in self.attributes[n_cat:]]
        values = _numeric_block(X, numeric, [at.name for at in self.attributes[n_cat:]])
        coded = self.coded_view(X)
        if coded is not None and _within(coded, [len(at.categories) for at in categorical]):
            return coded, values
        codes = np.empty((len(X), n_cat), dtype=code_dtype([at.n_values for at in categorical]), order="F")
        for a, at in enumerate(categorical):
            i = position[at.name]
            encode_column(X.iloc[:, i] if frame else X[:, i], at.categories, codes[:, a])
        return codes, values

    def encode(self, X):
        """A partition as the counting kernel takes it: ``(codes, values, unknown)``.

        Every attribute becomes codes (numeric ones binned under the equal-width
        edges), in one pass per column for DataFrames and one row-major pass for
        2-D arrays, except that a float array of numeric attributes is passed as
        ``values`` (the kernel bins it in the counting pass) and data coded 1..M
        in uint8 as codes, both without a copy. ``unknown`` maps the name of
        each categorical column holding values outside its vocabulary to their
        number (0 codes, counted as missing).
        """
        return self.encoder(X)(0, len(X))

    def encoder(self, X):
        """:meth:`encode` prepared once for a partition and run a block of rows at a time.

        Returns
        -------
        callable
            ``encode(start, stop)`` is ``encode(X[start:stop])``; lookup
            tables, vocabulary indexes and column views are built once.
        """
        frame = isinstance(X, pd.DataFrame)
        n_cat = self.n_categorical
        position = [self.columns.index(at.name) for at in self.attributes]
        dtype = code_dtype([at.n_values for at in self.attributes])
        if not frame and n_cat == 0 and position == list(range(X.shape[1])) and X.dtype in (np.float64, np.float32):
            return lambda start, stop: (np.empty((stop - start, 0), dtype=np.uint8), X[start:stop], {})
        coded = self.coded_view(X)
        if coded is not None and _within(coded, [len(at.categories) for at in self.attributes]):
            return lambda start, stop: (coded[start:stop], np.empty((stop - start, 0)), {})
        if not frame and X.dtype.kind in "iu":
            return self._integer_encoder(X, position, dtype)
        columns = [self._attribute_encoder(at, X.iloc[:, i] if frame else X[:, i], dtype)
                   for at, i in zip(self.attributes, position)]
        allocate = column_major if frame else (lambda n, f, dtype: np.empty((n, f), dtype=dtype))

        def encode(start, stop):
            codes = allocate(stop - start, len(columns), dtype)
            unknown = {}
            for a, (at, column) in enumerate(zip(self.attributes, columns)):
                k = column(start, stop, codes[:, a])
                if k:
                    unknown[at.name] = k
            return codes, np.empty((stop - start, 0)), unknown

        return encode

    def _attribute_encoder(self, at, column, dtype):
        """``encode(start, stop, out) -> n_unknown`` of one attribute's column (see :meth:`encoder`)."""
        if at.kind == CATEGORICAL:
            return column_encoder(column, at.categories, dtype)
        values = numeric_values(column, at.name)
        table = integer_table(at, values.dtype) if values.dtype.kind in "iu" else None
        if table is not None:
            codes = integer_column_encoder(values, *table)

            def encode_integers(start, stop, out):
                codes(start, stop, out)
                return 0

            return encode_integers
        edges, n_bins = at.edges()[None, :], np.array([at.n_bins], dtype=np.int64)

        def encode_numbers(start, stop, out):
            bin_codes(values[start:stop, None], np.zeros(1, dtype=np.int64), edges, n_bins, out[:, None])
            return 0

        return encode_numbers

    def _integer_encoder(self, X, position, dtype):
        """:meth:`encoder` of a 2-D integer array: small lookup tables, one row-major pass per block."""
        n_cat = self.n_categorical
        tables = {a: integer_table(at, X.dtype) for a, at in enumerate(self.attributes)}
        tabled = [a for a, t in tables.items() if t is not None]
        lo, table, below, above = zip(*[tables[a] for a in tabled]) if tabled else ([],) * 4
        sources = np.asarray([position[a] for a in tabled], dtype=np.int64)
        targets = np.asarray(tabled, dtype=np.int64)
        rest = [(a, self._attribute_encoder(self.attributes[a], X[:, position[a]], dtype))
                for a, t in tables.items() if t is None]

        def encode(start, stop):
            codes = np.empty((stop - start, len(self.attributes)), dtype=dtype)
            integer_codes(X[start:stop], sources, lo, table, below, above, codes, targets)
            unknown = {}
            for a in (a for a in tabled if a < n_cat):  # integers are never missing: a categorical 0 is an unknown value
                k = (stop - start) - int(np.count_nonzero(codes[:, a]))
                if k:
                    unknown[self.attributes[a].name] = k
            for a, column in rest:
                k = column(start, stop, codes[:, a])
                if k:
                    unknown[self.attributes[a].name] = k
            return codes, np.empty((stop - start, 0)), unknown

        return encode

    def coded_view(self, X):
        """X itself when it is a uint8 array laid out as codes 1..M of every attribute, else None.

        Only the layout is checked, not the values: the caller must check them
        (see :func:`nbparallel.summaries.counts.count_rows`).
        """
        if isinstance(X, pd.DataFrame) or X.dtype != np.uint8 or self.n_categorical != X.shape[1]:
            return None
        if self.columns != [at.name for at in self.attributes]:
            return None
        if any(integer_range(at.categories) != (1, len(at.categories)) or len(at.categories) >= 255
               for at in self.attributes):
            return None
        return X

    def to_dict(self):
        """Plain values, for JSON."""
        return {
            "attributes": [at.to_dict() for at in self.attributes],
            "columns": list(self.columns),
            "classes": [_json_value(c, "target") for c in self.classes],
        }

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict`."""
        return cls([Attribute.from_dict(a) for a in d["attributes"]], list(d["columns"]), list(d["classes"]))


def scan_schema(dataset, *, n_bins=10, classes=None, split_every=2, verbose=False):
    """Run the schema pass over a dataset and build its :class:`Schema`.

    Returns
    -------
    schema : Schema
    scan : ColumnScan
        The merged summary (for example its row count).
    record : nbparallel.engine.reduce.TreeRecord
    """
    known = set(dataset.ranges or ())
    scan, record = execution.run_pass(
        dataset.partitions,
        dataset.map(scan_partition, dataset.columns, dataset.kinds, known),
        merge_scans,
        split_every=split_every,
        name="nbparallel-schema",
        token=dataset.token,
        verbose=verbose,
    )
    return schema_of_scan(dataset, scan, n_bins, classes), scan, record


def schema_of_scan(dataset, scan, n_bins, classes):
    """The :class:`Schema` of a dataset from its merged :class:`ColumnScan`; records each partition's rows.

    Raises
    ------
    ValueError
        When the data holds no rows, or the target is continuous.
    """
    if scan.n_rows == 0:
        raise ValueError("the data holds no rows: at least one is needed")
    if len(scan.partition_rows) == len(dataset.partitions):
        dataset.partition_rows = list(scan.partition_rows)
    if any(isinstance(c, float) and not c.is_integer() for c in scan.classes):
        raise ValueError("Unknown label type: continuous. y must hold class labels, not continuous values")
    return Schema.from_scan(scan, dataset.columns, dataset.kinds, n_bins, classes, dataset.ranges)


def all_codes(codes, values, edges_list):
    """One uint16 code matrix of every attribute: the categorical codes, then the
    numeric values binned under ``edges_list`` (1 + bin, 0 = missing), any edges."""
    n_bins = np.array([len(e) + 1 for e in edges_list], dtype=np.int64)
    width = max([len(e) for e in edges_list] + [0])
    edges = np.full((len(edges_list), width), np.inf)
    for j, e in enumerate(edges_list):
        edges[j, : len(e)] = e
    binned = bin_values(np.asarray(values, dtype=np.float64), edges, n_bins)
    return np.hstack([codes.astype(np.uint16), binned.astype(np.uint16)])


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

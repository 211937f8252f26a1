"""The schema: each attribute's vocabulary or range, and the classes, and how it encodes a partition.

:class:`Schema` holds the :class:`Attribute` s in table order (categorical,
then binned numeric, then Gaussian) and encodes a partition as small integer
codes (0 = missing) and raw numeric values that the counting kernel bins in
the same pass. The schema pass that finds it is
:mod:`nbparallel.data.schema_pass`; its JSON forms are in
:mod:`nbparallel.data.schema_json`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import pandas as pd

from nbparallel.data.columns import CATEGORICAL, GAUSSIAN, NUMERIC, TABLE_ORDER
from nbparallel.data.dataset import is_arrow_table
from nbparallel.data.encoding import (
    DictionaryCodes,
    MAX_CATEGORIES,
    code_dtype,
    column_encoder,
    encode_column,
    encode_indices,
    integer_column_encoder,
    integer_range,
    integer_table,
    integer_vocabulary,
    is_categorical_series,
    numeric_values,
    run_codes,
    unseen_codes,
)
from nbparallel.data.schema_json import from_json_value, json_float, json_value
from nbparallel.data.unseen import record
from nbparallel.data.vocabularies import refuse_same_print, sort_values
from nbparallel.kernels.binning import bin_codes
from nbparallel.kernels.lookup import integer_codes, run_codes as lookup_run_codes
from nbparallel.kernels.ranges import column_ranges


def column_major(n_rows, n_columns, dtype):
    """An uninitialised column-major ``(n_rows, n_columns)`` array whose column stride is not a multiple of 4 KiB.

    Columns a power of two apart collide in the CPU cache: the counting kernel,
    which reads a row across every column, ran several times slower on them
    (each column's row mapping to the same cache set).
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


def _numeric_block(X, positions, names):
    """The numeric columns at ``positions`` as one float array (a view when possible)."""
    if not positions:
        return np.empty((len(X), 0))
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


def _integer_array_codes(X, categorical, positions, dtype):
    """The codes of the categorical attributes ``categorical`` (columns ``positions``) of a 2-D integer array:
    the columns whose vocabulary is a run of consecutive integers holding their values by one subtraction over
    the array (:func:`~nbparallel.data.encoding.run_codes`), the others by lookup, column by column."""
    if not positions:
        return np.empty((len(X), 0), dtype=dtype), {}
    first = positions[0]
    block = X[:, first: first + len(positions)] if positions == list(range(first, first + len(positions))) \
        else X[:, positions]
    runs = [integer_range(at.categories) for at in categorical]
    firsts = [run[0] if run else 1 for run in runs]
    codes = np.empty_like(block, dtype=dtype)  # the array's layout
    outside = run_codes(block, firsts, [len(at.categories) for at in categorical], codes)
    unseen = {}
    for a, at in enumerate(categorical):
        if runs[a] is None or outside[a]:
            unseen[at.name] = encode_column(block[:, a], at.categories, codes[:, a], at.name)
    return codes, unseen


@dataclass
class Attribute:
    """One attribute of the schema: a vocabulary, or a range cut in equal-width bins.

    ``kind`` names its kind (``"categorical"``, ``"numeric"`` for binned or
    ``"gaussian"``); :func:`nbparallel.models.attribute_kinds.kind_of` gives the kind's
    class, which knows its value labels, how its log-probabilities derive from
    its summary and how its values score. A
    Gaussian attribute keeps the range the schema pass found but is never
    counted. A ``declared`` categorical attribute's categories are those its
    files declare (an ARFF nominal attribute), in their order: each one counts
    in the smoothing, seen or not, as in Weka.
    """

    name: str
    kind: str
    categories: list | None = None
    lo: float | None = None
    hi: float | None = None
    n_bins: int | None = None
    declared: bool = False

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

    @cached_property
    def dictionary_codes(self):
        """A categorical attribute's :class:`~nbparallel.data.encoding.DictionaryCodes`: its codes of the
        dictionaries of files' string columns."""
        return DictionaryCodes(self.categories, self.name)

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
            d["categories"] = [json_value(v, self.name) for v in self.categories]
            if self.declared:
                d["declared"] = True
        else:
            d.update(lo=json_float(self.lo), hi=json_float(self.hi), n_bins=self.n_bins)
        return d

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict`."""
        if d["kind"] == CATEGORICAL:
            return cls(d["name"], CATEGORICAL, categories=[from_json_value(v) for v in d["categories"]],
                       declared=bool(d.get("declared", False)))
        if d["kind"] not in (NUMERIC, GAUSSIAN):
            raise ValueError(f"unknown attribute kind {d['kind']!r}")
        lo = np.nan if d["lo"] is None else float(d["lo"])
        hi = np.nan if d["hi"] is None else float(d["hi"])
        return cls(d["name"], d["kind"], lo=lo, hi=hi, n_bins=int(d["n_bins"]))


def _declared_categories(name, values, seen):
    """The declared ``values`` of column ``name`` as its categories; ValueError when ``seen`` holds others."""
    undeclared = set(seen) - set(values)
    if undeclared:
        raise ValueError(f"column {name!r} holds {sort_values(undeclared)[:5]}, which are not among its declared "
                         f"values {list(values)}")
    return list(values)


#: The widest spread (max - min) of a Gaussian attribute's values: the sum of a billion squares of it is finite.
GAUSSIAN_SPREAD = 1e149


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
        """The schema with the attributes named in ``kinds`` (``{name: kind}``) of those kinds.

        Raises ValueError for a Gaussian attribute whose values spread wider than ``GAUSSIAN_SPREAD``:
        the squares in its variance would overflow float64, and its likelihood would silently be nothing.
        """
        if not kinds:
            return self
        for at in self.attributes:
            if kinds.get(at.name) == GAUSSIAN and at.lo is not None and np.isfinite(at.lo) \
                    and not at.hi - at.lo <= GAUSSIAN_SPREAD:
                raise ValueError(f"column {at.name!r} holds values from {at.lo!r} to {at.hi!r}, too far apart for a "
                                 "Gaussian attribute (the squares in its variance overflow float64): scale the "
                                 "column, or bin it (numeric='binned')")
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
    def from_scan(cls, scan, columns, kinds, n_bins, classes=None, ranges=None, declared=None):
        """Build the schema from a merged :class:`ColumnScan` (and numeric ranges known beforehand).

        A categorical column in ``declared`` (``{name: values}``, an ARFF file's nominal attributes) has
        the declared values as its categories, in their order; the others' are the values seen, sorted.
        """
        ranges, declared = ranges or {}, declared or {}
        attrs = []
        for a, (name, kind) in enumerate(zip(columns, kinds)):
            if kind == CATEGORICAL:
                if name in declared:
                    cats = _declared_categories(name, declared[name], scan.values[a])
                elif scan.integers and scan.integers[a] and all(type(v) is int for v in scan.values[a]):
                    cats = integer_vocabulary(scan.values[a])
                else:
                    cats = sort_values(scan.values[a])
                    refuse_same_print(cats, f"column {name!r}")
                if len(cats) > MAX_CATEGORIES:
                    raise ValueError(f"column {name!r} has {len(cats)} categories; at most {MAX_CATEGORIES} are "
                                     "supported")
                attrs.append(Attribute(name, CATEGORICAL, categories=cats, declared=name in declared))
            else:
                lo, hi = ranges.get(name, (scan.lo[a], scan.hi[a]))
                attrs.append(Attribute(name, NUMERIC, lo=float(lo), hi=float(hi), n_bins=n_bins))
        attrs.sort(key=lambda at: TABLE_ORDER[at.kind])
        classes = sort_values(scan.classes) if classes is None else list(classes)
        if len({str(c) for c in classes}) < len(classes):
            printed = [c for c in classes if [str(d) for d in classes].count(str(c)) > 1]
            raise ValueError(f"y holds classes that print the same but differ in type: {printed!r} "
                             f"({', '.join(type(c).__name__ for c in printed)}); make the target one type")
        text = [c for c in classes if isinstance(c, str)]
        if text and len(text) < len(classes):
            other = next(c for c in classes if not isinstance(c, str))
            raise ValueError(f"Mix of label input types (string and number): y holds {text[0]!r} and {other!r}; "
                             "make the target one type (as scikit-learn requires)")
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

        A row of weight zero is as if absent: an unknown class there is harmless. A categorical Series
        (see :meth:`nbparallel.data.dataset.Dataset.map`) has its categories coded once and its rows
        through them.
        """
        if is_categorical_series(y):
            codes = self._encode_categorical(y)
            if codes is not None:
                return codes
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

    def _encode_categorical(self, y):
        """:meth:`encode_classes` of a categorical Series, from its categories' codes; None when a row holds
        a category that is no class (the labels' own path then raises, or codes it for a row of weight
        zero)."""
        by_category = np.zeros(len(y.cat.categories) + 1, dtype=np.int32)  # the last: a missing row's (-1)
        encode_column(pd.Series(y.cat.categories), self.classes, by_category[:-1])
        by_category -= 1  # -1: no class, or missing
        indices = y.array.codes
        codes = by_category[indices]
        return None if np.any((codes < 0) & (indices >= 0)) else codes

    def split(self, X):
        """``(codes, values)``: categorical codes (0 = missing or unseen) and raw numeric values.

        Data already coded 1..M in a uint8 array is used as it is, without a copy. An Arrow table's string
        dictionary columns are coded from their indices (see :meth:`split_table`). Each column's count of
        unseen values goes to the running scoring task's tally (:func:`nbparallel.data.unseen.record`).
        """
        if is_arrow_table(X):
            return self.split_table(X)
        codes, values, unseen = self._split(X)
        record(len(codes), unseen)
        return codes, values

    def _split(self, X):
        """:meth:`split` of an in-memory partition, and its unseen counts (name -> count)."""
        frame = isinstance(X, pd.DataFrame)
        position = {c: i for i, c in enumerate(self.columns)}
        n_cat = self.n_categorical
        categorical = self.attributes[:n_cat]
        numeric = [position[at.name] for at in self.attributes[n_cat:]]
        values = _numeric_block(X, numeric, [at.name for at in self.attributes[n_cat:]])
        coded = self.coded_view(X)
        if coded is not None and _within(coded, [len(at.categories) for at in categorical]):
            return coded, values, {}
        dtype = code_dtype([at.n_values for at in categorical])
        if not frame and X.dtype.kind in "iu":
            codes, unseen = _integer_array_codes(X, categorical, [position[at.name] for at in categorical], dtype)
            return codes, values, unseen
        codes = np.empty((len(X), n_cat), dtype=dtype, order="F")
        unseen = {}
        for a, at in enumerate(categorical):
            i = position[at.name]
            unseen[at.name] = encode_column(X.iloc[:, i] if frame else X[:, i], at.categories, codes[:, a], at.name)
        return codes, values, unseen

    def split_table(self, table):
        """:meth:`split` of an Arrow table whose columns are in input order (a file's rows as read).

        A string dictionary column (what the files' readers make of text) is coded from its indices, each
        chunk's dictionary looked up in the vocabulary once; every other column is converted as
        :func:`nbparallel.data.files.arrow.table_to_pandas` converts it and split as a DataFrame's. The codes
        are those of the table converted to pandas, without making a ``Categorical`` of every column.
        """
        from nbparallel.data.files.arrow import dictionary_chunks, table_to_pandas

        position = {c: i for i, c in enumerate(self.columns)}
        n_cat = self.n_categorical
        categorical = self.attributes[:n_cat]
        native = [dictionary_chunks(table.column(position[at.name])) for at in categorical]
        numeric = self.attributes[n_cat:]
        others = [at.name for at, found in zip(categorical, native) if found is None] + [at.name for at in numeric]
        rest = table_to_pandas(table.select([position[c] for c in others])) if others else None
        at_rest = {c: k for k, c in enumerate(others)}
        values = _numeric_block(rest, [at_rest[at.name] for at in numeric], [at.name for at in numeric]) if numeric \
            else np.empty((table.num_rows, 0))
        codes = np.empty((table.num_rows, n_cat), dtype=code_dtype([at.n_values for at in categorical]), order="F")
        unseen = {}
        for a, (at, found) in enumerate(zip(categorical, native)):
            if found is None:
                unseen[at.name] = encode_column(rest.iloc[:, at_rest[at.name]], at.categories, codes[:, a], at.name)
                continue
            start = 0
            for indices, local in found:  # a chunk (a file) at a time, each with its own dictionary
                out = codes[start : start + len(indices), a]
                encode_indices(indices, local, at.dictionary_codes, out)
                unseen[at.name] = unseen.get(at.name, 0) + unseen_codes(out, indices)
                start += len(indices)
        record(table.num_rows, unseen)
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
            return column_encoder(column, at.categories, dtype, at.name)
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
            # integers are never missing: a categorical 0 is an unknown value
            for a in (a for a in tabled if a < n_cat):
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
            "classes": [json_value(c, "target") for c in self.classes],
        }

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict`."""
        return cls([Attribute.from_dict(a) for a in d["attributes"]], list(d["columns"]),
                   [from_json_value(c) for c in d["classes"]])


#: the most rows of an array that :class:`CountedSplit` codes by the layout it worked out beforehand
SMALL_ROWS = 4096

_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


class CountedSplit:
    """:meth:`Schema.split` of a fitted schema's counted attributes (``counted``, as
    :meth:`Schema.counted` gives it), made once per fitted model, with what splitting a small array
    (at most :data:`SMALL_ROWS` rows) depends on worked out beforehand: a signed-integer array whose
    counted attributes are all categorical, each vocabulary a run of consecutive integers, is coded in one
    compiled pass (:func:`~nbparallel.kernels.lookup.run_codes`), and a float array whose counted attributes
    are all binned gives its values as they are; any other input is split by the schema. The codes and
    values are those of :meth:`Schema.split`."""

    def __init__(self, counted):
        self.schema = counted
        self.runs = _integer_runs(counted)
        self.binned_positions = ([counted.columns.index(at.name) for at in counted.attributes]
                                 if counted.n_categorical == 0 else None)

    def split(self, X):
        """``(codes, values)`` of one partition, as :meth:`Schema.split` gives them; ``values`` is None when
        ``codes`` covers every counted attribute (an integer array's)."""
        if type(X) is np.ndarray and X.ndim == 2 and len(X) <= SMALL_ROWS:
            if (self.runs is not None and X.dtype.kind == "i"
                    and X.shape[1] == len(self.schema.columns)):  # another width: the schema says what is wrong
                return self._run_codes(X), None
            if self.binned_positions is not None and X.dtype in (np.float64, np.float32):
                return np.empty((len(X), 0), dtype=np.uint8, order="F"), self._binned_values(X)
        return self.schema.split(X)

    def _run_codes(self, X):
        """The codes of a small integer array by :attr:`runs`, its unseen values (a 0: integers are never
        missing) tallied (:func:`~nbparallel.data.unseen.record`)."""
        codes = lookup_run_codes(X, *self.runs)
        if np.count_nonzero(codes) == codes.size:
            record(len(codes), {})
        else:
            zeros = len(codes) - np.count_nonzero(codes, axis=0)
            record(len(codes), dict(zip([at.name for at in self.schema.attributes], zeros.tolist())))
        return codes

    def _binned_values(self, X):
        """The binned attributes' values of a small float array: ``X`` itself when they are its every column."""
        positions = self.binned_positions
        if not positions:  # no counted attribute: no values
            return np.empty((len(X), 0))
        return X if positions == list(range(X.shape[1])) else np.asarray(X[:, positions], dtype=np.float64)


def _integer_runs(counted):
    """``(positions, lo, span, code dtype)`` (as :func:`~nbparallel.kernels.lookup.run_codes` takes them) of the
    counted attributes when each is categorical with every integer from ``lo`` to ``lo + span`` (within int64)
    as its vocabulary; else None."""
    attributes = counted.attributes
    runs = [integer_range(at.categories) if at.kind == CATEGORICAL else None for at in attributes]
    if not runs or any(run is None or not _INT64_MIN < run[0] <= run[1] < _INT64_MAX for run in runs):
        return None
    positions = np.array([counted.columns.index(at.name) for at in attributes], dtype=np.int64)
    lo, hi = (np.array(ends, dtype=np.int64) for ends in zip(*runs))
    return positions, lo, (hi - lo).astype(np.uint64), code_dtype([at.n_values for at in attributes])

"""Columns to codes, without per-value Python work.

A column (a pandas Series or a 1-D numpy array) is one of three shapes, and
each becomes codes ``1..M`` (0 = missing or not in the vocabulary) in one
vectorised pass:

- a **dictionary column**: pandas ``Categorical`` (its codes, no copy) or
  strings and other objects, dictionary-encoded once by a compiled hash pass
  (:func:`nbparallel.data.factorize.factorize`, exactly ``pandas.factorize``). Its
  small local dictionary is mapped onto the global vocabulary by a lookup table
  of size ``|local dictionary|``, applied by one compiled loop;
- an **integer column** (numpy, nullable ``Int64``/``UInt64`` or Arrow integers, never
  a float copy) whose vocabulary is integers not spread much wider than their
  number: the codes are ``table[x - lo]``, computed by a compiled loop on the
  column's own dtype (a range ``lo..hi`` gives ``x - lo + 1``); the vocabulary of
  an integer column is decided from its distinct values alone
  (:func:`integer_vocabulary`), so it is the same for every partitioning;
- a **numeric column**: binned arithmetically by the kernels (see
  :func:`nbparallel.kernels.binning.bin_codes`), integers included, with no float copy.

The schema pass reads as little as it can: the categories a ``Categorical``
actually uses (a flag pass over its codes), an integer column's min and max, a
string column's distinct values (one hash pass), and numeric min and max.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nbparallel.data.factorize import factorize
from nbparallel.data.value_types import other_type_positions, text_numbers, value_kind
from nbparallel.kernels.binning import bin_values
from nbparallel.kernels.lookup import integer_codes, lookup_codes
from nbparallel.kernels.ranges import column_ranges, seen_values

MAX_CATEGORIES = 65534


def python_value(v):
    """A numpy scalar as the plain Python value it holds; anything else as it is, except that ``-0.0`` is
    ``0.0`` (they are one category, whose label must not depend on which came first)."""
    v = v.item() if isinstance(v, np.generic) else v
    return 0.0 if type(v) is float and v == 0 else v


def is_categorical_series(column):
    return isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype)


def is_string_series(column):
    return isinstance(column, pd.Series) and isinstance(column.dtype, pd.StringDtype)


def plain_array(column):
    """A column that is neither Categorical nor strings as a numpy array (a view when possible)."""
    return column.to_numpy() if isinstance(column, pd.Series) else np.asarray(column)


def _used_categories(codes):
    """Positions of the categories a Categorical's codes use (a flag pass, no sort)."""
    seen = seen_values(codes)
    return seen[seen >= 0]


def masked_integers(column):
    """``(values, missing)`` of a pandas nullable or Arrow integer Series (``Int64``, ``UInt64``,
    ``int64[pyarrow]``...): its integers on their own numpy dtype (0 where missing) and the missing
    flags, with no float copy; None for any other column."""
    if not isinstance(column, pd.Series) or isinstance(column.dtype, np.dtype) \
            or not pd.api.types.is_integer_dtype(column.dtype):
        return None
    dtype = np.dtype(getattr(column.dtype, "numpy_dtype", np.int64))
    return column.to_numpy(dtype=dtype, na_value=0), column.isna().to_numpy()


def integer_values(column):
    """A column's integers as a numpy integer array (a nullable one's non-missing values), else None."""
    masked = masked_integers(column)
    if masked is not None:
        values, missing = masked
        return values[~missing] if missing.any() else values
    if is_categorical_series(column) or is_string_series(column):
        return None
    values = plain_array(column)
    return values if values.dtype.kind in "iu" else None


#: An integer column whose distinct values span at most this many integers is coded by its whole range,
#: and so is one whose span is at most ``SPAN_FACTOR`` times the number of its values.
DENSE_SPAN = 256
SPAN_FACTOR = 16


def integer_vocabulary(values):
    """The vocabulary of an integer column whose distinct values are ``values`` (Python ints).

    Every integer from the smallest to the largest value (as scikit-learn's
    CategoricalNB takes 0..max) when that span is not much larger than the
    values: at most ``max(DENSE_SPAN, SPAN_FACTOR * len(values))`` integers
    (and at most ``MAX_CATEGORIES``); else the values themselves. A function
    of the distinct values alone, so the same for every partitioning and row
    order. Values in the range that never occur have zero counts and are
    removed from the calculations like any empty category.

    >>> integer_vocabulary({0, 3, 9}), integer_vocabulary({0, 60000})
    ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 60000])
    """
    if not values:
        return []
    lo, hi = min(values), max(values)
    if hi - lo + 1 <= min(MAX_CATEGORIES, max(DENSE_SPAN, SPAN_FACTOR * len(values))):
        return list(range(lo, hi + 1))
    return sorted(values)


def observed(column, exact=False):
    """The distinct non-missing values of a column, as plain Python values.

    Integer columns (numpy, nullable and Arrow integers) give their distinct
    values as Python ints, by a flag pass over their range (``exact`` is
    kept for the callers that say so: integers are always exact; the range
    vocabulary is decided once, from the merged values, by
    :func:`integer_vocabulary`). A Categorical's vocabulary is the
    categories its rows use.
    """
    if is_categorical_series(column):
        categories = column.cat.categories
        return {python_value(v) for v in categories.take(_used_categories(column.array.codes))}
    if is_string_series(column):
        return set(factorize(column)[1])
    integers = integer_values(column)
    if integers is not None:
        return set(seen_values(integers).tolist())
    values = plain_array(column)
    if values.dtype.kind in "b":
        return set(seen_values(values).tolist())
    unique = factorize(values)[1] if values.dtype.kind == "O" else pd.unique(pd.Series(values))
    return {python_value(v) for v in unique if not pd.isna(v)}


def numeric_values(column, name):
    """A numeric column as a numpy array of integers or floats, a view when it is one.

    Raises
    ------
    TypeError
        When the column holds values that are not numbers.
    """
    if getattr(column, "dtype", None) == np.float16:
        return np.asarray(column, dtype=np.float32)  # exact; the kernels take 32- and 64-bit floats
    if isinstance(column, pd.Series) and isinstance(column.dtype, np.dtype) and column.dtype.kind in "iuf":
        return column.to_numpy()
    if isinstance(column, np.ndarray) and column.dtype.kind in "iuf":
        return column
    try:
        if isinstance(column, pd.Series):
            return column.to_numpy(dtype=np.float64, na_value=np.nan)
        return np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"column {name!r} is numeric in the schema but holds non-numeric values: {exc}") from None


def value_range(values):
    """``(min, max)`` of a numeric array as floats, NaN skipped; ``(nan, nan)`` when there is no value."""
    if not len(values):
        return np.nan, np.nan
    if values.dtype.kind in "iu":
        return float(values.min()), float(values.max())
    return float(np.fmin.reduce(values)), float(np.fmax.reduce(values))


def integer_range(vocabulary):
    """``(lo, hi)`` when the vocabulary is every integer from lo to hi, else None."""
    if vocabulary and type(vocabulary[0]) is int and type(vocabulary[-1]) is int:
        lo, hi = vocabulary[0], vocabulary[-1]
        if hi - lo + 1 == len(vocabulary) and all(type(v) is int for v in vocabulary):
            return lo, hi
    return None


def shift_codes(X, firsts, out):
    """``out[:, j] = X[:, j] - firsts[j] + 1``: the codes 1.. of a 2-D integer array whose column ``j`` holds
    values of a run of consecutive integers from ``firsts[j]`` (not checked), in one vectorised pass.

    A subtraction instead of a lookup per value. It wraps modulo ``out``'s dtype, which the codes of values
    inside the runs fit, so that any integer dtype and any first value take it.
    """
    unsigned = np.dtype(f"u{out.dtype.itemsize}")  # an unsigned shift never promotes uint64 to float
    modulus = 1 << (8 * unsigned.itemsize)
    shifts = np.array([(int(first) - 1) % modulus for first in firsts], dtype=unsigned)
    np.subtract(X, shifts, out=out, casting="unsafe")
    return out


def run_encoder(values, first):
    """``encode(start, stop, out)``: the codes ``x - first + 1`` of rows ``start:stop`` of an integer column
    whose values all lie in a run of consecutive integers from ``first`` (see :func:`shift_codes`)."""
    return lambda start, stop, out: shift_codes(values[start:stop, None], [first], out[:, None])


def run_codes(X, firsts, sizes, out):
    """:func:`shift_codes` of a 2-D integer array whose columns are checked first: column ``j``'s values in
    ``firsts[j] .. firsts[j] + sizes[j] - 1`` get codes 1..``sizes[j]``, ``firsts[j] - 1`` code 0 (a value
    not in the vocabulary).

    This is what lets the scoring passes read an integer array (0-based codes, any integer dtype and layout)
    at the speed of codes 1..M, which need no work at all.

    Returns
    -------
    ndarray of bool, shape (n_columns,)
        The columns holding a value outside ``firsts[j] - 1 .. firsts[j] + sizes[j] - 1``: their codes in
        ``out`` are wrong, and the caller encodes them otherwise.
    """
    lo, hi = column_ranges(X) if len(X) else (firsts, firsts)
    shift_codes(X, firsts, out)
    return np.array([int(low) < first - 1 or int(high) > first + size - 1
                     for low, high, first, size in zip(lo, hi, firsts, sizes)], dtype=bool)


class VocabularyPositions:
    """Positions in a vocabulary of the entries of local dictionaries (-1 when absent), for one column.

    A dictionary of Python strings (the usual one) is looked up in a ``dict`` of the vocabulary: a string
    equals only strings, so this matches as ``pandas.Index.get_indexer`` does, without its fixed cost per
    call (which, for a small dictionary, is most of a partition's encoding). Other values go through
    ``get_indexer`` of an object Index. Each is built on first use. Given the column's ``name`` (an
    attribute's, not the classes'), entries absent from the vocabulary that are of another type than its
    values are matched or refused by :func:`nbparallel.data.value_types.other_type_positions`.
    """

    def __init__(self, vocabulary, name=None):
        self.vocabulary = vocabulary
        self.name = name
        self._positions = None
        self._index = None
        self._kinds = None
        self._text_numbers = None

    def __call__(self, local):
        local = np.asarray(local, dtype=object)
        if not len(self.vocabulary):
            return np.full(len(local), -1)
        values = local.tolist()
        if all(type(v) is str for v in values):
            if self._positions is None:
                self._positions = {v: i for i, v in enumerate(self.vocabulary) if isinstance(v, str)}
            get = self._positions.get
            positions = np.fromiter((get(v, -1) for v in values), dtype=np.int64, count=len(values))
        else:
            if self._index is None:
                self._index = pd.Index(self.vocabulary, dtype=object)
            positions = self._index.get_indexer(local)
        if self.name is not None and (positions < 0).any():
            positions = self._other_types(values, positions)
        return positions

    def _other_types(self, values, positions):
        """``positions`` with the absent entries of another type matched (or ValueError)."""
        if self._kinds is None:
            self._kinds = {value_kind(v) for v in self.vocabulary}
            self._text_numbers = text_numbers(self.vocabulary) if "text" in self._kinds else {}
        absent = np.flatnonzero(positions < 0)
        entries = [values[i] for i in absent]
        if all(value_kind(v) in self._kinds for v in entries):
            return positions
        positions = np.array(positions, dtype=np.int64)
        positions[absent] = other_type_positions(entries, self.vocabulary, self.name, self._kinds,
                                                 self._text_numbers)
        return positions


def _remap_table(local, positions_of, dtype):
    """Global code of each local dictionary entry (0 when not in the vocabulary), then 0 for missing."""
    positions = positions_of(local)
    table = np.zeros(len(positions) + 1, dtype=dtype)
    table[: len(positions)] = positions + 1
    return table, np.flatnonzero(positions < 0)


def column_encoder(column, vocabulary, dtype, name=None):
    """Prepare a categorical column's encoding once, for rows taken a block at a time.

    Parameters
    ----------
    column : pandas.Series or 1-D ndarray
    vocabulary : list
        The sorted categories; code ``i + 1`` is ``vocabulary[i]``.
    dtype : numpy dtype of the codes (uint8, uint16 or int32)
    name : str or None
        The attribute's name: values of another type than the vocabulary's are then matched or refused
        (:mod:`nbparallel.data.value_types`); None (the classes) looks values up as they are.

    Returns
    -------
    callable
        ``encode(start, stop, out)`` writes the codes of rows ``start:stop``
        into ``out`` (1..M, 0 for a missing value or one not in the
        vocabulary) and returns the number of non-missing values not in the
        vocabulary. A ``Categorical``'s lookup table is built once; strings
        are dictionary-encoded a block at a time against the vocabulary looked up once.
    """
    positions = VocabularyPositions(vocabulary, name)  # finds each local dictionary's entries
    if is_categorical_series(column):
        indices = column.array.codes
        table, unknown = _remap_table(column.cat.categories, positions, dtype)
        unknown = np.intersect1d(unknown, _used_categories(indices)) if len(unknown) else unknown

        def encode_dictionary(start, stop, out):
            part = indices[start:stop]
            lookup_codes(part, table, out)
            return int(np.isin(part, unknown).sum()) if len(unknown) else 0

        return encode_dictionary
    masked = masked_integers(column)
    if masked is not None:  # a nullable integer column: its integers as integers, then its missing rows
        values, missing = masked
        integers = integer_encoder(values, vocabulary)
        if integers is None:
            column = pd.Series(column.to_numpy(dtype=object, na_value=None))  # Python ints, exact
        else:
            def encode_nullable(start, stop, out):
                integers(start, stop, out)  # a missing row's filler 0 may be in the vocabulary: counted below
                gaps = missing[start:stop]
                out[gaps] = 0
                return len(out) - int(np.count_nonzero(out)) - int(np.count_nonzero(gaps))

            return encode_nullable
    elif not is_string_series(column):
        values = plain_array(column)
        if values.dtype.kind in "iu":
            integers = integer_encoder(values, vocabulary)
            if integers is not None:
                return integers
        column = values
    take = column.iloc if isinstance(column, pd.Series) else column

    def encode_strings(start, stop, out):
        indices, local = factorize(take[start:stop])
        table, unknown = _remap_table(local, positions, dtype)
        lookup_codes(indices, table, out)
        return int(np.isin(indices, unknown).sum()) if len(unknown) else 0

    return encode_strings


class DictionaryCodes:
    """One column's codes of the entries of local dictionaries (code 0 for an entry not in its vocabulary,
    as for a missing value), as lookup tables, the last one kept.

    Files written from one dictionary (a categorical column's) share it: a scoring pass then looks it up in the
    vocabulary once, not once per file and batch (for a small table, that lookup costs more than coding its
    rows). Files whose writer made each file's dictionary from its own values, in order of appearance, do not:
    each is looked up once per file, as without this. Threads may share it: the last dictionary and its table
    are replaced together.
    """

    def __init__(self, vocabulary, name=None):
        self.positions = VocabularyPositions(vocabulary, name)
        self._last = (None, None)

    def table(self, local, dtype):
        """The lookup table of dictionary ``local`` (a list): entry ``i``'s code at ``i``, then 0 (missing)."""
        last, table = self._last
        if table is None or table.dtype != dtype or last != local:
            table, _ = _remap_table(local, self.positions, dtype)
            self._last = (local, table)
        return table


def encode_indices(indices, local, dictionary_codes, out):
    """Write the codes of rows given as ``indices`` into a local dictionary ``local`` (-1 where missing; an
    Arrow dictionary column's) into ``out``: its entries are looked up once (``dictionary_codes``, the
    column's :class:`DictionaryCodes`), then the rows in one pass (as a ``Categorical``'s codes are by
    :func:`column_encoder`). A value not in the vocabulary is coded 0, as a missing one (counted by
    :func:`unseen_codes`)."""
    lookup_codes(indices, dictionary_codes.table(local, out.dtype), out)


def unseen_codes(codes, indices):
    """How many of the rows that :func:`encode_indices` coded into ``codes`` hold a value not in the vocabulary:
    the codes 0 less the missing rows (index -1)."""
    return (len(codes) - int(np.count_nonzero(codes))) - int(np.count_nonzero(np.asarray(indices) < 0))


def integer_lookup(vocabulary, dtype):
    """``(lo, table)`` giving each integer ``x`` of a ``dtype`` column its code ``table[x - lo]`` in a vocabulary of
    integers (0 for an integer not in it), or None when the vocabulary holds other values or its span is
    much larger than the values (they are then factorized)."""
    if not vocabulary or not all(type(v) is int for v in vocabulary):
        return None
    info = np.iinfo(dtype)
    lo, hi = max(vocabulary[0], int(info.min)), min(vocabulary[-1], int(info.max))
    if lo > hi or hi - lo + 1 > max(DENSE_SPAN, SPAN_FACTOR * len(vocabulary)):
        return None
    span = integer_range(vocabulary)
    if span is not None:  # a range: code x - first + 1
        return lo, np.arange(lo - span[0] + 1, hi - span[0] + 2)
    table = np.zeros(hi - lo + 1, dtype=np.int64)
    inside = [(v - lo, i + 1) for i, v in enumerate(vocabulary) if lo <= v <= hi]
    table[[at for at, _ in inside]] = [code for _, code in inside]
    return lo, table


def integer_encoder(values, vocabulary):
    """``encode(start, stop, out) -> n_unknown`` of an integer column against a vocabulary of integers, by a
    lookup table (see :func:`integer_lookup`), or None (the column is then factorized)."""
    lookup = integer_lookup(vocabulary, values.dtype)
    if lookup is None:
        return None
    codes = integer_column_encoder(values, *lookup)
    run = integer_range(vocabulary)

    def encode_integers(start, stop, out):
        if run is None or run_codes(values[start:stop, None], [run[0]], [len(vocabulary)], out[:, None])[0]:
            codes(start, stop, out)
        return len(out) - int(np.count_nonzero(out))  # integers are never missing: a 0 is an unknown

    return encode_integers


def integer_column_encoder(values, lo, table, below=0, above=0):
    """An integer column's codes through a lookup table, a block of rows at a time.

    Returns ``encode(start, stop, out)``, which writes ``table[x - lo]`` for each
    value ``x`` of rows ``start:stop`` into ``out`` (``below`` or ``above`` for a
    value outside the table), by :func:`nbparallel.kernels.lookup.integer_codes`.
    """
    first = np.zeros(1, dtype=np.int64)
    return lambda start, stop, out: integer_codes(values[start:stop, None], first, [lo], [table], [below], [above],
                                                  out[:, None])


def encode_column(column, vocabulary, out, name=None):
    """Write the codes of a categorical column into ``out`` (see :func:`column_encoder`; ``name`` as there).

    Returns
    -------
    int
        Number of non-missing values not in the vocabulary.
    """
    return column_encoder(column, vocabulary, out.dtype, name)(0, len(out), out)


def integer_table(attribute, dtype):
    """``(lo, table, below, above)`` turning an integer column of ``dtype`` into the attribute's codes, or None.

    A categorical attribute whose vocabulary is integers not spread much wider
    than their number gets the table of their codes (:func:`integer_lookup`;
    other values are unknown, code 0). A numeric one whose
    range holds at most ``MAX_CATEGORIES`` integers gets the bin code of each
    integer, computed once by :func:`nbparallel.kernels.binning.bin_values` (exact);
    values below or above the range fall in the end bins, as the kernel bins them.
    """
    info = np.iinfo(dtype)
    if attribute.kind == "categorical":
        lookup = integer_lookup(attribute.categories, dtype)
        return None if lookup is None else (*lookup, 0, 0)
    lo, hi = attribute.lo, attribute.hi
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi - lo >= MAX_CATEGORIES or max(abs(lo), abs(hi)) > 2**52:
        return None
    first, last = max(int(np.ceil(lo)), int(info.min)), min(int(np.floor(hi)), int(info.max))
    if first > last:
        return None
    n_bins = np.array([attribute.n_bins], dtype=np.int64)
    edges = attribute.edges()[None, :]
    table = bin_values(np.arange(first, last + 1, dtype=np.float64)[:, None], edges, n_bins)[:, 0]
    return first, table, 1, attribute.n_bins


def code_dtype(n_values):
    """The smallest unsigned dtype holding codes 0..max(n_values)."""
    return np.uint8 if max(n_values, default=0) < 255 else np.uint16

"""Columns to codes, without per-value Python work.

A column (a pandas Series or a 1-D numpy array) is one of three shapes, and
each becomes codes ``1..M`` (0 = missing or not in the vocabulary) in one
vectorised pass:

- a **dictionary column**: pandas ``Categorical`` (its codes, no copy) or
  strings and other objects, dictionary-encoded once by a compiled hash pass
  (:func:`nbparallel.data.factorize.factorize`, exactly ``pandas.factorize``). Its
  small local dictionary is mapped onto the global vocabulary by a lookup table
  of size ``|local dictionary|``, applied by one compiled loop;
- an **integer column** whose vocabulary is a range ``lo..hi``: the codes are
  ``x - lo + 1``, computed by a compiled loop on the column's own dtype;
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
from nbparallel.kernels.binning import bin_values
from nbparallel.kernels.lookup import integer_codes, lookup_codes
from nbparallel.kernels.ranges import seen_values

MAX_CATEGORIES = 65534


def python_value(v):
    """A numpy scalar as the plain Python value it holds; anything else as it is."""
    return v.item() if isinstance(v, np.generic) else v


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


def observed(column, exact=False):
    """The distinct non-missing values of a column, as plain Python values.

    Unless ``exact``, a numpy integer column's vocabulary is every integer
    from its smallest to its largest value (as scikit-learn's CategoricalNB
    takes 0..max), found by a vectorised min/max; values in that range that
    never occur have zero counts and are removed from the calculations like
    any empty category. A range wider than ``MAX_CATEGORIES`` falls back to
    the exact set. A Categorical's vocabulary is the categories its rows use.
    """
    if is_categorical_series(column):
        categories = column.cat.categories
        return {python_value(v) for v in categories.take(_used_categories(column.array.codes))}
    if is_string_series(column):
        return set(factorize(column)[1])
    values = plain_array(column)
    if values.dtype.kind in "iu" and not exact:
        if not len(values):
            return set()
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < MAX_CATEGORIES:
            return set(range(lo, hi + 1))
    if values.dtype.kind in "biu":
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


def _remap_table(local, index, dtype):
    """Global code of each local dictionary entry (0 when not in the vocabulary), then 0 for missing."""
    local = np.asarray(local, dtype=object)
    positions = index.get_indexer(local) if len(index) else np.full(len(local), -1)
    table = np.zeros(len(local) + 1, dtype=dtype)
    table[: len(local)] = positions + 1
    return table, np.flatnonzero(positions < 0)


def column_encoder(column, vocabulary, dtype):
    """Prepare a categorical column's encoding once, for rows taken a block at a time.

    Parameters
    ----------
    column : pandas.Series or 1-D ndarray
    vocabulary : list
        The sorted categories; code ``i + 1`` is ``vocabulary[i]``.
    dtype : numpy dtype of the codes (uint8, uint16 or int32)

    Returns
    -------
    callable
        ``encode(start, stop, out)`` writes the codes of rows ``start:stop``
        into ``out`` (1..M, 0 for a missing value or one not in the
        vocabulary) and returns the number of non-missing values not in the
        vocabulary. A ``Categorical``'s lookup table is built once; strings
        are dictionary-encoded a block at a time against the index built once.
    """
    index = pd.Index(vocabulary, dtype=object)  # finds each local dictionary's entries
    if is_categorical_series(column):
        indices = column.array.codes
        table, unknown = _remap_table(column.cat.categories, index, dtype)
        unknown = np.intersect1d(unknown, _used_categories(indices)) if len(unknown) else unknown

        def encode_dictionary(start, stop, out):
            part = indices[start:stop]
            lookup_codes(part, table, out)
            return int(np.isin(part, unknown).sum()) if len(unknown) else 0

        return encode_dictionary
    if not is_string_series(column):
        values = plain_array(column)
        span = integer_range(vocabulary)
        if span is not None and values.dtype.kind in "iu":
            info = np.iinfo(values.dtype)
            if info.min <= span[0] and span[1] <= info.max:
                codes = integer_column_encoder(values, span[0], np.arange(1, len(vocabulary) + 1))

                def encode_range(start, stop, out):
                    codes(start, stop, out)
                    return len(out) - int(np.count_nonzero(out))  # integers are never missing: a 0 is an unknown

                return encode_range
        column = values
    take = column.iloc if isinstance(column, pd.Series) else column

    def encode_strings(start, stop, out):
        indices, local = factorize(take[start:stop])
        table, unknown = _remap_table(local, index, dtype)
        lookup_codes(indices, table, out)
        return int(np.isin(indices, unknown).sum()) if len(unknown) else 0

    return encode_strings


def integer_column_encoder(values, lo, table, below=0, above=0):
    """An integer column's codes through a lookup table, a block of rows at a time.

    Returns ``encode(start, stop, out)``, which writes ``table[x - lo]`` for each
    value ``x`` of rows ``start:stop`` into ``out`` (``below`` or ``above`` for a
    value outside the table), by :func:`nbparallel.kernels.lookup.integer_codes`.
    """
    first = np.zeros(1, dtype=np.int64)
    return lambda start, stop, out: integer_codes(values[start:stop, None], first, [lo], [table], [below], [above],
                                                  out[:, None])


def encode_column(column, vocabulary, out):
    """Write the codes of a categorical column into ``out`` (see :func:`column_encoder`).

    Returns
    -------
    int
        Number of non-missing values not in the vocabulary.
    """
    return column_encoder(column, vocabulary, out.dtype)(0, len(out), out)


def integer_table(attribute, dtype):
    """``(lo, table, below, above)`` turning an integer column of ``dtype`` into the attribute's codes, or None.

    A categorical attribute whose vocabulary is a range ``lo..hi`` gets the
    table ``1..M`` (values outside are unknown, code 0). A numeric one whose
    range holds at most ``MAX_CATEGORIES`` integers gets the bin code of each
    integer, computed once by :func:`nbparallel.kernels.binning.bin_values` (exact);
    values below or above the range fall in the end bins, as the kernel bins them.
    """
    info = np.iinfo(dtype)
    if attribute.kind == "categorical":
        span = integer_range(attribute.categories)
        if span is None or not (info.min <= span[0] and span[1] <= info.max):
            return None
        return span[0], np.arange(1, len(attribute.categories) + 1), 0, 0
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

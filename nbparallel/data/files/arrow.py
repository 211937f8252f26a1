"""Arrow tables to pandas DataFrames: dictionary columns to ``category``, numbers to numpy."""

from __future__ import annotations

import functools

import numpy as np

from nbparallel.data.numeric_text import parse_numbers
from nbparallel.kernels.lookup import lookup_codes


def is_text(t):
    import pyarrow as pa

    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def dictionary_codes(chunked):
    """``(indices, values)`` of a one-chunk string dictionary column: its indices (-1 where missing) and its
    dictionary as a list; None for any other column (or an odd dictionary: empty, with missing or repeated
    values).

    The indices are what counting and scoring read, without making a ``Categorical`` of the column.
    """
    chunks = dictionary_chunks(chunked)
    return chunks[0] if chunks is not None and len(chunks) == 1 else None


def dictionary_chunks(chunked):
    """:func:`dictionary_codes` of each chunk of a string dictionary column (a table of several files has a
    chunk and a dictionary per file), or None when one is not such a chunk."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not (pa.types.is_dictionary(chunked.type) and is_text(chunked.type.value_type)):
        return None
    chunks = []
    for array in chunked.chunks:
        values = array.dictionary.to_pylist()
        if not values or None in values or len(set(values)) != len(values):
            return None
        indices = pc.fill_null(array.indices, -1) if array.null_count else array.indices
        chunks.append((indices.to_numpy(zero_copy_only=False), values))
    return chunks


def table_to_pandas(table):
    """``table.to_pandas(split_blocks=True)``, its string dictionary columns made ``Categorical`` from their
    indices by :func:`_categorical` (their categories sorted unless ordered).

    pyarrow's own conversion of dictionary columns costs more than counting
    them; taking the indices and dictionary as they are costs much less
    (no conversion of each row's value).
    """
    import pandas as pd
    import pyarrow as pa

    names = table.column_names
    dictionary = {n for n, t in zip(names, table.schema.types)  # pyarrow's way for empty or odd dictionaries
                  if pa.types.is_dictionary(t) and is_text(t.value_type) and table.column(n).num_chunks
                  and all(len(c.dictionary) and not c.dictionary.null_count for c in table.column(n).chunks)}
    nullable = {n for n, t in zip(names, table.schema.types) if pa.types.is_integer(t) and table.column(n).null_count}
    if not dictionary and not nullable:
        return table.to_pandas(split_blocks=True)
    rest = table.select([n for n in names if n not in dictionary and n not in nullable]).to_pandas(split_blocks=True)
    columns = {n: _categorical(table.column(n)) if n in dictionary else
               _nullable_integers(table.column(n)) if n in nullable else rest[n] for n in names}
    return pd.DataFrame(columns, index=rest.index, copy=False)


def _nullable_integers(chunked):
    """An integer ChunkedArray with nulls as a pandas nullable integer array (``Int64``, ``UInt64``...):
    pyarrow's own conversion makes floats of it, which change integers above 2**53."""
    import pandas as pd

    numpy_dtype = np.dtype(chunked.type.to_pandas_dtype())
    dtype = pd.api.types.pandas_dtype(("Int" if numpy_dtype.kind == "i" else "UInt") + str(8 * numpy_dtype.itemsize))
    return pd.array(chunked.to_pandas(types_mapper={chunked.type: dtype}.get), dtype=dtype)


def _categorical(chunked):
    """A string dictionary ChunkedArray as a ``pandas.Categorical`` (-1 codes where missing).

    Its categories are the dictionary's values sorted (as they are when the
    dictionary is ordered), so that the same values make the same, cached
    dtype in every partition: made afresh, a dtype cost more than looking the
    indices up, in a compiled loop that releases the GIL.
    """
    import pandas as pd
    import pyarrow.compute as pc

    array = chunked.chunk(0) if chunked.num_chunks == 1 else chunked.combine_chunks()  # one dictionary
    values = tuple(array.dictionary.to_pylist())
    categories = values if array.type.ordered else tuple(sorted(set(values)))
    n = len(categories)
    codes = np.empty(len(array), np.int8 if n < 127 else np.int16 if n < 32767 else np.int32)  # pandas' widths
    indices = (array.indices if not array.null_count else pc.fill_null(array.indices, -1)).to_numpy(
        zero_copy_only=False)
    if categories == values:
        codes[:] = indices
    else:
        position = {v: i for i, v in enumerate(categories)}
        lookup_codes(indices, np.array([position[v] for v in values] + [-1], dtype=codes.dtype), codes)
    make = _categorical_dtype if n <= _CACHED_DICTIONARY_SIZE else _categorical_dtype.__wrapped__
    return pd.Categorical.from_codes(codes, dtype=make(categories, array.dictionary.type, array.type.ordered),
                                     validate=False)


_CACHED_DICTIONARY_SIZE = 1024  # larger dictionaries are rarely repeated, and would fill the cache


@functools.lru_cache(maxsize=256)
def _categorical_dtype(values, arrow_type, ordered):
    """The ``CategoricalDtype`` of the categories ``values``, of the pandas dtype pyarrow gives ``arrow_type``;
    made once per small dictionary.

    Made afresh for every column of every file (its categories' index checks they are unique), it
    dominated reading small files.
    """
    import pandas as pd

    return pd.CategoricalDtype(pd.Index(list(values), dtype=_pandas_dtype(arrow_type)), ordered=ordered)


@functools.lru_cache(maxsize=None)
def _pandas_dtype(arrow_type):
    """The pandas dtype pyarrow converts values of ``arrow_type`` to."""
    import pyarrow as pa

    return pa.array([], type=arrow_type).to_pandas().dtype


def remove_na_categories(frame, na_values):
    """Categories equal to one of ``na_values`` become missing (Parquet string columns)."""
    marks = {str(v) for v in na_values}
    for name in frame.columns:
        column = frame[name]
        if column.dtype == "category":
            drop = [c for c in column.cat.categories if str(c) in marks]
            if drop:
                frame[name] = column.cat.remove_categories(drop)
    return frame


def pandas_dtypes(schema_types):
    """The pandas dtype each column will have (string columns are read as dictionaries)."""
    return {name: _pandas_dtype(text_as_dictionary(t)) for name, t in schema_types.items()}


def text_as_dictionary(t):
    import pyarrow as pa

    return pa.dictionary(pa.int32(), pa.string()) if is_text(t) else t


def numeric_types(types, names, as_floats=()):
    """``types`` with the columns ``names`` read as numbers: float64 unless already numeric, or integers
    named in ``as_floats`` (``numeric_features``: a later file of a CSV directory whose first file holds only
    integers may hold fractions).

    Raises ValueError for a name that is no column and TypeError for dates or times.
    """
    import pyarrow as pa

    types = dict(types)
    for name in names:
        if name not in types:
            raise ValueError(f"numeric_features names column {name!r}, which is not in the data {list(types)}")
        t = types[name]
        if pa.types.is_temporal(t):
            raise TypeError(f"column {name!r} holds dates or times ({t}), which numeric_features does not read "
                            "as numbers: convert them to numbers (for example days since a date) first")
        if not (pa.types.is_integer(t) or pa.types.is_floating(t)) or (pa.types.is_integer(t) and name in as_floats):
            types[name] = pa.float64()
    return types


def parse_numeric_text(table, types, na_values, path):
    """A Parquet table's text (or boolean) columns that ``types`` reads as float64, parsed to numbers."""
    import pyarrow as pa

    for i, field in enumerate(table.schema):
        t = field.type
        if types[field.name] == pa.float64() and not (pa.types.is_integer(t) or pa.types.is_floating(t)):
            text = table.column(i).cast(t.value_type) if pa.types.is_dictionary(t) else table.column(i)
            numbers = parse_numbers(text.to_pandas(), field.name, na_values, f" of file {path!r}")
            table = table.set_column(i, field.name, pa.array(numbers, pa.float64()))
    return table

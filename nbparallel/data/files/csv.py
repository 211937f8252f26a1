"""CSV files: header, column types fixed from the first file (integers beyond int64 from every file), and
reads; delimiter and encoding options; a column of numbers with one missing-value token read as numbers."""

from __future__ import annotations

import csv
import math
import re

from nbparallel.data.columns import NA_VALUES
from nbparallel.data.files.arrow import is_text, text_as_dictionary
from nbparallel.data.files.column_names import check_same_names, check_unique
from nbparallel.data.files.filesystems import open_input_stream
from nbparallel.data.files.listing import file_signature, unit_store
from nbparallel.data.files.options import ReadOptions
from nbparallel.data.files.pieces import Unit
from nbparallel.data.numeric_text import missing_token, parse_numbers
from nbparallel.data.user_warnings import warn


def delimiter_of(path, options):
    """The delimiter of a CSV file: the option, else a tab for ``.tsv`` files and a comma for others."""
    if options.delimiter is not None:
        return options.delimiter
    name = str(path).lower()
    return "\t" if any(name.endswith(s) for s in (".tsv", ".tsv.gz", ".tsv.bz2", ".tsv.zst")) else ","


def _csv_header(path, options=None, store=None):
    """The column names of a CSV file, from its first line."""
    options = ReadOptions.of(options)
    import pyarrow as pa

    encoding = options.encoding or "utf-8"
    try:
        with open_input_stream(str(path), store, head=True) as stream:  # decompresses .gz, .bz2, .zst
            head = b""
            while b"\n" not in head and (block := stream.read(1 << 16)):
                head += block
        line = head.split(b"\n", 1)[0].decode("utf-8-sig" if encoding == "utf-8" else encoding).rstrip("\r")
    except (OSError, UnicodeDecodeError, pa.ArrowException) as exc:
        hint = " (give its encoding, such as encoding='latin-1' or --encoding latin-1)" if isinstance(
            exc, UnicodeDecodeError) else ""
        raise ValueError(f"cannot read the header of CSV file {str(path)!r}{hint}: {exc}") from None
    return next(csv.reader([line], delimiter=delimiter_of(path, options)), [])


def _read_options(options):
    import pyarrow.csv as pcsv

    return pcsv.ReadOptions(encoding=options.encoding or "utf8")


def _parse_options(path, options):
    import pyarrow.csv as pcsv

    return pcsv.ParseOptions(delimiter=delimiter_of(path, options))


def _source(path, store):
    return str(path) if store is None else open_input_stream(str(path), store)


def _csv_types(files, options):
    """Column types of CSV files, inferred once: from the first file, a column empty
    there from the next files that have values in it (still empty: float64); a column of
    integers beyond int64 in any file's first block as uint64 or text (see :func:`wide_integer_types`); and the
    text columns of the first file that hold numbers and one other token (see :func:`missing_token`)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    types, found, origin, inferred = {}, {}, {}, {}
    for i, path in enumerate(files):
        try:
            with pcsv.open_csv(_source(path, unit_store(path)), read_options=_read_options(options),
                               parse_options=_parse_options(path, options),
                               convert_options=_convert_options(options.na_values)) as reader:
                schema = reader.schema
                if i == 0:
                    found = _missing_tokens(reader, schema)
        except (pa.ArrowException, OSError) as exc:
            raise _unreadable(path, exc, options, unit_store(path)) from None
        for field in schema:
            if pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type):
                raise ValueError(f"column {field.name!r} of CSV file {str(path)!r} is not text in "
                                 f"{options.encoding or 'utf-8'}: give its encoding, such as encoding='latin-1' "
                                 "or --encoding latin-1")
            if types.get(field.name, pa.null()) == pa.null():
                types[field.name], origin[field.name] = field.type, path
            inferred.setdefault(field.name, set()).add(field.type)
    for path in dict.fromkeys(origin.values()):
        floats = [name for name, t in types.items() if origin.get(name) == path and t == pa.float64()]
        types.update(wide_integer_types([path], floats, options))
    # integers in one file, float64 in another: perhaps integers beyond int64, decided from every file
    mixed = [name for name, seen in inferred.items() if {pa.int64(), pa.float64()} <= seen]
    types.update(wide_integer_types(files, mixed, options))
    types = {name: pa.float64() if t == pa.null() else t for name, t in types.items()}
    tokens = {name: token for name, (token, safe) in found.items() if safe}
    types.update({name: pa.float64() for name in tokens})
    for name, t in wide_integer_types(files[:1], list(tokens), options, tokens).items():
        if t == pa.uint64():  # integers and a token: read as uint64, the token missing
            types[name] = t
        else:  # integers no 64-bit type holds: read as text, the token a value (see warn_missing_tokens)
            types[name], found[name] = pa.string(), (tokens[name], False)
    return types, found


_INTEGER = r"^\s*[+-]?\d+\s*$"
_UNSIGNED = r"^\s*\d+\s*$"  # what pyarrow reads as uint64


def wide_integer_types(paths, names, options, tokens=None):
    """``{column: type}`` of the columns ``names`` (which pyarrow infers as float64 in some of the CSV files
    ``paths``) whose values in each file's first block are all integers, some beyond int64: uint64 when every
    one is in 0..2**64-1, so that they keep their values (a float64 would merge 2**63 and 2**63 + 1), else text
    (exact, with a warning). ``tokens``: ``{column: token}``, a value of the column to leave out (its
    missing-value token)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not names:
        return {}
    texts = [t for t in (_first_block_text(path, names, options) for path in paths) if t is not None]
    types = {}
    for name in names:
        text = pa.chunked_array([t.column(name) for t in texts], pa.string()).drop_null()
        if tokens and name in tokens:
            text = text.filter(pc.not_equal(text, tokens[name]))
        if not len(text) or not pc.all(pc.match_substring_regex(text, _INTEGER)).as_py():
            continue
        values = [int(v) for v in pc.unique(text).to_pylist()]
        if all(-2**63 <= v < 2**63 for v in values):
            continue
        if pc.all(pc.match_substring_regex(text, _UNSIGNED)).as_py() and max(values) < 2**64:
            types[name] = pa.uint64()
            continue
        types[name] = pa.string()
        where = f"CSV file {str(paths[0])!r}" if len(paths) == 1 else f"the {len(paths)} CSV files"
        warn(f"column {name!r} of {where} holds integers beyond the 64-bit integer types "
             f"(such as {max(values, key=abs)}{', and negative ones' if min(values) < 0 else ''}): it is read as "
             f"text (categorical), each value exact. Give numeric_features=[{name!r}] (--numeric {name!r}) to read "
             "it as (rounded) numbers")
    return types


def _first_block_text(path, names, options):
    """The first block of a CSV file's columns ``names``, as text (None when it has no rows)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    convert = pcsv.ConvertOptions(null_values=_convert_options(options.na_values).null_values,
                                  strings_can_be_null=True, column_types={n: pa.string() for n in names},
                                  include_columns=names)
    try:
        with pcsv.open_csv(_source(path, unit_store(path)), read_options=_read_options(options),
                           parse_options=_parse_options(path, options), convert_options=convert) as reader:
            return reader.read_next_batch()
    except (StopIteration, pa.ArrowException):  # no rows, or an unreadable value that the read names
        return None


def _unreadable(path, exc, options=None, store=None):
    hint = (" (give its encoding, such as encoding='latin-1' or --encoding latin-1)"
            if "UTF8" in str(exc) or "utf-8" in str(exc).lower() or isinstance(exc, UnicodeDecodeError) else "")
    if options is not None and _RAGGED_ROW.search(str(exc)):
        line = ragged_line(path, options, store)
        hint = f" at line {line}" if line is not None else hint
    return ValueError(f"cannot read CSV file {str(path)!r}{hint}: {exc}")


_RAGGED_ROW = re.compile(r"Expected \d+ columns, got \d+")


def ragged_line(path, options, store=None):
    """The line number (1 for the header) of the first row of a CSV file with another number of fields than
    its header, or None: read again, one thread, only when a read has failed so (pyarrow's error names the
    row's text, not its line)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names, lines = _csv_header(path, options, store), []

    def first(row):
        lines.append(row.number)
        return "error"

    read = pcsv.ReadOptions(encoding=options.encoding or "utf8", use_threads=False)
    parse = pcsv.ParseOptions(delimiter=delimiter_of(path, options), invalid_row_handler=first)
    as_text = pcsv.ConvertOptions(column_types=dict.fromkeys(names, pa.string()))  # no conversion error first
    try:
        with pcsv.open_csv(_source(path, store), read_options=read, parse_options=parse,
                           convert_options=as_text) as reader:
            for _ in reader:
                pass
    except (pa.ArrowException, OSError):
        pass
    return lines[0] if lines else None


def _missing_tokens(reader, schema):
    """``{column: (token, safe)}`` of the first batch's text columns that hold numbers and one token (see
    :func:`missing_token`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = [f.name for f in schema if is_text(f.type)]
    if not text:
        return {}
    try:
        batch = reader.read_next_batch()
    except StopIteration:
        return {}
    except pa.ArrowException:  # an unreadable value: the read that needs it names it
        return {}
    found = {}
    for name in text:
        values = pc.unique(batch.column(name))
        if len(values) <= 100_000 and (one := missing_token(values.to_pylist())) is not None:
            found[name] = one
    return found


def warn_missing_tokens(path, found):
    """A warning for each column of numbers and one token: read as numbers with the token missing when it
    surely means missing, else kept as text (categorical)."""
    for name, (token, safe) in found.items():
        if safe:
            warn(
                f"column {name!r} of CSV file {str(path)!r} holds numbers and the token {token!r}: it is read as "
                f"numbers, {token!r} as missing. Give na_values=[{token!r}] (--na-values {token!r}) to say so, or "
                "list the column in categorical_features to count its values as categories")
        else:
            warn(
                f"column {name!r} of CSV file {str(path)!r} holds numbers and the token {token!r}: it is read as "
                f"text (categorical). If {token!r} means a missing value, give na_values=[{token!r}] "
                f"(--na-values {token!r}) to read the column as numbers")


def _convert_options(na_values, types=None, columns=None):
    import pyarrow.csv as pcsv

    if types is not None:
        types = {c: text_as_dictionary(t) for c, t in types.items()}
    return pcsv.ConvertOptions(null_values=list(NA_VALUES) + [str(v) for v in na_values or ()],
                               strings_can_be_null=True, column_types=types, include_columns=columns)


def csv_layout(files, options=None):
    """``(units, types, found)`` of CSV files: a unit per file, the column types fixed once, and
    ``{column: (token, safe)}``, the columns of numbers and one other token (see :func:`missing_token`):
    those where it is ``safe`` are typed float64, to be read with the token missing."""
    options = ReadOptions.of(options)
    headers = [(path, _csv_header(path, options, unit_store(path))) for path in files]
    first, names = headers[0]
    check_unique(names, first)
    for path, other in headers[1:]:
        check_same_names(first, names, path, other)
    types, found = _csv_types(files, options)
    units = [Unit(str(path), file_signature(path), store=unit_store(path)) for path in files]
    return units, types, found


def read_csv_unit(unit, columns, types, options):
    """The Arrow table of a CSV file's ``columns``, typed as ``types`` says."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    options = ReadOptions.of(options)
    tokens = {c: t for c, t in options.missing_tokens if c in columns}
    read_types = {c: pa.string() if c in tokens else types[c] for c in columns}
    convert = _convert_options(options.na_values, read_types, columns)
    try:
        table = pcsv.read_csv(_source(unit.path, unit.store), read_options=_read_options(options),
                              parse_options=_parse_options(unit.path, options), convert_options=convert)
    except pa.ArrowInvalid as exc:
        raise _not_a_number(exc, unit, options) from None
    for name, token in tokens.items():
        table = _numbers_of(table, name, token, options, unit.path, types[name])
    return table


def _numbers_of(table, name, token, options, path, numbers_type):
    """``table`` with its text column ``name`` read as ``numbers_type`` (float64 or uint64), ``token`` missing."""
    import pyarrow as pa
    import pyarrow.compute as pc

    i = table.schema.get_field_index(name)
    column = table.column(i)
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    column = pc.if_else(pc.equal(column, token), pa.scalar(None, column.type), column)
    try:
        numbers = pc.cast(column, numbers_type)
    except pa.ArrowInvalid as exc:  # another value: named, with the marks to give
        if numbers_type != pa.float64():
            raise ValueError(f"column {name!r} of CSV file {str(path)!r} is read as {numbers_type} (integers beyond "
                             f"int64 and the token {token!r} in the first file) but holds another value: {exc}; "
                             f"give numeric_features=[{name!r}] (--numeric {name!r}) to read it as numbers") from None
        numbers = pa.array(parse_numbers(column.to_pandas(), name, (*(options.na_values or ()), token),
                                         f" of CSV file {str(path)!r}"), pa.float64())
    return table.set_column(i, name, numbers)


_CONVERSION_ERROR = re.compile(r"In CSV column #(\d+): .*CSV conversion error to (\w+): invalid value '(.*)'", re.DOTALL)


def _not_a_number(exc, unit, options):
    """ValueError naming the column and the value pyarrow could not read as a number (else one naming
    the file)."""
    match = _CONVERSION_ERROR.search(str(exc))
    names = _csv_header(unit.path, options, unit.store) if match else []
    if not match or int(match.group(1)) >= len(names):
        return _unreadable(unit.path, exc, options, unit.store)
    name, value = names[int(match.group(1))], match.group(3)
    try:
        is_number = match.group(2).startswith(("int", "uint")) and math.isfinite(float(value))
    except ValueError:
        is_number = False
    if is_number:  # an earlier file typed the column as integers; this one holds a fraction or a wider integer
        beyond = f" (beyond {match.group(2)}, the type the files' first blocks give it; such an integer in a " \
                 "file's first block reads the column as uint64)" if re.match(_INTEGER, value) else ""
        return ValueError(f"column {name!r} of CSV file {str(unit.path)!r} is read as integers ({match.group(2)}), "
                          f"as an earlier file types it, but holds {value!r}{beyond}: give numeric_features=[{name!r}] "
                          f"(--numeric {name!r}) to read it as numbers in every file")
    return ValueError(f"column {name!r} of CSV file {str(unit.path)!r} is read as numbers ({match.group(2)}) but "
                      f"holds {value!r}; give such marks in na_values (--na-values) to read them as missing")

"""CSV files: header, column types fixed from the first file, and reads."""

from __future__ import annotations

import csv
import re

from nbparallel.data.columns import NA_VALUES
from nbparallel.data.files.arrow import text_as_dictionary
from nbparallel.data.files.options import check_same_names, check_unique, file_signature
from nbparallel.data.files.pieces import Unit


def _csv_header(path):
    """The column names of a CSV file, from its first line."""
    import pyarrow as pa

    try:
        with pa.input_stream(str(path)) as stream:  # decompresses .gz, .bz2, .zst
            head = b""
            while b"\n" not in head and (block := stream.read(1 << 16)):
                head += block
        line = head.split(b"\n", 1)[0].decode("utf-8-sig")
    except (OSError, UnicodeDecodeError, pa.ArrowException) as exc:
        raise ValueError(f"cannot read the header of CSV file {str(path)!r}: {exc}") from None
    return next(csv.reader([line]), [])


def _csv_types(files, na_values):
    """Column types of CSV files, inferred once: from the first file, a column empty
    there from the next files that have values in it (still empty: float64)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    types = {}
    for path in files:
        try:
            with pcsv.open_csv(str(path), convert_options=_convert_options(na_values)) as reader:
                schema = reader.schema
        except (pa.ArrowException, OSError) as exc:
            raise ValueError(f"cannot read CSV file {str(path)!r}: {exc}") from None
        for field in schema:
            if types.get(field.name, pa.null()) == pa.null():
                types[field.name] = field.type
        if all(t != pa.null() for t in types.values()):
            break
    return {name: pa.float64() if t == pa.null() else t for name, t in types.items()}


def _convert_options(na_values, types=None, columns=None):
    import pyarrow.csv as pcsv

    if types is not None:
        types = {c: text_as_dictionary(t) for c, t in types.items()}
    return pcsv.ConvertOptions(null_values=list(NA_VALUES) + [str(v) for v in na_values or ()],
                               strings_can_be_null=True, column_types=types, include_columns=columns)


def csv_layout(files, na_values):
    headers = [(path, _csv_header(path)) for path in files]
    first, names = headers[0]
    check_unique(names, first)
    for path, other in headers[1:]:
        check_same_names(first, names, path, other)
    types = _csv_types(files, na_values)
    units = [Unit(str(path), file_signature(path)) for path in files]
    return units, types


def read_csv_unit(unit, columns, types, na_values):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    options = _convert_options(na_values, {c: types[c] for c in columns}, columns)
    try:
        return pcsv.read_csv(unit.path, convert_options=options)
    except pa.ArrowInvalid as exc:
        raise _not_a_number(exc, unit.path) from None


_CONVERSION_ERROR = re.compile(r"In CSV column #(\d+): .*CSV conversion error to (\w+): invalid value '(.*)'", re.S)


def _not_a_number(exc, path):
    """ValueError naming the column and the value pyarrow could not read as a number (else ``exc``)."""
    match = _CONVERSION_ERROR.search(str(exc))
    names = _csv_header(path) if match else []
    if not match or int(match.group(1)) >= len(names):
        return exc
    name, value = names[int(match.group(1))], match.group(3)
    return ValueError(f"column {name!r} of CSV file {str(path)!r} is read as numbers ({match.group(2)}) but holds "
                      f"{value!r}; give such marks in na_values (--na-values) to read them as missing")



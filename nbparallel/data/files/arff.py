"""ARFF files (Weka's format): the header's attributes, and the rows read by pyarrow's CSV reader.

An ARFF file declares its attributes before its rows::

    @relation weather
    @attribute outlook {sunny, overcast, rainy}
    @attribute temperature numeric
    @attribute play {yes, no}
    @data
    sunny,85,no
    ?,80,yes

A nominal attribute (``{...}``) becomes a categorical column whose categories are its declared values (a
value not declared raises ValueError naming the column, the value and the file); ``numeric``, ``real``
and ``integer`` attributes are float64; ``string`` and ``date`` attributes are text (categorical); ``?``
is a missing value. Comments (``%``) and blank lines are skipped, values may be quoted with ``'`` or
``"``. Sparse rows (``{0 x, 3 y}``) are read too (an absent value is 0, or a nominal attribute's first
value, as in Weka); instance weights (``{w}`` after a row) and relational attributes raise ValueError.
"""

from __future__ import annotations

import re

from nbparallel.data.files.arrow import text_as_dictionary
from nbparallel.data.files.column_names import check_same_names, check_unique
from nbparallel.data.files.filesystems import read_bytes
from nbparallel.data.files.listing import file_signature, unit_store
from nbparallel.data.files.options import ReadOptions
from nbparallel.data.files.pieces import Unit

_NUMERIC = ("numeric", "real", "integer")


def _tokens(text, where):
    """The tokens of a header line or a nominal list: words, quoted strings, ``{``, ``}`` and ``,``; an
    unquoted ``%`` starts a comment.

    >>> _tokens("@attribute 'petal length' {a, 'b c'} % '5%' is quoted", "")
    ['@attribute', 'petal length', '{', 'a', ',', 'b c', '}']
    """
    tokens, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "%":  # a comment to the end of the line, as Weka reads one (``{low, high} % low < 100``)
            break
        if c.isspace():
            i += 1
        elif c in "{},":
            tokens.append(c)
            i += 1
        elif c in "'\"":
            j, out = i + 1, []
            while j < n and text[j] != c:
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                out.append(text[j])
                j += 1
            if j >= n:
                raise ValueError(f"unclosed quote in {where}: {text!r}")
            tokens.append("".join(out))
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "{},":
                j += 1
            tokens.append(text[i:j])
            i = j
    return tokens


def parse_header(text, path):
    """``(attributes, data offset)`` of an ARFF file's text: ``attributes`` is a list of ``(name, kind,
    values)``, kind ``"nominal"`` (``values`` the declared values), ``"numeric"`` or ``"string"``.

    >>> parse_header("@relation r\\n@attribute a {x,y}\\n@attribute b REAL\\n@data\\nx,1\\n", "f")
    ([('a', 'nominal', ('x', 'y')), ('b', 'numeric', None)], 55)
    """
    attributes, offset = [], 0
    for line in text.splitlines(keepends=True):
        offset += len(line)
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        keyword = stripped.split(None, 1)[0].lower()
        if keyword == "@data":
            break
        if keyword == "@relation":
            continue
        if keyword != "@attribute":
            raise ValueError(f"ARFF file {path!r}: expected @relation, @attribute or @data, got {stripped[:80]!r}")
        where = f"ARFF file {path!r}"
        tokens = _tokens(stripped, where)
        if len(tokens) < 3:
            raise ValueError(f"{where}: an @attribute line needs a name and a type, got {stripped[:80]!r}")
        name, kind = tokens[1], tokens[2]
        if kind == "{":
            if tokens[-1] != "}":
                raise ValueError(f"{where}: the values of attribute {name!r} are not closed by '}}'")
            values = tuple(t for t in tokens[3:-1] if t != ",")
            if len(set(values)) != len(values):
                raise ValueError(f"{where}: attribute {name!r} declares a value twice: {list(values)}")
            attributes.append((name, "nominal", values))
        elif kind.lower() in _NUMERIC:
            attributes.append((name, "numeric", None))
        elif kind.lower() in ("string", "date"):
            attributes.append((name, "string", None))
        else:
            raise ValueError(f"{where}: attribute {name!r} has type {kind!r}, which is not read (nominal, numeric, "
                             "real, integer, string and date are)")
    else:
        raise ValueError(f"ARFF file {path!r} has no @data line")
    if not attributes:
        raise ValueError(f"ARFF file {path!r} declares no @attribute")
    return attributes, offset


def _decode(data, options, path):
    encoding = options.encoding or "utf-8"
    try:
        return data.decode("utf-8-sig" if encoding == "utf-8" else encoding)
    except UnicodeDecodeError as exc:
        raise ValueError(f"cannot read ARFF file {path!r} as {encoding} (give its encoding, such as "
                         f"encoding='latin-1' or --encoding latin-1): {exc}") from None


def _file_bytes(path, store):
    import gzip

    data = read_bytes(str(path), store)
    name = str(path).lower()
    if name.endswith(".gz"):
        return gzip.decompress(data)
    if name.endswith((".bz2", ".zst")):
        import pyarrow as pa

        codec = "bz2" if name.endswith(".bz2") else "zstd"
        return pa.input_stream(pa.BufferReader(data), compression=codec).read()
    return data


def _header_of(path, options, store):
    """The attributes of an ARFF file and its data text (read once)."""
    text = _decode(_file_bytes(path, store), options, str(path))
    attributes, offset = parse_header(text, str(path))
    return attributes, text[offset:]


def arrow_type(kind):
    import pyarrow as pa

    return {"nominal": pa.dictionary(pa.int32(), pa.string()), "numeric": pa.float64(), "string": pa.string()}[kind]


def arff_layout(files, options=None):
    """``(units, types, declared)`` of ARFF files: a unit per file, each column's Arrow type, and each
    nominal column's declared values (every file must declare the same attributes)."""
    options = ReadOptions.of(options)
    first = None
    for path in files:
        attributes, _ = _header_of(path, options, unit_store(path))
        names = [a[0] for a in attributes]
        if first is None:
            first, first_names, first_attributes = path, names, attributes
            check_unique(names, path)
            continue
        check_same_names(first, first_names, path, names)
        for a, b in zip(first_attributes, sorted(attributes, key=lambda a: first_names.index(a[0]))):
            if a != b:
                raise ValueError(f"attribute {a[0]!r} is declared as {_declared(b)} in ARFF file {str(path)!r} but "
                                 f"as {_declared(a)} in {str(first)!r}")
    types = {name: arrow_type(kind) for name, kind, _ in first_attributes}
    units = [Unit(str(path), file_signature(path), store=unit_store(path)) for path in files]
    return units, types, {name: values for name, kind, values in first_attributes if kind == "nominal"}


def _declared(attribute):
    _, kind, values = attribute
    return "{" + ", ".join(values) + "}" if kind == "nominal" else kind


_SPARSE_OR_WEIGHTED = re.compile(r"^\s*\{|\}\s*$", re.MULTILINE)


def read_arff_unit(unit, columns, types, options):
    """The Arrow table of an ARFF file's ``columns``: nominal columns as dictionaries of their declared
    values, numeric ones float64, string ones text."""
    import pyarrow as pa

    options = ReadOptions.of(options)
    attributes, data = _header_of(unit.path, options, unit.store)
    names = [a[0] for a in attributes]
    if "%" in data:
        data = "\n".join(line for line in data.splitlines() if not line.lstrip().startswith("%"))
    if _SPARSE_OR_WEIGHTED.search(data):
        rows = _python_rows(data, attributes, unit.path)
    else:
        rows = _arrow_rows(data, names, unit.path)
    missing = {"?"}
    arrays = []
    for (name, kind, values), column in zip(attributes, rows):
        if name not in columns:
            arrays.append(None)
            continue
        arrays.append(_typed(column, name, kind, values, missing, unit.path))
    table = pa.table({name: array for name, array in zip(names, arrays) if array is not None})
    return table.select(list(columns)).cast(pa.schema([(c, text_as_dictionary(types[c])) for c in columns]))


def _arrow_rows(data, names, path):
    """The columns of the data text as Arrow string arrays, read by pyarrow's CSV reader (values trimmed)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    quote = "'" if "'" in data or '"' not in data else '"'
    if "'" in data and '"' in data:
        return _python_columns(data, len(names), path)
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data.encode("utf-8")),
            read_options=pcsv.ReadOptions(column_names=[f"c{i}" for i in range(len(names))]),
            parse_options=pcsv.ParseOptions(quote_char=quote, escape_char="\\", double_quote=False,
                                            ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(column_types={f"c{i}": pa.string() for i in range(len(names))},
                                                strings_can_be_null=False, null_values=[]))
    except pa.ArrowInvalid as exc:
        raise ValueError(f"cannot read the rows of ARFF file {path!r}: {exc}") from None
    columns = []
    for i in range(len(names)):
        column = pc.utf8_trim_whitespace(table.column(i))
        if pc.any(pc.starts_with(column, quote)).as_py():  # quoted after a space: the reader kept the quotes
            column = pc.replace_substring_regex(column, f"^{quote}(.*){quote}$", r"\1")
        columns.append(column)
    return columns


def _python_columns(data, n, path):
    import pyarrow as pa

    columns = [[] for _ in range(n)]
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        values = [t for t in _tokens(line, f"ARFF file {path!r}") if t != ","]
        if len(values) != n:
            raise ValueError(f"ARFF file {path!r}: data row {number} has {len(values)} values, expected {n}")
        for column, value in zip(columns, values):
            column.append(value)
    return [pa.array(c, pa.string()) for c in columns]


def _python_rows(data, attributes, path):
    """Columns of data text that holds sparse rows (``{index value, ...}``), read in Python."""
    import pyarrow as pa

    n = len(attributes)
    zero = [values[0] if kind == "nominal" else "0" for _, kind, values in attributes]
    columns = [[] for _ in range(n)]
    for number, line in enumerate(data.splitlines(), 1):
        text = line.strip()
        if not text:
            continue
        if text.endswith("}") and not text.startswith("{") or text.count("{") > 1:
            raise ValueError(f"ARFF file {path!r}: data row {number} has an instance weight ({{w}}), which is not "
                             "read: give weights as a column (sample_weight)")
        if not text.startswith("{"):
            values = [t for t in _tokens(text, f"ARFF file {path!r}") if t != ","]
            if len(values) != n:
                raise ValueError(f"ARFF file {path!r}: data row {number} has {len(values)} values, expected {n}")
        else:
            values = list(zero)
            tokens = [t for t in _tokens(text, f"ARFF file {path!r}") if t not in "{},"]
            if len(tokens) % 2:
                raise ValueError(f"ARFF file {path!r}: sparse data row {number} is not pairs of index and value")
            for index, value in zip(tokens[::2], tokens[1::2]):
                if not index.isdigit() or int(index) >= n:
                    raise ValueError(f"ARFF file {path!r}: sparse data row {number} names attribute {index!r}, "
                                     f"not one of 0..{n - 1}")
                values[int(index)] = value
        for column, value in zip(columns, values):
            column.append(value)
    return [pa.array(c, pa.string()) for c in columns]


def _typed(column, name, kind, values, missing, path):
    """A column of strings as its declared kind; ValueError naming a value that does not fit it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    absent = pc.is_in(column, value_set=pa.array(sorted(missing), pa.string()))
    column = pc.if_else(absent, pa.scalar(None, pa.string()), column)
    if kind == "numeric":
        try:
            return pc.cast(column, pa.float64())
        except pa.ArrowInvalid:
            bad = next(v for v in column.to_pylist() if v is not None and not _is_number(v))
            raise ValueError(f"attribute {name!r} of ARFF file {path!r} is numeric but holds {bad!r}") from None
    if kind == "string":
        return pc.dictionary_encode(column).cast(pa.dictionary(pa.int32(), pa.string()))
    indices = pc.index_in(column, value_set=pa.array(values, pa.string()))
    unknown = pc.and_(pc.is_null(indices), pc.is_valid(column))
    if pc.any(unknown).as_py():
        bad = pc.filter(column, unknown)[0].as_py()
        raise ValueError(f"attribute {name!r} of ARFF file {path!r} holds {bad!r}, which is not one of its declared "
                         f"values {list(values)}")
    return pa.DictionaryArray.from_arrays(indices.cast(pa.int32()), pa.array(values, pa.string()))


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True

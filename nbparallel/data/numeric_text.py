"""Columns declared numeric (``numeric_features``) that hold text: parsed into floats once.

A column the user names in ``numeric_features`` (``--numeric`` on the command
line) is numeric whatever its dtype. When it holds text (an object, string or
category column, for example ``"3.5"`` strings or Weka's ``"?"`` marks) or
booleans, it is converted to float64 when the data is read, before any pass:
the missing-value strings (pandas' defaults, :data:`nbparallel.data.columns.NA_VALUES`,
plus the ``na_values`` given) become NaN, every other value must parse as a
number, and one that does not raises ``ValueError`` naming the column and
showing the value.

>>> import pandas as pd
>>> parse_numbers(pd.Series(["3.5", "?", "NA", 2]), "x", na_values=["?"]).tolist()
[3.5, nan, nan, 2.0]
>>> parse_numbers(pd.Series(["3.5", "?"]), "x")
Traceback (most recent call last):
...
ValueError: column 'x' is numeric (numeric_features) but holds '?', which is not a number (1 such value); replace such marks by NaN first (for example X.replace('?', np.nan))
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from nbparallel.data.columns import NA_VALUES, NUMERIC

_FLOAT_KINDS = "iuf"


def missing_marks(na_values=()):
    """The strings read as missing: pandas' defaults and ``na_values``."""
    return set(NA_VALUES) | {str(v) for v in na_values or ()}


def parse_numbers(values, name, na_values=(), where=""):
    """A column (pandas Series or 1-D array) as float64 numbers, NaN for missing values.

    Parameters
    ----------
    values : pandas.Series or numpy.ndarray
    name : str
        The column's name, for errors.
    na_values : iterable of str
        Strings that mean a missing value besides pandas' defaults.
    where : str
        Where the column comes from (" of file '...'"), for errors.

    Raises
    ------
    ValueError
        When a value is neither a number, nor missing, nor one of the
        missing-value strings.
    """
    column = values if isinstance(values, pd.Series) else pd.Series(np.asarray(values, dtype=object))
    if isinstance(column.dtype, np.dtype) and column.dtype.kind in _FLOAT_KINDS:
        return column.to_numpy(dtype=np.float64)
    if pd.api.types.is_bool_dtype(column.dtype):
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    marks = missing_marks(na_values)
    text = column.astype(object)
    is_mark = text.map(lambda v: isinstance(v, str) and v in marks).to_numpy(dtype=bool)
    text = text.where(~is_mark, None)
    numbers = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isnan(numbers) & ~pd.isna(text).to_numpy() & ~text.map(_is_nan_text).to_numpy(dtype=bool)
    if bad.any():
        example = text[bad].iloc[0]
        hint = ("give such marks in na_values (--na-values) to read them as missing" if where else
                f"replace such marks by NaN first (for example X.replace({example!r}, np.nan))")
        raise ValueError(
            f"column {name!r}{where} is numeric (numeric_features) but holds {example!r}, which is not a number "
            f"({int(bad.sum())} such value{'s' if bad.sum() > 1 else ''}); {hint}")
    return numbers


def _is_nan_text(v):
    """True for a string that parses as NaN ("nan", "NaN", ...): a missing value, not a bad one."""
    return isinstance(v, str) and v.strip().lower() in ("nan", "+nan", "-nan")


def needs_parsing(dtype):
    """Whether a column of this dtype must be parsed to be numeric (text, category or booleans)."""
    return not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)


def numeric_frame(X, kinds, na_values=(), where=""):
    """``X`` with its numeric columns that hold text or booleans parsed to float64 (X itself when none do)."""
    positions = [i for i, kind in enumerate(kinds) if kind == NUMERIC and needs_parsing(X.dtypes.iloc[i])]
    if not positions:
        return X
    X = X.copy(deep=False)
    for i in positions:
        numbers = parse_numbers(X.iloc[:, i], str(X.columns[i]), na_values, where)
        X.isetitem(i, pd.Series(numbers, index=X.index))
    return X


def numeric_array(X, kinds):
    """A 2-D array with its numeric columns parsed to floats: float64 when every column is
    numeric, else an object array (X itself when nothing needs parsing)."""
    if not needs_parsing(X.dtype) or NUMERIC not in kinds:
        return X
    out = X.astype(object)
    for i, kind in enumerate(kinds):
        if kind == NUMERIC:
            out[:, i] = parse_numbers(X[:, i], str(i))
    return out.astype(np.float64) if all(k == NUMERIC for k in kinds) else out


NUMBER = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$|^\s*[+-]?(inf|infinity|nan)\s*$", re.IGNORECASE)
"""Text that reads as one number (as pyarrow's CSV reader reads one), any case."""

#: Tokens that surely mean "missing" when a column otherwise holds numbers: any run of punctuation
#: (``?``, ``-``, ``.``, ``*``, ``--``) or one of these words, any case.
MISSING_WORDS = ("missing", "unknown", "n.a.", "n.a", "na", "n/a", "none", "null", "nan", "empty", "blank")


def missing_token(values):
    """The one token among a column's distinct text ``values`` that is not a number, when every other
    value is one, and whether it surely means missing.

    Returns ``(token, safe)``, or None when the values are not numbers and one token.

    >>> missing_token(["1.5", "?", "2", "-3e2"]), missing_token(["1", "many"]), missing_token(["a", "b"])
    (('?', True), ('many', False), None)
    """
    others = [v for v in values if v is not None and not NUMBER.match(v)]
    if len(others) != 1 or len(others) == len([v for v in values if v is not None]):
        return None
    token = others[0]
    safe = (token.strip() != "" and not any(c.isalnum() for c in token)) or token.strip().lower() in MISSING_WORDS
    return token, safe


def may_hold_numbers(values):
    """False when ``values`` (a column's first ones) settle that :func:`numbers_in_text` of the column is None:
    two distinct words, or a value neither number nor text; stops at the first such values."""
    word = None
    for v in values:
        if isinstance(v, str):
            if v != word and not NUMBER.match(v):
                if word is not None:
                    return False
                word = v
        elif isinstance(v, (bool, np.bool_)) or not (isinstance(v, (int, float, np.integer, np.floating)) or v is None):
            return False
    return True


def numbers_in_text(values):
    """What a column's distinct non-missing ``values`` (numbers, text, or both) say when they are numbers,
    as values or as text, besides at most one other token (:func:`missing_token`'s rule, as CSV files are
    read): ``("numbers", None)``, ``("text", None)`` when some are numeric text, ``("token", (token, safe))``;
    None for other values (words, booleans...).

    >>> numbers_in_text([1.5, 2]), numbers_in_text(["1", 2.5]), numbers_in_text([1.5, "n/a"])
    (('numbers', None), ('text', None), ('token', ('n/a', True)))
    >>> numbers_in_text(["a", "b"]) is None, numbers_in_text([True, 2]) is None
    (True, True)
    """
    text = []
    for v in values:
        if isinstance(v, str):
            text.append(v)
        elif isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            return None
    others = [v for v in text if not NUMBER.match(v)]
    if not others:
        return ("text", None) if text else ("numbers", None)
    one = missing_token([v if isinstance(v, str) else str(v) for v in values])
    return None if one is None else ("token", one)

"""Values of another type than a categorical column's fitted ones, at scoring: matched as the same number, or refused.

A categorical column fitted on text may be scored with numbers, and one fitted
on numbers with text (a Parquet column of ``"1"``, ``"2"`` strings scored from a
CSV file of integers, or the reverse). Such values are matched by one rule:

- **text where numbers were fitted**: text that reads as a number (``"3"``,
  ``" 3 "``, ``"3.0"``) is that number; pandas' missing-value marks
  (``"NA"``, ``""``, ...) and ``"nan"`` are missing values; any other text
  (``"x"``) raises ValueError naming the column and both types;
- **numbers where text was fitted**: a number is the fitted text that reads as
  it (``3`` is ``"3"``); when no fitted text reads as a number, numbers raise
  ValueError;
- any other type (booleans where numbers or text were fitted, dates, ...)
  raises ValueError.

A number matched so that the column never saw (``"9"`` where 1..3 were fitted)
is an unseen value, as 9 itself would be. Only the entries of a partition's
local dictionary that the vocabulary lacks are looked at, never a row.

>>> other_type_positions(["1", " 2.0"], [1, 2, 3], "code").tolist()
[0, 1]
>>> other_type_positions([3, 9], ["1", "2", "3"], "code").tolist()
[2, -1]
>>> other_type_positions(["x"], [1, 2, 3], "code")
Traceback (most recent call last):
...
ValueError: column 'code' was fitted on int values but holds str values such as 'x' (1 distinct value of another type): give the fitted type (text that reads as a number is that number, a number is the fitted text that reads as it)
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from nbparallel.data.columns import NA_VALUES


def value_kind(v):
    """``"text"``, ``"bool"``, ``"number"`` or the type's name: the kinds whose values the rule compares."""
    if isinstance(v, str):
        return "text"
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, numbers.Number):
        return "number"
    return type(v).__name__


def number_of_text(text):
    """The number a string reads as (an int when it is one, exactly), NaN for a missing-value mark, else None."""
    t = text.strip()
    if t in NA_VALUES or t.lower() in ("nan", "+nan", "-nan"):
        return math.nan
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return None


def _type_names(values):
    return ", ".join(sorted({type(v).__name__ for v in values}))


def other_type_positions(entries, vocabulary, name, kinds=None, numbers_of_text=None):
    """Positions in ``vocabulary`` of local dictionary ``entries`` that it lacks (-1 where none is matched),
    by the module's rule; ValueError for an entry of another type that the rule does not match.

    ``kinds`` (the set of the vocabulary's :func:`value_kind` s) and ``numbers_of_text`` (``{number: position}``
    of its text entries that read as numbers) are computed when not given (callers keep them per column).
    """
    kinds = {value_kind(v) for v in vocabulary} if kinds is None else kinds
    positions = np.full(len(entries), -1, dtype=np.int64)
    refused = []
    index = None
    for i, v in enumerate(entries):
        kind = value_kind(v)
        if kind in kinds or v is None or (kind == "number" and v != v):
            continue  # the fitted type (an unseen value), or missing
        if kind == "text" and "number" in kinds:
            number = number_of_text(v)
            if number is None:
                refused.append(v)
            elif number == number:
                if index is None:
                    index = {u: p for p, u in enumerate(vocabulary) if value_kind(u) == "number"}
                positions[i] = index.get(number, -1)
        elif kind == "number" and "text" in kinds:
            if numbers_of_text is None:
                numbers_of_text = text_numbers(vocabulary)
            if not numbers_of_text:
                refused.append(v)
            else:
                positions[i] = numbers_of_text.get(v, -1)
        else:
            refused.append(v)
    if refused:
        raise ValueError(
            f"column {name!r} was fitted on {_type_names(vocabulary)} values but holds {_type_names(refused)} values "
            f"such as {refused[0]!r} ({len(refused)} distinct value{'s' if len(refused) > 1 else ''} of another "
            "type): give the fitted type (text that reads as a number is that number, a number is the fitted text "
            "that reads as it)")
    return positions


def text_numbers(vocabulary):
    """``{number: position}`` of a vocabulary's text entries that read as a number (one that two entries read
    as, ``"1"`` and ``"1.0"``, is left out: no single entry is it)."""
    found = {}
    for p, u in enumerate(vocabulary):
        if isinstance(u, str):
            number = number_of_text(u)
            if number is not None and number == number:
                found.setdefault(number, []).append(p)
    return {number: at[0] for number, at in found.items() if len(at) == 1}

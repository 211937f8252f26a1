"""JSON forms of a schema's values: a category or class as JSON, and back.

JSON has no infinite float, and the string ``"inf"`` is a category of its own,
so an infinite float is written ``{"float": "inf"}``; NaN and other types a
model file cannot hold are refused with a TypeError naming the column.
"""

from __future__ import annotations

import math

import numpy as np


def json_float(x):
    """``x`` as a JSON number, None for a missing or NaN one."""
    return None if x is None or np.isnan(x) else float(x)


def json_value(v, column):
    """A category or class as JSON: itself, or ``{"float": "inf"}`` for an infinite float (JSON has none, and
    the string "inf" is another category)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        if math.isnan(v):
            raise TypeError(f"column {column!r} has a NaN category, which a model file cannot hold")
        return {"float": str(v)}
    if isinstance(v, (str, int, float, bool)):
        return v
    raise TypeError(f"column {column!r} has a category {v!r} of type {type(v).__name__}, which a model file "
                    "cannot hold")


def from_json_value(v):
    """Inverse of :func:`json_value`: ``{"float": "inf"}`` or ``{"float": "-inf"}`` back to the float;
    any other value as it is."""
    if isinstance(v, dict) and set(v) == {"float"} and v["float"] in ("inf", "-inf"):
        return float(v["float"])
    return v

"""Checks of model-file and checkpoint payloads against the format, before anything is built from them.

Every reader returns the object it builds (a Schema, a CountTable, ...) or
raises ValueError naming the offending key path and what was expected, so a
damaged or tampered file never surfaces as an IndexError deep in the
prediction code.
"""

from __future__ import annotations

import math

import numpy as np

from nbparallel.data.columns import CATEGORICAL, NUMERIC
from nbparallel.data.encoding import MAX_CATEGORIES
from nbparallel.data.schema import Attribute, Schema
from nbparallel.data.schema_json import from_json_value
from nbparallel.engine.reduce import TreeRecord
from nbparallel.summaries.counts import CountTable

MAX_BINS = 65534
"""Most equal-width bins per numeric attribute (bin codes are uint16, 0 = missing)."""


def keys(d, where, required, optional=()):
    """``d`` itself after checking it is a dict with the ``required`` keys and no unknown ones."""
    if not isinstance(d, dict):
        raise ValueError(f"{where} must be a JSON object, got {type(d).__name__}")
    missing = [k for k in required if k not in d]
    unknown = [k for k in d if k not in required and k not in optional]
    if missing or unknown:
        raise ValueError(f"{where} has missing keys {missing} or unknown keys {unknown}")
    return d


def integer(value, where, low=0, high=None):
    """``value`` as an int in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or value < low or (high is not None and value > high):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{where} must be an integer {bound}, got {value!r}")
    return int(value)


def number(value, where, low=None, high=None):
    """``value`` as a finite float in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{where} must be a finite number in [{low}, {high}], got {value!r}")
    return float(value)


def numbers(value, where, shape, low=None):
    """A float64 array of finite numbers >= ``low`` of the given shape (-1: any length)."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"{where} is not an array of numbers ({exc})") from None
    if array.size and array.dtype.kind not in "iuf":
        raise ValueError(f"{where} must hold numbers only, got {array.dtype} values")
    array = array.astype(np.float64)
    if array.size == 0 and len(shape) > 1 and shape[0] == 0:  # a table of no rows is written as []
        array = array.reshape([max(s, 0) for s in shape])
    if array.ndim != len(shape) or any(s not in (-1, n) for s, n in zip(shape, array.shape)):
        raise ValueError(f"{where} has shape {array.shape}, expected {tuple(shape)}")
    if not np.all(np.isfinite(array)) or (low is not None and np.any(array < low)):
        raise ValueError(f"{where} must hold finite numbers" + ("" if low is None else f" >= {low}"))
    return array


def _unique_scalars(values, where):
    if not isinstance(values, list):
        raise ValueError(f"{where} must be a list, got {type(values).__name__}")
    values = [from_json_value(v) for v in values]  # {"float": "inf"}: an infinite float
    for v in values:
        if v is None or not isinstance(v, (str, int, float, bool)):
            raise ValueError(f"{where} must hold strings, numbers or {{\"float\": \"inf\"}}, got {v!r}")
    if len(set(values)) != len(values):  # 1, 1.0 and True are one value, as in a fitted vocabulary
        raise ValueError(f"{where} holds duplicate values")
    return list(values)


def attribute(d, where):
    """An Attribute from its dict."""
    kind = d.get("kind") if isinstance(d, dict) else None
    if kind == CATEGORICAL:
        keys(d, where, ("name", "kind", "categories"), ("declared",))
        if not isinstance(d.get("declared", False), bool):
            raise ValueError(f"{where}.declared must be true or false, got {d['declared']!r}")
        categories = _unique_scalars(d["categories"], f"{where}.categories")
        if len(categories) > MAX_CATEGORIES:
            raise ValueError(f"{where}.categories has {len(categories)} values; at most {MAX_CATEGORIES}")
        at = Attribute(d["name"], CATEGORICAL, categories=categories, declared=d.get("declared", False))
    elif kind == NUMERIC:
        keys(d, where, ("name", "kind", "lo", "hi", "n_bins"))
        n_bins = integer(d["n_bins"], f"{where}.n_bins", 2, MAX_BINS)
        if (d["lo"] is None) != (d["hi"] is None):
            raise ValueError(f"{where}: lo and hi must both be numbers or both be null")
        if d["lo"] is None:
            lo = hi = np.nan
        else:
            lo, hi = number(d["lo"], f"{where}.lo"), number(d["hi"], f"{where}.hi")
            if not lo <= hi:  # both finite; the width may exceed the largest float (edges are then computed apart)
                raise ValueError(f"{where}: lo {lo!r} must be <= hi {hi!r}")
        at = Attribute(d["name"], NUMERIC, lo=lo, hi=hi, n_bins=n_bins)
    else:
        raise ValueError(f"{where}.kind must be {CATEGORICAL!r} or {NUMERIC!r}, got {kind!r}")
    if not isinstance(at.name, str):
        raise ValueError(f"{where}.name must be a string, got {at.name!r}")
    return at


def schema(d, where="schema"):
    """A Schema from its dict: unique names and values, columns matching the attributes."""
    keys(d, where, ("attributes", "columns", "classes"))
    if not isinstance(d["attributes"], list) or not d["attributes"]:
        raise ValueError(f"{where}.attributes must be a non-empty list")
    attributes = [attribute(a, f"{where}.attributes[{i}]") for i, a in enumerate(d["attributes"])]
    if not Schema.in_table_order(attributes):
        raise ValueError(f"{where}.attributes must list the categorical attributes first")
    columns = d["columns"]
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns) \
            or len(set(columns)) != len(columns):
        raise ValueError(f"{where}.columns must be a list of distinct strings")
    if sorted(columns) != sorted(at.name for at in attributes):
        raise ValueError(f"{where}.columns {columns} do not match the attributes' names")
    return Schema(attributes, list(columns), _unique_scalars(d["classes"], f"{where}.classes"))


def numeric_bins(layout, n_bins, why, where="schema"):
    """Raise ValueError unless every numeric attribute of ``layout`` (a Schema) has ``n_bins`` bins, as the
    model's parameters (``why``, e.g. "n_bins='mdl'") make a fit count them."""
    for at in layout.attributes:
        if at.kind == NUMERIC and at.n_bins != n_bins:
            raise ValueError(f"{where}: numeric attribute {at.name!r} has {at.n_bins} bins, but a model with "
                             f"{why} counts {n_bins}")


def count_table(d, layout, n_classes, where="counts"):
    """A CountTable from its dict, laid out as ``layout`` (a Schema) with ``n_classes`` columns."""
    keys(d, where, ("table", "offsets", "class_totals", "all_missing", "n_missing_target"))
    offsets = layout.offsets
    if d["offsets"] != offsets.tolist():
        raise ValueError(f"{where}.offsets do not match the schema")
    table = numbers(d["table"], f"{where}.table", (int(offsets[-1]), n_classes), low=0)
    class_totals = numbers(d["class_totals"], f"{where}.class_totals", (n_classes,), low=0)
    all_missing = numbers(d["all_missing"], f"{where}.all_missing", (n_classes,), low=0)
    if np.any(all_missing > class_totals):
        raise ValueError(f"{where}.all_missing exceeds class_totals")
    return CountTable(table, offsets, class_totals, all_missing,
                      integer(d["n_missing_target"], f"{where}.n_missing_target"))


def tree_record(d, where="reduction"):
    """A TreeRecord from its dict, its level sizes consistent."""
    keys(d, where, ("n_leaves", "height", "n_merges", "max_fan_in", "level_sizes"))
    record = TreeRecord(**{k: integer(d[k], f"{where}.{k}") for k in ("n_leaves", "height", "n_merges",
                                                                       "max_fan_in")},
                        level_sizes=tuple(integer(s, f"{where}.level_sizes", 1) for s in
                                          (d["level_sizes"] if isinstance(d["level_sizes"], list) else [0])))
    sizes = record.level_sizes
    if sizes[0] != record.n_leaves or sizes[-1] != 1 or record.height != len(sizes) - 1 \
            or any(b >= a for a, b in zip(sizes, sizes[1:])):
        raise ValueError(f"{where} is not the record of a reduction tree: {d}")
    return record


def passes(value, where="passes"):
    """Pass records (kind, tree, seconds)."""
    if not isinstance(value, list):
        raise ValueError(f"{where} must be a list")
    out = []
    for i, p in enumerate(value):
        keys(p, f"{where}[{i}]", ("kind", "tree", "seconds"))
        if not isinstance(p["kind"], str):
            raise ValueError(f"{where}[{i}].kind must be a string")
        out.append({"kind": p["kind"], "tree": tree_record(p["tree"], f"{where}[{i}].tree"),
                    "seconds": number(p["seconds"], f"{where}[{i}].seconds", 0)})
    return out


def feature_names(d, layout):
    """``(n_features_in, feature_names_in or None, target_column or None)``, consistent with the schema."""
    n_features = integer(d["n_features_in"], "n_features_in", 1)
    if n_features != len(layout.columns):
        raise ValueError(f"n_features_in is {n_features} but the schema has {len(layout.columns)} columns")
    names = d["feature_names_in"]
    if names is not None and names != layout.columns:
        raise ValueError("feature_names_in does not match the schema's columns")
    target = d["target_column"]
    if target is not None and (not isinstance(target, str) or target in layout.columns):
        raise ValueError(f"target_column must be null or a string other than the columns, got {target!r}")
    return n_features, names, target

"""Vocabularies: sorting them, arraying the classes, and refusing values whose labels would be ambiguous.

A vocabulary is the set of values a categorical attribute or the target takes.
Equal values of different types (``7`` and ``7.0``, ``1`` and ``True``) would
share one category whose label depends on the order of the rows or on the
partitioning, and values that print the same (``'1'`` and ``1``) would share
one label in ``log_probabilities_`` and in the model file: both are refused
with a ValueError naming the column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nbparallel.data.encoding import plain_array, python_value


_NUMBER_TYPES = (int, float, bool, np.number, np.bool_)


def check_equal_values(values, column, name):
    """``values`` after checking that no two equal values of an object column differ in type (``7`` and
    ``7.0``, ``1`` and ``True``): their one category's label would depend on the order of the rows."""
    if column.dtype != object or not any(isinstance(v, _NUMBER_TYPES) for v in values):
        return values
    numbers = plain_array(column)
    kinds = np.frompyfunc(_number_kind, 1, 1)(numbers)
    seen = {}
    for kind in ("int", "float", "bool"):
        chosen = numbers[kinds == kind]
        if len(chosen):
            seen[kind] = {python_value(v) for v in pd.unique(chosen)}
    found = list(seen.items())
    for i, (kind, these) in enumerate(found):
        for other, those in found[i + 1:]:
            clash = these & those
            if clash:
                value = min(clash)
                _refuse_equal_values(name, [next(v for v in group if v == value) for group in (these, those)],
                                     [kind, other])
    return values


def _number_kind(v):
    """The kind of a number as a category's label shows it ("int", "float" or "bool"), or None."""
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    return None


def _refuse_equal_values(name, value, kinds):
    raise ValueError(f"column {name!r} holds equal values of different types ({' and '.join(map(repr, value))}: "
                     f"{' and '.join(kinds)}), "
                     "which would share one category whose label depends on the order of the rows: "
                     "make the column one type")


def refuse_same_print(values, what):
    """Raise ValueError when two of a vocabulary's values print the same (``'1'`` and ``1``): their labels in
    ``log_probabilities_`` and in the model file would be one."""
    if len({str(v) for v in values}) < len(values):
        printed = {}
        for v in values:
            printed.setdefault(str(v), []).append(v)
        same = next(vs for vs in printed.values() if len(vs) > 1)
        raise ValueError(f"{what} holds values that print the same but differ in type: {same!r} "
                         f"({', '.join(type(v).__name__ for v in same)}); make the column one type")


class EqualValuesOfTypes(ValueError):
    """Equal values of different types met in a merge; ``position`` is the attribute's (None: the target)."""

    def __init__(self, message, position=None):
        super().__init__(message)
        self.position = position

    def __reduce__(self):
        return type(self), (self.args[0], self.position)

    def naming(self, columns):
        """The error with the attribute's column name."""
        if self.position is None:
            return self
        return ValueError(str(self).replace(f"column at position {self.position}",
                                            f"column {columns[self.position]!r}"))


def union_of_values(first, second, where):
    """``first | second``, after checking that no value of one equals a value of the other of another type
    (``7`` and ``7.0``): the union would keep whichever came first, so the label would depend on the
    partitioning. ``where`` names the attribute (its position) or the target in the error."""
    union = first | second
    if len(union) < len(first) + len(second):
        mine = {v: v for v in first}
        for v in second:
            if v in mine and type(mine[v]) is not type(v) and {type(mine[v]), type(v)} != {str}:
                what = "y" if where == "target" else f"column at position {where}"
                raise EqualValuesOfTypes(
                    f"{what} holds equal values of different types ({mine[v]!r} and {v!r}) in different "
                    "partitions; they would share one category whose label depends on the partitioning: "
                    "make the column one type", None if where == "target" else where)
    return union


def sort_values(values):
    """Sort a vocabulary; mixed types sort by type name first."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, v))


def class_array(classes):
    """The classes as a numpy array of their own type: integers as int64, or uint64 when one is 2**63 or more
    (``numpy.asarray`` would make floats of them, and strings of labels of mixed types), other mixes as objects.

    >>> class_array([0, 2**63]).dtype, class_array(["a", "b"]).dtype.kind, class_array([1.5, 2]).dtype
    (dtype('uint64'), 'U', dtype('float64'))
    """
    classes = list(classes)
    if classes and all(type(c) is int for c in classes):
        if all(-2**63 <= c < 2**63 for c in classes):
            return np.asarray(classes, dtype=np.int64)
        if all(0 <= c < 2**64 for c in classes):
            return np.asarray(classes, dtype=np.uint64)
        return np.asarray(classes, dtype=object)
    array = np.asarray(classes)
    if array.dtype.kind in "US" and not all(isinstance(c, str) for c in classes):
        array = np.empty(len(classes), dtype=object)
        array[:] = classes
    return array

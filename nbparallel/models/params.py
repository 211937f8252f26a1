"""Hyperparameter checks declared once per estimator.

An estimator lists, in ``_parameter_constraints``, what each parameter may be
(in the style of scikit-learn's ``_parameter_constraints``); :func:`check_params`
runs at the start of ``fit`` and raises naming the parameter, what it expects
and what it got.

>>> class Model:
...     alpha = -1.0
>>> check_params(Model(), {"alpha": [Interval(float, 0, None, closed="left")]})
Traceback (most recent call last):
...
nbparallel.models.params.InvalidParameterError: The 'alpha' parameter of Model must be a number in [0, inf). Got -1.0 instead.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

BOOLEAN = "boolean"


class InvalidParameterError(ValueError, TypeError):
    """A hyperparameter of the wrong type or value (both a ValueError and a TypeError, as scikit-learn's)."""


ARRAY_LIKE = "array-like"


@dataclass(frozen=True)
class Interval:
    """Numbers of a type (``int`` or ``float``) within bounds; None is unbounded."""

    type: type
    low: float | None
    high: float | None
    closed: str = "both"  # "left", "right", "both" or "neither"

    def accepts(self, value):
        kind = numbers.Integral if self.type is int else numbers.Real
        if isinstance(value, bool) or not isinstance(value, kind) or value != value:
            return False
        if self.low is not None and (value < self.low or (value == self.low and self.closed in ("right", "neither"))):
            return False
        return not (self.high is not None and (value > self.high or (value == self.high
                                                                      and self.closed in ("left", "neither"))))

    def __str__(self):
        left = "[" if self.closed in ("left", "both") and self.low is not None else "("
        right = "]" if self.closed in ("right", "both") and self.high is not None else ")"
        low = "-inf" if self.low is None else self.low
        high = "inf" if self.high is None else self.high
        what = "an int" if self.type is int else "a number" if self.high is None else "a finite number"
        return f"{what} in {left}{low}, {high}{right}"


@dataclass(frozen=True)
class Options:
    """One of a few values."""

    values: tuple

    def accepts(self, value):
        """``value`` is one of the values, of its type (a ``str`` subclass such as ``numpy.str_`` counts as ``str``)."""
        return any(value is v or ((type(value) is type(v) or isinstance(v, str) and isinstance(value, str))
                                  and value == v) for v in self.values)

    def __str__(self):
        return "one of " + ", ".join(repr(v) for v in self.values)


def _accepts(constraint, value):
    if constraint is None:
        return value is None
    if constraint == BOOLEAN:
        return isinstance(value, (bool, np.bool_))
    if constraint == ARRAY_LIKE:
        return hasattr(value, "__array__") or (isinstance(value, (list, tuple)))
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return constraint.accepts(value)


def _describe(constraint):
    if constraint is None:
        return "None"
    if constraint == BOOLEAN:
        return "a bool"
    if constraint == ARRAY_LIKE:
        return "an array-like"
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__}"
    return str(constraint)


def check_params(estimator, constraints):
    """Raise InvalidParameterError for the first parameter that meets none of its constraints."""
    for name, allowed in constraints.items():
        value = getattr(estimator, name)
        if not any(_accepts(c, value) for c in allowed):
            expected = " or ".join(_describe(c) for c in allowed)
            raise InvalidParameterError(f"The {name!r} parameter of {type(estimator).__name__} must be {expected}. "
                             f"Got {value!r} instead.")

"""The summary protocol: what one partition of a pass produces.

A summary is a value with

- ``a + b``: an associative and commutative merge (raw sums and counts only:
  smoothing, logarithms and probabilities are derived afterwards, never merged);
- an empty value, the identity of ``+`` (``Summary.empty(...)``, whose
  arguments are the layout, e.g. the number of classes);
- a JSON form: ``to_dict()`` and the classmethod ``from_dict(d)``.

:func:`merge_summaries` is the one merge every pass hands to
:func:`nbparallel.engine.execution.run_pass`: it adds its arguments left to right, and the
reduction tree pairs summaries by partition index, so float sums are added in
the same order for a given partitioning, and integer counts are identical for
any partitioning.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Summary(Protocol):
    """What a pass's per-partition summary provides."""

    def __add__(self, other): ...

    def to_dict(self) -> dict: ...

    @classmethod
    def from_dict(cls, data): ...


def merge_summaries(*summaries):
    """Merge summaries left to right: ``((s0 + s1) + s2) + ...``.

    >>> merge_summaries(1, 2, 3)  # anything with + merges
    6
    """
    if not summaries:
        raise ValueError("merge_summaries needs at least one summary")
    result = summaries[0]
    for summary in summaries[1:]:
        result = result + summary
    return result


def check_same_type(a, b):
    """Raise TypeError unless ``b`` can be added to ``a``."""
    if type(a) is not type(b):
        raise TypeError(f"cannot add a {type(b).__name__} to a {type(a).__name__}")

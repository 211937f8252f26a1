"""Values a model was not fitted on, tallied over one scoring call, so that a column whose values are mostly
unseen is said (a recoded column, values of another type than the fitted ones, another file's dictionary).

An unseen category adds nothing to the scores, as a missing value does: scored silently, a column of unseen
values gives every row the same evidence (the class prior, when it is the only one). The encoders count the
unseen values of each column as they code it (:meth:`nbparallel.data.schema.Schema.split`) and
:func:`record` adds them to the tally of the scoring task running in this thread, if any: a task wrapped in
:class:`Tallied` returns its result with its tally, and the caller adds the partitions' tallies and calls
:func:`warn_mostly_unseen` once. Tallies are sums, so they travel and merge as any summary does, on a cluster
too.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import NamedTuple

from nbparallel.data.user_warnings import warn

#: a column is "mostly unseen" when more than this share of the scored rows hold a value not in its vocabulary
MOSTLY = 0.5

_current = contextvars.ContextVar("nbparallel-unseen-tally", default=None)


class UnseenTally:
    """The scored rows and, per column name, how many of them held a non-missing value not in its vocabulary.

    A plain class with slots: one is made per scoring task, small arrays' included."""

    __slots__ = ("n_rows", "by_column")

    def __init__(self, n_rows=0, by_column=None):
        self.n_rows = n_rows
        self.by_column = {} if by_column is None else by_column

    def add(self, n_rows, by_column):
        """Add the rows of one encoded block and its unseen counts (name -> count; zeros may be left out)."""
        self.n_rows += int(n_rows)
        for name, count in by_column.items():
            if count:
                self.by_column[name] = self.by_column.get(name, 0) + int(count)

    def __add__(self, other):
        total = UnseenTally(self.n_rows, dict(self.by_column))
        total.add(other.n_rows, other.by_column)
        return total

    def mostly_unseen(self):
        """``{name: share}`` of the columns whose unseen share exceeds :data:`MOSTLY`, in column order seen."""
        if not self.n_rows:
            return {}
        return {name: count / self.n_rows for name, count in self.by_column.items()
                if count / self.n_rows > MOSTLY}


def record(n_rows, by_column):
    """Add one encoded block's unseen counts to the running task's tally (nothing when no tally runs)."""
    tally = _current.get()
    if tally is not None:
        tally.add(n_rows, by_column)


@dataclass(frozen=True)
class Tallied:
    """A scoring task ``fn`` that also returns the :class:`UnseenTally` of the rows it encoded:
    ``Tallied(fn)(*args)`` is ``TalliedResult(fn(*args), tally)``. A dataclass, so that a task key made of it
    is that of ``fn``'s fields (Dask tokenizes dataclasses by their fields)."""

    fn: object

    def __call__(self, *args, **kwargs):
        tally = UnseenTally()
        token = _current.set(tally)
        try:
            result = self.fn(*args, **kwargs)
        finally:
            _current.reset(token)
        return TalliedResult(result, tally)


class TalliedResult(NamedTuple):
    """A task's result and its tally; two add as their parts do (for passes whose results are summaries)."""

    result: object
    tally: UnseenTally

    def __add__(self, other):
        return TalliedResult(self.result + other.result, self.tally + other.tally)


def untallied(parts, vocabulary_of):
    """The results of tasks wrapped in :class:`Tallied`, in order, after :func:`warn_mostly_unseen` of their
    tallies added up (``vocabulary_of`` as there)."""
    parts = list(parts)
    total = parts[0].tally if parts else UnseenTally()
    for part in parts[1:]:
        total = total + part.tally
    warn_mostly_unseen(total, vocabulary_of)
    return [part.result for part in parts]


def warn_mostly_unseen(tally, vocabulary_of):
    """One UserWarning naming each column whose values are mostly unseen, with its share and a few of the
    fitted values (``vocabulary_of(name)``, a list) to compare with."""
    shares = tally.mostly_unseen() if tally.by_column else None
    if not shares:
        return
    lines = []
    for name, share in shares.items():
        fitted = vocabulary_of(name)
        shown = ", ".join(repr(v) for v in fitted[:3]) + (", ..." if len(fitted) > 3 else "")
        lines.append(f"column {name!r}: {share:.0%} of the rows hold a value the model was not fitted on "
                     f"(fitted values: {shown})")
    warn("; ".join(lines) + ". Such a value adds nothing to the scores, as a missing value: check that the "
         "columns are coded as in the fitted data")

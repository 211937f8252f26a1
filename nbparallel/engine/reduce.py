"""Binary-tree reduction of partition summaries: its plan, and the merge in this process.

The summaries of P partitions are merged level by level: at each level, runs of
``split_every`` neighbours (in partition index order) are merged by one task, so
float sums are added in the same order whatever executes them. With fan-in 2 the
tree has exactly ``ceil(log2 P)`` levels of merges; ``split_every=False`` merges
all summaries in one flat task. :func:`plan` shapes the tree every backend
builds (:mod:`nbparallel.engine.backends`); :func:`reduce_now` merges concrete
summaries in this process along it.
"""

from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class TreeRecord:
    """The shape of a reduction tree, as built.

    Parameters
    ----------
    n_leaves : int
        Number of partition summaries reduced.
    height : int
        Number of merge levels between the leaves and the root.
    n_merges : int
        Number of merge tasks.
    max_fan_in : int
        The most summaries any one merge task combined.
    level_sizes : tuple of int
        Number of nodes at each level, leaves first, root last.

    Examples
    --------
    >>> from nbparallel import run_pass
    >>> summary, record = run_pass([1, 2, 3, 4, 5], lambda x: x, lambda *s: sum(s))
    >>> summary, record.n_leaves, record.height
    (15, 5, 3)
    """

    n_leaves: int
    height: int
    n_merges: int
    max_fan_in: int
    level_sizes: tuple

    def to_dict(self):
        """Plain values, for JSON."""
        return {**asdict(self), "level_sizes": list(self.level_sizes)}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`."""
        return cls(**{**data, "level_sizes": tuple(data["level_sizes"])})


def fan_in(split_every, n_leaves):
    """Resolve ``split_every`` to the number of summaries merged per task.

    >>> fan_in(2, 10), fan_in(None, 10), fan_in(False, 10), fan_in(False, 1)
    (2, 2, 10, 2)
    """
    if split_every is None:
        return 2
    if split_every is False:
        return max(n_leaves, 2)
    if isinstance(split_every, bool) or not isinstance(split_every, numbers.Integral):
        raise TypeError(f"split_every must be an int >= 2 or False, got {split_every!r}")
    if split_every < 2:
        raise ValueError(f"split_every must be >= 2 or False, got {split_every}")
    return int(split_every)


def plan(n_leaves, split_every=2):
    """The merge groups of the tree, level by level, and its :class:`TreeRecord`.

    Each level is a list of ``(start, stop)`` ranges of the previous level's
    nodes; a range of one node is carried up unchanged.

    >>> levels, record = plan(5)
    >>> levels
    [[(0, 2), (2, 4), (4, 5)], [(0, 2), (2, 3)], [(0, 2)]]
    >>> record.height, record.n_merges, record.max_fan_in
    (3, 4, 2)
    """
    if n_leaves < 1:
        raise ValueError("cannot reduce zero partitions")
    k = fan_in(split_every, n_leaves)
    levels, sizes, size = [], [n_leaves], n_leaves
    while size > 1:
        groups = [(start, min(start + k, size)) for start in range(0, size, k)]
        levels.append(groups)
        size = len(groups)
        sizes.append(size)
    merges = [stop - start for groups in levels for start, stop in groups if stop - start > 1]
    record = TreeRecord(n_leaves=n_leaves, height=len(levels), n_merges=len(merges),
                        max_fan_in=max(merges, default=0), level_sizes=tuple(sizes))
    return levels, record


def reduce_now(summaries, merge, split_every=2):
    """Merge concrete summaries in this process along the tree of :func:`plan`.

    Returns
    -------
    summary : object
    record : TreeRecord
    """
    levels, record = plan(len(summaries), split_every)
    level = list(summaries)
    for groups in levels:
        level = [level[a] if b - a == 1 else merge(*level[a:b]) for a, b in groups]
    return level[0], record

"""Binary-tree reduction of partition summaries as Dask tasks.

The summaries of P partitions are merged level by level: at each level, runs of
``split_every`` neighbours (in partition index order) are merged by one task, so
float sums are added in the same order whatever executes them. With fan-in 2 the
tree has exactly ``ceil(log2 P)`` levels of merges; ``split_every=False`` merges
all summaries in one flat task.
"""

from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass

from dask import delayed


@dataclass(frozen=True)
class TreeRecord:
    """The shape of a reduction tree, as built.

    Attributes
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


def tree_reduce(leaves, merge, split_every=2, name="reduce"):
    """Build the reduction tree over Dask delayed leaves.

    Parameters
    ----------
    leaves : list of dask.delayed.Delayed
        The partition summaries, in partition order.
    merge : callable
        ``merge(*summaries) -> summary``, associative; called with 2 to
        ``split_every`` arguments, left to right in partition order.
    split_every : int >= 2, False or None
        Fan-in of each merge task; False merges everything in one task.
    name : str
        Prefix of the merge task keys; include a token of the inputs so that
        the same inputs give the same keys.

    Returns
    -------
    root : dask.delayed.Delayed
        The merged summary.
    record : TreeRecord
        The shape of the tree.
    """
    if not leaves:
        raise ValueError("cannot reduce zero partitions")
    k = fan_in(split_every, len(leaves))
    level = list(leaves)
    sizes = [len(level)]
    n_merges = max_seen = 0
    while len(level) > 1:
        height = len(sizes)
        next_level = []
        for start in range(0, len(level), k):
            group = level[start : start + k]
            if len(group) == 1:  # an odd node out is carried up unchanged
                next_level.append(group[0])
                continue
            key = f"{name}-merge-{height}-{start // k}"
            next_level.append(delayed(merge, pure=True)(*group, dask_key_name=key))
            n_merges += 1
            max_seen = max(max_seen, len(group))
        level = next_level
        sizes.append(len(level))
    record = TreeRecord(
        n_leaves=len(leaves),
        height=len(sizes) - 1,
        n_merges=n_merges,
        max_fan_in=max_seen,
        level_sizes=tuple(sizes),
    )
    return level[0], record

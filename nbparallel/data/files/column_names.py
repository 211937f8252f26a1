"""Checks of the column names files give: unique within a file, the same in every file of a dataset."""

from __future__ import annotations


def check_same_names(first, names, path, other_names):
    """Raise ValueError naming the first column one file has and the other lacks."""
    for name in names:
        if name not in other_names:
            raise ValueError(f"file {str(path)!r} has no column {name!r}, which {str(first)!r} has")
    for name in other_names:
        if name not in names:
            raise ValueError(f"file {str(path)!r} has a column {name!r}, which {str(first)!r} does not have")


def check_unique(names, path):
    """Raise ValueError naming a column that a file names twice."""
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(f"file {str(path)!r} has two columns named {name!r}")
        seen.add(name)

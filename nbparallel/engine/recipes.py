"""Engine-neutral partitions: what a partition that is not yet in this process's memory is.

A partition is a concrete value in this process (a tuple of arrays, a DataFrame, an Arrow table) or one
of these recipes, which a backend (:mod:`nbparallel.engine.backends`) turns into its own task and makes
where that task runs:

- :class:`Read`: ``fn()``, its arguments inside the function (a piece of a file, read by its task);
- :class:`Block`: a block of an engine's collection (a Dask DataFrame's partition, a Dask array's rows),
  or a partition a backend keeps in its workers' memory, held as that backend's own objects, which
  nothing but the backend reads.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Read:
    """A partition made where its task runs: ``fn()``.

    Parameters
    ----------
    fn : callable
        Makes the partition; it carries its own (small) arguments, as a bound method or a ``partial`` does.
    key : str
        Names the task that makes it (``nbparallel-read-<token>-<index>``): the same key for the same piece.
    """

    fn: object
    key: str


@dataclass(frozen=True, eq=False)
class Block:
    """A partition held by an engine: ``fn(*handles, *args)``, or the first handle's value without ``fn``.

    Parameters
    ----------
    handles : tuple
        The engine's own objects (a block of a Dask collection, a value kept on a cluster's workers, or
        None): opaque to everything but their backend, which computes each where the task runs.
    fn : callable or None
        Applied to the handles' values and ``args`` inside the task.
    args : tuple
        Concrete arguments of ``fn`` after the handles' values.
    """

    handles: tuple
    fn: object = None
    args: tuple = ()


def is_recipe(part):
    """Whether ``part`` is a recipe (:class:`Read` or :class:`Block`) rather than a value in this process."""
    return isinstance(part, (Read, Block))

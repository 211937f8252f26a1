"""The Ray backend: a pass's tasks on a Ray Dataset's blocks, run as Ray tasks where the blocks are.

A Ray Dataset's partitions are its blocks as Arrow tables in Ray's object store (``Dataset.to_arrow_refs``,
which runs the Dataset's plan once): :class:`RayBlock` recipes. A pass puts its functions in the object store
once (``ray.put``: the model travels once), runs one Ray task per block, ``fns[i](block)``, and merges the
results in this process along the tree of :func:`nbparallel.engine.reduce.reduce_now`, the tree every backend
uses, so the model is the same bit for bit as on the other backends. Ray retries a task whose worker died
(``max_retries``). This module and :mod:`nbparallel.cluster` are the only ones that import ``ray``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import partial

from nbparallel.engine.backends import Backend
from nbparallel.engine.reduce import reduce_now

#: times Ray runs a task again when its worker dies (a lost node, a killed process)
MAX_RETRIES = 3


def is_ray_dataset(data):
    """Whether ``data`` is a ``ray.data.Dataset`` (without importing ray)."""
    return type(data).__module__.startswith("ray.data") and hasattr(data, "to_arrow_refs")


@dataclass(frozen=True, eq=False)
class RayBlock:
    """Block ``index`` of a Ray Dataset: ``ref``, the ObjectRef of its Arrow table, read only by this backend."""

    ref: object
    index: int


def ray_blocks(dataset):
    """The :class:`RayBlock` recipes of a Ray Dataset's blocks, in order (its plan runs once, here)."""
    return [RayBlock(ref, i) for i, ref in enumerate(dataset.to_arrow_refs())]


def arrow_types(blocks):
    """``{column: pyarrow type}`` of a Ray Dataset's blocks (the first block's schema)."""
    import ray

    if not blocks:
        raise ValueError("the Ray Dataset has no blocks: there are no rows to read")
    schema = ray.get(blocks[0].ref).schema
    return {name: schema.field(name).type for name in schema.names}


def ray_backend(partitions):
    """The :class:`RayBackend` that runs passes over ``partitions`` when they are a Ray Dataset's blocks, else
    None."""
    if partitions and isinstance(partitions[0], RayBlock):
        return RayBackend()
    return None


def _apply(index, fns, table):
    return fns[index](table)


class RayBackend(Backend):
    """The Ray cluster this process is connected to (``ray.init``), for a Ray Dataset's blocks."""

    in_process = False

    def threads(self):
        """The cluster's CPUs."""
        import ray

        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def map(self, partitions, fns, *, name="map", token=None, verbose=False):
        """``[fn(block) ...]``: one Ray task per block, the functions put in the object store once."""
        import ray

        if not partitions:
            return []
        task = ray.remote(max_retries=MAX_RETRIES)(_apply)
        shared = ray.put(list(fns))
        return ray.get([task.options(name=f"{name}-{p.index}").remote(p.index, shared, p.ref) for p in partitions])

    def map_reduce(self, partitions, fns, merge, split_every, *, name="pass", token=None, verbose=False):
        """The blocks' summaries, made by Ray tasks, merged in this process along the common tree."""
        return reduce_now(self.map(partitions, fns, name=name), merge, split_every)

    def map_reduce_stateful(self, partitions, states, fns, merge, split_every, *, keep, name="pass", token=None,
                            verbose=False):
        """:meth:`map_reduce` of ``fn(part, state)``; the new states come back with the summaries and travel
        with the next pass."""
        leaves = self.map(partitions, [partial(fn, state=state) for fn, state in zip(fns, states)], name=name)
        summary, record = reduce_now([leaf[1] for leaf in leaves], merge, split_every)
        return summary, record, [leaf[0] for leaf in leaves] if keep else None

    def persist(self, partitions):
        """The blocks as they are: they are in Ray's object store already."""
        return list(partitions)

    def memory(self):
        """None: Ray's object store spills to disk as it fills."""
        return None

    def worker_memory_limit(self):
        """None: Ray manages its workers' memory."""
        return None


def map_batches(dataset, fn):
    """A lazy Ray Dataset of ``fn(table)`` for every batch of ``dataset``'s rows (Arrow tables), run by Ray."""
    return dataset.map_batches(fn, batch_format="pyarrow", batch_size=None)


@contextlib.contextmanager
def connect(address, num_cpus=None):
    """This process connected to the Ray cluster at ``address`` (``ray.init(address=...)``), shut down on exit (on
    failure too).

    ``local`` starts a Ray of this machine's own (``num_cpus`` of its cores, by default all), ``auto`` joins
    the cluster this machine is a node of, ``HOST:PORT`` or ``ray://HOST:PORT`` a cluster's head. Datasets
    then keep the order of their blocks, as the files' rows are read.
    """
    try:
        import ray
        import ray.data
    except ImportError as exc:
        raise ImportError(f"Ray needs ray[data] ({exc}): pip install 'nbparallel[ray]'") from exc
    settings = {"num_cpus": num_cpus} if num_cpus is not None else {}
    ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False, **settings)
    try:
        ray.data.DataContext.get_current().execution_options.preserve_order = True
        yield
    finally:
        ray.shutdown()


def read_files(paths, kind, *, columns=None, types=None, delimiter=None, encoding=None, null_values=()):
    """One Ray Dataset of the ``columns`` (default all) of the CSV (with a header) or Parquet files ``paths``, its
    blocks in the order of the files and of each file's rows.

    ``types`` (``{column: pyarrow type}``) are the CSV files' column types, else Arrow infers them block by
    block; ``null_values`` the strings that mean a missing value in them.
    """
    import ray.data

    paths = [str(p) for p in paths]
    if kind == "parquet":
        return ray.data.read_parquet(paths, columns=columns)
    if kind != "csv":
        raise ValueError(f"Ray reads CSV and Parquet files here, not {kind}")
    import pyarrow.csv as pcsv

    return ray.data.read_csv(
        paths, read_options=pcsv.ReadOptions(encoding=encoding or "utf8"),
        parse_options=pcsv.ParseOptions(delimiter=delimiter or ","),
        convert_options=pcsv.ConvertOptions(column_types=types, null_values=list(null_values),
                                            strings_can_be_null=True, include_columns=columns))


def to_arrow(dataset, columns):
    """The ``columns`` of a Ray Dataset's rows as one Arrow table in this process, in the order of its blocks."""
    import pyarrow as pa
    import ray

    return pa.concat_tables(ray.get(dataset.select_columns(list(columns)).to_arrow_refs()))


#: the addresses :func:`check_address` takes, as its error names them
ADDRESSES = "local, auto, HOST:PORT or ray://HOST:PORT"


def check_address(address):
    """``address`` if it is a Ray address of :data:`ADDRESSES` (nothing is started), else ValueError."""
    import re

    if not isinstance(address, str) or not re.fullmatch(r"local|auto|(ray://)?[^\s:/]+:\d+", address):
        raise ValueError(f"a Ray address is one of {ADDRESSES}, got {address!r}")
    return address

"""The Spark backend: a pass's tasks on a Spark DataFrame's partitions, run on the executors.

A pass is one Spark job, ``DataFrame.mapInArrow``: each executor task joins its partition's Arrow batches
into one table, applies the pass's function for that partition (all of them travel, pickled, with the job)
and returns one row, ``(partition, payload)``, the result pickled. ``mapInArrow`` is the one route that works
under Spark Connect too, where a DataFrame has no RDD. The summaries are merged along the tree of
:func:`nbparallel.engine.reduce.plan`, the tree every backend uses, so the model is the same bit for bit as on
the other backends: on the executors where the DataFrame has an RDD (classic Spark: one shuffle per level of
the tree, each group of neighbours merged by one task, :func:`tree_on_executors`), else on the driver, which
orders the rows by partition (Spark Connect).

A partition is a :class:`SparkPartition` recipe: ``(frame, index)``, partition ``index`` of a Spark
DataFrame. This module and :mod:`nbparallel.cluster` are the only ones that import ``pyspark``.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from dataclasses import dataclass
from functools import partial

from nbparallel.engine.backends import Backend
from nbparallel.engine.reduce import fan_in, plan, reduce_now

#: the Spark schema of a pass's rows: the partition's index, and its function's result pickled
RESULT_SCHEMA = "partition long, payload binary"


def is_spark_frame(data):
    """Whether ``data`` is a ``pyspark.sql.DataFrame``, classic or Spark Connect (without importing pyspark)."""
    return type(data).__name__ == "DataFrame" and type(data).__module__.startswith("pyspark.sql")


@dataclass(frozen=True, eq=False)
class SparkPartition:
    """Partition ``index`` of the Spark DataFrame ``frame`` (of ``n_partitions``): a recipe only this backend
    reads, on the executor that holds the partition."""

    frame: object
    index: int
    n_partitions: int


def arrow_types(frame):
    """``{column: pyarrow type}`` of a Spark DataFrame, as ``mapInArrow`` gives its rows."""
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(frame.schema)
    return {name: schema.field(name).type for name in schema.names}


def spark_backend(partitions):
    """The :class:`SparkBackend` that runs passes over ``partitions`` when they are a Spark DataFrame's, else
    None."""
    if partitions and isinstance(partitions[0], SparkPartition):
        return SparkBackend(partitions[0].frame.sparkSession)
    return None


def spark_partitions(frame):
    """The :class:`SparkPartition` recipes of every partition of a Spark DataFrame, in order."""
    n = number_of_partitions(frame)
    return [SparkPartition(frame, i, n) for i in range(n)]


def number_of_partitions(frame):
    """The number of partitions of a Spark DataFrame (``getNumPartitions`` of its RDD; under Spark Connect,
    which has none, a job that returns each partition's index)."""
    try:
        return frame.rdd.getNumPartitions()
    except Exception:  # Spark Connect: no RDD
        return len(frame.mapInArrow(_partition_index, "partition long").collect())


def _partition_index(batches):
    import pyarrow as pa
    from pyspark import TaskContext

    for _ in batches:  # the partition is read, so that its task runs
        pass
    yield pa.RecordBatch.from_pydict({"partition": [TaskContext.get().partitionId()]})


class _PartitionTask:
    """What an executor runs for one partition: the pass's function of that partition, on its rows as one
    Arrow table (with the DataFrame's Arrow schema, so an empty partition is an empty table)."""

    def __init__(self, payload, arrow_schema):
        self.payload = payload  # the pickled functions, one per partition
        self.arrow_schema = arrow_schema

    def __call__(self, batches):
        import pyarrow as pa
        from pyspark import TaskContext

        index = TaskContext.get().partitionId()
        fns = pickle.loads(self.payload)
        table = pa.Table.from_batches(list(batches), schema=self.arrow_schema)
        result = fns[index](table)
        yield pa.RecordBatch.from_pydict({"partition": [index], "payload": [pickle.dumps(result, protocol=5)]},
                                         schema=pa.schema([("partition", pa.int64()), ("payload", pa.binary())]))


def _cloudpickle():
    try:
        import cloudpickle
    except ImportError:  # pyspark bundles one
        from pyspark import cloudpickle
    return cloudpickle


def results_frame(partitions, fns):
    """The lazy Spark DataFrame of ``(partition, payload)`` rows, ``fn(rows of partition i)`` pickled, of the
    partitions' DataFrame."""
    from pyspark.sql.pandas.types import to_arrow_schema

    frame = partitions[0].frame
    if any(p.frame is not frame for p in partitions) or [p.index for p in partitions] != list(range(len(fns))):
        raise ValueError("a Spark pass runs over every partition of one DataFrame, in order")
    task = _PartitionTask(_cloudpickle().dumps(list(fns)), to_arrow_schema(frame.schema))
    return frame.mapInArrow(task, RESULT_SCHEMA)


def has_rdd(frame):
    """Whether a Spark DataFrame has an RDD: classic Spark's do, Spark Connect's do not."""
    return not type(frame).__module__.startswith("pyspark.sql.connect")


def run_on_partitions(partitions, fns):
    """``[fn(rows of partition i) for each i]`` in one Spark job over the partitions' DataFrame."""
    rows = results_frame(partitions, fns).collect()
    by_index = {row["partition"]: pickle.loads(row["payload"]) for row in rows}
    missing = sorted(set(range(len(fns))) - set(by_index))
    if missing:
        raise RuntimeError(f"the Spark job returned no result for partitions {missing[:10]}")
    return [by_index[i] for i in range(len(fns))]


class _Leaf:
    """A result row as a node of the tree: ``(position, leaves under it, summary)``."""

    def __call__(self, row):
        return row["partition"], 1, pickle.loads(row["payload"])


class _GroupOf:
    """``(position // k, node)``: the group of ``k`` neighbours that a node of a level joins."""

    def __init__(self, k):
        self.k = k

    def __call__(self, node):
        return node[0] // self.k, node


class _MergedGroup:
    """A group's nodes merged in position order (one node is carried up as it is): the next level's node."""

    def __init__(self, merge):
        self.merge = merge

    def __call__(self, group):
        key, nodes = group
        nodes = sorted(nodes, key=lambda node: node[0])
        summaries = [summary for _, _, summary in nodes]
        return key, sum(leaves for _, leaves, _ in nodes), summaries[0] if len(nodes) == 1 else self.merge(*summaries)


def tree_on_executors(results, n_leaves, merge, split_every):
    """``(summary, record)``: the ``(partition, payload)`` rows of a classic Spark DataFrame merged on the
    executors along the tree of :func:`~nbparallel.engine.reduce.plan`, one shuffle per level, in one job.

    Spark's ``treeReduce`` is not used: it groups partitions by ``index % n``, not neighbours, and merges its
    last level on the driver, so float sums would be added in another order than on the other backends.
    """
    levels, record = plan(n_leaves, split_every)
    k = fan_in(split_every, n_leaves)
    nodes = results.rdd.map(_Leaf())
    for groups in levels:
        nodes = nodes.map(_GroupOf(k)).groupByKey(numPartitions=len(groups)).map(_MergedGroup(merge))
    roots = nodes.collect()
    if [(key, leaves) for key, leaves, _ in roots] != [(0, n_leaves)]:
        raise RuntimeError(f"the Spark job's tree of {n_leaves} partitions ended in the nodes "
                           f"{[(key, leaves) for key, leaves, _ in roots][:10]} (position, leaves)")
    return roots[0][2], record


class SparkBackend(Backend):
    """A Spark session's executors, for the partitions of a Spark DataFrame (:class:`SparkPartition`)."""

    in_process = False

    def __init__(self, session):
        self.session = session

    def threads(self):
        """The session's default parallelism (the executors' cores); 1 where Spark Connect does not say."""
        try:
            return int(self.session.sparkContext.defaultParallelism)
        except Exception:  # Spark Connect: no SparkContext
            return 1

    def map(self, partitions, fns, *, name="map", token=None, verbose=False):
        """``[fn(part) ...]``, each on the executor that holds its partition."""
        return run_on_partitions(partitions, fns) if partitions else []

    def map_reduce(self, partitions, fns, merge, split_every, *, name="pass", token=None, verbose=False):
        """The partitions' summaries, made on the executors and merged along the common tree: on the executors
        where the DataFrame has an RDD (classic Spark), else on the driver (Spark Connect)."""
        if partitions and has_rdd(partitions[0].frame):
            return tree_on_executors(results_frame(partitions, fns), len(fns), merge, split_every)
        return reduce_now(self.map(partitions, fns), merge, split_every)

    def map_reduce_stateful(self, partitions, states, fns, merge, split_every, *, keep, name="pass", token=None,
                            verbose=False):
        """:meth:`map_reduce` of ``fn(part, state)``; the new states come back to the driver with the
        summaries (merged there) and travel with the next pass."""
        leaves = self.map(partitions, [partial(fn, state=state) for fn, state in zip(fns, states)])
        summary, record = reduce_now([leaf[1] for leaf in leaves], merge, split_every)
        return summary, record, [leaf[0] for leaf in leaves] if keep else None

    def persist(self, partitions):
        """The partitions of the DataFrame cached by Spark (``DataFrame.persist``) for the passes to come."""
        if not partitions:
            return []
        frame = partitions[0].frame.persist()
        return [SparkPartition(frame, p.index, p.n_partitions) for p in partitions]

    def memory(self):
        """None: the executors' memory is Spark's to manage."""
        return None

    def worker_memory_limit(self):
        """None: Spark limits and spills its executors itself."""
        return None


class _BatchTask:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, batches):
        for batch in batches:
            yield from self.fn(batch).to_batches()


def map_batches(frame, fn, arrow_schema):
    """A lazy Spark DataFrame of ``fn(batch)`` for every Arrow batch of ``frame``'s rows, on the executors;
    ``fn`` returns an Arrow Table of ``arrow_schema``."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return frame.mapInArrow(_BatchTask(fn), from_arrow_schema(arrow_schema))


def is_local_master(spec):
    """Whether the master URL ``spec`` runs Spark's executors in this machine's JVM (``local``, ``local[N]``)."""
    return spec == "local" or spec.startswith("local[")


@contextlib.contextmanager
def session_from(spec, conf=None):
    """A Spark session of the master URL ``spec``, stopped on exit (on failure too).

    ``sc://HOST:PORT`` is a Spark Connect server (``SparkSession.builder.remote``); anything else a master
    (``local[2]``, ``spark://HOST:7077``, ``yarn``: ``SparkSession.builder.master``). ``conf`` is Spark's
    configuration, ``{key: value}`` (no console progress bar unless it says so). A local master's Python
    workers run this process's interpreter.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise ImportError(f"Spark needs pyspark ({exc}): pip install 'nbparallel[spark]'") from exc
    builder = SparkSession.builder.appName("nbparallel")
    if spec.startswith("sc://"):
        builder = builder.remote(spec)
    else:
        if is_local_master(spec):
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        builder = builder.master(spec)
    for key, value in {"spark.ui.showConsoleProgress": "false", **(conf or {})}.items():
        builder = builder.config(key, str(value))
    session = builder.getOrCreate()
    try:
        yield session
    finally:
        session.stop()


def read_files(session, paths, kind, *, columns=None, types=None, delimiter=None, encoding=None, null_values=()):
    """One Spark DataFrame of the ``columns`` (default all) of the CSV (with a header) or Parquet files ``paths``,
    its partitions in the order of the files and of each file's rows: a union of one read per file.

    ``types`` (``{column: pyarrow type}``) is the CSV files' schema, else Spark infers it; ``null_values``
    are the strings that mean a missing value in a CSV file's text columns (Spark's reader takes an empty
    field as missing, and a text that is no number as a missing number).
    """
    from functools import reduce

    reader = session.read
    if kind == "csv":
        reader = reader.option("header", True).option("mode", "PERMISSIVE")
        for name, value in (("sep", delimiter), ("encoding", encoding)):
            if value is not None:
                reader = reader.option(name, value)
        if types is None:
            reader = reader.option("inferSchema", True)
        else:
            import pyarrow as pa
            from pyspark.sql.pandas.types import from_arrow_schema

            reader = reader.schema(from_arrow_schema(pa.schema(list(types.items()))))
    elif kind != "parquet":
        raise ValueError(f"Spark reads CSV and Parquet files here, not {kind}")
    paths = [str(p) for p in paths]
    schema = reader.format(kind).load(paths).schema  # one schema for every file
    frame = reduce(lambda a, b: a.union(b), [reader.schema(schema).format(kind).load(p) for p in paths])
    if columns is not None:
        frame = frame.select(*columns)
    text = [field.name for field in schema.fields if field.dataType.typeName() == "string" and field.name in
            frame.columns]
    if kind == "csv" and text and null_values:
        frame = frame.replace(list(null_values), None, subset=text)
    return frame


def to_arrow(frame, columns):
    """The ``columns`` of a Spark DataFrame's rows as one Arrow table in this process, in the DataFrame's order."""
    return frame.select(*columns).toArrow()


#: the master URLs :func:`check_master` takes, as its error names them
MASTERS = "local, local[N], local[*], local[N,F], spark://HOST:PORT, sc://HOST:PORT, yarn or k8s://URL"


def check_master(spec):
    """``spec`` if it is a Spark master URL of :data:`MASTERS` (no session is started), else ValueError."""
    import re

    forms = (r"local(\[(\d+|\*)(,\d+)?\])?", r"spark://[^\s:/]+:\d+(,[^\s:/]+:\d+)*", r"sc://[^\s:/]+(:\d+)?(/.*)?",
             r"yarn", r"k8s://\S+")
    if not isinstance(spec, str) or not any(re.fullmatch(form, spec) for form in forms):
        raise ValueError(f"a Spark master is one of {MASTERS}, got {spec!r}")
    return spec

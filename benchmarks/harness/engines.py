"""nbparallel on Dask, Spark and Ray against Spark MLlib's NaiveBayes, on the same Parquet directory (issue 54).

Run: ``nbparallel bench engines [--quick]``. The data: 10^7 rows (10^5 with ``--quick``) of 10 string and 10
integer columns of 10 values each and a string class of 2 values, in ``N_FILES`` Parquet files. Side by side
in one run, interleaved, best of the rounds (:func:`.timing.best_interleaved`):

- nbparallel's fit and predict of the directory on a Dask ``LocalCluster`` of 2 one-thread workers, and on this
  process's threads (the local backend);
- nbparallel's fit of ``spark.read.parquet(directory)`` on Spark ``local[2]`` and of
  ``ray.data.read_parquet(directory)`` on a 2-CPU Ray; their lazy predictions forced (Spark: a ``noop`` write;
  Ray: ``materialize``);
- Spark MLlib on the same session: the pipeline its users need (``StringIndexer``, ``OneHotEncoder``,
  ``VectorAssembler``, ``NaiveBayes``) fitted end to end from the files, its fit on the cached vectors alone,
  and its ``transform`` of the files forced by a ``noop`` write.

The integer columns are counted per value by nbparallel (``categorical_features``), as MLlib's pipeline indexes
them. Beside the ratios, the parts of a pass on Spark: a trivial ``mapInArrow`` job (its fixed cost), a
``mapInArrow`` that only counts the rows of the directory (the JVM-to-Python Arrow transfer) and the in-memory
fit of the same rows on 2 threads (the kernels).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .report import Result, Target
from .timing import best_interleaved

N_ROWS, N_FILES, N_VALUES, WORKERS = 10**7, 40, 10, 2
STRINGS = [f"s{j}" for j in range(10)]
INTEGERS = [f"i{j}" for j in range(10)]
#: issue 54's targets: (label, measured name, reference name, threshold, at_most); a ratio is reference / measured
#: (>= threshold) or measured / reference (<= threshold)
TARGETS = [
    ("nbparallel fit on Spark vs MLlib pipeline fit (MLlib / ours)", "fit: nbparallel on Spark",
     "fit: MLlib pipeline", 10, False),
    ("nbparallel fit on Spark vs MLlib fit on cached vectors (MLlib / ours)", "fit: nbparallel on Spark",
     "fit: MLlib NaiveBayes on cached vectors", 3, False),
    ("nbparallel predict on Spark vs MLlib transform (MLlib / ours)", "predict: nbparallel on Spark",
     "predict: MLlib pipeline transform", 5, False),
    ("nbparallel fit on Spark vs on Dask (Spark / Dask)", "fit: nbparallel on Spark", "fit: nbparallel on Dask",
     2, True),
    ("nbparallel fit on Ray vs on Dask (Ray / Dask)", "fit: nbparallel on Ray", "fit: nbparallel on Dask", 2, True),
]


def write_files(n_rows, directory, seed=0):
    """``N_FILES`` Parquet files of the string and integer columns and a class ``y`` that depends on them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    levels, classes = pa.array([f"v{v}" for v in range(N_VALUES)]), pa.array(["no", "yes"])
    directory.mkdir(parents=True, exist_ok=True)
    for i, rows in enumerate(np.array_split(np.arange(n_rows), N_FILES)):
        codes = rng.integers(0, N_VALUES, size=(len(rows), len(STRINGS) + len(INTEGERS)), dtype=np.int32)
        y = (codes[:, 0] + codes[:, 10] + rng.integers(0, N_VALUES, len(rows))) > 13
        columns = {c: levels.take(pa.array(codes[:, j])) for j, c in enumerate(STRINGS)}
        columns.update({c: pa.array(codes[:, len(STRINGS) + j]) for j, c in enumerate(INTEGERS)})
        pq.write_table(pa.table({**columns, "y": classes.take(pa.array(y.astype(np.int32)))}),
                       directory / f"part-{i:03d}.parquet")
    return directory


@contextlib.contextmanager
def spark_session():
    """A classic ``local[2]`` Spark session (Python workers of this interpreter), stopped on exit."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(f"local[{WORKERS}]").appName("nbparallel-engines")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "4g").config("spark.sql.shuffle.partitions", str(2 * WORKERS))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        yield spark
    finally:
        spark.stop()


@contextlib.contextmanager
def ray_runtime():
    """A 2-CPU local Ray, shut down on exit."""
    import logging

    import ray
    import ray.data

    logging.getLogger("ray.data").setLevel(logging.WARNING)
    ray.data.DataContext.get_current().enable_progress_bars = False
    ray.init(num_cpus=WORKERS, include_dashboard=False, log_to_driver=False, object_store_memory=2 * 1024**3,
             configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@contextlib.contextmanager
def dask_cluster():
    """A ``distributed.LocalCluster`` of 2 one-thread worker processes and its client, closed on exit."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster, set_as_default=False) as client:  # active inside client.as_current() only
            yield client


def mllib_pipeline():
    """MLlib's pipeline of raw columns: every column indexed, one-hot encoded, assembled, then NaiveBayes."""
    from pyspark.ml import Pipeline
    from pyspark.ml.classification import NaiveBayes as SparkNaiveBayes
    from pyspark.ml.feature import OneHotEncoder, StringIndexer, VectorAssembler

    names = [*STRINGS, *INTEGERS]
    return Pipeline(stages=[
        StringIndexer(inputCols=[*names, "y"], outputCols=[f"{c}_i" for c in [*names, "y"]], handleInvalid="keep"),
        OneHotEncoder(inputCols=[f"{c}_i" for c in names], outputCols=[f"{c}_v" for c in names], dropLast=False),
        VectorAssembler(inputCols=[f"{c}_v" for c in names], outputCol="features"),
        SparkNaiveBayes(modelType="multinomial", labelCol="y_i")])


def noop_write(frame):
    """Every row of a Spark DataFrame computed, nothing kept."""
    frame.write.format("noop").mode("overwrite").save()


def spark_parts(spark, frame):
    """``{name: callable}`` of the parts of a pass on Spark: a trivial job and the Arrow transfer alone (its tasks
    nested functions, which Spark's Python workers receive by value: they cannot import ``harness``)."""
    def trivial(batches):
        import pyarrow as pa

        for _ in batches:
            pass
        yield pa.RecordBatch.from_pydict({"n": [0]})

    def count(batches):
        import pyarrow as pa

        rows = nbytes = 0
        for batch in batches:
            rows, nbytes = rows + batch.num_rows, nbytes + batch.nbytes
        yield pa.RecordBatch.from_pydict({"rows": [rows], "bytes": [nbytes]})

    tiny = spark.range(0, WORKERS, numPartitions=WORKERS)
    return {"part: trivial mapInArrow job (2 tasks)": lambda: tiny.mapInArrow(trivial, "n long").collect(),
            "part: Arrow transfer (mapInArrow counting rows)":
                lambda: frame.mapInArrow(count, "rows long, bytes long").collect()}


def run(ctx):
    """Every engine's fit and predict of the same files, MLlib's beside them, and the parts of a Spark pass."""
    import dask
    import pyarrow.parquet as pq

    from nbparallel import NaiveBayes

    n_rows, repeat = (10**5, 1) if ctx.quick else (N_ROWS, 3)
    notes = []
    with contextlib.ExitStack() as stack:
        directory = write_files(n_rows, Path(stack.enter_context(tempfile.TemporaryDirectory())) / "rows")
        path = str(directory)
        in_memory = pq.read_table(path).to_pandas()
        client = stack.enter_context(dask_cluster())
        spark = stack.enter_context(spark_session())
        ray = stack.enter_context(ray_runtime())
        frame = spark.read.parquet(path)
        blocks = ray.data.read_parquet(path)
        features = frame.drop("y")
        models = {}

        def fit(name, data, where=contextlib.nullcontext):
            def go():
                with where():
                    models[name] = NaiveBayes(categorical_features=INTEGERS).fit(data, "y")
            return go

        def threads():
            return dask.config.set(scheduler="threads", num_workers=WORKERS)

        model = NaiveBayes(categorical_features=INTEGERS).fit(in_memory, "y")  # the model every prediction runs
        pipeline = mllib_pipeline()
        mllib_model = pipeline.fit(frame)
        cached = mllib_model.transform(frame).select("features", "y_i").cache()
        cached.count()
        functions = {
            "fit: nbparallel on Dask": fit("dask", path, client.as_current),
            "fit: nbparallel local backend": fit("local", path, threads),
            "fit: nbparallel on Spark": fit("spark", frame),
            "fit: nbparallel on Ray": fit("ray", blocks),
            "fit: MLlib pipeline": lambda: pipeline.fit(frame),
            "fit: MLlib NaiveBayes on cached vectors": lambda: mllib_pipeline().getStages()[-1].fit(cached),
            "predict: nbparallel on Dask": lambda: _within(client.as_current, lambda: model.predict(path)),
            "predict: nbparallel local backend": lambda: _within(threads, lambda: model.predict(path)),
            "predict: nbparallel on Spark": lambda: noop_write(model.predict(features)),
            "predict: nbparallel on Ray": lambda: model.predict(blocks.drop_columns(["y"])).materialize(),
            "predict: MLlib pipeline transform": lambda: noop_write(mllib_model.transform(features)),
            **spark_parts(spark, frame),
            "part: in-memory fit of the same rows (2 threads)": lambda: _within(
                threads, lambda: NaiveBayes(categorical_features=INTEGERS).fit(in_memory, "y")),
        }
        best, last = best_interleaved(functions, repeat, warmup=() if ctx.quick else None)  # warmed by the set-up
        for name, fitted in models.items():
            if not fitted.counts_.equals(model.counts_):
                notes.append(f"the fit on {name} differs from the in-memory fit's counts")
        transfer = last["part: Arrow transfer (mapInArrow counting rows)"]
        arrow_bytes = sum(r["bytes"] for r in transfer)
        passes = [p["kind"] for p in models["spark"].passes_]
        n_partitions = frame.rdd.getNumPartitions()
    rows = pd.DataFrame([{"measure": name, "seconds": s, "rows": n_rows, "ns_per_cell": s * 1e9 / (n_rows * 20)}
                         for name, s in best.items()])
    targets = []
    for label, measured, against, threshold, at_most in TARGETS:
        value = best[measured] / best[against] if at_most else best[against] / best[measured]
        targets.append(Target(label, value, threshold, at_most))
    fixed = best["part: trivial mapInArrow job (2 tasks)"]
    transfer_s = best["part: Arrow transfer (mapInArrow counting rows)"]
    kernel = best["part: in-memory fit of the same rows (2 threads)"]
    notes.append(f"parts of nbparallel's fit on Spark ({len(passes)} passes: {', '.join(passes)}; "
                 f"{n_partitions} Spark partitions): a trivial mapInArrow job {fixed:.3f} s, the Arrow transfer of "
                 f"the rows {transfer_s:.3f} s ({arrow_bytes / 1e6:.0f} MB of Arrow batches, "
                 f"{arrow_bytes / 1e6 / max(transfer_s - fixed, 1e-9):.0f} MB/s past the fixed cost), the in-memory "
                 f"fit of the same rows {kernel:.3f} s; the fit on Spark {best['fit: nbparallel on Spark']:.3f} s; "
                 "Spark reuses its Python workers (spark.python.worker.reuse), so a timed job starts none: what a "
                 "worker's start costs is within the trivial job's time")
    summary = rows[["measure", "seconds", "ns_per_cell"]]
    return Result("engines", rows, summary, _plot,
                  {"rows": n_rows, "string_columns": len(STRINGS), "integer_columns": len(INTEGERS),
                   "values": N_VALUES, "classes": 2, "files": N_FILES, "workers": WORKERS, "repeat": repeat,
                   "spark_partitions": n_partitions, "spark_fit_passes": passes, "arrow_bytes": arrow_bytes},
                  targets=targets, notes=notes)


def _within(context, fn):
    with context():
        return fn()


def _plot(rows):
    figure, axis = plt.subplots(figsize=(9, 5))
    colours = ["#c44e52" if "MLlib" in m else "#8c8c8c" if m.startswith("part") else "#4c72b0"
               for m in rows["measure"]]
    axis.barh(rows["measure"], rows["seconds"], color=colours)
    axis.invert_yaxis()
    axis.set_xscale("log")
    axis.set(xlabel="best seconds (log scale)", title=f"The same Parquet files, {rows['rows'].iloc[0]:,} rows x 20")
    axis.tick_params(axis="y", labelsize=8)
    figure.tight_layout()
    return figure

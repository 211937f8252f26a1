"""Prediction of a Parquet directory to files: peak memory versus rows, and Spark MLlib beside it.

Writes the passes benchmark's table (20 string attributes of 10 values, 2 classes; see
``harness/pass_costs.py``) as Parquet directories at two sizes, fits a model on the smaller one and saves
it, then runs ``nbparallel predict model.json DIR -o OUT/`` on each directory in a fresh process under
``/usr/bin/time -f %M`` (that process's peak RSS, its whole run: imports, reading, writing). The
directories have the same number of files (``--files``) and, as a second layout, the same rows per file
(more files at the larger size). Predictions are written as they are made, one output file per input
partition, so peak memory should stay flat in the number of rows (target: the larger size within 1.3x of
the smaller).

With ``--spark`` (``pip install 'pyspark<4'``, a Java runtime; the ``bench`` extra) it times, on the
smaller directory, ``nbparallel predict`` end to end (in this process: reading, scoring, writing the
files) against Spark MLlib: a ``Pipeline`` of one ``StringIndexer`` per column, a ``VectorAssembler``
and ``NaiveBayes(modelType="multinomial")`` on one-hot vectors, fitted outside the timing; timed is
``transform`` of the same directory and the write of its predicted labels as Parquet (what
``nbparallel predict`` writes). Both run warm in one process (Spark's session and fitted pipeline, our
loaded model and compiled kernels), alternately, each ``--repeat`` times, each run after ``--settle``
seconds of rest (so that neither is timed while the other's background work winds down: the JVM's
collector and threads): the best of each is compared, and every run's seconds are kept, to show each
side's spread. Target: nbparallel >= 50x faster. Without
pyspark the comparison is skipped with a note. The fresh process of the memory runs (imports, reading the
model, compiling nothing: the kernels are cached) is reported beside it, for scale.

Usage::

    nbparallel bench predict_files                  # 10^6 and 10^7 rows
    nbparallel bench predict_files --spark          # and Spark MLlib beside it
    nbparallel bench predict_files --quick          # tiny sizes

"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from harness.context import Parameter, parameters
from harness.report import Result, Target
from harness.pass_costs import NAMES, make_data, write_files

RSS_TARGET, SPARK_TARGET = 1.3, 50.0


def write_directory(directory, n_rows, n_files, seed=0):
    """``n_files`` Parquet files of ``n_rows`` rows in all (string attributes, string class ``y``)."""
    codes, y = make_data(n_rows, 2, seed)
    return write_files("parquet", codes, y, directory, n_files)


def peak_rss_mib(model_path, directory, out):
    """Peak RSS (MiB) of ``nbparallel predict model_path directory -o out`` in a fresh process."""
    shutil.rmtree(out, ignore_errors=True)
    command = ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "nbparallel.cli", "predict", str(model_path),
               str(directory), "-o", f"{out}/"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    kib = int(done.stderr.strip().splitlines()[-1])
    n_out = len(list(Path(out).glob("part-*")))
    return kib / 1024, seconds, n_out


def spark_beside(model, directory, out, repeat, settle):
    """Every run's seconds of nbparallel's predict-to-files and of Spark MLlib's transform + write, same
    directory, alternately."""
    from nbparallel.models.prediction_files import predict_files

    def ours():
        shutil.rmtree(out, ignore_errors=True)
        predict_files(model, directory, directory=Path(out))

    try:
        import pyspark  # noqa: F401
    except ImportError:
        print("pyspark is not installed (pip install 'pyspark<4'): Spark MLlib skipped", file=sys.stderr)
        return None
    from pyspark.ml import Pipeline
    from pyspark.ml.classification import NaiveBayes as SparkNaiveBayes
    from pyspark.ml.feature import OneHotEncoder, StringIndexer, VectorAssembler
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[*]").appName("nbparallel-predict-files")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        frame = spark.read.parquet(str(directory))
        stages = [StringIndexer(inputCol=c, outputCol=f"{c}_i", handleInvalid="keep") for c in NAMES]
        stages += [StringIndexer(inputCol="y", outputCol="label"),
                   OneHotEncoder(inputCols=[f"{c}_i" for c in NAMES], outputCols=[f"{c}_v" for c in NAMES]),
                   VectorAssembler(inputCols=[f"{c}_v" for c in NAMES], outputCol="features"),
                   SparkNaiveBayes(modelType="multinomial", labelCol="label")]
        fitted = Pipeline(stages=stages).fit(frame)  # not timed
        spark_out = f"{out}-spark"

        def theirs():
            (fitted.transform(spark.read.parquet(str(directory))).select("prediction")
             .write.mode("overwrite").parquet(spark_out))

        times = {"nbparallel": [], "spark": []}
        ours(), theirs()  # warm-up: compilation, the JVM's
        for _ in range(repeat):
            for name, fn in (("nbparallel", ours), ("spark", theirs)):
                time.sleep(settle)  # the other side's work winds down (the JVM's collector and threads)
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        return times
    finally:
        spark.stop()


@parameters(rows=Parameter([1_000_000, 10_000_000], "the two sizes", quick=[20_000, 200_000]),
            files=Parameter(20, "files of each directory (first layout)"),
            spark=Parameter(False, "time Spark MLlib beside nbparallel"),
            repeat=Parameter(5, "timed runs of each side with --spark"),
            settle=Parameter(2.0, "seconds of rest before each timed run of either side"))
def run(ctx):
    """Peak memory of predicting each directory, and Spark MLlib beside it."""
    args = ctx.parameters
    load_at_start = os.getloadavg()  # the machine is shared: its load says how far the seconds are its own
    small, large = args["rows"]
    from nbparallel import NaiveBayes

    rows, notes = [], []
    with tempfile.TemporaryDirectory(prefix="nbparallel-predict-files-") as tmp:
        tmp = Path(tmp)
        base = write_directory(tmp / "small", small, args["files"])
        model = NaiveBayes().fit(base, "y")
        model_path = tmp / "model.json"
        model.save(model_path)
        layouts = {"same files": (args["files"], args["files"]),
                   "same rows per file": (args["files"], args["files"] * large // small)}
        for layout, (n_small, n_large) in layouts.items():
            for n_rows, n_files in ((small, n_small), (large, n_large)):
                directory = base if (n_rows, n_files) == (small, args["files"]) else write_directory(
                    tmp / f"d{n_rows}-{n_files}", n_rows, n_files)
                mib, seconds, n_out = peak_rss_mib(model_path, directory, tmp / "out")
                rows.append({"layout": layout, "rows": n_rows, "files": n_files, "peak_rss_mib": mib,
                             "seconds": seconds, "output_files": n_out})
                print(f"{layout}: {n_rows} rows in {n_files} files: peak RSS {mib:.0f} MiB, {seconds:.1f} s",
                      file=sys.stderr, flush=True)
                if directory != base:
                    shutil.rmtree(directory)
        spark = spark_beside(model, base, tmp / "spark-out", args["repeat"], args["settle"]) if args["spark"] else None
    frame = pd.DataFrame(rows)
    targets = []
    for layout, part in frame.groupby("layout", sort=False):
        rss = part.set_index("rows")["peak_rss_mib"]
        targets.append(Target(f"peak RSS, {large} rows / {small} rows ({layout})", float(rss[large] / rss[small]),
                              RSS_TARGET, at_most=True))
    if spark is not None:
        first = frame[(frame["rows"] == small) & (frame["files"] == args["files"])]["seconds"].min()
        targets.append(Target(f"Spark MLlib transform + write / nbparallel predict to files, {small} rows",
                              min(spark["spark"]) / min(spark["nbparallel"]), SPARK_TARGET, at_most=False))
        notes.append(f"median ratio {np.median(spark['spark']) / np.median(spark['nbparallel']):.2f}; "
                     f"nbparallel predict in a fresh process {first:.2f} s")
        for name in ("nbparallel", "spark"):
            runs = spark[name]
            frame = pd.concat([frame, pd.DataFrame({"layout": f"{name} beside Spark", "rows": small,
                                                    "seconds": runs})], ignore_index=True)
            print(f"  {name}: best {min(runs):.3f} s, median {np.median(runs):.3f}, worst {max(runs):.3f} "
                  f"({len(runs)} runs)")
    elif args["spark"]:
        notes.append("pyspark not installed: Spark MLlib skipped")
    return Result("predict_files", frame, frame, targets=targets, notes=notes,
                  parameters={"cpus": os.cpu_count(), "load_average_at_start": load_at_start,
                              "load_average": os.getloadavg()})

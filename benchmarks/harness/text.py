"""Fit time of the text models: nbparallel vs scikit-learn vs Spark MLlib, side by side.

Run ``nbparallel bench text`` (10^6 documents x 2^18 hashed features)
or ``--quick`` (smoke run); ``--no-spark`` leaves Spark out.

The data is generated directly as CSR: each document has 20 to 50 distinct
hashed words drawn from a Zipf(1.1) law over the 2^18 features, with counts
1 to 5, and one of 20 classes. Timed, best of ``--repeat`` runs, interleaved,
after a warm-up fit: ``fit(X, y)`` from the in-memory CSR matrix, i.e. for
nbparallel its input checks, partitioning (one partition per worker, the
default; rows are zero-copy views), counting pass and tree reduction on the
local threaded scheduler with 2 workers (threads); for scikit-learn
``MultinomialNB.fit``; for Spark ``NaiveBayes(modelType="multinomial").fit`` on
a DataFrame that was cached and counted before timing (Spark local[2]).
Fits are separated by a 1 s pause (Spark's JVM settles between fits). The load
average of the (shared) machine is printed and saved with the figures.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import dask
import numpy as np
import pandas as pd
from sklearn.naive_bayes import MultinomialNB

from harness.context import Parameter, parameters
from harness.data import zipf_documents
from harness.report import Result, Target
from harness.timing import best_interleaved
from nbparallel import MultinomialNaiveBayes

TARGET_SPEEDUP_VS_SKLEARN = 2.0


def spark_fitter(X, y, directory):
    """A function fitting Spark MLlib's multinomial NB on X, y cached in Spark (local[2]).

    The data goes to Spark as a LIBSVM file (written by scikit-learn, read by
    Spark's own reader), then is cached and counted: none of this is timed.
    """
    from pyspark.ml.classification import NaiveBayes
    from pyspark.sql import SparkSession
    from sklearn.datasets import dump_svmlight_file

    path = directory / "text_bench.libsvm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    spark = (SparkSession.builder.master("local[2]").appName("nbparallel-bench-text")
             .config("spark.driver.memory", "10g").config("spark.ui.showConsoleProgress", "false")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    frame = (spark.read.format("libsvm").option("numFeatures", X.shape[1]).load(str(path))
             .repartition(2).cache())
    frame.count()
    estimator = NaiveBayes(modelType="multinomial", smoothing=1.0)
    return spark, (lambda: estimator.fit(frame))


@parameters(docs=Parameter(1_000_000, "documents", quick=20_000),
            features_bits=Parameter(18, "log2 of the hashed features"), classes=Parameter(20, "classes"),
            repeat=Parameter(5, "interleaved timed rounds", quick=1),
            no_spark=Parameter(False, "leave Spark MLlib out"))
def run(ctx):
    """The fit times side by side, and whether nbparallel fits scikit-learn's model."""
    args = ctx.parameters
    start = time.perf_counter()
    X, y = zipf_documents(args["docs"], 2**args["features_bits"], args["classes"])
    print(f"data: {X.shape[0]} documents x {X.shape[1]} features, {X.nnz} non-zeros "
          f"({X.nnz / X.shape[0]:.1f} per document), {args['classes']} classes, "
          f"generated in {time.perf_counter() - start:.1f} s")

    def nbparallel_fit(workers):
        def fit():
            with dask.config.set(scheduler="threads", num_workers=workers):
                return MultinomialNaiveBayes(n_partitions=workers).fit(X, y)
        return fit

    fitters = {"nbparallel 2 workers": nbparallel_fit(2), "nbparallel 1 worker": nbparallel_fit(1),
               "scikit-learn MultinomialNB": lambda: MultinomialNB().fit(X, y)}
    reference = MultinomialNB().fit(X, y)
    ours = nbparallel_fit(2)()  # warm-up (numba cache) and the check that both fit the same model
    same = np.array_equal(ours.feature_count_, reference.feature_count_) and np.allclose(
        ours.feature_log_prob_, reference.feature_log_prob_, rtol=0, atol=1e-9)
    print(f"same model as scikit-learn: {same}")
    spark = None
    tmp = tempfile.mkdtemp(prefix="nbparallel-bench-text-")
    if not args["no_spark"]:
        try:
            start = time.perf_counter()
            spark, fitters["Spark MLlib NaiveBayes local[2]"] = spark_fitter(X, y, Path(tmp))
            print(f"Spark: data loaded and cached in {time.perf_counter() - start:.1f} s (not timed)")
        except Exception as exc:  # an optional extra: say why it is missing, never skip silently
            print(f"Spark MLlib left out, it did not start: {type(exc).__name__}: {exc}")
    load_before = os.getloadavg()
    print(f"load average before timing: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
    # interleaved, 1 s apart: the previous fit's background threads (Spark's JVM) settle
    seconds, _ = best_interleaved(fitters, args["repeat"], warmup=(), pause=1.0)
    load_after = os.getloadavg()
    print(f"load average after timing:  {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    if spark is not None:
        spark.stop()
    shutil.rmtree(tmp)

    ours_s = seconds["nbparallel 2 workers"]
    rows = []
    for name, s in seconds.items():
        rows.append({"system": name, "fit_seconds": s, "speedup_of_nbparallel_2_workers": s / ours_s,
                     "documents": X.shape[0], "features": X.shape[1], "nonzeros": X.nnz,
                     "classes": args["classes"]})
        print(f"{name:34s} {s:8.3f} s   nbparallel (2 workers) is {s / ours_s:6.2f}x faster")
    ratio = seconds["scikit-learn MultinomialNB"] / ours_s
    print(f"nbparallel on 2 workers is {ratio:.2f}x faster than scikit-learn "
          f"(target >= {TARGET_SPEEDUP_VS_SKLEARN}x), same model: {same}")
    frame = pd.DataFrame(rows)
    targets = [Target("scikit-learn MultinomialNB fit / nbparallel's on 2 workers", ratio, TARGET_SPEEDUP_VS_SKLEARN,
                      at_most=False),
               Target("models that differ from scikit-learn's", 0 if same else 1, 0, at_most=True, unit="")]
    return Result("text", frame, frame, plot=plot, targets=targets,
                  parameters={"spark": "Spark MLlib NaiveBayes local[2]" in seconds,
                              "load_average_before": list(load_before), "load_average_after": list(load_after)})


def plot(rows):
    """Fit seconds of each system, a bar each."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3))
    ax.barh(rows["system"], rows["fit_seconds"], color="tab:blue")
    ax.set_xlabel("fit seconds (best of repeats, lower is better)")
    ax.set_title(f"Multinomial NB fit: {rows['documents'].iloc[0]:,} docs x {rows['features'].iloc[0]:,} features")
    fig.tight_layout()
    return fig

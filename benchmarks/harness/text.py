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

import argparse
import csv
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import dask
import numpy as np
import scipy.sparse as sp
from sklearn.naive_bayes import MultinomialNB

from harness import RESULTS
from harness.timing import best_interleaved
from nbparallel import MultinomialNaiveBayes

TARGET_SPEEDUP_VS_SKLEARN = 2.0


def zipf_documents(n_docs, n_features, n_classes, seed=0):
    """A CSR matrix of hashed word counts (sorted, distinct columns per row) and labels."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(20, 51, n_docs)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    p = 1.0 / np.arange(1, n_features + 1) ** 1.1
    ranks = np.searchsorted(np.cumsum(p / p.sum()), rng.random(indptr[-1]))
    columns = rng.permutation(n_features)[np.minimum(ranks, n_features - 1)].astype(np.int32)
    counts = np.minimum(rng.geometric(0.6, indptr[-1]), 5).astype(np.float64)
    X = sp.csr_matrix((counts, columns, indptr), shape=(n_docs, n_features))
    X.sum_duplicates()  # canonical CSR: sorted, distinct columns (Spark's SparseVector needs it)
    return X, rng.integers(0, n_classes, n_docs)


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--features-bits", type=int, default=18)
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-spark", action="store_true", help="leave Spark MLlib out")
    parser.add_argument("--quick", action="store_true", help="small sizes, smoke run")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.quick:
        args.docs, args.repeat = 20_000, 1
    start = time.perf_counter()
    X, y = zipf_documents(args.docs, 2**args.features_bits, args.classes)
    print(f"data: {X.shape[0]} documents x {X.shape[1]} features, {X.nnz} non-zeros "
          f"({X.nnz / X.shape[0]:.1f} per document), {args.classes} classes, "
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
    if not args.no_spark:
        try:
            start = time.perf_counter()
            spark, fitters["Spark MLlib NaiveBayes local[2]"] = spark_fitter(X, y, Path(tmp))
            print(f"Spark: data loaded and cached in {time.perf_counter() - start:.1f} s (not timed)")
        except Exception as exc:  # an optional extra: say why it is missing, never skip silently
            print(f"Spark MLlib left out, it did not start: {type(exc).__name__}: {exc}")
    load_before = os.getloadavg()
    print(f"load average before timing: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
    # interleaved, 1 s apart: the previous fit's background threads (Spark's JVM) settle
    seconds, _ = best_interleaved(fitters, args.repeat, warmup=(), pause=1.0)
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
                     "classes": args.classes})
        print(f"{name:34s} {s:8.3f} s   nbparallel (2 workers) is {s / ours_s:6.2f}x faster")
    ratio = seconds["scikit-learn MultinomialNB"] / ours_s
    verdict = "PASS" if ratio >= TARGET_SPEEDUP_VS_SKLEARN and same else "FAIL"
    print(f"{verdict}: nbparallel on 2 workers is {ratio:.2f}x faster than scikit-learn "
          f"(target >= {TARGET_SPEEDUP_VS_SKLEARN}x), same model: {same}")
    write_results(args.results_dir, rows, {"quick": args.quick, "verdict": verdict, "same_model": bool(same),
                                           "target_speedup_vs_sklearn": TARGET_SPEEDUP_VS_SKLEARN,
                                           "speedup_vs_sklearn": ratio, "repeat": args.repeat,
                                           "spark": "Spark MLlib NaiveBayes local[2]" in seconds,
                                           "load_average_before": list(load_before),
                                           "load_average_after": list(load_after)})


def write_results(directory, rows, meta):
    directory.mkdir(parents=True, exist_ok=True)
    name = "text_quick" if meta["quick"] else "text"
    with open(directory / f"{name}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (directory / f"{name}.json").write_text(json.dumps({**meta, "results": rows}, indent=2))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3))
    ax.barh([r["system"] for r in rows], [r["fit_seconds"] for r in rows], color="tab:blue")
    ax.set_xlabel("fit seconds (best of repeats, lower is better)")
    ax.set_title(f"Multinomial NB fit: {rows[0]['documents']:,} docs x {rows[0]['features']:,} features")
    fig.tight_layout()
    fig.savefig(directory / f"{name}.png", dpi=120)
    print(f"results written to {directory}/{name}.csv, .json, .png")

"""nbparallel against other naive Bayes trainers, on the same data in the same run.

Every trainer counts the same categorical data (20 attributes of 10 values,
2 classes), pre-encoded as uint8 codes, and also as users hold it: pandas
``category`` columns and object string columns; the Gaussian and binned
trainers get float data of the same shape. Slow peers run on a subset and are normalised per cell
(row x attribute). The nbparallel kernel alone, on one thread, is the
reference for nbparallel's own overhead.
"""

from __future__ import annotations

import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from nbparallel import NaiveBayes
from nbparallel.kernels import count_partition

from . import data
from .report import Result, Target
from .timing import best_of

N_ATTRIBUTES, N_VALUES = 20, 10
REFERENCE = "nbparallel fit, uint8 categorical, all workers"


def bincount_count(X, y, n_classes=2):
    """numpy.bincount over one combined (table row, class) index."""
    table_offsets = data.offsets(X.shape[1], N_VALUES)
    index = (table_offsets[:-1] + X.astype(np.int64)) * n_classes + y[:, None]
    return np.bincount(index.ravel(), minlength=table_offsets[-1] * n_classes)


def _kernel(X, y, floats):
    """count_partition alone on one thread, codes or float values binned in the pass."""
    n = len(y)
    table_offsets = data.offsets(N_ATTRIBUTES, N_VALUES)
    if floats is None:
        return lambda: count_partition(X, np.empty((n, 0)), y, None, table_offsets, np.empty((0, 0)), 2)
    edges = np.tile(np.arange(1, N_VALUES) / N_VALUES, (N_ATTRIBUTES, 1))
    no_codes = np.empty((n, 0), np.uint8)
    return lambda: count_partition(no_codes, floats, y, None, table_offsets, edges, 2)


def _sklearn(X, y, name):
    from sklearn.naive_bayes import CategoricalNB, MultinomialNB

    if name == "CategoricalNB":
        return lambda: CategoricalNB().fit(X, y)
    from sklearn.preprocessing import OneHotEncoder

    onehot = OneHotEncoder(sparse_output=True, dtype=np.float64).fit_transform(X)
    return lambda: MultinomialNB().fit(onehot, y)


def _dask_ml(floats, y):
    import dask
    import dask.array as da
    from dask_ml.naive_bayes import GaussianNB

    chunk = -(-len(y) // (os.cpu_count() or 1))
    Xd, yd = da.from_array(floats, chunks=(chunk, -1)), da.from_array(y, chunks=chunk)

    def fit():  # dask-ml's fit is lazy: compute what it fitted
        model = GaussianNB().fit(Xd, yd)
        return dask.compute(model.theta_, model.sigma_, model.class_count_)

    return fit


def _spark(X, y):
    """Spark MLlib multinomial NaiveBayes on one-hot codes, local[*], data cached first."""
    from pyspark.ml.classification import NaiveBayes as SparkNaiveBayes
    from pyspark.ml.feature import OneHotEncoder, VectorAssembler
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[*]").appName("nbparallel-peers").getOrCreate()
    names = [f"a{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X.astype(np.int32), columns=names).assign(label=y.astype(np.float64))
    df = spark.createDataFrame(frame)
    encoded = [f"{c}_v" for c in names]
    df = OneHotEncoder(inputCols=names, outputCols=encoded, dropLast=False).fit(df).transform(df)
    df = VectorAssembler(inputCols=encoded, outputCol="features").transform(df).select("features", "label").cache()
    df.count()
    return lambda: SparkNaiveBayes(modelType="multinomial").fit(df)


def _fit(X, y, kind):
    model = NaiveBayes(categorical_features=kind)
    return lambda: model.fit(X, y)


def _frame(X, how):
    """The codes 1..10 as a DataFrame of ``category`` or object string columns."""
    levels = np.array([f"v{v}" for v in range(N_VALUES)], dtype=object)
    if how == "category":
        return pd.DataFrame({f"a{j}": pd.Categorical.from_codes(X[:, j] - 1, levels) for j in range(X.shape[1])})
    return pd.DataFrame({f"a{j}": pd.Series(levels[X[:, j] - 1], dtype=object) for j in range(X.shape[1])})


def _sklearn_strings(frame, y):
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.preprocessing import OrdinalEncoder

    return lambda: CategoricalNB().fit(OrdinalEncoder().fit_transform(frame), y)


def run(ctx):
    """Time every trainer; report ns per cell and the ratio to nbparallel."""
    n_rows = 30_000 if ctx.quick else 4_000_000
    n_subset = 10_000 if ctx.quick else 1_000_000
    repeat = 2 if ctx.quick else 5
    X, y = data.categorical(n_rows, N_ATTRIBUTES, N_VALUES)
    floats, _ = data.numeric(n_rows, N_ATTRIBUTES)
    Xs, ys, fs = X[:n_subset], y[:n_subset], floats[:n_subset]
    N = ctx.max_workers()

    # (name, rows used, workers, thunk factory); factories are called lazily so a missing peer only skips itself
    trainers = [
        (REFERENCE, n_rows, N, lambda: _fit(*ctx.place(X, y, N, N), "all")),
        ("nbparallel fit, uint8 categorical, 1 worker", n_rows, 1, lambda: _fit(*ctx.place(X, y, 1, N), "all")),
        ("nbparallel kernel count_partition, uint8, 1 thread", n_rows, 0, lambda: _kernel(X, y, None)),
        ("nbparallel fit, float binned in-pass, all workers", n_rows, N,
         lambda: _fit(*ctx.place(floats, y, N, N), "auto")),
        ("nbparallel fit, float binned in-pass, 1 worker", n_rows, 1,
         lambda: _fit(*ctx.place(floats, y, 1, N), "auto")),
        ("nbparallel kernel count_partition, float binned, 1 thread", n_rows, 0, lambda: _kernel(X, y, floats)),
        ("nbparallel fit, pandas category columns, all workers", n_subset, N,
         lambda: _fit(_frame(Xs, "category"), ys, "auto")),
        ("nbparallel fit, object string columns, all workers", n_subset, N,
         lambda: _fit(_frame(Xs, "object"), ys, "auto")),
        ("numpy.bincount (combined index), 1 thread", n_rows, 0, lambda: (lambda: bincount_count(X, y))),
        ("scikit-learn CategoricalNB", n_subset, 0, lambda: _sklearn(Xs, ys, "CategoricalNB")),
        ("scikit-learn OrdinalEncoder + CategoricalNB, object strings", n_subset, 0,
         lambda: _sklearn_strings(_frame(Xs, "object"), ys)),
        ("scikit-learn MultinomialNB, sparse one-hot (encoding not timed)", n_subset, 0,
         lambda: _sklearn(Xs, ys, "MultinomialNB")),
        ("dask-ml GaussianNB, float data", n_subset, N, lambda: _dask_ml(fs, ys)),
        ("Spark MLlib NaiveBayes, multinomial on one-hot, local[*]", n_subset, N, lambda: _spark(Xs, ys)),
    ]
    records, notes = [], []
    for name, rows_used, workers, factory in trainers:
        try:
            thunk = factory()
        except ImportError as exc:
            notes.append(f"skipped {name}: {exc.name or exc} is not installed")
            continue
        except Exception as exc:  # e.g. pyspark without a Java runtime
            notes.append(f"skipped {name}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
            continue
        with ctx.workers(max(workers, 1)):
            best, median = best_of(thunk, repeat if rows_used == n_rows else max(1, repeat - 1))
        records.append({"trainer": name, "rows": rows_used, "attributes": N_ATTRIBUTES,
                        "workers": workers or 1, "best_s": best, "median_s": median,
                        "ns_per_cell": best / (rows_used * N_ATTRIBUTES) * 1e9})
    rows = pd.DataFrame(records)
    reference = rows.set_index("trainer")["ns_per_cell"]
    rows["ratio_to_nbparallel"] = rows["ns_per_cell"] / reference[REFERENCE]
    notes.append(f"slow peers ran on the first {n_subset:,} of {n_rows:,} rows and are compared per cell; "
                 f"'all workers' is {N}; scikit-learn and numpy run on one thread")
    if ctx.client is not None:
        notes.append("nbparallel ran on the cluster; the peers ran on this machine")
    summary = rows[["trainer", "rows", "workers", "best_s", "ns_per_cell", "ratio_to_nbparallel"]]
    return Result("peers", rows, summary, _plot,
                  {"rows": n_rows, "subset_rows": n_subset, "attributes": N_ATTRIBUTES, "values": N_VALUES,
                   "classes": 2, "workers": N}, _targets(reference, N), notes)


def _targets(ns, N):
    """Overhead of fit over the one-thread kernel, and the peers' ratios."""
    targets = []
    for data_kind, kernel in (("uint8 categorical", "uint8"), ("float binned in-pass", "float binned")):
        base = ns[f"nbparallel kernel count_partition, {kernel}, 1 thread"]
        for who in ("1 worker", "all workers"):
            targets.append(Target(f"fit ({data_kind}, {who}) / kernel (1 thread)",
                                  ns[f"nbparallel fit, {data_kind}, {who}"] / base, 1.5, at_most=True))
    for name in ns.index:
        if name.startswith(("Spark", "scikit-learn CategoricalNB")):
            targets.append(Target(f"{name} / nbparallel fit ({N} workers), per cell",
                                  ns[name] / ns[REFERENCE], 20, at_most=False))
    return targets


def _plot(rows):
    figure, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1))
    ax.barh(rows["trainer"], rows["ns_per_cell"], color="tab:blue")
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.set(xlabel="ns per cell (row x attribute), measured", title="Naive Bayes trainers, same data, same run")
    ax.tick_params(axis="y", labelsize=7)
    return figure

"""Supervised MDL discretisation, ``NaiveBayes(n_bins="mdl")``, against Weka's ``NaiveBayes -D`` on UCI datasets.

Run ``nbparallel bench mdl`` (or ``--quick``: iris, one seed). Per dataset:

- 10-fold stratified cross-validation accuracy, averaged over ``--seeds`` shuffles, of nbparallel's
  ``NaiveBayes`` with 10 equal-width bins, with ``n_bins="mdl"`` (default smoothing 1/N) and with
  ``n_bins="mdl"`` and Laplace smoothing (``alpha=class_alpha=1``, as Weka's counts start at 1);
- the same for Weka's ``NaiveBayes -D`` (MDL discretisation) and ``NaiveBayes`` (normal densities),
  ``-x 10 -s SEED`` (Weka's own stratified folds, so fold for fold they differ from ours);
- whether Weka's ``supervised.attribute.Discretize`` (defaults) and our fit on all rows cut every numeric
  attribute the same way: the same interval for every training value (``same_cuts``); and the same for our
  MDL search run on each attribute's exact histogram of distinct values (``same_cuts_exact_histogram``),
  which separates the search itself from the approximation of the fine grid.

Datasets: scikit-learn's bundled iris, wine and breast_cancer, and the UCI files Weka ships
(``diabetes``, ``glass``, ``ionosphere``, ``segment-challenge``, ``credit-g``, ``labor``) when a Weka
examples folder is found (``WEKA_EXAMPLES``, default ``/usr/share/doc/weka/examples`` of Debian's ``weka``
package). Weka is an optional tool, never a dependency: its jar is ``WEKA_JAR`` (default
``/usr/share/java/weka.jar``); without java or the jar the Weka columns are left empty, with a note.
The experiment ``mdl_costs`` times ``fit`` with 10, 1024 and 4096 equal-width bins and with ``"mdl"`` on
10^6 rows x 20 float columns (interleaved, best of 4).
"""

import csv
import re
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.io import arff
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.model_selection import StratifiedKFold

from harness.context import Parameter, parameters
from harness.report import Result
from harness.timing import best_interleaved
from harness.weka import WEKA_EXAMPLES, WEKA_JAR, weka_missing
from nbparallel import NaiveBayes
from nbparallel.models.discretisation import mdl_intervals

WEKA_FILES = ("diabetes", "glass", "ionosphere", "segment-challenge", "credit-g", "labor")
OURS = {
    "equal_width_10": {"n_bins": 10},
    "mdl": {"n_bins": "mdl"},
    "mdl_laplace": {"n_bins": "mdl", "alpha": 1.0, "class_alpha": 1.0},
}


def sklearn_dataset(loader):
    """A bundled scikit-learn dataset as (numeric DataFrame, string labels)."""
    bunch = loader()
    X = pd.DataFrame(bunch.data, columns=[re.sub(r"\W+", "_", str(c)) for c in bunch.feature_names])
    return X, np.asarray(bunch.target_names)[bunch.target].astype(str)


def arff_dataset(path):
    """An ARFF file as (DataFrame: numeric columns float, nominal ones str with None missing, class labels);
    the class is the last attribute."""
    data, _ = arff.loadarff(path)
    frame = pd.DataFrame(data)
    frame.columns = [c.strip("'") for c in frame.columns]  # scipy keeps the quotes of some quoted names
    for c in frame.columns:
        if frame[c].dtype == object:
            text = frame[c].str.decode("utf-8")
            frame[c] = text.where(text != "?", None)
    y = frame.pop(frame.columns[-1])
    return frame, y.to_numpy(dtype=str)


def write_arff(X, y, path):
    """A numeric DataFrame and its labels as an ARFF file, for Weka."""
    lines = ["@relation data"] + [f"@attribute {c} numeric" for c in X.columns]
    lines.append("@attribute class {" + ",".join(sorted(set(y))) + "}")
    lines.append("@data")
    lines += [",".join([*(repr(float(v)) for v in row), label]) for row, label in zip(X.to_numpy(), y)]
    Path(path).write_text("\n".join(lines) + "\n")


def datasets(quick):
    """``(name, X, y, arff path or None)``; an ARFF file is written for the scikit-learn ones later."""
    found = [("iris", *sklearn_dataset(load_iris), None)]
    if quick:
        return found
    found += [("wine", *sklearn_dataset(load_wine), None),
              ("breast_cancer", *sklearn_dataset(load_breast_cancer), None)]
    for name in WEKA_FILES:
        path = WEKA_EXAMPLES / f"{name}.arff"
        if path.is_file():
            found.append((name, *arff_dataset(path), path))
    return found


def our_accuracy(params, X, y, seeds):
    """Mean 10-fold stratified CV accuracy over the seeds' shuffles."""
    scores = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes smaller than 10 rows; ignored attributes in small folds
        for seed in seeds:
            for train, test in StratifiedKFold(10, shuffle=True, random_state=seed).split(X, y):
                model = NaiveBayes(**params).fit(X.iloc[train], y[train])
                scores.append(np.mean(model.predict(X.iloc[test]) == y[test]))
    return float(np.mean(scores))


def weka_accuracy(path, seeds, discretise):
    """Mean accuracy of Weka's NaiveBayes (``-D``: MDL discretisation) under ``-x 10 -s SEED``."""
    scores = []
    for seed in seeds:
        args = ["java", "-cp", str(WEKA_JAR), "weka.classifiers.bayes.NaiveBayes", "-t", str(path),
                "-x", "10", "-s", str(seed), "-o"] + (["-D"] if discretise else [])
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        cv = out[out.index("Stratified cross-validation"):]
        scores.append(float(re.search(r"Correctly Classified Instances\s+\S+\s+([\d.]+)\s*%", cv).group(1)) / 100)
    return float(np.mean(scores))


def arff_fields(line):
    """The comma-separated fields of an ARFF line, Weka's quoting ('...' with \\' inside) undone."""
    return next(csv.reader([line], quotechar="'", escapechar="\\", skipinitialspace=True))


def weka_intervals(path, workdir):
    """Weka's Discretize (supervised, defaults) of an ARFF file: ``{attribute position: interval index of each
    row}`` for the attributes it discretised (-1 for a missing value)."""
    out = Path(workdir) / "discretised.arff"
    subprocess.run(["java", "-cp", str(WEKA_JAR), "weka.filters.supervised.attribute.Discretize",
                    "-i", str(path), "-o", str(out), "-c", "last"], check=True, capture_output=True)
    text = out.read_text()
    header, data = text.split("@data", 1)
    labels = []
    for line in header.splitlines():
        match = re.match(r"@attribute\s+\S+\s+\{(.*)\}\s*$", line.strip(), re.IGNORECASE)
        if match:
            labels.append(arff_fields(match.group(1)))
        elif line.strip().lower().startswith("@attribute"):
            labels.append([])
    rows = [arff_fields(line) for line in data.strip().splitlines() if line.strip()]
    intervals = {}
    for j, values in enumerate(labels):
        if values and ("(" in values[0] or "All" in values[0]):  # a discretised numeric attribute
            index = {v: i for i, v in enumerate(values)}
            intervals[j] = np.array([index.get(row[j], -1) for row in rows])
    return intervals


def exact_histogram_cuts(values, y):
    """Our MDL cuts of one attribute found on its exact per-class histogram of distinct values (the cut
    between two values at their midpoint, as Weka's), without the fine grid."""
    known = ~np.isnan(values)
    distinct, rows = np.unique(values[known], return_inverse=True)
    classes, codes = np.unique(y[known], return_inverse=True)
    cells = np.zeros((len(distinct), len(classes)))
    np.add.at(cells, (rows, codes), 1.0)
    return mdl_intervals(cells, (distinct[:-1] + distinct[1:]) / 2)[1]


def exact_histogram_cuts_of(X, y):
    """``column name -> its`` :func:`exact_histogram_cuts`."""
    return lambda column: exact_histogram_cuts(X[column].to_numpy(dtype=np.float64), y)


def same_cuts(cuts_of, X, weka):
    """How many of the attributes Weka discretised ``cuts_of(column name)`` cuts into the same intervals of
    the training values."""
    agree = 0
    for position, theirs in weka.items():
        values = X[X.columns[position]].to_numpy(dtype=np.float64)
        ours = np.where(np.isnan(values), -1, np.searchsorted(cuts_of(X.columns[position]), values, side="left"))
        agree += bool(np.array_equal(ours, theirs))
    return agree


@parameters(rows=Parameter(1_000_000, "rows of the float columns", quick=20_000),
            repeat=Parameter(4, "interleaved timed rounds", quick=1))
def costs(ctx):
    """Best fit seconds per ``n_bins`` setting on the same random data, interleaved."""
    n_rows, repeat = ctx.parameters["rows"], ctx.parameters["repeat"]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_rows, 20))
    y = (X[:, 0] * 3 + X[:, 1] + rng.normal(size=n_rows) > 0).astype(np.int64)
    settings = [10, 1024, 4096, "mdl"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # most columns are noise: ignored, with a warning
        for n_bins in settings:  # compile the kernels first
            NaiveBayes(n_bins=n_bins).fit(X[:1000], y[:1000])
        best, _ = best_interleaved({n_bins: lambda n_bins=n_bins: NaiveBayes(n_bins=n_bins, n_partitions=4).fit(X, y)
                                    for n_bins in settings}, repeat, warmup=())
    for n_bins, seconds in best.items():
        print(f"n_bins={n_bins!r:>6}: fit {seconds:.3f} s ({n_rows:,} rows x 20 float columns, 2 classes, "
              f"4 partitions, best of {repeat})")
    frame = pd.DataFrame({"n_bins": [str(n) for n in best], "fit_s": list(best.values()), "rows": n_rows})
    return Result("mdl_costs", frame, frame)


@parameters(seeds=Parameter(5, "CV shuffles averaged", quick=1))
def run(ctx):
    """Accuracies of ours and Weka's on every dataset found, and whether the cuts agree."""
    quick = ctx.quick
    seeds = list(range(1, ctx.parameters["seeds"] + 1))
    no_weka = weka_missing()
    notes = [f"Weka is skipped ({no_weka}); only nbparallel's accuracies are measured"] if no_weka else []
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, X, y, path in datasets(quick):
            if path is None:
                path = Path(tmp) / f"{name}.arff"
                write_arff(X, y, path)
            numeric = [c for c in X.columns if X[c].dtype.kind == "f"]
            row = {"dataset": name, "rows": len(y), "numeric": len(numeric), "categorical": X.shape[1] - len(numeric),
                   "classes": len(set(y))}
            for label, params in OURS.items():
                row[f"nbparallel_{label}"] = our_accuracy(params, X, y, seeds)
            row["weka_nb_D"] = row["weka_nb_gaussian"] = row["same_cuts"] = row["same_cuts_exact_histogram"] = None
            if not no_weka:
                row["weka_nb_D"] = weka_accuracy(path, seeds, discretise=True)
                row["weka_nb_gaussian"] = weka_accuracy(path, seeds, discretise=False)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    full = NaiveBayes(n_bins="mdl").fit(X, y)
                weka = weka_intervals(path, tmp)
                row["same_cuts"] = f"{same_cuts(full.bin_edges_.get, X, weka)}/{len(weka)}"
                exact = same_cuts(exact_histogram_cuts_of(X, y), X, weka)
                row["same_cuts_exact_histogram"] = f"{exact}/{len(weka)}"
            rows.append(row)
            print(", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()),
                  flush=True)
    table = pd.DataFrame(rows)
    print(f"\n10-fold stratified CV accuracy, mean of {len(seeds)} shuffles")
    return Result("mdl", table, table, notes=notes,
                  parameters={"weka": None if no_weka else str(WEKA_JAR), "nbparallel_models": OURS})

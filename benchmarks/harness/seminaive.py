"""AODE and TAN (issue 55): accuracy beside Weka 3.6 on its example files, and the speed of fit and predict_proba.

Run: ``nbparallel bench seminaive [--quick]``.

- **Accuracy.** 10-fold stratified cross-validation (scikit-learn's ``StratifiedKFold``, shuffled with seed 1)
  of ``NaiveBayes`` (its default smoothing, and Laplace's as Weka's), ``AODE`` and ``TAN``, all with
  ``n_bins="mdl"``, on Weka's example ARFF files (:data:`DATASETS`, from ``WEKA_EXAMPLES``, default Debian
  weka's ``/usr/share/doc/weka/examples``): each fold's training and test rows are written as ARFF files of the
  original header (declared nominal values, as Weka reads them), and each model is fitted and scored from them.
  Beside them, on the same files (``-t`` the fold's training file, ``-T`` its test file), Weka's
  ``FilteredClassifier`` with ``weka.filters.supervised.attribute.Discretize`` around ``NaiveBayes``, ``AODE``
  and ``BayesNet -Q ...search.local.TAN`` (its default links by the Bayesian score, ours by the conditional
  mutual information). Both are summarised alike: a dataset's accuracy is the correct test rows of the 10 folds
  over all its rows. Targets: each of our models within 1 point of Weka's on the mean over the datasets, and
  AODE above our naive Bayes on the mean.
- **Speed.** 10^6 rows x 20 attributes of 10 values, 2 classes, on 2 threads: AODE's and TAN's fit against a
  plain reference carried here (one single-threaded numba loop adding each row's 190 pairs into a (class,
  pair, value, value) table, checked equal to the fitted pair counts), against Weka's AODE training on the same
  rows (its "Time taken to build model", read from ``-t FILE -no-cv``), and AODE's ``predict_proba`` against
  Weka's scoring of them ("Time taken to test model on training data"). Best of interleaved rounds. The parts:
  the pair-counting kernel alone and AODE's scoring kernel alone, each on one thread, on the same codes.

Weka is optional (``WEKA_JAR``, default ``/usr/share/java/weka.jar``): without java or the jar its columns are
left empty, with a note, and its targets are not measured. ``--quick``: iris only, 2 * 10^4 rows, no verdict.
"""

from __future__ import annotations

import csv
import re
import subprocess
import tempfile
import warnings
from pathlib import Path

import dask
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from numba import njit
from sklearn.model_selection import StratifiedKFold

from nbparallel import AODE, TAN, NaiveBayes
from nbparallel.data.files.arff import parse_header
from nbparallel.models.seminaive import aode_joint_log_likelihood
from nbparallel.summaries.pair_counts import PairCounts

from .data import categorical
from .report import Result, Target
from .timing import best_interleaved
from .weka import WEKA_EXAMPLES, WEKA_JAR, weka_missing

DATASETS = ("breast-cancer", "credit-g", "diabetes", "glass", "ionosphere", "iris", "labor", "segment-challenge",
            "soybean", "vote")
#: our models (all with n_bins="mdl"): naive Bayes with its default smoothing and with Laplace's (Weka's counts
#: start at 1), AODE and TAN with Weka's estimators (their defaults); TAN links by its default score, the
#: conditional mutual information, where Weka's TAN search defaults to its Bayesian score (-S BAYES)
OURS = {"naive Bayes": lambda: NaiveBayes(n_bins="mdl"),
        "naive Bayes, Laplace": lambda: NaiveBayes(n_bins="mdl", alpha=1.0, class_alpha=1.0),
        "AODE": lambda: AODE(n_bins="mdl"), "TAN": lambda: TAN(n_bins="mdl")}
WEKA = {"naive Bayes": ["weka.classifiers.bayes.NaiveBayes"],
        "naive Bayes, Laplace": ["weka.classifiers.bayes.NaiveBayes"],
        "AODE": ["weka.classifiers.bayes.AODE"],
        "TAN": ["weka.classifiers.bayes.BayesNet", "--", "-Q", "weka.classifiers.bayes.net.search.local.TAN"]}
N_ROWS, N_ATTRIBUTES, N_VALUES, THREADS = 10**6, 20, 10, 2
#: targets: accuracy points from Weka's at most, and the speed ratios at least
POINTS, REFERENCE_RATIO, WEKA_FIT_RATIO, WEKA_SCORE_RATIO = 1.0, 3.0, 20.0, 10.0


# ---------------------------------------------------------------- accuracy


def arff_rows(path):
    """``(header text, target name, data lines, class of each line)`` of an ARFF file (class last)."""
    text = path.read_text()
    attributes, offset = parse_header(text, str(path))
    lines = [line for line in text[offset:].splitlines() if line.strip() and not line.lstrip().startswith("%")]
    labels = [next(csv.reader([line], quotechar="'", escapechar="\\", skipinitialspace=True))[-1].strip()
              for line in lines]
    return text[:offset], attributes[-1][0], lines, np.array(labels)


def write_folds(path, workdir):
    """Write the 10 stratified folds of ``path`` (``StratifiedKFold``, shuffled with seed 1) as ARFF files of its
    header: ``(target name, [(training file, test file, classes of the test rows)] per fold)``."""
    header, target, lines, labels = arff_rows(path)
    lines = np.array(lines, dtype=object)
    folds = []
    for i, (train, test) in enumerate(StratifiedKFold(10, shuffle=True, random_state=1).split(lines, labels)):
        files = []
        for name, rows in (("train", train), ("test", test)):
            files.append(Path(workdir) / f"{path.stem}-{i}-{name}.arff")
            files[-1].write_text(header + "\n".join(lines[rows]) + "\n")
        folds.append((*files, labels[test]))
    return target, folds


def our_correct(make, target, folds):
    """Correct test rows over the folds of the models ``make()`` makes, each fitted and scored from the fold's
    files."""
    correct = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small classes, attributes without an MDL cut
        for train, test, labels in folds:
            correct += int(np.sum(make().fit(str(train), target).predict(str(test)).astype(str) == labels))
    return correct


def weka_correct(model, folds):
    """Correct test rows over the folds of Weka's ``model`` inside a FilteredClassifier with the supervised
    Discretize, trained on each fold's training file and scored on its test file (``-t``, ``-T``)."""
    correct = 0
    for train, test, labels in folds:
        args = ["java", "-Xmx2g", "-cp", str(WEKA_JAR), "weka.classifiers.meta.FilteredClassifier", "-t",
                str(train), "-T", str(test), "-v", "-o", "-F", "weka.filters.supervised.attribute.Discretize",
                "-W", *model]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        out = out[out.index("=== Error on test data ==="):]
        n = int(re.search(r"Total Number of Instances\s+(\d+)", out).group(1))
        if n != len(labels):
            raise RuntimeError(f"Weka scored {n} rows of {test}, which holds {len(labels)}")
        correct += int(re.search(r"Correctly Classified Instances\s+(\d+)", out).group(1))
    return correct


def accuracy_rows(quick, no_weka):
    """One row per dataset and model: ours and Weka's accuracy on the same folds, pooled (correct test rows over
    all rows)."""
    names = ("iris",) if quick else DATASETS
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            path = WEKA_EXAMPLES / f"{name}.arff"
            if not path.is_file():
                print(f"note: {path} not found: {name} skipped")
                continue
            target, folds = write_folds(path, workdir)
            weka = {} if no_weka else {w: weka_correct(w, folds) for w in map(tuple, WEKA.values())}
            total = sum(len(labels) for _, _, labels in folds)
            for model, make in OURS.items():
                ours, theirs = our_correct(make, target, folds), weka.get(tuple(WEKA[model]))
                rows.append({"part": "accuracy", "dataset": name, "model": model, "rows": total,
                             "nbparallel_correct": ours, "weka_correct": theirs, "nbparallel": ours / total,
                             "weka": None if theirs is None else theirs / total})
                print(f"{name}: {model} {ours}/{total}, Weka {theirs}", flush=True)
    return rows


# ---------------------------------------------------------------- speed


@njit(nogil=True, cache=True)
def reference_pairs(X, y, n_classes, n_values):
    """The plain reference: every row's pairs added one by one into a (class, pair, value, value) table."""
    n_rows, f = X.shape
    table = np.zeros((n_classes, f * (f - 1) // 2, n_values + 1, n_values + 1))
    for r in range(n_rows):
        c = y[r]
        p = 0
        for i in range(f):
            x = X[r, i]
            for j in range(i + 1, f):
                table[c, p, x, X[r, j]] += 1.0
                p += 1
    return table


def check_reference(table, model):
    """AssertionError unless the reference table holds the fitted pair counts of every pair."""
    f = model.pair_counts_.n_attributes
    pairs = [(i, j) for i in range(f) for j in range(i + 1, f)]
    for p, (i, j) in enumerate(pairs):
        assert np.array_equal(table[:, p, 1:, 1:], model.pair_counts_.pair(i, j)), (i, j)


def write_nominal_arff(X, y, path):
    """Codes 1..V and classes 0..K-1 as an ARFF file of nominal attributes, for Weka."""
    values = ",".join(str(v) for v in range(1, N_VALUES + 1))
    header = "@relation codes\n" + "".join(f"@attribute a{i} {{{values}}}\n" for i in range(X.shape[1]))
    header += "@attribute class {" + ",".join(str(k) for k in range(int(y.max()) + 1)) + "}\n@data\n"
    with open(path, "w") as out:
        out.write(header)
        np.savetxt(out, np.column_stack([X, y]), fmt="%d", delimiter=",")


def weka_aode_times(path):
    """Weka's AODE ``(build seconds, seconds to score the training rows)``, as Weka reports them."""
    args = ["java", "-Xmx6g", "-cp", str(WEKA_JAR), "weka.classifiers.bayes.AODE", "-t", str(path), "-no-cv", "-o"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    build = float(re.search(r"Time taken to build model:\s*([\d.]+)", out).group(1))
    test = float(re.search(r"Time taken to test model on training data:\s*([\d.]+)", out).group(1))
    return build, test


def speed_rows(n_rows, repeat, no_weka):
    """Best seconds of the fits, the reference and AODE's predict_proba (interleaved), and Weka's times."""
    X, y = categorical(n_rows, N_ATTRIBUTES, N_VALUES)
    aode, tan = AODE(categorical_features="all"), TAN(categorical_features="all")

    def on_threads(fn):
        def run():
            with dask.config.set(scheduler="threads", num_workers=THREADS):
                return fn()
        return run

    aode.fit(X[:1000], y[:1000])
    table_offsets = aode.pair_counts_.offsets
    functions = {"AODE fit": on_threads(lambda: aode.fit(X, y)), "TAN fit": on_threads(lambda: tan.fit(X, y)),
                 "reference pair loop, 1 thread": lambda: reference_pairs(X, y, 2, N_VALUES),
                 "AODE predict_proba": on_threads(lambda: aode.predict_proba(X)),
                 "part: pair-counting kernel alone, 1 thread": lambda: PairCounts.of_codes(X, y, None, table_offsets, 2),
                 "part: AODE scoring kernel alone, 1 thread": lambda: aode_joint_log_likelihood(aode.tables_, X)}
    best, last = best_interleaved(functions, repeat)
    check_reference(last["reference pair loop, 1 thread"], aode)
    rows = [{"part": "speed", "measure": name, "seconds": seconds} for name, seconds in best.items()]
    if not no_weka:
        with tempfile.TemporaryDirectory() as workdir:
            path = Path(workdir) / "codes.arff"
            write_nominal_arff(X, y, path)
            build, test = weka_aode_times(path)
        rows += [{"part": "speed", "measure": "Weka AODE build", "seconds": build},
                 {"part": "speed", "measure": "Weka AODE test on the training rows", "seconds": test}]
    return rows


# ---------------------------------------------------------------- the experiment


def targets_of(accuracy, speed):
    """The issue's targets, from the measured rows."""
    targets = []
    means = accuracy.groupby("model")[["nbparallel", "weka"]].mean()
    for model in OURS:
        if model in means.index and pd.notna(means.loc[model, "weka"]):
            gap = abs(means.loc[model, "nbparallel"] - means.loc[model, "weka"]) * 100
            targets.append(Target(f"{model}: |mean accuracy - Weka's| in points (at most, 'x' = points)", gap,
                                  POINTS, True))
    if {"AODE", "naive Bayes"} <= set(means.index):
        lead = (means.loc["AODE", "nbparallel"] - means.loc["naive Bayes", "nbparallel"]) * 100
        targets.append(Target("AODE's mean accuracy above our naive Bayes's, in points ('x' = points)", lead, 0.0,
                              False))
    seconds = dict(zip(speed["measure"], speed["seconds"]))
    reference = seconds["reference pair loop, 1 thread"]
    for model in ("AODE", "TAN"):
        targets.append(Target(f"{model} fit on {THREADS} threads vs the reference pair loop",
                              reference / seconds[f"{model} fit"], REFERENCE_RATIO, False))
    if "Weka AODE build" in seconds:
        targets.append(Target("AODE fit vs Weka's AODE build", seconds["Weka AODE build"] / seconds["AODE fit"],
                              WEKA_FIT_RATIO, False))
        targets.append(Target("AODE predict_proba vs Weka's AODE scoring of the same rows",
                              seconds["Weka AODE test on the training rows"] / seconds["AODE predict_proba"],
                              WEKA_SCORE_RATIO, False))
    return targets


def run(ctx):
    """Accuracy on Weka's example files and the speed of fit and predict_proba (see the module docstring)."""
    no_weka = weka_missing()
    notes = [] if no_weka is None else [f"Weka is skipped ({no_weka}): its columns are empty"]
    accuracy = pd.DataFrame(accuracy_rows(ctx.quick, no_weka))
    n_rows, repeat = (2 * 10**4, 2) if ctx.quick else (N_ROWS, 4)
    speed = pd.DataFrame(speed_rows(n_rows, repeat, no_weka))
    means = accuracy.groupby("model", sort=False)[["nbparallel", "weka"]].mean().reset_index()
    summary = pd.concat([accuracy[["dataset", "model", "nbparallel", "weka"]], means.assign(dataset="mean")],
                        ignore_index=True)
    summary["points"] = (summary["nbparallel"] - summary["weka"]) * 100
    notes.append("speed: " + ", ".join(f"{m} {s:.3f} s" for m, s in zip(speed["measure"], speed["seconds"])))
    notes.append("accuracy: Weka and ours on the same folds (StratifiedKFold, shuffled, seed 1), correct test rows "
                 "of the 10 folds over all rows")
    return Result("seminaive", pd.concat([accuracy, speed], ignore_index=True), summary, _plot,
                  {"rows": n_rows, "attributes": N_ATTRIBUTES, "values": N_VALUES, "classes": 2, "threads": THREADS,
                   "repeat": repeat, "datasets": sorted(set(accuracy["dataset"])), "weka": None if no_weka
                   else str(WEKA_JAR)},
                  targets=targets_of(accuracy, speed), notes=notes)


def _plot(rows):
    accuracy = rows[rows["part"] == "accuracy"]
    speed = rows[rows["part"] == "speed"]
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5), gridspec_kw={"width_ratios": [2, 1]})
    datasets = list(dict.fromkeys(accuracy["dataset"]))
    width = 0.1
    colours = {"naive Bayes": "#4c72b0", "naive Bayes, Laplace": "#8172b3", "AODE": "#dd8452", "TAN": "#55a868"}
    for m, model in enumerate(OURS):
        part = accuracy[accuracy["model"] == model].set_index("dataset").reindex(datasets)
        x = np.arange(len(datasets)) + (2 * m - 3.5) * width
        left.bar(x, part["nbparallel"], width, color=colours[model], label=f"nbparallel {model}")
        if part["weka"].notna().any():
            left.bar(x + width, part["weka"], width, color=colours[model], alpha=0.45, hatch="//",
                     label=f"Weka {model}")
    left.set_xticks(np.arange(len(datasets)), datasets, rotation=30, ha="right")
    left.set(ylabel="10-fold CV accuracy", ylim=(0.5, 1.0), title="MDL-discretised: nbparallel and Weka 3.6")
    left.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.4))
    right.barh(speed["measure"], speed["seconds"], color="#8172b3")
    for i, seconds in enumerate(speed["seconds"]):
        right.text(seconds, i, f" {seconds:.3g} s", va="center", fontsize=8)
    right.set(xscale="log", xlabel="seconds (best)", xlim=(speed["seconds"].min() / 2, speed["seconds"].max() * 8),
              title=f"{N_ATTRIBUTES} attributes x {N_VALUES} values, {THREADS} threads")
    right.xaxis.set_minor_formatter(plt.NullFormatter())
    right.tick_params(axis="y", labelsize=8)
    figure.tight_layout()
    return figure

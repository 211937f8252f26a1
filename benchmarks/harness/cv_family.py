"""One-pass cross-validation of Gaussian and text models against scikit-learn's cross_val_score.

Run ``nbparallel bench cv_family`` (or ``--quick``). Side by side in one
run, interleaved, best of ``--repeat``, k = ``--folds``:

- Gaussian: ``cross_validate(NaiveBayes(numeric="gaussian"))`` (schema, count,
  score passes) against ``cross_val_score`` of the same model (k fits) and of
  scikit-learn's ``GaussianNB``; the largest relative difference of the
  per-fold log-likelihoods from the k separate fits (moments: total minus fold).
- Text: ``cross_validate(MultinomialNaiveBayes())`` / ``BernoulliNaiveBayes`` on
  a CSR matrix against ``cross_val_score`` of ``MultinomialNB`` / ``BernoulliNB``.

"""

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, cross_val_score
from sklearn.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB

from harness.context import Parameter, parameters
from harness.data import shifted_normal, word_counts
from harness.report import Result, Target
from harness.timing import best_interleaved
from nbparallel import BernoulliNaiveBayes, MultinomialNaiveBayes, NaiveBayes, cross_validate


def report(experiment, rows_, k, best, out, reference_name):
    rows = []
    ours = best["nbparallel cross_validate"]
    for name, seconds in best.items():
        rows.append({"experiment": experiment, "method": name, "rows": rows_, "k": k, "seconds": seconds,
                     "mean_accuracy": float(np.mean(out[name])), "speedup_of_one_pass": seconds / ours})
        print(f"  {name:<40} {seconds:8.2f} s   mean accuracy {np.mean(out[name]):.4f}   "
              f"one pass is {seconds / ours:.1f}x faster")
    differ = int(np.sum(np.asarray(out["nbparallel cross_validate"]) != np.asarray(out[reference_name])))
    print(f"  one-pass accuracies equal {reference_name}'s exactly: {differ == 0}")
    return rows, differ


def gaussian(n_rows, k, repeat):
    X, y = shifted_normal(n_rows)
    folds = KFold(k)
    model = NaiveBayes(numeric="gaussian")
    runs = {"nbparallel cross_validate": lambda: cross_validate(model, X, y, cv=k)["test_accuracy"],
            "cross_val_score(NaiveBayes gaussian)": lambda: cross_val_score(model, X, y, cv=folds),
            "cross_val_score(GaussianNB)": lambda: cross_val_score(GaussianNB(), X, y, cv=folds)}
    print(f"\n{n_rows:,} rows x 8 Gaussian attributes (mean 100, sd 1), 3 classes, k = {k}")
    best, out = best_interleaved(runs, repeat, warmup=["nbparallel cross_validate"])
    rows, differ = report("gaussian", n_rows, k, best, out, "cross_val_score(NaiveBayes gaussian)")
    one = cross_validate(model, X, y, cv=k)["test_log_likelihood"]
    separate = cross_val_score(model, X, y, cv=folds, scoring="neg_log_loss")
    error = float(np.max(np.abs(one / separate - 1)))
    print(f"  largest relative log-likelihood difference from the k separate fits: {error:.1e}")
    rows.append({"experiment": "gaussian", "method": "max relative log-likelihood difference", "rows": n_rows,
                 "k": k, "value": error})
    return rows, [Target("Gaussian: folds whose one-pass accuracy differs from k separate fits'",
                         differ, 0, at_most=True, unit=""),
                  Target("Gaussian: largest relative log-likelihood difference from k separate fits", error, 1e-9,
                         at_most=True, unit="")]


def text(n_rows, n_features, k, repeat):
    X, y = word_counts(n_rows, n_features)
    folds = KFold(k)
    rows, targets = [], []
    for ours, theirs in ((MultinomialNaiveBayes, MultinomialNB), (BernoulliNaiveBayes, BernoulliNB)):
        runs = {"nbparallel cross_validate": lambda: cross_validate(ours(), X, y, cv=k)["test_accuracy"],
                f"cross_val_score({ours.__name__})": lambda: cross_val_score(ours(), X, y, cv=folds),
                f"cross_val_score({theirs.__name__})": lambda: cross_val_score(theirs(), X, y, cv=folds)}
        print(f"\n{n_rows:,} documents x {n_features:,} features ({X.nnz:,} non-zeros, CSR), 5 classes, k = {k}: "
              f"{ours.__name__}")
        best, out = best_interleaved(runs, repeat, warmup=["nbparallel cross_validate"])
        part, differ = report(f"text {ours.__name__}", n_rows, k, best, out, f"cross_val_score({theirs.__name__})")
        rows += part
        targets.append(Target(f"{ours.__name__}: folds whose one-pass accuracy differs from "
                              f"{theirs.__name__}'s", differ, 0, at_most=True, unit=""))
    return rows, targets


@parameters(gaussian_rows=Parameter(1_000_000, "rows of the Gaussian data", quick=20_000),
            text_rows=Parameter(200_000, "documents of the text data", quick=5_000),
            text_features=Parameter(2**16, "features of the text data", quick=2**10),
            folds=Parameter(10, "k of the k-fold cross-validation"),
            repeat=Parameter(2, "interleaved timed rounds", quick=1))
def run(ctx):
    """The Gaussian and the text comparisons."""
    options = ctx.parameters
    rows, targets = gaussian(options["gaussian_rows"], options["folds"], options["repeat"])
    text_rows, text_targets = text(options["text_rows"], options["text_features"], options["folds"],
                                   options["repeat"])
    frame = pd.DataFrame(rows + text_rows)
    return Result("cv_family", frame, frame, targets=targets + text_targets)

"""One-pass exact k-fold cross-validation against scikit-learn's cross_val_score.

Run ``nbparallel bench cv`` (10^6 and 10^7 rows, k = 10) or ``--quick``.
Side by side in one run, interleaved, best of ``--repeat``:

- ``nbparallel.cross_validate(NaiveBayes())``: one schema, one counting and one scoring pass;
- ``cross_val_score(NaiveBayes())``: the same model fitted k times (the same scores, exactly);
- ``cross_val_score(CategoricalNB())``: scikit-learn's own categorical naive Bayes, k fits.

Then, on numeric real datasets, how much the one-pass scores (bins cut from all
rows) differ from k separate fits (bins cut from each training fold).
"""

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.model_selection import KFold, cross_val_score
from sklearn.naive_bayes import CategoricalNB

from harness.context import Parameter, parameters
from harness.data import categorical_with_signal
from harness.report import Result, Target
from harness.timing import best_interleaved
from nbparallel import NaiveBayes, cross_validate

TARGET_SPEEDUP = 5.0


def speed(n_rows, k, repeat):
    """The three ways timed side by side: their rows, the folds where the one-pass scores differ from k
    separate fits', and the passes of ``cross_validate``."""
    X, y = categorical_with_signal(n_rows)
    folds = KFold(k)
    runs = {
        "nbparallel cross_validate": lambda: cross_validate(
            NaiveBayes(categorical_features="all"), X, y, cv=k)["test_accuracy"],
        "cross_val_score(NaiveBayes)": lambda: cross_val_score(
            NaiveBayes(categorical_features="all"), X, y, cv=folds),
        "cross_val_score(CategoricalNB)": lambda: cross_val_score(CategoricalNB(), X, y, cv=folds),
    }
    best, scores = best_interleaved(runs, repeat, warmup=["nbparallel cross_validate"])  # numba compilation
    passes = cross_validate(NaiveBayes(categorical_features="all"), X, y, cv=k)["passes"]
    rows = []
    for name in runs:
        rows.append({"experiment": "speed", "method": name, "rows": n_rows, "k": k, "seconds": best[name],
                     "mean_accuracy": float(np.mean(scores[name])),
                     "speedup_of_one_pass": best[name] / best["nbparallel cross_validate"]})
    differ = int(np.sum(scores["nbparallel cross_validate"] != scores["cross_val_score(NaiveBayes)"]))
    return rows, differ, passes


def numeric_difference(k=10):
    """One-pass CV (bins from all rows) against k separate fits (bins from each training fold)."""
    rows = []
    for name, loader in (("breast_cancer", load_breast_cancer), ("wine", load_wine), ("digits", load_digits)):
        X, y = loader(return_X_y=True)
        folds = KFold(k, shuffle=True, random_state=0)
        one = cross_validate(NaiveBayes(), X, y, cv=folds)
        separate = cross_val_score(NaiveBayes(), X, y, cv=folds)
        separate_ll = cross_val_score(NaiveBayes(), X, y, cv=folds, scoring="neg_log_loss")
        rows.append({"experiment": "numeric bins", "method": name, "rows": len(y), "k": k,
                     "one_pass_accuracy": float(one["test_accuracy"].mean()),
                     "separate_accuracy": float(separate.mean()),
                     "max_fold_accuracy_difference": float(np.abs(one["test_accuracy"] - separate).max()),
                     "one_pass_log_likelihood": float(one["test_log_likelihood"].mean()),
                     "separate_log_likelihood": float(separate_ll.mean())})
    return rows


@parameters(rows=Parameter([1_000_000, 10_000_000], "rows of each speed run", quick=[20_000]),
            folds=Parameter(10, "k of the k-fold cross-validation"),
            repeat=Parameter(2, "interleaved timed rounds", quick=1))
def run(ctx):
    """The speed runs and the numeric-bins comparison."""
    k, rows, targets = ctx.parameters["folds"], [], []
    for n in ctx.parameters["rows"]:
        speed_rows, differ, passes = speed(n, k, ctx.parameters["repeat"])
        rows += speed_rows
        print(f"\n{n:,} rows x 8 categorical attributes, k = {k} "
              f"(passes: {', '.join(p['kind'] for p in passes)})")
        for r in speed_rows:
            print(f"  {r['method']:<32} {r['seconds']:8.2f} s   mean accuracy {r['mean_accuracy']:.4f}   "
                  f"one pass is {r['speedup_of_one_pass']:.1f}x faster")
        print(f"  one-pass scores equal k separate NaiveBayes fits exactly: {differ == 0}")
        targets.append(Target(f"{n:,} rows: folds whose one-pass score differs from k separate fits'", differ, 0,
                              at_most=True, unit=""))
        if n >= 10_000_000:
            ratio = min(r["speedup_of_one_pass"] for r in speed_rows if r["method"] != "nbparallel cross_validate")
            targets.append(Target(f"{n:,} rows: cross_val_score's time / one-pass cross_validate's", ratio,
                                  TARGET_SPEEDUP, at_most=False))
    print("\nnumeric attributes: bins from all rows (one pass) versus from each training fold (separate fits)")
    numeric = numeric_difference(k)
    for r in numeric:
        print(f"  {r['method']:<14} accuracy {r['one_pass_accuracy']:.4f} vs {r['separate_accuracy']:.4f}, "
              f"largest fold difference {r['max_fold_accuracy_difference']:.4f}; log-likelihood "
              f"{r['one_pass_log_likelihood']:.4f} vs {r['separate_log_likelihood']:.4f}")
    frame = pd.DataFrame(rows + numeric)
    return Result("cv", frame, frame, targets=targets)

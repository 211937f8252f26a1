"""One-pass exact k-fold cross-validation against scikit-learn's cross_val_score.

Run ``nbparallel bench cv`` (10^7 rows, k = 10) or ``--quick``.
Side by side in one run, interleaved, best of ``--repeat``:

- ``nbparallel.cross_validate(NaiveBayes())``: one schema, one counting and one scoring pass;
- ``cross_val_score(NaiveBayes())``: the same model fitted k times (the same scores, exactly);
- ``cross_val_score(CategoricalNB())``: scikit-learn's own categorical naive Bayes, k fits.

Then, on numeric real datasets, how much the one-pass scores (bins cut from all
rows) differ from k separate fits (bins cut from each training fold).
Writes ``benchmarks/results/cv.json`` and ``cv.csv``.
"""

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.model_selection import KFold, cross_val_score
from sklearn.naive_bayes import CategoricalNB

from harness import RESULTS
from harness.timing import best_interleaved
from nbparallel import NaiveBayes, cross_validate

TARGET_SPEEDUP = 5.0


def categorical_data(n_rows, n_attrs=8, n_values=10, seed=0):
    """Codes 1..n_values as uint8; the class depends on three attributes, with noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(1, n_values + 1, size=(n_rows, n_attrs), dtype=np.uint8)
    score = (X[:, 0] > 5).astype(int) + (X[:, 1] > 7) + (X[:, 2] < 3)
    y = np.where(rng.random(n_rows) < 0.8, score >= 2, rng.random(n_rows) < 0.5).astype(np.int64)
    return X, y


def speed(n_rows, k, repeat):
    X, y = categorical_data(n_rows)
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
    same = bool(np.array_equal(scores["nbparallel cross_validate"], scores["cross_val_score(NaiveBayes)"]))
    return rows, same, passes


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="small sizes, smoke run")
    parser.add_argument("--results-dir", type=Path, default=RESULTS, help="where to write the results")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.repeat = [20_000], 1
    rows, ok = [], True
    for n in args.rows:
        speed_rows, same, passes = speed(n, args.folds, args.repeat)
        rows += speed_rows
        print(f"\n{n:,} rows x 8 categorical attributes, k = {args.folds} "
              f"(passes: {', '.join(p['kind'] for p in passes)})")
        for r in speed_rows:
            print(f"  {r['method']:<32} {r['seconds']:8.2f} s   mean accuracy {r['mean_accuracy']:.4f}   "
                  f"one pass is {r['speedup_of_one_pass']:.1f}x faster")
        print(f"  one-pass scores equal k separate NaiveBayes fits exactly: {same}")
        ok &= same
        if n >= 10_000_000:
            ratio = min(r["speedup_of_one_pass"] for r in speed_rows if r["method"] != "nbparallel cross_validate")
            verdict = "PASS" if ratio >= TARGET_SPEEDUP else "FAIL"
            print(f"  {verdict}: at least {ratio:.1f}x faster than cross_val_score (target {TARGET_SPEEDUP}x)")
            ok &= ratio >= TARGET_SPEEDUP
    print("\nnumeric attributes: bins from all rows (one pass) versus from each training fold (separate fits)")
    numeric = numeric_difference(args.folds)
    for r in numeric:
        print(f"  {r['method']:<14} accuracy {r['one_pass_accuracy']:.4f} vs {r['separate_accuracy']:.4f}, "
              f"largest fold difference {r['max_fold_accuracy_difference']:.4f}; log-likelihood "
              f"{r['one_pass_log_likelihood']:.4f} vs {r['separate_log_likelihood']:.4f}")
    rows += numeric
    if not args.quick:
        args.results_dir.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(args.results_dir / "cv.csv", index=False)
        (args.results_dir / "cv.json").write_text(json.dumps(rows, indent=2))
        print(f"\nwritten {args.results_dir / 'cv.csv'} and cv.json")
    raise SystemExit(0 if ok else 1)

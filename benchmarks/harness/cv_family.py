"""One-pass cross-validation of Gaussian and text models against scikit-learn's cross_val_score.

Run ``nbparallel bench cv_family`` (or ``--quick``). Side by side in one
run, interleaved, best of ``--repeat``, k = ``--folds``:

- Gaussian: ``cross_validate(NaiveBayes(numeric="gaussian"))`` (schema, count,
  score passes) against ``cross_val_score`` of the same model (k fits) and of
  scikit-learn's ``GaussianNB``; the largest relative difference of the
  per-fold log-likelihoods from the k separate fits (moments: total minus fold).
- Text: ``cross_validate(MultinomialNaiveBayes())`` / ``BernoulliNaiveBayes`` on
  a CSR matrix against ``cross_val_score`` of ``MultinomialNB`` / ``BernoulliNB``.

Writes ``benchmarks/results/cv_family.json`` and ``cv_family.csv``.
"""

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.model_selection import KFold, cross_val_score
from sklearn.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB

from harness import RESULTS
from harness.timing import best_interleaved
from nbparallel import BernoulliNaiveBayes, MultinomialNaiveBayes, NaiveBayes, cross_validate



def gaussian_data(n_rows, n_attrs=8, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    X = rng.normal(0, 1, (n_rows, n_attrs)) + 0.4 * y[:, None] * (np.arange(n_attrs) % 3 == 0) + 100.0
    return X, y


def text_data(n_rows, n_features, nnz_per_row=40, n_classes=5, seed=0):
    """Word counts: each class prefers its own block of features."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    block = n_features // n_classes
    own = rng.random((n_rows, nnz_per_row)) < 0.3
    cols = np.where(own, y[:, None] * block + rng.integers(0, block, (n_rows, nnz_per_row)),
                    rng.integers(0, n_features, (n_rows, nnz_per_row)))
    X = sp.csr_matrix((rng.integers(1, 4, cols.size).astype(float), cols.ravel(),
                       np.arange(0, cols.size + 1, nnz_per_row)), shape=(n_rows, n_features))
    X.sum_duplicates()
    return X, y


def report(experiment, rows_, k, best, out, reference_name):
    rows = []
    ours = best["nbparallel cross_validate"]
    for name, seconds in best.items():
        rows.append({"experiment": experiment, "method": name, "rows": rows_, "k": k, "seconds": seconds,
                     "mean_accuracy": float(np.mean(out[name])), "speedup_of_one_pass": seconds / ours})
        print(f"  {name:<40} {seconds:8.2f} s   mean accuracy {np.mean(out[name]):.4f}   "
              f"one pass is {seconds / ours:.1f}x faster")
    same = np.array_equal(out["nbparallel cross_validate"], out[reference_name])
    print(f"  one-pass accuracies equal {reference_name}'s exactly: {same}")
    return rows, same


def gaussian(n_rows, k, repeat):
    X, y = gaussian_data(n_rows)
    folds = KFold(k)
    model = NaiveBayes(numeric="gaussian")
    runs = {"nbparallel cross_validate": lambda: cross_validate(model, X, y, cv=k)["test_accuracy"],
            "cross_val_score(NaiveBayes gaussian)": lambda: cross_val_score(model, X, y, cv=folds),
            "cross_val_score(GaussianNB)": lambda: cross_val_score(GaussianNB(), X, y, cv=folds)}
    print(f"\n{n_rows:,} rows x 8 Gaussian attributes (mean 100, sd 1), 3 classes, k = {k}")
    best, out = best_interleaved(runs, repeat, warmup=["nbparallel cross_validate"])
    rows, same = report("gaussian", n_rows, k, best, out, "cross_val_score(NaiveBayes gaussian)")
    one = cross_validate(model, X, y, cv=k)["test_log_likelihood"]
    separate = cross_val_score(model, X, y, cv=folds, scoring="neg_log_loss")
    error = float(np.max(np.abs(one / separate - 1)))
    print(f"  largest relative log-likelihood difference from the k separate fits: {error:.1e}")
    rows.append({"experiment": "gaussian", "method": "max relative log-likelihood difference", "rows": n_rows,
                 "k": k, "value": error})
    return rows, same and error < 1e-9


def text(n_rows, n_features, k, repeat):
    X, y = text_data(n_rows, n_features)
    folds = KFold(k)
    rows, ok = [], True
    for ours, theirs in ((MultinomialNaiveBayes, MultinomialNB), (BernoulliNaiveBayes, BernoulliNB)):
        runs = {"nbparallel cross_validate": lambda: cross_validate(ours(), X, y, cv=k)["test_accuracy"],
                f"cross_val_score({ours.__name__})": lambda: cross_val_score(ours(), X, y, cv=folds),
                f"cross_val_score({theirs.__name__})": lambda: cross_val_score(theirs(), X, y, cv=folds)}
        print(f"\n{n_rows:,} documents x {n_features:,} features ({X.nnz:,} non-zeros, CSR), 5 classes, k = {k}: "
              f"{ours.__name__}")
        best, out = best_interleaved(runs, repeat, warmup=["nbparallel cross_validate"])
        part, same = report(f"text {ours.__name__}", n_rows, k, best, out, f"cross_val_score({theirs.__name__})")
        rows += part
        ok &= same
    return rows, ok


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gaussian-rows", type=int, default=1_000_000)
    parser.add_argument("--text-rows", type=int, default=200_000)
    parser.add_argument("--text-features", type=int, default=2**16)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="small sizes, smoke run")
    parser.add_argument("--results-dir", type=Path, default=RESULTS, help="where to write the results")
    args = parser.parse_args(argv)
    if args.quick:
        args.gaussian_rows, args.text_rows, args.text_features, args.repeat = 20_000, 5_000, 2**10, 1
    rows, ok = gaussian(args.gaussian_rows, args.folds, args.repeat)
    text_rows, text_ok = text(args.text_rows, args.text_features, args.folds, args.repeat)
    rows += text_rows
    ok &= text_ok
    if not args.quick:
        args.results_dir.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(args.results_dir / "cv_family.csv", index=False)
        (args.results_dir / "cv_family.json").write_text(json.dumps(rows, indent=2))
        print(f"\nwritten {args.results_dir / 'cv_family.csv'} and cv_family.json")
    print("PASS" if ok else "FAIL")
    raise SystemExit(0 if ok else 1)

"""SPSS forward feature selection against scikit-learn's SequentialFeatureSelector(CategoricalNB).

Run ``nbparallel bench selection`` or ``--quick``. On one categorical
data set (J0 predictors: a few informative ones, noisy copies of them, and
noise), side by side, interleaved, best of ``--repeat``:

- ``SelectedNaiveBayes(b_estimate="sample")``: schema and counting passes only;
- ``SelectedNaiveBayes(b_estimate="exact")``: plus one pass per step;
- ``SequentialFeatureSelector(CategoricalNB(), direction="forward", cv=5,
  scoring="neg_log_loss")``: one fit and one scoring per candidate, fold and
  step (each a pass over the data).

Prints passes, seconds, ratios and the chosen predictors; writes
``benchmarks/results/selection.json`` and ``selection.csv``.
"""

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.naive_bayes import CategoricalNB

from harness import RESULTS
from harness.timing import best_interleaved
from nbparallel import SelectedNaiveBayes



def selection_data(n_rows, n_predictors, seed=0):
    """4 informative attributes, 2 noisy copies of each, the rest pure noise; codes 0..7."""
    rng = np.random.default_rng(seed)
    informative = rng.integers(0, 8, size=(n_rows, 4))
    logit = 0.9 * (informative[:, 0] - 3.5) / 3.5 + 0.7 * (informative[:, 1] > 4) - 0.6 * (informative[:, 2] < 2) \
        + 0.4 * (informative[:, 3] % 2)
    y = (rng.random(n_rows) < 1 / (1 + np.exp(-2 * logit))).astype(np.int64)
    copies = [np.where(rng.random(n_rows) < 0.3, rng.integers(0, 8, n_rows), informative[:, j])
              for j in range(4) for _ in range(2)]
    noise = rng.integers(0, 8, size=(n_rows, n_predictors - 12))
    X = np.column_stack([informative, *copies, noise])
    order = rng.permutation(n_predictors)  # informative columns are not first
    return X[:, order].astype(np.int64), y, [f"x{j}" for j in range(n_predictors)], order


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--predictors", type=int, default=30)
    parser.add_argument("--select", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="small sizes, smoke run")
    parser.add_argument("--results-dir", type=Path, default=RESULTS, help="where to write the results")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.predictors, args.select, args.repeat = 5_000, 14, 3, 1
    X, y, names, order = selection_data(args.rows, args.predictors)
    frame = pd.DataFrame(X, columns=names)
    K, J0, cv = args.select, args.predictors, 5
    runs = {
        "nbparallel sampled B": lambda: SelectedNaiveBayes(n_features=K, random_state=0,
                                                           categorical_features="all").fit(frame, y),
        "nbparallel exact B": lambda: SelectedNaiveBayes(n_features=K, b_estimate="exact",
                                                         categorical_features="all").fit(frame, y),
        "sklearn SFS(CategoricalNB)": lambda: SequentialFeatureSelector(
            CategoricalNB(), n_features_to_select=K, direction="forward", cv=cv,
            scoring="neg_log_loss").fit(frame, y),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best, fitted = best_interleaved(runs, args.repeat, warmup=["nbparallel exact B"])  # numba compilation
    sfs_fits = sum(J0 - t for t in range(K)) * cv
    informative = {names[i] for i in range(J0) if order[i] < 4}
    rows = []
    print(f"{args.rows:,} rows, J0 = {J0} categorical predictors (informative: {sorted(informative)}), "
          f"select {K}\n")
    for name, model in fitted.items():
        if name.startswith("nbparallel"):
            chosen = model.selected_features_
            passes = len(model.passes_)
            detail = ", ".join(p["kind"] for p in model.passes_)
        else:
            chosen = list(frame.columns[model.get_support()])
            passes = sfs_fits
            detail = f"{sfs_fits} CategoricalNB fits, each a training pass plus a scoring pass over its fold"
        rows.append({"method": name, "rows": args.rows, "predictors": J0, "selected": K, "seconds": best[name],
                     "passes": passes, "chosen": chosen, "informative_chosen": len(informative & set(chosen)),
                     "slowdown_vs_sampled": best[name] / best["nbparallel sampled B"]})
        print(f"{name:<28} {best[name]:8.2f} s  {passes:5d} passes  ({detail})")
        print(f"{'':<28} chose {chosen}; {len(informative & set(chosen))} of the 4 informative\n")
    sfs = best["sklearn SFS(CategoricalNB)"]
    for name in ("nbparallel sampled B", "nbparallel exact B"):
        print(f"{name}: {sfs / best[name]:.0f}x faster than SequentialFeatureSelector, "
              f"{sfs_fits / len(fitted[name].passes_):.0f}x fewer passes")
    if not args.quick:
        args.results_dir.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(args.results_dir / "selection.csv", index=False)
        (args.results_dir / "selection.json").write_text(json.dumps(rows, indent=2))
        print(f"\nwritten {args.results_dir / 'selection.csv'} and selection.json")

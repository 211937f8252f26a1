"""partial_fit on class-ordered batches: ranges from the first batch versus numeric_ranges.

Run: nbparallel bench partial_fit_ranges
"""

import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_iris, load_wine

from harness.report import Result, Target
from nbparallel import NaiveBayes


def accuracies(loader, n_batches=3):
    X, y = loader(return_X_y=True, as_frame=True)
    order = np.argsort(y.to_numpy(), kind="stable")
    X, y = X.iloc[order].reset_index(drop=True), y.iloc[order].reset_index(drop=True)
    batches = np.array_split(np.arange(len(y)), n_batches)
    classes = sorted(set(y))
    full = NaiveBayes().fit(X, y)
    first = NaiveBayes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for rows in batches:
            first.partial_fit(X.iloc[rows], y.iloc[rows], classes=classes)
    ranged = NaiveBayes(numeric_ranges={c: (X[c].min(), X[c].max()) for c in X.columns})
    for rows in batches:
        ranged.partial_fit(X.iloc[rows], y.iloc[rows], classes=classes)
    return {"fit": full.score(X, y), "partial_fit_first_batch_ranges": first.score(X, y),
            "warnings": len(caught), "partial_fit_numeric_ranges": ranged.score(X, y),
            "same_counts_as_fit": bool(ranged.counts_.equals(full.counts_))}


def run(ctx):
    """Accuracies on iris, wine and breast_cancer (the same with ``--quick``: they take seconds)."""
    results = {name: accuracies(loader) for name, loader in
               (("iris", load_iris), ("wine", load_wine), ("breast_cancer", load_breast_cancer))}
    for name, r in results.items():
        print(f"{name:14s} fit {r['fit']:.4f}  partial_fit (first-batch ranges) "
              f"{r['partial_fit_first_batch_ranges']:.4f} with {r['warnings']} warnings  "
              f"partial_fit (numeric_ranges) {r['partial_fit_numeric_ranges']:.4f}  "
              f"same counts as fit: {r['same_counts_as_fit']}")
    frame = pd.DataFrame([{"name": name, **r} for name, r in results.items()])
    targets = [Target(f"{name}: counts of partial_fit (numeric_ranges) that differ from fit's",
                      0 if r["same_counts_as_fit"] else 1, 0, at_most=True, unit="") for name, r in results.items()]
    return Result("partial_fit_ranges", frame, frame, targets=targets)

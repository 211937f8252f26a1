"""SPSS forward feature selection against scikit-learn's SequentialFeatureSelector(CategoricalNB).

Run ``nbparallel bench selection`` or ``--quick``. On one categorical
data set (J0 predictors: a few informative ones, noisy copies of them, and
noise), side by side, interleaved, best of ``--repeat``:

- ``SelectedNaiveBayes(b_estimate="sample")``: schema and counting passes only;
- ``SelectedNaiveBayes(b_estimate="exact")``: plus one pass per step;
- ``SequentialFeatureSelector(CategoricalNB(), direction="forward", cv=5,
  scoring="neg_log_loss")``: one fit and one scoring per candidate, fold and
  step (each a pass over the data).

Prints passes, seconds, ratios and the chosen predictors.
"""

import warnings

import pandas as pd
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.naive_bayes import CategoricalNB

from harness.context import Parameter, parameters
from harness.data import selection_data
from harness.report import Result
from harness.timing import best_interleaved
from nbparallel import SelectedNaiveBayes



@parameters(rows=Parameter(200_000, "rows", quick=5_000), predictors=Parameter(30, "predictors J0", quick=14),
            select=Parameter(5, "predictors to select", quick=3),
            repeat=Parameter(2, "interleaved timed rounds", quick=1))
def run(ctx):
    """The three selections side by side."""
    options = ctx.parameters
    X, y, names, order = selection_data(options["rows"], options["predictors"])
    frame = pd.DataFrame(X, columns=names)
    K, J0, cv = options["select"], options["predictors"], 5
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
        best, fitted = best_interleaved(runs, options["repeat"], warmup=["nbparallel exact B"])  # numba compilation
    sfs_fits = sum(J0 - t for t in range(K)) * cv
    informative = {names[i] for i in range(J0) if order[i] < 4}
    rows = []
    print(f"{options['rows']:,} rows, J0 = {J0} categorical predictors (informative: {sorted(informative)}), "
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
        rows.append({"method": name, "rows": options["rows"], "predictors": J0, "selected": K, "seconds": best[name],
                     "passes": passes, "chosen": chosen, "informative_chosen": len(informative & set(chosen)),
                     "slowdown_vs_sampled": best[name] / best["nbparallel sampled B"]})
        print(f"{name:<28} {best[name]:8.2f} s  {passes:5d} passes  ({detail})")
        print(f"{'':<28} chose {chosen}; {len(informative & set(chosen))} of the 4 informative\n")
    sfs = best["sklearn SFS(CategoricalNB)"]
    for name in ("nbparallel sampled B", "nbparallel exact B"):
        print(f"{name}: {sfs / best[name]:.0f}x faster than SequentialFeatureSelector, "
              f"{sfs_fits / len(fitted[name].passes_):.0f}x fewer passes")
    frame = pd.DataFrame(rows)
    return Result("selection", frame, frame)

"""What the command line prints: results, and errors and warnings as messages.

Results go to stdout; warnings, errors and progress bars go to stderr.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import sys


class _Lazy:
    """A module imported on first use (``--help`` need not import pandas)."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)


np = _Lazy("numpy")
pd = _Lazy("pandas")


def plain(value):
    """``value`` with numpy arrays and scalars (at any depth of dicts and lists) as plain JSON values."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.generic):
        return plain(value.item())
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def report_error(command, message):
    """One line on stderr naming the problem."""
    print(f"nbparallel {command}: error: " + " ".join(message.split()), file=sys.stderr)


@contextlib.contextmanager
def warnings_as_messages(command):
    """Show the library's warnings (ignored attributes, ...) as plain messages on stderr."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        yield
    for w in caught:
        print(f"nbparallel {command}: warning: {w.message}", file=sys.stderr)


def print_passes(passes):
    """One line: how many passes of each kind ran, and their seconds."""
    kinds = dict.fromkeys(p["kind"] for p in passes)
    print("passes: " + ", ".join(
        f"{sum(p['kind'] == k for p in passes)} {k} "
        f"({sum(p['seconds'] for p in passes if p['kind'] == k):.2f} s)" for k in kinds))


def print_tree(record):
    print(f"partitions {record.n_leaves}, reduction tree height {record.height}, merges {record.n_merges}")


def print_fit(model, elapsed, weighted):
    """A naive Bayes, AODE or TAN fit: classes, rows (or total weight), the tree."""
    counts = model.pair_counts_.counts if hasattr(model, "pair_counts_") else model.counts_
    total = counts.class_totals.sum()
    amount = f"a total weight of {total:g}" if weighted else f"{total:g} rows"
    print(f"fitted {len(model.classes_)} classes from {amount} "
          f"({model.n_missing_target_} rows with a missing target skipped) in {elapsed:.2f} s")
    print_tree(model.reduction_)


def print_boosted(model, elapsed):
    print(f"boosted {len(model.estimators_)} naive Bayes rounds over {len(model.classes_)} classes "
          f"in {elapsed:.2f} s; weighted errors " + ", ".join(f"{e:.4f}" for e in model.estimator_errors_))
    print_passes(model.passes_)


def print_clusters(model, elapsed):
    print(f"{model.n_clusters} clusters, best of {model.n_restarts} restarts (restart {model.best_restart_}), "
          f"{model.n_iter_} EM iterations{'' if model.converged_ else ' (not converged)'} in {elapsed:.2f} s")
    print(f"log-posterior {model.history_[-1]:.4f}")
    print_passes(model.passes_)


def print_text_fit(model, kind, shape, elapsed):
    print(f"fitted {kind} naive Bayes: {len(model.classes_)} classes, {shape[0]} documents, "
          f"{shape[1]} features in {elapsed:.2f} s")
    print_tree(model.reduction_)


def print_selection(model, elapsed, output):
    """The forward selection's path, one step a line, then the chosen predictors."""
    print(f"{'J':>3}  {'added':<28} {'l_train':>10} {'l_test':>10} {'Q':>10}")
    for step in model.selection_path_:
        lt = "" if step["l_test"] is None else f"{step['l_test']:.5f}"
        print(f"{step['n_features']:>3}  {str(step['added'] or '(initial)'):<28} {step['l_train']:>10.5f} "
              f"{lt:>10} {step['Q']:>10.5f}")
    print(f"selected {len(model.selected_features_)} predictors by {model.criterion_}: "
          + ", ".join(model.selected_features_))
    print_passes(model.passes_)
    print(f"in {elapsed:.2f} s; model written to {output}")


def print_cross_validation(result, elapsed, as_json=False):
    """Each fold's rows and scores, their means, the folds and the passes (or ``cross_validate``'s result as
    JSON, with ``seconds``)."""
    if as_json:
        print(json.dumps(plain({**result, "seconds": elapsed}), indent=2))
        return
    scores = [k for k in result if k.startswith("test_") and not k.endswith("_error_bound")]
    columns = {"rows": result["n_test_rows"], **{k[len("test_"):]: result[k] for k in scores}}
    table = pd.DataFrame(columns)
    folds = result.get("folds", {})
    if folds.get("n_repeats", 1) > 1:
        table.index = pd.MultiIndex.from_arrays([result["repeat"], result["fold"]], names=["repeat", "fold"])
    else:
        table.index.name = "fold"
    print(table.to_string(float_format=lambda v: f"{v:.4f}"))
    means = [f"mean {name.replace('_', '-')} {table[name].mean():.4f}" + (f" (sd {table[name].std(ddof=0):.4f})"
                                                        if name == "accuracy" else "")
             for name in table.columns if name != "rows"]
    print(", ".join(means))
    if folds:
        how = ("stratified " if folds["stratify"] else "") + ("shuffled " if folds["shuffle"] else "contiguous ")
        seed = f", seed {folds['random_state']}" if folds["shuffle"] else ""
        print(f"folds: {folds['n_splits']} {how}folds" + (f" x {folds['n_repeats']} repeats"
                                                         if folds["n_repeats"] > 1 else "") + seed)
    print("passes: " + ", ".join(f"{p['kind']} ({p['seconds']:.2f} s)" for p in result["passes"])
          + f"; {elapsed:.2f} s in all")


def print_evaluation(classes, result, as_json=False):
    """``model.evaluate``'s result as a table (or JSON with the classes)."""
    if as_json:
        labels = [c.item() if isinstance(c, np.generic) else c for c in classes]
        print(json.dumps(plain({"classes": labels, **result}), indent=2))
        return
    print(f"rows                    {result['n_rows']}")
    print(f"accuracy                {result['accuracy']:.4f}")
    print(f"average log-likelihood  {result['average_log_likelihood']:.4f}")
    for key, label in (("log_loss", "log loss"), ("roc_auc", "ROC AUC")):
        if isinstance(result.get(key), (int, float)):
            print(f"{label:<24}{result[key]:.4f}")
    if "classification_error" in result:
        print(f"classification error    {result['classification_error']:.4f}")
    print("confusion matrix (rows: true class, columns: predicted):")
    print(pd.DataFrame(result["confusion_matrix"], index=classes, columns=classes).to_string())
    if "precision" in result:
        print(pd.DataFrame({k: result[k] for k in ("precision", "recall", "f1")}, index=classes)
              .to_string(float_format=lambda v: f"{v:.4f}"))

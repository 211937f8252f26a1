"""The Gaussian route against scikit-learn's GaussianNB (issue 47): fit, predict, predict_proba, a mixed model
against its parts, and the variances of offset data for any partitioning.

Run: ``nbparallel bench gaussian [--quick]``. Every ratio is of best times measured side by side, interleaved
(:func:`.timing.best_interleaved`), on 10^6 rows x 20 float columns (2 and 20 classes). The variance errors are
relative to an exactly rounded two-pass computation (``math.fsum``: the mean, then the squared deviations, of
the values less the first), on three classes at 10^9 + k spread by 10^-3.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from nbparallel import NaiveBayes

from .report import Result, Target

N_COLUMNS = 20


def floats(n_rows, n_classes, seed=0):
    """``n_rows`` x 20 normal floats whose means move with the class, and the classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    return rng.normal(0.0, 1.0, (n_rows, N_COLUMNS)) + 0.1 * y[:, None], y


def _gaussian_nb():
    from sklearn.naive_bayes import GaussianNB

    return GaussianNB()


def speed_rows(n_rows, n_classes, repeat):
    """Fit, predict_proba and predict of ours and GaussianNB, and our binned fit, interleaved."""
    from .timing import best_interleaved

    X, y = floats(n_rows, n_classes)
    ours, peer = NaiveBayes(numeric="gaussian"), _gaussian_nb()
    binned = NaiveBayes()
    ours.fit(X, y)
    peer.fit(X, y)
    best, _ = best_interleaved({
        "fit": lambda: ours.fit(X, y), "GaussianNB fit": lambda: peer.fit(X, y),
        "binned fit": lambda: binned.fit(X, y),
        "predict_proba": lambda: ours.predict_proba(X), "GaussianNB predict_proba": lambda: peer.predict_proba(X),
        "predict": lambda: ours.predict(X), "GaussianNB predict": lambda: peer.predict(X)}, repeat)
    rows = [{"measure": f"{what} vs GaussianNB", "classes": n_classes, "rows": n_rows,
             "nbparallel_s": best[what], "reference_s": best[f"GaussianNB {what}"],
             "ratio": best[f"GaussianNB {what}"] / best[what], "target": 5.0 if what == "fit" else 3.0,
             "at_most": False} for what in ("fit", "predict_proba", "predict")]
    rows.append({"measure": "fit vs our binned fit", "classes": n_classes, "rows": n_rows,
                 "nbparallel_s": best["fit"], "reference_s": best["binned fit"],
                 "ratio": best["fit"] / best["binned fit"], "target": 2.0, "at_most": True})
    return rows


def mixed_frame(n_rows, seed=0):
    """Two classes; 6 categorical columns (5 values), 7 binned and 7 Gaussian float columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    columns = {f"c{j}": pd.Categorical.from_codes((y + rng.integers(0, 4, n_rows)) % 5, list("abcde"))
               for j in range(6)}
    columns.update({f"b{j}": rng.normal(0.2 * y, 1.0) for j in range(7)})
    columns.update({f"g{j}": rng.normal(0.2 * y, 1.0) for j in range(7)})
    return pd.DataFrame(columns), y


def mixed_rows(n_rows, repeat):
    """A model of categorical, binned and Gaussian columns against the three models of each kind alone."""
    from .timing import best_interleaved

    X, y = mixed_frame(n_rows)
    gaussian = [f"g{j}" for j in range(7)]
    parts = {"categorical": [f"c{j}" for j in range(6)], "binned": [f"b{j}" for j in range(7)],
             "gaussian": gaussian}
    models = {"mixed": (NaiveBayes(numeric={c: "gaussian" for c in gaussian}), X)}
    models.update({kind: (NaiveBayes(numeric="gaussian" if kind == "gaussian" else "binned"), X[columns])
                   for kind, columns in parts.items()})
    rows = []
    for what in ("fit", "predict_proba"):
        for model, data in models.values():
            model.fit(data, y)
        step = {name: (lambda m=m, d=d: m.fit(d, y)) if what == "fit" else (lambda m=m, d=d: m.predict_proba(d))
                for name, (m, d) in models.items()}
        best, _ = best_interleaved(step, repeat)
        parts_s = sum(best[kind] for kind in parts)
        rows.append({"measure": f"mixed {what} vs its parts", "classes": 2, "rows": n_rows,
                     "nbparallel_s": best["mixed"], "reference_s": parts_s, "ratio": best["mixed"] / parts_s,
                     "target": 1.0, "at_most": True})
    return rows


def offset_data(n_rows, seed=0):
    """Three classes at 10^9 + k, spread 10^-3, two columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    return 1e9 + y[:, None] + rng.normal(0.0, 1e-3, (n_rows, 2)), y


def exact_variances(X, y):
    """Per class and column, the variance by an exactly rounded two-pass computation on the values less the
    first (exact differences), so that the mean is not rounded to the float grid near 10^9 (which alone moves
    the variance by up to 4e-9 relative here)."""
    out = np.empty((3, X.shape[1]))
    for k in range(3):
        for j in range(X.shape[1]):
            x = X[y == k, j]
            d = x - x[0]
            mean = math.fsum(d) / len(d)
            out[k, j] = math.fsum((d - mean) ** 2) / len(d)
    return out


def variance_rows(n_rows):
    """Largest relative error of the variances for 1..7 partitions: ours, GaussianNB's partial_fit over as
    many batches, GaussianNB's fit (one batch) and numpy's var."""
    X, y = offset_data(n_rows)
    exact = exact_variances(X, y)
    rows = []

    def error(var):
        return float(np.max(np.abs(var / exact - 1.0)))

    for n_partitions in range(1, 8):
        ours = NaiveBayes(numeric="gaussian", var_smoothing=0.0, n_partitions=n_partitions).fit(X, y)
        batches = _gaussian_nb().set_params(var_smoothing=0.0)
        for rows_at in np.array_split(np.arange(n_rows), n_partitions):
            batches.partial_fit(X[rows_at], y[rows_at], classes=[0, 1, 2])
        rows += [{"measure": "variance error", "partitions": n_partitions, "method": "nbparallel",
                  "relative_error": error(ours.var_)},
                 {"measure": "variance error", "partitions": n_partitions, "method": "GaussianNB partial_fit",
                  "relative_error": error(batches.var_)}]
    one_batch = _gaussian_nb().set_params(var_smoothing=0.0).fit(X, y)
    rows += [{"measure": "variance error", "partitions": 1, "method": "GaussianNB fit",
              "relative_error": error(one_batch.var_)},
             {"measure": "variance error", "partitions": 1, "method": "numpy var",
              "relative_error": error(np.array([X[y == k].var(axis=0) for k in range(3)]))}]
    return rows


def run(ctx):
    """Every ratio of issue 47's Gaussian targets, and the variance errors."""
    n_rows, repeat = (20_000, 2) if ctx.quick else (1_000_000, 5)
    speed = speed_rows(n_rows, 2, repeat) + speed_rows(n_rows, 20, repeat) + mixed_rows(n_rows, repeat)
    variances = variance_rows(7_000 if ctx.quick else 70_000)
    rows = pd.DataFrame(speed + variances)
    targets = [Target(f"{r['measure']}, {r['classes']} classes"
                      + (" (GaussianNB time / ours)" if not r["at_most"] else " (ours / reference)"),
                      r["ratio"], r["target"], r["at_most"]) for r in speed]
    ours_error = max(r["relative_error"] for r in variances if r["method"] == "nbparallel")
    targets.append(Target("offset data: largest relative variance error, 1..7 partitions, in units of 1e-6",
                          ours_error / 1e-6, 1.0, True))
    summary = pd.DataFrame([{"kind": "speed", "measure": r["measure"], "classes": r["classes"],
                             "nbparallel_s": r["nbparallel_s"], "reference_s": r["reference_s"], "ratio": r["ratio"],
                             "target": f"{'<=' if r['at_most'] else '>='} {r['target']:g}"} for r in speed]
                           + [{"kind": "variance", "measure": f"variance error, {r['method']}",
                               "partitions": r["partitions"], "relative_error": r["relative_error"],
                               "target": "<= 1e-06" if r["method"] == "nbparallel" else None} for r in variances])
    return Result("gaussian", rows, summary, _plot,
                  {"rows": n_rows, "columns": N_COLUMNS, "repeat": repeat, "threads": ctx.max_workers(),
                   "offset_rows": 7_000 if ctx.quick else 70_000}, targets=targets)


def _plot(rows):
    figure, (speed, errors) = plt.subplots(1, 2, figsize=(12, 4.5))
    timed = rows[rows["measure"] != "variance error"]
    labels = [f"{m}\n{int(k)} classes" for m, k in zip(timed["measure"], timed["classes"])]
    colours = ["#4c72b0" if ok else "#c44e52" for ok in np.where(timed["at_most"].astype(bool),
                                                                     timed["ratio"] <= timed["target"],
                                                                     timed["ratio"] >= timed["target"])]
    speed.barh(labels, timed["ratio"], color=colours)
    speed.scatter(timed["target"], labels, marker="|", s=300, color="black", label="target")
    speed.set(xscale="log", xlabel="ratio (speed-up against GaussianNB; ours / reference where at most)",
              title="Gaussian route: ratios and targets")
    speed.tick_params(axis="y", labelsize=6)
    speed.legend()
    variances = rows[rows["measure"] == "variance error"]
    for (method, group), marker in zip(variances.groupby("method", sort=False), "osx+"):  # one batch: two alike
        errors.plot(group["partitions"], group["relative_error"].clip(lower=1e-17), f"{marker}-", label=method,
                    markersize=9 if marker == "s" else 6, fillstyle="none" if marker == "s" else "full")
    errors.axhline(1e-6, color="black", linestyle=":", label="target 1e-6")
    errors.set(yscale="log", xlabel="partitions (batches)", ylabel="largest relative error of var",
               title="Offset data 10^9 + N(0, 10^-3): variance error")
    errors.legend(fontsize=7)
    figure.tight_layout()
    return figure

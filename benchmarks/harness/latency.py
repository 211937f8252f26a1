"""Small data against scikit-learn (issue 47): predict and predict_proba of 1 and 100 rows, fit of 100 rows and a
GridSearchCV on iris, each as a ratio of our time to scikit-learn's.

Run: ``nbparallel bench latency [--quick]``. Every ratio is of best times measured side by side, interleaved
(:func:`.timing.best_interleaved`). The peers: ``CategoricalNB`` for a categorical model (integer codes) and for a
binned one (floats; ``CategoricalNB`` given the codes of the same equal-width bins), ``GaussianNB`` for a
Gaussian one. The models are fitted on 1,000 rows x 10 columns, 2 classes.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from nbparallel import NaiveBayes

from .report import Result, Target

N_COLUMNS = 10
N_TRAIN = 1_000
#: scoring of 1 and 100 rows: at most a third of the peer's time; fit of 100 rows at most half; the search equal
SCORE_TARGET, FIT_TARGET, SEARCH_TARGET = 1 / 3, 0.5, 1.0


def kinds(seed=0):
    """Kind -> (our model, peer, X, y, X for the peer): categorical codes, binned floats, Gaussian floats."""
    from sklearn.naive_bayes import CategoricalNB, GaussianNB

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N_TRAIN)
    codes = (rng.integers(0, 4, (N_TRAIN, N_COLUMNS)) + y[:, None]) % 5
    floats = codes + rng.random(codes.shape)
    return {"categorical": (NaiveBayes(categorical_features="all"), CategoricalNB(), codes, y, codes),
            "binned": (NaiveBayes(n_bins=5), CategoricalNB(), floats, y, np.floor(floats).astype(np.int64)),
            "gaussian": (NaiveBayes(numeric="gaussian"), GaussianNB(), floats, y, floats)}


def scoring_rows(repeat):
    """Predict and predict_proba of 1 and 100 rows, ours against the peer's, per model kind."""
    from .timing import best_interleaved

    rows = []
    for kind, (ours, peer, X, y, X_peer) in kinds().items():
        ours.fit(X, y)
        peer.fit(X_peer, y)
        for n in (1, 100):
            step = {}
            for what in ("predict", "predict_proba"):
                step[f"ours {what}"] = (lambda m=getattr(ours, what), x=X[:n]: m(x))
                step[f"peer {what}"] = (lambda m=getattr(peer, what), x=X_peer[:n]: m(x))
            best, _ = best_interleaved(step, repeat)
            rows += [{"measure": f"{what} of {n} rows", "kind": kind, "peer": type(peer).__name__,
                      "nbparallel_s": best[f"ours {what}"], "peer_s": best[f"peer {what}"],
                      "ratio": best[f"ours {what}"] / best[f"peer {what}"], "target": SCORE_TARGET}
                     for what in ("predict", "predict_proba")]
    return rows


def fit_rows(repeat, search_repeat):
    """Fit of 100 categorical rows against CategoricalNB's (best of ``repeat``), and GridSearchCV over alpha on
    iris (best of ``search_repeat``)."""
    from sklearn.datasets import load_iris
    from sklearn.model_selection import GridSearchCV
    from sklearn.naive_bayes import CategoricalNB

    from .timing import best_interleaved

    ours, peer, X, y, _ = kinds()["categorical"]
    X_iris, y_iris = load_iris(return_X_y=True)
    codes_iris = np.floor(X_iris).astype(np.int64)  # whole centimetres: categories for both
    grid = {"alpha": list(np.linspace(0.1, 1.0, 10))}
    best, _ = best_interleaved({"ours fit": lambda: ours.fit(X[:100], y[:100]),
                                "peer fit": lambda: peer.fit(X[:100], y[:100])}, repeat)
    searches, _ = best_interleaved({
        "ours search": lambda: GridSearchCV(NaiveBayes(categorical_features="all"), grid, cv=5).fit(codes_iris, y_iris),
        "peer search": lambda: GridSearchCV(CategoricalNB(min_categories=8), grid, cv=5).fit(codes_iris, y_iris)},
        search_repeat)
    best.update(searches)
    return [{"measure": "fit of 100 rows", "kind": "categorical", "peer": "CategoricalNB",
             "nbparallel_s": best["ours fit"], "peer_s": best["peer fit"],
             "ratio": best["ours fit"] / best["peer fit"], "target": FIT_TARGET},
            {"measure": "GridSearchCV, 10 alphas x 5 folds, iris", "kind": "categorical", "peer": "CategoricalNB",
             "nbparallel_s": best["ours search"], "peer_s": best["peer search"],
             "ratio": best["ours search"] / best["peer search"], "target": SEARCH_TARGET}]


def run(ctx):
    """Every small-data ratio of issue 47 beside its target."""
    repeat, search_repeat = (3, 1) if ctx.quick else (50, 5)
    rows = pd.DataFrame(scoring_rows(repeat) + fit_rows(repeat, search_repeat))
    targets = [Target(f"{r.kind} {r.measure} (ours / {r.peer})", r.ratio, r.target, True) for r in rows.itertuples()]
    summary = rows.assign(target=[f"<= {t:.3g}" for t in rows["target"]])
    return Result("latency", rows, summary, _plot,
                  {"train_rows": N_TRAIN, "columns": N_COLUMNS, "classes": 2, "repeat": repeat,
                   "search_repeat": search_repeat}, targets=targets)


def _plot(rows):
    figure, axis = plt.subplots(figsize=(9, 5))
    labels = [f"{k}: {m}" for k, m in zip(rows["kind"], rows["measure"])]
    colours = ["#4c72b0" if ok else "#c44e52" for ok in rows["ratio"] <= rows["target"]]
    axis.barh(labels, rows["ratio"], color=colours)
    axis.scatter(rows["target"], labels, marker="|", s=300, color="black", label="target")
    axis.set(xscale="log", xlabel="our time / scikit-learn's", title="Small data: ratios and targets")
    axis.tick_params(axis="y", labelsize=7)
    axis.legend()
    figure.tight_layout()
    return figure

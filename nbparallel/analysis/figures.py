"""The paper's four learning-curve figures, theory as lines and experiment as points with 95% intervals.

The paper's text names the figures' domains (all with P(A) = 1/2); the
values it leaves unnamed (which i in 1(a), which r in 1(b), which z in 2(b),
the range of n) are chosen here and listed in :data:`FIGURES`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from nbparallel.analysis.experiment import Domain, learning_curves


@dataclass(frozen=True)
class Figure:
    """One of the paper's figures: a title and one labelled domain per curve."""

    title: str
    curves: tuple  # of (label, Domain)
    n_max: int = 30


FIGURES = {
    "1a": Figure("Fig. 1(a): '2 of 2' concept, varying irrelevant attributes i",
                 tuple((f"i = {i}", Domain(2, 2, i)) for i in (0, 1, 2, 4, 8))),
    "1b": Figure("Fig. 1(b): 'r of r' conjunctions, one irrelevant attribute",
                 tuple((f"{r} of {r}", Domain(r, r, 1)) for r in (1, 2, 3, 5))),
    "2a": Figure("Fig. 2(a): 'q of 5' concepts, one irrelevant attribute",
                 tuple((f"{q} of 5", Domain(5, q, 1)) for q in (3, 4, 5))),
    "2b": Figure("Fig. 2(b): '3 of 3' concept, one irrelevant, class noise z (noise-free test)",
                 tuple((f"z = {z}", Domain(3, 3, 1, noise=z)) for z in (0.0, 0.1, 0.2, 0.3))),
}


COLUMNS = ["figure", "curve", "r", "q", "i", "p", "noise", "n", "theory", "mean", "ci_low", "ci_high", "sd",
           "runs", "theory_inside_ci", "tie_fraction", "degenerate_fraction"]


def figure_table(name, runs=1000, seed=0, verbose=False):
    """Run figure ``name``'s experiment; one row per curve and n (the CSV behind the PNG)."""
    if name not in FIGURES:
        raise ValueError(f"figure must be one of {sorted(FIGURES)}, got {name!r}")
    figure = FIGURES[name]
    curves = learning_curves([d for _, d in figure.curves], figure.n_max, runs, seed, verbose=verbose)
    frames = []
    for (label, domain), c in zip(figure.curves, curves):
        frame = pd.DataFrame({k: c[k] for k in ("n", "theory", "mean", "ci_low", "ci_high", "sd",
                                                "tie_fraction", "degenerate_fraction")})
        frame["theory_inside_ci"] = (frame["theory"] >= frame["ci_low"]) & (frame["theory"] <= frame["ci_high"])
        frame = frame.assign(figure=name, curve=label, r=domain.r, q=domain.q, i=domain.i, p=domain.p,
                             noise=domain.noise, runs=runs)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def plot_figure(table, path):
    """Theory as lines, experiment as points with 95% intervals; written atomically to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    name = table["figure"].iloc[0]
    fig, ax = plt.subplots(figsize=(7, 5))
    for color, (label, curve) in zip(plt.rcParams["axes.prop_cycle"].by_key()["color"],
                                     table.groupby("curve", sort=False)):
        ax.plot(curve["n"], curve["theory"], "-", color=color, label=f"{label} (theory)")
        ax.errorbar(curve["n"], curve["mean"], yerr=[curve["mean"] - curve["ci_low"], curve["ci_high"] - curve["mean"]],
                    fmt="o", ms=3, capsize=2, color=color, label=f"{label} (experiment)")
    ax.set_xlabel("number of training instances n")
    ax.set_ylabel("accuracy (noise-free test distribution)")
    runs = int(table["runs"].iloc[0])
    ax.set_title(f"{FIGURES[name].title}\nlines: A(n); points: naive Bayes, mean of R = {runs} runs, 95% CI",
                 fontsize=9)
    ax.set_ylim(0.45, 1.0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="lower right")
    fig.tight_layout()
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)


def write_figure(name, out, runs=1000, seed=0, verbose=False):
    """Run figure ``name`` and write ``langley_fig{name}.csv`` and ``.png`` into ``out``.

    Returns
    -------
    dict with the paths, the experiment's wall seconds and, per curve, how many
    of its points have the theory inside the 95% interval.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    table = figure_table(name, runs, seed, verbose)
    seconds = time.perf_counter() - start
    csv_path, png_path = out / f"langley_fig{name}.csv", out / f"langley_fig{name}.png"
    tmp = csv_path.with_name(f".{csv_path.name}.tmp")
    table.to_csv(tmp, index=False)
    tmp.replace(csv_path)
    plot_figure(table, png_path)
    inside = table.groupby("curve", sort=False)["theory_inside_ci"].agg(["sum", "size"])
    return {"csv": csv_path, "png": png_path, "seconds": seconds,
            "inside": {label: (int(row["sum"]), int(row["size"])) for label, row in inside.iterrows()}}


def main(figures, out, runs=1000, seed=0, verbose=False):
    """The ``nbparallel langley`` command: run and write each named figure.

    Returns
    -------
    list of str
        The summary lines to print: where each figure went, and per curve
        how many points have the theory inside the experiment's 95% interval.
    """
    names = sorted(FIGURES) if figures == ["all"] or figures == "all" else list(figures)
    lines = []
    for name in names:
        result = write_figure(name, out, runs, seed, verbose)
        lines.append(f"figure {name}: R = {runs}, seed {seed}, experiment {result['seconds']:.2f} s -> "
                     f"{result['png']}, {result['csv']}")
        for label, (inside, total) in result["inside"].items():
            lines.append(f"  {label:>8}: theory inside the 95% CI at {inside}/{total} points")
    return lines

"""One prediction's evidence as a waterfall: from the priors' log ratio through each attribute's term of
``model.explain`` to the row's log-odds."""

from __future__ import annotations

import numpy as np

from nbparallel.report.html import short_label


def plot_explanation(model, row, for_class=None, against=None, max_attributes=20):
    """A waterfall of one prediction's evidence (a row of ``model.explain``): from the priors' log ratio,
    each attribute's term (largest first, the rest summed), to the log-odds of ``for_class`` (default:
    the predicted class) against ``against`` (default: the runner-up).

    ``row`` is one row in any form ``predict`` takes (a one-row DataFrame, a 2-D array of one row).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    evidence = model.explain(row, for_class=for_class, against=against)
    if len(evidence) != 1:
        raise ValueError(f"plot_explanation draws one row; got {len(evidence)}")
    terms = evidence.iloc[0]
    prior = float(terms.pop("(prior)"))
    terms = terms[terms.abs().sort_values(ascending=False).index]
    shown, rest = terms.iloc[:max_attributes], terms.iloc[max_attributes:]
    names = ["(prior)", *map(str, shown.index)] + ([f"{len(rest)} others"] if len(rest) else [])
    values = [prior, *shown.to_numpy()] + ([float(rest.sum())] if len(rest) else [])
    starts = np.concatenate([[0.0], np.cumsum(values)[:-1]])
    fig = Figure(figsize=(7, 1.2 + 0.3 * len(values)))
    ax = fig.add_subplot()
    y = -np.arange(len(values))
    ax.barh(y, values, left=starts, color=["0.6" if n == "(prior)" else "C2" if v > 0 else "C3"
                                          for n, v in zip(names, values)])
    ax.set_yticks(y, [short_label(n, 24) for n in names], fontsize=8)
    total = float(np.sum(values))
    ax.axvline(total, color="k", lw=0.8, ls="--")
    ax.axvline(0, color="0.5", lw=0.5)
    ends = np.concatenate([starts, starts + values, [0.0]])
    margin = 0.05 * (ends.max() - ends.min() or 1.0)
    ax.set_xlim(ends.min() - margin, ends.max() + margin)
    ax.set_xlabel(f"log-odds (nats); total {total:+.3f}", fontsize=8)
    ax.set_title("evidence of one prediction", fontsize=9)
    fig.tight_layout()
    return fig

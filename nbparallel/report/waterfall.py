"""One prediction's evidence as a waterfall: from the priors' log ratio through each attribute's term of
``model.explain`` to the row's log-odds; drawn alone (:func:`plot_explanation`), or beside the model's
evidence panels in its report (:func:`explained_row` gives what the report draws)."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from nbparallel.models.explanation import CLASS, LOG_ODDS, PRIOR, VERSUS
from nbparallel.report.html import html_table, png_base64, short_label


def explained_row(model, X, row=0, for_class=None, against=None):
    """What a report draws of one prediction: row ``row`` (a position) of ``X`` (any input ``predict``
    takes, read in one pass by ``explain``).

    Returns
    -------
    dict
        ``row`` (the position), ``label`` (a DataFrame's index label, else the position), ``evidence``
        (the row's cells of ``model.explain``: a Series of the attributes' terms and ``(prior)``), ``for_class``
        and ``against`` (the two classes' labels) and ``log_odds`` (their log-posterior difference).
    """
    if not hasattr(model, "explain") or not hasattr(model, "counted_attribute_names"):
        raise TypeError(f"a prediction's evidence is drawn for NaiveBayes models; got {type(model).__name__}")
    evidence = model.explain(X, for_class=for_class, against=against)
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < len(evidence):
        raise ValueError(f"row must be a position in 0..{len(evidence) - 1}, got {row!r}")
    chosen = evidence.iloc[int(row)]
    return {"row": int(row), "label": evidence.index[int(row)], "evidence": evidence_cells(chosen),
            "for_class": chosen[CLASS], "against": chosen[VERSUS], "log_odds": float(chosen[LOG_ODDS])}


def evidence_cells(row):
    """One row of ``model.explain`` without its class and log-odds columns: the attributes' terms and
    ``(prior)``, as floats."""
    return row.drop([CLASS, VERSUS, LOG_ODDS]).astype(np.float64)


def waterfall_bars(evidence, max_attributes=20):
    """``(names, values)`` of a waterfall of one explain row (a Series): ``(prior)`` first, then the
    attributes by absolute term, largest first, the rest summed into ``"N others"``."""
    terms = pd.Series(evidence, dtype=np.float64)
    prior = float(terms.pop(PRIOR))
    terms = terms[terms.abs().sort_values(ascending=False, kind="stable").index]
    shown, rest = terms.iloc[:max_attributes], terms.iloc[max_attributes:]
    names = [PRIOR, *map(str, shown.index)] + ([f"{len(rest)} others"] if len(rest) else [])
    values = [prior, *shown.to_numpy()] + ([float(rest.sum())] if len(rest) else [])
    return names, np.asarray(values, dtype=np.float64)


def draw_waterfall(ax, evidence, max_attributes=20, title="evidence of one prediction"):
    """Draw one explain row (a Series) on ``ax``: bars from the priors' log ratio through each attribute's
    term (green for, red against) to the total, a dashed line."""
    names, values = waterfall_bars(evidence, max_attributes)
    starts = np.concatenate([[0.0], np.cumsum(values)[:-1]])
    y = -np.arange(len(values))
    ax.barh(y, values, left=starts, color=["0.6" if n == PRIOR else "C2" if v > 0 else "C3"
                                          for n, v in zip(names, values)])
    ax.set_yticks(y, [short_label(n, 24) for n in names], fontsize=8)
    total = float(values.sum())
    ax.axvline(total, color="k", lw=0.8, ls="--")
    ax.axvline(0, color="0.5", lw=0.5)
    ends = np.concatenate([starts, starts + values, [0.0]])
    margin = 0.05 * (ends.max() - ends.min() or 1.0)
    ax.set_xlim(ends.min() - margin, ends.max() + margin)
    ax.set_xlabel(f"log-odds (nats); total {total:+.3f}", fontsize=8)
    ax.set_title(title, fontsize=9)
    return total


def explanation_title(explained):
    """The title of an :func:`explained_row`: which row, which classes."""
    return (f"row {explained['label']}: {short_label(str(explained['for_class']), 16)} against "
            f"{short_label(str(explained['against']), 16)}")


def plot_explanation(model, row, for_class=None, against=None, max_attributes=20):
    """A waterfall of one prediction's evidence (a row of ``model.explain``): from the priors' log ratio,
    each attribute's term (largest first, the rest summed), to the log-odds of ``for_class`` (default:
    the predicted class) against ``against`` (default: the runner-up).

    Parameters
    ----------
    model : fitted NaiveBayes or SelectedNaiveBayes
    row : DataFrame or array of one row
        One row in any form ``predict`` takes.
    for_class, against : label, optional
        The classes weighed, as ``model.explain`` takes them.
    max_attributes : int, default 20
        Bars drawn; the other attributes' terms are summed into one.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    evidence = model.explain(row, for_class=for_class, against=against)
    if len(evidence) != 1:
        raise ValueError(f"plot_explanation draws one row; got {len(evidence)}")
    cells = evidence_cells(evidence.iloc[0])
    n_bars = len(waterfall_bars(cells, max_attributes)[0])
    fig = Figure(figsize=(7, 1.2 + 0.3 * n_bars))
    draw_waterfall(fig.add_subplot(), cells, max_attributes)
    fig.tight_layout()
    return fig


def explanation_html(explained, max_attributes=20):
    """An HTML section of an :func:`explained_row`: its waterfall and every term, largest first."""
    from matplotlib.figure import Figure

    n_bars = len(waterfall_bars(explained["evidence"], max_attributes)[0])
    fig = Figure(figsize=(7, 1.2 + 0.3 * n_bars))
    draw_waterfall(fig.add_subplot(), explained["evidence"], max_attributes, explanation_title(explained))
    fig.tight_layout()
    names, values = waterfall_bars(explained["evidence"], max_attributes=len(explained["evidence"]))
    esc = html.escape
    return (f"<h2 id='explanation'>Evidence of one prediction: {esc(explanation_title(explained))}</h2>"
            f"<p>log P({esc(str(explained['for_class']))} | x) - log P({esc(str(explained['against']))} | x) = "
            f"<span id='log-odds'>{explained['log_odds']:+.6f}</span>, the sum of the terms below.</p>"
            f"<img alt='evidence of one prediction' src='data:image/png;base64,{png_base64(fig)}'>"
            + html_table(["term", "evidence (nats)"], [(n, f"{v:+.6f}") for n, v in zip(names, values)]))

"""Nomograms (Mozina, Demsar, Kattan and Zupan, PKDD 2004): one axis per attribute with each value's log-odds
ratio for a class against the rest, attributes ordered by how far they can move the log-odds, the total
mapped to a probability scale; as numbers (:func:`nomogram_data`), an interactive self-contained HTML page
(:func:`nomogram_html`) and a figure (:func:`plot_nomogram`)."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
from scipy.special import logsumexp

from nbparallel.models.estimator import check_is_fitted
from nbparallel.models.explanation import class_index
from nbparallel.report.html import short_label
from nbparallel.report.sections import report_sections


def nomogram_data(model, for_class=None):
    """The numbers of a nomogram of ``model`` for class ``for_class`` (default: the last class) against the
    rest: per attribute its values' log P(v | k) for every class (Gaussian: means and variances), each
    value's log-odds ratio ``log P(v | c) - log P(v | not c)`` and the attribute's range of them; attributes
    ordered by how far they can move the log-odds. A missing value adds nothing."""
    model = report_sections(model)["model"]
    check_is_fitted(model, "counts_")
    classes = [str(c) for c in model.classes_]
    c = len(classes) - 1 if for_class is None else class_index(model, for_class, "for_class")
    prior = np.exp(model.class_log_prior_)
    rest = np.delete(np.arange(len(classes)), c)
    attributes = []
    gaussian = set(getattr(model, "gaussian_features_", []))
    for name, table in model.log_probabilities_.items():
        if name in gaussian:
            theta, var = table.loc["theta"].to_numpy(float), table.loc["var"].to_numpy(float)
            attributes.append({"name": str(name), "kind": "gaussian", "theta": theta.tolist(),
                               "var": [None if np.isnan(v) else float(v) for v in var],
                               "spread": float(np.nan_to_num(np.ptp(theta / np.sqrt(var))))})
            continue
        logp = table.to_numpy(float)
        if not len(logp):
            continue
        other = logsumexp(logp[:, rest], axis=1, b=prior[rest][None, :] / prior[rest].sum())
        ratio = logp[:, c] - other
        attributes.append({"name": str(name), "kind": "values", "values": [str(v) for v in table.index],
                           "logp": logp.tolist(), "ratio": ratio.tolist(), "spread": float(np.ptp(ratio))})
    attributes.sort(key=lambda a: -a["spread"])
    return {"classes": classes, "for_class": classes[c], "class_index": int(c),
            "log_prior": model.class_log_prior_.tolist(), "attributes": attributes}


_NOMOGRAM_SCRIPT = """
const M = JSON.parse(document.getElementById('model').textContent);
function posterior() {
  const s = M.log_prior.slice();
  M.attributes.forEach((a, j) => {
    const el = document.getElementById('attr-' + j);
    if (a.kind === 'values') {
      if (el.value === '') return;
      const row = a.logp[Number(el.value)];
      for (let k = 0; k < s.length; k++) s[k] += row[k];
    } else {
      if (el.value.trim() === '') return;
      const x = Number(el.value);
      for (let k = 0; k < s.length; k++) {
        const v = a.var[k];
        if (v === null) continue;
        s[k] += -0.5 * Math.log(2 * Math.PI * v) - 0.5 * (x - a.theta[k]) ** 2 / v;
      }
    }
  });
  const top = Math.max(...s);
  let total = 0;
  for (const v of s) total += Math.exp(v - top);
  const p = Math.exp(s[M.class_index] - top) / total;
  document.getElementById('posterior').textContent = p.toFixed(12);
  document.getElementById('bar').style.width = (100 * p).toFixed(2) + '%';
}
function declutter() {
  // on each axis, hide a value's label that would overlap the label left of it (its title keeps the value)
  document.querySelectorAll('.line').forEach(line => {
    const ticks = Array.from(line.querySelectorAll('.tick'));
    ticks.forEach(t => { t.style.visibility = 'visible'; });
    ticks.sort((a, b) => a.getBoundingClientRect().left - b.getBoundingClientRect().left);
    let right = -Infinity;
    for (const t of ticks) {
      const box = t.getBoundingClientRect();
      if (box.left < right + 2) { t.style.visibility = 'hidden'; } else { right = box.right; }
    }
  });
}
document.querySelectorAll('select, input').forEach(el => el.addEventListener('input', posterior));
document.querySelectorAll('select').forEach(el => el.addEventListener('change', posterior));
window.addEventListener('resize', declutter);
declutter();
posterior();
"""

_NOMOGRAM_STYLE = """
body { font: 14px sans-serif; margin: 1.5em; max-width: 60em; }
.axis { display: grid; grid-template-columns: 14em 1fr 12em; align-items: center; margin: .3em 0; }
.line { position: relative; height: 2.2em; border-bottom: 1px solid #888; }
.tick { position: absolute; bottom: 0; font-size: 10px; transform: translateX(-50%); white-space: nowrap; }
.scale { height: 1em; background: #ddd; margin-top: 1em; } #bar { height: 1em; background: #3a7; }
"""


def nomogram_html(model, for_class=None):
    """A self-contained interactive HTML nomogram (inline script and style, no network): one axis per
    attribute with each value at its log-odds ratio for ``for_class`` against the rest, a control per
    attribute (a select box of values or bins, a number for a Gaussian attribute) and the posterior
    P(for_class | chosen values), shown in the element ``#posterior``."""
    import json

    data = nomogram_data(model, for_class)
    ratios = [r for a in data["attributes"] if a["kind"] == "values" for r in a["ratio"] if np.isfinite(r)]
    lo, hi = (min(ratios), max(ratios)) if ratios else (-1.0, 1.0)
    span = hi - lo or 1.0
    rows = []
    for j, a in enumerate(data["attributes"]):
        name = html.escape(a["name"])
        if a["kind"] == "values":
            ticks = "".join(f'<span class="tick" style="left:{100 * (r - lo) / span:.1f}%" title="{r:+.3f}">'
                            f'{html.escape(v)}</span>' for v, r in zip(a["values"], a["ratio"]) if np.isfinite(r))
            options = '<option value="">(missing)</option>' + "".join(
                f'<option value="{i}">{html.escape(v)}</option>' for i, v in enumerate(a["values"]))
            control = f'<select id="attr-{j}" name="{name}">{options}</select>'
        else:
            ticks = ""
            control = f'<input id="attr-{j}" name="{name}" type="number" step="any" placeholder="(missing)">'
        rows.append(f'<div class="axis"><b>{name}</b><div class="line">{ticks}</div>{control}</div>')
    payload = json.dumps(data).replace("</", "<\\/")
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Nomogram: {html.escape(data["for_class"])}'
            f'</title><style>{_NOMOGRAM_STYLE}</style></head><body>'
            f'<h1>Nomogram of class {html.escape(data["for_class"])} against the rest</h1>'
            f'<p>Each value sits at its log-odds ratio (from {lo:+.2f} to {hi:+.2f}); pick values to read '
            f'P({html.escape(data["for_class"])} | x).</p>{"".join(rows)}'
            f'<p>P({html.escape(data["for_class"])} | x) = <output id="posterior"></output></p>'
            f'<div class="scale"><div id="bar"></div></div>'
            f'<script type="application/json" id="model">{payload}</script>'
            f'<script>{_NOMOGRAM_SCRIPT}</script></body></html>\n')


def write_nomogram(model, path, for_class=None):
    """Write the nomogram of ``model`` for ``for_class`` to ``path`` (.html), whole or not at all."""
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"nomogram path must end in .html, got {str(path)!r}")
    text = nomogram_html(model, for_class)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def _gaussian_ratios(attribute, c, prior, n_points=5):
    """``(x values, log-odds ratios)`` of a Gaussian attribute of :func:`nomogram_data` for class ``c``
    against the rest, at ``n_points`` values across its classes' means +- 2 standard deviations."""
    theta = np.asarray(attribute["theta"], float)
    var = np.array([np.nan if v is None else v for v in attribute["var"]], float)
    sd = np.sqrt(np.nan_to_num(var, nan=1.0))
    x = np.linspace(np.min(theta - 2 * sd), np.max(theta + 2 * sd), n_points)
    logn = -0.5 * np.log(2 * np.pi * sd ** 2)[None, :] - 0.5 * (x[:, None] - theta[None, :]) ** 2 / sd[None, :] ** 2
    rest = np.delete(np.arange(len(theta)), c)
    other = logsumexp(logn[:, rest], axis=1, b=prior[rest][None, :] / prior[rest].sum())
    return x, logn[:, c] - other


def plot_nomogram(model, for_class=None, max_attributes=50):
    """A nomogram (Mozina et al., 2004) of ``model`` for ``for_class`` against the rest: one axis per
    attribute (the ``max_attributes`` that can move the log-odds most, largest first) with each value at
    its log-odds ratio, and a scale that maps the sum of the chosen values' ratios to the probability
    of ``for_class`` (exact for two classes; for more, the rest taken as one class). A value's label that
    would overlap the one left of it is left out (its tick stays), so that 2 to 50 attributes and classes
    stay legible.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    data = nomogram_data(model, for_class)
    c, prior = data["class_index"], np.exp(np.asarray(data["log_prior"]))
    attributes = data["attributes"][:max_attributes]
    axes_points = []
    for a in attributes:
        if a["kind"] == "values":
            axes_points.append((a["values"], np.asarray(a["ratio"])))
        else:
            x, ratio = _gaussian_ratios(a, c, prior)
            axes_points.append(([f"{v:.3g}" for v in x], ratio))
    fig = Figure(figsize=(9, 1.2 + 0.42 * (len(attributes) + 2)))
    ax = fig.add_subplot()
    labels_by_axis = []
    for i, (a, (labels, ratio)) in enumerate(zip(attributes, axes_points)):
        y = -i
        ax.hlines(y, ratio.min(), ratio.max(), color="0.4", lw=1)
        ax.plot(ratio, np.full(len(ratio), y), "|", color="C0", ms=8)
        labels_by_axis.append([ax.annotate(short_label(str(label), 12), (r, y), xytext=(0, 4),
                                           textcoords="offset points", ha="center",
                                           fontsize=6 if len(labels) > 8 else 7)
                               for label, r in zip(labels, ratio)])
    ax.set_yticks([-i for i in range(len(attributes))], [short_label(a["name"], 24) for a in attributes], fontsize=8)
    prior_odds = np.log(prior[c] / prior[np.arange(len(prior)) != c].sum())
    lo = sum(r.min() for _, r in axes_points) if axes_points else -1.0
    hi = sum(r.max() for _, r in axes_points) if axes_points else 1.0
    probabilities = np.array([0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99])
    totals = np.log(probabilities / (1 - probabilities)) - prior_odds
    scale = ax.secondary_xaxis("top")
    scale.set_xlabel(f"log-odds ratio of {data['for_class']} against the rest (per value)", fontsize=8)
    inside = (totals >= lo) & (totals <= hi)
    ax.set_xticks(np.interp(totals[inside], [lo, hi], ax.get_xlim()) if inside.any() else [],
                  [f"{p:g}" for p in probabilities[inside]], fontsize=7)
    ax.set_xlabel(f"P({data['for_class']} | x) at the sum of the chosen values' ratios (from {lo:+.2f} to "
                  f"{hi:+.2f})", fontsize=8)
    ax.grid(axis="x", alpha=0.2)
    fig.tight_layout()
    _hide_overlapping(fig, labels_by_axis)
    return fig


def _hide_overlapping(fig, labels_by_axis):
    """Hide each axis' value labels that would overlap a label left of them (their ticks stay), so that
    close values stay legible; measured with the figure's renderer (Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    for texts in labels_by_axis:
        shown = None
        for text in sorted(texts, key=lambda t: t.get_window_extent(renderer).x0):
            box = text.get_window_extent(renderer)
            if shown is not None and box.x0 < shown.x1 + 2:
                text.set_visible(False)
                continue
            shown = box

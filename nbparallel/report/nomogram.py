"""Nomograms (Mozina, Demsar, Kattan and Zupan, PKDD 2004): one axis per attribute with each value's log-odds
ratio for a class against the rest, attributes ordered by how far they can move the log-odds, the total
mapped to a probability scale; as numbers (:func:`nomogram_data`), an interactive self-contained HTML page
(:func:`nomogram_html`) and a figure (:func:`plot_nomogram`)."""

from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np
from scipy.special import logsumexp

from nbparallel.models.estimator import check_is_fitted
from nbparallel.models.explanation import class_index
from nbparallel.report.html import short_label
from nbparallel.report.sections import report_sections, value_labels


def nomogram_data(model, for_class=None):
    """The numbers of a nomogram of ``model`` for class ``for_class`` (default: the last class) against the
    rest: per attribute its values' log P(v | k) for every class (Gaussian: means and variances), each
    value's log-odds ratio ``log P(v | c) - log P(v | not c)`` and the attribute's range of them; attributes
    ordered by how far they can move the log-odds. A counted attribute's values are labelled as the report
    labels them (categories; bins "<= hi", "(lo, hi]", "> lo") with their training cases per class in
    ``counts``. A missing value adds nothing."""
    model = report_sections(model)["model"]
    check_is_fitted(model, "counts_")
    counted = {at.name: (at, fit) for at, fit in zip(model.schema_.counted().attributes, model.counted_fits_)}
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
        at, fit = counted[name]
        attributes.append({"name": str(name), "kind": "values", "values": value_labels(at, fit),
                           "counts": fit.counts.tolist(), "logp": logp.tolist(),
                           "ratio": ratio.tolist(), "spread": float(np.ptp(ratio))})
    attributes.sort(key=lambda a: -a["spread"])
    return {"classes": classes, "for_class": classes[c], "class_index": int(c),
            "log_prior": model.class_log_prior_.tolist(), "attributes": attributes}


MIN_SUPPORT = 5
"""A value with fewer training cases than this, or none of the class or none of the rest (its log-odds ratio
is then the smoothing's), does not stretch the HTML nomogram's axis: beyond it, it is drawn at its end and
marked with an arrow."""

_NOMOGRAM_SCRIPT = """
const M = JSON.parse(document.getElementById('model').textContent);
const SPAN = M.axis.hi - M.axis.lo;
function place(r) { return (Math.min(Math.max(r, M.axis.lo), M.axis.hi) - M.axis.lo) / SPAN; }
function logsumexp(v) {
  const top = Math.max(...v);
  if (top === -Infinity) return top;
  let total = 0;
  for (const x of v) total += Math.exp(x - top);
  return top + Math.log(total);
}
function gaussianTerms(a, x) {
  // log N(x | theta_k, var_k) per class; a class with no variance adds nothing
  return a.theta.map((t, k) => a.var[k] === null ? 0
    : -0.5 * Math.log(2 * Math.PI * a.var[k]) - 0.5 * (x - t) ** 2 / a.var[k]);
}
function ratioOf(terms) {
  // log P(x | c) - log P(x | not c), the rest weighted by their priors
  const rest = [], priors = [];
  M.log_prior.forEach((p, k) => { if (k !== M.class_index) { rest.push(p + terms[k]); priors.push(p); } });
  return terms[M.class_index] - (logsumexp(rest) - logsumexp(priors));
}
function signed(x) { const r = Math.round(x); return (r > 0 ? '+' : r < 0 ? '-' : '') + Math.abs(r); }
function probability(p) { return p < 0.001 ? '< 0.001' : p > 0.999 ? '> 0.999' : p.toFixed(3); }
function layout() {
  // each label centred on its value inside its line; a label that would overlap one already shown is hidden
  // (its tick and title stay), the chosen value's label first
  document.querySelectorAll('.line').forEach(line => {
    const width = line.clientWidth;
    const boxes = [...line.querySelectorAll('.value')].filter(v => !v.hidden).map(v => {
      v.style.visibility = 'visible';
      const w = v.offsetWidth;
      const left = Math.min(Math.max(Number(v.dataset.x) * width - w / 2, 0), Math.max(width - w, 0));
      v.style.left = left + 'px';
      return { v: v, left: left, right: left + w, picked: v.classList.contains('picked') };
    });
    boxes.sort((a, b) => (b.picked - a.picked) || (a.left - b.left));
    const shown = [];
    for (const b of boxes) {
      if (shown.some(o => b.left < o.right + 3 && o.left < b.right + 3)) b.v.style.visibility = 'hidden';
      else shown.push(b);
    }
  });
}
function update() {
  const s = M.log_prior.slice();
  let total = 0;
  M.attributes.forEach((a, j) => {
    const el = document.getElementById('attr-' + j), line = document.getElementById('line-' + j);
    let ratio = null;
    if (a.kind === 'values') {
      if (el.value !== '') {
        const row = a.logp[Number(el.value)];
        for (let k = 0; k < s.length; k++) s[k] += row[k];
        ratio = a.ratio[Number(el.value)];
      }
      line.querySelectorAll('.value').forEach(v => v.classList.toggle('picked', v.dataset.i === el.value));
    } else {
      const typed = line.querySelector('.typed');
      typed.hidden = el.value.trim() === '' || !Number.isFinite(Number(el.value));
      if (!typed.hidden) {
        const terms = gaussianTerms(a, Number(el.value));
        for (let k = 0; k < s.length; k++) s[k] += terms[k];
        ratio = ratioOf(terms);
        typed.textContent = typed.title = el.value.trim();
        typed.dataset.x = place(ratio);
      }
    }
    const marker = line.querySelector('.chosen');
    marker.hidden = ratio === null;
    const points = ratio === null ? '' : signed(100 * ratio / SPAN);
    if (ratio !== null) {
      marker.style.left = (100 * place(ratio)).toFixed(2) + '%';
      marker.title = 'chosen: log-odds ratio ' + ratio.toFixed(3) + ' (' + points + ' points)';
      total += 100 * ratio / SPAN;
    }
    document.getElementById('points-' + j).textContent = points;
  });
  const top = Math.max(...s);
  let sum = 0;
  for (const v of s) sum += Math.exp(v - top);
  const p = Math.exp(s[M.class_index] - top) / sum;
  const out = document.getElementById('posterior');
  out.textContent = (p < 0.001 || p > 0.999 ? '' : '= ') + probability(p);
  out.dataset.probability = String(p);
  document.getElementById('total').textContent = signed(total);
  document.getElementById('bar').style.width = (100 * p).toFixed(2) + '%';
  layout();
}
document.querySelectorAll('select, input').forEach(el => {
  el.addEventListener('input', update);
  el.addEventListener('change', update);
});
window.addEventListener('resize', layout);
update();
"""

_NOMOGRAM_STYLE = """
body { font: 14px sans-serif; margin: 1.5em; max-width: 68em; }
[hidden] { display: none !important; }
.axis { display: grid; grid-template-columns: 13em minmax(0, 1fr) 12.5em; column-gap: 1em; align-items: center; }
.axis > .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.head { position: sticky; top: 0; background: #fff; z-index: 1; border-bottom: 1px solid #ddd; }
.line { position: relative; height: 2.6em; }
.rule { position: absolute; bottom: 8px; border-top: 1px solid #666; }
.zero { position: absolute; top: 0; bottom: 3px; border-left: 1px dashed #bbb; }
.mark { position: absolute; bottom: 5px; height: 7px; border-left: 1px solid #444; }
.mark.off { border-left: 2px solid #c33; }
.value { position: absolute; bottom: 14px; font-size: 11px; line-height: 1.25; white-space: nowrap; max-width: 9em;
         overflow: hidden; text-overflow: ellipsis; }
.value.picked { font-weight: bold; color: #b22; }
.chosen { position: absolute; bottom: 4px; width: 9px; height: 9px; margin-left: -4px; border-radius: 50%;
          background: #c22; }
.control { display: flex; gap: .4em; align-items: center; }
.control select, .control input { width: 9em; }
.points { width: 3em; text-align: right; }
.result { font-size: 16px; margin: 1em 0 .4em; }
.scale { height: 1em; background: #ddd; } #bar { height: 1em; background: #3a7; }
.probabilities { position: relative; height: 1.4em; font-size: 11px; }
.probabilities span { position: absolute; transform: translateX(-50%); }
.probabilities span:first-child { transform: none; } .probabilities span:last-child { transform: translateX(-100%); }
"""


def _axis_points(attribute, c, prior):
    """``(labels, ratios, supported, counts)`` of the points on an attribute's axis: its values or bins, which
    of them are supported (:data:`MIN_SUPPORT`) and their training cases; for a Gaussian attribute a few
    values across its classes' means, all supported, counts None."""
    if attribute["kind"] == "values":
        ratio = np.asarray(attribute["ratio"], float)
        counts = np.asarray(attribute["counts"], float).reshape(len(ratio), -1)
        of_class, of_rest = counts[:, c], counts.sum(axis=1) - counts[:, c]
        supported = np.isfinite(ratio) & (of_class + of_rest >= MIN_SUPPORT) & (of_class > 0) & (of_rest > 0)
        return attribute["values"], ratio, supported, counts.sum(axis=1)
    x, ratio = _gaussian_ratios(attribute, c, prior)
    return [f"{v:.3g}" for v in x], ratio, np.isfinite(ratio), None


def _axis_range(points):
    """``(lo, hi)``: the shared axis' log-odds ratios, from the smallest to the largest of the supported
    values (of all where none is), 0 included."""
    supported, every = [0.0], [0.0]
    for _, ratio, enough, _ in points:
        every.extend(ratio[np.isfinite(ratio)])
        supported.extend(ratio[enough])
    lo, hi = (min(supported), max(supported)) if len(supported) > 1 else (min(every), max(every))
    return (lo, hi) if hi > lo else (-1.0, 1.0)


def _marked(label, ratio, lo, hi):
    """``label`` with an arrow where ``ratio`` lies beyond the axis from ``lo`` to ``hi`` (drawn at its end)."""
    return f"\u25c2 {label}" if ratio < lo else f"{label} \u25b8" if ratio > hi else label


def _axis_row(j, attribute, labels, ratio, counts, lo, hi):
    """The HTML of one attribute's row: its name, its axis (a tick and a label per value, a value beyond the
    axis at its end with an arrow, the chosen value's marker) and its control with the chosen value's points."""
    span, name = hi - lo, html.escape(attribute["name"])
    at = 100 * (np.clip(ratio, lo, hi) - lo) / span
    finite = np.isfinite(ratio)
    parts = [f'<span class="zero" style="left:{100 * -lo / span:.2f}%"></span>']
    if finite.any():
        parts.append(f'<span class="rule" style="left:{at[finite].min():.2f}%;width:{np.ptp(at[finite]):.2f}%"></span>')
    for i, (label, r, x) in enumerate(zip(labels, ratio, at)):
        if not np.isfinite(r):
            continue
        off = r < lo or r > hi
        text = _marked(label, r, lo, hi)
        title = f"{label}: log-odds ratio {r:+.3f} ({100 * r / span:+.0f} points)"
        title += "" if counts is None else f", {counts[i]:g} training cases"
        title += ", beyond the axis (too few cases of one side): drawn at its end" if off else ""
        index = f' data-i="{i}"' if attribute["kind"] == "values" else ""
        parts.append(f'<span class="mark{" off" if off else ""}" style="left:{x:.2f}%"></span>'
                     f'<span class="value" data-x="{x / 100:.4f}"{index} title="{html.escape(title)}">'
                     f'{html.escape(text)}</span>')
    if attribute["kind"] == "values":
        options = '<option value="">(missing)</option>' + "".join(
            f'<option value="{i}">{html.escape(v)}</option>' for i, v in enumerate(attribute["values"]))
        control = f'<select id="attr-{j}" name="{name}">{options}</select>'
    else:
        parts.append('<span class="value typed picked" hidden></span>')
        control = f'<input id="attr-{j}" name="{name}" type="number" step="any" placeholder="(missing)">'
    parts.append('<span class="chosen" hidden></span>')
    return (f'<div class="axis"><span class="name" title="{name}"><b>{name}</b></span>'
            f'<div class="line" id="line-{j}">{"".join(parts)}</div>'
            f'<span class="control">{control}<output class="points" id="points-{j}"></output></span></div>')


def _points_row(lo, hi):
    """The points scale over the axis: 100 points span it, 0 is no evidence, a tick every 10."""
    span = hi - lo
    ticks = np.arange(np.ceil(100 * lo / span / 10) * 10, np.floor(100 * hi / span / 10) * 10 + 1, 10)
    parts = [f'<span class="zero" style="left:{100 * -lo / span:.2f}%"></span>'
             '<span class="rule" style="left:0;width:100%"></span>']
    for t in ticks:
        x, text = (t * span / 100 - lo) / span, "0" if t == 0 else f"{t:+.0f}"
        parts.append(f'<span class="mark" style="left:{100 * x:.2f}%"></span>'
                     f'<span class="value" data-x="{x:.4f}" title="{text} points: log-odds ratio '
                     f'{t * span / 100:+.3f}">{text}</span>')
    return (f'<div class="axis head"><span class="name"><b>Points</b></span><div class="line">{"".join(parts)}'
            f'</div><span class="control">100 points: {span:.2f} log-odds</span></div>')


def nomogram_html(model, for_class=None):
    """A self-contained interactive HTML nomogram (inline script and style, no network): a points scale
    over one axis per attribute with each value (bins labelled as the report labels them) at its log-odds
    ratio for ``for_class`` against the rest, 100 points the axis' width; the axis spans the values with
    enough training cases (:data:`MIN_SUPPORT`), others beyond it drawn at its end with an arrow. A control
    per attribute (a select box of values or bins, a number for a Gaussian attribute) marks the chosen value
    on its axis and gives its points; the page shows the total and the posterior P(for_class | chosen values)
    to three decimals in the element ``#posterior`` (its ``data-probability`` holds every digit). Labels
    that would overlap are hidden, the chosen one kept; each keeps its full text and ratio in its title."""
    data = nomogram_data(model, for_class)
    c, prior = data["class_index"], np.exp(np.asarray(data["log_prior"]))
    points = [_axis_points(a, c, prior) for a in data["attributes"]]
    lo, hi = _axis_range(points)
    rows = [_points_row(lo, hi)]
    for j, (a, (labels, ratio, _, counts)) in enumerate(zip(data["attributes"], points)):
        rows.append(_axis_row(j, a, labels, ratio, counts, lo, hi))
    payload = json.dumps({**data, "axis": {"lo": lo, "hi": hi}}).replace("</", "<\\/")
    target = html.escape(data["for_class"])
    probabilities = "".join(f'<span style="left:{100 * p:g}%">{p:g}</span>' for p in (0, 0.25, 0.5, 0.75, 1))
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Nomogram: {target}</title>'
            f'<style>{_NOMOGRAM_STYLE}</style></head><body>'
            f'<h1>Nomogram of class {target} against the rest</h1>'
            f'<p>Each value sits at its log-odds ratio for {target} against the rest (the dashed line: none), '
            f'read in points (the axis, from {lo:+.2f} to {hi:+.2f}, is 100 points). The axis spans the values '
            f'of at least {MIN_SUPPORT} training cases, some of {target} and some of the rest; one beyond it '
            f'is drawn at its end, marked \u25c2 or \u25b8. Pick values to read P({target} | x); hover a label '
            f'for its ratio and cases.</p>'
            f'{"".join(rows)}'
            f'<p class="result">Total <output id="total"></output> points: P({target} | x) '
            f'<output id="posterior"></output></p>'
            f'<div class="scale"><div id="bar"></div></div><div class="probabilities">{probabilities}</div>'
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
    of ``for_class`` (exact for two classes; for more, the rest taken as one class). The axes span the values
    with enough training cases (:data:`MIN_SUPPORT`), one beyond drawn at the end with an arrow, as on the
    HTML page. A label (a value's, a probability's) that would overlap the one left of it is left out (its
    tick stays), so that 2 to 50 attributes and classes stay legible.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    data = nomogram_data(model, for_class)
    c, prior = data["class_index"], np.exp(np.asarray(data["log_prior"]))
    attributes = data["attributes"][:max_attributes]
    axes_points = [_axis_points(a, c, prior) for a in attributes]
    left, right = _axis_range(axes_points)
    fig = Figure(figsize=(9, 1.2 + 0.42 * (len(attributes) + 2)))
    ax = fig.add_subplot()
    labels_by_axis = []
    for i, (a, (labels, ratio, _, _)) in enumerate(zip(attributes, axes_points)):
        y, shown = -i, np.clip(ratio, left, right)
        ax.hlines(y, shown.min(), shown.max(), color="0.4", lw=1)
        ax.plot(shown, np.full(len(shown), y), "|", color="C0", ms=8)
        labels_by_axis.append([ax.annotate(_marked(short_label(str(label), 12), r, left, right), (x, y),
                                           xytext=(0, 4), textcoords="offset points",
                                           ha="left" if x == left else "right" if x == right else "center",
                                           fontsize=6 if len(labels) > 8 else 7)
                               for label, r, x in zip(labels, ratio, shown)])  # the ends' labels inside
    pad = 0.04 * (right - left)
    ax.set_xlim(left - pad, right + pad)
    ax.set_yticks([-i for i in range(len(attributes))], [short_label(a["name"], 24) for a in attributes], fontsize=8)
    prior_odds = np.log(prior[c] / prior[np.arange(len(prior)) != c].sum())
    lo = sum(r.min() for _, r, _, _ in axes_points) if axes_points else -1.0
    hi = sum(r.max() for _, r, _, _ in axes_points) if axes_points else 1.0
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
    _hide_overlapping(fig, labels_by_axis + [ax.get_xticklabels()])
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
            if shown is not None and box.x0 < shown.x1 + 4:
                text.set_visible(False)
                continue
            shown = box

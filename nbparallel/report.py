"""A naive Bayes model as a person can read it: the evidence each attribute value gives.

In the manner of Becker, Kohavi and Sommerfield, "Visualizing the Simple
Bayesian Classifier" (cited by the SPSS document): a value m of attribute j
moves the log-odds of class k away from its prior by

    evidence(j, m, k) = log P(X_j = m | k) - log sum_l pi_l P(X_j = m | l)
                      = log P(k | X_j = m) - log pi_k,

so the posterior of a case is its prior plus the evidence of its values (then
renormalised). Attributes are ranked by the mutual information between the
attribute and the class, computed from the counts. Ignored attributes are
listed with the reason.
"""

from __future__ import annotations

import base64
import html
import io as _io
import textwrap
from pathlib import Path

import numpy as np
from sklearn.utils.validation import check_is_fitted

from nbparallel.data.columns import CATEGORICAL

MAX_VALUES_SHOWN = 12


def _value_labels(at, fit):
    """Short labels of a counted attribute's values: categories, or bins as "<= hi", "(lo, hi]", "> lo"."""
    if at.kind == CATEGORICAL:
        return fit.labels
    if not len(fit.edges):
        return ["all values"]
    bounds = [-np.inf, *fit.edges, np.inf]
    return [f"<= {hi:.3g}" if not np.isfinite(lo) else f"> {lo:.3g}" if not np.isfinite(hi) else f"({lo:.3g}, {hi:.3g}]"
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def mutual_information(cells):
    """Mutual information (bits) of attribute and class from value-by-class counts.

    >>> round(mutual_information(np.array([[5., 0.], [0., 5.]])), 6)
    1.0
    """
    total = cells.sum()
    if total <= 0:
        return 0.0
    joint = cells / total
    outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
    nz = joint > 0
    return float(np.sum(joint[nz] * np.log2(joint[nz] / outer[nz])))


def model_summary(model):
    """Every attribute's evidence table, value counts and mutual information.

    Returns
    -------
    dict with ``classes``, ``prior`` (pi_k), ``attributes`` (used counted
    ones, ranked by mutual information; each a dict with ``name``, ``kind``,
    ``values``, ``counts`` (per value), ``evidence`` (values x classes, nats)
    and ``mutual_information`` (bits)), ``gaussian`` (used Gaussian ones, in
    input order; each a dict with ``name``, ``mean`` and ``std``, per class,
    the standard deviation with ``var_smoothing`` added), ``ignored``
    ({name: reason}) and ``not_selected`` (names a feature selection left out).
    """
    check_is_fitted(model, "counts_")
    reasons = model.ignored_reasons()
    chosen = getattr(model, "selected_features_", None)
    prior = np.exp(model.class_log_prior_)
    used, not_selected = [], []
    for at, fit in zip(model.schema_.counted().attributes, model.counted_fits_):
        if at.name in reasons:
            continue
        if chosen is not None and at.name not in chosen:
            not_selected.append(at.name)
            continue
        cells = fit.counts
        seen = cells.sum(axis=1) > 0
        logp = fit.log_prob[seen]
        marginal = np.log(np.exp(logp) @ prior)
        used.append({
            "name": at.name, "kind": at.kind,
            "values": [v for v, s in zip(_value_labels(at, fit), seen) if s],
            "counts": cells[seen].sum(axis=1),
            "evidence": logp - marginal[:, None],
            "mutual_information": mutual_information(cells),
        })
    used.sort(key=lambda d: -d["mutual_information"])
    gaussian = [{"name": name, "mean": model.theta_[:, g], "std": np.sqrt(model.var_[:, g])}
                for g, name in enumerate(getattr(model, "gaussian_features_", [])) if name not in reasons]
    return {"classes": [str(c) for c in model.classes_], "prior": prior, "attributes": used, "gaussian": gaussian,
            "ignored": reasons, "not_selected": not_selected, "n_cases": float(model.class_weights().sum())}


def _shown_rows(attribute):
    """The values to draw: all of them, or the most frequent ``MAX_VALUES_SHOWN`` in their order."""
    n = len(attribute["values"])
    if n <= MAX_VALUES_SHOWN or attribute["kind"] != CATEGORICAL:
        return np.arange(n)
    return np.sort(np.argsort(-attribute["counts"], kind="stable")[:MAX_VALUES_SHOWN])


def plot_evidence(model, max_attributes=8, path=None):
    """Draw the model: attribute ranking, priors, and per attribute the evidence of each value.

    Parameters
    ----------
    model : fitted NaiveBayes (or SelectedNaiveBayes)
    max_attributes : int, default 8
        Evidence panels drawn, for the attributes of highest mutual information.
    path : str or PathLike, optional
        Also write the figure there (PNG, SVG or PDF by suffix).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    summary = model_summary(model)
    classes, attrs = summary["classes"], summary["attributes"]
    panels = attrs[:max_attributes]
    n_rows = (len(panels) + 1) // 2
    heights = [max(3.2, 0.26 * len(attrs[:25]) + 1.2)] + [
        max(2.0, 0.32 * max(len(_shown_rows(p)) for p in panels[2 * r : 2 * r + 2]) + 1.1) for r in range(n_rows)]
    fig = Figure(figsize=(13, sum(heights) + 1.0), layout="constrained")
    grid = fig.add_gridspec(1 + n_rows, 2, height_ratios=heights)
    gaussian = summary["gaussian"]
    fig.suptitle(f"Naive Bayes model: {len(classes)} classes, {summary['n_cases']:g} training cases, "
                 f"{len(attrs) + len(gaussian)} attributes used", fontsize=14, fontweight="bold")

    ax = fig.add_subplot(grid[0, 0])
    ranked = attrs[:25][::-1]
    ax.barh([a["name"] for a in ranked], [a["mutual_information"] for a in ranked], color="#4c72b0")
    ax.set_xlabel("mutual information with the class (bits)")
    ax.set_title("Attributes ranked by how much they tell about the class", loc="left", fontsize=11)
    ax.tick_params(axis="y", labelsize=8)

    ax = fig.add_subplot(grid[0, 1])
    ax.axis("off")
    lines = ["How to read the evidence panels", "",
             "Each cell: how much a value shifts the log-odds",
             "of a class away from its prior,",
             "  log P(class | value) - log P(class).",
             "Blue favours the class, red speaks against it;",
             "0: the value says nothing about the class.",
             "A case's score adds up the evidence of its values.",
             "About -5 and below: the value never occurs with",
             "the class in training (only smoothing keeps it > 0).",
             "n = training cases with the value.", "",
             *textwrap.wrap("Class priors: " + ", ".join(f"{c} {p:.1%}" for c, p in zip(classes, summary["prior"])),
                            50, subsequent_indent="  ")]
    if summary["ignored"]:
        lines += ["", f"Ignored attributes ({len(summary['ignored'])}):"]
        lines += [f"  {name}: {why}" for name, why in list(summary["ignored"].items())[:8]]
        if len(summary["ignored"]) > 8:
            lines.append(f"  ... and {len(summary['ignored']) - 8} more")
    if gaussian:
        lines += ["", f"Gaussian attributes ({len(gaussian)}; mean, sd per class, no evidence panel):"]
        lines += [f"  {g['name']}: " + ", ".join(f"{m:.3g} ({sd:.2g})" for m, sd in zip(g["mean"], g["std"]))
                  for g in gaussian[:8]]
        if len(gaussian) > 8:
            lines.append(f"  ... and {len(gaussian) - 8} more")
    if summary["not_selected"]:
        lines += ["", f"Left out by feature selection: {len(summary['not_selected'])} attributes"]
    if len(attrs) > len(panels):
        lines += ["", f"Evidence shown for the top {len(panels)} of {len(attrs)} attributes."]
    ax.text(0, 1, "\n".join(lines), va="top", ha="left", fontsize=9.5, family="monospace", transform=ax.transAxes)

    from matplotlib.colors import TwoSlopeNorm

    # evidence for a class is at most log(1 / prior); against it is unbounded: one scale per side
    limit = min(max([-p["evidence"].min() for p in panels] + [1e-3]), 5.0)
    top = max([p["evidence"].max() for p in panels] + [1e-3])
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=top)
    image = None
    for i, attribute in enumerate(panels):
        ax = fig.add_subplot(grid[1 + i // 2, i % 2])
        rows = _shown_rows(attribute)
        ev = attribute["evidence"][rows]
        image = ax.imshow(ev, cmap="RdBu", norm=norm, aspect="auto")
        labels = [f"{attribute['values'][r]}  (n={attribute['counts'][r]:g})" for r in rows]
        ax.set_yticks(range(len(rows)), labels, fontsize=8)
        ax.set_xticks(range(len(classes)), classes, fontsize=9)
        ax.xaxis.set_ticks_position("top")
        for (r, k), value in np.ndenumerate(ev if len(classes) <= 6 else np.empty((0, 0))):
            ax.text(k, r, f"{value:+.1f}", ha="center", va="center", fontsize=7,
                    color="white" if value < -0.6 * limit or value > 0.6 * top else "black")
        extra = "" if len(rows) == len(attribute["values"]) else f", {len(rows)} most frequent of {len(attribute['values'])} values"
        ax.set_title(f"#{i + 1} {attribute['name']}  (MI {attribute['mutual_information']:.3f} bits{extra})",
                     loc="left", fontsize=10)
    if image is not None:
        fig.colorbar(image, ax=fig.axes[2:], location="bottom", shrink=0.5, aspect=40,
                     label=f"evidence: log-odds shift of the class from its prior (nats; colours end at -{limit:g})")
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def _png_base64(fig):
    buffer = _io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def html_report(model, max_attributes=8):
    """A self-contained HTML page: the figure and every attribute's evidence table."""
    summary = model_summary(model)
    esc = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>nbparallel model report</title>",
             "<style>body{font-family:sans-serif;margin:2em} table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right} th{background:#eee}</style></head><body>",
             "<h1>Naive Bayes model report</h1>",
             f"<img alt='evidence' src='data:image/png;base64,{_png_base64(plot_evidence(model, max_attributes))}'>",
             "<h2>Class priors</h2><table><tr>" + "".join(f"<th>{esc(c)}</th>" for c in summary["classes"])
             + "</tr><tr>" + "".join(f"<td>{p:.4f}</td>" for p in summary["prior"]) + "</tr></table>"]
    if summary["ignored"]:
        parts.append("<h2>Ignored attributes</h2><ul>" + "".join(
            f"<li><b>{esc(n)}</b>: {esc(r)}</li>" for n, r in summary["ignored"].items()) + "</ul>")
    if summary["not_selected"]:
        parts.append("<h2>Left out by feature selection</h2><p>" + esc(", ".join(summary["not_selected"])) + "</p>")
    if summary["gaussian"]:
        parts.append("<h2>Gaussian attributes: mean (standard deviation) per class</h2><table><tr><th>attribute</th>"
                     + "".join(f"<th>{esc(c)}</th>" for c in summary["classes"]) + "</tr>")
        for g in summary["gaussian"]:
            parts.append(f"<tr><td>{esc(g['name'])}</td>"
                         + "".join(f"<td>{m:.4g} ({sd:.3g})</td>" for m, sd in zip(g["mean"], g["std"])) + "</tr>")
        parts.append("</table>")
    parts.append("<h2>Evidence per attribute (nats; ranked by mutual information)</h2>")
    for a in summary["attributes"]:
        parts.append(f"<h3>{esc(a['name'])} &mdash; MI {a['mutual_information']:.4f} bits</h3><table><tr><th>value</th>"
                     "<th>n</th>" + "".join(f"<th>{esc(c)}</th>" for c in summary["classes"]) + "</tr>")
        for v, n, ev in zip(a["values"], a["counts"], a["evidence"]):
            parts.append(f"<tr><td>{esc(v)}</td><td>{n:g}</td>" + "".join(f"<td>{e:+.3f}</td>" for e in ev) + "</tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "".join(parts)


def write_report(model, path, max_attributes=8):
    """Write the report as PNG/SVG/PDF (the figure) or HTML (figure and tables), by suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm"):
        text = html_report(model, max_attributes)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    elif suffix in (".png", ".svg", ".pdf"):
        fig = plot_evidence(model, max_attributes)
        tmp = path.with_name(f".{path.name}.tmp{suffix}")
        fig.savefig(tmp, dpi=110)
        tmp.replace(path)
    else:
        raise ValueError(f"report path must end in .png, .svg, .pdf or .html, got {str(path)!r}")
    return path

"""A naive Bayes model as a person can read it: what its values say about the classes.

In the manner of Becker, Kohavi and Sommerfield, "Visualizing the Simple Bayesian Classifier" (cited by the
SPSS document): a value m of attribute j moves the log-odds of class k away from its prior by

    evidence(j, m, k) = log P(X_j = m | k) - log sum_l pi_l P(X_j = m | l)
                      = log P(k | X_j = m) - log pi_k,

so the posterior of a case is its prior plus the evidence of its values (then renormalised). Attributes are
ranked by the mutual information between the attribute and the class, computed from the counts. Ignored
attributes are listed with the reason. A boosted model is drawn by its first learner, the naive Bayes model
of the unweighted rows.
"""

from __future__ import annotations

import html
import textwrap

import numpy as np
from scipy.special import logsumexp

from nbparallel.data.columns import CATEGORICAL
from nbparallel.models.estimator import check_is_fitted
from nbparallel.report.html import PAGE_HEAD, png_base64, short_label
from nbparallel.report.sections import mutual_information, report_sections, value_labels
from nbparallel.report.waterfall import draw_waterfall, explanation_html, explanation_title, waterfall_bars


MAX_VALUES_SHOWN = 12

#: bars of a prediction's waterfall in the report (the other attributes' terms summed into one)
MAX_WATERFALL_BARS = 20


def model_summary(model):
    """Every attribute's evidence table, value counts and mutual information.

    Returns
    -------
    dict with ``classes``, ``prior`` (pi_k), ``attributes`` (used counted
    ones, ranked by mutual information; each a dict with ``name``, ``kind``,
    ``values``, ``counts`` (per value), ``evidence`` (values x classes, nats)
    and ``mutual_information`` (bits)), ``gaussian`` (used Gaussian ones, in
    input order; each a dict with ``name``, ``kind`` "gaussian", ``mean`` and
    ``std``, per class, the standard deviation with ``var_smoothing`` added,
    and ``mutual_information`` (bits, from the fitted per-class Gaussians)),
    ``ranking`` (both, by mutual information), ``ignored``
    ({name: reason}), ``not_selected`` (names a feature selection left out)
    and ``note`` (what the model drawn is, for a boosted model's first learner;
    else None).
    """
    sections = report_sections(model)
    model, note = sections["model"], sections["note"]
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
            "values": [v for v, s in zip(value_labels(at, fit), seen) if s],
            "counts": cells[seen].sum(axis=1),
            "evidence": logp - marginal[:, None],
            "mutual_information": mutual_information(cells),
        })
    used.sort(key=lambda d: -d["mutual_information"])
    gaussian = []
    for g, name in enumerate(getattr(model, "gaussian_features_", [])):
        if name in reasons or chosen is not None and name not in chosen:
            continue
        mean, std = model.theta_[:, g], np.sqrt(model.var_[:, g])
        gaussian.append({"name": name, "kind": "gaussian", "mean": mean, "std": std,
                         "mutual_information": gaussian_mutual_information(mean, std, prior)})
    ranking = sorted(used + gaussian, key=lambda d: -d["mutual_information"])
    return {"classes": [str(c) for c in model.classes_], "prior": prior, "attributes": used, "gaussian": gaussian,
            "ranking": ranking, "ignored": reasons, "not_selected": not_selected,
            "n_cases": float(model.class_weights().sum()), "note": note}


def gaussian_mutual_information(mean, std, prior):
    """Mutual information (bits) of a Gaussian attribute and the class under the fitted per-class Gaussians:
    ``H(X) - sum_k pi_k H(X | k)``, the mixture's entropy integrated numerically on grids around every class.

    >>> round(gaussian_mutual_information(np.array([0.0, 0.0]), np.array([1.0, 1.0]), np.array([0.5, 0.5])), 6)
    0.0
    >>> round(gaussian_mutual_information(np.array([0.0, 100.0]), np.array([1.0, 1.0]), np.array([0.5, 0.5])), 4)
    1.0
    """
    mean, std = np.asarray(mean, dtype=np.float64), np.asarray(std, dtype=np.float64)
    prior = np.asarray(prior, dtype=np.float64) / np.sum(prior)
    keep = (prior > 0) & (std > 0) & np.isfinite(mean)
    if keep.sum() < 2:
        return 0.0
    mean, std, prior = mean[keep], std[keep], prior[keep]
    x = np.unique(np.concatenate([m + sd * np.linspace(-9, 9, 1201) for m, sd in zip(mean, std)]))
    log_parts = (-0.5 * ((x[:, None] - mean) / std) ** 2 - np.log(std * np.sqrt(2 * np.pi)) + np.log(prior))
    log_p = logsumexp(log_parts, axis=1)
    integrand = -np.exp(log_p) * log_p
    h_x = float(np.sum((integrand[1:] + integrand[:-1]) * np.diff(x)) / 2)
    h_given = float(np.sum(prior * 0.5 * np.log(2 * np.pi * np.e * std**2)))
    return max(0.0, float((h_x - h_given) / np.log(2)))


def shown_rows(attribute):
    """The values to draw: all of them, or the most frequent ``MAX_VALUES_SHOWN`` in their order."""
    n = len(attribute["values"])
    if n <= MAX_VALUES_SHOWN or attribute["kind"] != CATEGORICAL:
        return np.arange(n)
    return np.sort(np.argsort(-attribute["counts"], kind="stable")[:MAX_VALUES_SHOWN])


#: attributes in the ranking chart at most (the rest is stated)
MAX_RANKED = 40
#: class names are cut to this many characters in the figure (the HTML page has them whole)
CLASS_LABEL_WIDTH = 16
#: above this many classes an evidence panel is transposed: classes as rows, values as columns
MAX_CLASS_COLUMNS = 12

EVIDENCE_CAPTION = [
    "How to read the evidence panels",
    "",
    "Each cell, for a value v of the attribute and a",
    "class c, in nats (natural logarithms):",
    "  log P(c | v) - log P(c),",
    "the model's (smoothed) probability of c given",
    "that value alone, over c's prior. It is not a",
    "log-odds. Blue: v makes c more probable than",
    "its prior; red: less; white (0): v says nothing.",
    "A case's log-posterior is its class's log prior",
    "plus the evidence of its values (then",
    "renormalised over the classes).",
    "n = training cases with the value.",
]


def _layout(n_classes):
    """How evidence panels are laid out for ``n_classes``: transposed (classes as rows), panels per row, the
    rotation of the class labels on the x axis, and whether the cells carry their numbers.

    >>> _layout(3), _layout(19)
    ((False, 2, 0, True), (True, 2, 90, False))
    """
    transposed = n_classes > MAX_CLASS_COLUMNS
    per_row = 2 if n_classes <= 6 or transposed else 1
    rotation = 0 if n_classes <= 4 else 90
    return transposed, per_row, rotation, n_classes <= 6


def plot_evidence(model, max_attributes=8, path=None, explained=None):
    """Draw the model: attribute ranking, priors, and per attribute the evidence of each value.

    The layout follows the number of classes (2 to 50 are drawn readably) and
    of attributes (up to 200): class names are cut to 16 characters, class
    labels are turned upright beyond 4 classes, panels are transposed (classes
    as rows) beyond 12 classes; the ranking chart shows the top 40 attributes,
    and each truncation is stated in the figure. Gaussian attributes are
    ranked with the others (mutual information from the fitted Gaussians) and
    drawn as each class's mean and standard deviation.

    Parameters
    ----------
    model : fitted NaiveBayes, SelectedNaiveBayes or BoostedNaiveBayes (its first learner)
    max_attributes : int, default 8
        Panels drawn, for the attributes of highest mutual information.
    path : str or PathLike, optional
        Also write the figure there (PNG, SVG or PDF by suffix).
    explained : dict, optional
        One prediction (:func:`~nbparallel.report.waterfall.explained_row`), drawn as a waterfall beside
        its numbers, under the ranking.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure

    summary = model_summary(model)
    classes, attrs, gaussian = summary["classes"], summary["attributes"], summary["gaussian"]
    labels = [short_label(c, CLASS_LABEL_WIDTH) for c in classes]
    ranking = summary["ranking"]
    panels = ranking[:max_attributes]
    n_classes = len(classes)
    transposed, per_row, rotation, numbers = _layout(n_classes)
    label_room = 0.09 * max(len(c) for c in labels) if rotation else 0.25

    def panel_height(p):
        if p["kind"] == "gaussian" or transposed:
            return 0.24 * n_classes + 1.3 + (0.09 * 14 if p["kind"] != "gaussian" else 0.4)
        return 0.3 * len(shown_rows(p)) + 1.2 + label_room

    rows = [panels[i:i + per_row] for i in range(0, len(panels), per_row)]
    ranked = ranking[:MAX_RANKED]
    heights = [max(4.6, 0.22 * len(ranked) + 1.4)] + [max(2.2, max(panel_height(p) for p in row)) for row in rows]
    if explained is not None:
        heights.insert(1, 1.4 + 0.3 * len(waterfall_bars(explained["evidence"], MAX_WATERFALL_BARS)[0]))
    fig = Figure(figsize=(14, sum(heights) + 1.2), layout="constrained")
    grid = fig.add_gridspec(len(heights), 2, height_ratios=heights)
    fig.suptitle(f"Naive Bayes model: {n_classes} classes, {summary['n_cases']:g} training cases, "
                 f"{len(attrs) + len(gaussian)} attributes used" + (f"\n{summary['note']}" if summary["note"] else ""),
                 fontsize=14, fontweight="bold")

    _ranking_chart(fig.add_subplot(grid[0, 0]), ranking, ranked, bool(gaussian))
    ax = fig.add_subplot(grid[0, 1])
    ax.axis("off")
    lines = _evidence_caption(summary, labels, panels, transposed)
    ax.text(0, 1, "\n".join(lines), va="top", ha="left", fontsize=9, family="monospace", transform=ax.transAxes)

    if explained is not None:
        _explanation_panels(fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1]), explained)
    first = 1 + (explained is not None)
    counted = [p for p in panels if p["kind"] != "gaussian"]
    # evidence for a class is at most log(1 / prior); against it is unbounded: one scale per side
    limit = min(max([-p["evidence"].min() for p in counted] + [1e-3]), 5.0)
    top = max([p["evidence"].max() for p in counted] + [1e-3])
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=top)
    heatmaps = []
    for r, row in enumerate(rows):
        for c, attribute in enumerate(row):
            where = grid[first + r, c] if per_row == 2 else grid[first + r, :]
            ax = fig.add_subplot(where)
            rank = r * per_row + c + 1
            if attribute["kind"] == "gaussian":
                _gaussian_panel(ax, attribute, labels, rank)
                continue
            heatmaps.append(_evidence_panel(ax, attribute, labels, rank, norm, limit, top, transposed, rotation,
                                            numbers))
    if heatmaps:
        fig.colorbar(heatmaps[-1], ax=[im.axes for im in heatmaps], location="bottom", shrink=0.5, aspect=40,
                     label=f"log P(class | value) - log P(class)  (nats; colours end at -{limit:.3g})")
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def _explanation_panels(ax, text_ax, explained):
    """One prediction's waterfall on ``ax`` and what it weighs on ``text_ax``."""
    total = draw_waterfall(ax, explained["evidence"], MAX_WATERFALL_BARS,
                           "evidence of one prediction: " + explanation_title(explained))
    text_ax.axis("off")
    lines = [f"Row {explained['label']} (position {explained['row']}):",
             f"log P({short_label(str(explained['for_class']), 24)} | x)",
             f"  - log P({short_label(str(explained['against']), 24)} | x) = {explained['log_odds']:+.4f}",
             f"= (prior) + the attributes' terms = {total:+.4f}",
             "Bars: the priors' log ratio, then each attribute's",
             "log P(x_j | c) - log P(x_j | c'), largest first;",
             "green for the class, red against; dashed: the total."]
    text_ax.text(0, 1, "\n".join(lines), va="top", ha="left", fontsize=9, family="monospace",
                 transform=text_ax.transAxes)


def _ranking_chart(ax, ranking, ranked, gaussian):
    """The bar chart of the ``ranked`` attributes' mutual information (the top of ``ranking``)."""
    shown = ranked[::-1]
    colours = ["#dd8452" if a["kind"] == "gaussian" else "#4c72b0" for a in shown]
    ax.barh(range(len(shown)), [a["mutual_information"] for a in shown], color=colours)
    ax.set_yticks(range(len(shown)), [short_label(a["name"], 28) for a in shown], fontsize=8 if len(shown) <= 25 else 7)
    ax.set_ylim(-0.6, len(shown) - 0.4)
    ax.set_xlabel("mutual information with the class (bits)")
    more = f" (top {len(ranked)} of {len(ranking)})" if len(ranking) > len(ranked) else ""
    ax.set_title(f"Attributes ranked by what they tell about the class{more}", loc="left", fontsize=11)
    if gaussian:
        from matplotlib.patches import Patch

        ax.legend(handles=[Patch(color="#4c72b0", label="counted (categorical, binned)"),
                           Patch(color="#dd8452", label="Gaussian (from the fitted per-class normals)")],
                  loc="lower right", fontsize=8)


def _evidence_caption(summary, labels, panels, transposed):
    """The lines beside the ranking: how to read the panels, the priors, and what is left out or cut."""
    classes, gaussian, ranking = summary["classes"], summary["gaussian"], summary["ranking"]
    n_classes = len(classes)
    lines = list(EVIDENCE_CAPTION) + [""]
    priors = [f"{c} {p:.1%}" for c, p in zip(labels, summary["prior"])]
    if len(priors) > 12:
        priors = priors[:12] + [f"... {len(priors) - 12} more classes (all in the HTML report)"]
    lines += textwrap.wrap("Class priors: " + ", ".join(priors), 52, subsequent_indent="  ")
    if any(len(c) > CLASS_LABEL_WIDTH for c in classes):
        lines.append(f"Class names are cut to {CLASS_LABEL_WIDTH} characters.")
    if summary["ignored"]:
        lines += ["", f"Ignored attributes ({len(summary['ignored'])}):"]
        lines += [f"  {short_label(name, 20)}: {why}" for name, why in list(summary["ignored"].items())[:6]]
        if len(summary["ignored"]) > 6:
            lines.append(f"  ... and {len(summary['ignored']) - 6} more")
    if gaussian:
        lines += ["", f"Gaussian attributes ({len(gaussian)}; mean, sd per class):"]
        lines += [f"  {short_label(g['name'], 20)}: " + ", ".join(f"{m:.3g} ({sd:.2g})" for m, sd in
                                                          list(zip(g["mean"], g["std"]))[:4])
                  + (" ..." if n_classes > 4 else "") for g in gaussian[:4]]
        if len(gaussian) > 4:
            lines.append(f"  ... and {len(gaussian) - 4} more")
    if summary["not_selected"]:
        lines += ["", f"Left out by feature selection: {len(summary['not_selected'])} attributes"]
    if len(ranking) > len(panels):
        lines += ["", f"Panels for the top {len(panels)} of {len(ranking)} attributes."]
    if transposed:
        lines += ["", f"{n_classes} classes: panels drawn with the classes as rows."]
    return lines


def _evidence_panel(ax, attribute, labels, rank, norm, limit, top, transposed, rotation, numbers):
    """One counted attribute's evidence: values x classes (classes x values when transposed)."""
    rows = shown_rows(attribute)
    ev = attribute["evidence"][rows]
    values = [f"{short_label(str(attribute['values'][r]), 22)}  (n={attribute['counts'][r]:g})" for r in rows]
    if transposed:
        image = ax.imshow(ev.T, cmap="RdBu", norm=norm, aspect="auto", interpolation="nearest")
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_xticks(range(len(rows)), values, fontsize=7, rotation=90)
        ax.set_ylabel("class", fontsize=8)
    else:
        image = ax.imshow(ev, cmap="RdBu", norm=norm, aspect="auto", interpolation="nearest")
        ax.set_yticks(range(len(rows)), values, fontsize=8)
        ax.set_xticks(range(len(labels)), labels, fontsize=8, rotation=rotation)
        ax.set_xlabel("class", fontsize=8)
        if numbers and len(rows) <= MAX_VALUES_SHOWN:
            for (i, k), value in np.ndenumerate(ev):
                ax.text(k, i, f"{value:+.1f}", ha="center", va="center", fontsize=7,
                        color="white" if value < -0.6 * limit or value > 0.6 * top else "black")
    n_values = len(attribute["values"])
    extra = "" if len(rows) == n_values else f"; {len(rows)} most frequent of {n_values} values"
    ax.set_title(f"#{rank} {short_label(attribute['name'], 40)}  "
                 f"(MI {attribute['mutual_information']:.3f} bits{extra})",
                 loc="left", fontsize=10)
    return image


def _gaussian_panel(ax, attribute, labels, rank):
    """One Gaussian attribute: each class's mean and one standard deviation either side."""
    k = np.arange(len(labels))
    colours = [f"C{i % 10}" for i in k]
    for i in k:
        ax.errorbar(attribute["mean"][i], i, xerr=attribute["std"][i], fmt="o", color=colours[i], capsize=3,
                    markersize=4)
    ax.set_yticks(k, labels, fontsize=7 if len(labels) > 12 else 8)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_ylabel("class", fontsize=8)
    ax.set_xlabel(f"{short_label(attribute['name'], 30)}: mean and mean +- 1 sd of each class", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"#{rank} {short_label(attribute['name'], 40)}  "
                 f"(Gaussian; MI {attribute['mutual_information']:.3f} bits)",
                 loc="left", fontsize=10)


def evidence_html(model, max_attributes=8, explained=None):
    """A self-contained HTML page of a naive Bayes model: the figure, one prediction's evidence when
    ``explained`` (:func:`~nbparallel.report.waterfall.explained_row`), and every attribute's evidence table."""
    summary = model_summary(model)
    esc = html.escape
    parts = [PAGE_HEAD, "<h1>Naive Bayes model report</h1>",
             *([f"<p><b>{esc(summary['note'])}</b></p>"] if summary["note"] else []),
             f"<img alt='evidence' src='data:image/png;base64,{png_base64(plot_evidence(model, max_attributes))}'>",
             *([explanation_html(explained, MAX_WATERFALL_BARS)] if explained is not None else []),
             "<h2>Class priors</h2><table><tr>" + "".join(f"<th>{esc(c)}</th>" for c in summary["classes"])
             + "</tr><tr>" + "".join(f"<td>{p:.4f}</td>" for p in summary["prior"]) + "</tr></table>"]
    if summary["ignored"]:
        parts.append("<h2>Ignored attributes</h2><ul>" + "".join(
            f"<li><b>{esc(n)}</b>: {esc(r)}</li>" for n, r in summary["ignored"].items()) + "</ul>")
    if summary["not_selected"]:
        parts.append("<h2>Left out by feature selection</h2><p>" + esc(", ".join(summary["not_selected"])) + "</p>")
    if summary["gaussian"]:
        parts.append("<h2>Gaussian attributes: mean (standard deviation) per class</h2><table><tr><th>attribute</th>"
                     "<th>MI (bits)</th>" + "".join(f"<th>{esc(c)}</th>" for c in summary["classes"]) + "</tr>")
        for g in summary["gaussian"]:
            parts.append(f"<tr><td>{esc(g['name'])}</td><td>{g['mutual_information']:.4f}</td>"
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


# ------------------------------------------------------------------ text models

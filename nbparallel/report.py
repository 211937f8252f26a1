"""A fitted model as a person can read it: what its values say about the classes, or its clusters' profiles.

Naive Bayes (and feature-selected) models, in the manner of Becker, Kohavi
and Sommerfield, "Visualizing the Simple Bayesian Classifier" (cited by the
SPSS document): a value m of attribute j moves the log-odds of class k away
from its prior by

    evidence(j, m, k) = log P(X_j = m | k) - log sum_l pi_l P(X_j = m | l)
                      = log P(k | X_j = m) - log pi_k,

so the posterior of a case is its prior plus the evidence of its values (then
renormalised). Attributes are ranked by the mutual information between the
attribute and the class, computed from the counts. Ignored attributes are
listed with the reason. A boosted model is drawn by its first learner, the
naive Bayes model of the unweighted rows.

Text models (multinomial and Bernoulli): the same evidence for each feature
(word), ``log P(j | k) - log sum_l pi_l P(j | l)``, from ``feature_log_prob_``
(for the Bernoulli model P(j | k) is the probability that word j is present);
each class's most telling features are those of largest evidence for it.

AutoClass: each cluster's weight (its prior) and profile, the most probable
value of every attribute in it; attributes are ranked by the mutual
information between attribute and cluster, from the expected counts.

:func:`write_report` draws any of them as PNG, SVG or PDF, or writes an HTML page.
"""

from __future__ import annotations

import base64
import html
import io as _io
import textwrap
from pathlib import Path

import numpy as np
from scipy.special import logsumexp

from nbparallel.data.columns import CATEGORICAL
from nbparallel.models.estimator import check_is_fitted
from nbparallel.models.explanation import class_index

MAX_VALUES_SHOWN = 12


#: the default of ``max_attributes`` by kind of report: attributes drawn, or features per class
DEFAULT_TOP = {"naive Bayes": 8, "text": 15, "clusters": 8}

#: a text model's classes drawn, each in a panel of its own (the HTML page lists every class)
MAX_CLASS_PANELS = 12


def bin_labels(edges):
    """Short labels of the bins under inner ``edges``: "<= hi", "(lo, hi]", "> lo".

    >>> bin_labels([1.5, 3.0]), bin_labels([])
    (['<= 1.5', '(1.5, 3]', '> 3'], ['all values'])
    """
    if not len(edges):
        return ["all values"]
    bounds = [-np.inf, *edges, np.inf]
    return [f"<= {hi:.3g}" if not np.isfinite(lo) else f"> {lo:.3g}" if not np.isfinite(hi) else f"({lo:.3g}, {hi:.3g}]"
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def _value_labels(at, fit):
    """Short labels of a counted attribute's values: categories, or bins."""
    return fit.labels if at.kind == CATEGORICAL else bin_labels(fit.edges)


def report_sections(model):
    """What the report draws of ``model``, as the model says (its ``report_sections()``): a dict with
    ``kind`` ("naive Bayes", "text" or "clusters"), ``model`` (the model drawn: a boosted model's first
    learner) and, by kind, ``note`` (said under the title) or ``name`` (a text model's kind); TypeError for
    objects that have no report."""
    sections = getattr(model, "report_sections", None)
    if not callable(sections):
        raise TypeError("a report needs a NaiveBayes, SelectedNaiveBayes, BoostedNaiveBayes, MultinomialNaiveBayes, "
                        f"BernoulliNaiveBayes or AutoClass model, got {type(model).__name__}")
    return sections()


def report_kind(model):
    """Which report draws ``model``: "naive Bayes" (boosted models too), "text" or "clusters"; TypeError
    for other objects."""
    return report_sections(model)["kind"]


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
            "values": [v for v, s in zip(_value_labels(at, fit), seen) if s],
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


def _shown_rows(attribute):
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


def plot_evidence(model, max_attributes=8, path=None):
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

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure

    summary = model_summary(model)
    classes, attrs, gaussian = summary["classes"], summary["attributes"], summary["gaussian"]
    labels = [_short(c, CLASS_LABEL_WIDTH) for c in classes]
    ranking = summary["ranking"]
    panels = ranking[:max_attributes]
    n_classes = len(classes)
    transposed, per_row, rotation, numbers = _layout(n_classes)
    label_room = 0.09 * max(len(c) for c in labels) if rotation else 0.25

    def panel_height(p):
        if p["kind"] == "gaussian" or transposed:
            return 0.24 * n_classes + 1.3 + (0.09 * 14 if p["kind"] != "gaussian" else 0.4)
        return 0.3 * len(_shown_rows(p)) + 1.2 + label_room

    rows = [panels[i:i + per_row] for i in range(0, len(panels), per_row)]
    ranked = ranking[:MAX_RANKED]
    heights = [max(4.6, 0.22 * len(ranked) + 1.4)] + [max(2.2, max(panel_height(p) for p in row)) for row in rows]
    fig = Figure(figsize=(14, sum(heights) + 1.2), layout="constrained")
    grid = fig.add_gridspec(1 + len(rows), 2, height_ratios=heights)
    fig.suptitle(f"Naive Bayes model: {n_classes} classes, {summary['n_cases']:g} training cases, "
                 f"{len(attrs) + len(gaussian)} attributes used" + (f"\n{summary['note']}" if summary["note"] else ""),
                 fontsize=14, fontweight="bold")

    _ranking_chart(fig.add_subplot(grid[0, 0]), ranking, ranked, bool(gaussian))
    ax = fig.add_subplot(grid[0, 1])
    ax.axis("off")
    lines = _evidence_caption(summary, labels, panels, transposed)
    ax.text(0, 1, "\n".join(lines), va="top", ha="left", fontsize=9, family="monospace", transform=ax.transAxes)

    counted = [p for p in panels if p["kind"] != "gaussian"]
    # evidence for a class is at most log(1 / prior); against it is unbounded: one scale per side
    limit = min(max([-p["evidence"].min() for p in counted] + [1e-3]), 5.0)
    top = max([p["evidence"].max() for p in counted] + [1e-3])
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=top)
    heatmaps = []
    for r, row in enumerate(rows):
        for c, attribute in enumerate(row):
            where = grid[1 + r, c] if per_row == 2 else grid[1 + r, :]
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


def _ranking_chart(ax, ranking, ranked, gaussian):
    """The bar chart of the ``ranked`` attributes' mutual information (the top of ``ranking``)."""
    shown = ranked[::-1]
    colours = ["#dd8452" if a["kind"] == "gaussian" else "#4c72b0" for a in shown]
    ax.barh(range(len(shown)), [a["mutual_information"] for a in shown], color=colours)
    ax.set_yticks(range(len(shown)), [_short(a["name"], 28) for a in shown], fontsize=8 if len(shown) <= 25 else 7)
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
        lines += [f"  {_short(name, 20)}: {why}" for name, why in list(summary["ignored"].items())[:6]]
        if len(summary["ignored"]) > 6:
            lines.append(f"  ... and {len(summary['ignored']) - 6} more")
    if gaussian:
        lines += ["", f"Gaussian attributes ({len(gaussian)}; mean, sd per class):"]
        lines += [f"  {_short(g['name'], 20)}: " + ", ".join(f"{m:.3g} ({sd:.2g})" for m, sd in
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
    rows = _shown_rows(attribute)
    ev = attribute["evidence"][rows]
    values = [f"{_short(str(attribute['values'][r]), 22)}  (n={attribute['counts'][r]:g})" for r in rows]
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
    ax.set_title(f"#{rank} {_short(attribute['name'], 40)}  (MI {attribute['mutual_information']:.3f} bits{extra})",
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
    ax.set_xlabel(f"{_short(attribute['name'], 30)}: mean and mean +- 1 sd of each class", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"#{rank} {_short(attribute['name'], 40)}  (Gaussian; MI {attribute['mutual_information']:.3f} bits)",
                 loc="left", fontsize=10)


def _png_base64(fig):
    buffer = _io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


_HEAD = ("<!doctype html><html><head><meta charset='utf-8'><title>nbparallel model report</title>"
         "<style>body{font-family:sans-serif;margin:2em} table{border-collapse:collapse;margin:1em 0}"
         "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right} th{background:#eee}"
         "img{max-width:100%}</style></head><body>")


def _table(header, rows):
    """An HTML table; cells are escaped."""
    esc = html.escape
    return ("<table><tr>" + "".join(f"<th>{esc(str(h))}</th>" for h in header) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in row) + "</tr>" for row in rows)
            + "</table>")


def _short(text, width=24):
    """``text`` cut to ``width`` characters, with an ellipsis when cut."""
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def evidence_html(model, max_attributes=8):
    """A self-contained HTML page of a naive Bayes model: the figure and every attribute's evidence table."""
    summary = model_summary(model)
    esc = html.escape
    parts = [_HEAD, "<h1>Naive Bayes model report</h1>",
             *([f"<p><b>{esc(summary['note'])}</b></p>"] if summary["note"] else []),
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


def _feature_namer(model, feature_names):
    """A function of a feature's column index to its label: given names, a ``{column: [words]}`` mapping of
    hashed columns (several words may share one), the model's ``feature_names_in_``, or ``#j``."""
    names = getattr(model, "feature_names_in_", None) if feature_names is None else feature_names
    if names is None:
        return lambda j: f"#{j}"
    if isinstance(names, dict):
        def hashed(j):
            words = names.get(j)
            if not words:
                return f"#{j}"
            return " / ".join(words[:2]) + (f" +{len(words) - 2}" if len(words) > 2 else "")
        return hashed
    names = list(names)
    if len(names) != model.n_features_in_:
        raise ValueError(f"feature_names has {len(names)} names for {model.n_features_in_} features")
    return lambda j: str(names[j])


def text_summary(model, max_features=15, feature_names=None):
    """Each class's most telling features: those of largest evidence for it, among the features it has.

    The evidence of feature j for class k is ``log P(j | k) - log sum_l pi_l P(j | l)`` from
    ``feature_log_prob_`` and ``class_log_prior_``, that is ``log P(k | j) - log pi_k``: how much the
    feature (a word drawn, for the multinomial model; present, for the Bernoulli model) moves the
    log-odds of the class from its prior.

    Parameters
    ----------
    model : fitted MultinomialNaiveBayes or BernoulliNaiveBayes
    max_features : int
        Features per class.
    feature_names : sequence of str or dict, optional
        Names of the features, or ``{column: [word, ...]}`` of hashed columns
        (:func:`nbparallel.data.documents.hashed_words`); by default the
        model's ``feature_names_in_``, else ``#j``.

    Returns
    -------
    dict with ``model`` ("multinomial" or "bernoulli"), ``n_documents``,
    ``n_features``, ``n_seen`` (features with a count), ``named`` (whether
    features have names) and ``classes``: per class a dict with ``name``,
    ``prior``, ``documents`` and ``features`` (each ``index``, ``name``,
    ``evidence`` (nats), ``count`` in the class and ``total`` count).
    """
    check_is_fitted(model, "feature_count_")
    name_of = _feature_namer(model, feature_names)
    counts = model.feature_count_
    seen = np.flatnonzero(counts.sum(axis=0) > 0)
    logp = model.feature_log_prob_[:, seen]
    evidence = logp - logsumexp(logp + model.class_log_prior_[:, None], axis=0)
    classes = []
    for k, c in enumerate(model.classes_):
        in_class = counts[k, seen]
        order = np.lexsort((-in_class, -evidence[k]))
        order = order[in_class[order] > 0][:max_features]
        classes.append({
            "name": str(c), "prior": float(np.exp(model.class_log_prior_[k])),
            "documents": float(model.class_count_[k]),
            "features": [{"index": int(seen[i]), "name": name_of(int(seen[i])), "evidence": float(evidence[k, i]),
                          "count": float(in_class[i]), "total": float(counts[:, seen[i]].sum())} for i in order],
        })
    return {"model": report_sections(model)["name"],
            "n_documents": float(model.class_count_.sum()), "n_features": int(counts.shape[1]),
            "n_seen": int(len(seen)), "named": feature_names is not None or hasattr(model, "feature_names_in_"),
            "classes": classes}


def _text_caption(summary):
    what = "present in a document" if summary["model"] == "bernoulli" else "drawn (one occurrence)"
    lines = ["How to read the panels", "",
             "Each bar: a feature's evidence for the class,",
             "  log P(feature | class) - log P(feature)",
             "  = log P(class | feature) - log P(class),",
             f"from feature_log_prob_: the feature {what}",
             "moves the class's log-odds by this much.",
             "Features ranked by it, among those the class has;",
             "n = the feature's count in the class."]
    if not summary["named"]:
        lines += ["", "#j: hashed feature j; name the features by the",
                  "words of a corpus: --documents DOCS (CLI) or",
                  "feature_names=hashed_words(DOCS, n_features)."]
    return lines


def plot_text(model, max_features=15, feature_names=None, path=None):
    """Draw a text model: documents per class and, per class, its most telling features (see :func:`text_summary`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    summary = text_summary(model, max_features, feature_names)
    classes = summary["classes"]
    panels = classes[:MAX_CLASS_PANELS]
    n_rows = (len(panels) + 1) // 2
    shown = max([len(c["features"]) for c in panels] + [1])
    heights = [max(3.4, 0.26 * min(len(classes), 25) + 1.2)] + [0.27 * shown + 1.0] * n_rows
    fig = Figure(figsize=(13, sum(heights) + 1.0), layout="constrained")
    grid = fig.add_gridspec(1 + n_rows, 2, height_ratios=heights)
    fig.suptitle(f"{summary['model'].capitalize()} naive Bayes model: {len(classes)} classes, "
                 f"{summary['n_documents']:g} training documents, {summary['n_seen']} of {summary['n_features']} "
                 "features seen", fontsize=14, fontweight="bold")

    ax = fig.add_subplot(grid[0, 0])
    listed = classes[:25][::-1]
    ax.barh([_short(c["name"]) for c in listed], [c["documents"] for c in listed], color="#4c72b0")
    for i, c in enumerate(listed):
        ax.text(c["documents"], i, f" {c['prior']:.1%}", va="center", fontsize=8)
    ax.set_xlabel("training documents (prior P(class) at the bar's end)")
    ax.set_title("Documents per class", loc="left", fontsize=11)
    ax.margins(x=0.15)
    ax.tick_params(axis="y", labelsize=8)

    ax = fig.add_subplot(grid[0, 1])
    ax.axis("off")
    lines = _text_caption(summary)
    if len(classes) > len(panels):
        lines += ["", f"Panels for the first {len(panels)} of {len(classes)} classes."]
    ax.text(0, 1, "\n".join(lines), va="top", ha="left", fontsize=9.5, family="monospace", transform=ax.transAxes)

    top = max([f["evidence"] for c in panels for f in c["features"]] + [1e-3])
    low = min([f["evidence"] for c in panels for f in c["features"]] + [0.0])
    for i, c in enumerate(panels):
        ax = fig.add_subplot(grid[1 + i // 2, i % 2])
        features = c["features"][::-1]
        values = [f["evidence"] for f in features]
        ax.barh(range(len(features)), values, color=["#2166ac" if v > 0 else "#b2182b" for v in values])
        ax.set_yticks(range(len(features)), [f"{_short(f['name'], 30)}  (n={f['count']:g})" for f in features],
                      fontsize=8)
        ax.set_xlim(low * 1.05, top * 1.05)
        ax.axvline(0, color="black", linewidth=0.6)
        ax.set_title(f"{_short(c['name'], 40)}: {c['documents']:g} documents, prior {c['prior']:.1%}",
                     loc="left", fontsize=10)
        if not features:
            ax.text(0.5, 0.5, "no feature counted in this class", ha="center", va="center", transform=ax.transAxes)
        if i >= len(panels) - 2:
            ax.set_xlabel("evidence for the class (nats)")
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def text_html(model, max_features=15, feature_names=None):
    """A self-contained HTML page of a text model: the figure and every class's most telling features."""
    summary = text_summary(model, max_features, feature_names)
    esc = html.escape
    parts = [_HEAD, f"<h1>{summary['model'].capitalize()} naive Bayes model report</h1>",
             f"<img alt='features' src='data:image/png;base64,"
             f"{_png_base64(plot_text(model, max_features, feature_names))}'>",
             "<p>" + esc(" ".join(line.strip() for line in _text_caption(summary)[2:])) + "</p>",
             "<h2>Classes</h2>",
             _table(["class", "documents", "prior"],
                    [(c["name"], f"{c['documents']:g}", f"{c['prior']:.4f}") for c in summary["classes"]])]
    for c in summary["classes"]:
        parts.append(f"<h3>{esc(c['name'])}: its {len(c['features'])} most telling features</h3>")
        parts.append(_table(["feature", "column", "evidence (nats)", "count in class", "count in all"],
                            [(f["name"], f["index"], f"{f['evidence']:+.4f}", f"{f['count']:g}", f"{f['total']:g}")
                             for f in c["features"]]))
    parts.append("</body></html>")
    return "".join(parts)


# ------------------------------------------------------------------ AutoClass


def cluster_summary(model):
    """Each cluster's weight and profile, and every attribute's value probabilities per cluster.

    Returns
    -------
    dict with ``clusters`` (names), ``weight`` (the prior pi_k), ``rows``
    (expected rows per cluster), ``log_posterior``, ``n_iter``,
    ``converged`` and ``attributes``, ranked by the mutual information
    (bits) between attribute and cluster from the expected counts; each a
    dict with ``name``, ``kind``, ``values`` (labels), ``probability``
    (values x clusters, P(value | cluster)), ``counts`` (expected rows per
    value), ``mode`` (the most probable value's label per cluster),
    ``mode_probability`` and ``mutual_information``.
    """
    check_is_fitted(model, "counts_")
    schema, offsets = model.schema_, model.schema_.offsets
    K = model.n_clusters
    attributes = []
    for a, at in enumerate(schema.attributes):
        cells = model.counts_[offsets[a] + 1: offsets[a + 1]]
        probability = np.exp(model.feature_log_prob_[a])
        labels = [str(c) for c in at.categories] if at.kind == CATEGORICAL else bin_labels(at.edges())
        mode = probability.argmax(axis=0)
        attributes.append({
            "name": at.name, "kind": at.kind, "values": labels, "probability": probability,
            "counts": cells.sum(axis=1), "mode": [labels[m] for m in mode],
            "mode_probability": probability[mode, np.arange(K)], "mutual_information": mutual_information(cells),
        })
    attributes.sort(key=lambda d: -d["mutual_information"])
    return {"clusters": [f"cluster {k}" for k in range(K)], "weight": np.exp(model.cluster_log_prior_),
            "rows": np.asarray(model.cluster_totals_, dtype=float), "log_posterior": float(model.history_[-1]),
            "n_iter": int(model.n_iter_), "converged": bool(model.converged_), "attributes": attributes}


def _cluster_caption(summary):
    return ["How to read it", "",
            "Cluster weight: the prior P(cluster).",
            "Profile: each attribute's most probable value",
            "in each cluster, and its probability there",
            "(the colour). Attributes are ranked by the",
            "mutual information between attribute and",
            "cluster (bits), from the expected counts:",
            "the first tell the clusters apart best.",
            "The panels below: P(value | cluster).", "",
            f"log-posterior {summary['log_posterior']:.4f} after {summary['n_iter']} EM iterations"
            + ("" if summary["converged"] else " (not converged)")]


def plot_clusters(model, max_attributes=8, path=None):
    """Draw an AutoClass model: cluster weights, the profile of every cluster, and the value probabilities of
    the ``max_attributes`` attributes that tell the clusters apart best (see :func:`cluster_summary`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    summary = cluster_summary(model)
    clusters, attrs = summary["clusters"], summary["attributes"]
    K = len(clusters)
    profiled = attrs[:30]
    labelled = K <= 8  # room for the value in a profile cell
    panels = attrs[:max_attributes]
    n_rows = (len(panels) + 1) // 2
    heights = [max(2.8, 0.3 * K + 1.2), (0.42 if labelled else 0.3) * len(profiled) + 1.4] + [
        max(2.0, 0.32 * max(len(_shown_rows(p)) for p in panels[2 * r: 2 * r + 2]) + 1.1) for r in range(n_rows)]
    fig = Figure(figsize=(13, sum(heights) + 1.0), layout="constrained")
    grid = fig.add_gridspec(2 + n_rows, 2, height_ratios=heights)
    fig.suptitle(f"AutoClass model: {K} clusters of {summary['rows'].sum():g} rows, {len(attrs)} attributes",
                 fontsize=14, fontweight="bold")

    ax = fig.add_subplot(grid[0, 0])
    ax.barh(clusters[::-1], summary["weight"][::-1], color="#4c72b0")
    for i, (w, n) in enumerate(zip(summary["weight"][::-1], summary["rows"][::-1])):
        ax.text(w, i, f" {w:.1%} (~{n:.0f} rows)", va="center", fontsize=9)
    ax.set_xlim(0, max(summary["weight"].max() * 1.35, 1e-3))
    ax.set_xlabel("cluster weight P(cluster)")
    ax.set_title("Cluster weights", loc="left", fontsize=11)

    ax = fig.add_subplot(grid[0, 1])
    ax.axis("off")
    ax.text(0, 1, "\n".join(_cluster_caption(summary)), va="top", ha="left", fontsize=9.5, family="monospace",
            transform=ax.transAxes)

    ax = fig.add_subplot(grid[1, :])
    probability = np.array([a["mode_probability"] for a in profiled]).reshape(len(profiled), K)
    image = ax.imshow(probability, cmap="YlGnBu", vmin=0, vmax=1, aspect="auto")
    ax.set_yticks(range(len(profiled)), [f"{_short(a['name'], 28)}  (MI {a['mutual_information']:.3f})"
                                         for a in profiled], fontsize=8)
    ax.set_xticks(range(K), clusters, fontsize=9)
    ax.xaxis.set_ticks_position("top")
    for (r, k), p in np.ndenumerate(probability):
        text = f"{_short(profiled[r]['mode'][k], 22)}\n{p:.0%}" if labelled else f"{p:.0%}"
        ax.text(k, r, text, ha="center", va="center", fontsize=7, color="white" if p > 0.6 else "black")
    more = f" (the first {len(profiled)} of {len(attrs)})" if len(attrs) > len(profiled) else ""
    what = "the most probable value" if labelled else "the probability of the most probable value (the values: HTML)"
    ax.set_title(f"Profiles: {what} of each attribute in each cluster{more}", loc="left", fontsize=11)
    fig.colorbar(image, ax=ax, location="right", shrink=0.8, aspect=30, label="P(value | cluster)")

    for i, attribute in enumerate(panels):
        ax = fig.add_subplot(grid[2 + i // 2, i % 2])
        rows = _shown_rows(attribute)
        p = attribute["probability"][rows]
        ax.imshow(p, cmap="YlGnBu", vmin=0, vmax=1, aspect="auto")
        ax.set_yticks(range(len(rows)), [f"{_short(attribute['values'][r])}  (n~{attribute['counts'][r]:.0f})"
                                         for r in rows], fontsize=8)
        ax.set_xticks(range(K), [str(k) for k in range(K)] if K > 6 else clusters, fontsize=9)
        ax.xaxis.set_ticks_position("top")
        for (r, k), value in np.ndenumerate(p if K <= 8 else np.empty((0, 0))):
            ax.text(k, r, f"{value:.0%}", ha="center", va="center", fontsize=7,
                    color="white" if value > 0.6 else "black")
        extra = "" if len(rows) == len(attribute["values"]) else \
            f", {len(rows)} most frequent of {len(attribute['values'])} values"
        ax.set_title(f"#{i + 1} {attribute['name']}  (MI {attribute['mutual_information']:.3f} bits{extra})",
                     loc="left", fontsize=10)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def cluster_html(model, max_attributes=8):
    """A self-contained HTML page of an AutoClass model: the figure, the profiles and every attribute's
    value probabilities per cluster."""
    summary = cluster_summary(model)
    esc = html.escape
    clusters = summary["clusters"]
    parts = [_HEAD, "<h1>AutoClass model report</h1>",
             f"<img alt='clusters' src='data:image/png;base64,{_png_base64(plot_clusters(model, max_attributes))}'>",
             f"<p>log-posterior {summary['log_posterior']:.4f} after {summary['n_iter']} EM iterations"
             + ("" if summary["converged"] else " (not converged)") + "</p>",
             "<h2>Cluster weights</h2>",
             _table(["cluster", "weight P(cluster)", "expected rows"],
                    [(c, f"{w:.4f}", f"{n:.1f}") for c, w, n in zip(clusters, summary["weight"], summary["rows"])]),
             "<h2>Profiles: the most probable value per cluster (its probability)</h2>",
             _table(["attribute", "MI (bits)", *clusters],
                    [(a["name"], f"{a['mutual_information']:.4f}",
                      *(f"{m} ({p:.2f})" for m, p in zip(a["mode"], a["mode_probability"])))
                     for a in summary["attributes"]]),
             "<h2>P(value | cluster) per attribute (ranked by mutual information)</h2>"]
    for a in summary["attributes"]:
        parts.append(f"<h3>{esc(a['name'])} &mdash; MI {a['mutual_information']:.4f} bits</h3>")
        parts.append(_table(["value", "expected rows", *clusters],
                            [(v, f"{n:.1f}", *(f"{p:.4f}" for p in row))
                             for v, n, row in zip(a["values"], a["counts"], a["probability"])]))
    parts.append("</body></html>")
    return "".join(parts)


# ------------------------------------------------------------------ any model


def plot_report(model, max_attributes=None, feature_names=None):
    """The figure of any model :func:`report_kind` knows; ``max_attributes`` defaults by kind (:data:`DEFAULT_TOP`)."""
    kind = report_kind(model)
    top = DEFAULT_TOP[kind] if max_attributes is None else max_attributes
    _check_feature_names(kind, feature_names)
    if kind == "text":
        return plot_text(model, top, feature_names)
    return plot_clusters(model, top) if kind == "clusters" else plot_evidence(model, top)


def html_report(model, max_attributes=None, feature_names=None):
    """The HTML page of any model :func:`report_kind` knows: the figure and its tables."""
    kind = report_kind(model)
    top = DEFAULT_TOP[kind] if max_attributes is None else max_attributes
    _check_feature_names(kind, feature_names)
    if kind == "text":
        return text_html(model, top, feature_names)
    return cluster_html(model, top) if kind == "clusters" else evidence_html(model, top)


def _check_feature_names(kind, feature_names):
    if feature_names is not None and kind != "text":
        raise ValueError("feature_names names the features of text models (MultinomialNaiveBayes, "
                         "BernoulliNaiveBayes) only")


def write_report(model, path, max_attributes=None, feature_names=None):
    """Write the report as PNG/SVG/PDF (the figure) or HTML (figure and tables), by suffix.

    Parameters
    ----------
    model : fitted NaiveBayes, SelectedNaiveBayes, BoostedNaiveBayes (its first learner),
        MultinomialNaiveBayes, BernoulliNaiveBayes or AutoClass
    path : str or PathLike
    max_attributes : int, optional
        Attributes drawn (features per class for a text model); default by kind, :data:`DEFAULT_TOP`.
    feature_names : sequence or dict, optional
        A text model's feature names (see :func:`text_summary`).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm"):
        text = html_report(model, max_attributes, feature_names)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    elif suffix in (".png", ".svg", ".pdf"):
        fig = plot_report(model, max_attributes, feature_names)
        tmp = path.with_name(f".{path.name}.tmp{suffix}")
        fig.savefig(tmp, dpi=110)
        tmp.replace(path)
    else:
        raise ValueError(f"report path must end in .png, .svg, .pdf or .html, got {str(path)!r}")
    return path


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
document.querySelectorAll('select, input').forEach(el => el.addEventListener('input', posterior));
document.querySelectorAll('select').forEach(el => el.addEventListener('change', posterior));
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
    of ``for_class`` (exact for two classes; for more, the rest taken as one class).

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
    for i, (a, (labels, ratio)) in enumerate(zip(attributes, axes_points)):
        y = -i
        ax.hlines(y, ratio.min(), ratio.max(), color="0.4", lw=1)
        ax.plot(ratio, np.full(len(ratio), y), "|", color="C0", ms=8)
        for label, r in zip(labels, ratio):
            ax.annotate(_short(str(label), 12), (r, y), xytext=(0, 4), textcoords="offset points", ha="center",
                        fontsize=6 if len(labels) > 8 else 7)
    ax.set_yticks([-i for i in range(len(attributes))], [_short(a["name"], 24) for a in attributes], fontsize=8)
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
    return fig


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
    ax.set_yticks(y, [_short(n, 24) for n in names], fontsize=8)
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

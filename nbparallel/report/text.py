"""Text models (multinomial and Bernoulli) as a person can read them: each class's most telling features.

The evidence of each feature (word), ``log P(j | k) - log sum_l pi_l P(j | l)``, from ``feature_log_prob_``
(for the Bernoulli model P(j | k) is the probability that word j is present); each class's most telling
features are those of largest evidence for it.
"""

from __future__ import annotations

import html

import numpy as np
from scipy.special import logsumexp

from nbparallel.models.estimator import check_is_fitted
from nbparallel.report.html import PAGE_HEAD, html_table, png_base64, short_label
from nbparallel.report.sections import report_sections


#: a text model's classes drawn, each in a panel of its own (the HTML page lists every class)
MAX_CLASS_PANELS = 12


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
    ax.barh([short_label(c["name"]) for c in listed], [c["documents"] for c in listed], color="#4c72b0")
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
        ax.set_yticks(range(len(features)), [f"{short_label(f['name'], 30)}  (n={f['count']:g})" for f in features],
                      fontsize=8)
        ax.set_xlim(low * 1.05, top * 1.05)
        ax.axvline(0, color="black", linewidth=0.6)
        ax.set_title(f"{short_label(c['name'], 40)}: {c['documents']:g} documents, prior {c['prior']:.1%}",
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
    parts = [PAGE_HEAD, f"<h1>{summary['model'].capitalize()} naive Bayes model report</h1>",
             f"<img alt='features' src='data:image/png;base64,"
             f"{png_base64(plot_text(model, max_features, feature_names))}'>",
             "<p>" + esc(" ".join(line.strip() for line in _text_caption(summary)[2:])) + "</p>",
             "<h2>Classes</h2>",
             html_table(["class", "documents", "prior"],
                    [(c["name"], f"{c['documents']:g}", f"{c['prior']:.4f}") for c in summary["classes"]])]
    for c in summary["classes"]:
        parts.append(f"<h3>{esc(c['name'])}: its {len(c['features'])} most telling features</h3>")
        parts.append(html_table(["feature", "column", "evidence (nats)", "count in class", "count in all"],
                            [(f["name"], f["index"], f"{f['evidence']:+.4f}", f"{f['count']:g}", f"{f['total']:g}")
                             for f in c["features"]]))
    parts.append("</body></html>")
    return "".join(parts)


# ------------------------------------------------------------------ AutoClass

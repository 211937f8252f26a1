"""AutoClass clusters as a person can read them: each cluster's weight (its prior) and profile, the most
probable value of every attribute in it; attributes ranked by the mutual information between attribute and
cluster, from the expected counts."""

from __future__ import annotations

import html

import numpy as np

from nbparallel.data.columns import CATEGORICAL
from nbparallel.models.estimator import check_is_fitted
from nbparallel.report.evidence import shown_rows
from nbparallel.report.html import PAGE_HEAD, html_table, png_base64, short_label
from nbparallel.report.sections import bin_labels, mutual_information


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
        max(2.0, 0.32 * max(len(shown_rows(p)) for p in panels[2 * r: 2 * r + 2]) + 1.1) for r in range(n_rows)]
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
    ax.set_yticks(range(len(profiled)), [f"{short_label(a['name'], 28)}  (MI {a['mutual_information']:.3f})"
                                         for a in profiled], fontsize=8)
    ax.set_xticks(range(K), clusters, fontsize=9)
    ax.xaxis.set_ticks_position("top")
    for (r, k), p in np.ndenumerate(probability):
        text = f"{short_label(profiled[r]['mode'][k], 22)}\n{p:.0%}" if labelled else f"{p:.0%}"
        ax.text(k, r, text, ha="center", va="center", fontsize=7, color="white" if p > 0.6 else "black")
    more = f" (the first {len(profiled)} of {len(attrs)})" if len(attrs) > len(profiled) else ""
    what = "the most probable value" if labelled else "the probability of the most probable value (the values: HTML)"
    ax.set_title(f"Profiles: {what} of each attribute in each cluster{more}", loc="left", fontsize=11)
    fig.colorbar(image, ax=ax, location="right", shrink=0.8, aspect=30, label="P(value | cluster)")

    for i, attribute in enumerate(panels):
        ax = fig.add_subplot(grid[2 + i // 2, i % 2])
        rows = shown_rows(attribute)
        p = attribute["probability"][rows]
        ax.imshow(p, cmap="YlGnBu", vmin=0, vmax=1, aspect="auto")
        ax.set_yticks(range(len(rows)), [f"{short_label(attribute['values'][r])}  (n~{attribute['counts'][r]:.0f})"
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
    parts = [PAGE_HEAD, "<h1>AutoClass model report</h1>",
             f"<img alt='clusters' src='data:image/png;base64,{png_base64(plot_clusters(model, max_attributes))}'>",
             f"<p>log-posterior {summary['log_posterior']:.4f} after {summary['n_iter']} EM iterations"
             + ("" if summary["converged"] else " (not converged)") + "</p>",
             "<h2>Cluster weights</h2>",
             html_table(["cluster", "weight P(cluster)", "expected rows"],
                    [(c, f"{w:.4f}", f"{n:.1f}") for c, w, n in zip(clusters, summary["weight"], summary["rows"])]),
             "<h2>Profiles: the most probable value per cluster (its probability)</h2>",
             html_table(["attribute", "MI (bits)", *clusters],
                    [(a["name"], f"{a['mutual_information']:.4f}",
                      *(f"{m} ({p:.2f})" for m, p in zip(a["mode"], a["mode_probability"])))
                     for a in summary["attributes"]]),
             "<h2>P(value | cluster) per attribute (ranked by mutual information)</h2>"]
    for a in summary["attributes"]:
        parts.append(f"<h3>{esc(a['name'])} &mdash; MI {a['mutual_information']:.4f} bits</h3>")
        parts.append(html_table(["value", "expected rows", *clusters],
                            [(v, f"{n:.1f}", *(f"{p:.4f}" for p in row))
                             for v, n, row in zip(a["values"], a["counts"], a["probability"])]))
    parts.append("</body></html>")
    return "".join(parts)


# ------------------------------------------------------------------ any model

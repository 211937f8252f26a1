"""AODE and TAN as a person can read them: the structure (TAN's parent of each attribute, AODE's super-parents
and frequency limit), each attribute's values and mutual information with the class, and the class prior.

Everything is read from the merged pair counts and the derived tables: the class prior is the model's smoothed
``P(c)``; an attribute's mutual information with the class (bits) is that of its value-by-class counts; TAN's
link of an attribute to its parent is their conditional mutual information given the class (bits), from the
rows where both are present; AODE's super-parents are the values seen at least ``frequency_limit`` times.
"""

from __future__ import annotations

import html

import numpy as np

from nbparallel.data.columns import CATEGORICAL
from nbparallel.models.estimator import check_is_fitted
from nbparallel.models.seminaive import conditional_mutual_information
from nbparallel.report.html import PAGE_HEAD, html_table, png_base64, short_label
from nbparallel.report.sections import bin_labels, mutual_information


def seminaive_summary(model):
    """The structure, class prior and attributes of a fitted AODE or TAN.

    Returns
    -------
    dict
        ``model`` ("AODE" or "TAN"), ``classes`` (labels as str), ``prior`` (the smoothed P(c)), ``rows`` (the
        training weight per class), ``settings`` (the estimator's parameters of the model), ``attributes`` in
        table order, each a dict with ``name``, ``kind``, ``values`` (labels), ``counts`` (weight per value),
        ``mutual_information`` (bits, with the class), and for TAN ``parent`` (a name, None for the root) and
        ``link_information`` (bits, with its parent given the class; None for the root), for AODE
        ``super_parents`` (the values that are super-parents) and ``n_super_parents``.
    """
    check_is_fitted(model, "pair_counts_")
    name = type(model).__name__
    counts = model.pair_counts_.counts
    offsets = counts.offsets
    tables = model.tables_
    information = conditional_mutual_information(model.pair_counts_) / np.log(2) if name == "TAN" else None
    attributes = []
    for a, at in enumerate(model.schema_.counted().attributes):
        cells = counts.attribute(a)
        labels = [str(c) for c in at.categories] if at.kind == CATEGORICAL else bin_labels(model.bin_edges_[at.name])
        entry = {"name": at.name, "kind": at.kind, "values": labels, "counts": cells.sum(axis=1),
                 "mutual_information": mutual_information(cells)}
        if name == "TAN":
            parent = int(tables.parents[a])
            entry["parent"] = None if parent < 0 else model.schema_.counted().attributes[parent].name
            entry["link_information"] = None if parent < 0 else float(information[a, parent])
        else:
            ok = tables.parent_ok[offsets[a] + 1 : offsets[a + 1]]
            entry["super_parents"] = [v for v, flag in zip(labels, ok) if flag]
            entry["n_super_parents"] = int(ok.sum())
        attributes.append(entry)
    settings = ({"frequency_limit": model.frequency_limit, "m_estimate": model.m_estimate} if name == "AODE"
                else {"alpha": model.alpha, "link_score": model.link_score})
    return {"model": name, "classes": [str(c) for c in model.classes_], "prior": np.exp(tables.log_prior),
            "rows": counts.class_totals.copy(), "settings": {**settings, "n_bins": model.n_bins},
            "attributes": attributes}


def _structure_lines(summary):
    """The structure as lines of text: TAN's tree (each attribute under its parent), AODE's super-parents."""
    attributes = summary["attributes"]
    if summary["model"] == "AODE":
        limit = summary["settings"]["frequency_limit"]
        return [f"Super-parents: values seen >= {limit:g} times", ""] + [
            f"{short_label(a['name'], 26)}: {a['n_super_parents']} of {len(a['values'])} values" for a in attributes]
    children = {}
    for a in attributes:
        children.setdefault(a["parent"], []).append(a)
    lines = ["Tree: each attribute under its parent", "(besides the class), CMI in bits", ""]

    def walk(parent, depth):
        for child in children.get(parent, []):
            link = "root" if child["parent"] is None else f"{child['link_information']:.3f}"
            lines.append(f"{'  ' * depth}{short_label(child['name'], 26)} ({link})")
            walk(child["name"], depth + 1)

    walk(None, 0)
    return lines


def plot_seminaive(model, max_attributes=8, path=None):
    """Draw an AODE or TAN: the class prior, the structure, and the ``max_attributes`` attributes of most
    mutual information with the class (see :func:`seminaive_summary`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    summary = seminaive_summary(model)
    ranked = sorted(summary["attributes"], key=lambda a: -a["mutual_information"])[:max_attributes]
    structure = _structure_lines(summary)
    height = max(3.0, 0.22 * len(structure) + 1.0, 0.35 * len(ranked) + 1.5)
    fig = Figure(figsize=(13, height + 3.2), layout="constrained")
    grid = fig.add_gridspec(2, 2, height_ratios=[3.0, height])
    fig.suptitle(f"{summary['model']} model: {len(summary['classes'])} classes, {len(summary['attributes'])} "
                 f"attributes, {summary['rows'].sum():g} rows", fontsize=14, fontweight="bold")
    ax = fig.add_subplot(grid[0, 0])
    ax.barh(summary["classes"][::-1], summary["prior"][::-1], color="#4c72b0")
    for i, p in enumerate(summary["prior"][::-1]):
        ax.text(p, i, f" {p:.1%}", va="center", fontsize=9)
    ax.set_xlim(0, max(summary["prior"].max() * 1.3, 1e-3))
    ax.set(xlabel="P(class)", title="Class prior")
    ax = fig.add_subplot(grid[0, 1])
    ax.axis("off")
    settings = ", ".join(f"{k}={v!r}" for k, v in summary["settings"].items())
    ax.text(0, 1, f"Settings: {settings}\n\nMutual information: of each attribute's\nvalues with the class (bits)"
            + ("; a link's, with its\nparent given the class" if summary["model"] == "TAN" else ""),
            va="top", fontsize=9.5, family="monospace", transform=ax.transAxes)
    ax = fig.add_subplot(grid[1, 0])
    ax.barh([short_label(a["name"], 28) for a in ranked][::-1], [a["mutual_information"] for a in ranked][::-1],
            color="#55a868")
    ax.set(xlabel="mutual information with the class (bits)",
           title=f"Attributes (the {len(ranked)} of most information)")
    ax = fig.add_subplot(grid[1, 1])
    ax.axis("off")
    ax.text(0, 1, "\n".join(structure), va="top", fontsize=9, family="monospace", transform=ax.transAxes)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def seminaive_html(model, max_attributes=8):
    """A self-contained HTML page of an AODE or TAN: the figure, the class prior, the structure and every
    attribute's values."""
    summary = seminaive_summary(model)
    esc = html.escape
    tan = summary["model"] == "TAN"
    parts = [PAGE_HEAD, f"<h1>{summary['model']} model report</h1>",
             f"<img alt='model' src='data:image/png;base64,{png_base64(plot_seminaive(model, max_attributes))}'>",
             "<p>Settings: " + esc(", ".join(f"{k}={v!r}" for k, v in summary["settings"].items())) + "</p>",
             "<h2>Class prior</h2>",
             html_table(["class", "P(class)", "training weight"],
                        [(c, f"{p:.4f}", f"{n:g}") for c, p, n in zip(summary["classes"], summary["prior"],
                                                                        summary["rows"])]),
             "<h2>Structure</h2>"]
    if tan:
        parts.append(html_table(["attribute", "parent", "CMI with the parent given the class (bits)"],
                                [(a["name"], "(root)" if a["parent"] is None else a["parent"],
                                  "" if a["link_information"] is None else f"{a['link_information']:.4f}")
                                 for a in summary["attributes"]]))
    else:
        parts.append(f"<p>Super-parents: the values seen at least {summary['settings']['frequency_limit']:g} "
                     "times.</p>")
        parts.append(html_table(["attribute", "super-parent values", "of values"],
                                [(a["name"], a["n_super_parents"], len(a["values"])) for a in summary["attributes"]]))
    parts.append("<h2>Attributes</h2>")
    for a in summary["attributes"]:
        parts.append(f"<h3>{esc(a['name'])} &mdash; MI with the class {a['mutual_information']:.4f} bits</h3>")
        parts.append(html_table(["value", "training weight"], [(v, f"{n:g}") for v, n in zip(a["values"],
                                                                                               a["counts"])]))
    parts.append("</body></html>")
    return "".join(parts)

"""The report of any model :func:`~nbparallel.report.sections.report_kind` knows: its figure (PNG, SVG, PDF)
or its HTML page (the figure and its tables), written by the path's suffix (:func:`write_report`)."""

from __future__ import annotations

from pathlib import Path

from nbparallel.report.clusters import cluster_html, plot_clusters
from nbparallel.report.evidence import evidence_html, plot_evidence
from nbparallel.report.sections import report_kind
from nbparallel.report.seminaive import plot_seminaive, seminaive_html
from nbparallel.report.text import plot_text, text_html


#: the default of ``max_attributes`` by kind of report: attributes drawn, or features per class
DEFAULT_TOP = {"naive Bayes": 8, "text": 15, "clusters": 8, "semi-naive": 8}


def plot_report(model, max_attributes=None, feature_names=None, explained=None):
    """The figure of any model :func:`report_kind` knows; ``max_attributes`` defaults by kind (:data:`DEFAULT_TOP`);
    ``explained``: one prediction drawn beside a naive Bayes model's panels (see :func:`write_report`)."""
    kind = report_kind(model)
    top = DEFAULT_TOP[kind] if max_attributes is None else max_attributes
    _check_options(kind, feature_names, explained)
    if kind == "text":
        return plot_text(model, top, feature_names)
    if kind == "semi-naive":
        return plot_seminaive(model, top)
    return plot_clusters(model, top) if kind == "clusters" else plot_evidence(model, top, explained=explained)


def html_report(model, max_attributes=None, feature_names=None, explained=None):
    """The HTML page of any model :func:`report_kind` knows: the figure and its tables (and ``explained``, one
    prediction's evidence, for a naive Bayes model; see :func:`write_report`)."""
    kind = report_kind(model)
    top = DEFAULT_TOP[kind] if max_attributes is None else max_attributes
    _check_options(kind, feature_names, explained)
    if kind == "text":
        return text_html(model, top, feature_names)
    if kind == "semi-naive":
        return seminaive_html(model, top)
    return cluster_html(model, top) if kind == "clusters" else evidence_html(model, top, explained)


def _check_options(kind, feature_names, explained):
    if feature_names is not None and kind != "text":
        raise ValueError("feature_names names the features of text models (MultinomialNaiveBayes, "
                         "BernoulliNaiveBayes) only")
    if explained is not None and kind != "naive Bayes":
        raise ValueError(f"the report draws one prediction's evidence for naive Bayes models; this is a {kind} model")


def write_report(model, path, max_attributes=None, feature_names=None, explained=None):
    """Write the report as PNG/SVG/PDF (the figure) or HTML (figure and tables), by suffix.

    Parameters
    ----------
    model : fitted NaiveBayes, SelectedNaiveBayes, BoostedNaiveBayes (its first learner),
        MultinomialNaiveBayes, BernoulliNaiveBayes, AutoClass, AODE or TAN
    path : str or PathLike
    max_attributes : int, optional
        Attributes drawn (features per class for a text model); default by kind, :data:`DEFAULT_TOP`.
    feature_names : sequence or dict, optional
        A text model's feature names (see :func:`text_summary`).
    explained : dict, optional
        A naive Bayes model's prediction to show beside its evidence panels: a waterfall of its ``explain``
        row, from :func:`~nbparallel.report.waterfall.explained_row`.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm"):
        text = html_report(model, max_attributes, feature_names, explained)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    elif suffix in (".png", ".svg", ".pdf"):
        fig = plot_report(model, max_attributes, feature_names, explained)
        tmp = path.with_name(f".{path.name}.tmp{suffix}")
        fig.savefig(tmp, dpi=110)
        tmp.replace(path)
    else:
        raise ValueError(f"report path must end in .png, .svg, .pdf or .html, got {str(path)!r}")
    return path

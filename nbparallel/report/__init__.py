"""A fitted model as a person can read it: what its values say about the classes (naive Bayes), each
class's most telling words (text models), its clusters' profiles (AutoClass), a nomogram, and the evidence
of one prediction.

One module an idea: :mod:`~nbparallel.report.sections` (which report draws a model, shared labels and mutual
information), :mod:`~nbparallel.report.evidence` (naive Bayes' evidence panels),
:mod:`~nbparallel.report.text`, :mod:`~nbparallel.report.clusters`, :mod:`~nbparallel.report.seminaive` (AODE
and TAN), :mod:`~nbparallel.report.nomogram`,
:mod:`~nbparallel.report.waterfall` (one prediction), :mod:`~nbparallel.report.html` (what the HTML pages
share) and :mod:`~nbparallel.report.pages` (:func:`write_report`: any model's figure or HTML page, by the
path's suffix).
"""

from nbparallel.report.clusters import cluster_html, cluster_summary, plot_clusters
from nbparallel.report.evidence import (CLASS_LABEL_WIDTH, EVIDENCE_CAPTION, MAX_CLASS_COLUMNS, MAX_RANKED,
                                        MAX_VALUES_SHOWN, evidence_html, gaussian_mutual_information, model_summary,
                                        plot_evidence)
from nbparallel.report.sections import bin_labels, mutual_information, report_kind, report_sections
from nbparallel.report.nomogram import nomogram_data, nomogram_html, plot_nomogram, write_nomogram
from nbparallel.report.pages import DEFAULT_TOP, html_report, plot_report, write_report
from nbparallel.report.seminaive import plot_seminaive, seminaive_html, seminaive_summary
from nbparallel.report.text import MAX_CLASS_PANELS, plot_text, text_html, text_summary
from nbparallel.report.waterfall import explained_row, plot_explanation

__all__ = ["CLASS_LABEL_WIDTH", "DEFAULT_TOP", "EVIDENCE_CAPTION", "MAX_CLASS_COLUMNS", "MAX_CLASS_PANELS",
           "MAX_RANKED", "MAX_VALUES_SHOWN", "bin_labels", "cluster_html", "cluster_summary", "evidence_html",
           "explained_row", "gaussian_mutual_information", "html_report", "model_summary", "mutual_information",
           "nomogram_data", "nomogram_html", "plot_clusters", "plot_evidence", "plot_explanation", "plot_nomogram",
           "plot_report", "plot_seminaive", "plot_text", "report_kind", "report_sections", "seminaive_html",
           "seminaive_summary", "text_html", "text_summary", "write_nomogram",
           "write_report"]

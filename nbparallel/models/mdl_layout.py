"""The MDL intervals of AODE's and TAN's ``n_bins="mdl"``: cuts found as naive Bayes finds them, and the layout
of the pair counts over them.

A fit counts every numeric attribute in :data:`~nbparallel.models.discretisation.FINE_BINS` equal-width bins per
class (a :class:`~nbparallel.summaries.counts.CountTable`, one pass), cuts each as
``NaiveBayes(n_bins="mdl")`` cuts it (empty-bin elimination, then Fayyad and Irani's MDL cuts,
:mod:`nbparallel.models.discretisation`), and then counts the pairs of the intervals. Every cut lies in a gap
of empty fine bins (or on the edge between two non-empty ones), so a training value's fine bin tells its
interval: the pair-counting pass recodes fine codes (:class:`~nbparallel.summaries.pair_counts.Recoding`),
while scoring bins values at the cuts themselves (:func:`interval_spec`).
"""

from __future__ import annotations

import numpy as np

from nbparallel.data.columns import NUMERIC
from nbparallel.models.attribute_kinds import final_bins_of_counting_bins, merged_bins
from nbparallel.models.discretisation import mdl_intervals
from nbparallel.summaries.counts import CountSpec
from nbparallel.summaries.pair_counts import Recoding


def mdl_bin_edges(schema, fine_counts):
    """``{name: inner edges}`` of every numeric attribute of ``schema`` (binned in fine bins) from its per-class
    counts ``fine_counts`` (a CountTable of ``schema.counted()``'s layout): the cuts of ``NaiveBayes(n_bins="mdl")``
    on the same counts; no edge where no cut is accepted."""
    edges = {}
    for a, at in enumerate(schema.counted().attributes):
        if at.kind == NUMERIC:
            cells = fine_counts.attribute(a)
            kept, gaps = merged_bins(cells.sum(axis=1), at.edges())
            edges[at.name] = mdl_intervals(cells[kept], gaps)[1]
    return edges


def interval_offsets(schema, bin_edges):
    """The table offsets of ``schema``'s counted attributes with each numeric one in ``len(edges) + 1`` intervals
    (missing row first)."""
    sizes = [len(bin_edges[at.name]) + 2 if at.kind == NUMERIC else at.n_values + 1
             for at in schema.counted().attributes]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def interval_spec(schema, bin_edges):
    """The :class:`~nbparallel.summaries.counts.CountSpec` that codes rows split by ``schema`` into the intervals
    of ``bin_edges`` (numeric values binned at the cuts, right-closed as every bin), for scoring."""
    numeric = [bin_edges[at.name] for at in schema.counted().binned_attributes()]
    edges = np.full((len(numeric), max([len(e) for e in numeric] + [0])), np.inf)
    for j, e in enumerate(numeric):
        edges[j, : len(e)] = e
    return CountSpec(schema.counted(), interval_offsets(schema, bin_edges), edges)


def interval_recoding(schema, bin_edges):
    """The :class:`~nbparallel.summaries.pair_counts.Recoding` of ``schema``'s fine codes into the intervals of
    ``bin_edges``, for counting (exact for the training values, which lie in non-empty fine bins)."""
    maps = []
    for at in schema.counted().attributes:
        if at.kind != NUMERIC:
            maps.append(None)
            continue
        final, _ = final_bins_of_counting_bins(at.edges(), np.asarray(bin_edges[at.name], dtype=np.float64))
        maps.append(np.concatenate([[0], final + 1]).astype(np.int64))
    return Recoding(tuple(maps), interval_offsets(schema, bin_edges))

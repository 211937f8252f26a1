"""Merge laws of count tables (property-based) and their plain-array round trip."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbparallel.summaries.counts import CountTable, merge_tables

OFFSETS = np.array([0, 3, 7, 9])


@st.composite
def tables(draw, offsets=OFFSETS, n_classes=3):
    rows = int(offsets[-1])
    cells = draw(st.lists(st.integers(0, 2**40), min_size=rows * n_classes, max_size=rows * n_classes))
    totals = draw(st.lists(st.integers(0, 2**40), min_size=n_classes, max_size=n_classes))
    missing = [draw(st.integers(0, t)) for t in totals]
    return CountTable(
        np.array(cells, dtype=float).reshape(rows, n_classes), offsets,
        np.array(totals, dtype=float), np.array(missing, dtype=float), draw(st.integers(0, 1000)),
    )


@settings(max_examples=60, deadline=None)
@given(tables(), tables(), tables())
def test_merge_is_associative_and_commutative_and_exact(a, b, c):
    assert a.merge(b).equals(b.merge(a))
    assert a.merge(b).merge(c).equals(a.merge(b.merge(c)))
    assert merge_tables(a, b, c).equals(a.merge(b).merge(c))
    # integer counts below 2**53 add exactly
    np.testing.assert_array_equal(a.merge(b).table.astype(np.int64), a.table.astype(np.int64) + b.table.astype(np.int64))


@settings(max_examples=30, deadline=None)
@given(tables())
def test_empty_table_is_the_identity(a):
    empty = CountTable.empty(OFFSETS, 3)
    assert a.merge(empty).equals(a) and empty.merge(a).equals(a)


@settings(max_examples=30, deadline=None)
@given(tables())
def test_dict_round_trip(a):
    assert CountTable.from_dict(a.to_dict()).equals(a)


def test_merging_different_layouts_is_refused():
    a = CountTable.empty(OFFSETS, 3)
    with pytest.raises(ValueError, match="different layouts"):
        a.merge(CountTable.empty([0, 3, 7], 3))
    with pytest.raises(TypeError, match="CountTable"):
        a.merge({"table": []})


def test_reindex_moves_counts_to_new_positions():
    table = CountTable(np.arange(10.0).reshape(5, 2), np.array([0, 3, 5]), np.array([4.0, 6.0]), np.zeros(2), 1)
    # attribute 0 gains a value in front, attribute 1 keeps its one value; a third class appears first
    out = table.reindex([[1, 2], [0]], [3, 1], np.array([1, 2]), 3)
    np.testing.assert_array_equal(out.offsets, [0, 4, 6])
    np.testing.assert_array_equal(out.table[:, 1:], [[0, 1], [0, 0], [2, 3], [4, 5], [6, 7], [8, 9]])
    np.testing.assert_array_equal(out.table[:, 0], 0)
    np.testing.assert_array_equal(out.class_totals, [0, 4, 6])

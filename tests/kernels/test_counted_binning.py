"""Binning by the count of edges below each value, 8 attributes at a time, against np.searchsorted."""

import numpy as np
import pytest

from nbparallel.kernels import bin_values
from nbparallel.kernels.binning import COUNTED_EDGES


def searchsorted_codes(values, edges, n_bins):
    """1 + np.searchsorted(edges_j, x, side='left'), 0 for NaN: what every binning must give."""
    codes = np.zeros(values.shape, np.int64)
    for j in range(values.shape[1]):
        inner = edges[j, : n_bins[j] - 1]
        column = values[:, j].astype(np.float64)
        codes[:, j] = np.where(np.isnan(column), 0, 1 + np.searchsorted(inner, column, side="left"))
    return codes


def case(rng, n_rows, n_bins, regular):
    """Values around and on the edges (NaN, infinities, the edges themselves) and the padded edges."""
    n_bins = np.asarray(n_bins, np.int64)
    f_num = len(n_bins)
    width = max(1, int(n_bins.max()) - 1)
    edges = np.full((f_num, width), np.inf)
    for j, b in enumerate(n_bins):
        inner = np.linspace(-1.0, 2.0, b + 1)[1:-1] if regular else np.sort(rng.normal(size=b - 1))
        edges[j, : b - 1] = inner
    values = rng.normal(0.5, 1.5, (n_rows, f_num))
    flat = values.ravel()
    picks = rng.integers(0, flat.size, flat.size // 5)
    finite = edges[np.isfinite(edges)]
    if finite.size:
        flat[picks] = rng.choice(finite, picks.size)  # exactly on an edge: the bin left of it
    flat[rng.integers(0, flat.size, flat.size // 20)] = np.nan
    flat[rng.integers(0, flat.size, 3)] = np.inf
    flat[rng.integers(0, flat.size, 3)] = -np.inf
    return values, edges, n_bins


@pytest.mark.parametrize("f_num", [1, 3, 7, 8, 9, 20, 33])
@pytest.mark.parametrize("regular", [True, False])
def test_counted_binning_matches_searchsorted(f_num, regular):
    rng = np.random.default_rng(f_num * 2 + regular)
    n_bins = rng.integers(1, COUNTED_EDGES + 2, f_num)  # 1 bin (no edge) up to COUNTED_EDGES edges
    values, edges, n_bins = case(rng, 1001, n_bins, regular)
    np.testing.assert_array_equal(bin_values(values, edges, n_bins), searchsorted_codes(values, edges, n_bins))


@pytest.mark.parametrize("n_rows", [1, 2, 3])
def test_counted_binning_of_the_last_rows_reads_nothing_past_the_array(n_rows):
    """A short last row is read by a masked load; a slice of a larger array gets no codes past its rows."""
    rng = np.random.default_rng(n_rows)
    values, edges, n_bins = case(rng, n_rows + 5, [10, 4, 7], True)
    block = values[:n_rows]
    np.testing.assert_array_equal(bin_values(block, edges, n_bins), searchsorted_codes(block, edges, n_bins))


@pytest.mark.parametrize("layout", ["float32", "fortran", "strided"])
def test_binning_of_other_layouts_matches_searchsorted(layout):
    rng = np.random.default_rng(5)
    values, edges, n_bins = case(rng, 500, [10] * 12, True)
    values = {"float32": values.astype(np.float32), "fortran": np.asfortranarray(values),
              "strided": values[::2]}[layout]
    np.testing.assert_array_equal(bin_values(values, edges, n_bins), searchsorted_codes(values, edges, n_bins))


def test_many_edges_take_the_guess_and_match_searchsorted():
    rng = np.random.default_rng(9)
    values, edges, n_bins = case(rng, 300, [COUNTED_EDGES + 2, 300], True)
    np.testing.assert_array_equal(bin_values(values, edges, n_bins), searchsorted_codes(values, edges, n_bins))

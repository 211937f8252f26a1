"""The compiled per-class moments pass and the Gaussian scoring kernel, against numpy and scipy."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from nbparallel.kernels.moments import class_moments
from nbparallel.kernels.scoring import gaussian_log_likelihoods


def _two_pass(X, y, w, n_classes):
    """Weighted count, mean and M2 per class and column, NaN skipped: the mean first, then deviations."""
    shape = (n_classes, X.shape[1])
    n, mean, m2 = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for k in range(n_classes):
        for j in range(X.shape[1]):
            rows = (y == k) & ~np.isnan(X[:, j])
            x, wk = X[rows, j], w[rows]
            n[k, j] = wk.sum()
            if n[k, j]:
                mean[k, j] = (wk * x).sum() / n[k, j]
                m2[k, j] = (wk * (x - mean[k, j]) ** 2).sum()
    return n, mean, m2


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_class_moments_equal_two_passes_with_missing_values_and_targets(weighted, dtype):
    rng = np.random.default_rng(0)
    X = rng.normal(5, 2, (500, 4)).astype(dtype)
    X[rng.random(X.shape) < 0.15] = np.nan
    X[:40, :] = np.nan  # rows with nothing known
    y = rng.integers(-1, 3, 500)
    w = rng.uniform(0, 3, 500) if weighted else np.ones(500)
    n, mean, _, m2, none_present = class_moments(X, [0, 1, 2, 3], y, w if weighted else None, 3)
    ref_n, ref_mean, ref_m2 = _two_pass(X.astype(np.float64), y, w, 3)
    np.testing.assert_allclose(n, ref_n, rtol=1e-13)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-12)
    np.testing.assert_allclose(m2, ref_m2, rtol=1e-10)
    nothing = np.isnan(X).all(axis=1)
    np.testing.assert_allclose(none_present, [w[nothing & (y == k)].sum() for k in range(3)], rtol=1e-13)


def test_columns_are_chosen_and_ordered_as_asked_in_any_layout():
    rng = np.random.default_rng(1)
    X = np.asfortranarray(rng.normal(0, 1, (300, 6)))
    y = rng.integers(0, 2, 300)
    for columns in ([4, 1, 2], [2, 3, 4], [5]):
        n, mean, _, m2, _ = class_moments(X, columns, y, None, 2)
        ref = _two_pass(np.ascontiguousarray(X[:, columns]), y, np.ones(300), 2)
        np.testing.assert_allclose(mean, ref[1], rtol=1e-12)
        np.testing.assert_allclose(m2, ref[2], rtol=1e-10)


def test_offset_data_keeps_its_variance():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 20_000)
    X = 1e9 + y[:, None] + rng.normal(0, 1e-3, (20_000, 2))
    n, mean, low, m2, _ = class_moments(X, [0, 1], y, None, 2)
    for k in range(2):
        for j in range(2):
            x = X[y == k, j]
            d = x - x[0]  # exact (Sterbenz); then an exactly rounded two-pass about the unrounded mean
            centre = math.fsum(d) / len(d)
            exact = math.fsum((d - centre) ** 2)
            assert m2[k, j] == pytest.approx(exact, rel=1e-9)
            assert mean[k, j] == pytest.approx(x[0] + centre, rel=1e-15)
            assert (mean[k, j] - x[0]) + low[k, j] == pytest.approx(centre, rel=1e-12)  # the low part


def test_a_class_or_column_without_values_has_zero_moments():
    X = np.array([[1.0, np.nan], [3.0, np.nan]])
    n, mean, _, m2, none_present = class_moments(X, [0, 1], np.array([0, 0]), None, 2)
    assert n.tolist() == [[2.0, 0.0], [0.0, 0.0]]
    assert mean.tolist() == [[2.0, 0.0], [0.0, 0.0]] and m2.tolist() == [[2.0, 0.0], [0.0, 0.0]]
    assert none_present.tolist() == [0.0, 0.0]


def test_bad_arguments_are_errors_not_reads_out_of_bounds():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="columns"):
        class_moments(X, [2], np.zeros(3, int), None, 1)
    with pytest.raises(ValueError, match="class codes below 2"):
        class_moments(X, [0], np.array([0, 1, 2]), None, 2)
    with pytest.raises(TypeError, match="integer"):
        class_moments(X, [0], np.zeros(3), None, 1)
    with pytest.raises(TypeError):
        class_moments(X.astype(np.int64), [0], np.zeros(3, int), None, 1)


def test_gaussian_log_likelihoods_equal_scipy_and_skip_missing_values():
    rng = np.random.default_rng(3)
    X = rng.normal(0, 2, (200, 5))
    X[rng.random(X.shape) < 0.1] = np.nan
    theta, var = rng.normal(0, 1, (3, 3)), rng.uniform(0.5, 3, (3, 3))
    var[1, 2] = np.nan  # a class without this attribute's variance: adds nothing
    columns = [4, 0, 2]
    expected = np.zeros((200, 3))
    for k in range(3):
        for j, c in enumerate(columns):
            term = norm.logpdf(X[:, c], theta[k, j], np.sqrt(var[k, j]))
            expected[:, k] += np.where(np.isnan(X[:, c]) | np.isnan(var[k, j]), 0.0, term)
    np.testing.assert_allclose(gaussian_log_likelihoods(X, columns, theta, var), expected, rtol=1e-12, atol=1e-12)
    contiguous = gaussian_log_likelihoods(np.asfortranarray(X), [1, 2, 3], theta, var)
    np.testing.assert_allclose(contiguous, gaussian_log_likelihoods(X[:, [1, 2, 3]].copy(), [0, 1, 2], theta, var),
                               rtol=1e-13)
    with pytest.raises(ValueError, match="theta and var"):
        gaussian_log_likelihoods(X, [0, 1], theta, var)

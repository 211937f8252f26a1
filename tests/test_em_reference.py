"""AutoClass EM against a plain numpy EM from the same start, and its E-step kernel against numpy."""

import numpy as np
import pytest
from scipy.special import logsumexp

from nbparallel.kernels.checks import CheckedCodes
from nbparallel.kernels.clusters import expected_counts
from nbparallel.models.autoclass import AutoClass, random_counts


def numpy_e_step(codes, offsets, log_table, log_prior, n_clusters, weights):
    """Expected counts, sizes and log-likelihoods of every restart, by numpy (np.add.at, logsumexp)."""
    jll = log_prior + sum(log_table[offsets[a] + codes[:, a].astype(int)] for a in range(codes.shape[1]))
    by_restart = jll.reshape(len(jll), -1, n_clusters)
    log_norm = logsumexp(by_restart, axis=2, keepdims=True)
    resp = (np.exp(by_restart - log_norm) * weights[:, None, None]).reshape(len(jll), -1)
    counts = np.zeros(log_table.shape)
    for a in range(codes.shape[1]):
        np.add.at(counts, offsets[a] + codes[:, a].astype(int), resp)
    return counts, resp.sum(axis=0), (weights[:, None] * log_norm[:, :, 0]).sum(axis=0)


@pytest.mark.parametrize("n_clusters,n_restarts", [(2, 1), (3, 1), (3, 2), (5, 1)])
def test_expected_count_kernel_matches_numpy(n_clusters, n_restarts):
    rng = np.random.default_rng(n_clusters * 10 + n_restarts)
    n, sizes = 103, [3, 5, 2, 4]  # a row count no multiple of 4; code 0 is the missing row
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    codes = np.column_stack([rng.integers(0, s, n) for s in sizes]).astype(np.uint8)
    table = np.log(rng.random((offsets[-1], n_clusters * n_restarts)))
    table[offsets[:-1]] = 0.0  # a missing value contributes nothing
    log_prior = np.log(rng.dirichlet(np.ones(n_clusters), n_restarts)).ravel()
    weights = rng.integers(0, 3, n).astype(float)
    first, second = np.asfortranarray(codes[:, :3]), codes[:, 3:].astype(np.uint16)
    got = expected_counts(CheckedCodes(first, second, offsets), table, log_prior, n_clusters, weights)
    for g, e in zip(got, numpy_e_step(codes, offsets, table, log_prior, n_clusters, weights)):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


def test_checked_codes_refuse_a_code_outside_its_rows():
    offsets = np.array([0, 3, 5], dtype=np.int64)
    codes = np.array([[1, 1], [2, 2]], dtype=np.uint8)  # attribute 1 has rows 0..1
    with pytest.raises(ValueError, match="1 codes lie outside"):
        CheckedCodes(codes, np.empty((2, 0), np.uint8), offsets)
    with pytest.raises(TypeError, match="codes must be CheckedCodes"):
        expected_counts(codes, np.zeros((5, 2)), np.zeros(2), 2, np.ones(2))


def numpy_autoclass(codes, offsets, start, n_iter, alpha, weights):
    """Plain EM from ``start`` (expected counts and sizes): the log-posterior before each M step, the final
    counts and the responsibilities under them."""
    table, totals = start
    K = len(totals)
    history = []
    for _ in range(n_iter):
        log_prior = np.log(totals + alpha) - np.log(totals.sum() + K * alpha)
        log_table = np.zeros_like(table)
        for a in range(len(offsets) - 1):
            cells = table[offsets[a] + 1: offsets[a + 1]]
            log_table[offsets[a] + 1: offsets[a + 1]] = np.log(cells + alpha) - np.log(
                cells.sum(axis=0) + len(cells) * alpha)
        table, totals, log_likelihood = numpy_e_step(codes, offsets, log_table, log_prior, K, weights)
        history.append(log_likelihood[0] + alpha * (log_table.sum() + log_prior.sum()))
    return history, table, totals


@pytest.mark.parametrize("n_partitions", [1, 4])
@pytest.mark.parametrize("weighted", [False, True])
def test_autoclass_equals_numpy_em_from_the_same_start(n_partitions, weighted):
    rng = np.random.default_rng(7)
    X = rng.integers(0, 4, size=(401, 5)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 1] = np.where(X[:, 0] == 1, 3, X[:, 1])  # some structure
    weights = rng.integers(1, 4, len(X)).astype(float) if weighted else None
    model = AutoClass(n_clusters=3, n_restarts=1, max_iter=6, tol=0.0, random_state=5,
                      categorical_features="all", n_partitions=n_partitions).fit(X, sample_weight=weights)
    schema = model.schema_
    codes = np.column_stack([
        np.searchsorted(np.asarray(at.categories, dtype=float), X[:, a]) + 1 for a, at in enumerate(schema.attributes)])
    codes[np.isnan(X)] = 0
    seed = np.random.SeedSequence(5).spawn(1)[0]
    start = random_counts(schema, 3, len(X), seed)
    history, table, totals = numpy_autoclass(codes, schema.offsets, start, 6, 1.0,
                                             np.ones(len(X)) if weights is None else weights)
    np.testing.assert_allclose(model.history_, history, rtol=1e-12)
    np.testing.assert_allclose(model.counts_, table, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.cluster_totals_, totals, rtol=1e-12)
    log_prior = np.log(totals + 1.0) - np.log(totals.sum() + 3.0)
    log_table = np.zeros_like(table)
    for a in range(len(schema.offsets) - 1):
        cells = table[schema.offsets[a] + 1: schema.offsets[a + 1]]
        log_table[schema.offsets[a] + 1: schema.offsets[a + 1]] = np.log(cells + 1.0) - np.log(cells.sum(axis=0) + 4.0)
    jll = log_prior + sum(log_table[schema.offsets[a] + codes[:, a]] for a in range(codes.shape[1]))
    np.testing.assert_allclose(model.predict_proba(X), np.exp(jll - logsumexp(jll, axis=1, keepdims=True)),
                               rtol=1e-12, atol=1e-15)

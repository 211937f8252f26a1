"""AutoClass EM against a plain numpy EM from the same start, and its E-step kernel against numpy."""

import numpy as np
import pytest
from scipy.special import logsumexp

from nbparallel.kernels.clusters import JOINT_CELLS, JointCodes, expected_counts
from nbparallel.models.autoclass import AutoClass, random_counts


def numpy_e_step(codes, offsets, log_table, log_prior, n_clusters, weights):
    """Expected counts, sizes and log-likelihoods of every restart, by numpy (np.add.at, logsumexp)."""
    jll = log_prior + sum(log_table[offsets[a] + codes[:, a].astype(int)] for a in range(codes.shape[1]))
    by_restart = jll.reshape(len(jll), len(log_prior) // n_clusters, n_clusters)
    log_norm = logsumexp(by_restart, axis=2, keepdims=True)
    resp = (np.exp(by_restart - log_norm) * weights[:, None, None]).reshape(jll.shape)
    counts = np.zeros(log_table.shape)
    for a in range(codes.shape[1]):
        np.add.at(counts, offsets[a] + codes[:, a].astype(int), resp)
    return counts, resp.sum(axis=0), (weights[:, None] * log_norm[:, :, 0]).sum(axis=0)


@pytest.mark.parametrize("n_clusters,n_restarts,n_rows", [
    (2, 1, 103), (3, 1, 103), (3, 2, 103), (4, 1, 103), (5, 1, 103), (1, 3, 103),  # a group of 1 .. 4 columns
    (6, 2, 103), (9, 1, 103),  # more than four clusters: groups of four and a last of two or one
    (2, 5, 0), (2, 5, 1),
    (5, 60, 1000), (3, 100, 700),  # several blocks of rows (block_rows(300) is 218), the last one partial
])
@pytest.mark.parametrize("max_rows", [1, 15, 120])  # attributes alone; in pairs (one across first and
def test_expected_count_kernel_matches_numpy(n_clusters, n_restarts, n_rows, max_rows):  # second); all joined
    rng = np.random.default_rng(n_clusters * 10 + n_restarts)
    sizes = [3, 5, 2, 4]  # code 0 is the missing row
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    codes = np.column_stack([rng.integers(0, s, n_rows) for s in sizes]).astype(np.uint8)
    table = np.log(rng.random((offsets[-1], n_clusters * n_restarts))) * 5
    table[offsets[:-1]] = 0.0  # a missing value contributes nothing
    log_prior = np.log(rng.dirichlet(np.ones(n_clusters), n_restarts)).ravel()
    weights = rng.integers(0, 3, n_rows).astype(float)
    first, second = np.asfortranarray(codes[:, :3]), codes[:, 3:].astype(np.uint16)
    joint = JointCodes(first, second, offsets, JOINT_CELLS // max_rows)
    assert joint.codes.shape[1] == {1: 4, 15: 2, 120: 1}[max_rows]
    got = expected_counts(joint, table, log_prior, n_clusters, weights)
    for g, e in zip(got, numpy_e_step(codes, offsets, table, log_prior, n_clusters, weights)):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


def test_expected_count_kernel_takes_a_cluster_of_zero_probability():
    """A value impossible in one cluster (log 0 = -inf) gives that cluster no responsibility, as in numpy."""
    rng = np.random.default_rng(1)
    offsets = np.array([0, 4, 7], dtype=np.int64)
    codes = np.column_stack([rng.integers(0, 4, 50), rng.integers(0, 3, 50)]).astype(np.uint8)
    table = np.log(rng.random((7, 6)))
    table[offsets[:-1]] = 0.0
    table[2, [1, 3]] = -np.inf  # code 2 of the first attribute: impossible in a cluster of each restart
    log_prior = np.log(np.full(6, 1 / 3))
    weights = np.ones(50)
    joint = JointCodes(codes, np.empty((50, 0), np.uint8), offsets, 6)
    got = expected_counts(joint, table, log_prior, 3, weights)
    assert got[0][2, 1] == 0.0 and np.isfinite(got[2]).all()
    for g, e in zip(got, numpy_e_step(codes, offsets, table, log_prior, 3, weights)):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


def test_joint_codes_are_mixed_radix_and_refuse_a_code_outside_its_rows():
    offsets = np.array([0, 3, 5, 105], dtype=np.int64)  # attributes of 3, 2 and 100 rows
    codes = np.array([[1, 1, 99], [2, 0, 7]], dtype=np.uint8)
    joint = JointCodes(codes[:, :2], codes[:, 2:], offsets, JOINT_CELLS // 6)
    assert joint.groups.tolist() == [0, 0, 1] and joint.strides.tolist() == [2, 1, 1]
    assert joint.offsets.tolist() == [0, 6, 106]
    assert joint.codes.tolist() == [[1 * 2 + 1, 99], [2 * 2 + 0, 7]] and joint.codes.dtype == np.uint8
    table = np.arange(105.0).reshape(-1, 1)
    np.testing.assert_array_equal(joint.join_table(table)[:6, 0], [3, 4, 4, 5, 5, 6])  # rows 0-2 plus 3-4
    with pytest.raises(ValueError, match="1 codes lie outside"):
        JointCodes(codes[:, :2], codes[:, 2:], np.array([0, 3, 4, 104], dtype=np.int64), 1)  # 1 is past 0..0
    with pytest.raises(TypeError, match="codes must be JointCodes"):
        expected_counts(codes, np.zeros((105, 2)), np.zeros(2), 2, np.ones(2))


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

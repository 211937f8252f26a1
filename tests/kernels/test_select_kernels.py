"""Feature selection's compiled sums and draws against plain numpy references (row by row, log space)."""

import numpy as np
import pytest
from scipy.special import logsumexp

from nbparallel import NaiveBayes, SelectedNaiveBayes
from nbparallel.kernels import selection as kernels
from nbparallel.model_selection import selection


def reference_sums(tables, log_prior, codes, labels, weights, subset, candidates):
    """The B(J) sums row by row in log space: a row counts for a term unless its subset and candidate are all
    missing (code 0); rows with a negative label are left out."""
    sums, kept = np.zeros(len(candidates) + 1), np.zeros(len(candidates) + 1)
    for i in range(len(codes)):
        if labels is not None and labels[i] < 0:
            continue
        w = 1.0 if weights is None else weights[i]
        base = log_prior + sum((tables[a][codes[i, a]] for a in subset), np.zeros(len(log_prior)))
        present = any(codes[i, a] > 0 for a in subset)
        if present:
            sums[0] += w * logsumexp(base)
            kept[0] += w
        for j, c in enumerate(candidates):
            if present or codes[i, c] > 0:
                sums[j + 1] += w * logsumexp(base + tables[c][codes[i, c]])
                kept[j + 1] += w
    return sums, kept


def random_problem(rng, extreme):
    """Random log tables (missing code 0 a row of zeros), codes with missing values, a subset and candidates."""
    n_classes, n_rows, n_attributes = int(rng.integers(2, 23)), int(rng.integers(1, 400)), int(rng.integers(1, 6))
    sizes = rng.integers(1, 6, n_attributes)
    scale = 300.0 if extreme else 1.0  # extreme: log-probabilities spread over thousands (log-space path)
    tables = [np.vstack([np.zeros((1, n_classes)), scale * np.log(rng.dirichlet(np.ones(m), size=n_classes).T)])
              for m in sizes]
    log_prior = np.log(rng.dirichlet(np.ones(n_classes)))
    codes = np.column_stack([rng.integers(0, m + 1, n_rows) for m in sizes]).astype(np.uint16)
    order = rng.permutation(n_attributes)
    cut = int(rng.integers(0, n_attributes))
    return tables, log_prior, codes, [int(a) for a in order[:cut]], [int(a) for a in order[cut:]]


def prepared(tables, log_prior):
    starts = np.concatenate([[0], np.cumsum([len(t) for t in tables])])
    return kernels.CandidateTables(np.vstack(tables), starts, log_prior)


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_candidate_sums_equal_the_log_space_reference(monkeypatch, grouped, seed):
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(kernels, "use_groups", lambda *args: grouped)
    tables, log_prior, codes, subset, candidates = random_problem(rng, extreme=seed % 3 == 0)
    labels = rng.integers(-1, len(log_prior), len(codes)) if seed % 2 else None
    weights = rng.random(len(codes)) * (rng.random(len(codes)) > 0.2) if seed % 4 == 1 else None
    sums, kept = kernels.candidate_sums(prepared(tables, log_prior), codes, labels, weights, subset, candidates)
    ref_sums, ref_kept = reference_sums(tables, log_prior, codes, labels, weights, subset, candidates)
    np.testing.assert_allclose(kept, ref_kept, rtol=1e-13)
    # relative to the terms' size: B(J) = -sums / kept to 1e-12
    scale = np.maximum(np.abs(ref_sums), np.maximum(ref_kept, 1.0))
    assert np.max(np.abs(sums - ref_sums) / scale) < 1e-12


@pytest.mark.parametrize("grouped", [False, True])
def test_grouped_and_row_by_row_sums_agree_on_many_rows(monkeypatch, grouped):
    """Thousands of rows and few subset combinations: the running products and the counted cells."""
    rng = np.random.default_rng(5)
    tables, log_prior, codes, _, _ = random_problem(rng, extreme=False)
    codes = np.column_stack([rng.integers(0, len(t), 20_000) for t in tables]).astype(np.uint8)
    subset, candidates = [0], list(range(1, len(tables)))
    monkeypatch.setattr(kernels, "use_groups", lambda *args: grouped)
    sums, kept = kernels.candidate_sums(prepared(tables, log_prior), codes, None, None, subset, candidates)
    ref_sums, ref_kept = reference_sums(tables, log_prior, codes, None, None, subset, candidates)
    np.testing.assert_array_equal(kept, ref_kept)
    np.testing.assert_allclose(sums, ref_sums, rtol=1e-12)


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("subset", [[], [0], [1]])
def test_codes_outside_the_tables_raise(monkeypatch, grouped, subset):
    monkeypatch.setattr(kernels, "use_groups", lambda *args: grouped)
    tables = prepared([np.zeros((3, 2)), np.zeros((3, 2))], np.log([0.5, 0.5]))
    candidates = [a for a in (0, 1) if a not in subset]
    for row in ([1, 3], [3, 1]):
        with pytest.raises(ValueError, match="outside"):
            kernels.candidate_sums(tables, np.array([row], dtype=np.uint8), None, None, subset, candidates)


def test_candidate_sums_check_their_arguments():
    tables = prepared([np.zeros((3, 2))], np.log([0.5, 0.5]))
    codes = np.ones((4, 1), dtype=np.uint8)
    with pytest.raises(TypeError, match="codes"):
        kernels.candidate_sums(tables, codes.astype(np.int64), None, None, [], [0])
    with pytest.raises(ValueError, match="candidates"):
        kernels.candidate_sums(tables, codes, None, None, [], [1])
    with pytest.raises(ValueError, match="weights"):
        kernels.candidate_sums(tables, codes, None, np.ones(3), [], [0])
    with pytest.raises(ValueError, match="starts"):
        kernels.CandidateTables(np.zeros((3, 2)), np.array([0, 2]), np.zeros(2))
    with pytest.raises(ValueError, match="log_prior"):
        kernels.CandidateTables(np.zeros((3, 2)), np.array([0, 3]), np.zeros(3))


def test_draw_codes_is_the_inverse_cdf_formula():
    rng = np.random.default_rng(0)
    cdf = np.cumsum(rng.dirichlet(np.ones(6), size=4), axis=1)
    y, u = rng.integers(0, 4, 5000), rng.random(5000)
    out = np.zeros(5000, dtype=np.uint16)
    kernels.draw_codes(cdf, y, u, out)
    np.testing.assert_array_equal(out, 1 + np.minimum((cdf[y] < u[:, None]).sum(axis=1), 5))
    with pytest.raises(ValueError, match="y holds"):
        kernels.draw_codes(cdf, y + 4, u, out)


def test_simulated_cases_are_the_plain_numpy_draws():
    """The SPSS simulation written with numpy alone, the same random stream: y from pi, each x_j by inverse
    transform of p^j_{.y} over the values seen."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, (3000, 4))
    X[:, 3] = 0  # a single observed value: ignored, left missing
    y = (X[:, 0] + rng.integers(0, 3, 3000)) % 3
    model = NaiveBayes(categorical_features="all").fit(X, y)
    codes = selection.simulate_codes(model, 4000, 7)
    draw = np.random.RandomState(7)
    prior = np.exp(model.class_log_prior_)
    classes = draw.choice(len(prior), size=4000, p=prior / prior.sum())
    for a, fit in enumerate(model.counted_fits_):
        if fit.ignored:
            assert not codes[:, a].any()
            continue
        seen = fit.counts.sum(axis=1) > 0
        prob = np.where(seen[:, None], np.exp(fit.log_prob), 0.0)
        cdf = np.cumsum(prob / prob.sum(axis=0), axis=0)
        u = draw.random_sample(4000)
        np.testing.assert_array_equal(codes[:, a], 1 + np.minimum((cdf.T[classes] < u[:, None]).sum(axis=1),
                                                                  len(seen) - 1))


def test_sampled_b_in_chunks_equals_the_reference_on_the_simulated_cases(monkeypatch):
    """Several chunks of simulated cases, scored on threads: B(J) of every step as the plain reference
    computes it on the same cases."""
    monkeypatch.setattr(selection, "SAMPLE_CHUNK", 700)
    rng = np.random.default_rng(2)
    X = rng.integers(0, 4, (2000, 5))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, 2000)) % 3
    model = SelectedNaiveBayes(n_features=4, b_estimate="sample", sample_size=2500, random_state=4,
                               categorical_features="all").fit(X, y)
    full = NaiveBayes(categorical_features="all").fit(X, y)
    cases = selection.simulate_codes(full, 2500, 4)
    tables = selection.padded_tables([fit.log_prob for fit in full.counted_fits_])
    index = {at.name: a for a, at in enumerate(full.schema_.counted().attributes)}
    for step in model.selection_path_[1:]:
        chosen = [index[s["added"]] for s in model.selection_path_[1:step["n_features"] + 1]]
        sums, kept = reference_sums(tables, full.class_log_prior_, cases, None, None, chosen, [])
        assert step["B"] == pytest.approx(-sums[0] / kept[0], rel=1e-12)


def test_exact_steps_keep_the_codes_and_match_any_partitioning():
    """One pass per step after the first (codes kept between them); the path is the same for any
    partitioning."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, (3000, 6)).astype(np.uint8)
    y = (X[:, 2] + X[:, 4] + rng.integers(0, 4, 3000)) % 4
    paths = []
    for n_partitions in (1, 5):
        model = SelectedNaiveBayes(n_features=4, b_estimate="exact", categorical_features="all",
                                   n_partitions=n_partitions).fit(X, y)
        assert [p["kind"] for p in model.passes_].count("select") == 3  # the first step from the counts
        paths.append(model.selection_path_)
    assert [s["added"] for s in paths[0]] == [s["added"] for s in paths[1]]
    np.testing.assert_allclose([s["B"] for s in paths[0]], [s["B"] for s in paths[1]], rtol=1e-12)

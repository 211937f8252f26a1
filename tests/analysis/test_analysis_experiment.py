"""The engine experiments: the real NaiveBayes, exact references, intervals around the theory, the command."""

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes
from nbparallel.analysis import Domain, learning_curves, paper_estimator_matches_naive_bayes
from nbparallel.analysis.experiment import TIE_TOLERANCE, prefix_counts, run_stream, score_difference_terms
from nbparallel.cli import main
from tests.langley_reference import exact_accuracy

Z999 = 3.29  # two-sided 99.9% normal quantile: a fixed-seed check that is not a coin toss


def _paper_differences(domain, X, y):
    """d(x) = S(neg) - S(pos) of the experiment's estimator after all of (X, y), on every instance."""
    k, c_pos, c_neg = prefix_counts(X[None], y[None])
    b, D = score_difference_terms(k, c_pos, c_neg)
    test_X, _, _ = domain.test_set()
    return b[0, -1] + test_X.astype(float) @ D[0, -1]


def test_the_experiment_estimator_is_naive_bayes_with_alpha_1_and_class_alpha_2():
    """Same joint log-likelihood differences and predictions as the real NaiveBayes on non-degenerate sets."""
    domain = Domain(3, 2, 2)
    test_X, _, _ = domain.test_set()
    checked = 0
    for run in range(40):
        X, y = domain.sample(run_stream(7, 0, run), 9)
        if not paper_estimator_matches_naive_bayes(X, y):
            continue
        model = NaiveBayes(alpha=1.0, class_alpha=2.0, categorical_features="all").fit(X.astype(int), y.astype(int))
        jll = model.predict_joint_log_proba(test_X.astype(int))
        d = _paper_differences(domain, X, y)
        np.testing.assert_allclose(jll[:, 0] - jll[:, 1], d, rtol=0, atol=1e-9)
        clear = np.abs(d) > TIE_TOLERANCE
        np.testing.assert_array_equal(model.predict(test_X.astype(int))[clear], (d < 0)[clear].astype(int))
        checked += 1
    assert checked >= 10


def test_naive_bayes_departs_from_the_paper_on_degenerate_training_sets():
    """Why the experiment counts itself: NaiveBayes cannot fit one class, and drops a one-valued attribute."""
    domain = Domain(2, 2, 1)
    X = np.array([[1, 1, 1], [0, 1, 1], [1, 0, 1], [0, 0, 1]], dtype=bool)  # the irrelevant is always present
    y = domain.concept(X)
    assert not paper_estimator_matches_naive_bayes(X, y)
    model = NaiveBayes(alpha=1.0, class_alpha=2.0, categorical_features="all").fit(X.astype(int), y.astype(int))
    assert model.ignored_attributes_ == ["2"]
    test_X, _, _ = domain.test_set()
    jll = model.predict_joint_log_proba(test_X[test_X[:, 2]].astype(int))
    d = _paper_differences(domain, X, y)[test_X[:, 2]]
    assert np.abs((jll[:, 0] - jll[:, 1]) - d).max() > 0.1  # the paper keeps log(2/3) vs log(4/5) for it
    with pytest.raises(ValueError, match="1 class"):
        NaiveBayes(alpha=1.0, class_alpha=2.0, categorical_features="all").fit(X[:1].astype(int), y[:1].astype(int))


@pytest.mark.parametrize("domain", [Domain(2, 2, 1), Domain(1, 1, 1, noise=0.2)])
def test_experiment_means_match_exact_enumeration(domain):
    n_max = 5
    curve = learning_curves([domain], n_max, runs=3000, seed=11)[0]
    exact = np.array([exact_accuracy(n, domain.r, domain.q, domain.i, noise=domain.noise) for n in range(1, n_max + 1)])
    half = Z999 * curve["sd"] / np.sqrt(curve["runs"])
    assert (np.abs(curve["mean"] - exact) <= half).all(), (curve["mean"], exact)


def test_theory_within_the_experiments_interval_on_noise_free_curves():
    """From n = 3 on, A(n) lies within the experiment's 99.9% interval widened by half a point.

    The allowance is the normal approximation's bias on these domains (a few tenths of a point, which
    R = 1000 resolves; the figures' CSVs say where). Points of one curve share their runs, so a curve
    is high or low as a whole: a fraction of points inside the 95% interval would be a noisy check.
    Conjunctions of 3 and more attributes part from the theory by up to 2 points for n < 10, which is
    why these domains are the ones tested here.
    """
    for curve in learning_curves([Domain(2, 2, 1), Domain(2, 2, 2), Domain(5, 3, 1)], 20, runs=400, seed=5):
        half = Z999 * curve["sd"] / np.sqrt(curve["runs"])
        gap = np.abs(curve["theory"] - curve["mean"])
        assert (gap[2:] <= half[2:] + 0.005).all(), (curve["domain"], gap - half)


def test_experiment_is_reproducible_and_independent_of_batching():
    domains = [Domain(2, 2, 3), Domain(3, 3, 1, noise=0.1)]
    a = learning_curves(domains, 12, runs=90, seed=3)
    b = learning_curves(domains, 12, runs=90, seed=3, batch_runs=7)
    c = learning_curves(domains, 12, runs=90, seed=4)
    for x, y, z in zip(a, b, c):
        for key in ("mean", "sd", "tie_fraction", "degenerate_fraction"):
            np.testing.assert_array_equal(x[key], y[key])  # P(A) = 1/2: every sum is exact
        assert not np.array_equal(x["mean"], z["mean"])
    assert (a[0]["degenerate_fraction"][0] == 1.0) and (a[0]["degenerate_fraction"][-1] < 1.0)


def test_experiment_confirms_the_symmetry_of_q_and_r_minus_q_plus_1():
    one, five = learning_curves([Domain(5, 1, 1), Domain(5, 5, 1)], 15, runs=600, seed=2)
    spread = Z999 * np.hypot(one["sd"], five["sd"]) / np.sqrt(600)
    assert (np.abs(one["mean"] - five["mean"]) <= spread).all()


@pytest.mark.parametrize("kwargs, message", [
    ({"n_max": 0}, "n_max"), ({"runs": 1}, "runs"), ({"seed": -1}, "seed"), ({"batch_runs": 0}, "batch_runs"),
])
def test_bad_experiment_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        learning_curves([Domain(2, 2)], **{"n_max": 3, "runs": 10, **kwargs})
    with pytest.raises(TypeError, match="domains"):
        learning_curves([(2, 2)], 3, runs=10)


def test_langley_command_writes_the_figure_and_its_csv(tmp_path, capsys):
    assert main(["langley", "2a", "--runs", "40", "--out", str(tmp_path), "--seed", "1", "--quiet"]) == 0
    assert "theory inside the 95% CI" in capsys.readouterr().out
    table = pd.read_csv(tmp_path / "langley_fig2a.csv")
    assert set(table["curve"]) == {"3 of 5", "4 of 5", "5 of 5"} and len(table) == 90
    assert (table["runs"] == 40).all() and (table["ci_low"] <= table["mean"]).all()
    assert (tmp_path / "langley_fig2a.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["langley", "2a", "--runs", "1", "--out", str(tmp_path), "--quiet"]) == 2
    with pytest.raises(SystemExit):
        main(["langley", "3c"])

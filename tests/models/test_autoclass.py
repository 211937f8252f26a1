"""AutoClass: EM over expected counts, one pass per iteration for all restarts."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

from nbparallel.loading import load
from nbparallel.models.autoclass import AutoClass


def planted_mixture(n, seed, n_clusters=3, n_attributes=8, n_values=4, missing=0.05):
    """Rows from a naive Bayes mixture, with a few values missing; returns (X, clusters)."""
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(np.full(n_values, 0.3), size=(n_clusters, n_attributes))
    z = rng.integers(0, n_clusters, n)
    cumulative = theta.cumsum(axis=2)[z]  # (n, attributes, values)
    X = (rng.random((n, n_attributes, 1)) > cumulative).sum(axis=2).astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    return X, z


@pytest.fixture(scope="module")
def planted():
    return planted_mixture(1500, seed=0)


def fit(X, **params):
    defaults = dict(n_clusters=3, n_restarts=3, max_iter=25, random_state=0, categorical_features="all",
                    n_partitions=3)
    return AutoClass(**{**defaults, **params}).fit(X)


def test_log_posterior_never_decreases(planted):
    model = fit(planted[0], tol=0)
    for history in model.restart_histories_:
        assert len(history) > 5
        assert np.all(np.diff(history) >= -1e-9 * abs(history[0]))
    assert model.history_ == model.restart_histories_[model.best_restart_]


def test_recovers_planted_clusters(planted):
    X, z = planted
    model = fit(X)
    assert adjusted_rand_score(z, model.predict(X)) > 0.9
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1)


def test_best_of_restarts_is_at_least_one_restart(planted):
    single = fit(planted[0], n_restarts=1)
    several = fit(planted[0], n_restarts=4)
    np.testing.assert_allclose(several.restart_histories_[0], single.history_, rtol=1e-12)  # same start
    assert several.history_[-1] >= single.history_[-1]
    assert [p["kind"] for p in several.passes_] == ["schema"] + ["em"] * several.n_iter_


@pytest.mark.parametrize("n_partitions,split_every,persist", [(1, 2, True), (8, 2, "auto"), (8, False, False)])
def test_partitions_and_tree_do_not_change_the_model(planted, n_partitions, split_every, persist):
    base = fit(planted[0], max_iter=10)
    other = fit(planted[0], max_iter=10, n_partitions=n_partitions, split_every=split_every, persist=persist)
    np.testing.assert_allclose(other.counts_, base.counts_, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(other.history_, base.history_, rtol=1e-9)


def test_checkpoint_resume_equals_uninterrupted_run(planted, tmp_path):
    path = tmp_path / "em.json"
    first = fit(planted[0], max_iter=3, checkpoint=path)
    resumed = fit(planted[0], max_iter=8, checkpoint=path)
    whole = fit(planted[0], max_iter=8)
    assert first.n_iter_ == 3 and resumed.resumed_iterations_ == 3 and resumed.n_iter_ == 8
    assert [p["kind"] for p in resumed.passes_] == ["schema"] + ["em"] * 5
    np.testing.assert_allclose(resumed.counts_, whole.counts_, rtol=1e-12)
    for a, b in zip(resumed.restart_histories_, whole.restart_histories_):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_missing_values_contribute_nothing_and_numeric_columns_are_binned(tmp_path):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"colour": rng.choice(["red", "blue"], 300), "size": rng.normal(size=300)})
    frame.loc[::7, "size"] = np.nan
    model = AutoClass(n_clusters=2, n_restarts=2, max_iter=10, random_state=1, n_bins=5).fit(frame)
    assert model.counts_.shape == (3 + 6, 2)
    empty = pd.DataFrame({"colour": [None], "size": [np.nan]})
    assert model.score_samples(empty)[0] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(model.predict_proba(empty)[0], np.exp(model.cluster_log_prior_))
    assert np.isfinite(model.bic(frame)) and model.bic(frame) > -2 * model.score(frame) * len(frame)
    model.save(tmp_path / "ac.json")
    loaded = load(tmp_path / "ac.json")
    np.testing.assert_allclose(loaded.predict_proba(frame), model.predict_proba(frame))
    assert loaded.history_ == model.history_


def test_rejects_bad_parameters():
    with pytest.raises(ValueError, match="n_clusters"):
        AutoClass(n_clusters=1).fit(np.zeros((5, 1)))
    with pytest.raises(ValueError, match="alpha"):
        AutoClass(alpha=0).fit(np.zeros((5, 1)))


def test_command_line_cluster_fit(tmp_path, planted):
    from nbparallel.cli import main

    pd.DataFrame(planted[0], columns=[f"x{i}" for i in range(8)]).to_csv(tmp_path / "rows.csv", index=False)
    assert main(["cluster-fit", str(tmp_path / "rows.csv"), "--clusters", "3", "--restarts", "2",
                 "--max-iter", "5", "--seed", "0", "--categorical", *[f"x{i}" for i in range(8)],
                 "--quiet", "-o", str(tmp_path / "ac.json")]) == 0
    model = load(tmp_path / "ac.json")
    assert isinstance(model, AutoClass) and model.n_iter_ == 5 and len(model.restart_histories_) == 2
    assert main(["predict", str(tmp_path / "ac.json"), str(tmp_path / "rows.csv"), "--proba",
                 "-o", str(tmp_path / "clusters.csv")]) == 0
    written = pd.read_csv(tmp_path / "clusters.csv")
    assert list(written.columns) == ["prediction", "proba_0", "proba_1", "proba_2"]
    rows = pd.read_csv(tmp_path / "rows.csv")
    np.testing.assert_array_equal(written["prediction"], model.predict(rows))
    np.testing.assert_allclose(written[["proba_0", "proba_1", "proba_2"]].sum(axis=1), 1.0)

"""BoostedNaiveBayes: equal to a serial AdaBoost/SAMME, one pass per round, partition-free."""

import numpy as np
import pandas as pd
import pytest

from nbparallel.loading import load
from nbparallel.models.boosting import BoostedNaiveBayes


def serial_boosted_nb(X, y, n_rounds, alpha, class_alpha):
    """AdaBoost.M1 / SAMME over SPSS-smoothed categorical naive Bayes, with plain loops."""
    n, d = X.shape
    classes = sorted(set(y.tolist()))
    K = len(classes)
    yc = np.array([classes.index(v) for v in y])
    values = [sorted(set(X[:, a].tolist())) for a in range(d)]
    index = np.array([[values[a].index(X[i, a]) for a in range(d)] for i in range(n)])
    w = np.ones(n)
    learners = []
    for _ in range(n_rounds):
        N_k = np.zeros(K)
        cells = [np.zeros((len(v), K)) for v in values]
        for i in range(n):
            N_k[yc[i]] += w[i]
            for a in range(d):
                cells[a][index[i, a], yc[i]] += w[i]
        N = N_k.sum()
        f = 1 / N if alpha == "1/N" else alpha
        lam = 1 / N if class_alpha == "1/N" else class_alpha
        prior = np.log(N_k + lam) - np.log(N + K * lam)
        logp = [np.log(c + f) - np.log(c.sum(axis=0) + len(c) * f) for c in cells]
        order = np.argsort(-prior, kind="stable")
        pred = np.empty(n, dtype=int)
        for i in range(n):
            jll = prior + sum(logp[a][index[i, a]] for a in range(d))
            pred[i] = order[np.argmax(jll[order])]
        wrong = pred != yc
        error = w[wrong].sum() / w.sum()
        if error <= 0 or error >= 1 - 1 / K:
            if error <= 0 or not learners:
                learners.append((pred, error, 1.0))
            break
        vote = np.log((1 - error) / error) + np.log(K - 1)
        learners.append((pred, error, vote))
        w = w * np.where(wrong, np.exp(vote), 1.0)
        w = w * n / w.sum()
    return learners


def noisy_categorical(n, K, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 5))
    score = X[:, 0] + 2 * (X[:, 1] == 2) - X[:, 2] + rng.integers(0, 3, n)
    y = np.digitize(score, np.quantile(score, np.arange(1, K) / K))
    return X, y


@pytest.mark.parametrize("K,alpha", [(2, 1.0), (3, "1/N")])
def test_equals_serial_reference(K, alpha):
    X, y = noisy_categorical(300, K, seed=K)
    model = BoostedNaiveBayes(n_rounds=6, alpha=alpha, class_alpha=alpha, categorical_features="all",
                              n_partitions=3).fit(X, y)
    reference = serial_boosted_nb(X, y, 6, alpha, alpha)
    assert len(model.estimators_) == len(reference)
    np.testing.assert_allclose(model.estimator_errors_, [r[1] for r in reference], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.estimator_weights_, [r[2] for r in reference], rtol=1e-9)
    votes = np.zeros((len(y), K))
    for pred, _, vote in reference:
        votes[np.arange(len(y)), pred] += vote
    np.testing.assert_allclose(model.predict_proba(X), votes / votes.sum(axis=1, keepdims=True), atol=1e-9)


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("persist", [True, False])
def test_numeric_columns_equal_weighted_fits(K, persist):
    """With binned numeric columns (missing values among them) beside categorical ones, each round's learner
    is the NaiveBayes fit of the rows under that round's weights, whether the rows' counted codes are kept
    between passes (persist) or rebuilt by replaying the learners."""
    from nbparallel import NaiveBayes

    rng = np.random.default_rng(7 + K)
    n = 600
    x = rng.normal(size=n)
    z = rng.uniform(0, 5, n)
    z[rng.random(n) < 0.1] = np.nan
    c = rng.choice(["a", "b", "c"], n)
    score = x + (c == "b") + 0.3 * np.nan_to_num(z) + rng.normal(scale=0.8, size=n)
    y = np.digitize(score, np.quantile(score, np.arange(1, K) / K))
    frame = pd.DataFrame({"x": x, "c": c, "z": z})
    params = {"n_bins": 6, "alpha": 1.0, "class_alpha": 1.0}
    model = BoostedNaiveBayes(n_rounds=4, n_partitions=3, persist=persist, **params).fit(frame, y)
    w = np.ones(n)
    for t, learner in enumerate(model.estimators_):
        reference = NaiveBayes(**params).fit(frame, y, sample_weight=w)
        np.testing.assert_allclose(learner.counts_.table, reference.counts_.table, rtol=1e-9, atol=1e-9)
        for name in ("x", "z"):
            np.testing.assert_array_equal(learner.bin_edges_[name], reference.bin_edges_[name])
        wrong = reference.predict(frame) != y
        error = w[wrong].sum() / w.sum()
        assert model.estimator_errors_[t] == pytest.approx(error, rel=1e-9)
        w = w * np.where(wrong, np.exp(model.estimator_weights_[t]), 1.0)
        w = w * n / w.sum()
    assert len(model.estimators_) >= 3  # rounds compared (boosting may stop once a learner's error reaches 1 - 1/K)


def test_one_pass_per_round_plus_one():
    """Unweighted categorical rows: the first pass finds the schema and counts the first learner (as ``fit``
    does); weighted ones take a schema pass first. Both give the same rounds."""
    X, y = noisy_categorical(200, 3, seed=1)
    model = BoostedNaiveBayes(n_rounds=4, categorical_features="all", n_partitions=2).fit(X, y)
    assert len(model.estimators_) == 4
    assert [p["kind"] for p in model.passes_] == ["count"] + ["boost"] * 4
    assert all(p["tree"].n_leaves == 2 for p in model.passes_)
    weighted = BoostedNaiveBayes(n_rounds=4, categorical_features="all", n_partitions=2).fit(
        X, y, sample_weight=np.ones(len(y)))
    assert [p["kind"] for p in weighted.passes_] == ["schema", "count"] + ["boost"] * 4
    np.testing.assert_array_equal(weighted.estimator_weights_, model.estimator_weights_)
    for a, b in zip(weighted.estimators_, model.estimators_):
        np.testing.assert_array_equal(a.counts_.table, b.counts_.table)
        assert a.schema_.to_dict() == b.schema_.to_dict()


def test_an_integer_column_too_wide_to_count_by_value_takes_the_schema_pass():
    """Where fit's one pass gives up (a binned integer column spanning a million values), boosting finds
    the schema by a pass of its own, as weighted rows do, and boosts the same rounds."""
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.integers(0, 4, 2000), rng.integers(0, 10**6, 2000)])
    y = (X[:, 0] + (X[:, 1] > 5 * 10**5) + rng.integers(0, 2, 2000)) % 3
    params = dict(n_rounds=3, categorical_features=[0], n_partitions=2)
    model = BoostedNaiveBayes(**params).fit(X, y)
    weighted = BoostedNaiveBayes(**params).fit(X, y, sample_weight=np.ones(len(y)))
    assert [p["kind"] for p in model.passes_] == ["schema", "count"] + ["boost"] * 3
    np.testing.assert_array_equal(model.estimator_weights_, weighted.estimator_weights_)
    for a, b in zip(model.estimators_, weighted.estimators_):
        np.testing.assert_array_equal(a.counts_.table, b.counts_.table)


@pytest.mark.parametrize("n_partitions,split_every,persist", [(1, 2, True), (8, 2, "auto"), (8, False, False)])
def test_partitions_and_tree_do_not_change_the_model(n_partitions, split_every, persist):
    X, y = noisy_categorical(240, 3, seed=2)
    base = BoostedNaiveBayes(n_rounds=5, categorical_features="all", n_partitions=3).fit(X, y)
    other = BoostedNaiveBayes(n_rounds=5, categorical_features="all", n_partitions=n_partitions,
                              split_every=split_every, persist=persist).fit(X, y)
    np.testing.assert_allclose(other.estimator_weights_, base.estimator_weights_, rtol=1e-12)
    for a, b in zip(other.estimators_, base.estimators_):
        np.testing.assert_allclose(a.counts_.table, b.counts_.table, rtol=1e-12)
    assert other.passes_[-1]["tree"].n_leaves == n_partitions


def test_perfect_learner_stops_boosting():
    X = np.repeat(np.arange(4)[:, None], 10, axis=0)
    y = X[:, 0] % 2
    model = BoostedNaiveBayes(n_rounds=5, categorical_features="all").fit(X, y)
    assert list(model.estimator_errors_) == [0.0] and list(model.estimator_weights_) == [1.0]
    assert [p["kind"] for p in model.passes_] == ["count", "boost"]  # the schema came with the first counts
    assert model.score(X, y) == 1.0


def test_checkpoint_resume_equals_uninterrupted_run(tmp_path):
    X, y = noisy_categorical(200, 3, seed=3)
    params = dict(categorical_features="all", n_partitions=3, checkpoint=tmp_path / "boost.json")
    BoostedNaiveBayes(n_rounds=2, **params).fit(X, y)
    resumed = BoostedNaiveBayes(n_rounds=5, **params).fit(X, y)
    whole = BoostedNaiveBayes(n_rounds=5, categorical_features="all", n_partitions=2).fit(X, y)
    assert resumed.resumed_rounds_ == 2
    assert [p["kind"] for p in resumed.passes_] == ["count"] + ["boost"] * 3  # the schema with counts unused
    np.testing.assert_allclose(resumed.estimator_weights_, whole.estimator_weights_, rtol=1e-12)
    np.testing.assert_allclose(resumed.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def test_prediction_api_and_model_file(tmp_path):
    X, y = noisy_categorical(200, 2, seed=4)
    labels = np.array(["no", "yes"])[y]
    model = BoostedNaiveBayes(n_rounds=3, categorical_features="all").fit(X, labels)
    staged = list(model.staged_predict(X))
    assert len(staged) == 3
    np.testing.assert_array_equal(staged[-1], model.predict(X))
    shares = model.predict_proba(X)
    np.testing.assert_allclose(model.decision_function(X), shares[:, 1] - shares[:, 0])
    model.save(tmp_path / "m.json")
    loaded = load(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_allclose(loaded.predict_proba(X), shares)
    assert [p["kind"] for p in loaded.passes_] == [p["kind"] for p in model.passes_]


def test_accuracy_close_to_sklearn_adaboost_of_categorical_nb():
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import CategoricalNB

    X, y = load_breast_cancer(return_X_y=True)
    lo, hi = X.min(axis=0), X.max(axis=0)
    binned = np.clip(np.floor((X - lo) / (hi - lo) * 10), 0, 9).astype(int)
    X_train, X_test, y_train, y_test = train_test_split(binned, y, test_size=0.3, random_state=0, stratify=y)
    ours = BoostedNaiveBayes(n_rounds=10, alpha=1.0, class_alpha=1.0, categorical_features="all").fit(X_train, y_train)
    theirs = AdaBoostClassifier(CategoricalNB(alpha=1.0, min_categories=10), n_estimators=10,
                                random_state=0).fit(X_train, y_train)
    assert ours.score(X_test, y_test) > 0.9
    assert abs(ours.score(X_test, y_test) - theirs.score(X_test, y_test)) < 0.05


def test_command_line_fit_boost(tmp_path):
    from nbparallel.cli import main

    X, y = noisy_categorical(120, 2, seed=5)
    frame = pd.DataFrame(X, columns=list("abcde")).assign(label=y)
    frame.to_csv(tmp_path / "train.csv", index=False)
    assert main(["fit", str(tmp_path / "train.csv"), "--target", "label", "--boost", "3", "--quiet",
                 "-o", str(tmp_path / "m.json")]) == 0
    model = load(tmp_path / "m.json")
    assert isinstance(model, BoostedNaiveBayes) and len(model.estimators_) == 3
    assert model.evaluate(frame, "label")["accuracy"] == model.score(frame[list("abcde")], y)

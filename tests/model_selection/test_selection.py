"""SPSS forward feature selection: every formula by hand, and a brute-force reference on real data."""

import math
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_wine

import nbparallel
from nbparallel import SelectedNaiveBayes
from nbparallel.model_selection.selection import auto_max_features, simulate_codes

# ------------------------------------------------------------ a hand example

ROWS = [  # colour, size, shape, class; None is missing
    ("red", "S", "round", "yes"),
    ("red", "M", "round", "yes"),
    ("red", None, "long", "yes"),
    ("blue", "L", "round", "yes"),
    ("red", "S", None, "no"),
    ("blue", "M", "long", "no"),
    ("blue", "L", "long", "no"),
    ("blue", None, "long", "no"),
    (None, "S", "long", "no"),
    (None, None, None, "yes"),  # every predictor missing: the case is ignored
]
NAMES = ["colour", "size", "shape"]
TEST_ROWS = [("red", "M", "long", "yes"), ("blue", "S", None, "no"), (None, "L", "round", "no"),
             ("red", None, None, "yes")]


def frame(rows):
    return pd.DataFrame(rows, columns=NAMES + ["label"], dtype=object)


class Hand:
    """The SPSS formulas written out over plain Python lists."""

    def __init__(self, rows):
        self.rows = [r for r in rows if any(v is not None for v in r[:3])]
        self.N = len(self.rows)
        self.classes = sorted({r[3] for r in self.rows})
        lam = f = 1 / self.N
        Nk = Counter(r[3] for r in self.rows)
        K = len(self.classes)
        self.pi = {k: (Nk[k] + lam) / (self.N + K * lam) for k in self.classes}
        self.Nk = Nk
        self.p, self.N_jmk = [], []
        for j in range(3):
            cats = sorted({r[j] for r in self.rows if r[j] is not None})
            N_mk = Counter((r[j], r[3]) for r in self.rows if r[j] is not None)
            p = {(m, k): (N_mk[m, k] + f) / (sum(N_mk[l, k] for l in cats) + len(cats) * f)
                 for m in cats for k in self.classes}
            self.p.append(p)
            self.N_jmk.append(N_mk)

    def A(self, S):
        a = sum(self.Nk[k] * math.log(self.pi[k]) for k in self.classes) / self.N
        for j in S:
            a += sum(n * math.log(self.p[j][m, k]) for (m, k), n in self.N_jmk[j].items()) / self.N
        return a

    def joint(self, row, S, k):
        out = self.pi[k]
        for j in S:
            if row[j] is not None and (row[j], k) in self.p[j]:  # unseen categories are missing
                out *= self.p[j][row[j], k]
        return out

    def B(self, S):
        terms = [math.log(sum(self.joint(r, S, k) for k in self.classes))
                 for r in self.rows if any(r[j] is not None for j in S)]
        return -sum(terms) / len(terms) if terms else 0.0

    def l_test(self, rows, S):
        return sum(math.log(self.joint(r, S, r[3]) / sum(self.joint(r, S, k) for k in self.classes))
                   for r in rows) / len(rows)


def hand_path(hand, must=(), size=3):
    S, path = list(must), [list(must)]
    while len(S) < size:
        scores = {c: hand.A(S + [c]) + hand.B(S + [c]) for c in range(3) if c not in S}
        S = S + [max(scores, key=scores.get)]
        path.append(S)
    return path


def test_path_by_hand_every_formula():
    hand = Hand(ROWS)
    model = SelectedNaiveBayes(b_estimate="exact", max_features=3).fit(frame(ROWS), "label")
    expected = hand_path(hand)
    assert [s["n_features"] for s in model.selection_path_] == [0, 1, 2, 3]
    for step, S in zip(model.selection_path_, expected):
        assert step["added"] == (NAMES[S[-1]] if S else None)
        assert step["A"] == pytest.approx(hand.A(S), abs=1e-12)
        assert step["B"] == pytest.approx(hand.B(S), abs=1e-12)
        assert step["l_train"] == pytest.approx(hand.A(S) + hand.B(S), abs=1e-12)
        assert step["Q"] == pytest.approx(-(hand.A(S) + hand.B(S)) + len(S) * math.log(hand.N) / (2 * hand.N),
                                          abs=1e-12)
        assert step["l_test"] is None
    best = int(np.argmin([s["Q"] for s in model.selection_path_]))
    assert model.selected_features_ == [NAMES[j] for j in expected[best]]
    assert model.criterion_ == "bic"


def test_test_criterion_and_must_include_by_hand():
    hand = Hand(ROWS)
    model = SelectedNaiveBayes(b_estimate="exact", max_features=3, must_include=["shape"])
    model.fit(frame(ROWS), "label", X_test=frame(TEST_ROWS), y_test="label")
    expected = hand_path(hand, must=[2])
    assert model.criterion_ == "test"
    assert [s["n_features"] for s in model.selection_path_] == [1, 2, 3]
    for step, S in zip(model.selection_path_, expected):
        assert step["l_train"] == pytest.approx(hand.A(S) + hand.B(S), abs=1e-12)
        assert step["l_test"] == pytest.approx(hand.l_test(TEST_ROWS, S), abs=1e-12)
        assert step["Q"] == pytest.approx(-hand.l_test(TEST_ROWS, S), abs=1e-12)
    best = int(np.argmin([-hand.l_test(TEST_ROWS, S) for S in expected]))
    assert model.selected_features_ == [NAMES[j] for j in expected[best]]
    assert model.selected_features_[0] == "shape"
    # the classifier is naive Bayes on the chosen predictors only
    chosen = [NAMES.index(c) for c in model.selected_features_]
    proba = model.predict_proba(frame(TEST_ROWS).drop(columns="label"))
    for row, p in zip(TEST_ROWS, proba):
        joint = [hand.joint(row, chosen, k) for k in hand.classes]
        np.testing.assert_allclose(p, np.array(joint) / sum(joint), rtol=1e-12)


def test_sampled_b_by_hand_on_the_simulated_cases():
    hand = Hand(ROWS)
    model = SelectedNaiveBayes(max_features=3, b_estimate="sample", sample_size=50, random_state=3).fit(
        frame(ROWS), "label")
    full = nbparallel.NaiveBayes().fit(frame(ROWS), "label")
    codes = simulate_codes(full, 50, 3)  # cases from the full model, with the same seed
    cats = [at.categories for at in model.schema_.attributes]
    sim = [tuple(cats[j][c - 1] for j, c in enumerate(row)) + (None,) for row in codes]
    order = [s["added"] for s in model.selection_path_[1:]]
    for J, step in enumerate(model.selection_path_):
        S = [NAMES.index(n) for n in order[:J]]
        b = -sum(math.log(sum(hand.joint(r, S, k) for k in hand.classes)) for r in sim) / len(sim) if S else 0.0
        assert step["B"] == pytest.approx(b, abs=1e-12)
        assert step["A"] == pytest.approx(hand.A(S), abs=1e-12)
    again = SelectedNaiveBayes(max_features=3, b_estimate="sample", sample_size=50, random_state=3).fit(
        frame(ROWS), "label")
    assert again.selection_path_ == model.selection_path_


def test_simulated_cases_follow_the_model():
    X, y = load_wine(return_X_y=True)
    model = nbparallel.NaiveBayes().fit(X, y)
    codes = simulate_codes(model, 200_000, 0)
    prior = np.exp(model.class_log_prior_)
    for a in (0, 5):
        p = np.exp(model.feature_log_prob_[a]) @ prior  # marginal P(X_a = m)
        freq = np.bincount(codes[:, a] - 1, minlength=len(p)) / len(codes)
        np.testing.assert_allclose(freq, p, atol=4e-3)


@pytest.mark.parametrize("j0, must, expected", [(10, 0, 10), (50, 0, 20), (300, 5, 65), (2000, 0, 100),
                                                (1000, 3, 103), (25, 10, 25)])
def test_auto_max_features(j0, must, expected):
    assert auto_max_features(j0, must) == expected == min(must + min(100, max(20, j0 // 5)), j0)


# ------------------------------------------------------- against brute force


def binned_breast_cancer(n_bins=6):
    X, y = load_breast_cancer(return_X_y=True)
    lo, hi = X.min(axis=0), X.max(axis=0)
    codes = np.clip(np.floor((X - lo) / (hi - lo) * n_bins), 0, n_bins - 1).astype(np.int64)
    return codes, y


def brute_force_log_likelihood(codes, y, subset):
    """Mean log P(y|x) of naive Bayes fitted on ``subset`` alone (SPSS smoothing 1/N)."""
    N, classes = len(y), np.unique(y)
    f = lam = 1 / N
    Nk = np.array([(y == k).sum() for k in classes])
    score = np.tile(np.log((Nk + lam) / (N + len(classes) * lam)), (N, 1))
    for j in subset:
        values = np.unique(codes[:, j])
        table = np.array([[np.sum((codes[:, j] == m) & (y == k)) for k in classes] for m in values])
        logp = np.log(table + f) - np.log(table.sum(axis=0) + len(values) * f)
        score += logp[np.searchsorted(values, codes[:, j])]
    top = score.max(axis=1, keepdims=True)
    norm = top[:, 0] + np.log(np.exp(score - top).sum(axis=1))
    return float(np.mean(score[np.arange(N), np.searchsorted(classes, y)] - norm))


def test_exact_selection_matches_brute_force_on_real_data():
    codes, y = binned_breast_cancer()
    model = SelectedNaiveBayes(b_estimate="exact", max_features=5, categorical_features="all",
                               n_partitions=3).fit(codes, y)
    subset = []
    for step in model.selection_path_[1:]:
        scores = {c: brute_force_log_likelihood(codes, y, subset + [c]) for c in range(codes.shape[1])
                  if c not in subset}
        best = max(scores, key=scores.get)
        subset.append(best)
        assert step["added"] == str(best)
        assert step["l_train"] == pytest.approx(scores[best], abs=1e-9)
    # the first step from the counts, then one pass per step, all candidates in it
    assert sum(p["kind"] == "select" for p in model.passes_) == 4


def test_exact_selection_is_the_same_for_any_partitioning():
    codes, y = binned_breast_cancer()
    paths = [SelectedNaiveBayes(b_estimate="exact", max_features=4, categorical_features="all",
                                n_partitions=p, split_every=s).fit(codes, y).selection_path_
             for p, s in ((1, 2), (7, 2), (7, False))]
    for path in paths[1:]:
        assert [s["added"] for s in path] == [s["added"] for s in paths[0]]
        np.testing.assert_allclose([s["l_train"] for s in path], [s["l_train"] for s in paths[0]], rtol=1e-12)


# ------------------------------------------------------------------ the API


def test_fixed_number_selector_api_and_files(tmp_path):
    data = load_breast_cancer(as_frame=True)
    model = SelectedNaiveBayes(n_features=3, b_estimate="sample", random_state=0).fit(data.data, data.target)
    assert len(model.selected_features_) == 3 and model.criterion_ == "exact"
    assert [p["kind"] for p in model.passes_] == ["schema", "count"]  # sampled B: no more passes
    support = model.get_support()
    assert support.sum() == 3
    assert list(data.data.columns[support]) == sorted(model.selected_features_, key=list(data.data.columns).index)
    assert model.transform(data.data).shape == (len(data.data), 3)
    single = nbparallel.NaiveBayes().fit(data.data[list(data.data.columns[support])], data.target)
    np.testing.assert_allclose(model.predict_proba(data.data), single.predict_proba(
        data.data[list(data.data.columns[support])]), rtol=1e-10)
    path = tmp_path / "selected.json"
    model.save(path)
    loaded = nbparallel.load(path)
    assert loaded.selected_features_ == model.selected_features_
    assert loaded.selection_path_ == model.selection_path_
    np.testing.assert_array_equal(loaded.predict_proba(data.data), model.predict_proba(data.data))


def test_every_naive_bayes_parameter_reaches_the_model_of_the_selected_columns():
    data = load_wine(as_frame=True)
    X, y = data.data, data.target
    params = {"alpha": 0.5, "class_alpha": 2.0, "n_bins": 7, "class_prior": [0.2, 0.3, 0.5],
              "numeric_ranges": {"alcohol": (10.0, 16.0)}, "var_smoothing": 1e-6, "numeric": "binned",
              "numeric_features": ["proline"], "fit_prior": False, "force_alpha": False,
              "integer_categories": "range", "min_categories": 3}
    assert set(params) | {"categorical_features", "n_partitions", "split_every", "verbose"} == set(
        nbparallel.NaiveBayes().get_params())  # every NaiveBayes parameter is here
    model = SelectedNaiveBayes(n_features=4, must_include=["alcohol", "proline"], n_partitions=2, **params).fit(X, y)
    assert {k: model.get_params()[k] for k in params} == params
    cloned = clone(model)
    assert {k: cloned.get_params()[k] for k in params} == params
    chosen = [c for c in X.columns if c in model.selected_features_]
    single = nbparallel.NaiveBayes(n_partitions=2, **params).fit(X[chosen], y)
    np.testing.assert_array_equal(model.class_log_prior_, np.log([0.2, 0.3, 0.5]))
    np.testing.assert_array_equal(model.class_log_prior_, single.class_log_prior_)
    assert model.bin_edges_["alcohol"].tolist() == single.bin_edges_["alcohol"].tolist()
    np.testing.assert_array_equal(model.predict_proba(X), single.predict_proba(X[chosen]))
    np.testing.assert_array_equal(model.predict(X), single.predict(X[chosen]))
    unranged = SelectedNaiveBayes(n_features=3, must_include=["alcohol"], n_bins=7).fit(X, y)
    assert unranged.bin_edges_["alcohol"].tolist() != model.bin_edges_["alcohol"].tolist()


@pytest.mark.parametrize("numeric", ["gaussian", {"alcohol": "gaussian"}])
def test_gaussian_attributes_are_refused_by_name(numeric):
    X, y = load_wine(return_X_y=True, as_frame=True)
    with pytest.raises(ValueError, match="numeric=.*Gaussian"):
        SelectedNaiveBayes(numeric=numeric).fit(X, y)


@pytest.mark.parametrize("params, match", [
    ({"n_features": 40}, "n_features=40"),
    ({"max_features": 0}, "max_features"),
    ({"criterion": "aic"}, "criterion"),
    ({"b_estimate": "guess"}, "b_estimate"),
    ({"must_include": ["nope"]}, "must_include names column 'nope'"),
    ({"must_include": [1, 2], "max_features": 1}, "max_features=1"),
    ({"criterion": "test"}, "needs test data"),
    ({"sample_size": 0}, "sample_size"),
])
def test_bad_parameters_name_themselves(params, match):
    X, y = load_wine(return_X_y=True)
    with pytest.raises(ValueError, match=match):
        SelectedNaiveBayes(**params).fit(X, y)


def test_sklearn_check_estimator():
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(SelectedNaiveBayes(random_state=0), on_fail=None)
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert len(results) > 40
    assert failed == []


def test_cli_select(tmp_path, capsys):
    from nbparallel.cli import main

    data = load_wine(as_frame=True)
    frame = data.data.assign(cls=data.target)
    frame.iloc[::2].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[1::2].to_csv(tmp_path / "test.csv", index=False)
    out = tmp_path / "sel.json"
    assert main(["select", str(tmp_path / "train.csv"), "--target", "cls", "-o", str(out), "--test",
                 str(tmp_path / "test.csv"), "--max-features", "4", "--must", "hue", "--quiet"]) == 0
    text = capsys.readouterr().out
    model = nbparallel.load(out)
    assert model.selected_features_[0] == "hue" and model.criterion_ == "test"
    assert f"selected {len(model.selected_features_)} predictors by test" in text
    assert len(model.selection_path_) == 4 and "1 test" in text
    assert main(["select", str(tmp_path / "train.csv"), "--target", "cls", "-o", str(out), "--features", "99"]) == 2
    assert "n_features=99" in capsys.readouterr().err


def test_empty_best_subset_warns_and_predicts_the_prior():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(400, 3))
    y = rng.integers(0, 2, 400)
    with pytest.warns(UserWarning, match="predicts from the class prior alone"):
        model = SelectedNaiveBayes(random_state=0, categorical_features="all").fit(X, y)
    assert model.selected_features_ == [] and not model.get_support().any()
    prior = np.exp(model.class_log_prior_)
    np.testing.assert_allclose(model.predict_proba(X[:5]), np.tile(prior / prior.sum(), (5, 1)), rtol=1e-12)


def test_default_b_is_exact_on_small_data_so_first_choices_do_not_move_with_the_seed():
    # measured (docs: issue 23): sampled B(J) with m = 1000..20000 picks different first three predictors
    # for different seeds on breast-cancer, digits and wine; the default is exact when rows x steps is cheap
    X, y = load_wine(return_X_y=True)
    exact = SelectedNaiveBayes(b_estimate="exact", max_features=4).fit(X, y)
    paths = [SelectedNaiveBayes(max_features=4, random_state=seed).fit(X, y) for seed in (0, 1, 2)]
    for model in paths:
        assert model.b_estimate_ == "exact"
        assert [s["added"] for s in model.selection_path_] == [s["added"] for s in exact.selection_path_]
    assert [p["kind"] for p in paths[0].passes_].count("select") == 3  # the first step from the counts
    from nbparallel.model_selection.selection import resolve_b_estimate

    assert resolve_b_estimate("auto", 10**6, 20) == "sample"
    assert resolve_b_estimate("exact", 10**9, 20) == "exact"

"""scikit-learn's naive Bayes parameters and fitted attributes, against scikit-learn's own numbers."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import KFold, cross_val_score
from sklearn.naive_bayes import CategoricalNB, GaussianNB

from nbparallel import NaiveBayes, cross_validate
from nbparallel.loading import load

# a class prior smoothing this small gives scikit-learn's empirical prior
EMPIRICAL = 1e-300


@pytest.fixture
def codes():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, (80, 3))
    X[X[:, 1] == 2, 1] = 4  # column 1 never holds 2
    return X, rng.integers(0, 3, 80)


def categorical(**params):
    return NaiveBayes(**{"categorical_features": "all", "alpha": 1.0, "class_alpha": EMPIRICAL, **params})


SCORED = np.array([[0, 2, 1], [4, 3, 0], [1, 2, 2], [3, 1, 4]])


@pytest.mark.parametrize("ours, theirs", [
    ({"integer_categories": "range"}, {}),
    ({"integer_categories": "range", "min_categories": [7, 2, 9]}, {"min_categories": [7, 2, 9]}),
    ({"min_categories": 8}, {"min_categories": 8}),
    ({"integer_categories": "range", "fit_prior": False}, {"fit_prior": False}),
])
def test_category_space_and_prior_match_categorical_nb(codes, ours, theirs):
    X, y = codes
    model, reference = categorical(**ours).fit(X, y), CategoricalNB(**theirs).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(SCORED), reference.predict_proba(SCORED), rtol=1e-12)
    np.testing.assert_allclose(model.class_log_prior_, reference.class_log_prior_, rtol=1e-12)
    np.testing.assert_array_equal(model.class_count_, reference.class_count_)
    for ours_count, their_count, ours_log, their_log in zip(model.category_count_, reference.category_count_,
                                                            model.feature_log_prob_, reference.feature_log_prob_):
        np.testing.assert_array_equal(ours_count, their_count)
        np.testing.assert_allclose(ours_log.T, their_log, rtol=1e-12)


def test_observed_categories_leave_an_unseen_integer_out(codes):
    X, y = codes
    observed, full = categorical().fit(X, y), categorical(integer_categories="range").fit(X, y)
    row = np.array([[0, 2, 1]])  # 2 is unseen in column 1, within its range 0..4
    np.testing.assert_allclose(observed.predict_joint_log_proba(row),
                               observed.predict_joint_log_proba(np.array([[0, 0, 1]]))
                               - observed.feature_log_prob_[1][0])  # column 1 adds nothing for 2
    reference = CategoricalNB().fit(X, y)
    np.testing.assert_allclose(full.predict_proba(row), reference.predict_proba(row), rtol=1e-12)
    assert not np.allclose(observed.predict_proba(row), reference.predict_proba(row))


def test_range_refuses_negative_integers_naming_the_column():
    X = np.array([[0, -1], [1, 2], [2, 0]])
    with pytest.raises(ValueError, match=r"column '1'.*negative value -1"):
        categorical(integer_categories="range").fit(X, [0, 1, 0])


def test_min_categories_of_the_wrong_shape_is_refused(codes):
    X, y = codes
    with pytest.raises(ValueError, match="min_categories must be an int or one int per input column"):
        categorical(min_categories=[3, 4]).fit(X, y)


def test_partial_fit_grows_the_range_as_categorical_nb(codes):
    X, y = codes
    first = X[:40].copy()
    first[first == 4] = 3  # the first batch reaches 3 only; the second brings 4
    model, reference = categorical(integer_categories="range"), CategoricalNB()
    for batch, target in ((first, y[:40]), (X[40:], y[40:])):
        model.partial_fit(batch, target, classes=[0, 1, 2])
        reference.partial_fit(batch, target, classes=[0, 1, 2])
    np.testing.assert_allclose(model.predict_proba(SCORED), reference.predict_proba(SCORED), rtol=1e-12)
    for ours_count, their_count in zip(model.category_count_, reference.category_count_):
        np.testing.assert_array_equal(ours_count, their_count)


@pytest.mark.parametrize("alpha", [1e-12, 0.0])
def test_force_alpha_false_clips_alpha_with_a_warning(codes, alpha):
    X, y = codes
    with pytest.warns(UserWarning, match="force_alpha is False: alpha = 1e-10 is used"):
        model = categorical(alpha=alpha, force_alpha=False, integer_categories="range").fit(X, y)
    reference = CategoricalNB(alpha=alpha, force_alpha=False)
    with pytest.warns(UserWarning):
        reference.fit(X, y)
    np.testing.assert_allclose(model.predict_log_proba(SCORED), reference.predict_log_proba(SCORED), rtol=1e-9)


def test_force_alpha_true_keeps_a_tiny_alpha(codes):
    X, y = codes
    model = categorical(alpha=1e-12, integer_categories="range").fit(X, y)
    reference = CategoricalNB(alpha=1e-12).fit(X, y)
    np.testing.assert_allclose(model.predict_log_proba(SCORED), reference.predict_log_proba(SCORED), rtol=1e-9)
    clipped = categorical(alpha=1e-12, force_alpha=False, integer_categories="range")
    with pytest.warns(UserWarning):
        clipped.fit(X, y)
    assert not np.allclose(model.feature_log_prob_[1], clipped.feature_log_prob_[1])


def test_alpha_zero_needs_force_alpha_false(codes):
    X, y = codes
    with pytest.raises(ValueError, match="alpha=0 needs force_alpha=False"):
        categorical(alpha=0.0).fit(X, y)


def test_fit_prior_false_is_uniform_whatever_the_counts(codes):
    X, y = codes
    y = np.where(np.arange(len(y)) < 60, 0, y)  # class 0 dominates
    model = NaiveBayes(categorical_features="all", fit_prior=False).fit(X, y)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [1 / 3] * 3)
    fixed = NaiveBayes(categorical_features="all", fit_prior=False, class_prior=[0.5, 0.25, 0.25]).fit(X, y)
    np.testing.assert_allclose(np.exp(fixed.class_log_prior_), [0.5, 0.25, 0.25])


def test_gaussian_counts_match_gaussian_nb():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(50, 3)), rng.integers(0, 2, 50)
    weights = rng.uniform(0.5, 2, 50)
    model = NaiveBayes(numeric="gaussian").fit(X, y, sample_weight=weights)
    reference = GaussianNB().fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(model.class_count_, reference.class_count_, rtol=1e-14)
    assert [c.shape for c in model.category_count_] == [(2, 0)] * 3


def test_float32_input_gives_float64_parameters_where_gaussian_nb_gives_float32():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(40, 2)).astype(np.float32), rng.integers(0, 2, 40)
    model, reference = NaiveBayes(numeric="gaussian").fit(X, y), GaussianNB().fit(X, y)
    assert reference.theta_.dtype == reference.var_.dtype == np.float32  # scikit-learn's, which we keep different
    assert model.theta_.dtype == model.var_.dtype == model.predict_proba(X).dtype == np.float64
    np.testing.assert_allclose(model.theta_, reference.theta_, rtol=1e-5)
    np.testing.assert_allclose(model.var_, reference.var_, rtol=1e-4)


def test_parameters_survive_clone_set_params_and_model_files(codes, tmp_path):
    X, y = codes
    params = {"fit_prior": False, "force_alpha": False, "integer_categories": "range", "min_categories": [6, 2, 7],
              "alpha": 0.5}
    model = categorical(**params)
    assert {k: clone(model).get_params()[k] for k in params} == params
    assert categorical().set_params(**params).get_params()["min_categories"] == [6, 2, 7]
    model.fit(X, y)
    model.save(tmp_path / "model.json")
    loaded = load(tmp_path / "model.json")
    assert {k: loaded.get_params()[k] for k in params} == params
    np.testing.assert_array_equal(loaded.predict_proba(SCORED), model.predict_proba(SCORED))
    for ours, theirs in zip(loaded.category_count_, model.category_count_):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("params", [{"integer_categories": "range"}, {"min_categories": [6, 2, 8]}])
def test_cross_validation_folds_take_the_category_space_as_separate_fits(codes, params):
    X, y = codes
    result = cross_validate(categorical(**params), X, y, cv=KFold(4))
    separate = cross_val_score(categorical(**params), X, y, cv=KFold(4), scoring="neg_log_loss")
    np.testing.assert_allclose(result["test_log_likelihood"], separate, rtol=1e-12)


@pytest.mark.parametrize("prior", [[0.0, 0.5, 0.5], [0.2, 0.0, 0.8]])
def test_a_zero_class_prior_is_taken_as_scikit_learn_takes_it(prior):
    rng = np.random.default_rng(3)
    X, Xf, y = rng.integers(0, 3, (60, 2)), rng.normal(size=(60, 2)), rng.integers(0, 3, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scikit-learn's log(0)
        categorical = CategoricalNB(class_prior=prior).fit(X, y)
        gaussian = GaussianNB(priors=prior).fit(Xf, y)
    ours = NaiveBayes(categorical_features="all", alpha=1.0, class_prior=prior).fit(X, y)
    never = prior.index(0.0)
    assert ours.class_log_prior_[never] == -np.inf
    np.testing.assert_allclose(ours.predict_proba(X), categorical.predict_proba(X), atol=1e-12)
    assert not np.any(ours.predict(X) == never)
    np.testing.assert_allclose(NaiveBayes(numeric="gaussian", class_prior=prior).fit(Xf, y).predict_proba(Xf),
                               gaussian.predict_proba(Xf), atol=1e-12)
    with pytest.raises(ValueError, match="class_prior must be non-negative and sum to 1"):
        NaiveBayes(class_prior=[-0.5, 0.5, 1.0]).fit(X, y)

"""The Langley-Sage analysis: its pieces by hand, its moments and A(n) against exact enumerations, its claims."""

import itertools
import math

import numpy as np
import pytest

from nbparallel.analysis import (
    binomial,
    case_probability,
    class_probability,
    difference_moments,
    learning_curve,
    log_count_moments,
    predicted_accuracy,
    probability_d_nonpositive,
    relevant_given_class,
    score_moments,
)
from tests.langley_reference import exact_accuracy

LOG2, LOG3 = math.log(2), math.log(3)


# ---------------------------------------------------------------- pieces by hand

def test_binomial_and_test_case_probabilities():
    assert binomial(1, 2, 0.5) == pytest.approx(0.5)
    assert binomial(2, 3, 0.2) == pytest.approx(3 * 0.04 * 0.8)
    assert binomial(3, 2, 0.5) == 0.0 and binomial(-1, 2, 0.5) == 0.0
    # r = 2, i = 1, P(A) = 1/2: one irrelevant and both relevants present
    assert case_probability(1, 2, 2, 1, 0.5) == pytest.approx(0.5 * 0.25)
    j, s = np.meshgrid(np.arange(4), np.arange(6), indexing="ij")
    assert case_probability(j, s, 5, 3, 0.3).sum() == pytest.approx(1.0)


def test_class_probabilities_with_and_without_noise():
    assert class_probability(2, 2) == pytest.approx(0.25)
    assert class_probability(5, 3) == pytest.approx(0.5)
    assert class_probability(2, 2, noise=0.1) == pytest.approx(0.25 * 0.8 + 0.1)
    # 2 of 2: the negatives are 00, 01, 10, and A_1 is present in one of the three
    pos, neg = relevant_given_class(2, 2)
    assert (pos, neg) == (pytest.approx(1.0), pytest.approx(1 / 3))
    # 1 of 2 (a disjunction): positives 01, 10, 11; no negative holds A_1
    assert relevant_given_class(2, 1) == (pytest.approx(2 / 3), pytest.approx(0.0))
    # noise 0.1 on 2 of 2: P(A&C) = P(A&notC) = 1/4, P'(C) = 0.3
    pos, neg = relevant_given_class(2, 2, noise=0.1)
    assert pos == pytest.approx(0.25 / 0.3) and neg == pytest.approx(0.25 / 0.7)


def test_relevant_given_class_matches_counting_instances():
    r, q, p = 4, 3, 0.3
    xs = list(itertools.product((0, 1), repeat=r))
    prob = [math.prod(p if v else 1 - p for v in x) for x in xs]
    pos = [x for x in xs if sum(x) >= q]
    mass = lambda rows: sum(prob[xs.index(x)] for x in rows)  # noqa: E731
    expected_pos = mass([x for x in pos if x[0]]) / mass(pos)
    neg = [x for x in xs if sum(x) < q]
    expected_neg = mass([x for x in neg if x[0]]) / mass(neg)
    assert relevant_given_class(r, q, p) == (pytest.approx(expected_pos), pytest.approx(expected_neg))


def test_log_count_moments_by_hand():
    mu_p, var_p, mu_a, var_a = log_count_moments(np.array(2), 0.5)  # m = 0, 1, 2 w.p. 1/4, 1/2, 1/4
    mean = 0.5 * LOG2 + 0.25 * LOG3
    assert mu_p == pytest.approx(mean) and mu_a == pytest.approx(mean)
    assert var_p == pytest.approx(0.5 * LOG2**2 + 0.25 * LOG3**2 - mean**2)
    mu_p, var_p, mu_a, var_a = log_count_moments(np.array([0, 3]), 1.0)  # the attribute is always present
    np.testing.assert_allclose(mu_p, [0.0, math.log(4)])
    np.testing.assert_allclose([mu_a, var_p, var_a], 0.0, atol=1e-12)


def test_score_moments_by_hand():
    # one relevant (always present in the class) and one irrelevant, k = 1, both present in the test case
    mean, var = score_moments(1, 1, 1, r=1, i=1, prob_relevant=1.0, prob_irrelevant=0.5)
    assert mean == pytest.approx(-LOG3 + 0.5 * LOG2 + LOG2)
    assert var == pytest.approx(LOG2**2 / 4)


def test_difference_moments_against_enumerating_independent_counts():
    """mu_d, sigma_d^2 are the exact moments of d when every count is an independent binomial (the paper's model)."""
    r, q, i, p, n, k = 2, 1, 1, 0.5, 4, 3
    j, s = 1, 1  # the irrelevant present; relevant 1 present, relevant 2 absent
    pos, neg = relevant_given_class(r, q, p)
    present = [True, False, True]  # relevant 1, relevant 2, irrelevant
    probs = {True: [pos, pos, p], False: [neg, neg, p]}
    kk = {True: k, False: n - k}
    scores = {}
    for cls in (True, False):
        values, weights = [], []
        for counts in itertools.product(range(kk[cls] + 1), repeat=3):
            w = math.prod(math.comb(kk[cls], c) * pa**c * (1 - pa) ** (kk[cls] - c) for c, pa in zip(counts, probs[cls]))
            score = (1 - 3) * math.log(kk[cls] + 2) + sum(
                math.log(c + 1) if here else math.log(kk[cls] - c + 1) for c, here in zip(counts, present))
            values.append(score)
            weights.append(w)
        values, weights = np.array(values), np.array(weights)
        mean = weights @ values
        scores[cls] = (mean, weights @ (values - mean) ** 2)
    mu, var = difference_moments(j, s, k, n, r, q, i, p)
    assert mu == pytest.approx(scores[False][0] - scores[True][0])
    assert var == pytest.approx(scores[False][1] + scores[True][1])


def test_normal_approximation_and_its_degenerate_cases():
    assert probability_d_nonpositive(-1.0, 1.0) == pytest.approx(0.8413447460685429)
    assert probability_d_nonpositive(0.0, 4.0) == pytest.approx(0.5)
    np.testing.assert_array_equal(probability_d_nonpositive([-1.0, 0.0, 2.0], 0.0), [1.0, 0.5, 0.0])


def test_predicted_accuracy_by_hand():
    assert predicted_accuracy(0, 3, 2, i=2) == pytest.approx(0.5)  # no data: every score ties
    # 1 of 1, n = 1: the class seen is predicted for its own instance, the other instance ties
    assert predicted_accuracy(1, 1, 1) == pytest.approx(0.75)
    assert exact_accuracy(1, 1, 1) == pytest.approx(0.75)


def test_noisy_test_labels_are_an_affine_map():
    clean = predicted_accuracy(8, 3, 3, i=1, noise=0.2)
    assert predicted_accuracy(8, 3, 3, i=1, noise=0.2, noisy_test=True) == pytest.approx(0.8 * clean + 0.2 * (1 - clean))
    assert predicted_accuracy(8, 3, 3, i=1, noise=0.0, noisy_test=True) == predicted_accuracy(8, 3, 3, i=1)


@pytest.mark.parametrize("kwargs, message", [
    ({"r": 0, "q": 1}, "r must be"), ({"r": 3, "q": 0}, "q must"), ({"r": 3, "q": 4}, "q must"),
    ({"r": 2, "q": 1, "i": -1}, "i must"), ({"r": 2, "q": 1, "p": 1.0}, "p = P"),
    ({"r": 2, "q": 1, "noise": 1.5}, "noise must"), ({"r": 2, "q": 1, "n": -1}, "n must"),
])
def test_bad_parameters_name_themselves(kwargs, message):
    kwargs = {"n": 3, **kwargs}
    with pytest.raises(ValueError, match=message):
        predicted_accuracy(**kwargs)


def test_non_integer_counts_are_rejected():
    with pytest.raises(TypeError, match="r must be an int"):
        predicted_accuracy(3, 2.0, 1)


# ------------------------------------------------- A(n) against exact enumeration

@pytest.mark.parametrize("r, q, i, noise", [(1, 1, 1, 0.0), (2, 2, 0, 0.0), (2, 2, 1, 0.0), (1, 1, 1, 0.2)])
def test_predicted_accuracy_is_close_to_the_exact_expected_accuracy(r, q, i, noise):
    """The normal approximation's error on tiny domains: at most 4.5 points, about 1 on average."""
    ns = range(1, 6)
    exact = np.array([exact_accuracy(n, r, q, i, noise=noise) for n in ns])
    theory = learning_curve(ns, r, q, i, noise=noise)
    assert np.abs(theory - exact).max() < 0.045
    assert np.abs(theory - exact).mean() < 0.02


# ------------------------------------------------------- the paper's claims

@pytest.mark.parametrize("noise", [0.0, 0.15])
def test_q_and_r_minus_q_plus_1_give_identical_curves(noise):
    """'We have not shown curves for q = 1 and q = 2, since they are identical to those for q = 5 and q = 4.'"""
    ns = [1, 2, 5, 13, 30]
    for q in (1, 2):
        np.testing.assert_allclose(learning_curve(ns, 5, q, 1, noise=noise),
                                   learning_curve(ns, 5, 6 - q, 1, noise=noise), rtol=0, atol=1e-12)
    assert exact_accuracy(3, 2, 1, 1) == pytest.approx(exact_accuracy(3, 2, 2, 1))


def test_irrelevant_attributes_slow_learning_but_keep_the_asymptote():
    curves = np.array([learning_curve(range(1, 31), 2, 2, i) for i in (0, 1, 2, 4, 8)])
    assert (np.diff(curves, axis=0) < 0).all()  # more irrelevants, lower accuracy at every n
    assert all(predicted_accuracy(400, 2, 2, i) > 0.99 for i in (0, 4, 8))  # 100% on conjunctions


def test_five_attribute_conjunction_overtakes_three_near_the_fifth_instance():
    ns = np.arange(1, 31)
    three, five = learning_curve(ns, 3, 3, 1), learning_curve(ns, 5, 5, 1)
    one = learning_curve(ns, 1, 1, 1)
    assert ns[np.argmax(five > three)] == 5 and (five[4:] > three[4:]).all()
    assert (one >= np.maximum(three, five)).all()


def test_middle_q_is_hardest_over_most_of_the_curve():
    ns = np.arange(1, 31)
    q3, q4, q5 = (learning_curve(ns, 5, q, 1) for q in (3, 4, 5))
    assert ((q3 < q4) & (q4 < q5)).mean() > 0.75


def test_class_noise_slows_learning():
    curves = np.array([learning_curve(range(1, 31), 3, 3, 1, noise=z) for z in (0.0, 0.1, 0.2, 0.3)])
    assert (np.diff(curves, axis=0) < 0).all()

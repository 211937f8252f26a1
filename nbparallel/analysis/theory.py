"""Langley and Sage's average-case analysis of naive Bayes on q-of-r concepts.

The domain: ``r`` relevant and ``i`` irrelevant independent Boolean
attributes, each present with probability ``p`` = P(A); the target concept is
TRUE when at least ``q`` of the ``r`` relevant attributes are present (the paper
calls q the number of *necessary* attributes; 1 <= q <= r, so q = r is a
conjunction and q = 1 a disjunction); training labels are flipped with
probability ``noise`` = z. The learner is naive Bayes with the paper's count
initialisation: 1 per attribute value and class, 2 per class, 4 in total, so

    S_C = log(k_C + 2) + sum_present log(c + 1) + sum_absent log(k_C - c + 1)
          - (r + i) log(k_C + 2)                                       (Sec. 2)

for a class seen k_C times whose attribute was present c of them. ``A(n)``
approximates the scores' difference d = S(neg) - S(pos) by a normal
distribution whose mean and variance are sums of per-attribute moments of the
log counts (Sec. 4), and sums over the types of test cases and the number of
positive training cases (Sec. 3).

Equation names below follow the paper's text (it numbers no equations).

Details the paper leaves open, decided here:

* **Noise and the test set.** Noise corrupts training labels only; the test
  distribution is the noise-free concept, as in the paper's Figure 2(b).
  ``noisy_test=True`` scores against labels corrupted at the same rate,
  which gives (1 - z) A + z (1 - A).
* **Zero variance.** When sigma_d^2 = 0 (for instance n = 0, or a 1-of-1
  concept without irrelevant attributes) d is certain; Phi(-mu/sigma) is then
  1, 1/2 or 0 as mu_d is negative, zero or positive: a tie counts half, the
  same rule the experiments use for tied scores.
* **Summation bounds.** The paper's score sums run ``w = 0 .. j``; they hold
  j terms (one per present irrelevant attribute), as its mean mu_S states.
"""

from __future__ import annotations

import numpy as np
from scipy.special import comb, ndtr


def check_domain(r, q, i=0, p=0.5, noise=0.0):
    """Raise ValueError unless the parameters describe a q-of-r domain."""
    for name, value in (("r", r), ("q", q), ("i", i)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {value!r}")
    if r < 1:
        raise ValueError(f"r must be >= 1 relevant attribute, got {r}")
    if not 1 <= q <= r:
        raise ValueError(f"q must satisfy 1 <= q <= r = {r}, got {q}")
    if i < 0:
        raise ValueError(f"i must be >= 0 irrelevant attributes, got {i}")
    if not 0.0 < p < 1.0:
        raise ValueError(f"p = P(A) must lie strictly between 0 and 1, got {p!r}")
    if not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise must lie in [0, 1], got {noise!r}")


def binomial(k, n, p):
    """B(k, n, p) = C(n, k) p^k (1 - p)^(n - k); zero outside 0 <= k <= n (Sec. 3).

    >>> float(binomial(1, 2, 0.5))
    0.5
    """
    k = np.asarray(k)
    n = np.asarray(n)
    inside = (k >= 0) & (k <= n)
    kk, nn = np.where(inside, k, 0), np.where(inside, n, 0)
    return np.where(inside, comb(nn, kk) * p**kk * (1.0 - p) ** (nn - kk), 0.0)


def case_probability(j, s, r, i, p):
    """T_{j,s} = B(j, i, P(A)) B(s, r, P(A)): j of i irrelevants and s of r relevants present (Sec. 3)."""
    return binomial(j, i, p) * binomial(s, r, p)


def class_probability(r, q, p=0.5, noise=0.0):
    """P'(C) = P(C)(1 - 2z) + z, with P(C) = sum_{u=q}^{r} B(u, r, P(A)) (Sec. 5).

    >>> float(class_probability(2, 2))
    0.25
    """
    clean = float(binomial(np.arange(q, r + 1), r, p).sum())
    return clean * (1.0 - 2.0 * noise) + noise


def relevant_given_class(r, q, p=0.5, noise=0.0):
    """P'(A_o|C) and P'(A_o|not C) for one relevant attribute (Sec. 5).

    Noise free, P(A_o|C) = P(A_o)/P(C) sum_{k=q-1}^{r-1} B(k, r-1, P(A)) and
    P(A_o|not C) = P(A_o)/P(not C) sum_{k=0}^{q-2} B(k, r-1, P(A)). With noise z,
    P'(A_o|C) = [(1-z) P(A_o & C) + z P(A_o & not C)] / P'(C), and symmetrically.

    >>> [float(x) for x in relevant_given_class(2, 2)]
    [1.0, 0.3333333333333333]
    """
    rest = np.arange(r)  # how many of the other r - 1 relevants are present
    joint_pos = p * float(binomial(rest[rest >= q - 1], r - 1, p).sum())  # P(A_o & C)
    joint_neg = p * float(binomial(rest[rest <= q - 2], r - 1, p).sum())  # P(A_o & not C)
    pos = class_probability(r, q, p, noise)
    given_pos = ((1.0 - noise) * joint_pos + noise * joint_neg) / pos
    given_neg = ((1.0 - noise) * joint_neg + noise * joint_pos) / (1.0 - pos)
    return given_pos, given_neg


def log_count_moments(k, prob):
    """Means and variances of the log counts of one attribute in a class seen k times (Sec. 4).

    The attribute's count m in the class is B(m, k, prob) distributed, where
    prob is P(A_*|C) for an irrelevant attribute and P(A_o|C) for a relevant one.

    Returns
    -------
    mu_present, var_present, mu_absent, var_absent : ndarray, shaped like ``k``
        mu_* = sum_m log(m + 1) B(m, k, prob),
        mu_*bar = sum_m log(k - m + 1) B(m, k, prob),
        sigma_*^2 = sum_m log(m + 1)^2 B(m, k, prob) - mu_*^2, and likewise for
        an attribute absent from the test case.
    """
    k = np.asarray(k)
    m = np.arange(int(k.max(initial=0)) + 1)
    weights = binomial(m, k[..., None], prob)
    present = np.log(m + 1.0)
    absent = np.log(np.maximum(k[..., None] - m, 0) + 1.0)
    mu_p = (weights * present).sum(-1)
    mu_a = (weights * absent).sum(-1)
    var_p = np.maximum((weights * present**2).sum(-1) - mu_p**2, 0.0)
    var_a = np.maximum((weights * absent**2).sum(-1) - mu_a**2, 0.0)
    return mu_p, var_p, mu_a, var_a


def score_moments(j, s, k, r, i, prob_relevant, prob_irrelevant):
    """Mean and variance of one class's score S on a test case of type (j, s) (Sec. 4).

    mu_S = (1 - i - r) log(k + 2) + j mu_* + (i - j) mu_*bar + s mu_o + (r - s) mu_obar
    sigma_S^2 = j sigma_*^2 + (i - j) sigma_*bar^2 + s sigma_o^2 + (r - s) sigma_obar^2

    ``j``, ``s`` and ``k`` broadcast; k is the class's number of training cases
    and the probabilities are the attributes' given that class.
    """
    k = np.asarray(k)
    mu_ip, var_ip, mu_ia, var_ia = log_count_moments(k, prob_irrelevant)
    mu_rp, var_rp, mu_ra, var_ra = log_count_moments(k, prob_relevant)
    mean = (1 - i - r) * np.log(k + 2.0) + j * mu_ip + (i - j) * mu_ia + s * mu_rp + (r - s) * mu_ra
    var = j * var_ip + (i - j) * var_ia + s * var_rp + (r - s) * var_ra
    return mean, var


def difference_moments(j, s, k, n, r, q, i=0, p=0.5, noise=0.0):
    """mu_d = mu_Sbar - mu_S and sigma_d^2 = sigma_Sbar^2 + sigma_S^2 after k of n positive cases (Sec. 4).

    The negative class's moments replace k by n - k and the probabilities given
    C by those given not C.
    """
    given_pos, given_neg = relevant_given_class(r, q, p, noise)
    k = np.asarray(k)
    mean_pos, var_pos = score_moments(j, s, k, r, i, given_pos, p)
    mean_neg, var_neg = score_moments(j, s, np.asarray(n) - k, r, i, given_neg, p)
    return mean_neg - mean_pos, var_neg + var_pos


def probability_d_nonpositive(mu, var):
    """P(d <= 0) = Phi(-mu_d / sqrt(sigma_d^2)) under the normal approximation (Sec. 4).

    With sigma_d^2 = 0, d = mu_d for certain: 1 if mu_d < 0, 0 if mu_d > 0, 1/2 at a tie.
    """
    mu, var = np.broadcast_arrays(np.asarray(mu, float), np.asarray(var, float))
    sd = np.sqrt(var)
    safe = np.where(sd > 0, sd, 1.0)
    degenerate = np.where(mu < 0, 1.0, np.where(mu > 0, 0.0, 0.5))
    return np.where(sd > 0, ndtr(-mu / safe), degenerate)


def type_accuracies(n, r, q, i=0, p=0.5, noise=0.0):
    """A^+_{j,s}(k) for s >= q and A^-_{j,s}(k) for s < q, array of shape (n + 1, i + 1, r + 1) (Sec. 4).

    A^+_{j,s}(k) = P(d <= 0) and A^-_{j,s}(k) = 1 - P(d <= 0).
    """
    k = np.arange(n + 1)[:, None, None]
    j = np.arange(i + 1)[None, :, None]
    s = np.arange(r + 1)[None, None, :]
    mu, var = difference_moments(j, s, k, n, r, q, i, p, noise)
    right_if_positive = probability_d_nonpositive(mu, var)
    return np.where(s >= q, right_if_positive, 1.0 - right_if_positive)


def predicted_accuracy(n, r, q, i=0, p=0.5, noise=0.0, *, noisy_test=False):
    """A(n): the predicted accuracy of naive Bayes after n training cases (Sec. 3).

    A(n) = sum_j sum_{s>=q} T_{j,s} calA^+_{j,s}(n) + sum_j sum_{s<q} T_{j,s} calA^-_{j,s}(n),
    with calA^{+/-}_{j,s}(n) = sum_k B(k, n, P'(C)) A^{+/-}_{j,s}(k).

    Parameters
    ----------
    n : int >= 0
        Training cases.
    r, q : int
        The target is "q or more of the r relevant attributes present".
    i : int, default 0
        Irrelevant attributes.
    p : float in (0, 1), default 0.5
        P(A), the probability of each attribute.
    noise : float in [0, 1], default 0
        Class noise z on the training labels.
    noisy_test : bool, default False
        Score against test labels corrupted at rate z too (the paper's Figure
        2(b) uses a noise-free test set).

    Returns
    -------
    float

    >>> round(predicted_accuracy(0, 2, 2, i=1), 3)
    0.5
    """
    check_domain(r, q, i, p, noise)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be an int >= 0, got {n!r}")
    by_k = binomial(np.arange(n + 1), n, class_probability(r, q, p, noise))
    j = np.arange(i + 1)[:, None]
    s = np.arange(r + 1)[None, :]
    types = case_probability(j, s, r, i, p)
    accuracy = float(np.einsum("k,kjs,js->", by_k, type_accuracies(n, r, q, i, p, noise), types))
    if noisy_test:
        accuracy = (1.0 - noise) * accuracy + noise * (1.0 - accuracy)
    return accuracy


def learning_curve(ns, r, q, i=0, p=0.5, noise=0.0, *, noisy_test=False):
    """A(n) for each n in ``ns``, as a float array."""
    return np.array([predicted_accuracy(int(n), r, q, i, p, noise, noisy_test=noisy_test) for n in ns])

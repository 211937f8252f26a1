"""Learning curves of naive Bayes on synthetic q-of-r domains, run as passes on the engine.

A *run* draws one sequence of ``n_max`` training cases from the domain; its
training set of size n is the sequence's first n cases (the usual
learning-curve protocol, so the points of one curve share runs, while each
point averages R independent training sets). For every run and n the
classifier is the paper's: counts initialised to 1 per attribute value and
class and 2 per class (Sec. 2), which is ``NaiveBayes(alpha=1, class_alpha=2,
categorical_features="all")`` whenever the training set shows both classes and
both values of every attribute (see :func:`paper_estimator_matches_naive_bayes`).

A run's accuracy is exact, not sampled: the expected accuracy of its
classifier over the noise-free test distribution, i.e. over all 2^(r+i)
instances weighted by their probability (the paper's "single noise-free test
set that includes all possible instances"). A test case whose two scores are
equal (|d| <= ``TIE_TOLERANCE``) counts half: the expected accuracy of a fair
coin, and a rule that treats the classes alike, as the analysis does.

The work is one pass of :func:`nbparallel.engine.execution.run_pass`: a partition is a
batch of runs of one curve, its summary per-n sums of accuracies and their
squares (plus tie and degenerate-set fractions), and the summaries merge by
addition in the tree. Each run draws from its own stream
``SeedSequence(seed, spawn_key=(curve, run))``, so the result does not depend on
how runs are batched or where they run; with P(A) = 1/2 every accuracy is a
multiple of 2^-(r+i+1) and every sum exact, so it is bitwise identical too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nbparallel.analysis.theory import check_domain, learning_curve
from nbparallel.engine import execution

#: Scores closer than this are tied (rounding of the log sums is ~1e-14).
TIE_TOLERANCE = 1e-9


#: Runs per partition: bounds a batch's (runs, n, instances) score array.
BATCH_RUNS = 100


#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Domain:
    """A q-of-r concept over r relevant then i irrelevant attributes, P(A) = p, class noise z."""

    r: int
    q: int
    i: int = 0
    p: float = 0.5
    noise: float = 0.0

    def __post_init__(self):
        check_domain(self.r, self.q, self.i, self.p, self.noise)

    @property
    def n_attributes(self):
        """r + i."""
        return self.r + self.i

    def concept(self, X):
        """The noise-free class of boolean rows ``X[..., r + i]``: q or more relevants present."""
        return X[..., : self.r].sum(axis=-1) >= self.q

    def sample(self, rng, n):
        """``n`` training cases: boolean attributes (n, r + i) and labels with class noise."""
        u = rng.random((n, self.n_attributes + 1))
        X = u[:, :-1] < self.p
        return X, self.concept(X) ^ (u[:, -1] < self.noise)

    def test_set(self):
        """All 2^(r+i) instances, their probabilities and noise-free classes."""
        J = self.n_attributes
        X = ((np.arange(2**J)[:, None] >> np.arange(J)) & 1).astype(bool)
        present = X.sum(axis=1)
        weight = self.p**present * (1.0 - self.p) ** (J - present)
        return X, weight, self.concept(X)


def run_stream(seed, curve, run):
    """The random generator of one run: independent of batching and of the machine."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(curve, run)))


def prefix_counts(X, y):
    """Counts of every prefix of every run's sequence, the paper's c and k.

    Parameters
    ----------
    X : bool ndarray (runs, n_max, J)
    y : bool ndarray (runs, n_max)

    Returns
    -------
    k : (runs, n_max) positive cases among the first n = 1..n_max
    c_pos, c_neg : (runs, n_max, J) cases of each class with the attribute present
    """
    k = np.cumsum(y, axis=1)
    c_pos = np.cumsum(X & y[..., None], axis=1)
    c_neg = np.cumsum(X, axis=1) - c_pos
    return k, c_pos, c_neg


def score_difference_terms(k, c_pos, c_neg):
    """d(x) = S(neg) - S(pos) = b + D . x for the paper's estimator (Sec. 2 scores).

    With n the prefix length, k_pos = k and k_neg = n - k, each class scores
    log(k_C + 2) + sum_a log((c_a + 1)/(k_C + 2)) for present attributes and
    log((k_C - c_a + 1)/(k_C + 2)) for absent ones.

    Returns
    -------
    b : (runs, n_max) the difference when no attribute is present
    D : (runs, n_max, J) what each present attribute adds
    """
    n = np.arange(1, k.shape[1] + 1)
    k_neg = n - k
    lk_pos, lk_neg = np.log(k + 2.0)[..., None], np.log(k_neg + 2.0)[..., None]
    present = (np.log(c_neg + 1.0) - lk_neg) - (np.log(c_pos + 1.0) - lk_pos)
    absent = (np.log(k_neg[..., None] - c_neg + 1.0) - lk_neg) - (np.log(k[..., None] - c_pos + 1.0) - lk_pos)
    b = np.log(k_neg + 2.0) - np.log(k + 2.0) + absent.sum(axis=-1)
    return b, present - absent


def degenerate(k, c_pos, c_neg):
    """Training sets where NaiveBayes's smoothing is not the paper's: one class, or an attribute with one value."""
    n = np.arange(1, k.shape[1] + 1)
    seen = c_pos + c_neg
    one_value = ((seen == 0) | (seen == n[:, None])).any(axis=-1)
    return (k == 0) | (k == n) | one_value


def simulate_batch(task):
    """Summary of one batch of runs: per-n sums over runs (the pass's map function).

    ``task`` is (domain, n_max, seed, curve, first_run, n_runs, n_curves). The
    summary is an array (n_curves, 5, n_max) holding, for this batch's curve,
    the number of runs, the sums of accuracy and of its square, and the summed
    tie and degenerate fractions; other curves' rows are zero.
    """
    domain, n_max, seed, curve, first, n_runs, n_curves = task
    draws = [domain.sample(run_stream(seed, curve, run), n_max) for run in range(first, first + n_runs)]
    X = np.stack([d[0] for d in draws])
    y = np.stack([d[1] for d in draws])
    k, c_pos, c_neg = prefix_counts(X, y)
    b, D = score_difference_terms(k, c_pos, c_neg)
    test_X, weight, truth = domain.test_set()
    d = b[..., None] + D @ test_X.T.astype(float)  # (runs, n_max, instances)
    tie = np.abs(d) <= TIE_TOLERANCE
    right = np.where(truth, d < -TIE_TOLERANCE, d > TIE_TOLERANCE) + 0.5 * tie
    accuracy = right @ weight
    summary = np.zeros((n_curves, 5, n_max))
    summary[curve] = [np.full(n_max, n_runs), accuracy.sum(0), (accuracy**2).sum(0),
                      (tie @ weight).sum(0), degenerate(k, c_pos, c_neg).sum(0)]
    return summary


def add_summaries(*summaries):
    """Merge of the pass: summaries add."""
    return np.sum(summaries, axis=0)


def learning_curves(domains, n_max, runs=1000, seed=0, *, batch_runs=BATCH_RUNS, verbose=False):
    """Experimental and predicted learning curves for n = 1..n_max, one pass on the engine.

    Parameters
    ----------
    domains : list of Domain
        One curve per domain.
    n_max : int >= 1
        Largest training set.
    runs : int >= 2, default 1000
        Independent runs R per curve.
    seed : int, default 0
    batch_runs : int, default 100
        Runs per partition (changes neither result nor stream).
    verbose : bool
        Progress bar.

    Returns
    -------
    list of dict, one per domain, each with arrays over n: ``n``, ``mean``,
    ``sd`` (across runs), ``ci_low``, ``ci_high`` (95%, normal), ``theory``,
    ``tie_fraction``, ``degenerate_fraction``, and ``runs`` and ``domain``.
    """
    for name, value, low in (("n_max", n_max, 1), ("runs", runs, 2), ("batch_runs", batch_runs, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    domains = list(domains)
    if not domains or not all(isinstance(d, Domain) for d in domains):
        raise TypeError("domains must be a non-empty list of Domain")
    tasks = [(domain, n_max, int(seed), c, first, min(batch_runs, runs - first), len(domains))
             for c, domain in enumerate(domains) for first in range(0, runs, batch_runs)]
    total, _ = execution.run_pass(tasks, simulate_batch, add_summaries, name="nbparallel-langley",
                               token=repr(tasks), verbose=verbose)
    n = np.arange(1, n_max + 1)
    curves = []
    for domain, (count, acc, acc2, ties, degen) in zip(domains, total):
        mean = acc / count
        sd = np.sqrt(np.maximum(acc2 - count * mean**2, 0.0) / (count - 1))
        half = Z95 * sd / np.sqrt(count)
        curves.append({
            "domain": domain, "runs": runs, "n": n, "mean": mean, "sd": sd,
            "ci_low": mean - half, "ci_high": mean + half,
            "theory": learning_curve(n, domain.r, domain.q, domain.i, domain.p, domain.noise),
            "tie_fraction": ties / count, "degenerate_fraction": degen / count,
        })
    return curves


def paper_estimator_matches_naive_bayes(X, y):
    """True when NaiveBayes(alpha=1, class_alpha=2) is exactly the paper's estimator on (X, y).

    NaiveBayes smooths with P(C) = (N_C + 2)/(N + 2K) and P(v|C) = (N_vC + 1)/(N_C + M),
    K the classes and M the values it has seen: the paper's (k + 2)/(n + 4) and
    (c + 1)/(k + 2) when K = M = 2. With one class it cannot fit, and it drops an
    attribute seen with one value; the paper's initial counts cover both cases.
    """
    X, y = np.asarray(X, bool), np.asarray(y, bool)
    seen = X.sum(axis=0)
    return bool(0 < y.sum() < len(y) and ((seen > 0) & (seen < len(y))).all())

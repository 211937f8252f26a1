"""Exact expected accuracy of the paper's naive Bayes by enumerating every training set (tiny domains only).

Written independently of nbparallel.analysis: plain Python, one training
multiset at a time, scores straight from the paper's Sec. 2 formula.
"""

import itertools
import math


def _instances(J):
    return list(itertools.product((0, 1), repeat=J))


def _probability(x, p):
    return math.prod(p if v else 1 - p for v in x)


def _score(x, k, counts):
    """log((k+2)/(n+4)) + sum log((c+1)/(k+2)) over present, log((k-c+1)/(k+2)) over absent, less log(n+4)."""
    total = math.log(k + 2)
    for v, c in zip(x, counts):
        total += math.log((c + 1) if v else (k - c + 1)) - math.log(k + 2)
    return total


def exact_accuracy(n, r, q, i=0, p=0.5, noise=0.0):
    """E[accuracy] over training sets of size n, noise-free test, ties counted half."""
    J = r + i
    xs = _instances(J)
    label = [sum(x[:r]) >= q for x in xs]
    # a training case is (instance, observed label); its probability
    types = []
    for x, c in zip(xs, label):
        px = _probability(x, p)
        types.append((x, c, px * (1 - noise)))
        if noise > 0:
            types.append((x, not c, px * noise))
    expected = 0.0
    for multiset in itertools.combinations_with_replacement(range(len(types)), n):
        mult = math.factorial(n)
        prob = 1.0
        for t in set(multiset):
            m = multiset.count(t)
            mult //= math.factorial(m)
            prob *= types[t][2] ** m
        k = {True: 0, False: 0}
        counts = {True: [0] * J, False: [0] * J}
        for t in multiset:
            x, c, _ = types[t]
            k[c] += 1
            for a in range(J):
                counts[c][a] += x[a]
        accuracy = 0.0
        for x, c in zip(xs, label):
            d = _score(x, k[False], counts[False]) - _score(x, k[True], counts[True])
            if abs(d) <= 1e-9:
                right = 0.5
            else:
                right = 1.0 if (d < 0) == c else 0.0
            accuracy += _probability(x, p) * right
        expected += mult * prob * accuracy
    return expected

"""AODE and TAN from pair counts against Weka 3.6 on its nominal example files (class probabilities to 1e-12, TAN's
tree itself), against plain-Python references where Weka differs by design (TAN with missing values), and their
equivalences: any split of the rows, integer weights as duplicated rows."""

import math
from collections import Counter

import numpy as np
import pytest

from nbparallel.models.seminaive import (
    aode_joint_log_likelihood,
    aode_tables,
    conditional_mutual_information,
    tan_joint_log_likelihood,
    tan_link_gains,
    tan_parents,
    tan_tables,
)
from nbparallel.summaries.pair_counts import PairCounts
from nbparallel.summaries.protocol import merge_summaries
from tests.models.weka_nominal import NominalData, filled, read_example, weka_distributions

EXAMPLES = ["weather.nominal", "contact-lenses", "vote", "breast-cancer", "soybean"]
AODE = "weka.classifiers.bayes.AODE"
BAYES_NET = "weka.classifiers.bayes.BayesNet"


def tan_options(score, alpha):
    """BayesNet's options of the TAN search with link score ``score`` and SimpleEstimator's ``alpha``."""
    return ["-Q", "weka.classifiers.bayes.net.search.local.TAN", "--", "-S", score.upper(),
            "-E", "weka.classifiers.bayes.net.estimate.SimpleEstimator", "--", "-A", str(alpha)]


def probabilities(joint_log_likelihood):
    shifted = joint_log_likelihood - joint_log_likelihood.max(axis=1, keepdims=True)
    p = np.exp(shifted)
    return p / p.sum(axis=1, keepdims=True)


def pair_counts(data, weights=None):
    return PairCounts.of_codes(data.codes, data.y, weights, data.offsets, data.n_classes)


def with_missing_values(data):
    """The training rows each with one more value missing (attribute ``row % f``), and a row of no values."""
    codes = data.codes.copy()
    codes[np.arange(len(codes)), np.arange(len(codes)) % codes.shape[1]] = 0
    codes = np.vstack([codes, np.zeros((1, codes.shape[1]), np.uint8)])
    return data.rows(np.vstack([data.codes, codes]), np.full(2 * len(data.y) + 1, -1))


def unseen_rows(data, n_rows=60):
    """Complete rows of random values, most of them combinations the training rows never show."""
    rng = np.random.default_rng(len(data.y))
    codes = np.column_stack([rng.integers(1, len(v) + 1, n_rows) for v in data.values[:-1]])
    return data.rows(np.vstack([data.codes, codes]), np.full(len(data.y) + n_rows, -1))


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("options, parameters", [
    ([], {}),                                   # Weka's defaults: Laplace, frequency limit 1
    (["-M", "-W", "3"], {"m_estimate": 3}),
    (["-F", "30"], {"frequency_limit": 30}),    # values seen fewer than 30 times are no super-parent
])
def test_aode_gives_wekas_probabilities(name, options, parameters, tmp_path):
    train = read_example(name)
    test = with_missing_values(train)
    weka, _ = weka_distributions(AODE, train, test, tmp_path, *options)
    tables = aode_tables(pair_counts(train), **parameters)
    np.testing.assert_allclose(probabilities(aode_joint_log_likelihood(tables, test.codes)), weka, rtol=0,
                               atol=1e-12)


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("score, alpha", [("entropy", 0.5), ("entropy", 2.0), ("bayes", 0.5)])
def test_tan_gives_wekas_tree_and_probabilities(name, score, alpha, tmp_path):
    train = filled(read_example(name))  # Weka's BayesNet fills missing values with the mode; here they are none
    test = unseen_rows(train)
    weka, weka_parents = weka_distributions(BAYES_NET, train, test, tmp_path, *tan_options(score, alpha))
    tables = tan_tables(pair_counts(train), alpha=alpha, score=score)
    assert [[p] if p >= 0 else [] for p in tables.parents] == weka_parents
    np.testing.assert_allclose(probabilities(tan_joint_log_likelihood(tables, test.codes)), weka, rtol=0,
                               atol=1e-12)


def test_tan_with_missing_values_against_a_plain_reference():
    """A missing value adds no factor, a missing parent leaves P(x | c), counts come from the rows with the values
    they condition on present (Weka fills missing values with the mode instead)."""
    data = read_example("vote")
    summary = pair_counts(data)
    tables = tan_tables(summary, alpha=0.5)
    test = with_missing_values(data)
    ours = tan_joint_log_likelihood(tables, test.codes)
    rows = [(row, c) for row, c in zip(data.codes.tolist(), data.y.tolist()) if c >= 0]
    n_values = [len(v) for v in data.values[:-1]]
    classes = Counter(c for _, c in rows)
    singles = Counter((a, row[a], c) for row, c in rows for a in range(len(row)) if row[a])
    pairs = Counter((a, p, row[a], row[p], c) for row, c in rows for a in range(len(row))
                    for p in range(len(row)) if row[a] and row[p])
    for n, row in enumerate(test.codes.tolist()[::7]):
        for c in range(data.n_classes):
            expected = math.log((classes[c] + 0.5) / (len(rows) + data.n_classes * 0.5))
            for a, x in enumerate(row):
                p = int(tables.parents[a])
                if not x:
                    continue
                if p < 0 or not row[p]:
                    given = sum(singles[(a, v, c)] for v in range(1, n_values[a] + 1))
                    expected += math.log((singles[(a, x, c)] + 0.5) / (given + n_values[a] * 0.5))
                else:
                    given = sum(pairs[(a, p, v, row[p], c)] for v in range(1, n_values[a] + 1))
                    expected += math.log((pairs[(a, p, x, row[p], c)] + 0.5) / (given + n_values[a] * 0.5))
            assert ours[7 * n, c] == pytest.approx(expected, rel=1e-12)


def test_conditional_mutual_information_against_its_definition():
    data = read_example("vote")
    cmi = conditional_mutual_information(pair_counts(data))
    rows = [(row, c) for row, c in zip(data.codes.tolist(), data.y.tolist()) if c >= 0]
    for i, j in [(0, 1), (3, 15), (9, 2)]:
        both = [(row[i], row[j], c) for row, c in rows if row[i] and row[j]]
        n = len(both)
        joint, c_counts = Counter(both), Counter(c for _, _, c in both)
        with_i, with_j = Counter((a, c) for a, _, c in both), Counter((b, c) for _, b, c in both)
        expected = sum(k / n * math.log(k * c_counts[c] / (with_i[(a, c)] * with_j[(b, c)]))
                       for (a, b, c), k in joint.items())
        assert cmi[i, j] == pytest.approx(expected, rel=1e-10) and cmi[j, i] == pytest.approx(expected, rel=1e-10)
        assert expected > 1e-4
    assert np.all(np.diag(cmi) == 0)


def test_tan_tree_is_a_maximum_spanning_tree_rooted_once():
    data = read_example("soybean")
    summary = pair_counts(filled(data))
    gains = tan_link_gains(summary)
    parents = tan_parents(gains)
    assert np.count_nonzero(parents < 0) == 1
    for a in range(len(parents)):  # every attribute reaches the root: no cycle
        seen, node = set(), a
        while parents[node] >= 0:
            assert node not in seen
            seen.add(node)
            node = parents[node]
    weight = sum(gains[a, p] for a, p in enumerate(parents) if p >= 0)
    symmetric = np.maximum(gains, gains.T)
    # no single exchange of a tree link for a heavier link between the two sides it separates
    for a, p in enumerate(parents):
        if p < 0:
            continue
        below = {b for b in range(len(parents)) if _reaches(parents, b, a)}
        best_across = max(symmetric[u, v] for u in below for v in range(len(parents)) if v not in below)
        assert best_across <= symmetric[a, p] + 1e-9 * abs(weight)


def _reaches(parents, node, target):
    while node >= 0:
        if node == target:
            return True
        node = parents[node]
    return False


def test_any_split_of_the_rows_gives_the_same_models():
    data = read_example("breast-cancer")
    whole = pair_counts(data)
    cuts = [0, 17, 18, 140, len(data.y)]
    parts = [PairCounts.of_codes(data.codes[a:b], data.y[a:b], None, data.offsets, data.n_classes)
             for a, b in zip(cuts, cuts[1:])]
    merged = merge_summaries(*parts[::-1])
    assert merged.equals(whole)
    np.testing.assert_array_equal(aode_joint_log_likelihood(aode_tables(merged), data.codes),
                                  aode_joint_log_likelihood(aode_tables(whole), data.codes))
    np.testing.assert_array_equal(tan_joint_log_likelihood(tan_tables(merged), data.codes),
                                  tan_joint_log_likelihood(tan_tables(whole), data.codes))


def test_integer_weights_count_as_duplicated_rows():
    data = read_example("contact-lenses")
    weights = np.arange(len(data.y)) % 3 + 1.0
    repeated = data.rows(np.repeat(data.codes, weights.astype(int), axis=0), np.repeat(data.y, weights.astype(int)))
    weighted, duplicated = pair_counts(data, weights), pair_counts(repeated)
    assert weighted.equals(duplicated)
    np.testing.assert_array_equal(aode_joint_log_likelihood(aode_tables(weighted), data.codes),
                                  aode_joint_log_likelihood(aode_tables(duplicated), data.codes))


def test_bad_parameters_and_codes_are_refused():
    summary = pair_counts(read_example("weather.nominal"))
    with pytest.raises(ValueError, match="frequency_limit"):
        aode_tables(summary, frequency_limit=-1)
    with pytest.raises(ValueError, match="m_estimate"):
        aode_tables(summary, m_estimate=0)
    with pytest.raises(ValueError, match="alpha"):
        tan_tables(summary, alpha=0)
    with pytest.raises(ValueError, match="score"):
        tan_tables(summary, score="mdl")
    with pytest.raises(ValueError, match="parents"):
        tan_tables(summary, parents=[1, 0, 0, 9])
    bad = np.array([[1, 1, 3, 1]], dtype=np.uint8)  # humidity has two values
    with pytest.raises(ValueError, match="outside"):
        aode_joint_log_likelihood(aode_tables(summary), bad)
    with pytest.raises(ValueError, match="outside"):
        tan_joint_log_likelihood(tan_tables(summary), bad)


@pytest.mark.parametrize("keep", [[0], [0, 3]])
def test_one_or_two_attributes_as_in_weka(keep, tmp_path):
    """The smallest trees and super-parent sets: one attribute (TAN is naive Bayes, AODE its one parent) or two."""
    full = read_example("weather.nominal")
    header = "@relation r\n" + "".join(
        f"@attribute a{i} {{{','.join(full.values[a])}}}\n" for i, a in enumerate([*keep, -1])) + "@data\n"
    data = NominalData(header, [full.values[a] for a in keep] + [full.values[-1]], full.codes[:, keep].copy(), full.y)
    test = with_missing_values(data)
    weka, _ = weka_distributions(AODE, data, test, tmp_path)
    ours = aode_joint_log_likelihood(aode_tables(pair_counts(data)), test.codes)
    np.testing.assert_allclose(probabilities(ours), weka, rtol=0, atol=1e-12)
    weka, parents = weka_distributions(BAYES_NET, data, data, tmp_path, *tan_options("entropy", 0.5))
    tables = tan_tables(pair_counts(data))
    assert [[p] if p >= 0 else [] for p in tables.parents] == parents
    np.testing.assert_allclose(probabilities(tan_joint_log_likelihood(tables, data.codes)), weka, rtol=0, atol=1e-12)

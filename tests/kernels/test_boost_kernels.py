"""The boosting round's kernels against numpy, and weights against duplicated rows (a round's classes are
``best_of_rows``'s, tested in test_row_sums.py)."""

import numpy as np
import pytest

from nbparallel.kernels.boosting import reweight, round_labels
from nbparallel.models.boosting import BoostedNaiveBayes


def test_round_labels_and_reweight_equal_numpy():
    rng = np.random.default_rng(3)
    classes = rng.integers(-1, 3, 50)
    predicted = rng.integers(0, 3, 50)
    wrong, labels = round_labels(predicted, classes, 3)
    np.testing.assert_array_equal(wrong, (predicted != classes) & (classes >= 0))
    np.testing.assert_array_equal(labels, np.where(classes >= 0, classes + 3 * wrong, -1))
    weights = rng.random(50)
    np.testing.assert_array_equal(reweight(weights, wrong, 0.7, 2.5), weights * np.where(wrong, 2.5, 0.7))
    with pytest.raises(TypeError, match="wrong"):
        reweight(weights, wrong.astype(int), 0.7, 2.5)


@pytest.mark.parametrize("n_partitions", [1, 3])
def test_integer_weights_equal_duplicated_rows(n_partitions):
    rng = np.random.default_rng(11)
    X = rng.integers(0, 4, size=(300, 4)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    X = np.column_stack([X, rng.normal(size=300)])  # a binned numeric attribute
    y = (np.nan_to_num(X[:, 0]) + X[:, 4] + rng.normal(size=300) > 1.5).astype(int)
    w = rng.integers(1, 4, 300)
    params = dict(n_rounds=5, categorical_features=[0, 1, 2, 3], n_partitions=n_partitions, alpha=1.0,
                  class_alpha=1.0)
    weighted = BoostedNaiveBayes(**params).fit(X, y, sample_weight=w.astype(float))
    repeated = BoostedNaiveBayes(**params).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.estimator_errors_, repeated.estimator_errors_, rtol=1e-12)
    np.testing.assert_allclose(weighted.estimator_weights_, repeated.estimator_weights_, rtol=1e-12)
    for a, b in zip(weighted.estimators_, repeated.estimators_):
        np.testing.assert_allclose(a.counts_.table, b.counts_.table, rtol=1e-12)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))

"""The boosting round's kernels against the scoring family and numpy, and weights against duplicated rows."""

import numpy as np
import pytest

from nbparallel.kernels.boosting import predict, reweight, round_labels
from nbparallel.kernels.checks import CheckedCodes
from nbparallel.kernels.scoring import best_of_rows
from nbparallel.models.boosting import BoostedNaiveBayes


@pytest.mark.parametrize("n_classes", [2, 3, 5, 8])
@pytest.mark.parametrize("n_rows", [1, 7, 64])
def test_predict_equals_best_of_rows_ties_included(n_classes, n_rows):
    rng = np.random.default_rng(n_classes * 100 + n_rows)
    sizes = [4, 3, 6]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    codes = np.column_stack([rng.integers(0, s, n_rows) for s in sizes]).astype(np.uint8)
    table = np.round(np.log(rng.random((offsets[-1], n_classes))), 1)  # coarse values: many exact ties
    table[:, 1] = table[:, 0] if n_rows == 64 else table[:, 1]  # classes 0 and 1 tied on every row
    log_prior = np.full(n_classes, -np.log(n_classes))
    order = rng.permutation(n_classes)
    first, second = codes[:, :2], np.asfortranarray(codes[:, 2:]).astype(np.uint16)
    expected = best_of_rows(first, second, table, offsets, log_prior, order)
    got = predict(CheckedCodes(first, second, offsets), table, log_prior, order)
    np.testing.assert_array_equal(got, expected)


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


def test_predict_refuses_a_table_of_another_layout():
    offsets = np.array([0, 3, 5], dtype=np.int64)
    codes = CheckedCodes(np.ones((4, 2), np.uint8), np.empty((4, 0), np.uint8), offsets)
    with pytest.raises(ValueError, match="table must have shape"):
        predict(codes, np.zeros((4, 2)), np.zeros(2), np.arange(2))


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

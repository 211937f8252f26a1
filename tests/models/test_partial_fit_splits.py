"""partial_fit over any split of the rows equals fit of them all: random data (text and integer categories,
a binned numeric column, missing values in X and y, zero weights) cut into random batches, some holding no
labelled row or no weight, compared with one fit (counts, schema, missing targets and probabilities)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes


def random_case(rng):
    n = int(rng.integers(2, 40))
    text = pd.Series(rng.choice(["a", "b", "c", None], n), dtype="object")
    codes = pd.Series(rng.integers(0, 4, n), dtype="Int64").mask(rng.random(n) < 0.2)
    number = pd.Series(rng.normal(size=n).round(2)).mask(rng.random(n) < 0.2)
    X = pd.DataFrame({"text": text, "code": codes, "number": number})
    y = pd.Series(rng.choice(["u", "v", "w"], n), dtype="object").mask(rng.random(n) < 0.3)
    w = np.where(rng.random(n) < 0.3, 0.0, rng.integers(1, 4, n).astype(float))
    return X, y, w


def random_batches(rng, n):
    """The row indices of 1 to 4 batches (some may be empty of labels or of weight), in a random order."""
    order = rng.permutation(n)
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(int(rng.integers(0, 4)), n - 1), replace=False))
    return np.split(order, cuts)


@pytest.mark.parametrize("seed", range(4))
def test_partial_fit_over_random_splits_equals_fit(seed):
    rng = np.random.default_rng(seed)
    compared = refused = 0
    for _ in range(40):
        X, y, w = random_case(rng)
        lo, hi = X["number"].min(), X["number"].max()
        params = dict(categorical_features=["code"], numeric_features=["number"], n_bins=3,
                      numeric_ranges={"number": (lo, hi)} if lo < hi else None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # every attribute ignored, few rows: beside the point here
            try:
                full = NaiveBayes(**params).fit(X, y, sample_weight=w)
            except ValueError:
                full = None  # nothing to learn from (or one class): the batches must not make a model either
            classes = sorted(set(y[w > 0].dropna()))  # the labels a fit sees: of non-zero weight
            model = NaiveBayes(**params)
            try:
                for rows in random_batches(rng, len(X)):
                    model.partial_fit(X.iloc[rows], y.iloc[rows], classes=classes, sample_weight=w[rows])
                scores = model.predict_proba(X)
            except ValueError:
                scores = None
            if full is None:
                assert scores is None  # nothing to learn from in the whole: the batches make no model either
                refused += 1
                continue
            assert full.classes_.tolist() == classes
            assert scores is not None  # what fit takes as a whole, the batches take in any split
            assert model.schema_.to_dict() == full.schema_.to_dict()
            assert model.counts_.equals(full.counts_)
            assert model.n_missing_target_ == full.n_missing_target_
            np.testing.assert_allclose(scores, full.predict_proba(X), rtol=1e-12, atol=1e-15)
            compared += 1
    assert compared >= 25, (compared, refused)  # most cases make a model both ways

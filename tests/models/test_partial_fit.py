"""partial_fit on class-ordered batches: a warning when a batch leaves the first batch's ranges, and
numeric_ranges that make the batches equal the full fit; a batch whose every target is missing adds only its
count of missing targets (a first one too, given classes=), and a first batch that cannot name two classes is
refused, saying what to pass."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

from nbparallel import NaiveBayes


def class_ordered_iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    order = np.argsort(y.to_numpy(), kind="stable")
    return X.iloc[order].reset_index(drop=True), y.iloc[order].reset_index(drop=True)


def test_partial_fit_warns_when_a_batch_leaves_the_first_batch_ranges():
    X, y = class_ordered_iris()
    model = NaiveBayes().partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    with pytest.warns(UserWarning, match="column 'petal length \\(cm\\)' has values in .* numeric_ranges"):
        model.partial_fit(X[50:100], y[50:100])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.partial_fit(X[:10], y[:10])  # inside the ranges: silent


def test_each_batch_that_leaves_the_ranges_warns_once_naming_every_such_column_at_the_callers_line():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    batches = np.array_split(np.arange(len(X)), 4)
    first = X.iloc[batches[0]]
    model = NaiveBayes().partial_fit(first, y.iloc[batches[0]], classes=[0, 1])
    for rows in batches[1:]:
        batch = X.iloc[rows]
        outside = [c for c in X.columns if batch[c].min() < first[c].min() or batch[c].max() > first[c].max()]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.partial_fit(batch, y.iloc[rows])
        assert len(outside) > 5 and len(caught) == 1 and caught[0].filename == __file__
        message = str(caught[0].message)
        assert all(repr(c) in message for c in outside), message
        assert message.count("has values in") == 5 and f"and {len(outside) - 5} more columns" in message


def test_numeric_ranges_make_class_ordered_batches_equal_the_full_fit():
    X, y = class_ordered_iris()
    ranges = {c: (X[c].min(), X[c].max()) for c in X.columns}
    full = NaiveBayes().fit(X, y)
    model = NaiveBayes(numeric_ranges=ranges)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for start in range(0, 150, 50):
            model.partial_fit(X[start:start + 50], y[start:start + 50], classes=[0, 1, 2])
    assert model.counts_.equals(full.counts_)
    assert model.score(X, y) == full.score(X, y) > 0.9
    # the ranges also bound the bins of a single fit, counted as a plain counter would
    narrow = NaiveBayes(numeric_ranges={"sepal width (cm)": (2.0, 4.0)})
    with pytest.warns(UserWarning, match="sepal width"):
        narrow.fit(X, y)
    edges = 2.0 + 2.0 * np.arange(1, 10) / 10
    bins = np.searchsorted(edges, X["sepal width (cm)"].to_numpy(), side="left")
    a = [at.name for at in narrow.schema_.attributes].index("sepal width (cm)")
    expected = np.zeros((10, 3))
    np.add.at(expected, (bins, y.to_numpy()), 1)
    np.testing.assert_array_equal(narrow.counts_.attribute(a), expected)


@pytest.mark.parametrize("ranges, error", [
    ({"sepal width (cm)": (4.0, 2.0)}, ValueError), ({"sepal width (cm)": (0, np.inf)}, ValueError),
    ({"nope": (0, 1)}, ValueError), ([(0, 1)], TypeError),
])
def test_bad_numeric_ranges(ranges, error):
    with pytest.raises(error, match="numeric_ranges"):
        NaiveBayes(numeric_ranges=ranges).fit(*class_ordered_iris())


def test_a_batch_whose_every_target_is_missing_adds_only_that_count():
    """Issue 48 item 3: fit skips rows of a missing target (the SPSS rules) and counts them in
    n_missing_target_; partial_fit of a batch of such rows does the same, new categories included."""
    X1 = pd.DataFrame({"x": ["a", "b", "a"], "n": [1.0, 2.0, 3.0]})
    X2 = pd.DataFrame({"x": ["z", "b"], "n": [1.5, 2.5]})
    y1, y2 = [0, 1, None], np.array([None, None], dtype=object)
    full = NaiveBayes(numeric_ranges={"n": (1.0, 3.0)}).fit(pd.concat([X1, X2], ignore_index=True), [*y1, *y2])
    model = NaiveBayes(numeric_ranges={"n": (1.0, 3.0)}).partial_fit(X1, y1, classes=[0, 1])
    before = model.counts_
    model.partial_fit(X2, y2)
    assert model.n_missing_target_ == full.n_missing_target_ == 3
    assert model.counts_.equals(full.counts_) and model.schema_.to_dict() == full.schema_.to_dict()
    assert model.counts_.class_totals.tolist() == before.class_totals.tolist()
    assert np.array_equal(model.predict_proba(X1), full.predict_proba(X1))
    model.partial_fit(X2, pd.Series([np.nan, np.nan]))  # float NaN targets: the same
    assert model.n_missing_target_ == 5


def test_a_first_batch_without_a_label_is_refused_without_classes_and_added_with_them():
    X, y = pd.DataFrame({"x": ["a", "b", "a"]}), pd.Series(["u", "v", None])
    with pytest.raises(ValueError, match="missing in every one of the 1 rows of partial_fit's first batch .* "
                                         "pass classes= to name them"):
        NaiveBayes().partial_fit(X[2:], y[2:])
    model = NaiveBayes().partial_fit(X[2:], y[2:], classes=["u", "v"])  # adds its missing target
    assert model.n_missing_target_ == 1
    with pytest.raises(ValueError, match="no training case has both a known target and a known attribute"):
        model.predict(X)  # nothing to score from yet
    model.partial_fit(X[:2], y[:2])
    full = NaiveBayes().fit(X, y)
    assert model.counts_.equals(full.counts_) and model.n_missing_target_ == full.n_missing_target_
    assert np.array_equal(model.predict_proba(X), full.predict_proba(X))


def test_a_later_batch_of_zero_weights_adds_nothing():
    X, y = pd.DataFrame({"x": ["a", "b"]}), pd.Series(["u", "v"])
    model = NaiveBayes().partial_fit(X, y)
    before = model.counts_
    model.partial_fit(X, y, sample_weight=[0.0, 0.0])
    assert model.counts_.equals(before)
    with pytest.raises(ValueError, match="sample_weight is zero for every row"):
        NaiveBayes().fit(X, y, sample_weight=[0.0, 0.0])  # a fit of nothing is refused


def test_a_first_batch_of_one_class_says_to_pass_classes():
    with pytest.raises(ValueError, match="y has 1 class \\[0\\].*pass classes= to name every class"):
        NaiveBayes().partial_fit(pd.DataFrame({"x": ["a", "b"]}), [0, 0])
    with pytest.raises(ValueError, match="y has 1 class \\[0\\]: at least two classes are needed$"):
        NaiveBayes().fit(pd.DataFrame({"x": ["a", "b"]}), [0, 0])

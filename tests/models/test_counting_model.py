"""The counting-model template: a model that supplies its summary, its count and its derivation gets ``fit`` and
``partial_fit`` (plan, count, add the fitted counts, derive) from ``CountingClassifier``, written once."""

from collections import Counter

import numpy as np
import pytest

from nbparallel.data.inputs import as_dataset
from nbparallel.engine.execution import run_pass
from nbparallel.models.counting_model import Counted, CountingClassifier
from nbparallel.summaries.protocol import merge_summaries


class LabelCounts:
    """A summary: the weight of each label, merged by +."""

    def __init__(self, counts):
        self.counts = counts

    def __add__(self, other):
        return LabelCounts({k: self.counts.get(k, 0) + other.counts.get(k, 0)
                            for k in sorted(set(self.counts) | set(other.counts))})

    def to_dict(self):
        return dict(self.counts)


def label_counts(X, y, w):
    values, n = np.unique(np.asarray(y), return_counts=True)
    return LabelCounts(dict(zip(values.tolist(), n.tolist())))


def count_labels(dataset, *, split_every=2, verbose=False):
    return run_pass(dataset.partitions, dataset.map(label_counts), merge_summaries, split_every=split_every,
                    token=dataset.token, verbose=verbose)


class PriorOnly(CountingClassifier):
    """The smallest counting model: the class prior of its labels' counts, and nothing else."""

    summary_type = LabelCounts

    def __init__(self, *, n_partitions=None, split_every=2, verbose=0):
        self.n_partitions, self.split_every, self.verbose = n_partitions, split_every, verbose

    def dataset(self, X, y=None, sample_weight=None, *, require_target=True, drop=(), features=None):
        return as_dataset(X, y, sample_weight, n_partitions=self.n_partitions, require_target=require_target)

    def counting_data(self, X, y, sample_weight, *, classes, batch, fitted):
        return self.dataset(X, y, sample_weight)

    def counting_plan(self, data, *, weighted=False, batch=False):
        return count_labels

    def count(self, plan, data, run_pass, *, classes, batch, fitted):
        summary, record = run_pass("count", plan, data)
        return Counted(None, summary, self.counts_ if fitted else None, record)

    def keep_summary(self, layout, summary):
        if sum(summary.counts.values()) > 1000:
            raise ValueError("too many rows")
        self.counts_ = summary

    def keep_input_features(self, X, data, *, fitted):
        self._set_input_features(n_features=len(data.columns))

    def _derive(self):
        self.classes_ = np.array(sorted(self.counts_.counts))
        n = np.array([self.counts_.counts[c] for c in self.classes_], dtype=float)
        self.class_log_prior_ = np.log(n / n.sum())

    def joint_log_likelihood_part(self, X):
        return np.tile(self.class_log_prior_, (len(X), 1))

    def fitted_to_dict(self):
        return self.counts_.to_dict()

    def fitted_from_dict(self, d):
        self.counts_ = LabelCounts(d)
        self._derive()


def test_fit_and_partial_fit_in_pieces_give_the_counts_of_a_plain_counter():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (300, 2))
    y = rng.choice(["a", "b", "c"], 300, p=[0.5, 0.3, 0.2])
    expected = Counter(y.tolist())
    whole = PriorOnly(n_partitions=4).fit(X, y)
    assert whole.counts_.counts == dict(expected) and whole.n_partitions_ == 4
    assert [p["kind"] for p in whole.passes_] == ["count"] and whole.reduction_.n_leaves == 4
    pieces = PriorOnly(n_partitions=2)
    for rows in (slice(0, 70), slice(70, 200), slice(200, 300)):
        pieces.partial_fit(X[rows], y[rows])
    assert pieces.counts_.counts == dict(expected)
    assert len(pieces.passes_) == 1  # the passes of the last call only
    np.testing.assert_array_equal(pieces.class_log_prior_, whole.class_log_prior_)
    total = sum(expected.values())
    np.testing.assert_allclose(np.exp(whole.class_log_prior_), [expected[c] / total for c in "abc"])
    assert whole.predict(X[:3]).tolist() == ["a", "a", "a"]


def test_a_refused_fit_or_batch_leaves_the_model_as_it_was():
    X, y = np.zeros((600, 1)), np.array(["a", "b"] * 300)
    model = PriorOnly().fit(X, y)
    before = dict(vars(model))
    with pytest.raises(ValueError, match="too many rows"):
        model.partial_fit(X, y)  # 1200 rows once added to the fitted ones
    with pytest.raises(ValueError, match="too many rows"):
        model.fit(np.zeros((1001, 1)), ["a"] * 1001)
    assert vars(model) == before


def test_from_counts_derives_the_model_a_fit_derives_from_the_same_summary():
    X, y = np.zeros((10, 2)), np.array(list("aabbbccccc"))
    fitted = PriorOnly().fit(X, y)
    derived = PriorOnly.from_counts(fitted.counts_, None, n_features_in=2)
    np.testing.assert_array_equal(derived.class_log_prior_, fitted.class_log_prior_)
    assert derived.n_features_in_ == 2 and not hasattr(derived, "passes_")

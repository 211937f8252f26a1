"""Issue 25, item 1: scoring never reads outside a model's table.

A numeric column with no observed training value (all missing, or observed only in rows whose target is
missing) has no bin after empty-bin elimination: its table holds the missing row only. Its values must
score as missing (they carry no evidence), for every partitioning and after save/load, and the kernels
refuse any code outside a table (tested in test_scoring_equivalence.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes, load


def _prior_only(model, n):
    prior = np.exp(model.class_log_prior_ - np.logaddexp.reduce(model.class_log_prior_))
    return np.tile(prior, (n, 1))


CASES = {
    "all missing": (pd.DataFrame({"a": [1.0, 2.0, 1.0, 2.0], "b": [np.nan] * 4}), np.array([0, 1, 0, 1])),
    "seen only where the target is missing": (
        pd.DataFrame({"a": [1.0, 2.0, 1.0, 2.0, 1.0], "b": [np.nan, np.nan, np.nan, np.nan, 3.0]}),
        np.array([0, 1, 0, 1, np.nan])),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("n_partitions", [1, 2, 3])
def test_a_numeric_column_without_bins_scores_as_missing(case, n_partitions, tmp_path):
    X, y = CASES[case]
    model = NaiveBayes(n_partitions=n_partitions).fit(X, y)
    assert model.feature_log_prob_[1].shape == (0, 2)
    test = pd.DataFrame({"a": [np.nan, np.nan, 1.0], "b": [5.0, -1e300, 7.0]})
    without_b = model.predict_proba(test.assign(b=np.nan))
    for m in (model, _reloaded(model, tmp_path)):
        for _ in range(3):  # deterministic: nothing past the table is read
            proba = m.predict_proba(test)
            np.testing.assert_array_equal(proba, without_b)
        np.testing.assert_allclose(proba[:2], _prior_only(m, 2), rtol=0, atol=1e-15)
        np.testing.assert_array_equal(m.predict(test), model.predict(test.assign(b=np.nan)))
        report = m.evaluate(test.iloc[2:], np.array([0]))
        assert report["n_rows"] == 1 and np.isfinite(report["average_log_likelihood"])


def _reloaded(model, tmp_path):
    path = tmp_path / "model.json"
    model.save(path)
    return load(path)


def test_codes_of_a_binless_column_are_zero():
    X, y = CASES["all missing"]
    model = NaiveBayes().fit(X, y)
    inputs = model.scoring_inputs(pd.DataFrame({"a": [1.0], "b": [5.0]}))
    assert inputs.second.tolist() == [[1, 0]]
    assert inputs.joined_codes().tolist() == [[1, 0]]

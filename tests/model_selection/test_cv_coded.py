"""Cross-validation of a counting model of a summary type it does not know: counted from codes by the summary
type's own ``of_codes`` after a schema pass, each fold's model ``from_counts(total - fold)``, scored by the model.

The model here is NaiveBayes with a count table that counts itself from codes: its folds must be NaiveBayes's."""

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes, cross_validate
from nbparallel.kernels.counting import count_partition
from nbparallel.models.registry import MODEL_KINDS, ModelKind
from nbparallel.summaries.counts import CountTable


class CodedTable(CountTable):
    """A count table counted from codes by its own constructor, as a new summary type is."""

    @classmethod
    def of_codes(cls, codes, classes, weights, offsets, n_classes):
        table, totals, all_missing, n_missing = count_partition(codes, np.empty((len(codes), 0)), classes, weights,
                                                                offsets, np.empty((0, 0)), n_classes)
        return cls(table, offsets, totals, all_missing, int(n_missing))


class CodedNaiveBayes(NaiveBayes):
    summary_type = CodedTable


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(MODEL_KINDS, "CodedNaiveBayes", ModelKind("CodedNaiveBayes", __name__, cross_validated=True))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("folds", [{}, {"shuffle": True, "stratify": True, "random_state": 3, "n_repeats": 2}])
def test_a_new_summary_type_is_cross_validated_as_fitting_each_fold(registered, weighted, folds):
    rng = np.random.default_rng(11)
    n = 600
    frame = pd.DataFrame({"c": rng.choice(["a", "b", "c", None], n), "i": rng.integers(0, 5, n),
                          "x": rng.normal(size=n)})
    y = np.where(rng.random(n) < 0.3, "p", np.where(frame["i"] > 2, "q", "r"))
    w = rng.random(n) if weighted else None
    params = {"categorical_features": ["c", "i"], "n_partitions": 3}
    scoring = ("accuracy", "log_loss")
    coded = cross_validate(CodedNaiveBayes(**params), frame, y, cv=4, scoring=scoring, sample_weight=w, **folds)
    plain = cross_validate(NaiveBayes(**params), frame, y, cv=4, scoring=scoring, sample_weight=w, **folds)
    assert [p["kind"] for p in coded["passes"]] == ["schema", "count", "score"]
    np.testing.assert_array_equal(coded["confusion_matrices"], plain["confusion_matrices"])
    np.testing.assert_allclose(coded["test_log_loss"], plain["test_log_loss"], rtol=1e-12)

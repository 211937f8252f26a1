"""The counting plan runs the counting: one pass by value, or a schema pass then a counting pass."""

import numpy as np
import pandas as pd
import pytest

from nbparallel.models.naive_bayes import NaiveBayes
from nbparallel.models.plan import CountingPlan
from nbparallel.summaries.counts import CountTable
from nbparallel.summaries.dictionary_counts import DictionaryCounts


def _recording():
    """A ``run_pass`` for :meth:`CountingPlan.run` that records the kind of each pass it completes."""
    kinds = []

    def run_pass(kind, fn, *args, **kwargs):
        out = fn(*args, split_every=2, verbose=False, **kwargs)
        kinds.append(kind)
        return out

    return run_pass, kinds


def _run(plan, dataset):
    run_pass, kinds = _recording()
    return plan.run(dataset, run_pass), kinds


def test_integers_too_wide_to_count_by_value_fall_back_to_the_schema_pass_and_count_the_same():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.integers(0, 4, 500), rng.integers(0, 10**6, 500)])
    y = rng.integers(0, 3, 500)
    model = NaiveBayes(categorical_features=[0], n_partitions=3)
    dataset = model.dataset(X, y)
    plan = CountingPlan.for_table(model.get_params(), dataset)
    assert plan.summary is DictionaryCounts
    counted, kinds = _run(plan, dataset)
    assert kinds == ["schema", "count"]  # the pass by value gave up; the schema pass and counting pass ran
    two_passes, _ = _run(plan.in_two_passes(), model.dataset(X, y))
    assert counted.schema.to_dict() == two_passes.schema.to_dict()
    assert counted.summary.equals(two_passes.summary)
    assert counted.n_rows == 500
    np.testing.assert_array_equal(counted.summary.attribute(0), pd.crosstab(X[:, 0], y).to_numpy())


def test_counting_by_value_gives_the_schema_and_counts_of_two_passes():
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, 5, 300), rng.integers(-3, 40, 300)])
    y = rng.choice(["a", "b", "c"], 300)
    model = NaiveBayes(categorical_features=[0], n_partitions=4)
    plan = CountingPlan.for_table(model.get_params(), model.dataset(X, y))
    assert plan.summary is DictionaryCounts and plan.in_two_passes().summary is CountTable
    by_value, kinds = _run(plan, model.dataset(X, y))
    assert kinds == ["count"]
    two_passes, kinds = _run(plan.in_two_passes(), model.dataset(X, y))
    assert kinds == ["schema", "count"]
    assert by_value.schema.to_dict() == two_passes.schema.to_dict()
    assert by_value.summary.equals(two_passes.summary)
    np.testing.assert_array_equal(by_value.summary.attribute(0), pd.crosstab(X[:, 0], y).to_numpy())
    fitted = NaiveBayes(categorical_features=[0], n_partitions=4).fit(X, y)
    assert fitted.counts_.equals(by_value.summary)


def test_one_class_is_refused_by_either_route():
    X = np.array([[0, 1], [1, 2], [2, 3]] * 4)
    y = np.zeros(len(X), dtype=int)
    model = NaiveBayes(categorical_features="all")
    plan = CountingPlan.for_table(model.get_params(), model.dataset(X, y))
    for route in (plan, plan.in_two_passes()):
        with pytest.raises(ValueError, match="at least two classes"):
            _run(route, model.dataset(X, y))


def test_the_rows_counted_are_the_summarys_own_and_include_those_of_a_missing_target():
    X = np.array([[0, 1.5], [1, 2.5], [1, 0.5], [2, 4.0]] * 5)
    y = np.array(["a", None, "b", "a"] * 5, dtype=object)
    model = NaiveBayes(categorical_features=[0], numeric={1: "gaussian"})
    counted, kinds = _run(CountingPlan.for_table(model.get_params(), model.dataset(X, y)), model.dataset(X, y))
    assert kinds == ["schema", "count"] and counted.n_rows == 20
    assert counted.summary.n_rows == 20 and counted.summary.counts.n_missing_target == 5
    by_value = NaiveBayes(categorical_features="all")
    plan = CountingPlan.for_table(by_value.get_params(), by_value.dataset(X[:, :1], y))
    assert plan.summary is DictionaryCounts
    counted, kinds = _run(plan, by_value.dataset(X[:, :1], y))
    assert kinds == ["count"] and counted.n_rows == counted.summary.n_rows == 20


def test_the_memory_check_before_the_counting_pass_reads_the_summary_types_table_size(monkeypatch):
    from dataclasses import replace

    class WideTable(CountTable):
        """A count table whose per-task table is the cube of its values (as a pair table grows as their square)."""

        @staticmethod
        def table_size(schema):
            n_values = int(schema.counted().offsets[-1])
            return n_values ** 3, len(schema.classes), f"the wide tables of {n_values ** 3} cells", "use fewer"

    monkeypatch.setattr("nbparallel.engine.memory.available_memory", lambda partitions=None: 10**7)
    X = np.arange(1000)[:, None] % 300
    y = np.arange(1000) % 3
    model = NaiveBayes(categorical_features="all")
    plan = CountingPlan.for_table(model.get_params(), model.dataset(X, y), by_value=False)
    counted, _ = _run(plan, model.dataset(X, y))  # 301 values x 3 classes: far below the memory
    assert counted.summary.class_totals.sum() == 1000
    with pytest.raises(ValueError, match="the wide tables of 27270901 cells .* use fewer"):
        _run(replace(plan, summary=WideTable), model.dataset(X, y))

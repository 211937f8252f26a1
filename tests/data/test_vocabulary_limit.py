"""A categorical column beyond the schema's 65534 categories is refused by the schema pass's own tasks.

A partition's task refuses it when the partition alone holds too many values, a merge's task when the
partitions together do: the sets of values never grow past the limit (see tests/cluster/test_memory_limits.py
for workers with a memory limit).
"""

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes
from nbparallel.data.encoding import MAX_CATEGORIES
from nbparallel.data.schema_pass import TooManyCategories, merge_scans, scan_partition


def frame(ids):
    return pd.DataFrame({"x": np.linspace(0, 1, len(ids)), "id": ids, "label": np.arange(len(ids)) % 2})


@pytest.mark.parametrize("n_partitions, at_least", [(1, MAX_CATEGORIES + 10), (2, MAX_CATEGORIES + 10)])
def test_fit_refuses_too_many_categories_naming_the_column(n_partitions, at_least):
    data = frame(np.arange(MAX_CATEGORIES + 10))  # each half is under the limit, the whole is not
    with pytest.raises(ValueError, match=f"^column 'id' has more than {MAX_CATEGORIES} categories "
                                         f"\\(at least {at_least}\\); at most {MAX_CATEGORIES} are supported$"):
        NaiveBayes(categorical_features=["id"], n_partitions=n_partitions).fit(data, "label")


def test_the_limit_itself_is_accepted():
    model = NaiveBayes(categorical_features=["id"], n_partitions=2).fit(frame(np.arange(MAX_CATEGORIES)), "label")
    assert len(model.schema_.attribute("id").categories) == MAX_CATEGORIES


def test_merge_refuses_the_union_and_the_error_pickles():
    import pickle

    def scan(ids):
        data = frame(ids)
        return scan_partition(["x", "id"], ["numeric", "categorical"], set(), data[["x", "id"]], data["label"], None)
    halves = scan(np.arange(40_000)), scan(np.arange(40_000, 80_000))
    with pytest.raises(TooManyCategories) as info:
        merge_scans(*halves)
    error = pickle.loads(pickle.dumps(info.value))  # as a worker sends it back
    assert (error.position, error.n_values) == (1, 80_000)
    assert str(error.naming(["x", "id"])).startswith(f"column 'id' has more than {MAX_CATEGORIES} categories")


def test_the_pass_by_value_leaves_a_partition_of_too_many_values_to_the_schema_pass():
    """All-categorical data are counted in one pass by value; a partition's dictionary beyond the limit
    stops that pass at once, and the schema pass names the column (no table of its values is built)."""
    data = frame(np.arange(MAX_CATEGORIES + 10))[["id", "label"]]
    with pytest.raises(ValueError, match=f"^column 'id' has more than {MAX_CATEGORIES} categories"):
        NaiveBayes(categorical_features="all", n_partitions=1).fit(data, "label")

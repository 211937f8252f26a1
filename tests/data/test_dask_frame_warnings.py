"""A Dask DataFrame's column of numbers counted as categories warns as pandas input does (issue 58 item 2)."""

from __future__ import annotations

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes

Y = np.array([0, 1] * 50)


@pytest.mark.parametrize("values, says", [
    (pd.Series([1.5, 2.5] * 49 + ["n/a", "n/a"], dtype=object), "the token 'n/a', which surely means a missing value"),
    (pd.Series([1.5, 2.5] * 49 + ["twelve", 3.0], dtype=object), "the token 'twelve': it is counted as categorical"),
    (pd.Series(["1", "2.5"] * 50, dtype="str"), "holds only numbers"),
    (pd.Series([1, 2] * 50, dtype=object), "holds only numbers"),
])
@pytest.mark.parametrize("n_partitions", [1, 3])
def test_a_dask_column_of_numbers_counted_as_categories_warns_as_pandas_does(values, says, n_partitions):
    X = pd.DataFrame({"x": values, "word": ["a", "b"] * 50, "t": Y})
    ddf = dd.from_pandas(X, npartitions=n_partitions, sort=False)
    # decided from the first partition (as a CSV file from its first block): the token may lie in a later one
    with pytest.warns(UserWarning, match=says if n_partitions == 1 else "column 'x' .*holds (only )?numbers") as record:
        model = NaiveBayes().fit(ddf, "t")
    assert record[0].filename == __file__
    assert [str(w.message) for w in record if "'word'" in str(w.message)] == []
    with pytest.warns(UserWarning, match=says):
        assert model.feature_kinds_["x"] == NaiveBayes().fit(X, "t").feature_kinds_["x"] == "categorical"


def test_dask_words_and_listed_columns_do_not_warn(recwarn):
    X = pd.DataFrame({"x": ["1", "2"] * 50, "word": ["a", "b", "1", "c"] * 25, "t": Y})
    NaiveBayes(categorical_features=["x", "word"]).fit(dd.from_pandas(X, npartitions=2), "t")
    NaiveBayes().fit(dd.from_pandas(X[["word", "t"]], npartitions=2), "t")
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]

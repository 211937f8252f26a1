"""Local dictionaries onto a model's vocabulary (the scoring route's encoding) against pandas' own lookup."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nbparallel.data.encoding import VocabularyPositions


@pytest.mark.parametrize("vocabulary, local", [
    (["a", "b", "c"], ["c", "x", "a", ""]),
    (["a", "b", "c"], [np.str_("b"), "a", "zz"]),
    ([1, 2, "a", "b"], ["b", "1", "a"]),  # strings against a mixed vocabulary: a string matches strings only
    ([1, 2, 3], [3, 1.0, True, 7, "2"]),  # other values: pandas' own matching
    ([0.5, 1.5], [1.5, 2.5]),
    ([], ["a"]),
    (["a"], []),
])
def test_positions_equal_pandas_get_indexer(vocabulary, local):
    positions = VocabularyPositions(vocabulary)
    want = (pd.Index(vocabulary, dtype=object).get_indexer(np.asarray(local, dtype=object)) if vocabulary
            else np.full(len(local), -1))
    for _ in range(2):  # built on first use, the same after
        np.testing.assert_array_equal(positions(local), want)

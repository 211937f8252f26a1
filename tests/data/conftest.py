"""Fixtures shared by the data tests (``tests/data`` and ``tests/data/files``)."""

import pytest

from nbparallel import NaiveBayes


@pytest.fixture(scope="module")
def reference(frame):
    """The model fitted in one partition on the test module's own ``frame`` (target column ``y``)."""
    return NaiveBayes(n_partitions=1).fit(frame, "y")

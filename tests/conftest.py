"""Fixtures shared by test areas: the wine data set (model files in ``persistence``, parameters in ``models``)."""

import pytest
from sklearn.datasets import load_wine


@pytest.fixture(scope="module")
def wine():
    """Wine's 13 numeric features and 3 classes, as a DataFrame and a Series."""
    return load_wine(return_X_y=True, as_frame=True)

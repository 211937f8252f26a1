"""A fitted categorical model's counts checked against a plain Counter of its rows (pandas, no nbparallel).

For data whose every column is categorical: the classes are the distinct labels of rows of non-zero weight, a
missing target is skipped and counted, and each (value, class) cell holds the weight of its rows.
"""

import math
from collections import Counter

import pandas as pd


def _plain(values):
    return [None if pd.isna(v) else v for v in pd.Series(values, dtype=object)]


def counter_reference(X, y, w=None):
    """``(cells, classes, n_missing_target)``: ``{(column, value, class): weight}``, the sorted classes of
    rows of non-zero weight, and the number of rows whose target is missing."""
    labels = _plain(y)
    weights = [1.0] * len(X) if w is None else [float(v) for v in w]
    cells = Counter()
    for name in X.columns:
        for v, c, wt in zip(_plain(X[name]), labels, weights):
            if v is not None and c is not None and wt > 0:  # a row of weight zero is as if absent
                cells[(name, v, c)] += wt
    classes = sorted({c for c, wt in zip(labels, weights) if c is not None and wt > 0})
    return cells, classes, sum(c is None for c in labels)


def check_counts(model, X, y, w=None, value_type=int):
    """Assert that ``model``'s classes, missing-target count and every table cell equal the Counter's, its
    categories hold every value seen, each of type ``value_type``."""
    cells, classes, n_missing = counter_reference(X, y, w)
    assert model.classes_.tolist() == classes
    assert model.n_missing_target_ == n_missing
    schema = model.schema_
    for a, at in enumerate(schema.attributes):
        table = model.counts_.attribute(a)
        assert all(type(v) is value_type for v in at.categories), at.name
        for i, v in enumerate(at.categories):
            for k, c in enumerate(schema.classes):
                assert math.isclose(table[i, k], cells.get((at.name, v, c), 0.0)), (at.name, v, c)
        assert {v for (name, v, _) in cells if name == at.name} <= set(at.categories), at.name

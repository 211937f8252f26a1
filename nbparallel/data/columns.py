"""Kind names, missing-value tokens and the rules for column names and roles.

The bottom of the data layer: every other module of :mod:`nbparallel.data` and
the layers above name attribute kinds and resolve ``categorical_features`` and
``numeric_features`` here.
"""

from __future__ import annotations

import difflib
import os

import numpy as np
import pandas as pd

CATEGORICAL = "categorical"
NUMERIC = "numeric"  # binned numeric
GAUSSIAN = "gaussian"  # Gaussian numeric: a model's choice for a numeric column, never counted
#: The other choice for a numeric column (``NaiveBayes(numeric=...)``): equal-width bins, counted as ``NUMERIC``.
BINNED = "binned"


#: Where each kind's attributes sit in a schema's table: categorical, then binned, then Gaussian.
#: Only :class:`Schema` reads it; the count table holds the counted kinds (a prefix).
TABLE_ORDER = {CATEGORICAL: 0, NUMERIC: 1, GAUSSIAN: 2}


def check_weights(w, name="sample_weight"):
    """Raise ValueError unless every weight is finite and non-negative."""
    w = np.asarray(w, dtype=np.float64)
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"{name} must hold finite, non-negative numbers; found NaN, infinite or negative values")
    return w


_REFUSED_KINDS = {"M": "dates and times", "m": "time spans", "c": "complex numbers"}


def _refuse_unsupported(names, dtypes):
    """Raise TypeError for a column of dates, time spans or complex numbers: no kind of attribute fits them."""
    for name, dtype in zip(names, dtypes):
        kind = getattr(dtype, "kind", None)
        if kind in _REFUSED_KINDS or isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype)):
            what = _REFUSED_KINDS.get(kind, "periods or intervals")
            advice = ("its real and imaginary parts or its modulus as numeric columns" if kind == "c" else
                      "numbers (for example the day of the year, or .astype('int64')) or strings")
            raise TypeError(f"column {name!r} holds {what} (dtype {dtype}), which naive Bayes cannot count: "
                            f"convert it to {advice} first")


def target_values(column, keep_categorical=False):
    """A target column (a pandas Series) as a numpy array of its labels: a nullable or Arrow integer column as
    integers (Python ints and None where missing), never as floats, which would change large labels; a
    categorical one by :func:`categorical_labels`, and a pandas string column (``str``, ``string``: pandas
    would make a Python object of every row) as a categorical one (NaN where missing). With
    ``keep_categorical``, a categorical column is returned as it is (its categories and codes)."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return column if keep_categorical else categorical_labels(column.array)
    if isinstance(dtype, pd.StringDtype):
        return categorical_labels(pd.Categorical(column))
    if isinstance(dtype, np.dtype) or not pd.api.types.is_integer_dtype(dtype):
        return column.to_numpy()
    if not column.hasnans:
        return column.to_numpy(dtype=np.dtype(getattr(dtype, "numpy_dtype", np.int64)))
    return column.to_numpy(dtype=object, na_value=None)


def categorical_labels(values):
    """A pandas ``Categorical``'s labels as ``np.asarray`` gives them (NaN where missing), each category made
    a Python object once, not once a row (as ``np.asarray`` of Arrow string categories makes them): a row
    then shares its category's object, whose hash Python keeps, and the classes are coded at that speed."""
    labels = np.asarray(values.categories)
    if labels.dtype != object:  # numbers: numpy's own array (integers stay integers)
        return np.asarray(values)
    return np.append(labels, np.nan)[values.codes]  # code -1 (missing) takes the last: NaN


def column_names(columns):
    """The columns' names as strings; raise for MultiIndex, duplicate or colliding names."""
    if isinstance(columns, pd.MultiIndex):
        raise TypeError("X has MultiIndex columns; flatten them to one level of names first, for example "
                        "X.columns = ['_'.join(map(str, c)) for c in X.columns]")
    names = [str(c) for c in columns]
    if len(set(names)) < len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        clashing = [c for c in columns if str(c) in repeated]
        if len(set(map(repr, clashing))) == len(repeated):
            raise ValueError(f"X has duplicate column names {repeated}: give every column its own name")
        raise ValueError(f"X has column names that become the same string: {', '.join(map(repr, clashing))}; "
                         "rename them so that their str() differ")
    return names


def _named_columns(selection, names, parameter):
    """The column names a list of names or indices selects; ValueError for an unknown one."""
    chosen = set()
    for c in selection:
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if not 0 <= c < len(names):
                raise ValueError(f"{parameter} index {c} is out of range for {len(names)} columns")
            chosen.add(names[c])
        elif c in names:
            chosen.add(c)
        else:
            raise ValueError(f"{parameter} names column {c!r}, which is not in the data {list(names)}")
    return chosen


def integer_columns_of(names, dtypes, kinds):
    """The numeric columns whose dtype is a numpy integer of at most 63 bits."""
    return frozenset(n for n, d, kind in zip(names, dtypes, kinds)
                     if kind == NUMERIC and isinstance(d, np.dtype) and d.kind in "iu" and d != np.uint64)


def kinds_for(names, dtypes, categorical_features, numeric_features=None):
    """Resolve ``categorical_features`` and ``numeric_features`` to kinds.

    "auto" takes the non-numeric columns, "all" every column, and a list of
    names or indices adds those numeric columns to the non-numeric ones.
    Integer columns are numeric under "auto" (binned into ``n_bins`` equal
    widths; one value per bin when their range is at most ``n_bins``); list
    them, or pass "all", to count them per value. ``numeric_features`` (names
    or indices) are numeric whatever their dtype and ``categorical_features``
    ("all" included); naming a column in both lists is an error. Dates, time
    spans and complex numbers are refused, listed in ``numeric_features`` or not.
    """
    distinct = list(dict.fromkeys(dtypes))  # an array's columns share one dtype: each looked at once
    _refuse_unsupported([names[list(dtypes).index(d)] for d in distinct], distinct)
    if numeric_features is None:
        numeric_features = ()
    if isinstance(numeric_features, str) or not hasattr(numeric_features, "__iter__"):
        raise TypeError(f"numeric_features must be None or a list of column names or indices, "
                        f"got {numeric_features!r}")
    forced = _named_columns(numeric_features, names, "numeric_features")
    is_number = {d: pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d) for d in distinct}
    numeric = [is_number[d] for d in dtypes]
    if isinstance(categorical_features, str) and categorical_features in ("auto", "all"):
        chosen = set(names) - forced if categorical_features == "all" else set()
    elif isinstance(categorical_features, str) or not hasattr(categorical_features, "__iter__"):
        raise TypeError(
            "categorical_features must be 'auto', 'all' or a list of column names or "
            f"indices, got {categorical_features!r}"
        )
    else:
        chosen = _named_columns(categorical_features, names, "categorical_features")
        both = [n for n in names if n in chosen & forced]
        if both:
            raise ValueError(f"column {both[0]!r} is named in both categorical_features and numeric_features: "
                             "say once whether it is categorical or numeric")
    return [NUMERIC if n in forced or (is_number and n not in chosen) else CATEGORICAL
            for n, is_number in zip(names, numeric)]


def is_path(X):
    return isinstance(X, (str, os.PathLike))


Y_REQUIRED = (
    "this estimator requires y to be passed, but the target y is None: "
    "pass target values or the name of the target column"
)


def column_roles(frame_columns, y, sample_weight, require_target, drop=(), features=None):
    """``(attributes, target, weight)``: the names of a frame's attribute columns, and of its target and
    weight columns where ``y`` and ``sample_weight`` name them; columns in ``drop`` are no attributes
    (a model's target column, in data given to predict).

    ``features`` (a fitted model's column names, for data to score) are the attributes, taken by name in
    their order whatever the frame's order; its other columns are left out. ValueError names the
    features it lacks (and the columns it has instead).
    """
    names = [str(c) for c in frame_columns]
    target = weight = None
    if isinstance(y, str):
        if y not in names:
            raise ValueError(missing_column("target", y, names))
        target = y
    elif y is None and require_target:
        raise ValueError(Y_REQUIRED)
    if isinstance(sample_weight, str):
        if sample_weight not in names:
            raise ValueError(missing_column("sample_weight", sample_weight, names))
        weight = sample_weight
    if features is not None:
        return matched_features(features, [n for n in names if n not in (target, weight) and n not in drop]), \
            target, weight
    attributes = [n for n in names if n not in (target, weight) and n not in drop]
    return attributes, target, weight


def missing_column(role, name, names):
    """The message for a ``role`` column ``name`` that is none of ``names``, with the likeliest one meant.

    >>> missing_column("target", "lable", ["x", "label"])
    "target column 'lable' does not exist (did you mean 'label'?); columns are ['x', 'label']"
    """
    by_case = [n for n in names if n.casefold() == name.casefold()]
    close = by_case or difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{role} column {name!r} does not exist{hint}; columns are {names}"


def matched_features(features, names):
    """The fitted ``features`` (a list of names), all of them among ``names`` (the data's columns), else
    ValueError naming those missing and the data's columns that are no feature (scikit-learn's rule,
    which names what differs)."""
    features = [str(f) for f in features]
    present = set(names)
    if any(f not in present for f in features):
        raise ValueError(feature_names_differ(names, features))
    return features


def feature_names_differ(names, features):
    """The error message of data whose column ``names`` are not the fitted ``features``: the features it
    lacks, the columns it has that are none, or else that their order differs."""
    known, present = set(features), set(names)
    missing = [f for f in features if f not in present]
    unseen = [n for n in names if n not in known]
    lines = ["The feature names should match those that were passed during fit."]
    if missing:
        lines.append(f"Feature names seen at fit time, yet now missing: {missing}")
    if unseen:
        lines.append(f"Feature names unseen at fit time: {unseen}")
    if not missing and not unseen:
        lines.append(f"Feature names must be in the same order as they were in fit: {list(features)}, "
                     f"got {list(names)}")
    return "\n".join(lines)


#: The names under which a Dask Series given as the target or the weights joins its DataFrame.
JOINED_TARGET, JOINED_WEIGHT = "__nbparallel_target__", "__nbparallel_weight__"

#: pandas' default missing-value strings (pyarrow's list plus ``<NA>`` and ``None``).
NA_VALUES = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
             "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")

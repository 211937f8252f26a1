"""Values at the edges of their types, and models that save and load (issue 25, items 2-7; issue 23 item 4).

Every case is checked against a plain reference (the labels as given, a Counter of rows) for partitionings
1-7, a reversed row order and ``load(save(m))``.
"""

import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes, load

PARTITIONS = range(1, 8)


def _fits(X, y, w=None, **params):
    """The model of every partitioning 1-7 and of the rows reversed."""
    models = [NaiveBayes(n_partitions=p, **params).fit(X, y, sample_weight=w) for p in PARTITIONS]
    order = np.arange(len(X))[::-1]
    Xr = X.iloc[order].reset_index(drop=True) if isinstance(X, pd.DataFrame) else X[order]
    yr = y.iloc[order].reset_index(drop=True) if isinstance(y, pd.Series) else np.asarray(y, dtype=object)[order] \
        if isinstance(y, list) else y[order]
    models.append(NaiveBayes(n_partitions=3, **params).fit(Xr, yr, sample_weight=None if w is None else w[order]))
    return models


def _same_models(models, X):
    first = models[0]
    for m in models[1:]:
        assert m.schema_.to_dict() == first.schema_.to_dict()
        assert m.counts_.equals(first.counts_)
        assert np.array_equal(m.predict_proba(X), first.predict_proba(X))


def _round_trip(model, tmp_path):
    path = tmp_path / "model.json"
    model.save(path)
    return load(path)


def _plain_counts(values, labels):
    """Counter of (value, label) over rows with a known label and value: the reference."""
    return Counter((v, c) for v, c in zip(values, labels) if not pd.isna(v) and not pd.isna(c))


def _model_counts(model, name):
    at = model.schema_.index_of(name)
    table = model.counts_.attribute(at)
    return Counter({(v, c): table[i, k] for i, v in enumerate(model.schema_.attributes[at].categories)
                    for k, c in enumerate(model.schema_.classes) if table[i, k]})


# item 2: uint64 labels of 2**63 and more stay integers


@pytest.mark.parametrize("weighted", [False, True])
def test_uint64_labels_from_two_to_the_63_are_kept_as_given(weighted, tmp_path):
    X = pd.DataFrame({"a": ["x", "y", "x", "y", "x", "y"]})
    y = np.array([2**63, 2**63 + 1, 2**63, 2**63 + 1, 0, 2**63], dtype=np.uint64)
    w = np.arange(1.0, 7.0) if weighted else None
    models = _fits(X, y, w)
    _same_models(models, X)
    m = models[0]
    assert m.classes_.dtype == np.uint64 and m.classes_.tolist() == [0, 2**63, 2**63 + 1]
    assert set(m.predict(X).tolist()) <= {0, 2**63, 2**63 + 1}
    loaded = _round_trip(m, tmp_path)
    assert loaded.classes_.tolist() == m.classes_.tolist()
    assert np.array_equal(loaded.predict(X), m.predict(X))


# item 3: nullable integer columns are integers


@pytest.mark.parametrize("dtype", ["Int64", "int64[pyarrow]"])
def test_nullable_integer_columns_are_counted_by_their_integer_values(dtype, tmp_path):
    values = [2**60 + 1, 2**60, 2**60 + 1, 2**60, None, 5]
    X = pd.DataFrame({"b": pd.Series(values, dtype=dtype)})
    y = [0, 1, 0, 1, 0, 1]
    models = _fits(X, y, categorical_features="all")
    _same_models(models, X)
    m = models[0]
    assert m.schema_.attributes[0].categories == [5, 2**60, 2**60 + 1]
    assert all(type(v) is int for v in m.schema_.attributes[0].categories)
    assert _model_counts(m, "b") == _plain_counts(values, y)
    assert m.predict(X).tolist() == [0, 1, 0, 1, 1, 1]
    assert np.array_equal(_round_trip(m, tmp_path).predict_proba(X), m.predict_proba(X))


def test_a_uint64_test_column_with_a_missing_value_finds_the_largest_value():
    X = pd.DataFrame({"u": pd.Series([2**64 - 1, 3, 2**64 - 1, 3], dtype="UInt64")})
    m = NaiveBayes(categorical_features="all").fit(X, [0, 1, 0, 1])
    test = pd.DataFrame({"u": pd.Series([2**64 - 1, None, 3], dtype="UInt64")})
    proba = m.predict_proba(test)
    assert proba[0, 0] > 0.5 and proba[1].tolist() == [0.5, 0.5] and proba[2, 1] > 0.5


def test_a_nullable_integer_target_keeps_integer_classes(tmp_path):
    X = pd.DataFrame({"a": list("xyxyxy"), "t": pd.Series([2**60 + 1, 2**60, None, 2**60 + 1, 2**60, 1],
                                                          dtype="Int64")})
    for m in _fits(X[["a"]], X["t"]):
        assert m.classes_.dtype == np.int64 and m.classes_.tolist() == [1, 2**60, 2**60 + 1]
    m = NaiveBayes(n_partitions=2).fit(X, "t")
    assert m.classes_.tolist() == [1, 2**60, 2**60 + 1]
    assert _round_trip(m, tmp_path).classes_.tolist() == m.classes_.tolist()


@pytest.mark.parametrize("form", ["parquet", "csv"])
def test_integer_files_with_nulls_are_read_as_integers(form, tmp_path):
    frame = pd.DataFrame({"b": pd.Series([2**60 + 1, 2**60, None, 5], dtype="Int64"), "y": [0, 1, 0, 1]})
    path = tmp_path / "data"
    path.mkdir()
    if form == "parquet":
        frame.to_parquet(path / "a.parquet")
    else:
        frame.to_csv(path / "a.csv", index=False)
    m = NaiveBayes(categorical_features="all").fit(str(path), "y")
    assert m.schema_.attributes[0].categories == [5, 2**60, 2**60 + 1]
    assert m.predict(str(path)).tolist() == [0, 1, 1, 1]


# item 4: mixed label types


def test_a_target_of_numbers_and_strings_is_refused_as_scikit_learn_does():
    X = pd.DataFrame({"a": list("xyxyxy")})
    for y in ([0, "k1", 0, "k1", 2, 2], np.array([0, "k1", 0, "k1", 2, 2], dtype=object)):
        for p in (1, 3, 6):
            with pytest.raises(ValueError, match="Mix of label input types"):
                NaiveBayes(n_partitions=p).fit(X, y)


def test_a_target_of_strings_as_a_list_keeps_its_labels():
    X = pd.DataFrame({"a": list("xyxyxy")})
    m = NaiveBayes().fit(X, ["0", "k1", "0", "k1", "2", "2"])
    assert m.classes_.tolist() == ["0", "2", "k1"]


# item 5: integers coded by their distinct values


@pytest.mark.parametrize("weighted", [False, True])
def test_int64_extremes_are_counted_by_value(weighted, tmp_path):
    values = [-2**63, 2**63 - 1, 0, 1, 5, -2**63]
    X = pd.DataFrame({"a": np.array(values, dtype=np.int64)})
    y = [0, 1, 0, 1, 1, 0]
    w = np.ones(6) if weighted else None
    models = _fits(X, y, w, categorical_features="all")
    _same_models(models, X)
    assert models[0].schema_.attributes[0].categories == [-2**63, 0, 1, 5, 2**63 - 1]
    assert _model_counts(models[0], "a") == _plain_counts(values, y)
    binned = _fits(X, y, w)  # numeric, binned: no wrap-around in the range either
    _same_models(binned, X)
    assert np.array_equal(_round_trip(binned[0], tmp_path).predict_proba(X), binned[0].predict_proba(X))


@pytest.mark.parametrize("weighted", [False, True])
def test_a_wide_int16_column_has_the_same_categories_for_every_partitioning(weighted):
    X = pd.DataFrame({"a": np.array([-32767, 32766, 32767, 0], dtype=np.int16)})
    y = [0, 1, 0, 1]
    models = _fits(X, y, np.ones(4) if weighted else None, categorical_features="all")
    _same_models(models, X)
    assert models[0].schema_.attributes[0].categories == [-32767, 0, 32766, 32767]


def test_integer_labels_far_apart_make_two_classes_only():
    X = pd.DataFrame({"a": list("xyxyxy")})
    m = NaiveBayes(n_partitions=2).fit(X, [0, 60000, 0, 60000, 0, 0])
    assert m.classes_.tolist() == [0, 60000] and m.counts_.class_counts.shape == (2,)


def test_a_dense_integer_column_keeps_its_whole_range():
    """Small spans are coded by their range, as before (and as scikit-learn's CategoricalNB takes 0..max)."""
    X = np.array([[0], [3], [7], [9]], dtype=np.int64)
    for p in (1, 2, 4):
        m = NaiveBayes(n_partitions=p, categorical_features="all").fit(X, [0, 1, 0, 1])
        assert m.schema_.attributes[0].categories == list(range(10))


# item 6: models that save and load the same


@pytest.mark.parametrize("features", ["auto", "all"])
def test_extreme_floats_save_and_load_to_the_same_predictions(features, tmp_path):
    X = pd.DataFrame({"a": [1e308, -1e308, 0.0, 1.0, 5e307, -3e307]})
    y = [0, 1, 0, 1, 0, 1]
    models = _fits(X, y, categorical_features=features)
    _same_models(models, X)
    loaded = _round_trip(models[0], tmp_path)
    assert np.array_equal(loaded.predict_proba(X), models[0].predict_proba(X))


def test_a_gaussian_column_too_wide_for_its_variance_is_refused_and_a_wide_one_round_trips(tmp_path):
    X = pd.DataFrame({"a": [1e308, -1e308, 0.0, 1.0, 5e307, -3e307]})
    y = [0, 1, 0, 1, 0, 1]
    for p in (1, 3):
        with pytest.raises(ValueError, match="column 'a' holds values from .* too far apart for a Gaussian"):
            NaiveBayes(n_partitions=p, numeric="gaussian").fit(X, y)
    wide = X / 1e208  # spread 2e100: its squares are finite
    models = _fits(wide, y, numeric="gaussian")
    for m in models[1:]:
        assert np.allclose(m.predict_proba(wide), models[0].predict_proba(wide), rtol=1e-12)
    loaded = _round_trip(models[0], tmp_path)
    assert np.array_equal(loaded.predict_proba(wide), models[0].predict_proba(wide))


def test_infinite_categories_save_as_floats_not_strings(tmp_path):
    X = pd.DataFrame({"a": [np.inf, -np.inf, 0.0, 1.0, np.inf, -np.inf]})
    y = [0, 1, 0, 1, 0, 1]
    models = _fits(X, y, categorical_features="all")
    _same_models(models, X)
    m = models[0]
    assert m.schema_.attributes[0].categories == [-np.inf, 0.0, 1.0, np.inf]
    loaded = _round_trip(m, tmp_path)
    assert loaded.schema_.attributes[0].categories == m.schema_.attributes[0].categories
    assert np.array_equal(loaded.predict_proba(X), m.predict_proba(X))
    assert not np.allclose(m.predict_proba(X)[:1], [[0.5, 0.5]])  # the value is used, not the prior only


def test_inf_next_to_the_string_inf_is_refused_at_fit():
    X = pd.DataFrame({"a": np.array([np.inf, "inf", 0.0, "x"], dtype=object)})
    for p in (1, 2, 4):
        with pytest.raises(ValueError, match="column 'a'.*print the same"):
            NaiveBayes(n_partitions=p).fit(X, [0, 1, 0, 1])


# item 7: the minor cases


def test_alpha_as_a_numpy_string_is_accepted(tmp_path):
    X = pd.DataFrame({"a": list("xyxyxy")})
    m = NaiveBayes(alpha=np.str_("1/N"), class_alpha=np.str_("1/N")).fit(X, [0, 1, 0, 1, 0, 1])
    reference = NaiveBayes().fit(X, [0, 1, 0, 1, 0, 1])
    assert np.array_equal(m.predict_proba(X), reference.predict_proba(X))
    assert np.array_equal(_round_trip(m, tmp_path).predict_proba(X), m.predict_proba(X))


@pytest.mark.parametrize("values", [[7, 7.0, 1, 1], [7.0, 7, 1, 1], [1, True, 2, 2], [0, -0.0, 2, 2]])
def test_equal_values_of_different_types_are_refused_for_every_row_order(values):
    for order in (values, values[::-1]):
        X = pd.DataFrame({"a": np.array(order, dtype=object)})
        for p in (1, 2, 4):
            with pytest.raises(ValueError, match="column 'a' holds equal values of different types"):
                NaiveBayes(n_partitions=p).fit(X, [0, 1, 0, 1])


def test_values_that_print_the_same_are_refused():
    X = pd.DataFrame({"a": np.array(["1", 1, 2, 2], dtype=object)})
    for p in (1, 2, 4):
        with pytest.raises(ValueError, match="column 'a' holds values that print the same"):
            NaiveBayes(n_partitions=p).fit(X, [0, 1, 0, 1])


def test_a_csv_file_with_a_fraction_in_an_integer_column_advises_numeric_features(tmp_path):
    (tmp_path / "1.csv").write_text("a,y\n1,0\n2,1\n")
    (tmp_path / "2.csv").write_text("a,y\n1.5,0\n2,1\n")
    with pytest.raises(ValueError, match=r"column 'a'.*numeric_features=\['a'\]"):
        NaiveBayes().fit(str(tmp_path), "y")
    m = NaiveBayes(numeric_features=["a"]).fit(str(tmp_path), "y")
    assert m.feature_kinds_ == {"a": "numeric"}


def test_float16_arrays_and_columns_are_read_as_floats():
    X = np.array([[1.0], [2.0], [3.0], [4.0]], dtype=np.float16)
    y = [0, 1, 0, 1]
    reference = NaiveBayes().fit(X.astype(np.float32), y)
    assert np.array_equal(NaiveBayes().fit(X, y).predict_proba(X), reference.predict_proba(X))
    frame = pd.DataFrame({"a": X[:, 0]})
    assert np.array_equal(NaiveBayes().fit(frame, y).predict_proba(frame), reference.predict_proba(X))


# issue 23 item 4: the target


@pytest.mark.parametrize("y", [np.array([None] * 6, dtype=object), np.full(6, np.nan),
                               pd.Series([None] * 6, dtype="Int64")])
def test_an_all_missing_target_is_a_clear_error(y):
    X = pd.DataFrame({"a": list("xyxyxy")})
    for p in (1, 3):
        with pytest.raises(ValueError, match="y holds no class label"):
            NaiveBayes(n_partitions=p).fit(X, y)


def test_an_integer_target_with_many_values_warns():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(list("xyz"), 300)})
    with pytest.warns(UserWarning, match="integer target with 60 distinct values"):
        NaiveBayes().fit(X, np.arange(300) % 60)
    with pytest.warns(UserWarning, match="integer target with 20 distinct values in 100 rows"):
        NaiveBayes().fit(X[:100], np.arange(100) % 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NaiveBayes().fit(X, np.arange(300) % 5)  # a few classes: no warning
        NaiveBayes().fit(X, np.array([f"c{i}" for i in range(300)]))  # strings are labels

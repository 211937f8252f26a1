"""A categorical target column (a Parquet dictionary column, a pandas ``category``) is encoded from its
categories, once per partition, in the passes that only encode the target (evaluate, score, the scoring
pass of cross-validation, boosting rounds, selection steps): these tests hold that route to the labels'
own, row by row, on every outcome (codes, missing targets, categories that are no class, used or not,
weights of zero). A ``Categorical`` given as ``y`` becomes its labels, one object per category
(:func:`~nbparallel.data.columns.categorical_labels`), with the model of its labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nbparallel import BoostedNaiveBayes, NaiveBayes, SelectedNaiveBayes
from nbparallel.data.columns import categorical_labels, target_values
from nbparallel.model_selection.cross_validation import cross_validate

RNG = np.random.default_rng(5)


def frame(n=900, classes=("no", "yes", "maybe")):
    colour = RNG.choice(["red", "green", "blue"], n)
    X = pd.DataFrame({"colour": colour, "shape": RNG.choice(["round", "square"], n), "size": RNG.normal(size=n)})
    y = np.where(colour == "red", classes[0], RNG.choice(list(classes), n)).astype(object)
    y[::37] = None  # missing targets: left out
    return X, y


def write_parts(directory, X, y, n_files=3):
    """Parquet files with the target as a dictionary column, each file its own dictionary order."""
    directory.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(X)), n_files)):
        labels = pd.Series(y[rows]).astype(pd.CategoricalDtype(sorted({v for v in y if v is not None},
                                                                      reverse=bool(i % 2))))
        table = pa.Table.from_pandas(X.iloc[rows].assign(y=labels.array), preserve_index=False)
        assert pa.types.is_dictionary(table.schema.field("y").type)
        pq.write_table(table, directory / f"part-{i}.parquet")


@pytest.mark.parametrize("labels", [["b", "a", "c", None, "a"], [2, 0, 1, None, 1]])
def test_a_categorical_series_encodes_as_its_labels(labels):
    values = [v for v in labels if v is not None]
    X = pd.DataFrame({"x": ["u", "v"] * len(values)}).iloc[:len(values) + 1]
    schema = NaiveBayes().fit(X, np.array(values + values[:1], dtype=object)).schema_
    objects = np.array(labels, dtype=object)
    for categories in (None, sorted(set(values), reverse=True) + (["z"] if isinstance(values[0], str) else [9])):
        series = pd.Series(pd.Categorical(objects, categories=categories))  # an unused category that is no class
        np.testing.assert_array_equal(schema.encode_classes(series), schema.encode_classes(objects))
    empty = pd.Series(pd.Categorical([None, None], categories=[]))
    np.testing.assert_array_equal(schema.encode_classes(empty), [-1, -1])


def test_a_category_that_is_no_class_raises_as_the_labels_do_unless_its_weight_is_zero():
    X = pd.DataFrame({"x": ["u", "v", "u"]})
    schema = NaiveBayes().fit(X, ["a", "b", "a"]).schema_
    series = pd.Series(pd.Categorical(["a", "zz", "b"]))
    with pytest.raises(ValueError, match=r"y holds classes not seen in training: \['zz'\]"):
        schema.encode_classes(series)
    np.testing.assert_array_equal(schema.encode_classes(series, np.array([1.0, 0.0, 1.0])),
                                  schema.encode_classes(np.array(["a", "zz", "b"], dtype=object),
                                                        np.array([1.0, 0.0, 1.0])))


def test_the_passes_over_a_dictionary_target_equal_those_over_its_labels(tmp_path):
    X, y = frame()
    directory = tmp_path / "parts"
    write_parts(directory, X, y)
    model, reference = NaiveBayes().fit(directory, "y"), NaiveBayes().fit(X, y)
    np.testing.assert_array_equal(model.counts_.table, reference.counts_.table)
    got, want = model.evaluate(directory, "y"), reference.evaluate(X, y)
    assert got["n_rows"] == want["n_rows"] == sum(v is not None for v in y)
    np.testing.assert_array_equal(got["confusion_matrix"], want["confusion_matrix"])
    for key in ("log_loss", "average_log_likelihood", "roc_auc"):
        assert got[key] == pytest.approx(want[key], rel=1e-12), key
    assert model.score(directory, "y") == reference.score(X, y)
    folds = cross_validate(NaiveBayes(), directory, "y", cv=4)
    reference_folds = cross_validate(NaiveBayes(), X, y, cv=4)
    np.testing.assert_array_equal(folds["confusion_matrices"], reference_folds["confusion_matrices"])
    np.testing.assert_allclose(folds["test_log_loss"], reference_folds["test_log_loss"], rtol=1e-12)
    boosted, boosted_reference = (BoostedNaiveBayes(n_rounds=3).fit(directory, "y"),
                                  BoostedNaiveBayes(n_rounds=3).fit(X, y))
    np.testing.assert_allclose(boosted.estimator_weights_, boosted_reference.estimator_weights_, rtol=1e-12)
    selected = SelectedNaiveBayes(n_features=2).fit(directory, "y")
    assert selected.selected_features_ == SelectedNaiveBayes(n_features=2).fit(X, y).selected_features_
    tested = SelectedNaiveBayes(n_features=2, criterion="test").fit(directory, "y", X_test=directory, y_test="y")
    reference = SelectedNaiveBayes(n_features=2, criterion="test").fit(X, y, X_test=X, y_test=y)
    np.testing.assert_allclose([step["l_test"] for step in tested.selection_path_],
                               [step["l_test"] for step in reference.selection_path_], rtol=1e-12)


def test_a_pandas_category_target_by_name_scores_as_its_labels():
    X, y = frame()
    data = X.assign(y=pd.Categorical(y))
    model = NaiveBayes().fit(X, y)
    got, want = model.evaluate(data, "y"), model.evaluate(X, y)
    np.testing.assert_array_equal(got["confusion_matrix"], want["confusion_matrix"])
    assert got["log_loss"] == pytest.approx(want["log_loss"], rel=1e-12)
    assert model.score(data, "y") == model.score(X, y)


def test_a_dictionary_target_with_a_class_never_trained_on_is_refused_by_name(tmp_path):
    X, y = frame()
    model = NaiveBayes().fit(X, y)
    y = y.copy()
    y[5] = "never"
    directory = tmp_path / "parts"
    write_parts(directory, X, y)
    for score in (model.evaluate, model.score):
        with pytest.raises(ValueError, match=r"y holds classes not seen in training: \['never'\]"):
            score(directory, "y")


@pytest.mark.parametrize("values", [["label one", None, "label two", "label one"], [1, 2, 1, 1], [1, None, 1, 2],
                                    np.array(["label one", 1, None, "label one"], dtype=object),
                                    [None, None, None, None]])
def test_a_categoricals_labels_are_numpys_with_one_object_per_category(values):
    categorical = pd.Categorical(values)
    for got in (categorical_labels(categorical), target_values(pd.Series(categorical))):
        want = np.asarray(categorical)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(pd.isna(got), pd.isna(want))
        assert got[~pd.isna(got)].tolist() == want[~pd.isna(want)].tolist()
        if got.dtype == object:
            assert len({id(v) for v in got[~pd.isna(got)]}) <= len(categorical.categories)


def test_a_categorical_y_fits_and_scores_as_its_labels():
    X, y = frame()
    labels = pd.Categorical(y, categories=["yes", "maybe", "no", "unused"])
    model, reference = NaiveBayes().fit(X, labels), NaiveBayes().fit(X, y)
    np.testing.assert_array_equal(model.classes_, reference.classes_)
    np.testing.assert_array_equal(model.counts_.table, reference.counts_.table)
    got, want = model.evaluate(X, labels), reference.evaluate(X, y)
    np.testing.assert_array_equal(got["confusion_matrix"], want["confusion_matrix"])
    assert got["log_loss"] == pytest.approx(want["log_loss"], rel=1e-12)
    assert model.score(X, pd.Series(labels)) == reference.score(X, y)


@pytest.mark.parametrize("dtype", ["str", "string"])
def test_a_string_column_targets_labels_are_its_values_with_one_object_per_label(dtype):
    column = pd.Series(np.array(["label one", None, "label two", "label one"] * 50, dtype=object)).astype(dtype)
    got, want = target_values(column), column.to_numpy()
    assert got.dtype == object
    np.testing.assert_array_equal(pd.isna(got), pd.isna(want))
    assert got[~pd.isna(got)].tolist() == want[~pd.isna(want)].tolist()
    assert len({id(v) for v in got[~pd.isna(got)]}) == 2
    X = pd.DataFrame({"x": np.tile(["u", "v"], 100)})
    model = NaiveBayes().fit(X.assign(y=column), "y")
    np.testing.assert_array_equal(model.counts_.table, NaiveBayes().fit(X, want).counts_.table)


def test_csv_files_and_a_dask_dataframe_with_a_categorical_target_evaluate_as_its_labels(tmp_path):
    import dask.dataframe as dd

    X, y = frame()
    reference = NaiveBayes().fit(X, y)
    want = reference.evaluate(X, y)
    csv = tmp_path / "csv"
    csv.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(X)), 3)):
        X.iloc[rows].assign(y=y[rows]).to_csv(csv / f"part-{i}.csv", index=False)
    frames = dd.from_pandas(X.assign(y=pd.Categorical(y)), npartitions=3)
    for data in (csv, frames):
        got = reference.evaluate(data, "y")
        np.testing.assert_array_equal(got["confusion_matrix"], want["confusion_matrix"])
        assert got["log_loss"] == pytest.approx(want["log_loss"], rel=1e-12)
        assert reference.score(data, "y") == reference.score(X, y)

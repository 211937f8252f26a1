"""Small in-memory inputs (1 and 100 rows, numpy arrays and pandas DataFrames) are scored as the same rows given
as Dask collections in several partitions: the same predictions and probabilities bit for bit, the same errors."""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from nbparallel import BernoulliNaiveBayes, ComplementNaiveBayes, MultinomialNaiveBayes, NaiveBayes


def _data(kind, n_rows=300, seed=0):
    """A fitted model of ``kind`` and its training input (an array or a DataFrame)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    codes = (rng.integers(0, 4, (n_rows, 4)) + y[:, None]) % 5
    floats = codes + rng.random(codes.shape)
    if kind == "categorical":
        return NaiveBayes(categorical_features="all").fit(codes, y), codes
    if kind == "binned":
        return NaiveBayes(n_bins=5).fit(floats, y), floats
    if kind == "gaussian":
        return NaiveBayes(numeric="gaussian").fit(floats, y), floats
    if kind == "mixed":
        X = pd.DataFrame({"c": pd.Categorical.from_codes(codes[:, 0], list("abcde")), "s": codes[:, 1].astype(str),
                          "b": floats[:, 2], "g": floats[:, 3]})
        return NaiveBayes(numeric={"g": "gaussian"}).fit(X, y), X
    text_models = {"multinomial": MultinomialNaiveBayes, "bernoulli": BernoulliNaiveBayes,
                   "complement": ComplementNaiveBayes}
    model = text_models[kind]()
    return model.fit(codes.astype(np.float64), y), codes.astype(np.float64)


def _as_dask(X):
    if isinstance(X, pd.DataFrame):
        return dd.from_pandas(X, npartitions=3)
    return da.from_array(X, chunks=(max(1, len(X) // 3), X.shape[1]))


KINDS = ["categorical", "binned", "gaussian", "mixed", "multinomial", "bernoulli", "complement"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n_rows", [1, 100])
def test_small_inputs_score_as_dask_collections_bit_for_bit(kind, n_rows):
    model, X = _data(kind)
    small = X.iloc[:n_rows] if isinstance(X, pd.DataFrame) else X[:n_rows]
    for method in ("predict", "predict_proba"):
        direct = getattr(model, method)(small)
        partitioned = np.asarray(getattr(model, method)(_as_dask(small)))
        assert isinstance(direct, np.ndarray)
        assert direct.dtype == partitioned.dtype and direct.shape == partitioned.shape
        assert np.array_equal(direct, partitioned), (kind, method)
        rows = [getattr(model, method)(small[i:i + 1] if isinstance(small, np.ndarray) else small.iloc[i:i + 1])
                for i in range(n_rows)]
        assert np.array_equal(np.concatenate(rows), direct), (kind, method)  # a row alone scores as in a batch


def _error(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the type and message are what is compared
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("kind", ["categorical", "binned", "gaussian", "mixed"])
def test_small_bad_inputs_raise_as_dask_collections(kind):
    model, X = _data(kind)
    if isinstance(X, pd.DataFrame):
        bad_inputs = [X.iloc[:1, :3], X.iloc[:1].assign(b=["x"])]  # a column short; text where floats were fitted
    else:
        bad_inputs = [X[:1, :3], np.full((1, X.shape[1]), "x", dtype=object)]  # a column short; text for numbers
    for bad in bad_inputs:  # integer categories: "x" is text of no number, refused too (data/value_types)
        direct = _error(lambda: model.predict(bad))
        assert direct is not None and issubclass(direct[0], (TypeError, ValueError)), direct
        assert direct == _error(lambda: np.asarray(model.predict(_as_dask(bad))))

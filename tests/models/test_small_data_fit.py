"""A small in-memory fit (one partition, counted in this process with no task graph) gives the model that the
same rows give through Dask collections and several partitions: the same count tables, the same fitted
attributes bit for bit, the same warnings and the same errors; and its categorical counts are a plain
Counter's."""

import warnings
from collections import Counter

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes

RNG = np.random.default_rng(3)
Y = RNG.integers(0, 3, 100)
CODES = (RNG.integers(0, 4, (100, 4)) + Y[:, None]) % 5
FLOATS = CODES + RNG.random(CODES.shape)
WITH_NAN = np.where(RNG.random(FLOATS.shape) < 0.1, np.nan, FLOATS)
WEIGHTS = RNG.random(100) * 2
FRAME = pd.DataFrame({"c": pd.Categorical.from_codes(CODES[:, 0], list("abcde")),
                      "s": np.where(RNG.random(100) < 0.1, None, np.char.add("v", CODES[:, 1].astype(str))).astype(object),
                      "b": WITH_NAN[:, 2], "g": FLOATS[:, 3]})

#: name -> (model parameters, X, fit keywords)
CASES = {
    "categorical": ({"categorical_features": "all"}, CODES, {}),
    "binned": ({"n_bins": 5}, FLOATS, {}),
    "mdl": ({"n_bins": "mdl"}, FLOATS, {}),
    "gaussian": ({"numeric": "gaussian"}, FLOATS, {}),
    "missing values": ({"n_bins": 4}, WITH_NAN, {}),
    "weighted": ({"categorical_features": "all"}, CODES, {"sample_weight": WEIGHTS}),
    "mixed frame": ({"numeric": {"g": "gaussian"}}, FRAME, {}),
}


def _as_dask(X, n_partitions):
    if isinstance(X, pd.DataFrame):
        return dd.from_pandas(X, npartitions=n_partitions)
    return da.from_array(X, chunks=(-(-len(X) // n_partitions), X.shape[1]))


def _fitted_state(model):
    """Every fitted attribute that says what the model is, as comparable values."""
    state = {"schema": model.schema_.to_dict(), "classes": model.classes_.tolist(),
             "table": model.counts_.table, "totals": model.counts_.class_totals,
             "all missing": model.counts_.all_missing, "n missing target": model.n_missing_target_,
             "prior": model.class_log_prior_, "feature log prob": model.feature_log_prob_,
             "ignored": model.ignored_attributes_, "kinds": model.feature_kinds_, "n features": model.n_features_in_,
             "names": getattr(model, "feature_names_in_", None), "bin edges": model.bin_edges_}
    if model.gaussian_features_:
        state.update(theta=model.theta_, var=model.var_, epsilon=model.epsilon_)
    return state


def _assert_same_state(got, expected, exact=True):
    """Equal fitted states; with ``exact`` False the derived floats only to 1e-9 (sums merged in another order)."""
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        if key == "bin edges":
            assert value.keys() == got[key].keys()
            pairs = [(got[key][name], value[name]) for name in value]
        elif key == "feature log prob":
            assert len(got[key]) == len(value)
            pairs = list(zip(got[key], value))
        elif isinstance(value, (np.ndarray, float)):
            pairs = [(got[key], value)]
        else:
            assert got[key] == value, key
            continue
        for a, b in pairs:
            assert np.shape(a) == np.shape(b), key
            if exact or key not in ("theta", "var", "epsilon", "feature log prob", "prior"):
                np.testing.assert_array_equal(a, b, err_msg=key)
            else:
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=key)


def _fit(params, X, y, keywords, **more):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = NaiveBayes(**params, **more).fit(X, y, **keywords)
    return model, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("case", CASES)
def test_a_small_fit_is_the_partitioned_routes_model(case):
    params, X, keywords = CASES[case]
    small, small_warnings = _fit(params, X, Y, keywords)
    dask_keywords = {k: da.from_array(v, chunks=-1) if not isinstance(X, pd.DataFrame)
                     else dd.from_pandas(pd.Series(v), npartitions=1) for k, v in keywords.items()}
    y_dask = da.from_array(Y, chunks=-1) if not isinstance(X, pd.DataFrame) else dd.from_pandas(
        pd.Series(Y), npartitions=1)
    one, one_warnings = _fit(params, _as_dask(X, 1), y_dask, dask_keywords)
    _assert_same_state(_fitted_state(small), _fitted_state(one))  # one partition through Dask: bit for bit
    assert small_warnings == one_warnings
    three, _ = _fit(params, X, Y, keywords, n_partitions=3)  # three partitions: the same counts, merged
    if case == "weighted":  # float weights summed per partition, then merged: equal to the last bits
        np.testing.assert_allclose(three.counts_.table, small.counts_.table, rtol=1e-14)
        return
    _assert_same_state(_fitted_state(small), _fitted_state(three), exact=False)
    assert small.counts_.equals(three.counts_)
    for rows in (X[:1] if not isinstance(X, pd.DataFrame) else X.iloc[:1], X):
        np.testing.assert_array_equal(small.predict_proba(rows), one.predict_proba(rows))


def test_small_categorical_counts_are_a_counters():
    model = NaiveBayes(categorical_features="all", alpha=1.0).fit(CODES, Y)
    for a in range(CODES.shape[1]):
        counter = Counter(zip(CODES[:, a].tolist(), Y.tolist()))
        categories = model.schema_.counted().attributes[a].categories
        expected = [[counter[(v, c)] for c in range(3)] for v in categories]
        np.testing.assert_array_equal(model.counts_.attribute(a), expected)


def test_small_partial_fit_is_the_whole_fit_and_the_dask_batches():
    whole = NaiveBayes(categorical_features="all").fit(CODES, Y)
    pieces = NaiveBayes(categorical_features="all")
    for start in range(0, 100, 30):
        pieces.partial_fit(CODES[start:start + 30], Y[start:start + 30], classes=[0, 1, 2])
    assert pieces.counts_.equals(whole.counts_)
    np.testing.assert_array_equal(pieces.predict_proba(CODES), whole.predict_proba(CODES))
    dask_pieces = NaiveBayes(categorical_features="all")
    for start in range(0, 100, 30):
        dask_pieces.partial_fit(da.from_array(CODES[start:start + 30], chunks=-1),
                                da.from_array(Y[start:start + 30], chunks=-1), classes=[0, 1, 2])
    _assert_same_state(_fitted_state(pieces), _fitted_state(dask_pieces))


def _error(call):
    try:
        call()
    except (ValueError, TypeError) as error:
        return type(error), str(error)
    return None


def test_small_bad_fits_raise_as_larger_ones():
    """The checks of a small fit are those of any in-memory fit: the same error for the same bad input,
    whether it is small or partitioned."""
    bad = [(CODES, Y[:50], {}), (CODES, np.zeros(100), {}), (CODES.astype(np.complex128), Y, {}),
           (CODES[:, :0], Y, {}), (CODES, Y, {"sample_weight": -WEIGHTS}), (CODES, Y + 0.5, {}),
           (CODES[:0], Y[:0], {}), (np.full((100, 2), np.datetime64("2020-01-01")), Y, {})]
    for X, y, keywords in bad:
        small = _error(lambda: NaiveBayes(categorical_features="all").fit(X, y, **keywords))
        partitioned = _error(lambda: NaiveBayes(categorical_features="all", n_partitions=3).fit(X, y, **keywords))
        assert small is not None and small == partitioned, (small, partitioned)


def test_small_integer_counts_unpaired_equal_paired(monkeypatch):
    """Below ``PAIR_MIN_ROWS`` the integers are counted one attribute at a time: the counts of pairs."""
    from nbparallel.kernels import counting

    small = NaiveBayes(categorical_features="all").fit(CODES, Y)
    calls = []
    paired = counting._count_code_pairs_kernel
    monkeypatch.setattr(counting, "_count_code_pairs_kernel", lambda *a: calls.append(1) or paired(*a))
    monkeypatch.setattr(counting, "PAIR_MIN_ROWS", 1)
    pairs = NaiveBayes(categorical_features="all").fit(CODES, Y)
    assert calls and pairs.counts_.equals(small.counts_)

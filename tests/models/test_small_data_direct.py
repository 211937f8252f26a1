"""Small arrays scored directly (PartitionedClassifier._direct): once an array of a dtype and width has passed
the route of scoring_data, the next small one skips the dataset and the task graph and gives the same answers
bit for bit, and the same errors, as that route."""

import numpy as np
import pytest

from nbparallel import MultinomialNaiveBayes, NaiveBayes
from nbparallel.models import base

RNG = np.random.default_rng(7)
Y = RNG.integers(0, 3, 300)
CODES = (RNG.integers(0, 4, (300, 5)) + Y[:, None]) % 6
FLOATS = CODES + RNG.random(CODES.shape)
MIXED = np.column_stack([CODES[:, :2], FLOATS[:, 2:]]).astype(np.float64)

KINDS = {
    "categorical": (lambda: NaiveBayes(categorical_features="all"), CODES),
    "binned": (lambda: NaiveBayes(n_bins=4), FLOATS),
    "gaussian": (lambda: NaiveBayes(numeric="gaussian"), FLOATS),
    "mixed": (lambda: NaiveBayes(categorical_features=["0", "1"], numeric={"2": "gaussian", "3": "gaussian"}),
              MIXED),
    "text": (lambda: MultinomialNaiveBayes(), CODES),
}
METHODS = ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba")


def fitted(kind):
    make, X = KINDS[kind]
    return make().fit(X, Y), X


def routed_calls(monkeypatch):
    """Count the calls that take the route of scoring_data."""
    calls = []
    original = base.PartitionedModel.scoring_data
    monkeypatch.setattr(base.PartitionedModel, "scoring_data", lambda self, *a, **k: calls.append(1) or
                        original(self, *a, **k))
    return calls


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rows", [1, 100])
def test_direct_answers_equal_the_routes_bit_for_bit(kind, rows, monkeypatch):
    model, X = fitted(kind)
    X = X[:rows] if kind != "categorical" else np.where(X[:rows] == 5, 99, X[:rows])  # 99: unknown category
    routed = {m: getattr(model, m)(X) for m in METHODS}  # the first array of its dtype and width: the route
    calls = routed_calls(monkeypatch)
    for m in METHODS:
        again = getattr(model, m)(X.copy())
        assert again.dtype == routed[m].dtype and np.array_equal(again, routed[m]), m
    if kind != "text":  # the text models keep their route
        assert not calls


def outcome(method, X):
    """The answer, or the type and message of the error."""
    try:
        return method(X)
    except (ValueError, TypeError) as error:
        return type(error), str(error)


@pytest.mark.parametrize("kind", ["categorical", "gaussian", "mixed"])
def test_direct_path_raises_as_the_route_for_bad_arrays(kind):
    model, X = fitted(kind)
    fresh, _ = fitted(kind)
    model.predict(X[:3])
    bad = [X[:2, :-1], X[:2, 0], np.full((2, X.shape[1]), "a", dtype=object), X[:2].astype(np.complex128),
           X[:0], np.c_[X[:2], X[:2, :1]]]
    errors = 0
    for b in bad:
        direct, routed = outcome(model.predict_proba, b), outcome(fresh.predict_proba, b)
        if isinstance(routed, tuple):
            errors += 1
            assert direct == routed
        else:
            assert np.array_equal(direct, routed)
    assert errors >= 4


def test_refit_partial_fit_and_set_params_forget_the_checked_arrays(monkeypatch):
    model, X = fitted("binned")
    model.predict(X[:5])
    calls = routed_calls(monkeypatch)
    model.predict(X[:5])
    assert not calls
    for change in (lambda: model.set_params(n_bins=3), lambda: model.fit(X, Y),
                   lambda: model.partial_fit(X[:50], Y[:50])):
        change()
        model.predict(X[:5])
        assert calls, "the first array after a change takes the route"
        calls.clear()
    assert np.array_equal(model.predict_proba(X[:5]), NaiveBayes(n_bins=3).fit(X, Y).partial_fit(
        X[:50], Y[:50]).predict_proba(X[:5]))


def test_arrays_beyond_the_small_rows_and_other_dtypes_take_the_route(monkeypatch):
    model, X = fitted("gaussian")
    model.predict(X[:5])
    calls = routed_calls(monkeypatch)
    model.predict(np.repeat(X, base.SMALL_ROWS // len(X) + 1, axis=0))
    model.predict(X[:5].astype(np.float32))
    model.predict(X[:5].tolist())
    assert len(calls) == 3


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
def test_small_integer_codes_are_the_schemas_codes(dtype):
    model, X = fitted("categorical")
    info = np.iinfo(dtype)
    odd = np.array([[-5, 0, 5, 99, 127], [info.min, info.max, info.min + 1, info.max - 1, -1]],
                   dtype=dtype)  # below, at and above the runs, unseen, the dtype's extremes
    X = np.vstack([X[:50].astype(dtype), odd])
    codes = model._small_integer_codes(X)
    expected, _ = model.schema_.counted().split(X)
    assert codes is not None and codes.dtype == expected.dtype and np.array_equal(codes, expected)
    assert model._small_integer_codes(X[:, :-1]) is None  # another width: the schema's route
    big = np.tile(X, (base.SMALL_ROWS // len(X) + 1, 1))  # beyond the small rows: the schema's codes
    assert model._small_integer_codes(big) is None
    assert np.array_equal(model.predict_proba(big)[:len(X)], model.predict_proba(X))


def test_integer_codes_need_integer_runs():
    words = NaiveBayes().fit(np.array([["a"], ["b"]], dtype=object), [0, 1])
    gaps = NaiveBayes(categorical_features="all").fit(np.array([[1], [500]]), [0, 1])  # vocabulary [1, 500]
    assert words._small_integer_codes(np.array([[1]])) is None and gaps._small_integer_codes(np.array([[1]])) is None
    assert np.array_equal(gaps.predict_proba(np.array([[500], [3], [1]])),
                          np.vstack([gaps.predict_proba(np.array([[v]])) for v in (500, 3, 1)]))


def test_a_prepared_table_scores_as_the_arrays_and_only_its_own():
    from nbparallel.kernels import scoring

    model, X = fitted("binned")
    inputs = model.scoring_inputs(X[:20])
    assert inputs.prepared is not None
    plain = inputs._replace(prepared=None)
    for mode in (scoring.JOINT, scoring.LOG_POSTERIOR, scoring.POSTERIOR):
        assert np.array_equal(inputs.scores(mode), plain.scores(mode))
    assert np.array_equal(inputs.best(), plain.best())
    other_prior = np.log(np.full(3, 1 / 3))  # not the prepared table's prior: the prepared one is not used
    assert np.array_equal(inputs._replace(log_prior=other_prior).scores(scoring.JOINT),
                          plain._replace(log_prior=other_prior).scores(scoring.JOINT))
    with pytest.raises(ValueError, match="table must have shape"):
        scoring.prepare_table(model._log_table[:-1], model._log_offsets, model.class_log_prior_)


def test_gaussian_constants_are_made_once_from_parameters_that_cannot_change():
    from nbparallel.kernels.scoring import gaussian_constants, gaussian_log_likelihoods

    model, X = fitted("gaussian")
    fit = model._gaussian_fit
    assert fit.scoring_constants is fit.scoring_constants
    for kept, fresh in zip(fit.scoring_constants, gaussian_constants(model.theta_, model.var_)):
        assert np.array_equal(kept, fresh)
    columns = list(range(X.shape[1]))
    assert np.array_equal(gaussian_log_likelihoods(X[:7], columns, model.theta_, model.var_),
                          gaussian_log_likelihoods(X[:7], columns, model.theta_, model.var_,
                                                   constants=fit.scoring_constants))
    with pytest.raises(ValueError, match="read-only"):
        model.theta_[0, 0] = 1.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_small_float_values_are_the_schemas_values(dtype):
    for model in (fitted("binned")[0], NaiveBayes(n_bins=4, numeric={"1": "gaussian"}).fit(FLOATS, Y)):
        X = np.vstack([FLOATS[:20], [[np.nan, -1e9, 1e9, 0.0, 2.5]]]).astype(dtype)
        codes, values = model.schema_.counted().split(X)
        got = model._small_float_values(X)
        assert got.dtype == values.dtype and np.array_equal(got, values, equal_nan=True)
        assert np.array_equal(model.predict_proba(X), model.predict_proba(np.tile(X, (300, 1)))[:len(X)])
    assert fitted("categorical")[0]._small_float_values(FLOATS[:3]) is None
    gaussian = fitted("gaussian")[0]  # no counted attribute: no values
    values = gaussian._small_float_values(FLOATS[:3])
    assert values.dtype == np.float64 and values.shape == (3, 0)
    assert gaussian.schema_.counted().split(FLOATS[:3])[1].shape == (3, 0)


def test_run_codes_are_a_plain_reference_and_refuse_columns_outside():
    from nbparallel.kernels.lookup import run_codes

    info = np.iinfo(np.int64)
    X = np.array([[1, 5, info.min], [3, -2, info.max], [0, 6, 7]], dtype=np.int64)
    columns, lo, hi = np.array([1, 0, 2]), np.array([-2, 1, 5]), np.array([5, 3, 9])
    got = run_codes(X, columns, lo, (hi - lo).astype(np.uint64), np.uint8)
    expected = [[x - low + 1 if low <= x <= high else 0 for x, low, high in zip(row, lo.tolist(), hi.tolist())]
                for row in X[:, columns].tolist()]  # Python integers: no wrap-around
    assert got.dtype == np.uint8 and got.tolist() == expected
    with pytest.raises(ValueError, match=r"columns must lie in \[0, 3\)"):
        run_codes(X, np.array([3]), lo[:1], np.zeros(1, dtype=np.uint64), np.uint8)

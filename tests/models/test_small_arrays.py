"""Small arrays take the one scoring route: a one-partition dataset whose array checks are resolved once per
dtype, width and options (nbparallel.data.inputs), coded by the fitted schema's CountedSplit. Its answers and
errors are those of the same rows scored in many partitions or in a larger array, bit for bit, and scoring
leaves nothing on the model."""

import numpy as np
import pytest

from nbparallel import MultinomialNaiveBayes, NaiveBayes
from nbparallel.data.inputs import as_dataset
from nbparallel.data.schema import SMALL_ROWS, CountedSplit

RNG = np.random.default_rng(7)
Y = RNG.integers(0, 3, 300)
CODES = (RNG.integers(0, 4, (300, 5)) + Y[:, None]) % 6
FLOATS = CODES + RNG.random(CODES.shape)
MIXED = np.column_stack([CODES[:, :2], FLOATS[:, 2:]]).astype(np.float64)

KINDS = {
    "categorical": (lambda **p: NaiveBayes(categorical_features="all", **p), CODES),
    "binned": (lambda **p: NaiveBayes(n_bins=4, **p), FLOATS),
    "gaussian": (lambda **p: NaiveBayes(numeric="gaussian", **p), FLOATS),
    "mixed": (lambda **p: NaiveBayes(categorical_features=["0", "1"], numeric={"2": "gaussian", "3": "gaussian"},
                                     **p), MIXED),
    "text": (lambda **p: MultinomialNaiveBayes(**p), CODES),
}
METHODS = ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba")


def fitted(kind, **params):
    make, X = KINDS[kind]
    return make(**params).fit(X, Y), X


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rows", [1, 100])
def test_small_arrays_score_as_many_partitions_and_larger_arrays_bit_for_bit(kind, rows):
    model, X = fitted(kind)
    split = type(model)(**{**model.get_params(), "n_partitions": 3})  # the same model, scoring in 3 partitions
    split.__dict__.update({k: v for k, v in vars(model).items() if k.endswith("_") or k.startswith("_")})
    X = X[:rows] if kind != "categorical" else np.where(X[:rows] == 5, 99, X[:rows])  # 99: unknown category
    large = np.tile(X, (SMALL_ROWS // rows + 1, 1))  # beyond the small rows: the schema's split
    before = dict(vars(model))
    for m in METHODS:
        once, again = getattr(model, m)(X), getattr(model, m)(X.copy())
        assert once.dtype == again.dtype and np.array_equal(once, again), m
        assert np.array_equal(once, getattr(split, m)(X)), m
        assert np.array_equal(once, getattr(model, m)(large)[:rows]), m
    assert vars(model).keys() == before.keys()  # scoring leaves no state on the model


def outcome(method, X):
    """The answer, or the type and message of the error."""
    try:
        return method(X)
    except (ValueError, TypeError) as error:
        return type(error), str(error)


@pytest.mark.parametrize("kind", ["categorical", "gaussian", "mixed"])
def test_bad_small_arrays_raise_the_same_after_good_ones(kind):
    model, X = fitted(kind)
    fresh, _ = fitted(kind)
    model.predict(X[:3])  # its dtype and width resolved
    bad = [X[:2, :-1], X[:2, 0], np.full((2, X.shape[1]), "a", dtype=object), X[:2].astype(np.complex128),
           X[:0], np.c_[X[:2], X[:2, :1]]]
    errors = 0
    for b in bad:
        after, first = outcome(model.predict_proba, b), outcome(fresh.predict_proba, b)
        if isinstance(first, tuple):
            errors += 1
            assert after == first
        else:
            assert np.array_equal(after, first)
    assert errors >= 4


def test_array_checks_are_kept_per_dtype_width_and_options():
    X = CODES[:4]

    def kinds(X=X, **options):
        return as_dataset(X, require_target=False, **options).kinds

    numeric, categorical = "numeric", "categorical"
    assert kinds() == [numeric] * 5 and kinds(categorical_features="all") == [categorical] * 5
    assert kinds(categorical_features=("1",)) == [numeric, categorical, numeric, numeric, numeric]
    assert kinds(categorical_features=[1, 3]) == [numeric, categorical, numeric, categorical, numeric]  # indices
    assert kinds(categorical_features="all", numeric_features=["0"]) == [numeric] + [categorical] * 4
    assert kinds(X.astype(np.float32)) == [numeric] * 5 and kinds(X[:, :2], categorical_features="all") == [
        categorical] * 2
    for _ in range(2):  # the same error again: nothing kept of it
        with pytest.raises(ValueError, match="categorical_features"):
            as_dataset(X, require_target=False, categorical_features=["9"])


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
def test_small_integer_codes_are_the_schemas_codes(dtype):
    model, X = fitted("categorical")
    info = np.iinfo(dtype)
    odd = np.array([[-5, 0, 5, 99, 127], [info.min, info.max, info.min + 1, info.max - 1, -1]],
                   dtype=dtype)  # below, at and above the runs, unseen, the dtype's extremes
    X = np.vstack([X[:50].astype(dtype), odd])
    counted = model.schema_.counted()
    splitter = CountedSplit(counted)
    assert splitter.runs is not None
    codes, values = splitter.split(X)
    expected, _ = counted.split(X)
    assert values is None and codes.dtype == expected.dtype and np.array_equal(codes, expected)
    big = np.tile(X, (SMALL_ROWS // len(X) + 1, 1))  # beyond the small rows: the schema's codes
    assert np.array_equal(splitter.split(big)[0], counted.split(big)[0])
    assert np.array_equal(model.predict_proba(big)[:len(X)], model.predict_proba(X))


def test_integer_codes_need_integer_runs():
    words = NaiveBayes().fit(np.array([["a"], ["b"]], dtype=object), [0, 1])
    gaps = NaiveBayes(categorical_features="all").fit(np.array([[1], [500]]), [0, 1])  # vocabulary [1, 500]
    assert CountedSplit(words.schema_.counted()).runs is None and CountedSplit(gaps.schema_.counted()).runs is None
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
        counted = model.schema_.counted()
        codes, values = counted.split(X)
        got_codes, got = CountedSplit(counted).split(X)
        assert got.dtype == values.dtype and np.array_equal(got, values, equal_nan=True)
        assert np.array_equal(got_codes, codes)
        assert np.array_equal(model.predict_proba(X), model.predict_proba(np.tile(X, (300, 1)))[:len(X)])
    assert CountedSplit(fitted("categorical")[0].schema_.counted()).binned_positions is None
    gaussian = fitted("gaussian")[0].schema_.counted()  # no counted attribute: no values
    _, values = CountedSplit(gaussian).split(FLOATS[:3])
    assert values.dtype == np.float64 and values.shape == (3, 0)
    assert gaussian.split(FLOATS[:3])[1].shape == (3, 0)


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

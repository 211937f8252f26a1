"""Property-based differential tests of the classes of bug behind issue 48's reproductions.

Hypothesis draws small frames of integer columns at their type's extremes (int8 to uint64, numpy or nullable,
missing values in any row, 0 inside or outside the values' range), integer targets up to 2**64 - 1 (nullable,
some missing, possibly in every row of a batch) and integer weights. Every input form must give the counts of
a plain Counter of the rows (``tests.counter_checks``), or, where the Counter finds fewer than two classes or
no case to count, a ValueError in every form:

- in memory: pandas with 1..7 partitions, shuffled rows, permuted columns, a numpy array, ``load(save(model))`` and
  ``partial_fit`` in pieces (a piece whose every target is missing adds its count, one of weight zero adds
  nothing, the first piece too);
- through files: a Dask DataFrame, Parquet and CSV directories of several files (a CSV integer column beyond
  int64 keeps its values, or, when an earlier file typed it int64, is refused saying so).

Bounded: a fixed seed (derandomized), a few dozen examples, no deadline.
"""

import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from nbparallel import NaiveBayes, load
from tests.counter_checks import check_counts, counter_reference

EXTREMES = {dtype: [int(np.iinfo(dtype).min), int(np.iinfo(dtype).min) + 1, 0, 1,
                    int(np.iinfo(dtype).max) - 1, int(np.iinfo(dtype).max)]
            for dtype in ("int8", "uint8", "int16", "uint16", "int64", "uint64")}
EXTREMES["uint64"] += [2**63, 2**63 + 1]
LABELS = {"Int64": [-3, 0, 5, 2**62], "UInt64": [0, 2**63, 2**63 + 1, 2**64 - 1], "Int8": [-128, -127, 0, 127]}
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def _column(n):
    """A column of ``n`` values from one dtype's extremes: numpy (no missing value) or nullable (some)."""
    def of(dtype, nullable):
        pool = EXTREMES[dtype] + ([None] if nullable else [])
        name = dtype.capitalize().replace("Ui", "UI") if nullable else dtype
        return st.lists(st.sampled_from(pool), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=name))
    return st.tuples(st.sampled_from(sorted(EXTREMES)), st.booleans()).flatmap(lambda a: of(*a))


def _target(n):
    """Labels of one nullable integer dtype or uint64, missing in none, some or all of the rows."""
    def of(dtype, missing):
        pool = LABELS[dtype] + ([None] * missing if dtype != "uint64" else [])
        return st.lists(st.sampled_from(pool), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=dtype))
    nullable = st.tuples(st.sampled_from(sorted(LABELS)), st.integers(0, 2))
    return st.one_of(nullable.flatmap(lambda a: of(*a)),
                     st.lists(st.sampled_from(LABELS["UInt64"]), min_size=n, max_size=n).map(
                         lambda v: pd.Series(v, dtype=np.uint64)))


@st.composite
def cases(draw):
    n = draw(st.integers(3, 14))
    X = pd.DataFrame({f"c{i}": draw(_column(n)) for i in range(draw(st.integers(1, 3)))})
    y = draw(_target(n))
    if draw(st.booleans()) and y.isna().any():  # every target missing in the middle rows
        y[n // 3: 2 * n // 3] = None
    w = draw(st.one_of(st.none(), st.lists(st.integers(0, 3), min_size=n, max_size=n).map(
        lambda v: np.array(v, dtype=float))))
    return X, y, w, draw(st.integers(2, 7)), draw(st.randoms(use_true_random=False))


def _countable(X, y, w):
    """Whether the Counter finds two classes and a case with a known target and a known value to count."""
    cells, classes, _ = counter_reference(X, y, w)
    return len(classes) >= 2 and sum(cells.values()) > 0


def _fit(X, y, w=None, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a single observed category: the attribute is ignored
        return NaiveBayes(categorical_features="all", **params).fit(X, y, sample_weight=w)


def _or_error(fit):
    try:
        return fit()
    except ValueError as exc:
        return exc


def _labels_as_given(y):
    """The target as a numpy array: its own integers, or objects with None where missing."""
    return y.to_numpy() if isinstance(y.dtype, np.dtype) else y.to_numpy(dtype=object, na_value=None)


@SETTINGS
@given(cases())
def test_in_memory_forms_count_like_a_plain_counter(tmp_path, case):
    X, y, w, p, rng = case
    base = _or_error(lambda: _fit(X, y, w))
    event("refused" if isinstance(base, ValueError) else "fitted")
    if not _countable(X, y, w):
        assert isinstance(base, ValueError)
        assert isinstance(_or_error(lambda: _fit(X, y, w, n_partitions=p)), ValueError)
        return
    check_counts(base, X, y, w)
    check_counts(_fit(X, y, w, n_partitions=p), X, y, w)
    order = list(range(len(X)))
    rng.shuffle(order)
    check_counts(_fit(X.iloc[order].reset_index(drop=True), y.iloc[order].reset_index(drop=True),
                      None if w is None else w[order], n_partitions=p), X, y, w)
    columns = list(X.columns)
    rng.shuffle(columns)
    check_counts(_fit(X[columns], y, w, n_partitions=p), X, y, w)
    if all(isinstance(t, np.dtype) for t in X.dtypes) and np.result_type(*X.dtypes).kind in "iu":
        named = X.set_axis([str(j) for j in range(X.shape[1])], axis=1)  # an array's columns are named 0, 1...
        check_counts(_fit(X.to_numpy(), _labels_as_given(y), w, n_partitions=p), named, y, w)
    base.save(tmp_path / "model.json")
    loaded = load(tmp_path / "model.json")
    check_counts(loaded, X, y, w)
    assert loaded.counts_.equals(base.counts_)
    assert np.array_equal(loaded.predict_proba(X), base.predict_proba(X))
    _check_pieces(X, y, w, p, rng)


def _check_pieces(X, y, w, p, rng):
    """partial_fit over consecutive pieces (the middle third one of them, whose targets ``cases`` may make all
    missing) equals the Counter: a piece of no label or of weight zero adds what it has, the first one too."""
    n = len(X)
    cuts = sorted(set(rng.sample(range(1, n), min(p, n) - 1)) | {n // 3, 2 * n // 3})
    bounds = list(zip([0, *cuts], [*cuts, len(X)]))
    _, classes, _ = counter_reference(X, y, w)
    model = NaiveBayes(categorical_features="all")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for start, stop in bounds:
            piece = (X[start:stop], y[start:stop], None if w is None else w[start:stop])
            named = {"classes": classes} if start == 0 else {}  # on the first call only, as scikit-learn asks
            if piece[2] is not None and not piece[2].any():
                event("partial_fit: a piece of weight zero")
            elif not counter_reference(*piece)[1]:
                event("partial_fit: a piece of no label of non-zero weight")
            model.partial_fit(*piece[:2], sample_weight=piece[2], **named)
    check_counts(model, X, y, w)


@settings(SETTINGS, max_examples=25)
@given(cases())
def test_file_and_dask_forms_count_like_a_plain_counter(tmp_path_factory, case):
    import dask.dataframe as dd

    X, y, w, p, _ = case
    if not _countable(X, y, w):
        event("not countable")
        return  # the refusals are checked in memory
    frame = X.assign(t=y) if w is None else X.assign(t=y, w=w)
    weight = None if w is None else "w"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_counts(NaiveBayes(categorical_features="all").fit(
            dd.from_pandas(frame, npartitions=min(p, len(X))), "t", sample_weight=weight), X, y, w)
        parts = np.array_split(np.arange(len(X)), min(p, len(X)))
        parquet, csv = tmp_path_factory.mktemp("parquet"), tmp_path_factory.mktemp("csv")
        for i, rows in enumerate(parts):
            frame.iloc[rows].to_parquet(parquet / f"part{i}.parquet")
            frame.iloc[rows].to_csv(csv / f"part{i}.csv", index=False)
        check_counts(NaiveBayes(categorical_features="all").fit(parquet, "t", sample_weight=weight), X, y, w)
        read = _or_error(lambda: NaiveBayes(categorical_features="all").fit(csv, "t", sample_weight=weight))
    if isinstance(read, ValueError):  # an earlier file's int64 cannot hold a later file's integer
        event("CSV refused: beyond int64")
        assert "(beyond int64, " in str(read), read
        assert any(v >= 2**63 for c in frame for v in frame[c].dropna().tolist() if isinstance(v, int))
        return
    event("CSV read")
    check_counts(read, X, y, w)

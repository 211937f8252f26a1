"""Parameters and sizes out of bounds: refused at fit with the parameter named, or handled in row chunks."""

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import nbparallel
from nbparallel import AutoClass, BoostedNaiveBayes, NaiveBayes
from nbparallel.engine.reduce import fan_in


@pytest.mark.parametrize("make", [
    lambda: NaiveBayes(alpha=np.inf), lambda: NaiveBayes(class_alpha=float("inf")),
    lambda: BoostedNaiveBayes(alpha=np.inf), lambda: AutoClass(alpha=np.inf), lambda: AutoClass(tol=np.nan),
])
def test_infinite_smoothing_is_refused_at_fit(make, wine):
    with pytest.raises(ValueError, match="finite"):
        make().fit(*wine)


def test_numpy_integers_are_parameters_like_ints(wine):
    X, y = wine
    reference = NaiveBayes(n_partitions=3, split_every=3).fit(X, y)
    model = NaiveBayes(n_partitions=np.int32(3), split_every=np.int64(3), n_bins=np.int16(10)).fit(X, y)
    assert model.counts_.equals(reference.counts_) and model.reduction_ == reference.reduction_
    assert fan_in(np.uint8(4), 10) == 4
    boosted = BoostedNaiveBayes(n_rounds=np.int64(2), split_every=np.int64(2)).fit(X, y)
    assert len(boosted.estimators_) == 2
    AutoClass(n_clusters=np.int64(2), n_restarts=np.int8(1), max_iter=np.int64(2), tol=np.float32(0.1),
              random_state=np.int64(3)).fit(X)


def test_random_state_forms(wine, tmp_path):
    X, _ = wine
    params = dict(n_restarts=2, max_iter=3)
    by_int = AutoClass(random_state=5, **params).fit(X)
    np.testing.assert_array_equal(AutoClass(random_state=np.int64(5), **params).fit(X).counts_, by_int.counts_)
    generator = AutoClass(random_state=np.random.default_rng(5), **params).fit(X)
    legacy = AutoClass(random_state=np.random.RandomState(5), **params).fit(X)
    np.testing.assert_array_equal(
        AutoClass(random_state=np.random.default_rng(5), **params).fit(X).counts_, generator.counts_)
    assert legacy.converged_ in (True, False)
    generator.save(tmp_path / "m.json")
    assert nbparallel.load(tmp_path / "m.json").random_state is None
    with pytest.raises(TypeError, match="random_state must be None, an int >= 0, a numpy.random.Generator"):
        AutoClass(random_state="seed").fit(X)
    with pytest.raises(ValueError, match="random_state must be an int >= 0"):
        AutoClass(random_state=-1).fit(X)


def test_absurd_sizes_fail_at_once_with_the_parameter_named(wine, monkeypatch):
    X, y = wine
    with pytest.raises(ValueError, match=r"n_bins. parameter of NaiveBayes must be an int in \[2, 65534\]"):
        NaiveBayes(n_bins=10**9).fit(X, y)
    with pytest.raises(ValueError, match="n_clusters=1000000 x n_restarts=5 need about .* fewer clusters"):
        AutoClass(n_clusters=10**6).fit(X)
    many = pd.DataFrame({"a": np.arange(200_000) % 7})
    with pytest.raises(ValueError, match="count tables of 200000 classes .* fewer bins"):
        monkeypatch.setattr("nbparallel.engine.memory.available_memory", lambda partitions=None: 10**7)
        NaiveBayes().fit(many, np.arange(200_000))


def test_predict_with_many_classes_works_in_row_chunks(monkeypatch, tmp_path):
    rng = np.random.default_rng(0)
    n_classes = 3000
    X = pd.DataFrame({"a": np.arange(n_classes) % 11, "b": np.arange(n_classes) % 13})
    y = np.arange(n_classes)
    model = NaiveBayes(alpha=1.0).fit(X, y)
    expected = model.classes_[np.argmax(model.predict_joint_log_proba(X), axis=1)]
    monkeypatch.setattr("nbparallel.engine.memory.PREDICT_CHUNK_CELLS", 7 * n_classes + rng.integers(1, 100))
    np.testing.assert_array_equal(model.predict(X), expected)
    monkeypatch.setattr("nbparallel.engine.memory.available_memory", lambda partitions=None: 10**6)
    with pytest.raises(ValueError, match="probabilities of 3000 rows x 3000 classes"):
        model.predict_proba(X)
    # files too: their footers give the rows before any is read
    directory = tmp_path / "rows"
    directory.mkdir()
    X[:1000].to_parquet(directory / "part-0.parquet")
    X[1000:].to_parquet(directory / "part-1.parquet")
    with pytest.raises(ValueError, match="probabilities of 3000 rows x 3000 classes"):
        model.predict_proba(directory)
    # and where the rows are known once read (CSV files, a Dask DataFrame): before the output is made
    text = tmp_path / "text"
    text.mkdir()
    X[:1000].to_csv(text / "part-0.csv", index=False)
    X[1000:].to_csv(text / "part-1.csv", index=False)
    for lazy in (text, dd.from_pandas(X, npartitions=3)):
        with pytest.raises(ValueError, match="probabilities of 3000 rows x 3000 classes"):
            model.predict_proba(lazy)

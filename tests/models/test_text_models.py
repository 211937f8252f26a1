"""Multinomial and Bernoulli naive Bayes against scikit-learn, on sparse and dense counts."""

import json
import warnings

import dask.array as da
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
from sklearn.naive_bayes import BernoulliNB, MultinomialNB
from sklearn.pipeline import make_pipeline

from nbparallel import BernoulliNaiveBayes, MultinomialNaiveBayes, load
from nbparallel.data.sparse import MIN_ROWS, as_partitions
from nbparallel.engine import execution as engine

PAIRS = [(MultinomialNaiveBayes, MultinomialNB), (BernoulliNaiveBayes, BernoulliNB)]
IDS = ["multinomial", "bernoulli"]


def random_counts(n_rows=400, n_features=120, n_classes=4, density=0.08, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n_rows, n_features, density=density, format="csr", random_state=seed,
                  data_rvs=lambda n: rng.integers(1, 6, n)).astype(np.float64)
    return X, rng.choice(np.array(["ham", "eggs", "spam", "tea"][:n_classes]), n_rows)


WORDS = {
    "sport": "goal match team score player league coach win season ball".split(),
    "food": "bread cheese soup recipe oven salt dinner taste fresh spice".split(),
    "tech": "code server data network cloud chip software bug laptop python".split(),
}
COMMON = "the a and of to in is it for on".split()


def documents(n=300, seed=1):
    """Short generated documents: topic words mixed with common words, Zipf-like."""
    rng = np.random.default_rng(seed)
    topics = rng.choice(sorted(WORDS), n)
    docs = []
    for t in topics:
        vocab = WORDS[t] + COMMON + WORDS[rng.choice(sorted(WORDS))][:3]
        p = 1.0 / np.arange(1, len(vocab) + 1)
        docs.append(" ".join(rng.choice(vocab, rng.integers(5, 30), p=p / p.sum())))
    return docs, topics


def assert_same_as_sklearn(ours, ref, X):
    np.testing.assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.class_log_prior_, ref.class_log_prior_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.predict_joint_log_proba(X), ref.predict_joint_log_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_array_equal(ours.feature_count_, ref.feature_count_)
    np.testing.assert_array_equal(ours.class_count_, ref.class_count_)


@pytest.mark.parametrize("ours, ref", PAIRS, ids=IDS)
@pytest.mark.parametrize("params", [{}, {"alpha": 0.3, "fit_prior": False}, {"class_prior": [0.1, 0.2, 0.3, 0.4]},
                                    {"alpha": 0.0, "force_alpha": False}])
def test_agrees_with_sklearn_on_random_sparse_counts(ours, ref, params):
    X, y = random_counts()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ours(n_partitions=3, **params).fit(X, y)
    if params.get("force_alpha") is False:
        assert any("alpha too small" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_as_sklearn(model, ref(**params).fit(X, y), X)


def test_bernoulli_binarize_threshold_and_none_agree_with_sklearn():
    X, y = random_counts()
    for binarize in (2.5, None):
        model = BernoulliNaiveBayes(binarize=binarize, n_partitions=4).fit(X, y)
        assert_same_as_sklearn(model, BernoulliNB(binarize=binarize).fit(X, y), X)


@pytest.mark.parametrize("ours, ref", PAIRS, ids=IDS)
def test_agrees_with_sklearn_on_generated_documents_and_weights(ours, ref):
    docs, topics = documents()
    X = CountVectorizer().fit_transform(docs)
    w = np.random.default_rng(2).integers(0, 4, len(docs)).astype(float)
    model = ours(n_partitions=5).fit(X, topics, sample_weight=w)
    assert_same_as_sklearn(model, ref().fit(X, topics, sample_weight=w), X)
    assert model.score(X, topics) > 0.9


@pytest.mark.parametrize("ours", [MultinomialNaiveBayes, BernoulliNaiveBayes], ids=IDS)
def test_same_counts_for_every_input_format_partitioning_and_tree(ours):
    X, y = random_counts(n_rows=301)
    reference = ours(n_partitions=1).fit(X, y)
    chunks = da.from_array(X, chunks=(50, 120), asarray=False)
    inputs = {"csr": X, "csc": X.tocsc(), "coo": X.tocoo(), "dense": X.toarray(),
              "dask-sparse": chunks, "dask-dense": da.from_array(X.toarray(), chunks=(64, 40))}
    for name, data in inputs.items():
        for n_partitions, split_every in ((None, 2), (2, 2), (7, 3), (13, False)):
            model = ours(n_partitions=n_partitions, split_every=split_every).fit(data, y)
            assert model.counts_.equals(reference.counts_), (name, n_partitions)
    assert ours().fit(chunks, y).reduction_.n_leaves == 7  # a Dask array keeps its chunks
    assert ours(n_partitions=13).fit(X, y).reduction_.height == 4  # ceil(log2 13)


def test_partitions_know_their_index_and_row_offset():
    X, y = random_counts(n_rows=100)
    offsets = [p.info for p in as_partitions(X, y, n_partitions=3).partitions]
    assert [(i.index, i.row_offset) for i in offsets] == [(0, 0), (1, 33), (2, 66)]
    lazy = as_partitions(da.from_array(X, chunks=(40, 120), asarray=False), y).partitions
    assert engine.map_partitions(lazy, lambda p: p.info.row_offset) == [0, 40, 80]


def test_default_is_one_partition_per_worker_of_zero_copy_csr_rows(monkeypatch):
    X, y = random_counts(n_rows=3 * MIN_ROWS + 5, n_features=50, density=0.02)
    monkeypatch.setattr(engine, "available_workers", lambda: 3)
    parts = as_partitions(X, y).partitions
    assert [p.info.row_offset for p in parts] == [0, MIN_ROWS + 1, 2 * MIN_ROWS + 3]
    for part, start, stop in zip(parts, [0, MIN_ROWS + 1, 2 * MIN_ROWS + 3], [MIN_ROWS + 1, 2 * MIN_ROWS + 3, None]):
        assert np.shares_memory(part.X.data, X.data) and np.shares_memory(part.X.indices, X.indices)
        part.X.check_format(full_check=True)
        assert (part.X != X[start:stop]).nnz == 0
    assert MultinomialNaiveBayes().fit(X, y).n_partitions_ == 3
    np.testing.assert_array_equal(MultinomialNaiveBayes().fit(X, y).feature_count_,
                                  MultinomialNB().fit(X, y).feature_count_)
    monkeypatch.setattr(engine, "available_workers", lambda: 8)
    assert len(as_partitions(X, y).partitions) == 4  # none smaller than MIN_ROWS rows


def test_sparse_partitions_are_sized_by_their_arrays_to_run_locally_or_not():
    X, y = random_counts(n_rows=1000)
    parts = as_partitions(X, y, n_partitions=2).partitions
    n_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes + y.nbytes
    with engine.local_below(n_bytes + 64):
        assert engine.runs_locally(parts)
    with engine.local_below(X.data.nbytes):
        assert not engine.runs_locally(parts)  # counted as more than its labels: to the scheduler


@pytest.mark.parametrize("ours", [MultinomialNaiveBayes, BernoulliNaiveBayes], ids=IDS)
def test_partial_fit_on_pieces_equals_fit(ours):
    X, y = random_counts()
    model = ours(n_partitions=2)
    for start in range(0, 400, 150):
        model.partial_fit(X[start:start + 150], y[start:start + 150], classes=np.unique(y))
    full = ours().fit(X, y)
    assert model.counts_.equals(full.counts_)
    np.testing.assert_array_equal(model.predict_proba(X), full.predict_proba(X))
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        ours().partial_fit(X, y)
    with pytest.raises(ValueError, match="not in classes"):
        ours().partial_fit(X, y, classes=["ham", "eggs"])


@pytest.mark.parametrize("vectorizer", [CountVectorizer(), HashingVectorizer(n_features=2**12, alternate_sign=False)])
def test_text_pipeline_matches_sklearn(vectorizer):
    docs, topics = documents()
    ours = make_pipeline(vectorizer, MultinomialNaiveBayes(n_partitions=3)).fit(docs[:200], topics[:200])
    ref = make_pipeline(vectorizer, MultinomialNB()).fit(docs[:200], topics[:200])
    np.testing.assert_allclose(ours.predict_proba(docs[200:]), ref.predict_proba(docs[200:]), atol=1e-9)
    assert ours.score(docs[200:], topics[200:]) > 0.9


def test_prediction_never_densifies_sparse_input(monkeypatch):
    X, y = random_counts()
    models = [MultinomialNaiveBayes().fit(X, y), BernoulliNaiveBayes().fit(X, y)]
    expected = [m.predict_proba(X.toarray()) for m in models]

    def refuse(*args, **kwargs):
        raise AssertionError("a sparse matrix was densified")

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    for model, proba in zip(models, expected):
        np.testing.assert_allclose(model.predict_proba(X), proba, atol=1e-12)


@pytest.mark.parametrize("ours", [MultinomialNaiveBayes, BernoulliNaiveBayes], ids=IDS)
def test_save_load_round_trip_is_compact_and_exact(ours, tmp_path):
    X, y = random_counts(n_features=5000, density=0.0005)
    model = ours(alpha=0.5, class_prior=np.array([0.25] * 4)).fit(X, y)
    path = tmp_path / "text.json"
    model.save(path)
    again = load(path)
    assert type(again) is ours and again.counts_.equals(model.counts_)
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(again.classes_, model.classes_)
    stored = json.loads(path.read_text())["fitted"]["counts"]
    assert len(stored["nonzero_value"]) == np.count_nonzero(model.feature_count_) < 0.1 * model.feature_count_.size
    assert path.stat().st_size < len(json.dumps(model.feature_count_.tolist())) / 4


def test_evaluate_matches_sklearn_log_likelihood_and_accuracy():
    X, y = random_counts()
    model = MultinomialNaiveBayes(n_partitions=4).fit(X, y)
    ref = MultinomialNB().fit(X, y)
    result = model.evaluate(X, y)
    codes = np.searchsorted(ref.classes_, y)
    assert result["n_rows"] == 400
    assert result["accuracy"] == pytest.approx(ref.score(X, y), abs=0)
    assert result["average_log_likelihood"] == pytest.approx(
        ref.predict_log_proba(X)[np.arange(400), codes].mean(), abs=1e-9)


def test_refit_on_an_ndarray_forgets_the_dataframe_feature_names():
    X, y = random_counts(n_features=4, density=0.5)
    frame = pd.DataFrame(X.toarray(), columns=["w", "x", "y", "z"])
    model = MultinomialNaiveBayes().fit(frame, y)
    assert list(model.feature_names_in_) == ["w", "x", "y", "z"]
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(frame.rename(columns={"w": "v"}))
    model.fit(X.toarray(), y)
    assert not hasattr(model, "feature_names_in_") and model.n_features_in_ == 4


def test_bad_input_raises_value_errors_naming_what_is_wrong():
    X, y = random_counts()
    negative = X.copy()
    negative.data[3] = -1.0
    with pytest.raises(ValueError, match=r"Negative values in data passed to MultinomialNaiveBayes \(input X\)"):
        MultinomialNaiveBayes().fit(negative, y)
    with pytest.raises(ValueError, match=r"Negative values .*input X"):
        MultinomialNaiveBayes().fit(negative.toarray(), y)
    BernoulliNaiveBayes().fit(negative, y)  # Bernoulli takes any values: below 0 is absent
    model = MultinomialNaiveBayes().fit(X, y)
    with pytest.raises(ValueError, match="X has 119 features, but MultinomialNaiveBayes is expecting 120"):
        model.predict(X[:, :119])
    with pytest.raises(ValueError, match="X has 119 features"):
        model.partial_fit(X[:, :119], y)
    with pytest.raises(ValueError, match="'alpha' parameter of MultinomialNaiveBayes must be"):
        MultinomialNaiveBayes(alpha="one").fit(X, y)
    with pytest.raises(ValueError, match="'split_every' parameter"):
        MultinomialNaiveBayes(split_every=1).fit(X, y)
    with pytest.raises(ValueError, match="When alpha is an array"):
        MultinomialNaiveBayes(alpha=[1.0, 2.0]).fit(X, y)
    with pytest.raises(ValueError, match="Number of priors must match"):
        MultinomialNaiveBayes(class_prior=[0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="binarize must be >= 0 for a sparse X"):
        BernoulliNaiveBayes(binarize=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="y has 399 labels, but X has 400 rows"):
        MultinomialNaiveBayes().fit(X, y[:-1])
    with pytest.raises(ValueError, match="sample_weight must have shape"):
        MultinomialNaiveBayes().fit(X, y, sample_weight=np.ones(3))


def test_negative_values_in_a_dask_chunk_raise_from_the_pass():
    X, y = random_counts()
    X = X.tolil()
    X[390, 5] = -2.0
    with pytest.raises(ValueError, match="Negative values"):
        MultinomialNaiveBayes().fit(da.from_array(X.tocsr(), chunks=(100, 120), asarray=False), y)


@pytest.mark.parametrize("ours", [MultinomialNaiveBayes(), BernoulliNaiveBayes()], ids=IDS)
def test_check_estimator(ours):
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(ours, on_fail=None)
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert len(results) > 50
    assert failed == []


def test_fit_on_a_real_dask_cluster_gives_the_local_model():
    from distributed import Client

    from tests.dask_processes import dask_cluster

    X, y = random_counts(n_rows=500)
    chunks = da.from_array(X, chunks=(100, 120), asarray=False)
    local = MultinomialNaiveBayes().fit(chunks, y)
    with dask_cluster(n_workers=2) as (address, _), Client(address) as client:
        assert sum(client.nthreads().values()) == 2
        remote = MultinomialNaiveBayes().fit(chunks, y)
        in_memory = BernoulliNaiveBayes(n_partitions=4).fit(X, y)
        proba = remote.predict_proba(X)
    assert remote.counts_.equals(local.counts_) and remote.reduction_.n_leaves == 5
    assert in_memory.counts_.equals(BernoulliNaiveBayes().fit(X, y).counts_)
    np.testing.assert_array_equal(proba, local.predict_proba(X))


def test_cli_text_fit_and_predict_from_documents_and_npz(tmp_path, capsys):
    from nbparallel.cli import main

    docs, topics = documents(n=120)
    for t in sorted(WORDS):
        (tmp_path / "corpus" / t).mkdir(parents=True)
    for i, (d, t) in enumerate(zip(docs, topics)):
        (tmp_path / "corpus" / t / f"{i:03d}.txt").write_text(d)
    (tmp_path / "docs.txt").write_text("\n".join(docs))
    (tmp_path / "labels.txt").write_text("\n".join(topics))
    hashed = HashingVectorizer(n_features=2**10, alternate_sign=False, norm=None).transform(docs)
    sp.save_npz(tmp_path / "counts.npz", hashed)
    expected = BernoulliNB(binarize=0.0).fit(hashed, topics)

    assert main(["text-fit", str(tmp_path / "docs.txt"), "--labels", str(tmp_path / "labels.txt"),
                 "--model", "bernoulli", "--hashing-bits", "10", "-o", str(tmp_path / "a.json")]) == 0
    assert main(["text-fit", str(tmp_path / "counts.npz"), "--labels", str(tmp_path / "labels.txt"),
                 "--model", "bernoulli", "--partitions", "3", "-o", str(tmp_path / "b.json")]) == 0
    a, b = load(tmp_path / "a.json"), load(tmp_path / "b.json")
    assert a.counts_.equals(b.counts_) and b.reduction_.n_leaves == 3
    np.testing.assert_allclose(a.feature_log_prob_, expected.feature_log_prob_, atol=1e-9)

    assert main(["text-fit", str(tmp_path / "corpus"), "--hashing-bits", "10", "-o", str(tmp_path / "c.json")]) == 0
    assert main(["text-predict", str(tmp_path / "c.json"), str(tmp_path / "docs.txt"), "--proba",
                 "-o", str(tmp_path / "pred.csv")]) == 0
    pred = pd.read_csv(tmp_path / "pred.csv")
    ref = MultinomialNB().fit(hashed, topics)
    np.testing.assert_array_equal(pred["prediction"], ref.predict(hashed))
    np.testing.assert_allclose(pred[[f"proba_{c}" for c in ref.classes_]], ref.predict_proba(hashed), atol=1e-9)

    (tmp_path / "short.txt").write_text("\n".join(topics[:5]))
    assert main(["text-fit", str(tmp_path / "docs.txt"), "--labels", str(tmp_path / "short.txt"),
                 "-o", str(tmp_path / "d.json")]) == 2
    assert "--labels has 5 lines, but" in capsys.readouterr().err
    assert not (tmp_path / "d.json").exists()

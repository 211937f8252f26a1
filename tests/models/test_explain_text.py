"""Text models' explain: each row's top terms, the rest and the prior, summing to the log-odds; checked
against the log-odds computed in numpy from the fitted tables."""

import dask.array as da
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import nbparallel as nb
from nbparallel.cli.commands import main
from nbparallel.data.documents import read_documents
from nbparallel.models.explanation import OTHER_TERMS, PRIOR, TERM_COLUMNS

MODELS = [nb.MultinomialNaiveBayes, nb.BernoulliNaiveBayes, nb.ComplementNaiveBayes]


def _counts(n_rows=150, n_features=30, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    rates = rng.gamma(0.5, 1.0, size=(3, n_features))
    return rng.poisson(rates[y] * 0.6), y


def _numpy_joint(model, X):
    """Joint log-likelihoods from the fitted counts, written out per model (not through the model's code)."""
    X = np.asarray(X, dtype=np.float64)
    log_prior = np.log(model.class_count_ / model.class_count_.sum())
    if isinstance(model, nb.BernoulliNaiveBayes):
        p = (model.feature_count_ + 1.0) / (model.class_count_[:, None] + 2.0)
        present = (X > 0).astype(float)
        return log_prior + present @ np.log(p).T + (1 - present) @ np.log(1 - p).T
    if isinstance(model, nb.ComplementNaiveBayes):
        complement = model.feature_count_.sum(axis=0) + 1.0 - model.feature_count_
        return X @ -np.log(complement / complement.sum(axis=1, keepdims=True)).T
    p = (model.feature_count_ + 1.0) / (model.feature_count_ + 1.0).sum(axis=1, keepdims=True)
    return log_prior + X @ np.log(p).T


def _pair(joint):
    ranked = np.argsort(-joint, axis=1, kind="stable")
    return ranked[:, 0], ranked[:, 1]


@pytest.mark.parametrize("model_class", MODELS)
@pytest.mark.parametrize("top", [3, None])
def test_a_rows_entries_sum_to_the_log_odds(model_class, top):
    X, y = _counts()
    model = model_class().fit(X, y)
    evidence = model.explain(X, top=top)
    assert list(evidence.columns) == TERM_COLUMNS
    joint = _numpy_joint(model, X)
    c, o = _pair(joint)
    rows = np.arange(len(X))
    sums = evidence.groupby("row")["evidence"].sum().reindex(rows).to_numpy()
    assert np.abs(sums - (joint[rows, c] - joint[rows, o])).max() < 1e-9
    row = evidence["row"].to_numpy()
    assert (evidence["class"].to_numpy() == model.classes_[c[row]]).all()
    assert (evidence["versus"].to_numpy() == model.classes_[o[row]]).all()
    assert np.abs(evidence["log_odds"].to_numpy() - (joint[row, c[row]] - joint[row, o[row]])).max() < 1e-9
    for i in (0, 7, 42):
        entries = evidence[evidence["row"] == i]
        listed = entries[entries["rank"] > 0]
        present = np.flatnonzero(X[i])
        assert len(listed) == (len(present) if top is None else min(top, len(present)))
        assert listed["rank"].tolist() == list(range(1, len(listed) + 1))
        assert entries["term"].tolist()[-2:] == [OTHER_TERMS, PRIOR]
        if isinstance(model, nb.MultinomialNaiveBayes):  # each term against the fitted tables
            log_p = np.log(model.feature_count_ + 1.0) - np.log((model.feature_count_ + 1.0).sum(1, keepdims=True))
            every = X[i, present] * (log_p[c[i], present] - log_p[o[i], present])
            expected = every[np.argsort(-np.abs(every), kind="stable")][:len(listed)]
            assert np.allclose(listed["evidence"].to_numpy(), expected, atol=1e-12)
            assert set(listed["term"]) <= set(present.tolist())


def test_sparse_dask_and_named_inputs_give_the_same_terms():
    X, y = _counts(seed=1)
    names = [f"w{j}" for j in range(X.shape[1])]
    model = nb.MultinomialNaiveBayes().fit(X, y)
    expected = model.explain(X, top=4)
    for form in (sp.csr_matrix(X), da.from_array(X, chunks=(40, X.shape[1]))):
        pd.testing.assert_frame_equal(model.explain(form, top=4), expected, check_exact=False, atol=1e-12)
    named = nb.MultinomialNaiveBayes().fit(pd.DataFrame(X, columns=names), y).explain(
        pd.DataFrame(X, columns=names), top=4)
    terms = expected["term"].map(lambda t: t if isinstance(t, str) else names[t])
    assert named["term"].tolist() == terms.tolist()


def test_for_class_against_and_bad_arguments():
    X, y = _counts(seed=2)
    model = nb.BernoulliNaiveBayes().fit(X, y)
    evidence = model.explain(X, for_class=2, against=0, top=None)
    assert set(evidence["class"]) == {2} and set(evidence["versus"]) == {0}
    joint = _numpy_joint(model, X)
    sums = evidence.groupby("row")["evidence"].sum().to_numpy()
    assert np.abs(sums - (joint[:, 2] - joint[:, 0])).max() < 1e-9
    against = model.explain(X, against=0, top=None)  # the best class other than 0, against 0
    masked = joint.copy()
    masked[:, 0] = -np.inf
    sums = against.groupby("row")["evidence"].sum().to_numpy()
    assert (joint.argmax(1) == 0).any()
    assert np.abs(sums - (masked.max(1) - joint[:, 0])).max() < 1e-9
    with pytest.raises(ValueError, match="top must be a positive integer"):
        model.explain(X, top=0)
    with pytest.raises(ValueError, match="for_class=7 is not a class"):
        model.explain(X, for_class=7)
    with pytest.raises(ValueError, match="same class"):
        model.explain(X, for_class=1, against=1)


def test_cli_explain_top_names_the_words(tmp_path):
    corpus = tmp_path / "corpus"
    for label, docs in {"cat": ["cats purr", "cats sleep all day"], "dog": ["dogs bark", "dogs run and bark"]}.items():
        (corpus / label).mkdir(parents=True)
        for k, doc in enumerate(docs):
            (corpus / label / f"{k}.txt").write_text(doc)
    documents = tmp_path / "docs.txt"
    documents.write_text("cats purr\ndogs bark loudly\n")
    model, out = tmp_path / "m.json", tmp_path / "e.csv"
    main(["text-fit", str(corpus), "-o", str(model)])
    main(["explain", str(model), str(documents), "-o", str(out), "--top", "1"])
    evidence = pd.read_csv(out)
    assert evidence["term"].tolist() == ["cats", OTHER_TERMS, PRIOR, "dogs", OTHER_TERMS, PRIOR]
    loaded = nb.load(model)
    log_proba = loaded.predict_log_proba(read_documents(documents, n_features=loaded.n_features_in_)[0])
    assert np.allclose(evidence.groupby("row")["evidence"].sum().to_numpy(),
                       np.sort(log_proba, axis=1)[:, -1] - np.sort(log_proba, axis=1)[:, -2], atol=1e-9)
    assert evidence.drop_duplicates("row")[["class", "versus"]].values.tolist() == [["cat", "dog"], ["dog", "cat"]]
    assert np.allclose(evidence["log_odds"], evidence.groupby("row")["evidence"].transform("sum"), atol=1e-12)

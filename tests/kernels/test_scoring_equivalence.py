"""The scoring kernels against plain numpy references written from the models' fitted tables.

Every prediction pass (predict, predict_proba, predict_log_proba, evaluate, boosting's votes, AutoClass's
E-step) now runs one family of kernels (:mod:`nbparallel.kernels.scoring`). These tests recompute what the
model should say with nothing of nbparallel but its fitted attributes (``class_log_prior_``,
``feature_log_prob_``, categories, ``bin_edges_``, ``theta_``/``var_``), in plain numpy and pandas: the
probabilities must agree to 1e-12 and the labels exactly, for every input form, partitioning and
save/load.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from nbparallel import AutoClass, BoostedNaiveBayes, NaiveBayes, load
from nbparallel.kernels.scoring import JOINT, best_of_rows, evaluate_rows, score_rows

RNG = np.random.default_rng(7)


# ------------------------------------------------------------------ references, plain numpy


def reference_joint(model, X):
    """log P(c) + sum_j log P(x_j | c) from the fitted tables, value by value in Python."""
    X = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X, columns=list(model.schema_.columns))
    jll = np.tile(model.class_log_prior_, (len(X), 1))
    for j, name in enumerate(model.schema_.columns):
        kind = model.feature_kinds_[name]
        column = X.iloc[:, j]
        if kind == "categorical":
            position = {v: i for i, v in enumerate(model.schema_.attribute(name).categories)}
            logp = model.feature_log_prob_[j]
            for i, v in enumerate(column.tolist()):
                p = None if pd.isna(v) else position.get(v.item() if isinstance(v, np.generic) else v)
                if p is not None:
                    jll[i] += logp[p]
        elif kind == "numeric":
            logp = model.feature_log_prob_[j]
            values = column.to_numpy(dtype=np.float64, na_value=np.nan)
            if len(logp) == 0:
                continue  # no bin: every value scores as missing
            bins = np.searchsorted(model.bin_edges_[name], values, side="left")  # right-closed bins
            known = ~np.isnan(values)
            jll[known] += logp[bins[known]]
        else:  # gaussian
            g = model.gaussian_features_.index(name)
            values = column.to_numpy(dtype=np.float64, na_value=np.nan)
            for k in range(len(model.classes_)):
                theta, var = model.theta_[k, g], model.var_[k, g]
                if np.isnan(var):
                    continue
                term = -0.5 * np.log(2 * np.pi * var) - 0.5 * (values - theta) ** 2 / var
                jll[:, k] += np.where(np.isnan(values), 0.0, term)
    return jll


def reference_labels(model, jll):
    order = np.argsort(-model.class_log_prior_, kind="stable")  # ties: the larger prior first
    best = order[np.argmax(jll[:, order], axis=1)]
    return model.classes_[best]


def check_model(model, X):
    jll = reference_joint(model, X)
    log_post = jll - logsumexp(jll, axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), jll, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.predict_log_proba(X), log_post, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X), np.exp(log_post), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), reference_labels(model, jll))


# ------------------------------------------------------------------ data


def frame(n=600, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = pd.DataFrame({
        "cat": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)),
        "txt": pd.Series(rng.choice(["u", "v", "w"], n), dtype=object),
        "num": rng.normal(y, 1.0),
        "int": rng.integers(0, 7, n) + y,
        "gauss": rng.normal(2 * y, 1.0),
    })
    X.loc[rng.random(n) < 0.05, "txt"] = None
    X.loc[rng.random(n) < 0.05, "num"] = np.nan
    return X, np.array(["no", "yes", "maybe"])[y]


@pytest.mark.parametrize("n_partitions", [1, 3])
@pytest.mark.parametrize("numeric", ["binned", {"gauss": "gaussian"}])
def test_naive_bayes_scores_equal_the_reference_on_frames(n_partitions, numeric, tmp_path):
    X, y = frame()
    model = NaiveBayes(n_partitions=n_partitions, numeric=numeric).fit(X, y)
    test, _ = frame(300, seed=1)
    test.loc[0, "cat"] = np.nan
    test.loc[1, "num"] = 1e9  # beyond the range: the last bin
    check_model(model, test)
    model.save(tmp_path / "m.json")
    again = load(tmp_path / "m.json")
    check_model(again, test)
    np.testing.assert_array_equal(again.predict_proba(test), model.predict_proba(test))


@pytest.mark.parametrize("n_classes", [2, 20])
def test_codes_strings_categories_and_files_score_alike(n_classes, tmp_path):
    n = 3000
    codes = RNG.integers(0, 6, (n, 5)).astype(np.uint8)
    y = (codes[:, 0].astype(int) * 7 + codes[:, 1] + RNG.integers(0, 3, n)) % n_classes
    levels = np.array([f"v{v}" for v in range(6)], dtype=object)
    names = [f"a{j}" for j in range(5)]
    as_str = pd.DataFrame({c: levels[codes[:, j]] for j, c in enumerate(names)})
    as_cat = as_str.astype("category")
    model = NaiveBayes(n_partitions=2).fit(as_str, y)
    expected = reference_joint(model, as_str)
    for X in (as_str, as_cat, as_str.astype("string")):
        check_model(model, X)
    directory = tmp_path / "parquet"
    directory.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(n), 3)):
        as_str.iloc[rows].to_parquet(directory / f"part-{i}.parquet")
    np.testing.assert_allclose(model.predict_joint_log_proba(directory), expected, rtol=0, atol=1e-12)
    import dask.dataframe as dd

    ddf = dd.read_parquet(directory)
    np.testing.assert_allclose(model.predict_proba(ddf), model.predict_proba(as_str), rtol=0, atol=1e-12)
    coded = NaiveBayes(categorical_features="all", n_partitions=3).fit(codes + np.uint8(1), y)
    check_model(coded, codes + np.uint8(1))


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64, np.uint64])
def test_integer_arrays_of_every_dtype_and_layout_score_as_the_reference(dtype):
    """Integer arrays are coded by one subtraction where a column's categories are a run of consecutive
    integers (0-based, shifted, negative, near the dtype's ends), by lookup elsewhere: a column with a gap, a
    column whose test values leave its run (unseen, below and above), and uint16 codes for a long run."""
    info = np.iinfo(dtype)
    n = 700
    starts = [0, 1, 5, info.min if info.min < 0 else 100, int(info.max) - 5, 0, 2]
    X = np.stack([RNG.integers(0, 6, n).astype(dtype) + dtype(start) for start in starts], axis=1)
    X[:, 5] = np.where(RNG.random(n) < 0.5, 0, 3).astype(dtype)  # categories {0, 3}: not a run
    if info.max >= 400:
        X[:, 6] = (RNG.integers(0, 300, n) + 2).astype(dtype)  # 300 categories: uint16 codes
    y = (X[:, 0].astype(np.int64) + RNG.integers(0, 3, n)) % 3
    model = NaiveBayes(categorical_features="all", n_partitions=2).fit(X, y)
    test = X[:300].copy()
    test[:50, 1] = 0  # one below column 1's run: unseen, as missing
    test[50:60, 2] = 4  # two below column 2's run
    test[60:70, 0] = 6  # one above column 0's run
    test[70:80, 5] = 1  # inside column 5's span, not a category
    for layout in (test, np.asfortranarray(test), np.repeat(test, 2, axis=1)[:, ::2], test[::-1]):
        check_model(model, layout)
    import dask.array as da

    expected = model.predict_proba(test)
    for n_partitions in (1, 3):  # partitions of which only some leave a run: the same probabilities, bit for bit
        np.testing.assert_array_equal(model.set_params(n_partitions=n_partitions).predict_proba(test), expected)
    np.testing.assert_array_equal(model.predict_proba(da.from_array(test, chunks=(70, -1))), expected)
    names = [f"c{j}" for j in range(X.shape[1])]  # a DataFrame's integer columns, coded column by column
    check_model(NaiveBayes(categorical_features="all").fit(pd.DataFrame(X, columns=names), y),
                pd.DataFrame(test, columns=names))
    ok = RNG.integers(0, 6, (200, 2)).astype(dtype)
    in_runs = NaiveBayes(categorical_features="all").fit(ok, ok[:, 0] % 2)
    check_model(in_runs, ok)
    check_model(in_runs, ok[:, :1].repeat(2, axis=1))


def test_boosted_votes_equal_the_learners_references():
    X, y = frame(400)
    model = BoostedNaiveBayes(n_rounds=4, n_partitions=2).fit(X.drop(columns="gauss"), y)
    test = frame(200, seed=3)[0].drop(columns="gauss")
    votes = np.zeros((len(test), len(model.classes_)))
    for learner, alpha in zip(model.estimators_, model.estimator_weights_):
        predicted = np.searchsorted(model.classes_, reference_labels(learner, reference_joint(learner, test)))
        votes[np.arange(len(test)), predicted] += alpha
    shares = votes / model.estimator_weights_.sum()
    np.testing.assert_allclose(model.predict_proba(test), shares, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(test), model.classes_[np.argmax(shares, axis=1)])


def test_autoclass_predictions_equal_the_reference():
    X = pd.DataFrame({f"a{j}": RNG.choice(list("xyz"), 400) for j in range(4)})
    model = AutoClass(n_clusters=3, n_restarts=2, max_iter=5, random_state=0, n_partitions=2).fit(X)
    jll = np.tile(model.cluster_log_prior_, (len(X), 1))
    for j, at in enumerate(model.schema_.attributes):
        position = {v: i for i, v in enumerate(at.categories)}
        jll += model.feature_log_prob_[j][[position[v] for v in X[at.name]]]
    log_resp = jll - logsumexp(jll, axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(X), np.exp(log_resp), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), np.argmax(jll, axis=1))


# ------------------------------------------------------------------ the kernels' boundary


def test_kernels_refuse_codes_outside_the_table_without_reading_them():
    table = np.zeros((7, 2))
    offsets = np.array([0, 3, 7])
    codes = np.array([[1, 2], [3, 0]], dtype=np.uint8)  # 3 >= the first attribute's 3 rows
    none = np.empty((2, 0), dtype=np.uint8)
    for call in (lambda: score_rows(codes, none, table, offsets, np.zeros(2), mode=JOINT),
                 lambda: best_of_rows(codes[:, :1], codes[:, 1:], table, offsets, np.zeros(2), [0, 1]),
                 lambda: evaluate_rows(codes, none, table, offsets, np.zeros(2), [0, 1], np.array([0, 1]))):
        with pytest.raises(ValueError, match="outside"):
            call()


# ------------------------------------------------------------------ many classes, many blocks of rows


def reference_sums(jll, truth, n_classes):
    """Evaluation sums from joint log-likelihoods in numpy: confusion (ties to the first class), sum of
    log P(y|x), clipped log loss, and the one-vs-rest ROC histograms binned by ``score_bin``."""
    from nbparallel.kernels.scoring import histogram_bits, n_score_bins, score_bin

    known = truth >= 0
    jll, truth = jll[known], truth[known]
    rows = np.arange(len(truth))
    log_post = jll - logsumexp(jll, axis=1, keepdims=True)
    confusion = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(confusion, (truth, np.argmax(jll, axis=1)), 1)
    eps = np.finfo(np.float64).eps
    loss = -np.log(np.clip(np.exp(log_post[rows, truth]), eps, 1 - eps)).sum()
    top = jll.max(axis=1, keepdims=True)
    odds = np.where(jll == top, 1.0, np.exp(jll - top))
    total = np.zeros(len(truth))
    for k in range(n_classes):  # in class order, as the kernel adds them
        total = total + odds[:, k]
    ratio = odds / (total[:, None] - odds)
    largest = np.argmax(jll, axis=1)
    rest = np.zeros(len(truth))
    for k in range(n_classes):
        rest = rest + np.where(largest == k, 0.0, odds[:, k])
    ratio[rows, largest] = odds[rows, largest] / rest
    bits = histogram_bits(n_classes)
    histogram = np.zeros((n_classes, 2, n_score_bins(bits)))
    for i in rows:
        for k in range(n_classes):
            histogram[k, 0 if truth[i] == k else 1, score_bin(ratio[i, k], bits)] += 1
    return confusion, log_post[rows, truth].sum(), loss, histogram


@pytest.mark.parametrize("n_classes", [3, 20])
def test_many_classes_over_several_blocks_equal_numpy_references(n_classes):
    from nbparallel.kernels.scoring import LOG_POSTERIOR, POSTERIOR, block_rows

    n = 2 * block_rows(n_classes) + 17  # blocks of rows: two full ones and a part
    sizes = np.array([4, 3, 5, 2])
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    table = np.log(RNG.dirichlet(np.ones(offsets[-1]), size=n_classes).T)
    table[offsets[:-1]] = 0.0  # missing codes
    prior = np.log(RNG.dirichlet(np.ones(n_classes)))
    codes = np.stack([RNG.integers(0, s, n) for s in sizes], axis=1)
    first, second = codes[:, :3].astype(np.uint8), codes[:, 3:].astype(np.uint16)
    extra = RNG.normal(size=(n, n_classes))
    jll = prior + sum(table[offsets[a] + codes[:, a]] for a in range(4)) + extra
    log_post = jll - logsumexp(jll, axis=1, keepdims=True)
    for mode, want in ((JOINT, jll), (LOG_POSTERIOR, log_post), (POSTERIOR, np.exp(log_post))):
        got = score_rows(first, second, table, offsets, prior, extra=extra, mode=mode)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(best_of_rows(first, second, table, offsets, prior, np.arange(n_classes),
                                               extra=extra), np.argmax(jll, axis=1))
    truth = RNG.integers(-1, n_classes, n)  # -1: an unknown class, left out
    confusion, log_likelihood, log_loss, histogram = evaluate_rows(first, second, table, offsets, prior,
                                                                   np.arange(n_classes), truth, extra=extra)
    want = reference_sums(jll, truth, n_classes)
    np.testing.assert_array_equal(confusion, want[0])
    np.testing.assert_allclose([log_likelihood, log_loss], want[1:3], rtol=1e-12)
    np.testing.assert_array_equal(histogram, want[3])

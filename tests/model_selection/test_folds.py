"""Shuffled, stratified and repeated folds made inside the counting pass, against scikit-learn's
KFold / StratifiedKFold semantics, and the same for any partitioning and input form (files included)."""

import itertools
import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import KFold, PredefinedSplit, StratifiedKFold, cross_val_score
from sklearn.naive_bayes import MultinomialNB

from nbparallel import MultinomialNaiveBayes, NaiveBayes, cross_validate
from nbparallel.data.partitions import PartitionInfo
from nbparallel.model_selection.folds import Folds, class_count_matrix, permute, tally_classes


def frame(n=301, seed=0):
    """Categorical data whose classes appear in an unsorted order and with unequal frequencies."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({c: pd.Series(rng.choice(list("abcd"), n), dtype=object) for c in "pqr"})
    y = np.where(rng.random(n) < 0.15, "zeta", np.where(X.p.isin(["a", "b"]), "mu", "alpha")).astype(object)
    return X, y


def global_folds(folds_of, y, bounds):
    """Folds of every row when the rows are cut into partitions at ``bounds``."""
    return np.concatenate([folds_of(PartitionInfo(p, a), y[a:b]) for p, (a, b) in enumerate(itertools.pairwise(bounds))])


def stratified_folds(y, k, seed, bounds):
    """Folds.stratified as cross_validate builds it: per-partition class tallies in partition order."""
    classes = np.unique(y)
    codes = np.searchsorted(classes, y)
    tallies = [tally_classes(codes[a:b]) for a, b in itertools.pairwise(bounds)]
    counts, order = class_count_matrix(tallies, lambda v: v, len(classes))
    folds = Folds.stratified(counts, k, seed, order=order)
    return global_folds(lambda info, part: folds.of(info, len(part), np.searchsorted(classes, part)), y, bounds)


def sklearn_test_folds(splitter, y):
    out = np.full(len(y), -1)
    for i, (_, test) in enumerate(splitter.split(np.zeros(len(y)), y)):
        out[test] = i
    return out


@pytest.mark.parametrize("n", [1, 2, 7, 64, 1000, 4097])
def test_permutation_is_a_bijection_and_moves_with_the_seed(n):
    perms = [permute(np.arange(n), n, seed) for seed in (0, 1)]
    for p in perms:
        assert sorted(p.tolist()) == list(range(n))
    if n >= 64:
        assert not np.array_equal(perms[0], perms[1])
        assert not np.array_equal(perms[0], np.arange(n))
    # each index alone: pieces give the same values
    np.testing.assert_array_equal(np.concatenate([permute(np.arange(a, min(a + 5, n)), n, 0)
                                                  for a in range(0, n, 5)]), perms[0])


@pytest.mark.parametrize("n, k", [(10, 3), (301, 10), (57, 5)])
def test_shuffled_folds_have_kfold_sizes_for_any_partitioning(n, k):
    y = np.zeros(n)
    reference_sizes = [len(test) for _, test in KFold(k).split(y)]
    folds = Folds.shuffled(n, k, seed=5)
    whole = global_folds(lambda info, part: folds.of(info, len(part)), y, [0, n])
    assert np.bincount(whole, minlength=k).tolist() == reference_sizes
    assert not np.array_equal(whole, np.sort(whole))  # shuffled
    for bounds in ([0, 3, 4, n], np.linspace(0, n, 6).astype(int)):
        np.testing.assert_array_equal(global_folds(lambda info, part: folds.of(info, len(part)), y, bounds), whole)
    other = global_folds(lambda info, part: Folds.shuffled(n, k, seed=6).of(info, len(part)), y, [0, n])
    assert not np.array_equal(other, whole)


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_unshuffled_stratified_folds_are_stratified_kfold(k):
    _, y = frame()
    expected = sklearn_test_folds(StratifiedKFold(k), y)
    for bounds in ([0, len(y)], [0, 1, 100, 101, 250, len(y)]):
        np.testing.assert_array_equal(stratified_folds(y, k, None, bounds), expected)


@pytest.mark.parametrize("k", [3, 10])
def test_shuffled_stratified_folds_balance_classes_within_one_row(k):
    _, y = frame(n=503, seed=3)
    folds = stratified_folds(y, k, 11, [0, len(y)])
    assert np.array_equal(folds, stratified_folds(y, k, 11, [0, 40, 41, 300, len(y)]))  # any partitioning
    assert not np.array_equal(folds, stratified_folds(y, k, None, [0, len(y)]))
    sizes = np.bincount(folds, minlength=k)
    assert sizes.max() - sizes.min() <= 1 and sizes.sum() == len(y)
    np.testing.assert_array_equal(np.sort(sizes), np.sort(np.bincount(sklearn_test_folds(StratifiedKFold(k), y))))
    for c in np.unique(y):
        per_fold = np.bincount(folds[y == c], minlength=k)
        assert per_fold.max() - per_fold.min() <= 1


def test_cross_validate_stratified_equals_separate_fits_and_any_partitioning(tmp_path):
    X, y = frame()
    k = 5
    expected = cross_val_score(NaiveBayes(), X, y, cv=StratifiedKFold(k))
    for n_partitions in (1, 4):
        result = cross_validate(NaiveBayes(n_partitions=n_partitions), X, y, cv=k, stratify=True)
        np.testing.assert_array_equal(result["test_accuracy"], expected)
        # class ranks need every partition's classes first: fit's pass, then the fold tables from its codes
        assert [p["kind"] for p in result["passes"]] == ["count", "folds", "score"]
    # files and Dask frames: the same folds (the rows' global order is the same)
    data = X.assign(t=y)
    paths = []
    for i, (a, b) in enumerate([(0, 90), (90, 91), (91, len(y))]):
        paths.append(tmp_path / f"part{i}.csv")
        data.iloc[a:b].to_csv(paths[-1], index=False)
    on_files = cross_validate(NaiveBayes(), str(tmp_path), "t", cv=k, stratify=True)
    on_dask = cross_validate(NaiveBayes(), dd.from_pandas(data, npartitions=3), "t", cv=k, stratify=True)
    for result in (on_files, on_dask):
        np.testing.assert_array_equal(result["test_accuracy"], expected)


def test_shuffled_repeats_are_repeated_kfold_in_two_passes():
    X, y = frame()
    k, repeats = 4, 3
    result = cross_validate(NaiveBayes(n_partitions=3), X, y, cv=k, shuffle=True, n_repeats=repeats,
                            random_state=7)
    assert [p["kind"] for p in result["passes"]] == ["count", "score"]
    assert len(result["test_accuracy"]) == k * repeats
    assert result["repeat"].tolist() == np.repeat(np.arange(repeats), k).tolist()
    assert result["folds"] == {"n_splits": k, "n_repeats": repeats, "shuffle": True, "stratify": False,
                               "random_state": 7}
    sizes = [len(t) for _, t in KFold(k).split(y)]
    for r in range(repeats):
        assert sorted(result["n_test_rows"][r * k:(r + 1) * k].tolist()) == sorted(sizes)
    # each repeat's scores are those of separate fits on that repeat's folds
    for r in range(repeats):
        folds = Folds.shuffled(len(y), k, 7, r).of(0, len(y))
        expected = cross_val_score(NaiveBayes(), X, y, cv=PredefinedSplit(folds))
        np.testing.assert_array_equal(result["test_accuracy"][r * k:(r + 1) * k], expected)
    again = cross_validate(NaiveBayes(n_partitions=1), X, y, cv=k, shuffle=True, n_repeats=repeats, random_state=7)
    np.testing.assert_array_equal(again["confusion_matrices"], result["confusion_matrices"])
    drawn = cross_validate(NaiveBayes(), X, y, cv=k, shuffle=True)
    assert isinstance(drawn["folds"]["random_state"], int)


def test_text_model_stratified_folds_equal_stratified_kfold():
    rng = np.random.default_rng(0)
    y = rng.choice(["b", "a", "c"], 200, p=[0.5, 0.3, 0.2])
    X = rng.poisson(np.where(y[:, None] == "a", 2.0, 1.0), (200, 12))
    result = cross_validate(MultinomialNaiveBayes(alpha=1.0, n_partitions=3), X, y, cv=4, stratify=True)
    np.testing.assert_array_equal(result["test_accuracy"],
                                  cross_val_score(MultinomialNB(alpha=1.0), X, y, cv=StratifiedKFold(4)))


def test_warns_naming_fold_and_classes_a_training_fold_lacks():
    X, y = load_breast_cancer(return_X_y=True)
    order = np.argsort(y, kind="stable")  # sorted by class, as many UCI files are
    with pytest.warns(UserWarning, match=r"fold 0: its test rows hold classes \[0\]"):
        cross_validate(NaiveBayes(), X[order], y[order], cv=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = cross_validate(NaiveBayes(), X[order], y[order], cv=2, stratify=True)
    assert result["test_accuracy"].min() > 0.85


@pytest.mark.parametrize("kwargs, error, match", [
    ({"n_repeats": 2}, ValueError, "n_repeats=2 needs shuffle=True"),
    ({"n_repeats": 0, "shuffle": True}, ValueError, "n_repeats must be an int >= 1"),
    ({"shuffle": "yes"}, TypeError, "shuffle must be True or False"),
    ({"stratify": 1}, TypeError, "stratify must be True or False"),
    ({"random_state": -1, "shuffle": True}, ValueError, "random_state must be None or an int >= 0"),
    ({"cv": KFold(3), "shuffle": True}, ValueError, "set them on the splitter"),
])
def test_bad_fold_options_name_the_parameter(kwargs, error, match):
    X, y = frame(n=40)
    kwargs = {"cv": 3, **kwargs}
    with pytest.raises(error, match=match):
        cross_validate(NaiveBayes(), X, y, **kwargs)


@pytest.mark.parametrize("binary", [True, False])
def test_log_loss_and_roc_auc_per_fold_equal_separate_fits(binary):
    from sklearn.metrics import log_loss, roc_auc_score

    X, y = frame(n=400, seed=2)
    if binary:
        y = np.where(y == "mu", "mu", "other").astype(object)
    k = 4
    result = cross_validate(NaiveBayes(n_partitions=3), X, y, cv=k, shuffle=True, stratify=True, random_state=1)
    folds = stratified_folds(np.asarray(y), k, 1, [0, len(y)])
    for i in range(k):
        train, test = folds != i, folds == i
        model = NaiveBayes().fit(X[train], y[train])
        proba = model.predict_proba(X[test])
        assert result["test_log_loss"][i] == pytest.approx(log_loss(y[test], proba, labels=model.classes_), rel=1e-12)
        exact = (roc_auc_score(y[test] == model.classes_[1], proba[:, 1]) if binary
                 else roc_auc_score(y[test], proba, multi_class="ovr", labels=model.classes_))
        assert abs(result["test_roc_auc"][i] - exact) <= result["test_roc_auc_error_bound"][i] + 1e-12


# ------------------------------------------------------------ the compiled fold loops against numpy


def numpy_feistel(index, n, seed, stream):
    """The keyed Feistel permutation with cycle walking in plain numpy uint64 arithmetic: four rounds, keys
    from splitmix64's finaliser of (seed, stream, round)."""
    m1, m2, golden = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), 0x9E3779B97F4A7C15
    base = (seed * golden + stream * 0xD1B54A32D192ED03) % 2**64
    keys = np.array([(base + r * golden) % 2**64 for r in range(4)], dtype=np.uint64)
    with np.errstate(over="ignore"):
        keys ^= keys >> np.uint64(30)
        keys *= m1
        keys ^= keys >> np.uint64(27)
        keys *= m2
        keys ^= keys >> np.uint64(31)
    index = np.asarray(index, dtype=np.uint64)
    half = max(1, (int(n - 1).bit_length() + 1) // 2)
    mask, shift = np.uint64((1 << half) - 1), np.uint64(half)

    def rounds(x):
        left, right = x >> shift, x & mask
        for key in keys:
            f = right ^ key
            f *= m1
            f ^= f >> np.uint64(29)
            f *= m2
            f ^= f >> np.uint64(32)
            f &= mask
            f ^= left
            left, right = right, f
        return (left << shift) | right

    with np.errstate(over="ignore"):
        out = rounds(index)
        outside = np.flatnonzero(out >= np.uint64(n))
        while len(outside):
            out[outside] = rounds(out[outside])
            outside = outside[out[outside] >= np.uint64(n)]
    return out.astype(np.int64)


@pytest.mark.parametrize("n", [2, 3, 1000, 65_537, 10**6, 2**40 + 3])
def test_compiled_permutation_equals_the_numpy_feistel_network(n):
    rng = np.random.default_rng(n % 1000)
    index = rng.integers(0, min(n, 10**6), 5000)
    for seed, stream in ((0, 0), (12345, 3)):
        np.testing.assert_array_equal(permute(index, n, seed, stream), numpy_feistel(index, n, seed, stream))


@pytest.mark.parametrize("shuffle", [False, True])
def test_fold_of_rows_and_class_fold_codes_equal_their_definitions(shuffle):
    """Each row's fold is the KFold block of its (permuted) global index; its code is class + K * fold, -1 for
    a missing class."""
    from nbparallel.model_selection.folds import block_bounds

    n, k, n_classes = 1003, 7, 4
    folds = Folds.shuffled(n, k, 9) if shuffle else Folds.blocks(n, k)
    classes = np.random.default_rng(0).integers(-1, n_classes, 400)
    info = PartitionInfo(2, 350)
    index = np.arange(350, 750)
    position = numpy_feistel(index, n, 9, 0) if shuffle else index
    fold = np.searchsorted(block_bounds(n, k), position, side="right") - 1
    np.testing.assert_array_equal(folds.of(info, 400, classes), fold)
    np.testing.assert_array_equal(folds.labels_of(classes, n_classes, info),
                                  np.where(classes < 0, -1, classes + n_classes * fold))
    # a later repeat's folds numbered after the earlier repeats': first + fold
    from nbparallel.kernels.folds import class_fold_codes

    np.testing.assert_array_equal(class_fold_codes(classes, fold, n_classes, 3 * k),
                                  np.where(classes < 0, -1, classes + n_classes * (3 * k + fold)))
    assert folds.is_contiguous is not shuffle
    if not shuffle:  # contiguous folds: a run of rows per fold, as each row's fold says
        runs = folds.segments(info, 400)
        assert all(isinstance(rows, slice) for _, rows in runs)
        np.testing.assert_array_equal(np.concatenate([np.full(rows.stop - rows.start, i) for i, rows in runs]), fold)

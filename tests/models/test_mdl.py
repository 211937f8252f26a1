"""Supervised MDL discretisation, ``NaiveBayes(n_bins="mdl")``: Fayyad and Irani's cuts against a plain reference
on raw sorted values, the MDL test by hand, exact interval counts, partition invariance, model files, the CLI."""

import json
import math

import numpy as np
import pandas as pd
import pytest

import nbparallel
from nbparallel import NaiveBayes
from nbparallel.cli import main
from nbparallel.models.discretisation import FINE_BINS, mdl_accepts, mdl_cuts
from nbparallel.persistence.model_files import digest

# ---------------------------------------------------------------- an independent reference


def reference_entropy(counts):
    """Class entropy in bits, by the definition."""
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c > 0) if n else 0.0


def reference_cut_points(values, labels, n_classes):
    """Weka's Discretize (Fayyad-Irani MDL, defaults) on raw values: the cut points, the midpoints between
    adjacent distinct values, written from the paper's definitions over the sorted rows one by one."""
    keep = ~np.isnan(values)
    order = np.argsort(values[keep], kind="stable")
    v, c = values[keep][order].tolist(), labels[keep][order].tolist()
    cuts = []

    def split(first, stop):
        n = stop - first
        if n < 2:
            return
        prior = [0] * n_classes
        for i in range(first, stop):
            prior[c[i]] += 1
        left, right, candidates = [0] * n_classes, list(prior), []
        for i in range(first, stop - 1):
            left[c[i]] += 1
            right[c[i]] -= 1
            if v[i] < v[i + 1]:  # a cut between two distinct values
                entropy = (sum(left) * reference_entropy(left) + sum(right) * reference_entropy(right)) / n
                candidates.append((entropy, i, list(left), list(right)))
        if not candidates:
            return
        least = min(e for e, *_ in candidates)
        entropy, i, best_left, best_right = next(cand for cand in candidates if cand[0] <= least + 1e-12)
        h = reference_entropy(prior)
        gain = h - entropy
        k, k1, k2 = (sum(1 for x in counts if x > 0) for counts in (prior, best_left, best_right))
        delta = math.log2(3**k - 2) - (k * h - k1 * reference_entropy(best_left) - k2 * reference_entropy(best_right))
        if gain <= 0 or not gain > (math.log2(n - 1) + delta) / n:
            return
        cuts.append((v[i] + v[i + 1]) / 2)
        split(first, i + 1)
        split(i + 1, stop)

    split(0, len(v))
    return np.array(sorted(cuts))


def lattice_data(seed, n_rows=400):
    """Three attributes on a lattice of step 0.25 (at most 160 distinct values, so each of the 4096 fine bins
    holds at most one): one telling the class in three ranges, one weakly, one noise; some values missing."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 160, n_rows) * 0.25
    b = rng.integers(0, 120, n_rows) * 0.25
    noise = rng.integers(0, 100, n_rows) * 0.25
    y = np.digitize(a, [12.0, 27.5]) + 0  # classes 0, 1, 2 by range of a
    flip = rng.random(n_rows) < 0.25
    y = np.where(flip, rng.integers(0, 3, n_rows), y)
    y = np.where((b > 20) & (rng.random(n_rows) < 0.5), 2, y)
    a[rng.random(n_rows) < 0.05] = np.nan
    return pd.DataFrame({"a": a, "b": b, "noise": noise}), y


# ---------------------------------------------------------------- the algorithm


def test_mdl_test_by_hand():
    # Two classes 4 and 4 (H = 1 bit), cut into pure halves: gain 1, delta = log2(3^2 - 2) - (2*1 - 0 - 0)
    # = log2(7) - 2, threshold (log2(8 - 1) + delta) / 8 = (2 log2(7) - 2) / 8 = 0.4518: accepted.
    assert mdl_accepts(np.array([4.0, 4.0]), np.array([4.0, 0.0]), np.array([0.0, 4.0]))
    # Cut into (3, 1) and (1, 3): each side H = 0.8113, gain 1 - 0.8113 = 0.1887; delta = log2(7) - (2 -
    # 2*0.8113 - 2*0.8113) = 4.052, threshold (log2(7) + 4.052) / 8 = 0.857: refused.
    assert not mdl_accepts(np.array([4.0, 4.0]), np.array([3.0, 1.0]), np.array([1.0, 3.0]))
    h = -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    assert 1 - h < (math.log2(7) + math.log2(7) - (2 - 4 * h)) / 8
    # No gain (the same class mix on both sides): refused whatever N.
    assert not mdl_accepts(np.array([50.0, 50.0]), np.array([25.0, 25.0]), np.array([25.0, 25.0]))


def test_cuts_of_a_histogram_recurse():
    # Three pure runs of 10 cases: cut after row 1 (least entropy, as the first of ties) and then after row 3.
    cells = np.array([[5, 0, 0], [5, 0, 0], [0, 5, 0], [0, 5, 0], [0, 0, 5], [0, 0, 5]], dtype=float)
    assert mdl_cuts(cells).tolist() == [1, 3]
    assert mdl_cuts(cells[:1]).tolist() == []
    assert mdl_cuts(np.array([[5.0, 5.0], [5.0, 5.0]])).tolist() == []


@pytest.mark.parametrize("seed", range(4))
def test_cuts_equal_the_reference_on_raw_values(seed):
    X, y = lattice_data(seed)
    model = NaiveBayes(n_bins="mdl").fit(X, y)
    n_cuts = 0
    for column in X.columns:
        values = X[column].to_numpy()
        reference = reference_cut_points(values, y, 3)
        distinct = np.unique(values[~np.isnan(values)])
        ours = model.bin_edges_[column]
        assert len(ours) == len(reference), column
        np.testing.assert_array_equal(np.searchsorted(ours, distinct), np.searchsorted(reference, distinct))
        n_cuts += len(ours)
    assert len(model.bin_edges_["a"]) >= 2 and n_cuts >= 3  # the recursion is exercised


def test_interval_counts_are_the_counts_of_the_raw_values():
    X, y = lattice_data(7)
    w = np.random.default_rng(1).integers(1, 4, len(y)).astype(float)
    model = NaiveBayes(n_bins="mdl").fit(X, y, sample_weight=w)
    for at, fit in zip(model.schema_.counted().attributes, model.counted_fits_):
        values = X[at.name].to_numpy()
        known = ~np.isnan(values)
        expected = np.zeros((len(fit.edges) + 1, 3))
        np.add.at(expected, (np.searchsorted(fit.edges, values[known], side="left"), y[known]), w[known])
        np.testing.assert_array_equal(fit.counts, expected)


def test_an_attribute_with_no_cut_is_one_ignored_interval():
    X, y = lattice_data(0)
    model = NaiveBayes(n_bins="mdl").fit(X, y)
    assert len(model.bin_edges_["noise"]) == 0
    assert model.ignored_attributes_ == ["noise"]
    assert model.ignored_reasons()["noise"].startswith("no MDL cut")
    assert not np.any(model.feature_log_prob_[2])
    constant = NaiveBayes(n_bins="mdl").fit(X.assign(noise=1.5), y)
    assert constant.ignored_reasons()["noise"].startswith("constant")


# ---------------------------------------------------------------- the model, wherever it is counted


def test_the_same_model_for_any_partitioning_and_merge_order():
    X, y = lattice_data(3, n_rows=3000)
    models = [NaiveBayes(n_bins="mdl", n_partitions=p, split_every=s).fit(X, y)
              for p, s in ((1, 2), (4, 2), (9, 3), (7, False))]
    first = models[0]
    for model in models[1:]:
        np.testing.assert_array_equal(model.counts_.table, first.counts_.table)
        assert model.bin_edges_.keys() == first.bin_edges_.keys()
        for column in first.bin_edges_:
            np.testing.assert_array_equal(model.bin_edges_[column], first.bin_edges_[column])
        np.testing.assert_array_equal(model.predict_proba(X), first.predict_proba(X))


def test_partial_fit_on_pieces_equals_fit():
    X, y = lattice_data(5, n_rows=1200)
    ranges = {c: (float(X[c].min()), float(X[c].max())) for c in X.columns}
    whole = NaiveBayes(n_bins="mdl", numeric_ranges=ranges).fit(X, y)
    pieces = NaiveBayes(n_bins="mdl", numeric_ranges=ranges)
    for rows in np.array_split(np.arange(len(y)), 3):
        pieces.partial_fit(X.iloc[rows], y[rows], classes=[0, 1, 2])
    for column in X.columns:
        np.testing.assert_array_equal(pieces.bin_edges_[column], whole.bin_edges_[column])
    np.testing.assert_array_equal(pieces.predict_proba(X), whole.predict_proba(X))


def test_integers_counted_by_value_in_one_pass_equal_two_passes():
    X, y = lattice_data(2)
    integers = (X.fillna(0) * 4).astype(np.int64)
    one_pass = NaiveBayes(n_bins="mdl").fit(integers, y)
    two_passes = NaiveBayes(n_bins="mdl").fit(integers, y, sample_weight=np.ones(len(y)))
    assert [p["kind"] for p in one_pass.passes_] == ["count"]
    np.testing.assert_array_equal(one_pass.counts_.table, two_passes.counts_.table)
    np.testing.assert_array_equal(one_pass.predict_proba(integers), two_passes.predict_proba(integers))


def test_with_gaussian_and_categorical_columns():
    X, y = lattice_data(4)
    X = X.assign(colour=np.where(y == 1, "red", "blue"))
    model = NaiveBayes(n_bins="mdl", numeric={"b": "gaussian"}).fit(X, y)
    assert model.gaussian_features_ == ["b"] and set(model.bin_edges_) == {"a", "noise"}
    gaussian_alone = NaiveBayes(numeric={"b": "gaussian"}).fit(X, y)
    np.testing.assert_array_equal(model.theta_, gaussian_alone.theta_)
    assert model.score(X, y) > 0.5


def test_parameter_is_checked():
    X, y = lattice_data(0)
    with pytest.raises(ValueError, match="n_bins"):
        NaiveBayes(n_bins="MDL").fit(X, y)


# ---------------------------------------------------------------- files and the command line


def test_save_and_load_give_the_same_predictions(tmp_path):
    X, y = lattice_data(1)
    model = NaiveBayes(n_bins="mdl").fit(X, y)
    model.save(tmp_path / "m.json")
    loaded = nbparallel.load(tmp_path / "m.json")
    assert loaded.n_bins == "mdl"
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    for column in X.columns:
        np.testing.assert_array_equal(loaded.bin_edges_[column], model.bin_edges_[column])
    assert loaded.ignored_reasons() == model.ignored_reasons()


def _rewrite(path, change):
    data = json.loads(path.read_text())
    change(data)
    data["sha256"] = digest(data)
    path.write_text(json.dumps(data))


def test_bad_files_are_refused(tmp_path):
    X, y = lattice_data(1)
    NaiveBayes(n_bins="mdl").fit(X, y).save(tmp_path / "m.json")
    _rewrite(tmp_path / "m.json", lambda d: d["params"].update(n_bins="entropy"))
    with pytest.raises(ValueError, match="n_bins"):
        nbparallel.load(tmp_path / "m.json")
    NaiveBayes(n_bins=10).fit(X, y).save(tmp_path / "coarse.json")  # a 10-bin model claiming MDL
    _rewrite(tmp_path / "coarse.json", lambda d: d["params"].update(n_bins="mdl"))
    with pytest.raises(ValueError, match=f"has 10 bins, but a model with n_bins='mdl' counts {FINE_BINS}"):
        nbparallel.load(tmp_path / "coarse.json")


def test_cli_fit_with_mdl_bins(tmp_path, capsys):
    X, y = lattice_data(6)
    frame = X.assign(cls=y)
    frame.to_csv(tmp_path / "train.csv", index=False)
    assert main(["fit", str(tmp_path / "train.csv"), "--target", "cls", "--bins", "mdl", "-o",
                 str(tmp_path / "m.json"), "--quiet"]) == 0
    model = nbparallel.load(tmp_path / "m.json")
    reference = NaiveBayes(n_bins="mdl").fit(frame, "cls")
    assert model.n_bins == "mdl"
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", str(tmp_path / "train.csv"), "--target", "cls", "--bins", "mdl2", "-o",
              str(tmp_path / "bad.json")])
    assert exit_info.value.code == 2
    assert "--bins: must be an int >= 2 or 'mdl', got 'mdl2'" in capsys.readouterr().err
    assert not (tmp_path / "bad.json").exists()


def test_cross_validation_finds_each_folds_cuts_from_its_training_counts():
    """One-pass CV (total minus fold counts) equals separate fits per fold: each fold's MDL cuts come from its
    own training rows. The ranges are fixed so that every fit counts on the same fine grid."""
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    from nbparallel.model_selection.cross_validation import cross_validate

    X, y = lattice_data(8, n_rows=600)
    ranges = {c: (float(np.nanmin(X[c])), float(np.nanmax(X[c]))) for c in X}
    model = NaiveBayes(n_bins="mdl", numeric_ranges=ranges, alpha=1.0, n_partitions=3)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    result = cross_validate(model, X, y, cv=cv)
    np.testing.assert_array_equal(result["test_accuracy"], cross_val_score(model, X, y, cv=cv))
    np.testing.assert_allclose(result["test_log_likelihood"],
                               cross_val_score(model, X, y, cv=cv, scoring="neg_log_loss"), rtol=1e-9)

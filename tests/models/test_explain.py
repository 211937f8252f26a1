"""model.explain: per-attribute evidence that sums to the log-odds, against references made from
predict_log_proba and predict_joint_log_proba, over the input forms predict takes."""

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import nbparallel as nb
from nbparallel.kernels import evidence as evidence_kernel
from nbparallel.models.explanation import CLASS, LOG_ODDS, PRIOR, VERSUS


def _data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n)
    shift = pd.Series(y).map({"a": 0.0, "b": 1.0, "c": 2.0}).to_numpy()
    frame = pd.DataFrame({
        "x1": rng.normal(shift, 1.0),
        "color": np.where(rng.random(n) < 0.7, np.array(["red", "green", "blue"])[(shift.astype(int))], "red"),
        "x2": rng.normal(-shift, 2.0),
        "target": y,
    })
    frame.loc[::17, "x1"] = np.nan
    frame.loc[::23, "color"] = None
    return frame


def _cells(evidence):
    """The attributes' terms and ``(prior)`` of an explain frame: what sums to its log-odds."""
    return evidence.drop(columns=[CLASS, VERSUS, LOG_ODDS])


def _sums(evidence):
    """Each row's sum of :func:`_cells`."""
    return _cells(evidence).sum(axis=1).to_numpy()


def _log_odds(log_proba, c, other):
    rows = np.arange(len(log_proba))
    return log_proba[rows, c] - log_proba[rows, other]


def _default_pair(log_proba):
    ranked = np.argsort(-log_proba, axis=1, kind="stable")
    return ranked[:, 0], ranked[:, 1]


@pytest.mark.parametrize("numeric", ["binned", "gaussian"])
def test_rows_sum_to_the_log_odds_and_cells_are_each_attributes_likelihood_ratio(numeric):
    frame = _data()
    model = nb.NaiveBayes(numeric=numeric).fit(frame, "target")
    evidence = model.explain(frame)
    assert evidence.columns.tolist() == [CLASS, VERSUS, "x1", "color", "x2", PRIOR, LOG_ODDS]
    log_proba = model.predict_log_proba(frame)
    c, other = _default_pair(log_proba)
    assert np.abs(_sums(evidence) - _log_odds(log_proba, c, other)).max() < 1e-9
    joint = model.predict_joint_log_proba(frame)
    for column in ["x1", "color", "x2"]:
        # log P(x_j | c) per class: what a row's joint log-likelihood loses when x_j is missing
        without = model.predict_joint_log_proba(frame.assign(**{column: None if column == "color" else np.nan}))
        ratio = joint - without
        np.testing.assert_allclose(evidence[column].to_numpy(), _log_odds(ratio, c, other), atol=1e-9)
    prior = model.class_log_prior_
    np.testing.assert_allclose(evidence[PRIOR].to_numpy(), prior[c] - prior[other], atol=1e-9)
    missing = frame["x1"].isna().to_numpy()
    assert missing.any() and np.all(evidence["x1"].to_numpy()[missing] == 0)


def test_for_class_and_against():
    frame = _data()
    model = nb.NaiveBayes().fit(frame, "target")
    log_proba = model.predict_log_proba(frame)
    evidence = model.explain(frame, for_class="c", against="a")
    n = len(frame)
    assert np.abs(_sums(evidence) - _log_odds(log_proba, np.full(n, 2), np.zeros(n, int))).max() < 1e-9
    best_other = model.explain(frame, for_class="b")
    masked = log_proba.copy()
    masked[:, 1] = -np.inf
    assert np.abs(_sums(best_other) - _log_odds(log_proba, np.full(n, 1), masked.argmax(1))).max() < 1e-9
    against_a = model.explain(frame, against="a")  # the best class other than "a", against "a"
    masked = log_proba.copy()
    masked[:, 0] = -np.inf
    expected = _log_odds(log_proba, masked.argmax(1), np.zeros(n, int))
    assert np.abs(_sums(against_a) - expected).max() < 1e-9
    assert (log_proba.argmax(1) == 0).any() and (_cells(against_a).abs().sum(axis=1) > 0).all()
    with pytest.raises(ValueError, match="for_class='z'"):
        model.explain(frame, for_class="z")
    with pytest.raises(ValueError, match="same class"):
        model.explain(frame, for_class="a", against="a")


def test_every_input_form_gives_the_same_evidence(tmp_path):
    frame = _data()
    model = nb.NaiveBayes(numeric="gaussian").fit(frame, "target")
    expected = model.explain(frame.drop(columns="target")).reset_index(drop=True)
    frame.to_csv(tmp_path / "data.csv", index=False)
    directory = tmp_path / "parts"
    directory.mkdir()
    for i, start in enumerate(range(0, len(frame), 80)):
        frame.iloc[start:start + 80].to_parquet(directory / f"part-{i}.parquet", index=False)
    forms = {
        "frame with target": frame,
        "dask": dd.from_pandas(frame, npartitions=3),
        "csv": str(tmp_path / "data.csv"),
        "parquet directory": str(directory),
    }
    for name, X in forms.items():
        got = model.explain(X).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, expected, check_exact=False, atol=1e-12, obj=name)


def test_numpy_input():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(200, 3))
    y = (X[:, 0] + rng.integers(0, 2, 200) > 2).astype(int)
    model = nb.NaiveBayes(categorical_features="all").fit(X, y)
    evidence = model.explain(X)
    assert evidence.shape == (200, 7)
    log_proba = model.predict_log_proba(X)
    assert np.abs(_sums(evidence) - _log_odds(log_proba, *_default_pair(log_proba))).max() < 1e-9


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_array_with_a_gaussian_column_and_missing_values(dtype):
    """A float array's Gaussian column is read in place (its position among the columns), NaN adds 0."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 300)
    X = np.column_stack([rng.normal(y, 1.0), rng.integers(0, 3, 300), rng.normal(-y, 2.0)]).astype(dtype)
    X[::7, 2] = np.nan
    model = nb.NaiveBayes(numeric={0: "binned", 2: "gaussian"}).fit(X, y)
    evidence = model.explain(X)
    log_proba = model.predict_log_proba(X)
    assert np.abs(_sums(evidence) - _log_odds(log_proba, *_default_pair(log_proba))).max() < 1e-9
    assert (evidence.iloc[::7, 4] == 0).all()
    theta, var = model.theta_, model.var_
    c, o = _default_pair(log_proba)
    x = X[:, 2].astype(np.float64)
    own = -0.5 * np.log(2 * np.pi * var[c, 0]) - 0.5 * (x - theta[c, 0]) ** 2 / var[c, 0]
    rival = -0.5 * np.log(2 * np.pi * var[o, 0]) - 0.5 * (x - theta[o, 0]) ** 2 / var[o, 0]
    known = ~np.isnan(x)
    assert np.allclose(evidence.iloc[:, 4].to_numpy()[known], (own - rival)[known], atol=1e-9)


def test_the_per_class_tables_give_the_class_pairs_tables_evidence(monkeypatch):
    """With many classes the kernel reads each class's table twice instead of one class-pair table."""
    frame = _data()
    model = nb.NaiveBayes(numeric={"x1": "gaussian", "x2": "binned"}).fit(frame, "target")
    paired = model.explain(frame)
    monkeypatch.setattr(evidence_kernel, "PAIR_CELLS", 0)
    assert evidence_kernel.class_pairs(np.zeros((4, 3))).shape[0] == 0
    pd.testing.assert_frame_equal(model.explain(frame), paired, check_exact=False, atol=1e-12)
    for_class = model.explain(frame, for_class="b")
    log_proba = model.predict_log_proba(frame)
    masked = log_proba.copy()
    masked[:, 1] = -np.inf
    n = len(frame)
    assert np.abs(_sums(for_class) - _log_odds(log_proba, np.full(n, 1), masked.argmax(1))).max() < 1e-9


def test_a_model_without_per_attribute_evidence_says_so():
    X = np.random.default_rng(2).integers(0, 5, size=(50, 6))
    y = np.arange(50) % 2
    with pytest.raises(TypeError, match="per-attribute evidence"):
        nb.BoostedNaiveBayes(n_rounds=2).fit(X, y).explain(X)


def test_cli_explain_writes_the_evidence(tmp_path):
    from nbparallel.cli.commands import main

    frame = _data()
    frame.to_csv(tmp_path / "data.csv", index=False)
    model_path, out = str(tmp_path / "m.json"), str(tmp_path / "evidence.csv")
    main(["fit", str(tmp_path / "data.csv"), "--target", "target", "-o", model_path, "--quiet"])
    main(["explain", model_path, str(tmp_path / "data.csv"), "-o", out, "--for-class", "b", "--quiet"])
    evidence = pd.read_csv(out)
    model = nb.load(model_path)
    log_proba = model.predict_log_proba(frame)
    masked = log_proba.copy()
    masked[:, 1] = -np.inf
    n = len(frame)
    assert evidence.columns.tolist() == [CLASS, VERSUS, "x1", "color", "x2", PRIOR, LOG_ODDS]
    assert np.abs(_sums(evidence) - _log_odds(log_proba, np.full(n, 1), masked.argmax(1))).max() < 1e-9


def _soybean_like(n=600, n_classes=19, seed=4):
    """Categorical rows of many classes (as UCI soybean's 19): each attribute's value follows the class."""
    rng = np.random.default_rng(seed)
    y = np.array([f"disease-{k:02d}" for k in range(n_classes)])[rng.integers(0, n_classes, n)]
    codes = pd.Series(y).str[-2:].astype(int).to_numpy()
    values = np.array(list("pqrst"))
    frame = pd.DataFrame({f"a{j}": values[np.where(rng.random(n) < 0.6, (codes * (j + 1)) % 5, rng.integers(0, 5, n))]
                          for j in range(6)})
    frame["class"] = y
    return frame


def _check_named_classes(evidence, model, X, for_class=None, against=None):
    """The classes named are the model's (the prediction and the runner-up by default) and the evidence sums
    to the stated log-odds, which is log(p_class / p_versus) of predict_proba."""
    proba = model.predict_proba(X)
    classes = list(model.classes_)
    c = evidence[CLASS].map(classes.index).to_numpy()
    v = evidence[VERSUS].map(classes.index).to_numpy()
    rows = np.arange(len(proba))
    ranked = np.argsort(-proba, axis=1, kind="stable")
    assert (c == (ranked[:, 0] if for_class is None else classes.index(for_class))).all()
    others = np.where(np.arange(len(classes)) == c[:, None], -1.0, proba)
    assert (v == (others.argmax(axis=1) if against is None else classes.index(against))).all()
    stated = evidence[LOG_ODDS].to_numpy()
    np.testing.assert_allclose(_sums(evidence), stated, atol=1e-9)
    np.testing.assert_allclose(stated, np.log(proba[rows, c] / proba[rows, v]), atol=1e-6)


def test_many_classes_each_row_names_its_two_classes_and_their_log_odds():
    frame = _soybean_like()
    model = nb.NaiveBayes().fit(frame, "class")
    assert len(model.classes_) == 19
    evidence = model.explain(frame)
    assert evidence.columns.tolist() == [CLASS, VERSUS, *[f"a{j}" for j in range(6)], PRIOR, LOG_ODDS]
    assert evidence[VERSUS].nunique() > 2 and (evidence[CLASS] == model.predict(frame)).all()
    _check_named_classes(evidence, model, frame)
    _check_named_classes(model.explain(frame, for_class="disease-03"), model, frame, for_class="disease-03")
    _check_named_classes(model.explain(frame, for_class="disease-03", against="disease-11"), model, frame,
                         "disease-03", "disease-11")


def test_iris_binned_names_its_classes():
    from sklearn.datasets import load_iris

    iris = load_iris(as_frame=True)
    X, y = iris.data, iris.target_names[iris.target]
    model = nb.NaiveBayes(numeric="binned").fit(X, y)
    evidence = model.explain(X)
    assert set(evidence[CLASS]) | set(evidence[VERSUS]) == {"setosa", "versicolor", "virginica"}
    _check_named_classes(evidence, model, X)


def test_cli_explain_names_the_classes_of_many(tmp_path):
    from nbparallel.cli.commands import main

    frame = _soybean_like()
    frame.to_csv(tmp_path / "data.csv", index=False)
    model_path, out = str(tmp_path / "m.json"), str(tmp_path / "evidence.csv")
    main(["fit", str(tmp_path / "data.csv"), "--target", "class", "-o", model_path, "--quiet"])
    main(["explain", model_path, str(tmp_path / "data.csv"), "-o", out, "--quiet"])
    evidence = pd.read_csv(out)
    model = nb.load(model_path)
    assert evidence.columns.tolist()[:2] == [CLASS, VERSUS] and evidence.columns[-1] == LOG_ODDS
    _check_named_classes(evidence, model, frame)

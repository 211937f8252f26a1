"""Bad model files, checkpoints, parameters and command lines: a clear error, a right answer, or a warning."""

import json
import os
import stat
import subprocess
import sys
import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, load_wine

import nbparallel
from nbparallel import AutoClass, BoostedNaiveBayes, NaiveBayes
from nbparallel.cli import main
from nbparallel.engine.reduce import fan_in
from nbparallel.persistence import model_files
from nbparallel.persistence.model_files import digest


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True, as_frame=True)


@pytest.fixture(scope="module")
def model_texts(wine, tmp_path_factory):
    """The saved text of each estimator, fitted on wine."""
    X, y = wine
    directory = tmp_path_factory.mktemp("models")
    texts = {}
    for model in (NaiveBayes(), BoostedNaiveBayes(n_rounds=2), AutoClass(n_clusters=2, n_restarts=2, max_iter=3,
                                                                        random_state=0)):
        path = directory / f"{type(model).__name__}.json"
        model.fit(X, y).save(path)
        texts[type(model).__name__] = path.read_text()
    return texts


def tampered(text, change):
    """The model file text after ``change(data)``, its digest recomputed (a deliberate edit, not damage)."""
    data = json.loads(text)
    change(data)
    try:
        data["sha256"] = digest(data)
    except ValueError:  # a non-finite number: written as a file without a digest, validated all the same
        del data["sha256"]
    return json.dumps(data)


def load_text(tmp_path, text):
    path = tmp_path / "model.json"
    path.write_text(text)
    return nbparallel.load(path)


# ----------------------------------------------------------------- model files


@pytest.mark.parametrize("name", ["NaiveBayes", "BoostedNaiveBayes", "AutoClass"])
def test_every_flipped_bit_of_a_value_is_detected(model_texts, tmp_path, name, wine):
    text = model_texts[name]
    original = load_text(tmp_path, text).predict_proba(wine[0])
    rng = np.random.default_rng(0)
    n_detected = 0
    for position in rng.choice(len(text), 25, replace=False):
        flipped = text[:position] + chr(ord(text[position]) ^ 1) + text[position + 1:]
        try:
            model = load_text(tmp_path, flipped)
        except ValueError as exc:
            assert "model.json" in str(exc)
            n_detected += 1
        else:  # the 17th digit of a float that parses to the same double: the model is unchanged
            assert json.loads(flipped) == json.loads(text)
            np.testing.assert_array_equal(model.predict_proba(wine[0]), original)
    assert n_detected >= 20


def test_files_without_a_digest_still_load_and_are_validated(model_texts, tmp_path, wine):
    data = json.loads(model_texts["NaiveBayes"])
    del data["sha256"]  # as written before the digest existed
    model = load_text(tmp_path, json.dumps(data))
    assert model.score(*wine) > 0.9
    data["fitted"]["counts"]["table"][1][0] = float("nan")
    with pytest.raises(ValueError, match="damaged NaiveBayes model file"):
        load_text(tmp_path, json.dumps(data).replace("NaN", "-1"))


def _set(path, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value(target[path[-1]]) if callable(value) else value
    return change


@pytest.mark.parametrize("name, change, message", [
    ("NaiveBayes", _set(["fitted", "counts", "table", 0, 0], -1.0), "finite numbers >= 0"),
    ("NaiveBayes", _set(["fitted", "counts", "table"], lambda t: t[:-1]), "shape"),
    ("NaiveBayes", _set(["fitted", "counts", "class_totals"], lambda t: t + [1.0]), "shape"),
    ("NaiveBayes", _set(["fitted", "schema", "classes"], lambda c: [c[0], c[0], c[2]]), "duplicate"),
    ("NaiveBayes", _set(["fitted", "schema", "columns"], lambda c: c[:-1] + ["other"]), "do not match"),
    ("NaiveBayes", _set(["fitted", "schema", "attributes", 0, "n_bins"], 10**9), "n_bins"),
    ("NaiveBayes", _set(["fitted", "schema", "attributes", 0, "lo"], 1e308), "lo"),
    ("NaiveBayes", _set(["fitted", "n_features_in"], 99), "n_features_in"),
    ("NaiveBayes", _set(["fitted", "reduction", "level_sizes"], [5, 7, 1]), "reduction"),
    ("NaiveBayes", _set(["params", "alpha"], 1e400), "alpha"),
    ("NaiveBayes", _set(["params", "n_bins"], "10"), "n_bins"),
    ("NaiveBayes", _set(["fitted", "extra"], 1), "unknown keys"),
    ("BoostedNaiveBayes", _set(["fitted", "rounds", 0, "alpha"], None), "alpha"),
    ("BoostedNaiveBayes", _set(["fitted", "rounds"], []), "non-empty"),
    ("AutoClass", _set(["fitted", "best_restart"], 7), "best_restart"),
    ("AutoClass", _set(["fitted", "counts", 0, 0], "x"), "numbers"),
    ("AutoClass", _set(["fitted", "restart_histories", 0], [1e999]), "restart_histories"),
    ("AutoClass", _set(["params", "n_clusters"], 10**12), "counts"),
])
def test_tampered_values_are_clear_errors(model_texts, tmp_path, name, change, message):
    text = tampered(model_texts[name], change).replace("Infinity", "1e999")
    with pytest.raises(ValueError, match=message):
        load_text(tmp_path, text)


@pytest.mark.parametrize("text, message", [
    ("[" * 100_000 + "]" * 100_000, "RecursionError"),
    ('{"format": "nbparallel-model", "format_version": 1e999}', "version"),
    ('{"format": "nbparallel-model", "format_version": true}', "version"),
    ("1" * 10_000, "not a valid"),
])
def test_pathological_json_never_escapes_as_another_exception(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        load_text(tmp_path, text)


def test_devices_and_oversized_files_are_refused_without_reading_them(tmp_path, monkeypatch):
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="not a regular file"):
        nbparallel.load(link)
    monkeypatch.setattr(model_files, "MAX_FILE_BYTES", 100)
    big = tmp_path / "big.json"
    big.write_text(" " * 101)
    with pytest.raises(ValueError, match="more than the limit of 100"):
        nbparallel.load(big)


def test_saved_files_follow_the_umask_and_a_killed_save_is_cleaned_up(tmp_path, wine):
    model = NaiveBayes().fit(*wine)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    stale = tmp_path / f".model.json.{dead}.abc123.tmp"  # left by a save that was killed
    stale.write_text("{")
    other = tmp_path / f".model.json.{os.getppid()}.xyz.tmp"  # a save in progress in a live process
    other.write_text("{")
    old = os.umask(0o027)
    try:
        model.save(tmp_path / "model.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "model.json").stat().st_mode) == 0o640
    assert not stale.exists() and other.exists()


def test_saving_over_a_symlink_replaces_the_link_not_its_target(tmp_path, wine):
    target = tmp_path / "elsewhere.json"
    target.write_text("keep me")
    link = tmp_path / "model.json"
    link.symlink_to(target)
    NaiveBayes().fit(*wine).save(link)
    assert not link.is_symlink() and target.read_text() == "keep me"
    assert nbparallel.load(link).score(*wine) > 0.9


def test_missing_output_directory_is_named(tmp_path, wine):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        NaiveBayes().fit(*wine).save(tmp_path / "nope" / "model.json")
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------- checkpoints


def test_damaged_or_tampered_checkpoints_start_afresh_with_a_warning(tmp_path, wine):
    X, y = wine
    path = tmp_path / "boost.json"
    reference = BoostedNaiveBayes(n_rounds=3).fit(X, y)
    BoostedNaiveBayes(n_rounds=2, checkpoint=path).fit(X, y)
    data = json.loads(path.read_text())
    for change in (_set(["state", "rounds", 0, "alpha"], float("nan")),
                   _set(["state", "rounds", 0, "counts", "offsets"], lambda o: o[:-1]),
                   _set(["state", "pending", "table", 0, 0], "x")):
        bad = json.loads(json.dumps(data))
        change(bad)
        bad["sha256"] = digest(bad) if "NaN" not in json.dumps(bad) else "0"
        path.write_text(json.dumps(bad))
        with pytest.warns(UserWarning, match="damaged nbparallel checkpoint.*starting afresh"):
            model = BoostedNaiveBayes(n_rounds=3, checkpoint=path).fit(X, y)
        assert model.resumed_rounds_ == 0
        np.testing.assert_array_equal(model.estimator_weights_, reference.estimator_weights_)
    path.write_text(path.read_text().replace('"stopped": false', '"stopped": 0'))
    with pytest.warns(UserWarning, match="digest"):
        BoostedNaiveBayes(n_rounds=3, checkpoint=path).fit(X, y)


def test_autoclass_checkpoint_is_validated(tmp_path, wine):
    X, _ = wine
    path = tmp_path / "em.json"
    AutoClass(n_restarts=2, max_iter=2, random_state=1, checkpoint=path).fit(X)
    data = json.loads(path.read_text())
    data["state"]["converged"] = [False]
    data["sha256"] = digest(data)
    path.write_text(json.dumps(data))
    with pytest.warns(UserWarning, match="converged"):
        model = AutoClass(n_restarts=2, max_iter=2, random_state=1, checkpoint=path).fit(X)
    assert model.resumed_iterations_ == 0


# ----------------------------------------------------------------- parameters and bounds


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


# ----------------------------------------------------------------- partial_fit ranges


def class_ordered_iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    order = np.argsort(y.to_numpy(), kind="stable")
    return X.iloc[order].reset_index(drop=True), y.iloc[order].reset_index(drop=True)


def test_partial_fit_warns_when_a_batch_leaves_the_first_batch_ranges():
    X, y = class_ordered_iris()
    model = NaiveBayes().partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    with pytest.warns(UserWarning, match="column 'petal length \\(cm\\)' has values in .* numeric_ranges"):
        model.partial_fit(X[50:100], y[50:100])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.partial_fit(X[:10], y[:10])  # inside the ranges: silent


def test_numeric_ranges_make_class_ordered_batches_equal_the_full_fit():
    X, y = class_ordered_iris()
    ranges = {c: (X[c].min(), X[c].max()) for c in X.columns}
    full = NaiveBayes().fit(X, y)
    model = NaiveBayes(numeric_ranges=ranges)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for start in range(0, 150, 50):
            model.partial_fit(X[start:start + 50], y[start:start + 50], classes=[0, 1, 2])
    assert model.counts_.equals(full.counts_)
    assert model.score(X, y) == full.score(X, y) > 0.9
    # the ranges also bound the bins of a single fit, counted as a plain counter would
    narrow = NaiveBayes(numeric_ranges={"sepal width (cm)": (2.0, 4.0)})
    with pytest.warns(UserWarning, match="sepal width"):
        narrow.fit(X, y)
    edges = 2.0 + 2.0 * np.arange(1, 10) / 10
    bins = np.searchsorted(edges, X["sepal width (cm)"].to_numpy(), side="left")
    a = [at.name for at in narrow.schema_.attributes].index("sepal width (cm)")
    expected = np.zeros((10, 3))
    np.add.at(expected, (bins, y.to_numpy()), 1)
    np.testing.assert_array_equal(narrow.counts_.attribute(a), expected)


@pytest.mark.parametrize("ranges, error", [
    ({"sepal width (cm)": (4.0, 2.0)}, ValueError), ({"sepal width (cm)": (0, np.inf)}, ValueError),
    ({"nope": (0, 1)}, ValueError), ([(0, 1)], TypeError),
])
def test_bad_numeric_ranges(ranges, error):
    with pytest.raises(error, match="numeric_ranges"):
        NaiveBayes(numeric_ranges=ranges).fit(*class_ordered_iris())


# ----------------------------------------------------------------- command line


@pytest.fixture(scope="module")
def iris_files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("cli")
    frame = load_iris(as_frame=True).frame
    frame.insert(0, "id", np.arange(len(frame)) + 1000)
    frame.to_csv(directory / "iris.csv", index=False)
    frame.drop(columns="id").to_csv(directory / "train.csv", index=False)
    assert main(["fit", str(directory / "train.csv"), "--target", "target", "-o", str(directory / "nb.json"),
                 "--quiet"]) == 0
    assert main(["cluster-fit", str(directory / "iris.csv"), "--clusters", "3", "--drop", "id", "target",
                 "--seed", "0", "-o", str(directory / "ac.json"), "--quiet"]) == 0
    return directory


def run_cli(*argv):
    return subprocess.run([sys.executable, "-m", "nbparallel.cli", *map(str, argv)], capture_output=True, text=True,
                          timeout=120)


def test_predict_keeps_ids_drops_the_target_and_writes_stdout_only(iris_files):
    d = iris_files
    done = run_cli("predict", d / "nb.json", d / "iris.csv", "-o", d / "p.csv", "--keep", "id")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"150 predictions written to {d / 'p.csv'}\n"  # no progress bar in stdout
    out = pd.read_csv(d / "p.csv")
    model = nbparallel.load(d / "nb.json")
    frame = pd.read_csv(d / "iris.csv")
    assert list(out.columns) == ["id", "prediction"]
    np.testing.assert_array_equal(out["id"], frame["id"])
    np.testing.assert_array_equal(out["prediction"], model.predict(frame.drop(columns=["id", "target"])))


def test_predict_into_a_directory_writes_one_file_per_partition(iris_files, tmp_path):
    d = iris_files
    parts = tmp_path / "parts"
    parts.mkdir()
    for i in range(3):
        pd.read_csv(d / "iris.csv").iloc[i * 50:(i + 1) * 50].to_parquet(parts / f"{i}.parquet", index=False)
    out = tmp_path / "out.csv"
    assert main(["predict", str(d / "nb.json"), str(parts), "-o", f"{out}/", "--proba", "--keep", "id",
                 "--quiet"]) == 0
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["part-00000.csv", "part-00001.csv", "part-00002.csv"]
    written = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    frame = pd.read_csv(d / "iris.csv")
    model = nbparallel.load(d / "nb.json")
    np.testing.assert_array_equal(written["id"], frame["id"])
    np.testing.assert_allclose(written[["proba_0", "proba_1", "proba_2"]],
                               model.predict_proba(frame.drop(columns=["id", "target"])))
    clusters = tmp_path / "clusters.parquet"
    assert main(["predict", str(d / "ac.json"), str(parts), "-o", str(clusters), "--quiet"]) == 0
    ac = nbparallel.load(d / "ac.json")
    np.testing.assert_array_equal(pd.read_parquet(clusters)["prediction"],
                                  ac.predict(frame.drop(columns=["id", "target"])))


@pytest.mark.parametrize("argv, message", [
    (["predict", "{d}/nb.json", "{d}/iris.csv", "-o", "{d}/nowhere/p.csv"], "output directory"),
    (["fit", "{d}/train.csv", "--target", "target", "-o", "{d}/nowhere/m.json"], "output directory"),
    (["predict", "{d}/nb.json", "{d}/ac_only.csv", "-o", "{d}/p.csv"], "lacks columns ['petal width (cm)']"),
    (["evaluate", "{d}/ac.json", "{d}/iris.csv"], "AutoClass model, which has no classes to evaluate"),
    (["evaluate", "{d}/nb.json", "{d}/iris.csv", "--target", "sepal length (cm)"], "is one of the attributes"),
    (["fit", "{d}/train.csv", "--target", "target", "-o", "{d}/m.json", "--alpha", "lots"],
     "argument --alpha: must be a positive finite number"),
    (["fit", "{d}/train.csv", "--target", "target", "-o", "{d}/m.json", "--boost", "0"],
     "argument --boost: must be an int >= 1"),
    (["fit", "{d}/train.csv", "--target", "target", "-o", "{d}/m.json", "--checkpoint", "{d}/c.json"],
     "--checkpoint needs --boost"),
    (["cluster-fit", "{d}/iris.csv", "--clusters", "3", "-o", "{d}/m.json", "--drop", "nope"], "--drop names"),
    (["predict", "{d}/nb.json", "{d}/iris.csv", "-o", "{d}/p.csv", "--keep", "nope"], "--keep names"),
])
def test_cli_errors_are_one_line_and_exit_2(iris_files, capsys, argv, message):
    d = iris_files
    pd.read_csv(d / "iris.csv").drop(columns="petal width (cm)").to_csv(d / "ac_only.csv", index=False)
    try:
        status = main([a.format(d=d) for a in argv])
    except SystemExit as exc:  # a usage error from argparse
        status = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and message in err[0], err
    assert not (d / "m.json").exists() and not (d / "nowhere").exists()


def test_fit_with_weights_reports_the_weight_not_rows(iris_files, tmp_path, capsys):
    frame = pd.read_csv(iris_files / "train.csv")
    frame["w"] = 0.5
    frame.to_csv(tmp_path / "w.csv", index=False)
    assert main(["fit", str(tmp_path / "w.csv"), "--target", "target", "--weight", "w", "-o",
                 str(tmp_path / "m.json"), "--quiet"]) == 0
    assert "from a total weight of 75 " in capsys.readouterr().out


def test_interrupt_exits_130_with_one_line(monkeypatch, capsys, iris_files):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr("nbparallel.cli.commands.cmd_evaluate", interrupted)
    from nbparallel.cli import commands as cli

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    parser._subparsers._group_actions[0].choices["evaluate"].set_defaults(func=interrupted)
    assert main(["evaluate", str(iris_files / "nb.json"), str(iris_files / "iris.csv")]) == 130
    assert capsys.readouterr().err.strip().splitlines() == ["nbparallel evaluate: interrupted"]


def test_saved_verbose_does_not_decide_the_progress_bars(iris_files, tmp_path):
    model = nbparallel.load(iris_files / "nb.json").set_params(verbose=1)
    model.save(tmp_path / "loud.json")
    done = run_cli("predict", tmp_path / "loud.json", iris_files / "iris.csv", "-o", tmp_path / "p.csv", "--quiet")
    assert done.returncode == 0 and "[####" not in done.stderr + done.stdout, done.stderr
    done = run_cli("predict", tmp_path / "loud.json", iris_files / "iris.csv", "-o", tmp_path / "p.csv")
    assert "100%" in done.stderr and "100%" not in done.stdout  # the progress line goes to stderr

"""Damaged or tampered model files and checkpoints: a clear error, or a warning and a fresh start; saving
never leaves a partial file."""

import json
import os
import pickle
import stat
import subprocess
import sys

import numpy as np
import pytest

import nbparallel
from nbparallel import AutoClass, BoostedNaiveBayes, NaiveBayes
from nbparallel.persistence import model_files
from nbparallel.persistence.model_files import digest


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


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_a_pickled_model_is_named_as_a_pickle_and_never_unpickled(tmp_path, protocol):
    path = tmp_path / "model.pkl"
    witness = tmp_path / "unpickled"
    with open(path, "wb") as f:  # unpickling this would create the witness file
        pickle.dump(Witness(str(witness)), f, protocol=protocol)
    message = r"model.pkl is not a valid nbparallel model file: a Python pickle.*model.save"
    with pytest.raises(ValueError, match=message):
        nbparallel.load(path)
    assert not witness.exists()
    command = [sys.executable, "-m", "nbparallel.cli", "predict", str(path), str(path), "-o", str(tmp_path / "p.csv")]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 2 and "a Python pickle" in result.stderr and "Traceback" not in result.stderr


class Witness:
    """An object whose unpickling creates a file."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return open, (self.path, "w")


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

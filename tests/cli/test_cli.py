"""The command line: fit, predict, evaluate and the demo, on real files."""

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

import nbparallel
from nbparallel.cli import main
from nbparallel.cli.progress import COMPILE_NOTICE


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli")
    frame = load_breast_cancer(as_frame=True).frame
    frame.columns = [c.replace(" ", "_") for c in frame.columns]
    frame.iloc[:400].to_csv(path / "train.csv", index=False)
    frame.iloc[400:].to_parquet(path / "test.parquet", index=False)
    return path


def test_fit_predict_evaluate(data_dir, capsys):
    model_path = data_dir / "model.json"
    assert main(["fit", str(data_dir / "train.csv"), "--target", "target", "-o", str(model_path),
                 "--partitions", "5", "--bins", "8", "--alpha", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "partitions 5, reduction tree height 3" in out
    model = nbparallel.load(model_path)
    assert model.n_bins == 8 and model.alpha == 1.0 and model.n_partitions_ == 5

    assert main(["predict", str(model_path), str(data_dir / "test.parquet"), "-o", str(data_dir / "p.csv"),
                 "--proba"]) == 0
    predictions = pd.read_csv(data_dir / "p.csv")
    test = pd.read_parquet(data_dir / "test.parquet")
    np.testing.assert_array_equal(predictions["prediction"], model.predict(test.drop(columns="target")))
    assert list(predictions.columns) == ["prediction", "proba_0", "proba_1"]

    capsys.readouterr()
    assert main(["evaluate", str(model_path), str(data_dir / "test.parquet")]) == 0
    out = capsys.readouterr().out
    expected = model.evaluate(test, "target")
    assert f"accuracy                {expected['accuracy']:.4f}" in out
    assert f"{expected['average_log_likelihood']:.4f}" in out
    assert expected["confusion_matrix"].sum() == len(test)


@pytest.mark.parametrize("argv, message", [
    (["fit", "{d}/train.csv", "--target", "nope", "-o", "{d}/m.json"], "target column 'nope' does not exist"),
    (["fit", "{d}/missing.csv", "--target", "target", "-o", "{d}/m.json"], "does not exist"),
    (["evaluate", "{d}/broken.json", "{d}/train.csv"], "not a valid nbparallel model file"),
])
def test_errors_are_reported_and_nothing_is_written(data_dir, capsys, argv, message):
    (data_dir / "broken.json").write_text('{"format": "nbparallel-mo')
    assert main([a.format(d=data_dir) for a in argv]) == 2
    assert message in capsys.readouterr().err
    assert not (data_dir / "m.json").exists()


def test_bad_split_every_is_a_usage_error(data_dir, capsys):
    with pytest.raises(SystemExit):
        main(["fit", str(data_dir / "train.csv"), "--target", "target", "-o", "m.json", "--split-every", "1"])
    assert "--split-every" in capsys.readouterr().err


def test_threads_option_sets_the_local_threads_and_changes_no_model(data_dir, tmp_path, monkeypatch, capsys):
    from nbparallel.engine import execution

    seen = []
    run_pass = execution.run_pass

    def spy(*args, **kwargs):
        seen.append(execution.local_threads())
        return run_pass(*args, **kwargs)

    monkeypatch.setattr(execution, "run_pass", spy)
    models = {}
    for threads in (None, 1, 3):
        out = tmp_path / f"m{threads}.json"
        argv = ["fit", str(data_dir / "train.csv"), "--target", "target", "-o", str(out), "--partitions", "4",
                "--quiet"]
        seen.clear()
        assert main(argv + ([] if threads is None else ["--threads", str(threads)])) == 0
        assert seen and set(seen) == {threads or execution.local_threads()}
        models[threads] = json.loads(out.read_text())
    assert models[1] == models[3] == models[None]
    for bad in (["--threads", "0"], ["--threads", "2", "--scheduler", "tcp://127.0.0.1:1"]):
        with pytest.raises(SystemExit):
            main(["fit", str(data_dir / "train.csv"), "--target", "target", "-o", str(tmp_path / "x.json"), *bad])
    assert "--threads" in capsys.readouterr().err


def test_demo_runs_as_a_command_and_its_first_run_compiles_before_it_times(tmp_path):
    # a fresh numba cache: the first run compiles every kernel, says so once, and keeps it out of the times
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    runs = [subprocess.run([sys.executable, "-m", "nbparallel.cli", "demo", "--partitions", "4"],
                           capture_output=True, text=True, timeout=300, env=env) for _ in range(2)]
    for done in runs:
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("same counts as P=1   True") == 2
        assert "height 2 (ceil(log2 P) = 2)" in done.stdout
        accuracies = [float(line.split()[-1]) for line in done.stdout.splitlines() if "test accuracy" in line]
        assert len(accuracies) == 2 and min(accuracies) > 0.85
        assert done.stdout.count("fit / score time") == 2 and "including compiling" not in done.stdout
    assert runs[0].stderr.count(COMPILE_NOTICE) == 1
    assert COMPILE_NOTICE not in runs[1].stderr


def test_a_command_process_collects_nothing_at_start_up_then_freezes_what_it_made_and_collects_again():
    # in a process of its own: frozen objects stay frozen for the life of the process
    code = ("import gc, threading\n"
            "from nbparallel.cli.commands import start_up_uncollected\n"
            "with start_up_uncollected(0.3):\n"
            "    paused = not gc.isenabled()\n"
            "    timer, = [t for t in threading.enumerate() if isinstance(t, threading.Timer)]\n"
            "    timer.join(60)  # until the timer has turned the collector back on\n"
            "    resumed = gc.isenabled() and gc.get_freeze_count() > 0\n"
            "    cycle = []\n"
            "    cycle.append(cycle)\n"
            "    del cycle\n"
            "    collected = gc.collect() > 0\n"
            "print(paused, resumed, collected, gc.isenabled())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True", "True"]


@pytest.mark.parametrize("module", ["nbparallel.cli", "nbparallel"])
def test_the_command_process_ends_with_the_commands_status(tmp_path, module):
    done = subprocess.run([sys.executable, "-m", module, "fit", str(tmp_path / "none.csv"), "--target",
                           "t", "-o", str(tmp_path / "m.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "none.csv" in done.stderr
    assert not (tmp_path / "m.json").exists()


@pytest.fixture(scope="module")
def with_ids(tmp_path_factory):
    """Training and test files with an id column, the test rows also as a directory of Parquet and of CSV files."""
    path = tmp_path_factory.mktemp("ids")
    frame = load_breast_cancer(as_frame=True).frame
    frame.columns = [c.replace(" ", "_") for c in frame.columns]
    frame.insert(0, "id", np.arange(len(frame)) + 1000)
    frame.iloc[:400].to_csv(path / "train.csv", index=False)
    frame.iloc[400:].to_csv(path / "test.csv", index=False)
    for kind in ("parquet", "csv"):
        (path / kind).mkdir()
        for i, part in enumerate(np.array_split(np.arange(400, len(frame)), 3)):
            piece = frame.iloc[part]
            piece.to_parquet(path / kind / f"{i}.parquet", index=False) if kind == "parquet" \
                else piece.to_csv(path / kind / f"{i}.csv", index=False)
    return path, frame


def test_select_applies_drop_and_read_options_to_the_test_file(with_ids, capsys):
    path, frame = with_ids
    model_path = path / "selected.json"
    assert main(["select", str(path / "train.csv"), "--target", "target", "--drop", "id", "--test",
                 str(path / "test.csv"), "--max-features", "3", "-o", str(model_path), "--quiet"]) == 0
    assert "selected" in capsys.readouterr().out
    model = nbparallel.load(model_path)
    assert model.criterion_ == "test" and "id" not in model.feature_names_in_
    from nbparallel import SelectedNaiveBayes

    reference = SelectedNaiveBayes(max_features=3, random_state=0).fit(
        frame.iloc[:400].drop(columns="id"), "target", X_test=frame.iloc[400:].drop(columns="id"), y_test="target")
    assert model.selected_features_ == reference.selected_features_


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_predict_and_evaluate_a_directory_whose_files_hold_the_target(with_ids, tmp_path, capsys, kind):
    path, frame = with_ids
    model_path = tmp_path / "m.json"
    assert main(["fit", str(path / "train.csv"), "--target", "target", "--drop", "id", "-o", str(model_path),
                 "--quiet"]) == 0
    model = nbparallel.load(model_path)
    test = frame.iloc[400:]
    assert main(["predict", str(model_path), str(path / kind), "-o", str(tmp_path / "p.csv"), "--proba",
                 "--keep", "id", "target", "--quiet"]) == 0
    written = pd.read_csv(tmp_path / "p.csv")
    assert list(written.columns) == ["id", "target", "prediction", "proba_0", "proba_1"]
    np.testing.assert_array_equal(written["id"], test["id"])
    np.testing.assert_array_equal(written["target"], test["target"])
    np.testing.assert_array_equal(written["prediction"], model.predict(test.drop(columns=["id", "target"])))
    np.testing.assert_allclose(written[["proba_0", "proba_1"]], model.predict_proba(test.drop(columns=["id", "target"])))

    out = tmp_path / "parts"
    assert main(["predict", str(model_path), str(path / kind), "-o", f"{out}/", "--quiet"]) == 0
    assert sorted(f.name for f in out.iterdir()) == [f"part-0000{i}.parquet" for i in range(3)]  # one per file
    assert pd.concat([pd.read_parquet(f) for f in sorted(out.iterdir())])["prediction"].tolist() == \
        written["prediction"].tolist()

    capsys.readouterr()
    assert main(["evaluate", str(model_path), str(path / kind), "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    expected = model.evaluate(test.drop(columns="id"), "target")
    assert result["n_rows"] == len(test) and result["accuracy"] == pytest.approx(expected["accuracy"], abs=1e-15)
    np.testing.assert_array_equal(result["confusion_matrix"], expected["confusion_matrix"])


def test_evaluate_refuses_a_target_that_is_an_attribute_or_missing(with_ids, tmp_path, capsys):
    path, frame = with_ids
    model_path = tmp_path / "m.json"
    assert main(["fit", str(path / "train.csv"), "--target", "target", "--drop", "id", "-o", str(model_path),
                 "--quiet"]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(model_path), str(path / "parquet"), "--target", "mean_radius"]) == 2
    assert "target column 'mean_radius' is one of the attributes the model was fitted on" in capsys.readouterr().err
    frame.iloc[400:].drop(columns="target").to_csv(tmp_path / "unlabelled.csv", index=False)
    assert main(["evaluate", str(model_path), str(tmp_path / "unlabelled.csv")]) == 2
    err = capsys.readouterr().err
    assert "target column 'target' does not exist; columns are ['id', 'mean_radius'" in err
    assert len(err.strip().splitlines()) == 1


def test_text_fit_report_names_hashed_features_by_the_documents(tmp_path, capsys):
    words = {"cat": "purr meow whiskers kitten", "dog": "bark woof puppy leash"}
    rng = np.random.default_rng(0)
    labels = rng.choice(["cat", "dog"], 60)
    docs = [" ".join(rng.choice(words[c].split() + ["the", "and"], 8)) for c in labels]
    (tmp_path / "docs.txt").write_text("\n".join(docs))
    (tmp_path / "labels.txt").write_text("\n".join(labels))
    assert main(["text-fit", str(tmp_path / "docs.txt"), "--labels", str(tmp_path / "labels.txt"),
                 "--hashing-bits", "12", "-o", str(tmp_path / "t.json")]) == 0
    assert main(["report", str(tmp_path / "t.json"), "-o", str(tmp_path / "t.html"), "--top", "4",
                 "--documents", str(tmp_path / "docs.txt")]) == 0
    page = (tmp_path / "t.html").read_text()
    for word in ("purr", "meow", "bark", "woof"):
        assert f"<td>{word}</td>" in page
    assert main(["report", str(tmp_path / "t.json"), "-o", str(tmp_path / "t.png")]) == 0
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    capsys.readouterr()
    assert main(["report", str(tmp_path / "t.json"), "-o", str(tmp_path / "t.txt")]) == 2
    assert "report path must end in" in capsys.readouterr().err


def test_the_cli_modules_are_public_and_the_commands_short():
    """The parser builds without the commands; each command is a few lines over the library."""
    import inspect

    from nbparallel.cli import commands, parser

    args = parser.build_parser().parse_args(["predict", "m.json", "data/", "-o", "out/", "--keep", "id"])
    assert args.command == "predict" and args.keep == ["id"] and not hasattr(args, "func")
    assert commands.build_parser().parse_args(["demo"]).func is commands.cmd_demo
    for name, function in vars(commands).items():
        if name.startswith("cmd_"):
            assert len(inspect.getsource(function).splitlines()) <= 25, name


def test_predict_copies_kept_columns_of_any_type(with_ids, tmp_path):
    """--keep copies columns as the files hold them, dates included: they are no attributes."""
    path, frame = with_ids
    model_path = tmp_path / "m.json"
    assert main(["fit", str(path / "train.csv"), "--target", "target", "--drop", "id", "-o", str(model_path),
                 "--quiet"]) == 0
    test = frame.iloc[400:].assign(when=pd.date_range("2024-01-01", periods=len(frame) - 400, freq="h"))
    test.to_parquet(tmp_path / "dated.parquet", index=False)
    assert main(["predict", str(model_path), str(tmp_path / "dated.parquet"), "-o", str(tmp_path / "p.parquet"),
                 "--keep", "when", "mean_radius", "--quiet"]) == 0
    written = pd.read_parquet(tmp_path / "p.parquet")
    assert list(written.columns) == ["when", "mean_radius", "prediction"]
    np.testing.assert_array_equal(written["when"].to_numpy(), test["when"].to_numpy())
    np.testing.assert_array_equal(written["mean_radius"], test["mean_radius"])
    model = nbparallel.load(model_path)
    np.testing.assert_array_equal(written["prediction"], model.predict(test.drop(columns=["id", "target", "when"])))


def test_every_data_argument_names_the_formats_the_readers_take():
    from nbparallel.cli.parser import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices
    data_helps = {name: action.help for name, p in commands.items() for action in p._actions
                  if action.dest == "data" and not name.startswith("text-")}
    assert {"fit", "predict", "evaluate", "cv"} <= set(data_helps)
    for name, text in data_helps.items():
        assert all(kind in text for kind in ("CSV", "Parquet", "ARFF")), (name, text)


def test_a_misspelt_target_or_weight_column_is_named_with_the_likeliest_one(tmp_path):
    frame = pd.DataFrame({"colour": ["red", "blue"] * 5, "Label": ["a", "b"] * 5, "weight": [1.0] * 10})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    for data in (frame, str(path)):
        with pytest.raises(ValueError, match=r"target column 'label' does not exist \(did you mean 'Label'\?\)"):
            nbparallel.NaiveBayes().fit(data, "label")
        with pytest.raises(ValueError, match=r"sample_weight column 'wieght' does not exist \(did you mean 'weight'"):
            nbparallel.NaiveBayes().fit(data, "Label", sample_weight="wieght")
        with pytest.raises(ValueError, match=r"target column 'zzz' does not exist; columns are"):
            nbparallel.NaiveBayes().fit(data, "zzz")

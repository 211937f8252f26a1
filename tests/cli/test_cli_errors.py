"""The command line on files: predictions kept by id, one line and exit 2 for errors, 130 on interrupt."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import nbparallel
from nbparallel.cli import main


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

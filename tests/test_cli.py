"""The command line: fit, predict, evaluate and the demo, on real files."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

import nbparallel
from nbparallel.cli import main


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


def test_demo_runs_as_a_command():
    done = subprocess.run([sys.executable, "-m", "nbparallel.cli", "demo", "--partitions", "4"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("same counts as P=1   True") == 2
    assert "height 2 (ceil(log2 P) = 2)" in done.stdout
    accuracies = [float(line.split()[-1]) for line in done.stdout.splitlines() if "test accuracy" in line]
    assert len(accuracies) == 2 and min(accuracies) > 0.85

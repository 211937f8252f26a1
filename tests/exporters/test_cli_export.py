"""`nbparallel fit` then `nbparallel export -o m.pmml|m.onnx`, scored by the JPMML evaluator and onnxruntime
against `nbparallel predict --proba`; the bad inputs of `nbparallel export`, one clear error each and no file."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from nbparallel.cli.commands import main
from tests.exporters.weather import weather, write_arff


def fit_export_and_compare(tmp_path, data, target, rows, options=(), fmt="pmml"):
    """Fit from the file ``data``, export to ``fmt``, and give the exported file and
    ``nbparallel predict --proba`` of the same file."""
    model, pmml, proba = tmp_path / "model.json", tmp_path / f"model.{fmt}", tmp_path / "proba.csv"
    assert main(["fit", str(data), "--target", target, "-o", str(model), "--quiet", *options]) in (0, None)
    assert main(["export", str(model), "-o", str(pmml)]) in (0, None)
    assert main(["predict", str(model), str(data), "--proba", "-o", str(proba), "--quiet"]) in (0, None)
    return pmml, pd.read_csv(proba, keep_default_na=False)


def assert_same_scores(pmml_scores, pmml, expected, rows, classes):
    labels, probabilities = pmml_scores(pmml, rows, classes)
    columns = [[c for c in expected.columns if c.startswith("proba") and c.endswith(str(k))][0] for k in classes]
    assert np.max(np.abs(probabilities - expected[columns].to_numpy(dtype=np.float64))) < 1e-6
    prediction = [c for c in expected.columns if not c.startswith("proba")][0]
    assert labels.tolist() == [str(v) for v in expected[prediction]]


@pytest.mark.parametrize("fmt", ["pmml", "onnx"])
@pytest.mark.parametrize("suffix", [".arff", ".csv"])
@pytest.mark.parametrize("options", [(), ("--gaussian",), ("--gaussian", "humidity"), ("--boost", "3")])
def test_fit_export_scores_as_predict_proba(tmp_path, exported_scores, suffix, options, fmt):
    frame, play = weather()
    data = tmp_path / f"weather{suffix}"
    if suffix == ".arff":
        write_arff(data, frame, play)
    else:
        frame.assign(play=play).to_csv(data, index=False)
    exported, expected = fit_export_and_compare(tmp_path, data, "play", frame, options, fmt)
    assert_same_scores(exported_scores, exported, expected, frame, ["no", "yes"])


@pytest.mark.parametrize("fmt", ["pmml", "onnx"])
@pytest.mark.parametrize("options", [(), ("--gaussian",)])
def test_iris(tmp_path, exported_scores, options, fmt):
    X, y = load_iris(return_X_y=True, as_frame=True)
    X.columns = [c.replace(" (cm)", "").replace(" ", "_") for c in X.columns]
    data = tmp_path / "iris.csv"
    X.assign(species=y).to_csv(data, index=False)
    exported, expected = fit_export_and_compare(tmp_path, data, "species", X, options, fmt)
    assert_same_scores(exported_scores, exported, expected, X, ["0", "1", "2"])


@pytest.fixture
def model_file(tmp_path):
    frame = pd.DataFrame({"a": ["x", "y", "x", "y"], "y": ["p", "q", "p", "q"]})
    frame.to_csv(tmp_path / "data.csv", index=False)
    main(["fit", str(tmp_path / "data.csv"), "--target", "y", "-o", str(tmp_path / "model.json"), "--quiet"])
    return tmp_path / "model.json"


def exports_nothing(capsys, model, output, message):
    assert main(["export", str(model), "-o", str(output)]) != 0
    assert message in capsys.readouterr().err
    assert not output.exists()
    assert not [p for p in output.parent.iterdir() if p.suffix == ".tmp"]


@pytest.mark.parametrize("name", ["model.txt", "model", "model.PMML.gz"])
def test_unknown_suffix(tmp_path, capsys, model_file, name):
    exports_nothing(capsys, model_file, tmp_path / name, "unknown suffix")


@pytest.mark.parametrize("digest, message", [(False, "digest does not match"), (True, "classes")])
def test_model_file_that_fails_validation(tmp_path, capsys, model_file, digest, message):
    """A file edited after it was written (its digest no longer matches), or with a new digest but
    fitted values that contradict each other (one class for two classes' counts)."""
    from nbparallel.persistence.model_files import DIGEST_KEY, digest as digest_of

    document = json.loads(model_file.read_text())
    document["fitted"]["classes"] = ["p"]
    if digest:
        document[DIGEST_KEY] = digest_of(document)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document))
    exports_nothing(capsys, broken, tmp_path / "model.pmml", message)


@pytest.mark.parametrize("fmt", ["pmml", "onnx"])
def test_unsupported_model(tmp_path, capsys, fmt):
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.normal(0, 1, 40), "b": rng.choice(["u", "v"], 40)}).to_csv(tmp_path / "d.csv", index=False)
    model = tmp_path / "clusters.json"
    main(["cluster-fit", str(tmp_path / "d.csv"), "--clusters", "2", "--restarts", "1", "-o", str(model), "--quiet"])
    exports_nothing(capsys, model, tmp_path / f"model.{fmt}", f"{fmt.upper()} export supports")

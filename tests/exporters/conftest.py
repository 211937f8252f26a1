"""Fixtures of the exporter tests: the independent evaluators that score exported files.

- PMML: the JPMML evaluator. jpmml_evaluator's default backend (JPype) starts one JVM per process and
  keeps it; the fixture starts it once, and every test loads its PMML file into that JVM.
- ONNX: onnxruntime, fed one array per graph input, built from the graph's own declared inputs (a
  string column's missing values as ``""``, a double column's as NaN), not from the library's code.
"""

import jpmml_evaluator
import numpy as np
import onnxruntime
import pandas as pd
import pytest

from tests.system_programs import require


@pytest.fixture(scope="session")
def pmml_scores():
    """``score(path, frame)``: the JPMML evaluator's label and probabilities of the PMML file ``path`` on the
    rows of ``frame``, as ``(labels as str, probabilities in the order of classes)``, given the classes."""
    require("java", "openjdk-17-jre-headless")
    backend = jpmml_evaluator.make_backend("jpype")

    def score(path, frame, classes):
        result = jpmml_evaluator.make_evaluator(str(path), backend=backend).verify().evaluateAll(frame)
        probabilities = result[[f"probability({c})" for c in classes]].to_numpy(dtype=np.float64)
        return np.array([str(v) for v in result["label"]]), probabilities

    return score


def onnx_feeds(session, frame):
    """onnxruntime's inputs of the rows of ``frame`` (a DataFrame, or an array for the single input ``X``)."""
    inputs = session.get_inputs()
    if len(inputs) == 1 and inputs[0].name == "X" and "X" not in getattr(frame, "columns", ()):
        return {"X": np.asarray(frame, dtype=np.float64)}  # a text model's rows of counts
    feeds = {}
    for declared in inputs:
        column = frame[declared.name]
        if declared.type == "tensor(string)":
            values = ["" if pd.isna(v) else str(v) for v in column]
            feeds[declared.name] = np.array(values, dtype=object).reshape(-1, 1)
        else:
            feeds[declared.name] = pd.to_numeric(column).to_numpy(dtype=np.float64, na_value=np.nan).reshape(-1, 1)
    return feeds


def onnx_scores(path, frame, classes):
    """onnxruntime's ``(labels as str, probabilities)`` of the ONNX file ``path`` on the rows of ``frame``."""
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    labels, probabilities = session.run(["label", "probabilities"], onnx_feeds(session, frame))
    assert probabilities.shape == (len(frame), len(classes))
    return np.array([str(v) for v in labels]), probabilities


@pytest.fixture
def exported_scores(pmml_scores):
    """``score(path, frame, classes)``: the scores of an exported file by its format's evaluator."""
    def score(path, frame, classes):
        return (onnx_scores if str(path).endswith(".onnx") else pmml_scores)(path, frame, classes)

    return score


@pytest.fixture(params=["pmml", "onnx"])
def assert_exported_scores_as_model(request, exported_scores, tmp_path):
    """``check(model, frame, model_input=None)``: export ``model`` to each format, score ``frame`` by that
    format's evaluator, and assert its labels equal ``predict`` and its probabilities are within 1e-6 of
    ``predict_proba`` (of ``model_input``, default ``frame``); returns the largest difference."""
    def check(model, frame, model_input=None):
        from nbparallel.exporters import export

        model_input = frame if model_input is None else model_input
        path = tmp_path / f"{type(model).__name__}.{request.param}"
        export(model, path)
        labels, probabilities = exported_scores(path, frame, model.classes_)
        difference = np.max(np.abs(probabilities - model.predict_proba(model_input)))
        assert difference < 1e-6
        assert labels.tolist() == [str(v) for v in model.predict(model_input)]
        return difference

    return check

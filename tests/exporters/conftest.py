"""Fixtures of the exporter tests: one JPMML evaluator backend for the session.

jpmml_evaluator's default backend (JPype) starts one JVM per process and keeps it; the fixture
starts it once, and every test loads its PMML file into that JVM.
"""

import numpy as np
import pytest


@pytest.fixture(scope="session")
def pmml_scores():
    """``score(path, frame)``: the JPMML evaluator's label and probabilities of the PMML file ``path`` on the
    rows of ``frame``, as ``(labels as str, probabilities in the order of classes)``, given the classes."""
    jpmml = pytest.importorskip("jpmml_evaluator")
    backend = jpmml.make_backend("jpype")

    def score(path, frame, classes):
        result = jpmml.make_evaluator(str(path), backend=backend).verify().evaluateAll(frame)
        probabilities = result[[f"probability({c})" for c in classes]].to_numpy(dtype=np.float64)
        return np.array([str(v) for v in result["label"]]), probabilities

    return score


@pytest.fixture
def assert_pmml_scores_as_model(pmml_scores, tmp_path):
    """``check(model, frame, model_input=None)``: export ``model`` to PMML, score ``frame`` in the JPMML
    evaluator, and assert its labels equal ``predict`` and its probabilities are within 1e-6 of
    ``predict_proba`` (of ``model_input``, default ``frame``); returns the largest difference."""
    def check(model, frame, model_input=None):
        from nbparallel.exporters import export

        model_input = frame if model_input is None else model_input
        path = tmp_path / f"{type(model).__name__}.pmml"
        export(model, path)
        labels, probabilities = pmml_scores(path, frame, model.classes_)
        difference = np.max(np.abs(probabilities - model.predict_proba(model_input)))
        assert difference < 1e-6
        assert labels.tolist() == [str(v) for v in model.predict(model_input)]
        return difference

    return check

"""`nbparallel fit` then `nbparallel export`, scored by jpmml_evaluator against `nbparallel predict --proba`."""

import numpy as np
import pandas as pd
import pytest

from nbparallel.cli.commands import main

jpmml = pytest.importorskip("jpmml_evaluator")


def test_cli_fit_export_scores_as_predict_proba(tmp_path):
    rng = np.random.default_rng(3)
    n = 200
    frame = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n)})
    frame["y"] = np.where((frame["a"] == "y") ^ (rng.random(n) < 0.2), "pos", "neg")
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    model, pmml, proba = tmp_path / "model.json", tmp_path / "model.pmml", tmp_path / "proba.csv"
    main(["fit", str(data), "--target", "y", "-o", str(model), "--quiet"])
    main(["export", str(model), "-o", str(pmml)])
    main(["predict", str(model), str(data), "--proba", "-o", str(proba), "--quiet"])
    expected = pd.read_csv(proba)
    result = jpmml.make_evaluator(str(pmml)).verify().evaluateAll(frame[["a", "b"]])
    for label in ("neg", "pos"):
        column = [c for c in expected.columns if label in c][0]
        assert np.max(np.abs(result[f"probability({label})"].to_numpy() - expected[column].to_numpy())) < 1e-6


def test_cli_export_unknown_suffix_is_one_clear_error(tmp_path):
    frame = pd.DataFrame({"a": ["x", "y", "x", "y"], "y": ["p", "q", "p", "q"]})
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    model = tmp_path / "model.json"
    main(["fit", str(data), "--target", "y", "-o", str(model), "--quiet"])
    assert main(["export", str(model), "-o", str(tmp_path / "model.txt")]) != 0
    assert not (tmp_path / "model.txt").exists()

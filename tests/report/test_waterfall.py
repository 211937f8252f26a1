"""One prediction's evidence in the report: the waterfall's bars are the explain row, beside the model's
evidence panels in the PNG and HTML report, from the library and from `nbparallel report --explain`."""

import re

import numpy as np
import pandas as pd
import pytest

import nbparallel as nb
from nbparallel.cli.commands import main
from nbparallel.report import explained_row, plot_evidence, write_report
from nbparallel.report.waterfall import waterfall_bars


def _frame(n=240, seed=5):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n)
    return pd.DataFrame({"colour": np.where(y == "a", "red", rng.choice(["red", "blue", "green"], n)),
                         "size": rng.normal((y == "b") * 1.5, 1.0), "weight": rng.normal((y == "c") * 2.0, 1.0),
                         "target": y})


def test_explained_row_is_the_explain_row_and_its_classes():
    frame = _frame()
    model = nb.NaiveBayes(numeric={"size": "gaussian"}).fit(frame, "target")
    X = frame.drop(columns="target")
    explained = explained_row(model, X, row=7)
    log_proba = model.predict_log_proba(X)[7]
    order = np.argsort(-log_proba, kind="stable")
    assert explained["for_class"] == model.classes_[order[0]] and explained["against"] == model.classes_[order[1]]
    assert abs(explained["evidence"].sum() - (log_proba[order[0]] - log_proba[order[1]])) < 1e-9
    assert abs(explained["log_odds"] - explained["evidence"].sum()) < 1e-9
    names, values = waterfall_bars(explained["evidence"], max_attributes=2)
    assert names[0] == "(prior)" and len(names) == 4 and names[-1] == "1 others"
    assert abs(values.sum() - explained["evidence"].sum()) < 1e-12
    assert np.all(np.diff(np.abs(values[1:3])) <= 0)
    chosen = explained_row(model, X, row=7, for_class="c", against="a")
    assert (chosen["for_class"], chosen["against"]) == ("c", "a")
    assert abs(chosen["evidence"].sum() - (model.predict_log_proba(X)[7, 2] - model.predict_log_proba(X)[7, 0])) < 1e-9
    predicted = model.classes_[order[0]]  # against the prediction: the runner-up is explained
    turned = explained_row(model, X, row=7, against=predicted)
    assert (turned["for_class"], turned["against"]) == (model.classes_[order[1]], predicted)
    assert abs(turned["evidence"].sum() - turned["log_odds"]) < 1e-9 and turned["log_odds"] < 0
    with pytest.raises(ValueError, match="row must be a position"):
        explained_row(model, X, row=len(X))


def test_report_shows_the_prediction_beside_the_panels(tmp_path):
    frame = _frame()
    model = nb.NaiveBayes().fit(frame, "target")
    X = frame.drop(columns="target")
    explained = explained_row(model, X, row=3)
    fig = plot_evidence(model, explained=explained)
    titles = [ax.get_title() for ax in fig.axes]
    assert any(t.startswith("evidence of one prediction: row 3") for t in titles)
    assert len(fig.axes) == len(plot_evidence(model).axes) + 2
    html_path = write_report(model, tmp_path / "r.html", explained=explained)
    text = html_path.read_text()
    assert "id='explanation'" in text
    shown = float(re.search(r"<span id='log-odds'>([-+0-9.]+)</span>", text).group(1))
    assert abs(shown - explained["log_odds"]) < 1e-6
    for name in ("colour", "size", "weight", "(prior)"):
        assert f"<td>{name}</td>" in text
    assert write_report(model, tmp_path / "r.png", explained=explained).stat().st_size > 0


def test_cli_report_explain_row(tmp_path):
    frame = _frame()
    frame.to_csv(tmp_path / "data.csv", index=False)
    model_path = str(tmp_path / "m.json")
    main(["fit", str(tmp_path / "data.csv"), "--target", "target", "-o", model_path, "--quiet"])
    out = tmp_path / "r.html"
    assert main(["report", model_path, "-o", str(out), "--explain", str(tmp_path / "data.csv"), "--row", "5",
                 "--for-class", "b"]) == 0
    text = out.read_text()
    model = nb.load(model_path)
    log_proba = model.predict_log_proba(frame)[5]
    rival = max((k for k in range(3) if k != 1), key=lambda k: log_proba[k])
    shown = float(re.search(r"<span id='log-odds'>([-+0-9.]+)</span>", text).group(1))
    assert abs(shown - (log_proba[1] - log_proba[rival])) < 1e-6
    assert main(["report", model_path, "-o", str(tmp_path / "r.png"), "--explain", str(tmp_path / "data.csv"),
                 "--row", "5"]) == 0


def test_a_text_model_report_refuses_a_prediction():
    X = np.random.default_rng(0).poisson(1.0, size=(30, 5))
    model = nb.MultinomialNaiveBayes().fit(X, np.arange(30) % 2)
    with pytest.raises(ValueError, match="one prediction's evidence for naive Bayes"):
        write_report(model, "r.html", explained={"evidence": None})

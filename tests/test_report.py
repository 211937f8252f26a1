"""Reports: evidence and mutual information against hand computations, per-class scores against
scikit-learn, the ignored-attributes warning, and the rendered files."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.metrics import mutual_info_score, precision_recall_fscore_support

from nbparallel import NaiveBayes
from nbparallel.report import model_summary, plot_evidence, write_report


def small_frame():
    return pd.DataFrame({
        "colour": ["red", "red", "blue", "blue", "red", "blue", "green", "red"],
        "shape": ["round", "long", "long", "round", "round", "long", "long", None],
        "const": ["k"] * 8,
        "label": ["a", "a", "b", "b", "a", "b", "b", "a"],
    }, dtype=object)


def test_evidence_and_mutual_information_by_hand():
    frame = small_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = NaiveBayes(alpha=1.0, class_alpha=1.0).fit(frame, "label")
    summary = model_summary(model)
    colour = next(a for a in summary["attributes"] if a["name"] == "colour")
    pi = {"a": (4 + 1) / (8 + 2), "b": (4 + 1) / (8 + 2)}
    n_ck = {("blue", "a"): 0, ("blue", "b"): 3, ("green", "a"): 0, ("green", "b"): 1, ("red", "a"): 4, ("red", "b"): 0}
    p = {(m, k): (n_ck[m, k] + 1) / (4 + 3) for m in ("blue", "green", "red") for k in "ab"}
    for i, m in enumerate(colour["values"]):
        marginal = sum(pi[k] * p[m, k] for k in "ab")
        for j, k in enumerate("ab"):
            assert colour["evidence"][i, j] == pytest.approx(math.log(p[m, k]) - math.log(marginal), abs=1e-12)
    assert colour["counts"].tolist() == [3, 1, 4]
    assert colour["mutual_information"] == pytest.approx(
        mutual_info_score(frame["colour"], frame["label"]) / math.log(2), abs=1e-12)
    shape_rows = frame["shape"].notna()
    shape = next(a for a in summary["attributes"] if a["name"] == "shape")
    assert shape["mutual_information"] == pytest.approx(
        mutual_info_score(frame["shape"][shape_rows], frame["label"][shape_rows]) / math.log(2), abs=1e-12)
    assert [a["name"] for a in summary["attributes"]] == ["colour", "shape"]  # ranked by MI
    assert summary["ignored"] == {"const": "a single observed category ('k')"}


def test_warning_names_every_cause_when_most_attributes_are_ignored():
    frame = pd.DataFrame({"c": ["x"] * 6, "n": [2.5] * 6, "gone": [np.nan] * 6, "ok": [1.0, 2, 3, 4, 5, 6],
                          "y": [0, 1, 0, 1, 0, 1]})
    with pytest.warns(UserWarning, match="3 of 4 attributes are ignored") as caught:
        model = NaiveBayes().fit(frame, "y")
    message = str(caught[0].message)
    assert "'c': a single observed category ('x')" in message
    assert "'n': constant (every observed value is 2.5)" in message
    assert "'gone': no observed value" in message
    with pytest.warns(UserWarning, match="every attribute is ignored"):
        NaiveBayes().fit(frame[["c", "n", "y"]], "y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NaiveBayes().fit(frame[["c", "ok", "y"]], "y")  # half ignored: no warning
    assert set(model.ignored_reasons()) == {"c", "n", "gone"}


def test_evaluate_per_class_scores_and_spss_error():
    X, y = load_wine(return_X_y=True)
    model = NaiveBayes(n_bins=3).fit(X[::2], y[::2])
    result = model.evaluate(X[1::2], y[1::2])
    precision, recall, f1, _ = precision_recall_fscore_support(y[1::2], model.predict(X[1::2]), zero_division=0)
    np.testing.assert_allclose(result["precision"], precision, rtol=1e-12)
    np.testing.assert_allclose(result["recall"], recall, rtol=1e-12)
    np.testing.assert_allclose(result["f1"], f1, rtol=1e-12)
    assert result["classification_error"] == pytest.approx(1 - result["accuracy"], abs=1e-15)
    assert result["classification_error"] == pytest.approx(np.mean(model.predict(X[1::2]) != y[1::2]), abs=1e-15)


def test_report_files(tmp_path):
    data = load_wine(as_frame=True)
    frame = data.data.assign(batch="one")
    model = NaiveBayes().fit(frame, data.target)
    fig = plot_evidence(model, max_attributes=4)
    assert len([ax for ax in fig.axes if ax.get_images()]) == 4
    png = write_report(model, tmp_path / "r.png", max_attributes=2)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = write_report(model, tmp_path / "r.html", max_attributes=2).read_text()
    assert "flavanoids" in page and "batch</b>: a single observed category" in page
    assert page.count("<h3>") == 13
    with pytest.raises(ValueError, match="must end in"):
        write_report(model, tmp_path / "r.txt")
    assert not list(tmp_path.glob(".*"))  # no temporary file left


def test_gaussian_attributes_are_in_the_summary_and_the_report(tmp_path):
    from sklearn.naive_bayes import GaussianNB

    data = load_wine(as_frame=True)
    frame = data.data[["alcohol", "flavanoids", "hue"]].assign(
        colour=np.where(data.data["color_intensity"] > 5, "dark", "light"), gone=np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "gone" has no observed value
        model = NaiveBayes(numeric={"flavanoids": "gaussian", "hue": "gaussian", "gone": "gaussian"}).fit(
            frame, data.target)
    summary = model_summary(model)
    assert sorted(a["name"] for a in summary["attributes"]) == ["alcohol", "colour"]  # ranked by MI
    assert [g["name"] for g in summary["gaussian"]] == ["flavanoids", "hue"]
    assert summary["ignored"] == {"gone": "no observed value (every value missing)"}
    reference = GaussianNB().fit(frame[["flavanoids", "hue"]], data.target)
    for g, name in enumerate(["flavanoids", "hue"]):
        got = summary["gaussian"][g]
        np.testing.assert_allclose(got["mean"], reference.theta_[:, g], rtol=1e-12)
        np.testing.assert_allclose(got["std"] ** 2, reference.var_[:, g], rtol=1e-9)
    page = write_report(model, tmp_path / "r.html").read_text()
    assert "Gaussian attributes" in page and "<td>flavanoids</td>" in page and "<td>hue</td>" in page
    fig = plot_evidence(model)
    text = "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)
    assert "Gaussian attributes (2;" in text and "flavanoids:" in text
    assert "178 training cases, 4 attributes used" in fig.get_suptitle()
    all_gaussian = NaiveBayes(numeric="gaussian").fit(frame[["flavanoids", "hue"]], data.target)
    assert model_summary(all_gaussian)["n_cases"] == len(frame)  # the cases, though nothing is counted


def test_cli_report_evaluate_json_and_fit_warning(tmp_path, capsys):
    import json

    from nbparallel.cli import main

    data = load_wine(as_frame=True)
    frame = data.data.assign(cls=data.target)
    frame.to_csv(tmp_path / "d.csv", index=False)
    assert main(["fit", str(tmp_path / "d.csv"), "--target", "cls", "-o", str(tmp_path / "m.json"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "m.json"), str(tmp_path / "d.csv"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["classes"] == [0, 1, 2] and len(result["f1"]) == 3
    assert result["classification_error"] == pytest.approx(1 - result["accuracy"])
    assert main(["report", str(tmp_path / "m.json"), "-o", str(tmp_path / "r.html"), "--top", "1"]) == 0
    assert "flavanoids" in (tmp_path / "r.html").read_text()
    frame[["cls"]].assign(batch="one").to_csv(tmp_path / "bad.csv", index=False)
    assert main(["fit", str(tmp_path / "bad.csv"), "--target", "cls", "-o", str(tmp_path / "b.json"), "--quiet"]) == 0
    assert "warning: every attribute is ignored" in capsys.readouterr().err

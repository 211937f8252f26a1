"""ARFF files against Weka: its example files load and fit, nominal values keep their declared order, and a
declared value never seen is smoothed as Weka's NaiveBayes smooths it (its probabilities the reference)."""

from __future__ import annotations

import gzip
import re
import subprocess

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes
from nbparallel.data.files.arff import parse_header
from nbparallel.loading import load
from tests.system_programs import require, require_files

EXAMPLES = "/usr/share/doc/weka/examples"
WEKA = "/usr/share/java/weka.jar"


def _arff_text(path):
    return (gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()).decode("utf-8")


def test_every_weka_example_loads_and_fits_in_declared_order():
    files = require_files(EXAMPLES, "weka", "*.arff*")
    assert len(files) >= 14
    for path in files:
        attributes, _ = parse_header(_arff_text(path), str(path))
        target = attributes[-1][0]  # Weka's class: the last attribute
        model = NaiveBayes().fit(path, target)
        declared = {name: list(values) for name, kind, values in attributes[:-1] if kind == "nominal"}
        fitted = {at.name: at.categories for at in model.schema_.attributes if at.name in declared}
        assert fitted == declared, path.name
        assert len(model.predict(path)) == model.counts_.class_totals.sum() + model.n_missing_target_, path.name


def test_credit_g_report_lists_values_as_declared():
    (path,) = require_files(EXAMPLES, "weka", "credit-g.arff*")
    model = NaiveBayes().fit(path, "class")
    assert list(model.log_probabilities_["checking_status"].index[:4]) == ["<0", "0<=X<200", ">=200", "no checking"]
    assert list(model.classes_) == ["bad", "good"]  # classes stay sorted (declared {good, bad})


WEATHER = """@relation weather
@attribute outlook {sunny, overcast, rainy, foggy} % foggy is never seen
@attribute temperature {hot, mild, cool}
@attribute humidity {high, normal}
@attribute windy {TRUE, FALSE}
@attribute play {yes, no}
@data
"""
ROWS = ("sunny,hot,high,FALSE,no sunny,hot,high,TRUE,no overcast,hot,high,FALSE,yes rainy,mild,high,FALSE,yes "
        "rainy,cool,normal,FALSE,yes rainy,cool,normal,TRUE,no overcast,cool,normal,TRUE,yes "
        "sunny,mild,high,FALSE,no sunny,cool,normal,FALSE,yes rainy,mild,normal,FALSE,yes "
        "sunny,mild,normal,TRUE,yes overcast,mild,high,TRUE,yes overcast,hot,normal,FALSE,yes "
        "rainy,mild,high,TRUE,no").split()
TESTS = ["foggy,hot,high,TRUE,?", "sunny,?,normal,FALSE,?", "rainy,cool,?,TRUE,?", "foggy,mild,normal,FALSE,?"]


def _weka_distribution(train, test):
    """Weka NaiveBayes' class distribution of each row of ``test`` (columns in the declared order yes, no)."""
    java = require("java", "openjdk-17-jre-headless")
    require_files("/usr/share/java", "weka", "weka.jar")
    out = subprocess.run([java, "-cp", WEKA, "weka.classifiers.bayes.NaiveBayes", "-t", str(train), "-T", str(test),
                          "-p", "0", "-distribution"], capture_output=True, text=True, check=True).stdout
    rows = [line.split()[-1] for line in out.splitlines() if re.match(r"\s+\d+\s", line)]
    return np.array([[float(p.strip("*")) for p in row.split(",")] for row in rows])


def test_a_declared_value_never_seen_is_smoothed_as_in_weka(tmp_path):
    train, test = tmp_path / "weather.arff", tmp_path / "test.arff"
    train.write_text(WEATHER + "\n".join(ROWS) + "\n")
    test.write_text(WEATHER + "\n".join(TESTS) + "\n")
    model = NaiveBayes(alpha=1.0, class_alpha=1.0).fit(train, "play")  # Weka: Laplace, on the classes too
    assert model.schema_.attributes[0].categories == ["sunny", "overcast", "rainy", "foggy"]
    outlook = np.exp(model.log_probabilities_["outlook"])
    # per class (count + 1) / (n_class + 4 declared values): 5 rows "no", 9 "yes"
    assert outlook.loc["foggy", "no"] == pytest.approx(1 / 9) and outlook.loc["foggy", "yes"] == pytest.approx(1 / 13)
    frame = pd.DataFrame([row.split(",")[:4] for row in TESTS], columns=["outlook", "temperature", "humidity",
                                                                         "windy"]).replace("?", None)
    ours = model.predict_proba(frame)[:, ::-1]  # classes_ sorted (no, yes); Weka's columns as declared
    np.testing.assert_allclose(ours, _weka_distribution(train, test), atol=5e-4)  # Weka prints 3 decimals
    np.testing.assert_allclose(model.predict_proba(test)[:, ::-1], ours, rtol=1e-12)


def test_declared_order_survives_json_and_partial_fit(tmp_path):
    train = tmp_path / "weather.arff"
    train.write_text(WEATHER + "\n".join(ROWS) + "\n")
    model = NaiveBayes().fit(train, "play")
    model.save(tmp_path / "m.json")
    loaded = load(tmp_path / "m.json")
    assert loaded.schema_.attributes == model.schema_.attributes and loaded.schema_.attributes[0].declared
    np.testing.assert_array_equal(loaded.predict_proba(train), model.predict_proba(train))
    halves = tmp_path / "a.arff", tmp_path / "b.arff"
    for half, rows in zip(halves, (ROWS[:7], ROWS[7:])):
        half.write_text(WEATHER + "\n".join(rows) + "\n")
    batched = NaiveBayes().partial_fit(halves[0], "play").partial_fit(halves[1], "play")
    assert batched.schema_.attributes == model.schema_.attributes
    assert batched.counts_.equals(model.counts_)

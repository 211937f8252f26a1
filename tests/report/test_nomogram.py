"""The nomogram's numbers against the fitted tables, and its HTML file: self-contained, whole or not at all;
bins labelled as the report labels them, the axis spanning the values with enough training cases."""

import html
import json
import re

import numpy as np
import pandas as pd
import pytest

import nbparallel as nb
from nbparallel.cli.commands import main
from nbparallel.report import bin_labels, nomogram_data, nomogram_html, plot_nomogram, write_nomogram
from nbparallel.report.nomogram import MIN_SUPPORT
from tests.report.test_nomogram_legible import credit_like


def _model(numeric="binned"):
    rng = np.random.default_rng(3)
    y = rng.choice(["a", "b", "c"], 200)
    frame = pd.DataFrame({"colour": np.where(y == "a", "red", rng.choice(["red", "blue"], 200)),
                          "noise": rng.choice(["x", "y"], 200), "size": rng.normal(y == "b", 1.0), "target": y})
    return nb.NaiveBayes(numeric=numeric).fit(frame, "target")


def test_log_odds_ratios_are_one_class_against_the_rest_of_the_fitted_tables():
    model = _model()
    data = nomogram_data(model, for_class="a")
    prior = np.exp(model.class_log_prior_)
    for attribute in data["attributes"]:
        table = model.log_probabilities_[attribute["name"]].to_numpy()
        rest = np.log(np.exp(table[:, 1:]) @ prior[1:] / prior[1:].sum())
        np.testing.assert_allclose(attribute["ratio"], table[:, 0] - rest, atol=1e-12)
    spreads = [a["spread"] for a in data["attributes"]]
    assert spreads == sorted(spreads, reverse=True) and data["attributes"][0]["name"] == "colour"


def test_html_file_is_self_contained_and_cli_writes_it(tmp_path):
    model = _model("gaussian")
    model.save(tmp_path / "m.json")
    out = tmp_path / "nomogram.html"
    assert main(["report", str(tmp_path / "m.json"), "--nomogram", "-o", str(out), "--for-class", "b"]) == 0
    text = out.read_text()
    assert 'id="posterior"' in text and 'type="number"' in text and "<script>" in text
    assert "http://" not in text and "https://" not in text and " src=" not in text
    with pytest.raises(ValueError, match="must end in .html"):
        write_nomogram(model, tmp_path / "n.png")
    with pytest.raises(ValueError, match="for_class='z'"):
        write_nomogram(model, tmp_path / "n.html", for_class="z")
    assert not (tmp_path / "n.html").exists()


def test_png_nomogram_and_waterfall_draw(tmp_path):
    from nbparallel.report import plot_explanation, plot_nomogram

    model = _model("gaussian")
    fig = plot_nomogram(model, for_class="a")
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == \
        [a["name"] for a in nomogram_data(model, "a")["attributes"]]
    fig.savefig(tmp_path / "n.png")
    row = pd.DataFrame({"colour": ["red"], "noise": ["x"], "size": [0.3]})
    fig = plot_explanation(model, row)
    bars = fig.axes[0].patches
    explained = model.explain(row).iloc[0]
    evidence = explained.drop(["(class)", "(versus)", "(log-odds)"])  # a bar per attribute and the prior
    assert len(bars) == len(evidence)
    assert abs(sum(b.get_width() for b in bars) - evidence.sum()) < 1e-9
    assert abs(sum(b.get_width() for b in bars) - explained["(log-odds)"]) < 1e-9
    fig.savefig(tmp_path / "w.png")


def test_bins_are_labelled_as_the_report_and_the_axis_spans_the_supported_values():
    frame = credit_like(20)
    model = nb.NaiveBayes().fit(frame, "class")
    data = nomogram_data(model, "good")
    ages = next(a for a in data["attributes"] if a["name"] == "age")
    assert ages["values"] == bin_labels(model.bin_edges_["age"]) and ages["values"][-1].startswith("> ")
    assert sum(ages["counts"][-1]) == 1  # the far single case
    good = list(model.classes_).index("good")
    supported = [0.0]  # every ratio of a value with MIN_SUPPORT cases, some good and some bad
    for a in data["attributes"]:
        for row, ratio in zip(a["counts"], a["ratio"]):
            if sum(row) >= MIN_SUPPORT and row[good] > 0 and sum(row) - row[good] > 0:
                supported.append(ratio)
    page = nomogram_html(model, "good")
    axis = json.loads(re.search(r'<script type="application/json" id="model">(.*?)</script>', page).group(1))["axis"]
    assert (axis["lo"], axis["hi"]) == (min(supported), max(supported))
    assert not axis["lo"] <= ages["ratio"][-1] <= axis["hi"]
    far = ages["values"][-1]
    marked = f"\u25c2 {far}" if ages["ratio"][-1] < axis["lo"] else f"{far} \u25b8"  # drawn at the axis' end
    assert f">{html.escape(marked)}</span>" in page
    assert "(-inf" not in page and "inf]" not in page
    ax = plot_nomogram(model, "good").axes[0]  # the figure's axes span the same values
    left, right = ax.get_xlim()
    assert left < axis["lo"] < left + 0.05 * (right - left) and right - 0.05 * (right - left) < axis["hi"] < right
    assert marked in [t.get_text() for t in ax.texts]

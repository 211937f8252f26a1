"""The reports of AODE and TAN: their structure (TAN's tree, AODE's super-parents and frequency limit), each
attribute's values and mutual information with the class, the class prior, as figures, HTML pages and from the
command line on a saved model file."""

import numpy as np
import pytest

import nbparallel as nb
from nbparallel.cli import main
from nbparallel.report import report_kind, seminaive_summary, write_report
from tests.models.test_aode_tan import make_frame


@pytest.fixture(scope="module")
def frame():
    return make_frame(400, seed=6)


def plain_mutual_information(x, y):
    """Mutual information (bits) of two label arrays by a plain count, rows with x missing left out."""
    keep = ~x.isna().to_numpy()
    xs, ys = x[keep].astype(str).to_numpy(), np.asarray(y)[keep]
    total = 0.0
    for a in set(xs):
        for b in set(ys):
            p = np.mean((xs == a) & (ys == b))
            if p > 0:
                total += p * np.log2(p / (np.mean(xs == a) * np.mean(ys == b)))
    return total


def test_tans_summary_is_its_tree_prior_and_attributes(frame):
    model = nb.TAN(alpha=0.5).fit(frame, "y")
    summary = seminaive_summary(model)
    assert summary["model"] == "TAN" and report_kind(model) == "semi-naive"
    assert {a["name"]: a["parent"] for a in summary["attributes"]} == model.parents_
    n = frame["y"].value_counts().reindex(model.classes_).to_numpy()
    np.testing.assert_allclose(summary["prior"], (n + 0.5) / (n.sum() + 2 * 0.5))  # Weka's estimator, by hand
    colour = next(a for a in summary["attributes"] if a["name"] == "colour")
    assert colour["mutual_information"] == pytest.approx(plain_mutual_information(frame["colour"], frame["y"]))
    assert colour["values"] == ["blue", "green", "red"]
    assert colour["counts"].tolist() == frame["colour"].value_counts().reindex(colour["values"]).tolist()
    roots = [a for a in summary["attributes"] if a["parent"] is None]
    assert len(roots) == 1 and roots[0]["link_information"] is None
    assert all(a["link_information"] >= 0 for a in summary["attributes"] if a["parent"] is not None)


def test_aodes_summary_gives_its_super_parents_and_frequency_limit(frame):
    limit = 60
    model = nb.AODE(frequency_limit=limit).fit(frame, "y")
    summary = seminaive_summary(model)
    assert summary["settings"]["frequency_limit"] == limit
    shape = next(a for a in summary["attributes"] if a["name"] == "shape")
    seen = frame["shape"].value_counts()
    assert sorted(shape["super_parents"]) == sorted(seen[seen >= limit].index)
    assert shape["n_super_parents"] == int((seen >= limit).sum())


@pytest.mark.parametrize("cls", [nb.AODE, nb.TAN])
def test_the_cli_reports_a_saved_model_file(cls, frame, tmp_path, capsys):
    model = cls(n_bins="mdl").fit(frame, "y")
    model.save(tmp_path / "m.json")
    assert main(["report", str(tmp_path / "m.json"), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert f"<h1>{cls.__name__} model report</h1>" in page and "Class prior" in page
    for name, edges in model.bin_edges_.items():  # the MDL intervals' labels
        assert f"<h3>{name} &mdash;" in page and (not len(edges) or f"&lt;= {edges[0]:.3g}" in page)
    if cls is nb.TAN:
        assert all(f"<td>{child}</td><td>{parent}</td>" in page for child, parent in model.parents_.items()
                   if parent is not None)
    else:
        assert "Super-parents: the values seen at least 1 times" in page
    assert main(["report", str(tmp_path / "m.json"), "-o", str(tmp_path / "r.png")]) == 0
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="one prediction's evidence for naive Bayes models"):
        write_report(model, tmp_path / "x.png", explained={"row": 0})

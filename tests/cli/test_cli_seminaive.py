"""``nbparallel fit --model aode|tan`` and ``cv --model ...``: the library's models and cross-validation, and the
options each model takes."""

import json

import numpy as np
import pytest

import nbparallel
from nbparallel.cli import main
from tests.models.test_aode_tan import make_frame


@pytest.fixture(scope="module")
def train_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("seminaive") / "train.csv"
    make_frame(240, seed=2).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("argv, expected", [
    (["--model", "aode"], nbparallel.AODE(n_bins=6, n_partitions=3)),
    (["--model", "aode", "--frequency-limit", "20", "--m-estimate", "2"],
     nbparallel.AODE(frequency_limit=20.0, m_estimate=2.0, n_bins=6, n_partitions=3)),
    (["--model", "tan"], nbparallel.TAN(n_bins=6, n_partitions=3)),
    (["--model", "tan", "--alpha", "2", "--link-score", "bayes"],
     nbparallel.TAN(alpha=2.0, link_score="bayes", n_bins=6, n_partitions=3)),
    (["--model", "aode"], nbparallel.AODE(n_bins="mdl", n_partitions=3)),
    (["--model", "tan"], nbparallel.TAN(n_bins="mdl", n_partitions=3)),
])
def test_fit_writes_the_model_the_library_fits(train_csv, tmp_path, capsys, argv, expected):
    path = tmp_path / "model.json"
    bins = str(expected.n_bins)
    assert main(["fit", str(train_csv), "--target", "y", "-o", str(path), "--bins", bins, "--partitions", "3",
                 "--quiet", *argv]) == 0
    assert "fitted 2 classes from 240 rows" in capsys.readouterr().out
    model = nbparallel.load(path)
    reference = expected.fit(str(train_csv), "y")
    assert type(model) is type(reference) and model.get_params() == {**reference.get_params(), "verbose": 0}
    assert model.pair_counts_.equals(reference.pair_counts_)
    np.testing.assert_array_equal(model.predict_proba(str(train_csv)), reference.predict_proba(str(train_csv)))


@pytest.mark.parametrize("model, cls", [("aode", nbparallel.AODE), ("tan", nbparallel.TAN)])
def test_cv_cross_validates_the_model(train_csv, capsys, model, cls):
    assert main(["cv", str(train_csv), "--target", "y", "--model", model, "--folds", "4", "--json", "--quiet"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = nbparallel.cross_validate(cls(), str(train_csv), "y", cv=4)
    assert printed["test_accuracy"] == pytest.approx(list(expected["test_accuracy"]), abs=1e-15)


@pytest.mark.parametrize("argv, message", [
    (["--model", "aode", "--alpha", "1"], "--alpha is not an option of --model aode"),
    (["--model", "tan", "--m-estimate", "2"], "--m-estimate is not an option of --model tan"),
    (["--model", "tan", "--gaussian"], "--gaussian is not an option of --model tan"),
    (["--link-score", "bayes"], "--link-score is an option of --model aode or tan, not of naive Bayes"),
])
def test_an_option_the_model_does_not_take_is_refused(train_csv, tmp_path, capsys, argv, message):
    assert main(["fit", str(train_csv), "--target", "y", "-o", str(tmp_path / "m.json"), "--quiet", *argv]) != 0
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()

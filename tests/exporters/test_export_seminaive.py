"""AODE and TAN exported to ONNX and scored by onnxruntime as the model scores (equal-width and MDL bins, missing
and unseen values, values beyond the bins), and PMML's refusal of them: one clear error each."""

import numpy as np
import pytest

import nbparallel as nb
from nbparallel.exporters import export
from tests.exporters.conftest import onnx_scores
from tests.models.test_aode_tan import make_frame

MODELS = {
    "AODE": lambda bins: nb.AODE(n_bins=bins),
    "AODE -F 30 -M": lambda bins: nb.AODE(n_bins=bins, frequency_limit=30, m_estimate=2.0),
    "TAN": lambda bins: nb.TAN(n_bins=bins),
    "TAN bayes": lambda bins: nb.TAN(n_bins=bins, alpha=1.0, link_score="bayes"),
}


def scored_rows(frame):
    """Training rows, and rows with an unseen category, a missing value in every column and values beyond the
    training range."""
    X = frame.drop(columns="y")
    odd = X.iloc[:6].copy()
    odd.loc[odd.index[0], "colour"] = "purple"  # unseen: scores as missing
    odd.loc[odd.index[1], ["colour", "size", "shape"]] = None
    odd.loc[odd.index[2], ["age", "visits"]] = np.nan
    odd.loc[odd.index[3], "age"] = 1e6
    odd.loc[odd.index[4], "visits"] = -50
    return X.__class__(np.vstack([X.to_numpy(dtype=object), odd.to_numpy(dtype=object)]), columns=X.columns) \
        .astype({"age": float, "visits": float})


@pytest.mark.parametrize("bins", [7, "mdl"])
@pytest.mark.parametrize("name", MODELS)
def test_onnx_scores_as_the_model(name, bins, tmp_path):
    frame = make_frame(400, seed=12)
    model = MODELS[name](bins).fit(frame, "y")
    rows = scored_rows(frame)
    path = tmp_path / "model.onnx"
    export(model, path)
    labels, probabilities = onnx_scores(path, rows, model.classes_)
    np.testing.assert_allclose(probabilities, model.predict_proba(rows), rtol=0, atol=1e-9)
    assert labels.tolist() == [str(v) for v in model.predict(rows)]


def test_an_aode_row_without_a_super_parent_is_scored_by_naive_bayes_in_onnx(tmp_path):
    frame = make_frame(300, seed=3, numeric=False)
    model = nb.AODE(frequency_limit=1000).fit(frame, "y")  # no value is seen 1000 times: naive Bayes everywhere
    X = frame.drop(columns="y")
    export(model, tmp_path / "model.onnx")
    naive = nb.NaiveBayes(alpha=1.0, class_alpha=1.0).fit(frame, "y")  # Laplace's estimates, as AODE's
    np.testing.assert_allclose(onnx_scores(tmp_path / "model.onnx", X, model.classes_)[1], naive.predict_proba(X),
                               rtol=0, atol=1e-9)


@pytest.mark.parametrize("cls, message", [
    (nb.AODE, "PMML has no model of averaged one-dependence estimators"),
    (nb.TAN, "PMML export of a TAN is not written"),
])
def test_pmml_refuses_them_with_one_clear_error(cls, message, tmp_path):
    model = cls().fit(make_frame(100, seed=1), "y")
    with pytest.raises(ValueError, match=message):
        export(model, tmp_path / "model.pmml")
    assert list(tmp_path.iterdir()) == []

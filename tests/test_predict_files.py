"""Prediction of files partition by partition (``nbparallel predict``'s route) against ``model.predict``.

The labels of each partition are taken from the classes by position (:meth:`predict_part`), and each
partition's task is tokenized without the model: the output must be what ``model.predict`` says, with the
dtype a DataFrame of those labels has, returned or written.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from dask.base import tokenize

from nbparallel import Files, NaiveBayes
from nbparallel.cli.scoring import PartitionOutput, predict_files

RNG = np.random.default_rng(11)


def write_parts(directory, frame, n_files):
    directory.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[rows].to_parquet(directory / f"part-{i}.parquet")
    return directory


@pytest.mark.parametrize("labels", ["strings", "integers", "floats"])
def test_predictions_of_files_equal_model_predict(tmp_path, labels):
    n = 900
    X = pd.DataFrame({f"a{j}": RNG.choice(["x", "y", "z", None], n) for j in range(4)})
    y = (X["a0"].fillna("w").map({"w": 0, "x": 1, "y": 2, "z": 3}) + RNG.integers(0, 2, n)) % 3
    X["y"] = {"strings": y.map({0: "no", 1: "yes", 2: "maybe"}), "integers": y * 10,
              "floats": y * 1.0}[labels]
    directory = write_parts(tmp_path / "data", X, 3)
    model = NaiveBayes().fit(directory, "y")
    want = pd.DataFrame({"prediction": model.predict(Files(directory, drop=["y"]))})
    proba = model.predict_proba(Files(directory, drop=["y"]))
    parts = predict_files(model, directory, proba=True)
    got = pd.concat(parts, ignore_index=True)
    pd.testing.assert_frame_equal(got[["prediction"]], want)
    np.testing.assert_allclose(got.drop(columns="prediction").to_numpy(), proba, rtol=0, atol=1e-12)
    assert predict_files(model, directory, directory=tmp_path / "out") == [300, 300, 300]
    written = pd.concat([pd.read_parquet(p) for p in sorted((tmp_path / "out").glob("part-*.parquet"))],
                        ignore_index=True)
    np.testing.assert_array_equal(written["prediction"].to_numpy(), want["prediction"].to_numpy())


def test_partition_tasks_are_tokenized_by_their_settings_not_their_model():
    predict = object()
    one = PartitionOutput(predict, [], None, None, 0)
    assert tokenize(one) == tokenize(PartitionOutput(predict, [], None, None, 0))
    assert tokenize(one) != tokenize(PartitionOutput(predict, [], None, None, 1))
    assert tokenize(one) != tokenize(PartitionOutput(object(), [], None, None, 0))

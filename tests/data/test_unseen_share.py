"""A column whose scored values are mostly unseen gets one warning with its share (issue 58 item 1).

An unseen category adds nothing to the scores, as a missing value; a column of such values was scored
silently. The share is checked against a plain Python count of the rows whose value is not among the
fitted ones (missing values are not unseen), across the input forms, the scoring methods and a Dask cluster.
"""

from __future__ import annotations

import re
import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from distributed import Client, LocalCluster

from nbparallel import NaiveBayes
from nbparallel.cli import main
from nbparallel.data.unseen import MOSTLY, UnseenTally, warn_mostly_unseen

FITTED = ["red", "green", "blue"]


def _model():
    colour = np.tile(FITTED, 20)
    size = np.tile([1, 2, 3, 4], 15)
    y = np.where(colour == "red", "a", "b")
    return NaiveBayes(categorical_features="all").fit(pd.DataFrame({"colour": colour, "size": size}), y)


def _scored(n_unseen, n_missing=0, n=40):
    """``n`` rows: ``n_unseen`` colours never fitted, ``n_missing`` missing, the rest fitted; sizes all fitted."""
    colour = ["purple"] * n_unseen + [None] * n_missing + ["red"] * (n - n_unseen - n_missing)
    return pd.DataFrame({"colour": colour, "size": np.tile([1, 2, 3, 4], n // 4)})


def _reference_share(frame, column, fitted):
    values = frame[column].tolist()
    return sum(1 for v in values if v is not None and not pd.isna(v) and v not in fitted) / len(values)


def _shares(caught):
    """``{column: share}`` read from the unseen-values warnings caught."""
    found = {}
    for w in caught:
        for name, share in re.findall(r"column '(\w+)': (\d+)% of the rows hold a value the model was not fitted",
                                      str(w.message)):
            found[name] = int(share) / 100
    return found


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if "not fitted on" in str(w.message)]


def _files(frame, tmp_path):
    parquet, csv = tmp_path / "scored.parquet", tmp_path / "scored.csv"
    frame.to_parquet(parquet, index=False)
    frame.to_csv(csv, index=False)
    return parquet, csv


FORMS = {
    "DataFrame": lambda frame, tmp_path: frame,
    "Dask DataFrame": lambda frame, tmp_path: dd.from_pandas(frame, npartitions=3),
    "Arrow table": lambda frame, tmp_path: pa.Table.from_pandas(frame, preserve_index=False),
    "Parquet file": lambda frame, tmp_path: str(_files(frame, tmp_path)[0]),
    "CSV file": lambda frame, tmp_path: str(_files(frame, tmp_path)[1]),
}

METHODS = {
    "predict": lambda m, X: m.predict(X),
    "predict_proba": lambda m, X: m.predict_proba(X),
    "explain": lambda m, X: m.explain(X),
}


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("form", list(FORMS))
def test_a_mostly_unseen_column_is_warned_with_its_share(form, method, tmp_path):
    model, frame = _model(), _scored(n_unseen=30, n_missing=4)
    caught = _caught(lambda: METHODS[method](model, FORMS[form](frame, tmp_path)))
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert _shares(caught) == {"colour": pytest.approx(_reference_share(frame, "colour", FITTED), abs=0.005)}
    assert "'red', 'green', 'blue'" in str(caught[0].message) or "'blue', 'green', 'red'" in str(caught[0].message)
    assert caught[0].filename == __file__  # the caller's line, not the library's


@pytest.mark.parametrize("form", list(FORMS))
def test_a_column_half_seen_or_missing_is_not_warned(form, tmp_path):
    model = _model()
    frame = _scored(n_unseen=20, n_missing=20)  # half unseen: not "mostly"; missing values are not unseen
    assert _reference_share(frame, "colour", FITTED) == MOSTLY
    assert _caught(lambda: model.predict(FORMS[form](frame, tmp_path))) == []


def test_score_evaluate_and_predict_to_warn_once_per_call(tmp_path):
    model, frame = _model(), _scored(n_unseen=36)
    y = ["a"] * len(frame)
    assert len(_caught(lambda: model.score(frame, y))) == 1
    assert len(_caught(lambda: model.evaluate(frame, y))) == 1
    parquet, _ = _files(frame, tmp_path)
    caught = _caught(lambda: model.predict_to(tmp_path / "out.parquet", str(parquet)))
    assert _shares(caught) == {"colour": 0.9}


def test_small_integer_arrays_coded_by_their_runs_warn_too():
    """A small integer array, coded by the fitted vocabularies' runs (CountedSplit), counts unseen integers as
    the schema's split of a larger array does."""
    from nbparallel.data.schema import SMALL_ROWS

    y = np.tile(["a", "b"], 30)
    model = NaiveBayes(categorical_features="all").fit(np.tile([[1], [2], [3]], (20, 1)), y)
    X = np.array([[7], [8], [9], [1]])
    small, large = _caught(lambda: model.predict(X)), _caught(lambda: model.predict(np.tile(X, (SMALL_ROWS, 1))))
    assert _shares(small) == _shares(large) == {"0": 0.75}


def test_the_cli_predict_warns(tmp_path):
    model, frame = _model(), _scored(n_unseen=40)
    model.save(tmp_path / "m.json")
    _, csv = _files(frame, tmp_path)
    caught = _caught(lambda: main(["predict", str(tmp_path / "m.json"), str(csv), "-o", str(tmp_path / "p.csv")]))
    assert _shares(caught) == {"colour": 1.0}


def test_the_tallies_come_back_from_a_cluster():
    model, frame = _model(), _scored(n_unseen=28)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        caught = _caught(lambda: model.predict(dd.from_pandas(frame, npartitions=4)))
    assert _shares(caught) == {"colour": 0.7}


def test_tallies_add_exactly_and_name_every_mostly_unseen_column():
    parts = [UnseenTally(), UnseenTally()]
    parts[0].add(10, {"a": 9, "b": 1})
    parts[1].add(30, {"a": 12, "b": 29, "c": 0})
    total = parts[0] + parts[1]
    assert (total.n_rows, total.by_column) == (40, {"a": 21, "b": 30})
    assert total.mostly_unseen() == {"a": 21 / 40, "b": 30 / 40}
    with pytest.warns(UserWarning) as caught:
        warn_mostly_unseen(total, lambda name: list(range(5)))
    assert len(caught) == 1 and "'a': 52%" in str(caught[0].message) and "'b': 75%" in str(caught[0].message)
    assert "0, 1, 2, ..." in str(caught[0].message)


def test_autoclass_clusters_warn_as_the_classifiers_do():
    from nbparallel import AutoClass

    colour = pd.DataFrame({"colour": np.tile(FITTED, 20), "size": np.tile([1, 2, 3, 4], 15)})
    model = AutoClass(n_clusters=2, categorical_features="all", random_state=0).fit(colour)
    assert _shares(_caught(lambda: model.predict(_scored(n_unseen=32)))) == {"colour": 0.8}

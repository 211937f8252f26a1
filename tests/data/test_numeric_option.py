"""``numeric_features`` and ``--numeric``: columns forced numeric, text in them parsed to numbers.

The reference is always the model of the same data with a clean float column
(missing values as NaN), and for the counts of the Weka-style file a plain
counter of its rows.
"""

from collections import Counter

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from nbparallel import AutoClass, BoostedNaiveBayes, NaiveBayes, load
from nbparallel.cli import main
from nbparallel.data.columns import NUMERIC
from nbparallel.data.files.options import Files


def _credit(n=240, seed=0):
    """A credit-g-like table: a numeric duration with missing values, a categorical purpose, a class."""
    rng = np.random.default_rng(seed)
    duration = rng.integers(4, 73, n).astype(float)
    duration[rng.random(n) < 0.1] = np.nan
    purpose = rng.choice(["car", "tv", "education", "business"], n)
    good = (duration < 30) ^ (rng.random(n) < 0.25)
    return pd.DataFrame({"duration": duration, "purpose": purpose, "class": np.where(good, "good", "bad")})


def _weka(clean):
    """The same table as a Weka export writes it: ``?`` for a missing number."""
    weka = clean.astype({"duration": object})
    weka.loc[clean["duration"].isna(), "duration"] = "?"
    return weka


def _attribute(model, name):
    position = [at.name for at in model.schema_.attributes].index(name)
    return position, model.schema_.attributes[position]


# ------------------------------------------------------------------ files and the command line


def test_weka_csv_with_na_values_and_numeric_gives_the_clean_model(tmp_path):
    clean = _credit()
    _weka(clean).to_csv(tmp_path / "weka.csv", index=False)
    clean.to_csv(tmp_path / "clean.csv", index=False)
    assert "?" in (tmp_path / "weka.csv").read_text()
    assert main(["fit", str(tmp_path / "weka.csv"), "--target", "class", "-o", str(tmp_path / "weka.json"),
                 "--na-values", "?", "--numeric", "duration", "--quiet"]) == 0
    assert main(["fit", str(tmp_path / "clean.csv"), "--target", "class", "-o", str(tmp_path / "clean.json"),
                 "--quiet"]) == 0
    weka, reference = load(tmp_path / "weka.json"), load(tmp_path / "clean.json")
    assert weka.feature_kinds_ == {"duration": "numeric", "purpose": "categorical"}
    assert weka.counts_.equals(reference.counts_)
    assert weka.numeric_features == ["duration"]

    # a plain counter of the file's rows: the missing row of duration, and its equal-width bins, per class
    raw = pd.read_csv(tmp_path / "weka.csv", dtype=str)
    a, attribute = _attribute(weka, "duration")
    classes = list(weka.classes_)
    table = weka.counts_.table
    offset = weka.counts_.offsets[a]
    marks = Counter(raw.loc[raw["duration"] == "?", "class"])
    assert table[offset].tolist() == [marks[c] for c in classes]
    known = raw[raw["duration"] != "?"]
    bins = np.searchsorted(attribute.edges(), known["duration"].astype(float), side="left")  # right-closed
    for k, c in enumerate(classes):
        expected = np.bincount(bins[known["class"].to_numpy() == c], minlength=attribute.n_bins)
        assert table[offset + 1 : offset + 1 + attribute.n_bins, k].tolist() == expected.tolist()


def test_numeric_without_na_values_names_the_column_and_the_mark(tmp_path, capsys):
    # numbers and one mark such as '?': read as numbers, the mark missing, with a warning naming both
    _weka(_credit()).to_csv(tmp_path / "weka.csv", index=False)
    status = main(["fit", str(tmp_path / "weka.csv"), "--target", "class", "-o", str(tmp_path / "m.json"),
                   "--numeric", "duration", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert status == 0
    assert len(err.splitlines()) == 1 and "warning" in err
    assert "'duration'" in err and "'?'" in err and "na-values" in err
    assert load(tmp_path / "m.json").counts_.equals(NaiveBayes().fit(_credit(), "class").counts_)


@pytest.mark.parametrize("command", [
    ["fit", "--target", "class", "-o", "{out}"],
    ["fit", "--target", "class", "-o", "{out}", "--boost", "2"],
    ["cv", "--target", "class", "--folds", "3"],
    ["select", "--target", "class", "-o", "{out}"],
    ["cluster-fit", "--clusters", "2", "-o", "{out}"],
])
def test_numeric_naming_an_unknown_column_is_one_line_and_exit_2(tmp_path, capsys, command):
    _credit().to_csv(tmp_path / "clean.csv", index=False)
    args = [a.format(out=tmp_path / "m.json") for a in command]
    status = main([args[0], str(tmp_path / "clean.csv"), *args[1:], "--numeric", "durration", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert len(err.splitlines()) == 1
    assert "'durration'" in err and err.startswith(f"nbparallel {args[0]}: error:")


def test_every_command_with_categorical_takes_numeric(tmp_path, capsys):
    clean = _credit()
    _weka(clean).to_csv(tmp_path / "weka.csv", index=False)
    opts = ["--na-values", "?", "--numeric", "duration", "--quiet"]
    data = str(tmp_path / "weka.csv")
    assert main(["fit", data, "--target", "class", "-o", str(tmp_path / "b.json"), "--boost", "2", *opts]) == 0
    assert main(["select", data, "--target", "class", "-o", str(tmp_path / "s.json"), *opts]) == 0
    assert main(["cluster-fit", data, "--clusters", "2", "-o", str(tmp_path / "c.json"), "--drop", "class",
                 "--seed", "0", *opts]) == 0
    assert main(["cv", data, "--target", "class", "--folds", "3", *opts]) == 0
    boosted = BoostedNaiveBayes(n_rounds=2).fit(clean, "class")
    assert load(tmp_path / "b.json").estimators_[0].counts_.equals(boosted.estimators_[0].counts_)
    assert load(tmp_path / "s.json").schema_.feature_kinds["duration"] == NUMERIC
    clusters = AutoClass(n_clusters=2, random_state=0).fit(clean.drop(columns="class"))
    assert np.array_equal(load(tmp_path / "c.json").counts_, clusters.counts_)


def test_predict_parses_text_in_the_models_numeric_columns(tmp_path):
    clean = _credit()
    weka = _weka(clean)
    weka.to_csv(tmp_path / "weka.csv", index=False)
    # a Parquet file whose duration column is text: the model's numeric column is parsed when predicting
    weka.astype({"duration": str}).to_parquet(tmp_path / "weka.parquet")
    assert main(["fit", str(tmp_path / "weka.csv"), "--target", "class", "-o", str(tmp_path / "m.json"),
                 "--na-values", "?", "--numeric", "duration", "--quiet"]) == 0
    assert main(["predict", str(tmp_path / "m.json"), str(tmp_path / "weka.parquet"), "-o",
                 str(tmp_path / "p.csv"), "--na-values", "?", "--quiet"]) == 0
    reference = NaiveBayes().fit(clean, "class").predict(clean.drop(columns="class"))
    assert pd.read_csv(tmp_path / "p.csv")["prediction"].tolist() == reference.tolist()


# ------------------------------------------------------------------ the Python API


def test_object_column_of_numeric_strings_forced_numeric_equals_the_float_model():
    clean = _credit()
    text = clean.astype({"duration": object})
    text["duration"] = [None if np.isnan(v) else f"{v:g}" for v in clean["duration"]]
    reference = NaiveBayes().fit(clean, "class")
    with _no_warning():
        model = NaiveBayes(numeric_features=["duration"]).fit(text, "class")
    assert model.feature_kinds_["duration"] == "numeric"
    assert model.counts_.equals(reference.counts_)
    assert model.predict(text.drop(columns="class")).tolist() == reference.predict(clean.drop(columns="class")).tolist()
    # the same by index, on a Dask DataFrame, and on an object ndarray
    assert NaiveBayes(numeric_features=[0]).fit(text, "class").counts_.equals(reference.counts_)
    frame = dd.from_pandas(text, npartitions=3)
    assert NaiveBayes(numeric_features=["duration"]).fit(frame, "class").counts_.equals(reference.counts_)
    array = NaiveBayes(numeric_features=[0]).fit(text[["duration", "purpose"]].to_numpy(), text["class"])
    assert array.feature_kinds_ == {"0": "numeric", "1": "categorical"}
    assert np.array_equal(array.counts_.table, reference.counts_.table)
    assert np.array_equal(array.counts_.offsets, reference.counts_.offsets)


class _no_warning:
    """No UserWarning may be raised inside (numeric_features says what the column is)."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error", UserWarning)

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)


def test_numeric_features_overrides_all_and_counts_integers_in_bins():
    clean = _credit().fillna({"duration": 10.0})
    clean["duration"] = clean["duration"].astype(int)
    model = NaiveBayes(categorical_features="all", numeric_features=["duration"]).fit(clean, "class")
    assert model.feature_kinds_ == {"duration": "numeric", "purpose": "categorical"}
    assert model.counts_.equals(NaiveBayes().fit(clean, "class").counts_)


def test_unparseable_value_names_the_column_and_the_value(tmp_path):
    text = _credit().astype({"duration": object})
    text.loc[7, "duration"] = "12 months"
    with pytest.raises(ValueError, match=r"column 'duration' .*'12 months'.*not a number"):
        NaiveBayes(numeric_features=["duration"]).fit(text, "class")
    text.astype({"duration": str}).to_parquet(tmp_path / "t.parquet")
    with pytest.raises(ValueError, match=r"column 'duration' of file '.*t\.parquet'.*'12 months'"):
        NaiveBayes(numeric_features=["duration"]).fit(tmp_path / "t.parquet", "class")
    text.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(ValueError, match=r"column 'duration' of CSV file '.*t\.csv'.*'12 months'"):
        NaiveBayes(numeric_features=["duration"]).fit(Files(tmp_path / "t.csv", na_values="?"), "class")


def test_parquet_text_column_forced_numeric_equals_the_float_model(tmp_path):
    clean = _credit()
    _weka(clean).astype({"duration": str}).to_parquet(tmp_path / "weka.parquet")
    reference = NaiveBayes().fit(clean, "class")
    model = NaiveBayes(numeric_features=["duration"]).fit(Files(tmp_path / "weka.parquet", na_values="?"), "class")
    assert model.counts_.equals(reference.counts_)
    also = NaiveBayes().fit(Files(tmp_path / "weka.parquet", na_values="?", numeric_features=["duration"]), "class")
    assert also.counts_.equals(reference.counts_)


def test_csv_directory_counts_do_not_depend_on_partitions(tmp_path):
    clean = _credit(n=300)
    weka = _weka(clean)
    (tmp_path / "parts").mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(weka)), 3)):
        weka.iloc[rows].to_csv(tmp_path / "parts" / f"part-{i}.csv", index=False)
    reference = NaiveBayes().fit(clean, "class")
    for n_partitions in (None, 1, 5):
        model = NaiveBayes(numeric_features=["duration"], n_partitions=n_partitions, split_every=2)
        model.fit(Files(tmp_path / "parts", na_values=["?"]), "class")
        assert model.counts_.equals(reference.counts_)


def test_refused_selections():
    frame = _credit()
    with pytest.raises(ValueError, match="numeric_features names column 'nope'"):
        NaiveBayes(numeric_features=["nope"]).fit(frame, "class")
    with pytest.raises(ValueError, match="numeric_features index 5 is out of range"):
        NaiveBayes(numeric_features=[5]).fit(frame, "class")
    with pytest.raises(ValueError, match="'duration' is named in both categorical_features and numeric_features"):
        NaiveBayes(categorical_features=["duration"], numeric_features=["duration"]).fit(frame, "class")
    with pytest.raises(ValueError, match="numeric_features"):
        NaiveBayes(numeric_features="duration").fit(frame, "class")
    with pytest.raises(TypeError, match="numeric_features"):
        Files("x.csv", numeric_features="duration")
    dated = frame.assign(when=pd.date_range("2020-01-01", periods=len(frame)))
    with pytest.raises(TypeError, match="column 'when' holds dates and times"):
        NaiveBayes(numeric_features=["when"]).fit(dated, "class")


def test_date_column_in_a_csv_forced_numeric_is_a_type_error(tmp_path):
    frame = _credit().assign(when=pd.date_range("2020-01-01", periods=240).date)
    frame.to_csv(tmp_path / "dated.csv", index=False)
    with pytest.raises(TypeError, match="column 'when' holds dates"):
        NaiveBayes(numeric_features=["when"]).fit(tmp_path / "dated.csv", "class")


def test_numeric_features_survives_the_model_file(tmp_path):
    clean = _credit()
    text = clean.astype({"duration": str})
    model = NaiveBayes(numeric_features=["duration"]).fit(text, "class")
    model.save(tmp_path / "m.json")
    again = load(tmp_path / "m.json")
    assert again.numeric_features == ["duration"]
    assert again.predict(text.drop(columns="class")).tolist() == model.predict(text.drop(columns="class")).tolist()

"""The command line of issue 23: cv's folds and JSON, --gaussian, text models evaluated, complement models,
a closed pipe, lazy imports, outputs where the user asks."""

import json
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.naive_bayes import ComplementNB, GaussianNB

from nbparallel import NaiveBayes, cross_validate, load
from nbparallel.cli import main


@pytest.fixture(scope="module")
def iris_csv(tmp_path_factory):
    """Iris sorted by class, as Weka's file is."""
    data = load_iris(as_frame=True)
    frame = data.data.assign(cls=np.asarray(data.target_names)[data.target])
    path = tmp_path_factory.mktemp("iris") / "iris.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_cv_warns_on_sorted_folds_and_stratify_fixes_it(iris_csv, capsys):
    path, frame = iris_csv
    assert main(["cv", str(path), "--target", "cls", "--folds", "3", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "fold 0: its test rows hold classes ['setosa'] that its training rows lack" in err
    assert main(["cv", str(path), "--target", "cls", "--folds", "3", "--stratify", "--quiet", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "warning" not in err
    result = json.loads(out)
    expected = cross_validate(NaiveBayes(), frame.drop(columns="cls"), frame.cls, cv=3, stratify=True)
    assert result["test_accuracy"] == expected["test_accuracy"].tolist()
    assert result["n_test_rows"] == [50, 50, 50] and result["classes"] == ["setosa", "versicolor", "virginica"]
    assert result["folds"] == {"n_splits": 3, "n_repeats": 1, "shuffle": False, "stratify": True,
                               "random_state": None}
    assert min(result["test_accuracy"]) > 0.85


def test_cv_shuffle_repeats_seed_and_gaussian(iris_csv, capsys):
    path, frame = iris_csv
    args = ["cv", str(path), "--target", "cls", "--folds", "5", "--shuffle", "--stratify", "--repeats", "2",
            "--seed", "4", "--gaussian", "--class-alpha", "1e-12", "--quiet", "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["test_accuracy"]) == 10 and result["repeat"] == [0] * 5 + [1] * 5
    assert [p["kind"] for p in result["passes"]] == ["schema", "count", "score"]
    expected = cross_validate(NaiveBayes(numeric="gaussian", class_alpha=1e-12), frame.drop(columns="cls"),
                              frame.cls, cv=5, shuffle=True, stratify=True, n_repeats=2, random_state=4)
    np.testing.assert_allclose(result["test_accuracy"], expected["test_accuracy"])
    assert main(["cv", str(path), "--target", "cls", "--repeats", "2"]) == 2
    assert "--repeats 2 needs --shuffle" in capsys.readouterr().err


def test_fit_gaussian_columns_equal_gaussian_nb(iris_csv, tmp_path, capsys):
    path, frame = iris_csv
    model_path = tmp_path / "g.json"
    columns = list(frame.columns[:2])
    assert main(["fit", str(path), "--target", "cls", "--gaussian", *columns, "-o", str(model_path),
                 "--quiet"]) == 0
    model = load(model_path)
    assert model.gaussian_features_ == columns
    assert main(["fit", str(path), "--target", "cls", "--gaussian", "--class-alpha", "1e-12", "-o",
                 str(model_path), "--quiet"]) == 0
    model = load(model_path)
    X = frame.drop(columns="cls")
    np.testing.assert_array_equal(model.predict(X), GaussianNB().fit(X, frame.cls).predict(X))


def text_files(tmp_path):
    rng = np.random.default_rng(0)
    words = {"spam": ["win", "money", "free", "offer"], "ham": ["meeting", "lunch", "report", "team"]}
    labels = rng.choice(["spam", "ham"], 80, p=[0.3, 0.7])
    docs = [" ".join(rng.choice(words[c] + ["the", "a"], 8)) for c in labels]
    (tmp_path / "docs.txt").write_text("\n".join(docs) + "\n")
    (tmp_path / "labels.txt").write_text("\n".join(labels) + "\n")
    return tmp_path / "docs.txt", tmp_path / "labels.txt", docs, labels


def test_text_fit_complement_and_evaluate_text_models(tmp_path, capsys):
    docs_path, labels_path, docs, labels = text_files(tmp_path)
    model_path = tmp_path / "c.json"
    assert main(["text-fit", str(docs_path), "--labels", str(labels_path), "--model", "complement",
                 "--hashing-bits", "10", "-o", str(model_path)]) == 0
    model = load(model_path)
    from sklearn.feature_extraction.text import HashingVectorizer

    X = HashingVectorizer(n_features=2**10, alternate_sign=False, norm=None).transform(docs)
    reference = ComplementNB().fit(X, labels)
    np.testing.assert_allclose(model.feature_log_prob_, reference.feature_log_prob_, rtol=1e-12)
    capsys.readouterr()
    assert main(["evaluate", str(model_path), str(docs_path), "--labels", str(labels_path), "--json",
                 "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["accuracy"] == pytest.approx(reference.score(X, labels))
    # class priors on the command line, for the multinomial model
    assert main(["text-fit", str(docs_path), "--labels", str(labels_path), "--class-prior", "spam=0.5",
                 "ham=0.5", "--hashing-bits", "10", "-o", str(model_path)]) == 0
    np.testing.assert_allclose(np.exp(load(model_path).class_log_prior_), [0.5, 0.5])
    assert main(["text-fit", str(docs_path), "--labels", str(labels_path), "--class-prior", "spam=0.5",
                 "-o", str(model_path)]) == 2
    assert "missing ['ham']" in capsys.readouterr().err


def run(args, **kwargs):
    return subprocess.run([sys.executable, "-m", "nbparallel.cli", *args], capture_output=True, text=True,
                          check=False, **kwargs)


def test_closed_pipe_ends_quietly_with_status_zero(iris_csv, tmp_path):
    path, _ = iris_csv
    model_path = tmp_path / "m.json"
    assert main(["fit", str(path), "--target", "cls", "-o", str(model_path), "--quiet"]) == 0
    done = subprocess.run(f"{sys.executable} -m nbparallel.cli evaluate {model_path} {path} --quiet | head -1",
                          shell=True, capture_output=True, text=True, executable="/bin/bash",
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}, check=False)
    assert done.stdout.startswith("rows")
    assert "Broken pipe" not in done.stderr and "error" not in done.stderr


def test_help_imports_no_library():
    code = ("import sys; from nbparallel.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('pandas', 'numba', 'sklearn', 'dask', 'scipy') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_langley_writes_into_the_current_directory_by_default(tmp_path):
    done = run(["langley", "1b", "--runs", "3", "--quiet"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "langley_fig1b.png").exists() and not (tmp_path / "benchmarks").exists()


def test_one_labelled_progress_line_per_command(iris_csv, tmp_path, capsys):
    path, _ = iris_csv
    assert main(["fit", str(path), "--target", "cls", "-o", str(tmp_path / "b.json"), "--boost", "2"]) == 0
    err = capsys.readouterr().err
    states = [s.strip() for s in err.split("\r") if s.strip()]
    labels = {s.split("[")[0].strip() for s in states if "[" in s}
    assert {"schema", "count", "boosting round 1/2", "boosting round 2/2"} <= labels
    assert "Completed" not in err  # no Dask bar of its own per pass
    assert main(["fit", str(path), "--target", "cls", "-o", str(tmp_path / "q.json"), "--quiet"]) == 0
    assert "[" not in capsys.readouterr().err


def test_delimiter_and_encoding_reach_the_files(tmp_path, capsys):
    import pandas as pd

    frame = pd.DataFrame({"città": ["Forlì", "Torino", "Forlì", "Bari"] * 5,
                                            "y": ["sì", "no", "sì", "no"] * 5})
    path = tmp_path / "semi.csv"
    frame.to_csv(path, sep=";", index=False, encoding="latin-1")
    model_path = tmp_path / "m.json"
    assert main(["fit", str(path), "--target", "y", "--delimiter", ";", "--encoding", "latin-1", "-o",
                 str(model_path), "--quiet"]) == 0
    assert list(load(model_path).feature_names_in_) == ["città"]
    with pytest.raises(SystemExit) as exit_status:  # a usage error, as argparse reports them
        main(["fit", str(path), "--target", "y", "--storage-option", "nonsense", "-o", str(model_path)])
    assert exit_status.value.code == 2 and "must be KEY=VALUE" in capsys.readouterr().err


def test_class_priors_on_the_command_line_equal_categorical_nb_with_class_prior(tmp_path, capsys):
    from sklearn.naive_bayes import CategoricalNB

    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (300, 4))
    y = np.where(X[:, 0] + rng.integers(0, 2, 300) > 2, "yes", "no")
    import pandas as pd

    path = tmp_path / "d.csv"
    pd.DataFrame(X, columns=list("abcd")).assign(t=y).to_csv(path, index=False)
    model_path = tmp_path / "p.json"
    assert main(["fit", str(path), "--target", "t", "--alpha", "1", "--class-prior", "yes=0.8", "no=0.2",
                 "--categorical", "a", "b", "c", "d", "-o", str(model_path), "--quiet"]) == 0
    model = load(model_path)
    reference = CategoricalNB(alpha=1.0, class_prior=[0.2, 0.8]).fit(X, y)
    frame = pd.DataFrame(X, columns=list("abcd"))  # the file's integers, read as categories
    np.testing.assert_allclose(model.predict_proba(frame), reference.predict_proba(X), rtol=1e-10)
    assert main(["fit", str(path), "--target", "t", "--class-prior", "yes=0.8", "-o", str(model_path)]) == 2
    assert "missing ['no']" in capsys.readouterr().err
    with pytest.raises(ValueError, match="class_prior must be non-negative and sum to 1"):
        NaiveBayes(class_prior=[0.5, 0.6]).fit(frame, y)

"""The command line with ``--spark`` and ``--ray``: the data files read by the engine, the same model and
predictions as the same command without it, and the engine's options checked.

Every command runs as a user runs it, in a process of its own. The Spark Connect variant needs this test
process's local Connect server (at the free port it bound), whose Python workers import the installed package.
"""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from tests.engine.spark_sessions import connect_url, mixed_frame

#: each engine's option, and the xdist group of its tests
ENGINES = {
    "spark-classic": (["--spark", "local[2,2]"], "spark"),
    "spark-connect": (["--spark"], "spark"),  # and the address of this process's local Connect server
    "ray": (["--ray", "local"], "ray"),
}
SPARK_ENV = {"PYSPARK_SUBMIT_ARGS": "--conf spark.ui.enabled=false pyspark-shell"}


def engine_params(names):
    return [pytest.param(name, marks=pytest.mark.xdist_group(ENGINES[name][1]), id=name) for name in names]


def run_cli(*argv, code="from nbparallel.cli import main; sys.exit(main())"):
    import os

    env = {name: value for name, value in os.environ.items() if not name.startswith("SPARK_")}  # a Connect
    return subprocess.run([sys.executable, "-c", f"import sys; {code}", *map(str, argv)], capture_output=True,
                          text=True, timeout=600, env={**env, **SPARK_ENV})  # session of this process sets them


def engine_option(name):
    if name == "spark-connect":
        return [*ENGINES[name][0], connect_url()]
    return ENGINES[name][0]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The same rows as three Parquet files and three CSV files of uneven sizes (missing values written as NA
    in the CSV files, which the local reader reads as missing), and a model fitted on them without engine."""
    root = tmp_path_factory.mktemp("engines")
    frame = mixed_frame(n=900).drop(columns="w").assign(id=np.arange(900))
    for kind in ("parquet", "csv"):
        (root / kind).mkdir()
    for i, (start, stop) in enumerate([(0, 500), (500, 600), (600, 900)]):
        part = frame.iloc[start:stop]
        part.to_parquet(root / "parquet" / f"part-{i}.parquet", index=False)
        part.to_csv(root / "csv" / f"part-{i}.csv", index=False, na_rep="NA")
    done = run_cli("fit", root / "parquet", "--target", "label", "--drop", "id", "-o", root / "model.json",
                   "--quiet")
    assert done.returncode == 0, done.stderr
    return root


def fitted_counts(path):
    """A model file's fitted state less its reduction tree, which follows the partitions."""
    fitted = json.loads(path.read_text())["fitted"]
    assert fitted.pop("reduction")["n_leaves"] >= 1
    return fitted


#: each engine reads both formats; Spark's two modes share their reader, so each reads one
ENGINE_FORMATS = [("spark-classic", "parquet"), ("spark-connect", "csv"), ("ray", "parquet"), ("ray", "csv")]


@pytest.mark.parametrize("engine, kind", [pytest.param(name, kind, marks=pytest.mark.xdist_group(ENGINES[name][1]),
                                                       id=f"{name}-{kind}") for name, kind in ENGINE_FORMATS])
def test_fit_and_predict_through_the_engine_write_what_the_local_route_writes(data, tmp_path, engine, kind):
    option = engine_option(engine)
    fit = ["fit", data / kind, "--target", "label", "--drop", "id", "--quiet"]
    local = run_cli(*fit, "-o", tmp_path / "local.json")
    assert local.returncode == 0, local.stderr
    done = run_cli(*fit, "-o", tmp_path / "engine.json", *option)
    assert done.returncode == 0, done.stderr
    assert fitted_counts(tmp_path / "engine.json") == fitted_counts(tmp_path / "local.json")
    assert fitted_counts(tmp_path / "local.json")["counts"]["class_totals"] == [
        float(v) for v in pd.read_parquet(data / "parquet")["label"].value_counts().sort_index()]

    predict = ["predict", data / "model.json", data / kind, "--proba", "--keep", "id", "--quiet"]
    local = run_cli(*predict, "-o", tmp_path / "local.csv")
    assert local.returncode == 0, local.stderr
    done = run_cli(*predict, "-o", tmp_path / "engine.csv", *option)
    assert done.returncode == 0, done.stderr
    assert "900 predictions written" in done.stdout
    written = (tmp_path / "engine.csv").read_bytes()
    assert written == (tmp_path / "local.csv").read_bytes()  # the rows in the files' order
    assert pd.read_csv(tmp_path / "engine.csv")["id"].tolist() == list(range(900))


@pytest.mark.parametrize("engine", engine_params(["spark-classic", "ray"]))
def test_cv_and_evaluate_through_the_engine_count_the_same_folds(data, engine):
    option = engine_option(engine)
    cv = ["cv", data / "csv", "--target", "label", "--drop", "id", "--folds", "3", "--shuffle", "--seed", "7",
          "--json", "--quiet"]
    local, done = run_cli(*cv), run_cli(*cv, *option)
    assert local.returncode == 0 and done.returncode == 0, local.stderr + done.stderr
    expected, got = json.loads(local.stdout), json.loads(done.stdout)
    for key in ("n_test_rows", "test_accuracy"):  # counts: the folds are the same rows
        assert got[key] == expected[key]
    np.testing.assert_allclose(got["test_log_likelihood"], expected["test_log_likelihood"], rtol=1e-12)

    evaluate = ["evaluate", data / "model.json", data / "parquet", "--json", "--quiet"]
    local, done = run_cli(*evaluate), run_cli(*evaluate, *option)
    assert local.returncode == 0 and done.returncode == 0, local.stderr + done.stderr
    expected, got = json.loads(local.stdout), json.loads(done.stdout)
    assert got["confusion_matrix"] == expected["confusion_matrix"] and got["n_rows"] == 900


@pytest.mark.parametrize("engine, config", [
    pytest.param("spark-classic", "kind: spark\noptions:\n  master: local[2,2]\n  conf: {spark.ui.enabled: false}\n",
                 marks=pytest.mark.xdist_group("spark"), id="spark"),
    pytest.param("ray", "kind: ray\noptions: {address: local, num_cpus: 2}\n", marks=pytest.mark.xdist_group("ray"),
                 id="ray"),
])
def test_a_cluster_config_of_an_engine_drives_the_fit_the_option_does(data, tmp_path, engine, config):
    (tmp_path / "engine.yaml").write_text(config)
    fit = ["fit", data / "csv", "--target", "label", "--drop", "id", "--quiet"]
    by_option = run_cli(*fit, "-o", tmp_path / "option.json", *engine_option(engine))
    by_config = run_cli(*fit, "-o", tmp_path / "config.json", "--cluster", tmp_path / "engine.yaml")
    assert by_option.returncode == 0 and by_config.returncode == 0, by_option.stderr + by_config.stderr
    option, configured = (json.loads((tmp_path / name).read_text())["fitted"] for name in ("option.json",
                                                                                           "config.json"))
    assert configured == option  # the reduction too: the engine read the same partitions


@pytest.mark.parametrize("argv, message", [
    (["--spark", "local(2)"], "a Spark master is one of"),
    (["--spark", "spark://host"], "a Spark master is one of"),
    (["--ray", "head node"], "a Ray address is one of"),
    (["--spark", "local[2]", "--scheduler", "tcp://127.0.0.1:8786"], "not allowed with argument"),
    (["--ray", "local", "--cluster", "cluster_configs/local.yaml"], "not allowed with argument"),
    (["--spark", "local[2]", "--ray", "local"], "not allowed with argument"),
])
def test_bad_engine_options_are_one_line_usage_errors(data, tmp_path, argv, message):
    done = run_cli("fit", data / "csv", "--target", "label", "-o", tmp_path / "m.json", *argv)
    assert done.returncode == 2 and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("argv, package", [(["--spark", "local[2]"], "pyspark"), (["--ray", "local"], "ray")])
def test_a_missing_engine_names_the_extra_to_install(data, tmp_path, argv, package):
    extra = "spark" if package == "pyspark" else "ray"
    done = run_cli("fit", data / "csv", "--target", "label", "-o", tmp_path / "m.json", *argv,
                   code=f"sys.modules[{package!r}] = None; from nbparallel.cli import main; sys.exit(main())")
    assert done.returncode == 2 and f"pip install 'nbparallel[{extra}]'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.xdist_group("spark")
def test_options_the_engine_cannot_honour_are_refused(data, tmp_path):
    done = run_cli("predict", data / "model.json", data / "csv", "-o", f"{tmp_path}/out/", "--spark", "local[2]")
    assert done.returncode == 2 and "not a directory" in done.stderr
    (tmp_path / "data.arff").write_text("@relation r\n@attribute a {x,y}\n@attribute label {p,q}\n@data\nx,p\ny,q\n")
    done = run_cli("fit", tmp_path / "data.arff", "--target", "label", "-o", tmp_path / "m.json", "--spark",
                   "local[2]")
    assert done.returncode == 2 and "reads CSV and Parquet files" in done.stderr.splitlines()[-1]

"""Smoke run of every benchmark experiment on tiny sizes (``--quick``)."""

import importlib.util
import json
from pathlib import Path

import pandas as pd
import pytest

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"

COLUMNS = {
    "strong": {"series", "workers", "rows", "partitions", "best_s", "speedup", "efficiency"},
    "weak": {"series", "workers", "rows", "partitions", "best_s", "speedup", "efficiency"},
    "reduction": {"size", "cells", "partitions", "strategy", "height", "ceil_log2_P", "merges", "best_s"},
    "model": {"kind", "strategy", "partitions", "measured_s", "predicted_s", "relative_error"},
    "peers": {"trainer", "rows", "workers", "best_s", "ns_per_cell", "ratio_to_nbparallel"},
    "boosting": {"model", "pass", "kind", "seconds", "height"},
    "inputs": {"input", "tool", "rows", "workers", "best_s", "ns_per_cell"},
    "network": {"rate", "size", "summary_bytes", "hosts", "strategy", "best_s", "model_s", "model_error"},
    "passes": {"input", "rows", "classes", "pass", "best_s", "per_unit_s", "runs", "ratio_to_fit"},
    "gaussian": {"measure", "classes", "nbparallel_s", "reference_s", "ratio", "partitions", "relative_error"},
    "latency": {"measure", "kind", "peer", "nbparallel_s", "peer_s", "ratio", "target"},
    "limits": {"data", "pass", "bytes", "seconds", "ns_per_cell", "read_s", "ratio_to_read"},
    "seminaive": {"part", "dataset", "model", "nbparallel", "weka", "measure", "seconds"},
    "engines": {"measure", "seconds", "rows", "ns_per_cell"},
    "cv": {"experiment", "method", "rows", "k", "seconds", "speedup_of_one_pass", "one_pass_accuracy"},
    "cv_family": {"experiment", "method", "rows", "k", "seconds", "mean_accuracy", "speedup_of_one_pass"},
    "kernel": {"way", "ns_per_cell", "rows"},
    "langley": {"figure", "training_sets", "engine_best_s", "loop_s_per_fit", "loop_extrapolated_s", "speedup"},
    "partial_fit_ranges": {"name", "fit", "partial_fit_first_batch_ranges", "partial_fit_numeric_ranges",
                           "same_counts_as_fit"},
    "explain": {"numeric", "rows", "predict_proba_s", "explain_s", "ratio", "parts_ratio"},
    "factorize": {"input", "rows", "distinct", "pandas_over_factorize", "arrow_over_factorize"},
    "encoding": {"input", "rows", "fit_ns_per_cell", "kernel_ns_per_cell", "ratio"},
    "startup": {"measure", "step", "seconds"},
    "selection": {"method", "rows", "predictors", "selected", "seconds", "passes", "informative_chosen"},
    "predict_files": {"layout", "rows", "files", "peak_rss_mib", "seconds", "output_files"},
    "text": {"system", "fit_seconds", "speedup_of_nbparallel_2_workers", "documents", "features"},
    "memory_encoding": {"kind", "rows", "input_mb", "peak_rss_growth_mb", "peak_over_input"},
    "input_sizes": {"table_rows", "input", "tool", "ns_per_cell"},
    "mdl": {"dataset", "rows", "numeric", "nbparallel_equal_width_10", "nbparallel_mdl", "weka_nb_D"},
    "mdl_costs": {"n_bins", "fit_s", "rows"},
    "fresh_memory": {"setting", "mib", "pause_s", "seconds"},
    "memory_limit": {"rows", "files", "workers", "local_fit_s", "limited_fit_s", "identical_counts",
                     "workers_restarted"},
    "object_store": {"source", "seconds"},
    "out_of_core": {"format", "rows", "files", "seconds", "client_peak_mib", "worker_peak_mib"},
    "out_of_core_rows": {"rows", "files", "fit_s", "fit_peak_rss", "partitions"},
}
#: the extra options of a smoke run (Spark's JVM takes longer than the rest of the run)
OPTIONS = {"text": ["--no-spark"]}
#: experiments whose result has a figure (``EXPERIMENT.png``)
PLOTTED = {"strong", "weak", "reduction", "model", "peers", "boosting", "inputs", "network", "passes", "gaussian",
           "latency", "limits", "text", "seminaive", "engines"}


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("benchmarks_run", RUN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("experiment", [pytest.param(e, marks=pytest.mark.xdist_group("network namespaces"))
                                        if e == "network" else e for e in COLUMNS])
def test_quick_run_writes_results(harness, experiment, tmp_path, capsys):
    if experiment == "network":  # emulated hosts: network namespaces, root
        from harness.netns import available

        ok, why = available()
        if not ok:
            pytest.skip(f"network namespaces refused on this machine: {why}")
    assert harness.main([experiment, "--quick", "--results-dir", str(tmp_path), *OPTIONS.get(experiment, [])]) == 0
    out = capsys.readouterr().out
    assert f"## {experiment} (quick)" in out
    assert "PASS " not in out and "FAIL " not in out  # a quick run passes no verdict
    rows = pd.read_csv(tmp_path / f"{experiment}-quick.csv")
    assert COLUMNS[experiment] <= set(rows.columns)
    assert len(rows) > 0
    meta = json.loads((tmp_path / f"{experiment}-quick.json").read_text())
    assert {"cores", "memory_gib", "free_page_reporting", "python", "numpy", "numba", "dask"} <= set(meta["machine"])
    figure = [f"{experiment}-quick.png"] if experiment in PLOTTED else []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"{experiment}-quick.csv",
                                                                 f"{experiment}-quick.json", *figure])
    assert all((tmp_path / name).stat().st_size > 0 for name in figure)
    if experiment == "model":
        assert set(rows["kind"]) == {"measured", "simulated"}
    if experiment == "inputs":  # the nbparallel side runs even where no peer is installed
        from harness.inputs import INPUTS, KERNEL, NB

        assert {(name, tool) for name in INPUTS for tool in (NB, KERNEL)} <= set(zip(rows["input"], rows["tool"]))
        assert {t["label"][:3] for t in meta["targets"]} >= {"(a)", "(d)", "(e)"}
    if experiment == "passes":
        from harness.pass_costs import INPUTS, PASSES

        assert {(name, p) for name in INPUTS for p in PASSES} <= set(zip(rows["input"], rows["pass"]))
        parts = rows[rows["pass"].str.startswith("part: ")]  # the 20-class parts, on the uint8 codes only
        assert len(parts) == 8 and set(parts["input"]) == {"uint8 codes"} and set(parts["classes"]) == {20}
    if experiment == "engines":  # every engine's fit and predict, MLlib's and the parts, each timed
        from harness.engines import TARGETS

        assert {m for _, m, r, _, _ in TARGETS} | {r for _, m, r, _, _ in TARGETS} <= set(rows["measure"])
        assert rows["measure"].str.startswith("part: ").sum() == 3 and (rows["seconds"] > 0).all()
        assert not [n for n in meta["notes"] if "differs" in n]  # every engine's fit counted the same rows
    if experiment == "fresh_memory":
        from harness.fresh_memory import SETTINGS

        assert set(rows["setting"]) == set(SETTINGS) and (rows["seconds"] > 0).all()
        assert len(meta["summary"]) == 4 and "free page reporting" in out
    if experiment == "reduction":
        tree = rows[rows["strategy"] == "tree k=2"]
        assert (tree["height"] == tree["ceil_log2_P"]).all()


def test_an_experiments_options_are_listed_by_its_help(harness, capsys):
    with pytest.raises(SystemExit) as exit:
        harness.main(["cv", "--help"])
    assert exit.value.code == 0
    out = capsys.readouterr().out
    assert "options of cv" in out and "--rows ROWS [ROWS ...]" in out and "--folds FOLDS" in out


@pytest.mark.parametrize("arguments", [["cv", "--bogus", "1"], ["cv", "--folds", "ten"], ["kernel", "--folds", "3"],
                                       ["langley", "--figure", "9z"], ["no_such_experiment"]])
def test_a_bad_option_exits_with_status_2(harness, arguments, capsys):
    with pytest.raises(SystemExit) as exit:
        harness.main(arguments)
    assert exit.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_a_quick_value_gives_way_to_a_given_one():
    import sys

    sys.path.insert(0, str(RUN.parent))
    from harness.context import Parameter

    rows = Parameter(10**7, "rows", quick=2_000)
    assert [rows.value(None, False), rows.value(None, True), rows.value(500, True)] == [10**7, 2_000, 500]
    assert Parameter([1, 2], "sizes").argument()["nargs"] == "+"
    assert Parameter(False, "a flag").argument()["action"] == "store_true"


def test_every_experiment_is_covered(harness):
    assert set(harness.EXPERIMENTS) == set(COLUMNS)


def test_cli_bench_runs_the_harness(tmp_path):
    from nbparallel.cli import main

    assert main(["bench", "reduction", "--quick", "--results-dir", str(tmp_path)]) == 0
    assert (tmp_path / "reduction-quick.csv").exists()


def test_cli_bench_without_benchmarks_directory(tmp_path, monkeypatch, capsys):
    import nbparallel
    from nbparallel.cli import main

    monkeypatch.setattr(nbparallel, "__file__", str(tmp_path / "site" / "nbparallel" / "__init__.py"))
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "strong", "--quick"]) == 2
    assert "source checkout" in capsys.readouterr().err


def test_a_full_runs_verdicts_are_json_booleans(tmp_path, capsys):
    """Targets measured as numpy numbers are written as JSON true/false and numbers, not as strings."""
    import sys

    import matplotlib.pyplot as plt
    import numpy as np

    sys.path.insert(0, str(RUN.parent))
    from harness.report import Result, Target, write

    rows = pd.DataFrame({"x": [1.0]})
    targets = [Target("fast", np.float64(0.5), 1.0, at_most=True), Target("slow", np.float64(2.0), 1.0, at_most=True)]
    result = Result("verdicts", rows, rows, lambda rows: plt.figure(), targets=targets)
    write(result, tmp_path, {"cores": 2, "memory_gib": 1, "cpu": "test"}, quick=False)
    meta = json.loads((tmp_path / "verdicts.json").read_text())
    assert [(t["passed"], t["value"]) for t in meta["targets"]] == [(True, 0.5), (False, 2.0)]
    assert "PASS  fast" in capsys.readouterr().out


def _virtio_device(devices, name, device_id, features):
    folder = devices / name
    folder.mkdir(parents=True)
    (folder / "device").write_text(f"0x{device_id:04x}\n")
    (folder / "features").write_text(features + "\n")


def test_free_page_reporting_is_read_from_the_balloons_feature_bits(tmp_path):
    import sys

    sys.path.insert(0, str(RUN.parent))
    from harness.machine import free_page_reporting

    devices = tmp_path / "devices"
    assert free_page_reporting(devices) is None  # no listing: not Linux
    devices.mkdir()
    assert free_page_reporting(devices) is False  # no virtio device
    _virtio_device(devices, "virtio0", 2, "0" * 5 + "1" + "0" * 58)  # a block device with bit 5 set
    _virtio_device(devices, "virtio1", 5, "0110010" + "0" * 57)  # a balloon with stats and reporting
    assert free_page_reporting(devices) is True
    (devices / "virtio1" / "features").write_text("0110000" + "0" * 57)  # the balloon without reporting
    assert free_page_reporting(devices) is False


def test_the_passes_benchmark_times_each_pass_as_often_as_its_budget_allows(monkeypatch):
    """A fast pass gets MAX_REPEAT timed runs, a slow one as many as fit in the budget (not two against its
    fit's nine), a failing one a note; the warm-up run is never one of them."""
    import sys
    import types

    sys.path.insert(0, str(RUN.parent))
    from harness import pass_costs, timing

    monkeypatch.setattr(pass_costs, "RUN_BUDGET_S", 0.7)
    clock = [100.0]  # the benchmark's clock: a run takes what its thunk adds to it, whatever the machine's load
    monkeypatch.setattr(timing, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    calls = {"fast": 0, "slow": 0}

    def fast():
        calls["fast"] += 1
        clock[0] += 0.001 if calls["fast"] > 1 else 0.0005  # a warm-up faster than its runs: never the best time

    def slow():
        calls["slow"] += 1
        clock[0] += 0.2 if calls["slow"] > 1 else 0.4  # the warm-up is the slowest

    def failing():
        raise ValueError("no such pass")

    notes = []
    timed = pass_costs.measure({"fast": fast, "slow": slow, "failing": failing}, notes, "label")
    assert timed["fast"][1] == pass_costs.MAX_REPEAT and calls["fast"] == pass_costs.MAX_REPEAT + 1
    assert timed["slow"][1] == 3 and calls["slow"] == 4  # 2 runs and one more <= 0.7 s < 3 runs and one more
    assert timed["slow"][0] == pytest.approx(0.2) and timed["fast"][0] == pytest.approx(0.001)
    assert "failing" not in timed and notes == ["label: failing failed: ValueError: no such pass"]

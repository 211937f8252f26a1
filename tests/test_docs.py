"""The documentation: every public name has an API entry, README's figures are the results', and the
public classes and functions of ``nbparallel.__all__`` have numpydoc docstrings with parameters and examples."""

import importlib
import sys
from pathlib import Path

import pytest

import nbparallel

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
sys.path.insert(0, str(ROOT / "docs" / "tools"))

import generated_pages  # noqa: E402
import results_tables  # noqa: E402

#: the numpydoc validation codes checked on the top-level classes and functions
CHECKED = ("PR01", "PR02", "RT01", "EX01")


def test_every_name_of_all_has_an_api_reference_entry():
    page = generated_pages.api_page()
    entries = {line.strip() for line in page.splitlines() if line.startswith("   nbparallel.")}
    missing = [n for n in nbparallel.__all__ if not n.startswith("__") and f"nbparallel.{n}" not in entries]
    assert missing == []
    for name in entries:
        module, _, attribute = name.rpartition(".")
        assert getattr(importlib.import_module(module), attribute).__doc__, name


def test_dir_of_the_package_names_only_its_public_api():
    public = {n for n in dir(nbparallel) if not n.startswith("_")}
    assert public == {n for n in nbparallel.__all__ if not n.startswith("__")}


def test_readme_headline_table_is_the_results():
    text = (ROOT / "README.md").read_text()
    assert results_tables.readme_with_table(text, results_tables.headline_table()) == text


def test_every_result_file_is_on_the_benchmarks_page_with_a_command_that_writes_it():
    from benchmarks.run import EXPERIMENTS

    page = results_tables.benchmarks_page()
    results = sorted((ROOT / "benchmarks" / "results").glob("*.json"))
    assert results and all(f"results: `benchmarks/results/{p.name}`" in page for p in results)
    commands = {line.split("`")[1].split()[2] for line in page.splitlines() if line.startswith("Command: ")}
    assert commands <= set(EXPERIMENTS)
    assert "| nbparallel cross_validate | 1000000 |" in page  # cv.json's records are a table


def test_readme_is_for_users():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200
    assert max(map(len, lines)) <= 400
    assert "pip install -e . && nbparallel demo" in lines
    assert "bash tests/run.sh" in lines


def test_ci_runs_exactly_the_readme_test_command_in_a_fresh_virtual_environment():
    readme = (ROOT / "README.md").read_text().split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in readme.splitlines() if line and not line.startswith("#")]
    assert commands == ["pip install -e . && nbparallel demo", "bash tests/run.sh"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    venv = ci.index('python3 -m venv "$venv"')
    assert ci.index('source "$venv/bin/activate"') == venv + 1
    assert commands[1] in ci[venv:]
    run_sh = (ROOT / "tests" / "run.sh").read_text()
    assert "pip install -q -e '.[test]'" in run_sh and 'exec python -m pytest -q "$@"' in run_sh


def test_cli_reference_names_every_command():
    from nbparallel.cli.parser import build_parser

    page = generated_pages.cli_page()
    commands = [a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction"][0].choices
    assert all(f"## nbparallel {name}" in page for name in commands)


@pytest.mark.parametrize("name", [n for n in nbparallel.__all__ if not n.startswith("__")])
def test_public_docstrings_pass_numpydoc_validation(name):
    from numpydoc.validate import validate

    result = validate(f"nbparallel.{name}")
    errors = [(code, message) for code, message in result["errors"] if code in CHECKED]
    assert errors == []


def test_results_table_directive_reads_the_records_it_names():
    import json

    import results_table

    cv = ROOT / "benchmarks" / "results" / "cv.json"
    rows = results_table.selected_records(cv, "method, seconds=time (s)", "experiment=speed")
    speed = [r for r in json.loads(cv.read_text()) if r["experiment"] == "speed"]
    assert rows == [{"method": r["method"], "time (s)": r["seconds"]} for r in speed]
    with pytest.raises(ValueError, match="no column"):
        results_table.selected_records(cv, "method, nope")
    with pytest.raises(ValueError, match="no record"):
        results_table.selected_records(cv, None, "experiment=nothing")


def test_results_table_directive_reads_a_named_list():
    import json

    import results_table

    latency = ROOT / "benchmarks" / "results" / "latency.json"
    rows = results_table.selected_records(latency, "label=measure, passed=met", name="targets")
    targets = json.loads(latency.read_text())["targets"]
    assert rows == [{"measure": t["label"], "met": t["passed"]} for t in targets]

"""Run one nbparallel benchmark experiment and write its results.

Usage: ``python benchmarks/run.py EXPERIMENT [--quick] [--scheduler ADDRESS |
--cluster CONFIG] [--results-dir DIR]``, or ``nbparallel bench ...``. Each
experiment of :data:`EXPERIMENTS` writes ``EXPERIMENT.csv`` (raw measurements),
``EXPERIMENT.json`` (the same with the machine's description, parameters and
targets) and ``EXPERIMENT.png`` into the results directory, and prints a summary
table. An experiment of :data:`SCRIPTS` takes its own options
(``nbparallel bench EXPERIMENT --help``), ``--quick`` and ``--results-dir``
among them, and writes its own files.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: experiment -> (module of ``harness``, function)
EXPERIMENTS = {
    "strong": ("scaling", "strong"),
    "weak": ("scaling", "weak"),
    "reduction": ("reduction", "run"),
    "model": ("costmodel", "run"),
    "peers": ("peers", "run"),
    "boosting": ("boosting", "run"),
    "inputs": ("inputs", "run"),
    "network": ("network", "run"),
    "passes": ("pass_costs", "run"),
    "gaussian": ("gaussian", "run"),
    "latency": ("latency", "run"),
    "limits": ("limits", "run"),
    "seminaive": ("seminaive", "run"),
    "engines": ("engines", "run"),
}

#: experiment -> module of ``harness`` whose ``main(argv)`` parses its own options and writes its results
SCRIPTS = {name: name for name in (
    "cv", "cv_family", "encoding", "explain", "factorize", "fresh_memory", "input_sizes", "kernel", "langley", "mdl",
    "memory_encoding", "object_store", "out_of_core", "partial_fit_ranges", "predict_files", "selection",
    "memory_limit",
    "startup", "text")}


def _upload_harness(client):
    """Make ``harness`` importable on the scheduler and workers: its tasks call its functions."""
    import tempfile
    import zipfile

    package = Path(__file__).resolve().parent / "harness"
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "harness.zip"
        with zipfile.ZipFile(archive, "w") as zf:
            for path in package.glob("*.py"):
                zf.write(path, f"harness/{path.name}")
        client.upload_file(str(archive))


def build_parser():
    """The command line of the harness."""
    parser = argparse.ArgumentParser(prog="nbparallel bench", description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=[*EXPERIMENTS, *SCRIPTS])
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes: a smoke run of seconds, written as EXPERIMENT-quick.*, no PASS/FAIL")
    parser.add_argument("--results-dir", type=Path, default=Path(__file__).resolve().parent / "results",
                        help="where to write the results (default benchmarks/results)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at this address")
    where.add_argument("--cluster", metavar="CONFIG", help="run on the cluster a cluster_configs/*.yaml describes")
    return parser


def run_script(module, arguments):
    """Run ``harness.<module>.main(arguments)``; its exit status (a verdict raised as SystemExit too)."""
    try:
        status = importlib.import_module(f"harness.{module}").main(arguments)
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(f"bench {module}: error: {exc.code}", file=sys.stderr)
            return 1
        return exc.code or 0
    return status if isinstance(status, int) else 0  # some return what they measured


def main(argv=None):
    """Run the experiment the arguments name; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in SCRIPTS:
        return run_script(SCRIPTS[argv[0]], argv[1:])
    args = build_parser().parse_args(argv)
    from harness import machine, report
    from harness.context import Context

    from nbparallel.cluster import client_for

    module, function = EXPERIMENTS[args.experiment]
    experiment = getattr(importlib.import_module(f"harness.{module}"), function)
    try:
        with client_for(scheduler=args.scheduler, cluster=args.cluster) as client:
            if client is not None:
                _upload_harness(client)
            ctx = Context(args.quick, args.results_dir, client)
            result = experiment(ctx)
            report.write(result, args.results_dir, machine.describe(client), args.quick)
    except (ImportError, RuntimeError, ValueError, ConnectionError) as exc:
        print(f"bench {args.experiment}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

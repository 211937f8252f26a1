"""Run one nbparallel benchmark experiment and write its results.

Usage: ``python benchmarks/run.py EXPERIMENT [--quick] [--scheduler ADDRESS |
--cluster CONFIG] [--results-dir DIR] [OPTIONS]``, or ``nbparallel bench ...``.
Each experiment of :data:`EXPERIMENTS` is a function ``experiment(ctx) -> Result``
(``harness.context``, ``harness.report``); the options it declares with
``harness.context.parameters`` come after its name (``nbparallel bench
EXPERIMENT --help`` lists them) and reach it as ``ctx.parameters``. Its result is
written as ``EXPERIMENT.csv`` (raw measurements), ``EXPERIMENT.json`` (the same
with the machine's description, parameters, targets and summary) and
``EXPERIMENT.png`` (its figure, where it has one) into the results directory, or
as ``EXPERIMENT-quick.*`` with ``--quick``, and its summary table and targets are
printed. A full run whose target is missed exits with status 1.
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
    "cv": ("cv", "run"),
    "cv_family": ("cv_family", "run"),
    "kernel": ("kernel", "run"),
    "langley": ("langley", "run"),
    "partial_fit_ranges": ("partial_fit_ranges", "run"),
    "explain": ("explain", "run"),
    "factorize": ("factorize", "run"),
    "encoding": ("encoding", "run"),
    "startup": ("startup", "run"),
    "selection": ("selection", "run"),
    "predict_files": ("predict_files", "run"),
    "text": ("text", "run"),
    "memory_encoding": ("memory_encoding", "run"),
    "input_sizes": ("input_sizes", "run"),
    "mdl": ("mdl", "run"),
    "mdl_costs": ("mdl", "costs"),
    "fresh_memory": ("fresh_memory", "run"),
    "memory_limit": ("memory_limit", "run"),
    "object_store": ("object_store", "run"),
    "out_of_core": ("out_of_core", "run"),
    "out_of_core_rows": ("out_of_core", "rows"),
}

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


def experiment_function(name):
    """The function of the experiment ``name``."""
    module, function = EXPERIMENTS[name]
    return getattr(importlib.import_module(f"harness.{module}"), function)


def declared_parameters(name):
    """The :class:`harness.context.Parameter` s of the experiment ``name``, by name."""
    return getattr(experiment_function(name), "parameters", {})


def build_parser(experiment=None):
    """The command line of the harness, with the options of ``experiment`` where one is named."""
    parser = argparse.ArgumentParser(prog="nbparallel bench", description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=EXPERIMENTS)
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes: a smoke run of seconds, written as EXPERIMENT-quick.*, no PASS/FAIL")
    parser.add_argument("--results-dir", type=Path, default=Path(__file__).resolve().parent / "results",
                        help="where to write the results (default benchmarks/results)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at this address")
    where.add_argument("--cluster", metavar="CONFIG", help="run on the cluster a cluster_configs/*.yaml describes")
    if experiment in EXPERIMENTS:
        own = parser.add_argument_group(f"options of {experiment}")
        for name, parameter in declared_parameters(experiment).items():
            own.add_argument(f"--{name.replace('_', '-')}", dest=name, **parameter.argument())
    return parser


def main(argv=None):
    """Run the experiment the arguments name; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    from harness import machine, report
    from harness.context import Context

    from nbparallel.cluster import client_for

    experiment = experiment_function(args.experiment)
    values = {name: parameter.value(getattr(args, name), args.quick)
              for name, parameter in declared_parameters(args.experiment).items()}
    try:
        with client_for(scheduler=args.scheduler, cluster=args.cluster) as client:
            if client is not None:
                _upload_harness(client)
            result = experiment(Context(args.quick, args.results_dir, client, values))
            result.parameters = {**values, **result.parameters}
            report.write(result, args.results_dir, machine.describe(client), args.quick)
    except (ImportError, RuntimeError, ValueError, ConnectionError) as exc:
        print(f"bench {args.experiment}: error: {exc}", file=sys.stderr)
        return 2
    return 1 if not args.quick and not all(t.passed for t in result.targets) else 0


if __name__ == "__main__":
    sys.exit(main())

"""``nbparallel bench``: run ``benchmarks/run.py`` of a source checkout; the package never imports it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def benchmark_runner():
    """The ``benchmarks/run.py`` beside the package's source, or in the working directory."""
    import nbparallel

    candidates = [Path(nbparallel.__file__).resolve().parents[1] / "benchmarks" / "run.py",
                  Path.cwd() / "benchmarks" / "run.py"]
    runner = next((c for c in candidates if c.is_file()), None)
    if runner is None:
        raise FileNotFoundError("the benchmarks are not installed with the package; run `nbparallel bench` "
                                "from a source checkout of nbparallel (looked for "
                                + " and ".join(str(c) for c in candidates) + ")")
    return runner


def run_benchmarks(arguments):
    """Run the benchmark runner with ``arguments`` in a fresh interpreter; SystemExit with its status when
    it fails."""
    status = subprocess.run([sys.executable, str(benchmark_runner()), *arguments]).returncode
    if status:
        raise SystemExit(status)

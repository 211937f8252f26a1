"""How long the command line takes on a tiny file, and where the time goes.

Usage: nbparallel bench startup [--repeats R]

Times, end to end in fresh processes (best of R, interleaved): ``nbparallel --help`` and
``nbparallel fit weather.csv --target play -o model.json`` on a 14-row file (Quinlan's weather
data with numeric temperature and humidity). Then, also in fresh processes, the CPU time of each
import the fit needs, in the order the fit takes them, and of numba's first call of a cached
kernel (its CPU target is set up on first use, not on import), and, beside them, what importing
scikit-learn would cost, which the fit no longer does (``nbparallel.models.estimator``). The steps are
timed twice: with Python's cyclic garbage collector on, as in a program that imports the library, and
paused, as the command runs its start-up (``nbparallel.cli.commands.start_up_uncollected``). Targets of
issue 23: ``--help`` under 0.5 s and the 14-row fit under 1.5 s.
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from harness.context import Parameter, parameters
from harness.report import Result, Target
from harness.timing import best_interleaved

WEATHER = """outlook,temperature,humidity,windy,play
sunny,85,85,FALSE,no
sunny,80,90,TRUE,no
overcast,83,86,FALSE,yes
rainy,70,96,FALSE,yes
rainy,68,80,FALSE,yes
rainy,65,70,TRUE,no
overcast,64,65,TRUE,yes
sunny,72,95,FALSE,no
sunny,69,70,FALSE,yes
rainy,75,80,FALSE,yes
sunny,75,70,TRUE,yes
overcast,72,90,TRUE,yes
overcast,81,75,FALSE,yes
rainy,71,91,TRUE,no
"""

#: step -> the statement it times, after the steps before it have run in the same process
STEPS = {
    "python itself": "pass",
    "numpy": "import numpy",
    "pandas": "import pandas",
    "pyarrow (csv, parquet)": "import pyarrow.csv, pyarrow.parquet",
    "numba": "import numba",
    "dask": "import dask",
    "nbparallel (models, cli)": "import nbparallel.models.naive_bayes, nbparallel.cli.commands",
    "numba's first cached kernel call": (
        "import numpy as np; from nbparallel.kernels.counting import count_partition; "
        "count_partition(np.ones((1, 1), np.uint8), np.zeros((1, 0)), np.zeros(1, np.int64), None, "
        "np.array([0, 2], np.int64), np.zeros((0, 1)), 1)"),
}


#: what the fit does not import, timed in a process of its own after numpy and pandas
NOT_IMPORTED = {"scikit-learn (sklearn.base, with scipy.stats)": "import sklearn.base"}


def run_command(command):
    """Run ``command`` (a list) in a fresh process; its output is not shown."""
    subprocess.run(command, check=True, capture_output=True)


def step_cpu_times(steps=STEPS, before="pass"):
    """CPU seconds of each of ``steps`` in one fresh process, after the statement ``before``."""
    lines = ["import time, json", before, "c = time.process_time", "out = {}"]
    for name, statement in steps.items():
        lines += ["t = c()", statement, f"out[{name!r}] = c() - t"]
    lines.append("print(json.dumps(out))")
    done = subprocess.run([sys.executable, "-c", "\n".join(lines)], check=True, capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


@parameters(repeats=Parameter(5, "fresh processes timed of each", quick=1))
def run(ctx):
    """The command's wall times and the CPU time of each step of its start."""
    repeats = ctx.parameters["repeats"]
    cli = shutil.which("nbparallel")
    if cli is None:
        raise RuntimeError("the nbparallel command is not installed (pip install -e .)")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "weather.csv"
        data.write_text(WEATHER)
        model = Path(tmp) / "model.json"
        fit = [cli, "fit", str(data), "--target", "play", "-o", str(model)]
        # warmed first: the file cache and numba's kernel cache
        best, _ = best_interleaved({"help": lambda: run_command([cli, "--help"]), "fit": lambda: run_command(fit)},
                                   repeats)
        help_s, fit_s = best["help"], best["fit"]
    steps = [step_cpu_times() for _ in range(repeats)]
    cpu = {name: min(s[name] for s in steps) for name in STEPS}
    paused_steps = [step_cpu_times(before="import gc; gc.disable()") for _ in range(repeats)]
    paused = {name: min(s[name] for s in paused_steps) for name in STEPS}
    spared = [step_cpu_times(NOT_IMPORTED, "import numpy, pandas") for _ in range(repeats)]
    not_imported = {name: min(s[name] for s in spared) for name in NOT_IMPORTED}
    print(f"nbparallel --help          {help_s:6.2f} s wall  (target 0.5 s)")
    print(f"nbparallel fit (14 rows)   {fit_s:6.2f} s wall  (target 1.5 s)")
    print("CPU seconds of each step of the fit's start, best of", repeats, "(collector on / paused)")
    for name, seconds in cpu.items():
        print(f"  {name:40s} {seconds:6.3f} {paused[name]:6.3f}")
    print(f"  {'sum':40s} {sum(cpu.values()):6.3f} {sum(paused.values()):6.3f}")
    for name, seconds in not_imported.items():
        print(f"  not imported by the fit: {name} {seconds:.3f}")
    frame = pd.DataFrame([{"measure": "wall", "step": "nbparallel --help", "seconds": help_s},
                          {"measure": "wall", "step": "nbparallel fit (14 rows)", "seconds": fit_s},
                          *({"measure": "cpu", "step": name, "seconds": cpu[name],
                             "collector_paused_s": paused[name]} for name in STEPS),
                          *({"measure": "cpu, not imported by the fit", "step": name, "seconds": seconds}
                            for name, seconds in not_imported.items())])
    targets = [Target("nbparallel --help", help_s, 0.5, at_most=True, unit=" s"),
               Target("nbparallel fit (14 rows)", fit_s, 1.5, at_most=True, unit=" s")]
    return Result("startup", frame, frame, targets=targets)

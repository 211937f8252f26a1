"""Memory-limited workers: a fit of a large Parquet directory on workers with a small ``memory_limit``.

Writes a Parquet directory of ``--rows`` rows (6 small-integer attributes that depend on a 3-class
label, in ``--files`` files), starts a scheduler and ``--workers`` single-threaded workers under nannies
limited to ``--memory-limit`` each, fits the directory there, and compares the count tables with the
fit on this machine's threads, whose memory is not limited. Each worker's process id is read before and
after the fit: a nanny's restart (the worker went beyond its limit) changes it.

Usage::

    nbparallel bench memory_limit                       # 10^8 rows, 3 workers of 512 MB
    nbparallel bench memory_limit --quick               # 10^6 rows in 8 files

"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from harness.context import Parameter, parameters
from harness.report import Result, Target
from harness.timing import timed


def write_parquet(directory, n_rows, n_files):
    """``n_files`` Parquet files of ``n_rows`` rows in all: 6 uint8 attributes and a 3-class label."""
    directory.mkdir(parents=True, exist_ok=True)
    for i, rows in enumerate(np.array_split(np.arange(n_rows), n_files)):
        rng = np.random.default_rng(i)
        label = rng.integers(0, 3, rows.size, dtype=np.uint8)
        columns = {f"c{j}": ((rng.integers(0, 8, rows.size, dtype=np.uint8) + label * j) % 10).astype(np.uint8)
                   for j in range(6)}
        pq.write_table(pa.table({**columns, "label": label}), directory / f"part-{i:04d}.parquet")
    return directory


def start_cluster(n_workers, memory_limit, log_dir):
    """A scheduler and nanny workers on 127.0.0.1: (address, processes)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"

    def start(args, name):
        log = open(log_dir / f"{name}.log", "w")  # open while the process runs
        return subprocess.Popen([sys.executable, "-m", *args], stdout=log, stderr=subprocess.STDOUT)
    procs = [start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
                    "--no-dashboard"], "scheduler")]
    procs += [start(["distributed.cli.dask_worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                     "--nanny", "--memory-limit", memory_limit, "--name", f"worker-{i}", "--death-timeout", "60"],
                    f"worker-{i}") for i in range(n_workers)]
    return address, procs


def worker_pids(client):
    names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
    return {names[a]: pid for a, pid in client.run(os.getpid).items()}


def measure(directory, n_files, n_workers, memory_limit, log_dir):
    """The fit on limited workers against the local one: a dict of what was measured."""
    from distributed import Client

    from nbparallel import NaiveBayes

    local_s, local = timed(lambda: NaiveBayes(n_partitions=n_files).fit(str(directory), "label"))
    address, procs = start_cluster(n_workers, memory_limit, log_dir)
    try:
        with Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(n_workers, timeout=60)
            before = worker_pids(client)
            with client.as_current():
                limited_s, model = timed(lambda: NaiveBayes(n_partitions=n_files).fit(str(directory), "label"))
            after = worker_pids(client)
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(30)
    identical = bool(np.array_equal(model.counts_.table, local.counts_.table)
                     and np.array_equal(model.counts_.class_totals, local.counts_.class_totals))
    return {"rows": int(local.counts_.class_totals.sum()), "files": n_files, "workers": n_workers,
            "memory_limit": memory_limit, "local_fit_s": round(local_s, 2), "limited_fit_s": round(limited_s, 2),
            "identical_counts": identical, "workers_restarted": sum(before.get(n) != p for n, p in after.items())
            + len(set(before) - set(after))}


@parameters(rows=Parameter(10**8, "rows of the Parquet directory", quick=10**6),
            files=Parameter(100, "files of the directory", quick=8),
            workers=Parameter(3, "single-threaded workers"),
            memory_limit=Parameter("512MB", "memory limit of each worker"))
def run(ctx):
    """The fit on memory-limited workers against the local one."""
    args = ctx.parameters
    with tempfile.TemporaryDirectory(prefix="nbparallel-memory-limit-") as tmp:
        written_s, directory = timed(lambda: write_parquet(Path(tmp) / "data", args["rows"], args["files"]))
        result = measure(directory, args["files"], args["workers"], args["memory_limit"], Path(tmp))
    result["write_s"] = round(written_s, 2)
    frame = pd.DataFrame([result])
    targets = [Target("count tables that differ from the local fit's", 0 if result["identical_counts"] else 1, 0,
                      at_most=True, unit=""),
               Target("workers restarted", result["workers_restarted"], 0, at_most=True, unit="")]
    return Result("memory_limit", frame, frame, targets=targets)

"""Out-of-core fitting: speed from Parquet and CSV, and peak memory versus rows.

Writes synthetic data as directories of equal-sized Parquet and CSV files at
two or more sizes, fits :class:`nbparallel.NaiveBayes` from each directory on a
fresh ``LocalCluster`` of worker processes, and samples the resident memory of
the client process and of every worker (psutil, every 20 ms), after a warm-up
fit that compiles the kernels. Files are read
inside the counting tasks, so peak memory should not grow with the number of
rows: the script prints the ratio of peak memory at the largest size to the
smallest (target: within 10%).

Usage::

    python benchmarks/bench_out_of_core.py            # 10^6 and 10^7 rows
    python benchmarks/bench_out_of_core.py --quick    # seconds, tiny sizes
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

N_CLASSES = 3


def synthetic_frame(n_rows, seed):
    """Four categorical-code and four numeric attributes that depend on a class label."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, N_CLASSES, n_rows)
    columns = {f"c{j}": (rng.integers(0, 8, n_rows) + label * j) % 12 for j in range(4)}
    columns |= {f"x{j}": rng.normal(label * (j + 1) * 0.5, 1.0, n_rows) for j in range(4)}
    return pd.DataFrame(columns | {"label": label})


def write_dataset(directory, n_rows, rows_per_file):
    """Write ``n_rows`` as ``parquet/`` and ``csv/`` files under ``directory``."""
    for fmt in ("parquet", "csv"):
        (directory / fmt).mkdir(parents=True)
    for i, start in enumerate(range(0, n_rows, rows_per_file)):
        frame = synthetic_frame(min(rows_per_file, n_rows - start), seed=i)
        frame.to_parquet(directory / "parquet" / f"part-{i:05d}.parquet", index=False)
        frame.to_csv(directory / "csv" / f"part-{i:05d}.csv", index=False)
    return directory


class PeakRSS:
    """Sample the resident memory of some processes in a thread; keep each one's peak."""

    def __init__(self, pids, interval=0.02):
        self.procs = {pid: psutil.Process(pid) for pid in pids}
        self.start = {pid: proc.memory_info().rss for pid, proc in self.procs.items()}
        self.peak = dict(self.start)
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            for pid, proc in self.procs.items():
                try:
                    self.peak[pid] = max(self.peak[pid], proc.memory_info().rss)
                except psutil.Error:
                    pass
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def fit_once(path, n_workers):
    """Fit from ``path`` on a fresh cluster after a warm-up fit on its first file.

    Returns seconds, then peak RSS and its growth during the fit, of the client
    and of the largest worker.
    """
    from distributed import Client, LocalCluster

    from nbparallel import NaiveBayes

    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        NaiveBayes(n_bins=10).fit(str(min(path.iterdir())), "label")  # compile the kernels
        worker_pids = list(client.run(os.getpid).values())
        with PeakRSS([os.getpid(), *worker_pids]) as rss:
            start = time.perf_counter()
            model = NaiveBayes(n_bins=10).fit(str(path), "label")
            seconds = time.perf_counter() - start
    assert model.counts_.class_totals.sum() > 0
    worker = max(worker_pids, key=rss.peak.get)
    return (seconds, rss.peak[os.getpid()], rss.peak[os.getpid()] - rss.start[os.getpid()],
            rss.peak[worker], rss.peak[worker] - rss.start[worker])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**6, 10**7])
    parser.add_argument("--rows-per-file", type=int, default=250_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true",
                        help="sizes 10^4 and 10^5 with 5,000-row files")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.rows_per_file = [10**4, 10**5], 5_000

    mib = 2**20
    peaks = {}
    with tempfile.TemporaryDirectory(prefix="nbparallel-ooc-") as tmp:
        # Data is written by a child process so the client's memory is the fit's alone.
        with concurrent.futures.ProcessPoolExecutor(1) as pool:
            dirs = list(pool.map(write_dataset, [Path(tmp) / str(n) for n in args.sizes],
                                 args.sizes, [args.rows_per_file] * len(args.sizes)))
        print(f"{'format':8} {'rows':>11} {'files':>6} {'seconds':>8} {'rows/s':>11} "
              f"{'client MiB (+fit)':>18} {'worker MiB (+fit)':>18}")
        for n_rows, directory in zip(args.sizes, dirs):
            for fmt in ("parquet", "csv"):
                seconds, client, client_fit, worker, worker_fit = fit_once(
                    directory / fmt, args.workers)
                peaks[fmt, n_rows] = client, worker
                n_files = len(list((directory / fmt).iterdir()))
                print(f"{fmt:8} {n_rows:>11,} {n_files:>6} {seconds:>8.2f} "
                      f"{n_rows / seconds:>11,.0f} {client / mib:>9.1f} ({client_fit / mib:+6.1f})"
                      f" {worker / mib:>9.1f} ({worker_fit / mib:+6.1f})", flush=True)
    small, large = min(args.sizes), max(args.sizes)
    for fmt in ("parquet", "csv"):
        ratios = [peaks[fmt, large][k] / peaks[fmt, small][k] for k in (0, 1)]
        print(f"{fmt}: peak memory at {large / small:g}x rows / at 1x: "
              f"client {ratios[0]:.3f}, worker {ratios[1]:.3f} "
              f"({'within' if max(abs(r - 1) for r in ratios) <= 0.10 else 'NOT within'} 10%)")


if __name__ == "__main__":
    main()

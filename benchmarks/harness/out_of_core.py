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

    nbparallel bench out_of_core            # 10^6 and 10^7 rows
    nbparallel bench out_of_core --quick    # seconds, tiny sizes

The experiment ``out_of_core_rows`` (the 10^9-row run; see :func:`rows`) writes a Parquet
directory of N rows x 20 string attributes in chunks, fits it in this machine's
threads (each fit in a fresh process, so its peak RSS is its own), once in one
go and once in batches of files with a checkpoint after each batch, stopped
half way and resumed from the checkpoint, and counts the same files with
DuckDB where it is installed (``pip install duckdb``; optional)::

    nbparallel bench out_of_core_rows --rows 10000000 100000000 --data-dir /work/ooc
"""

from __future__ import annotations

import concurrent.futures
import os
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

from harness.context import Parameter, parameters
from harness.report import Result, Target
from harness.timing import timed

#: the folder of ``harness``, for the fresh processes of :func:`rows`
BENCHMARKS = Path(__file__).resolve().parents[1]
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
            seconds, model = timed(lambda: NaiveBayes(n_bins=10).fit(str(path), "label"))
    assert model.counts_.class_totals.sum() > 0
    worker = max(worker_pids, key=rss.peak.get)
    return (seconds, rss.peak[os.getpid()], rss.peak[os.getpid()] - rss.start[os.getpid()],
            rss.peak[worker], rss.peak[worker] - rss.start[worker])


@parameters(sizes=Parameter([10**6, 10**7], "rows of each dataset", quick=[10**4, 10**5]),
            rows_per_file=Parameter(250_000, "rows of each file", quick=5_000),
            workers=Parameter(2, "worker processes of the LocalCluster"))
def run(ctx):
    """Each format's fit at each size: seconds and the peak memory of the client and of a worker."""
    sizes, rows_per_file, n_workers = (ctx.parameters[key] for key in ("sizes", "rows_per_file", "workers"))
    mib = 2**20
    peaks = {}
    with tempfile.TemporaryDirectory(prefix="nbparallel-ooc-") as tmp:
        # Data is written by a child process so the client's memory is the fit's alone.
        with concurrent.futures.ProcessPoolExecutor(1) as pool:
            dirs = list(pool.map(write_dataset, [Path(tmp) / str(n) for n in sizes], sizes,
                                 [rows_per_file] * len(sizes)))
        print(f"{'format':8} {'rows':>11} {'files':>6} {'seconds':>8} {'rows/s':>11} "
              f"{'client MiB (+fit)':>18} {'worker MiB (+fit)':>18}")
        records = []
        for n_rows, directory in zip(sizes, dirs):
            for fmt in ("parquet", "csv"):
                seconds, client, client_fit, worker, worker_fit = fit_once(
                    directory / fmt, n_workers)
                peaks[fmt, n_rows] = client, worker
                n_files = len(list((directory / fmt).iterdir()))
                records.append({"format": fmt, "rows": n_rows, "files": n_files, "seconds": seconds,
                                "rows_per_s": n_rows / seconds, "client_peak_mib": client / mib,
                                "client_fit_mib": client_fit / mib, "worker_peak_mib": worker / mib,
                                "worker_fit_mib": worker_fit / mib})
                print(f"{fmt:8} {n_rows:>11,} {n_files:>6} {seconds:>8.2f} "
                      f"{n_rows / seconds:>11,.0f} {client / mib:>9.1f} ({client_fit / mib:+6.1f})"
                      f" {worker / mib:>9.1f} ({worker_fit / mib:+6.1f})", flush=True)
    small, large = min(sizes), max(sizes)
    targets = []
    for fmt in ("parquet", "csv"):
        ratios = [peaks[fmt, large][k] / peaks[fmt, small][k] for k in (0, 1)]
        print(f"{fmt}: peak memory at {large / small:g}x rows / at 1x: client {ratios[0]:.3f}, worker {ratios[1]:.3f}")
        targets.append(Target(f"{fmt}: peak memory at {large / small:g}x rows / at 1x, farther of client and worker "
                              f"from 1", max(abs(r - 1) for r in ratios), 0.10, at_most=True, unit=""))
    frame = pd.DataFrame(records)
    return Result("out_of_core", frame, frame, targets=targets)


# out_of_core_rows: 10^9 rows of strings out of core ---------------------------------------------------------

N_STRING_ATTRIBUTES = 20
ROWS_PER_FILE = 2_500_000
ROWS_PER_GROUP = 500_000


def _string_chunk(n_rows, seed):
    """An Arrow table of ``n_rows``: 20 dictionary-encoded string attributes and a string label."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    label = rng.integers(0, N_CLASSES, n_rows, dtype=np.int8)
    columns = {}
    for j in range(N_STRING_ATTRIBUTES):
        m = 2 + j % 11  # 2..12 values
        codes = ((rng.integers(0, m, n_rows, dtype=np.int8) + label * (j % 3)) % m).astype(np.int8)
        columns[f"a{j:02d}"] = pa.DictionaryArray.from_arrays(
            codes, pa.array([f"v{j}_{k}" for k in range(m)]))
    columns["label"] = pa.DictionaryArray.from_arrays(label, pa.array([f"class{k}" for k in range(N_CLASSES)]))
    return pa.table(columns)


def write_strings(directory, n_rows):
    """Write ``n_rows`` as Parquet files of ROWS_PER_FILE rows, one chunk at a time; resumable.

    A file is written under a temporary name and renamed, so a stopped write
    leaves whole files only; files already there are kept.
    """
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    n_files = -(-n_rows // ROWS_PER_FILE)
    start = time.perf_counter()
    for i in range(n_files):
        path = directory / f"part-{i:05d}.parquet"
        if path.exists():
            continue
        rows = min(ROWS_PER_FILE, n_rows - i * ROWS_PER_FILE)
        tmp = path.with_suffix(".tmp")
        pq.write_table(_string_chunk(rows, seed=i), tmp, row_group_size=ROWS_PER_GROUP)
        os.replace(tmp, path)
        if (i + 1) % 20 == 0 or i + 1 == n_files:
            done = (i + 1) / n_files
            elapsed = time.perf_counter() - start
            print(f"  wrote {i + 1}/{n_files} files ({elapsed:.0f} s, eta {elapsed / done - elapsed:.0f} s)",
                  flush=True)
    return directory


def _peak_rss():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _batch_directory(checkpoint, b, files):
    """A directory of hard links to one batch's files (a path is what partial_fit takes)."""
    directory = checkpoint.with_name(f"{checkpoint.stem}-batch-{b:03d}")
    directory.mkdir(exist_ok=True)
    for f in files:
        link = directory / Path(f).name
        if not link.exists():
            os.link(f, link)
    return directory


def child_measurement(task, directory, *rest):
    """Run one measurement in this fresh process and print it as JSON on the last line."""
    import json

    from nbparallel import NaiveBayes, load

    directory = Path(directory)
    files = sorted(str(p) for p in directory.glob("*.parquet"))
    out = {}
    if task == "fit":
        NaiveBayes().fit(files[0], "label")  # compile the kernels before the clock starts
        base = _peak_rss()
        start = time.perf_counter()
        model = NaiveBayes().fit(str(directory), "label")
        out = {"seconds": time.perf_counter() - start, "rss_before": base,
               "rows": int(model.counts_.class_totals.sum()),
               "partitions": model.n_partitions_, "height": model.reduction_.height}
        model.save(rest[0])
    elif task == "batches":  # checkpoint after every batch; stop after `stop` batches (0: never)
        checkpoint, n_batches, stop = Path(rest[0]), int(rest[1]), int(rest[2])
        batches = [list(b) for b in np.array_split(files, n_batches) if len(b)]
        state = json.loads(checkpoint.with_suffix(".done").read_text()) if checkpoint.exists() else {"done": 0}
        model = load(checkpoint) if checkpoint.exists() else NaiveBayes()
        resumed_at = state["done"]
        start = time.perf_counter()
        for b in range(state["done"], len(batches)):
            if stop and b >= stop:
                break
            model.partial_fit(str(_batch_directory(checkpoint, b, batches[b])), "label")
            model.save(checkpoint)  # atomic; then the record of what it holds
            checkpoint.with_suffix(".done").write_text(json.dumps({"done": b + 1}))
            rows = int(model.counts_.class_totals.sum())
            elapsed = time.perf_counter() - start
            print(f"  batch {b + 1}/{len(batches)}: {rows:,} rows counted, {elapsed:.1f} s, "
                  f"peak RSS {_peak_rss() / 2**20:.0f} MiB", flush=True)
        out = {"seconds": time.perf_counter() - start, "resumed_at": resumed_at,
               "done": json.loads(checkpoint.with_suffix(".done").read_text())["done"], "batches": len(batches)}
    elif task == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.execute("SET threads TO 2")
        sets = ", ".join(f"(label, a{j:02d})" for j in range(N_STRING_ATTRIBUTES))
        query = (f"SELECT label, {', '.join(f'a{j:02d}' for j in range(N_STRING_ATTRIBUTES))}, count(*) "
                 f"FROM read_parquet('{directory}/*.parquet') GROUP BY GROUPING SETS ({sets})")
        start = time.perf_counter()
        n = len(con.execute(query).fetchall())
        out = {"seconds": time.perf_counter() - start, "groups": n}
    out["peak_rss"] = _peak_rss()
    print(json.dumps(out))
    return 0


def _run_child(*args):
    import json
    import subprocess
    import sys

    call = (f"import sys; sys.path.insert(0, {str(BENCHMARKS)!r}); from harness.out_of_core import child_measurement; "
            f"child_measurement(*{[str(a) for a in args]!r})")
    done = subprocess.run([sys.executable, "-c", call], capture_output=True, text=True, check=False)
    for line in done.stdout.splitlines()[:-1]:
        print(line, flush=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


@parameters(rows=Parameter([10**9], "rows of each directory", quick=[100_000]),
            data_dir=Parameter(None, "where the directories are written (kept; default a temporary one)", kind=Path),
            batches=Parameter(10, "checkpointed batches"),
            no_checkpoint=Parameter(False, "leave out the checkpointed fit and its resume"),
            no_duckdb=Parameter(False, "leave out DuckDB"))
def rows(ctx):
    """Write, fit (plain, and checkpointed with a resume) and count with DuckDB at each size."""
    import importlib.util

    from nbparallel import load

    args = ctx.parameters

    has_duckdb = importlib.util.find_spec("duckdb") is not None and not args["no_duckdb"]
    base = args["data_dir"] or Path(tempfile.mkdtemp(prefix="nbparallel-ooc-"))
    mib = 2**20
    results = []
    for n_rows in args["rows"]:
        directory = base / f"strings-{n_rows}"
        start = time.perf_counter()
        print(f"{n_rows:,} rows: writing {directory}", flush=True)
        write_strings(directory, n_rows)
        write_s = time.perf_counter() - start
        size = sum(p.stat().st_size for p in directory.glob("*.parquet"))
        fit = _run_child("fit", directory, base / f"model-{n_rows}.json")
        print(f"  fit: {fit['seconds']:.1f} s, {n_rows / fit['seconds'] / 1e6:.2f} M rows/s, "
              f"{fit['partitions']} partitions, tree height {fit['height']}, "
              f"peak RSS {fit['peak_rss'] / mib:.0f} MiB", flush=True)
        row = {"rows": n_rows, "files": len(list(directory.glob("*.parquet"))), "bytes": size,
               "write_s": write_s, "fit_s": fit["seconds"], "fit_rows_per_s": n_rows / fit["seconds"],
               "fit_peak_rss": fit["peak_rss"], "fit_rss_before": fit["rss_before"],
               "partitions": fit["partitions"], "height": fit["height"]}
        if not args["no_checkpoint"]:
            checkpoint = base / f"checkpoint-{n_rows}.json"
            for p in (checkpoint, checkpoint.with_suffix(".done")):
                p.unlink(missing_ok=True)
            half = max(min(args["batches"], row["files"]) // 2, 1)  # a batch holds one file at least
            first = _run_child("batches", directory, checkpoint, args["batches"], half)  # "interrupted" half way
            second = _run_child("batches", directory, checkpoint, args["batches"], 0)  # resumed from the checkpoint
            same = bool((load(checkpoint).counts_.table == load(base / f"model-{n_rows}.json").counts_.table).all())
            print(f"  checkpointed: stopped after {first['done']}/{first['batches']} batches, resumed at "
                  f"{second['resumed_at']}: {first['seconds'] + second['seconds']:.1f} s in all, counts equal "
                  f"the plain fit: {same}", flush=True)
            row |= {"checkpointed_s": first["seconds"] + second["seconds"],
                    "checkpoint_peak_rss": max(first["peak_rss"], second["peak_rss"]), "resumed_equal": same}
        if has_duckdb:
            duck = _run_child("duckdb", directory)
            row |= {"duckdb_s": duck["seconds"], "duckdb_rows_per_s": n_rows / duck["seconds"],
                    "duckdb_peak_rss": duck["peak_rss"]}
            print(f"  DuckDB GROUPING SETS count: {duck['seconds']:.1f} s, "
                  f"{n_rows / duck['seconds'] / 1e6:.2f} M rows/s, peak RSS {duck['peak_rss'] / mib:.0f} MiB "
                  f"(nbparallel / DuckDB throughput {duck['seconds'] / fit['seconds']:.2f}x)", flush=True)
        results.append(row)
    frame = pd.DataFrame(results)
    targets = []
    if len(frame) > 1:
        targets.append(Target(f"peak RSS of the fit at {frame['rows'].iloc[-1]:,} rows / at {frame['rows'].iloc[0]:,}",
                              frame["fit_peak_rss"].iloc[-1] / frame["fit_peak_rss"].iloc[0], 1.2, at_most=True))
    return Result("out_of_core_rows", frame, frame.assign(fit_peak_rss_mib=frame["fit_peak_rss"] / mib).drop(
        columns=["fit_peak_rss"]), targets=targets,
        parameters={"duckdb": has_duckdb, "cores": os.cpu_count(), "rows_per_file": ROWS_PER_FILE,
                    "rows_per_group": ROWS_PER_GROUP, "attributes": N_STRING_ATTRIBUTES})

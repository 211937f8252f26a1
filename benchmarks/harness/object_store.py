"""Fitting from an object store against fitting the same files on local disk.

Writes a Parquet directory (``--rows`` rows in ``--files`` files: ``--attributes`` string attributes of 3 to
20 values, two numeric attributes and a class), starts an S3-compatible server (moto in server mode, its own
process on 127.0.0.1 and a free port, stopped at the end), uploads the files to a bucket, and fits
:class:`nbparallel.NaiveBayes` from the local directory and from its ``s3://`` URL in turn, after a warm-up
fit that compiles the kernels; the two models must be identical. Prints each fit's wall time, rows per
second, and the ratio of the store's time to the local disk's (the target: within 2x for 10^7 rows).

Usage::

    nbparallel bench object_store                    # 10^7 rows, 20 files
    nbparallel bench object_store --rows 1000000     # faster
    nbparallel bench object_store --quick            # seconds: 10^5 rows

Needs ``pip install nbparallel[test]`` (moto[server], s3fs). The server's latency is loopback's and its
throughput a Python process's: a real store is further away but serves in parallel.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

from harness.context import Parameter, parameters
from harness.report import Result, Target
from harness.timing import timed


def write_directory(directory, rows, files, attributes, seed=0):
    """A Parquet directory of ``rows`` rows in ``files`` files; returns its size in bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    sizes = [3 + (5 * a) % 18 for a in range(attributes)]
    for f in range(files):
        n = rows * (f + 1) // files - rows * f // files
        cls = rng.integers(0, 2, n)
        columns = {}
        for a, k in enumerate(sizes):
            shifted = (rng.integers(0, k, n) + cls * (a % 3)) % k  # some attributes tell the class
            columns[f"a{a}"] = pa.DictionaryArray.from_arrays(pa.array(shifted.astype(np.int32)),
                                                              pa.array([f"v{a}_{i}" for i in range(k)]))
        columns["x0"] = pa.array(rng.normal(cls, 1.0, n))
        columns["x1"] = pa.array(rng.integers(0, 100, n).astype(np.float64))
        columns["class"] = pa.DictionaryArray.from_arrays(pa.array(cls.astype(np.int32)), pa.array(["no", "yes"]))
        pq.write_table(pa.table(columns), directory / f"part-{f:04d}.parquet", row_group_size=1 << 20)
    return sum(p.stat().st_size for p in directory.iterdir())


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server():
    """``(process, endpoint)`` of a moto S3 server on 127.0.0.1."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{endpoint}/moto-api/data.json", timeout=1).read()
            return proc, endpoint
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the moto server did not start") from None
            time.sleep(0.1)


def timed_fit(data, target="class"):
    """Seconds of one fit from ``data``, and the model."""
    from nbparallel import NaiveBayes

    return timed(lambda: NaiveBayes().fit(data, target))


@parameters(rows=Parameter(10_000_000, "rows of the directory", quick=100_000),
            files=Parameter(20, "files of the directory", quick=4),
            attributes=Parameter(10, "string attributes"),
            repeats=Parameter(3, "alternate fits from each", quick=2),
            data_dir=Parameter(None, "where to write the files (default: a temp dir)", kind=Path))
def run(ctx):
    """Fits from the local directory and from the store, alternately."""
    args = ctx.parameters
    import boto3

    from nbparallel import Files

    with tempfile.TemporaryDirectory() as tmp:
        directory = (args['data_dir'] or Path(tmp)) / f"rows-{args['rows']}"
        start = time.perf_counter()
        n_bytes = write_directory(directory, args["rows"], args["files"], args["attributes"])
        print(f"wrote {args['rows']:,} rows in {args['files']} Parquet files ({n_bytes / 2**20:.1f} MiB) "
              f"to {directory} "
              f"in {time.perf_counter() - start:.1f} s", flush=True)
        proc, endpoint = start_server()
        try:
            credentials = {"aws_access_key_id": "bench", "aws_secret_access_key": "bench"}
            client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **credentials)
            client.create_bucket(Bucket="bench")
            start = time.perf_counter()
            for path in sorted(directory.iterdir()):
                client.upload_file(str(path), "bench", f"data/{path.name}")
            print(f"uploaded to s3://bench/data/ on {endpoint} in {time.perf_counter() - start:.1f} s", flush=True)
            options = {"key": "bench", "secret": "bench",
                       "client_kwargs": {"endpoint_url": endpoint, "region_name": "us-east-1"}}
            url = Files("s3://bench/data/", storage_options=options)
            timed_fit(Files(str(directory)))  # warm-up: compiles the kernels
            first_s3, _ = timed_fit(url)  # and makes the S3 client (credentials, session): once per process
            print(f"first fit from the store (its client made): {first_s3:.2f} s", flush=True)
            local, remote = [], []
            for _ in range(args["repeats"]):
                seconds, local_model = timed_fit(Files(str(directory)))
                local.append(seconds)
                seconds, remote_model = timed_fit(url)
                remote.append(seconds)
                if not remote_model.counts_.equals(local_model.counts_):
                    raise RuntimeError("the model fitted from the store differs from the local one")
        finally:
            proc.terminate()
            proc.wait(10)
    local_median, s3_median = statistics.median(local), statistics.median(remote)
    print(f"local disk : {' '.join(f'{s:.2f}' for s in local)} s  (median {local_median:.2f} s, "
          f"{args['rows'] / local_median / 1e6:.2f} M rows/s)")
    print(f"moto S3    : {' '.join(f'{s:.2f}' for s in remote)} s  (median {s3_median:.2f} s, "
          f"{args['rows'] / s3_median / 1e6:.2f} M rows/s)")
    print("the models are identical")
    frame = pd.DataFrame([*({"source": "local disk", "seconds": s} for s in local),
                          *({"source": "moto S3", "seconds": s} for s in remote)])
    summary = pd.DataFrame([{"rows": args["rows"], "files": args["files"], "attributes": args["attributes"] + 2,
                             "bytes": n_bytes, "local_median_s": local_median, "s3_median_s": s3_median,
                             "s3_first_fit_s": first_s3, "ratio": s3_median / local_median}])
    return Result("object_store", frame, summary,
                  targets=[Target("S3 / local disk, median fit", s3_median / local_median, 2.0, at_most=True)])

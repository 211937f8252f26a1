"""Emulated hosts for tests (``benchmarks/harness/netns.py``), and the cut-link scenario.

The scenario is shared by ``tests/cluster/test_network_hosts.py`` (run once there) and this
module as a script, which repeats it::

    python -m tests.netns_hosts --runs 10     # from the repository root, as root

Each run starts a scheduler and 3 workers on emulated hosts, fits a Parquet
directory with ``nbparallel fit ... --scheduler``, cuts worker 0's link
(``ip link set DEV down``) once the counting pass has finished some tasks and
worker 0 is counting, and checks the outcome: the same model as the local fit,
or an error (exit status 2, one line) with no model file; never a partial
file, never a run past the bound.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from harness.netns import FAST_FAILURE, EmulatedHosts, available, leftovers
from tests.waiting import wait_until

__all__ = ["CUT_BOUND_S", "EmulatedHosts", "available", "cut_during_fit", "holds_data", "leftovers", "write_data"]

#: Seconds a fit with a cut link may take in all: the scheduler drops a silent
#: worker after ``worker-ttl`` (5 s, checked every 5 s) and reruns its tasks.
CUT_BOUND_S = 60.0


def write_data(directory, n_files=24, rows=20_000):
    """A Parquet directory of string and integer attributes that depend on the label."""
    import numpy as np
    import pandas as pd

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for i in range(n_files):
        rng = np.random.default_rng(i)
        label = rng.integers(0, 3, rows)
        frame = pd.DataFrame({f"s{j}": np.array([f"v{j}-{v}" for v in range(7)])[
            (rng.integers(0, 6, rows) + label * j) % 7] for j in range(4)})
        for j in range(4):
            frame[f"n{j}"] = (rng.integers(0, 10, rows) + label) % 10
        frame["label"] = np.array(["a", "b", "c"])[label]
        frame.to_parquet(directory / f"part-{i:03d}.parquet", index=False)
    return directory


def pass_state(dask_scheduler=None, worker=None):
    """(counting tasks done, tasks processing on ``worker``), run on the scheduler."""
    done = sum(1 for key, ts in dask_scheduler.tasks.items() if "-map-" in str(key) and ts.state == "memory")
    ws = dask_scheduler.workers.get(worker)
    return done, 0 if ws is None else len(ws.processing)


def holds_data(dask_scheduler=None, worker=None):
    """Number of keys held in memory by ``worker``, run on the scheduler."""
    ws = dask_scheduler.workers.get(worker)
    return 0 if ws is None else len(ws.has_what)


def fit_command(data, out, address, n_partitions):
    """``nbparallel fit`` on the emulated scheduler, with the hosts' timeouts."""
    env = dict(os.environ)
    for key, value in FAST_FAILURE.items():
        env["DASK_" + key.upper().replace(".", "__").replace("-", "_")] = str(value)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.Popen([sys.executable, "-m", "nbparallel.cli", "fit", str(data), "--target", "label",
                             "-o", str(out), "--scheduler", address, "--partitions", str(n_partitions),
                             "--quiet"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def cut_during_fit(data, out, local_counts, *, n_partitions=24, n_workers=3, rate="1gbit", hosts=None):
    """Cut worker 0's link in the middle of the counting pass; return what happened.

    ``hosts``: emulated hosts to use (worker 0 stays cut; close them after), or
    None to start ``n_workers`` on links of ``rate`` and tear them down.

    Returns
    -------
    dict
        ``outcome`` ("identical" or "error"), ``seconds``, ``cut_after`` (counting tasks done
        when the link went down), ``stderr``. Raises AssertionError on a partial or different
        model file, a hang past :data:`CUT_BOUND_S`, or an error that is not one line.
    """
    from distributed import Client

    from nbparallel import load

    out = Path(out)
    owned = hosts is None
    hosts = EmulatedHosts(n_workers, rate=rate) if owned else hosts
    with (hosts if owned else contextlib.nullcontext(hosts)), \
            Client(hosts.address, set_as_default=False) as observer:
        victim = hosts.worker_address(0)
        start = time.monotonic()
        fit = fit_command(data, out, hosts.address, n_partitions)
        def counting_or_ended():
            """The victim's counting tasks done once it has done one and runs another, or "ended" once the fit
            has; None: not yet."""
            if fit.poll() is not None:
                return "ended"
            done, busy = observer.run_on_scheduler(pass_state, worker=victim)
            return done if done >= 1 and busy else None

        try:
            cut_after = None
            try:
                moment = wait_until(counting_or_ended, CUT_BOUND_S, "worker 0 counting", interval=0.02)
            except TimeoutError:
                moment = "ended"  # no moment came: the fit's own wait below reports the hang
            if moment != "ended":
                hosts.cut(0)
                cut_after, cut_at = moment, time.monotonic() - start
            try:
                _, stderr = fit.communicate(timeout=max(CUT_BOUND_S - (time.monotonic() - start), 1))
            except subprocess.TimeoutExpired:
                fit.kill()
                fit.communicate()
                raise AssertionError(f"the fit hung past {CUT_BOUND_S:g} s after the cut") from None
        finally:
            if fit.poll() is None:
                fit.kill()
                fit.wait()
        seconds = time.monotonic() - start
    if owned:
        left = [name for name in leftovers(mine=False) if hosts.token in name]
        assert not left, f"teardown left {left}"
    if cut_after is None:
        raise AssertionError(f"the pass ended before the link could be cut (exit {fit.returncode}): {stderr}")
    if fit.returncode == 0:
        model = load(out)  # a partial or corrupt file fails its digest check here
        assert (model.counts_.table == local_counts.table).all(), "the model differs from the local fit"
        outcome = "identical"
    else:
        assert fit.returncode == 2, f"exit status {fit.returncode}: {stderr[-2000:]}"
        lines = [line for line in stderr.strip().splitlines() if not line.startswith("Dask dashboard:")]
        assert len(lines) == 1, f"the error is not one line: {stderr[-2000:]}"
        assert not out.exists(), "an error left a model file"
        outcome = "error"
    leftover = [p for p in out.parent.iterdir() if p.name.startswith(out.name) and p != out]
    assert not leftover, f"temporary files left: {leftover}"
    return {"outcome": outcome, "seconds": seconds, "cut_at": cut_at, "cut_after": cut_after,
            "stderr": stderr.strip()}


def main(argv=None):
    import argparse
    import tempfile

    from nbparallel import NaiveBayes

    parser = argparse.ArgumentParser(description="repeat the cut-link scenario")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    ok, why = available()
    if not ok:
        print(f"network namespaces are not available: {why}")
        return 2
    with tempfile.TemporaryDirectory(prefix="nbparallel-cut-") as tmp:
        data = write_data(Path(tmp) / "data")
        local = NaiveBayes(n_partitions=24).fit(str(data), "label").counts_
        results = []
        for run in range(args.runs):
            out = Path(tmp) / f"model-{run}.json"
            try:
                result = cut_during_fit(data, out, local)
            except AssertionError as exc:
                result = {"outcome": f"FAILED: {exc}", "seconds": float("nan"), "cut_after": None}
            results.append(result)
            print(f"run {run + 1}: {result['outcome']} in {result['seconds']:.1f} s "
                  f"(cut at {result.get('cut_at', float('nan')):.1f} s, after {result['cut_after']} counting tasks){' ' + result.get('stderr', '') if result['outcome'] == 'error' else ''}",
                  flush=True)
    good = sum(r["outcome"] in ("identical", "error") for r in results)
    print(f"{good}/{len(results)} runs gave the identical model or a clear error; "
          f"leftover namespaces/links: {leftovers()}")
    return 0 if good == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())

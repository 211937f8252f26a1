"""A soak of multi-pass jobs under worker faults, compared bit for bit with undisturbed runs.

Run from the repository root::

    python -m tests.faults --jobs 50 --seed 0

It starts a scheduler and 3 ``dask worker`` processes on 127.0.0.1
(``tests/dask_processes.py``), runs each kind of job once undisturbed (the
reference), then N jobs drawn at random among fit, boosting, cross-validation,
``select`` and AutoClass, each as a user runs it (``nbparallel ... --scheduler``
in a subprocess). During each job one or two faults are injected: a worker is
SIGKILLed at a moment watched on the scheduler (while it counts in a pass, while
it merges tables in the reduction tree, between two passes, right at a checkpoint
write) and a fresh worker is started to join the cluster. Each job's result (the
model file, or the scores that ``cv --json`` prints) must equal the reference bit
for bit, timings aside. A fault whose moment never came (the job ended first) is
reported as missed, not as survived.

The tests in ``tests/cluster/test_faults.py`` run a sample of these scenarios.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tests.dask_processes import dask_cluster, sigkill
from tests.netns_hosts import write_data
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent
N_FILES = 16
PARTITIONS = ("--partitions", str(N_FILES), "--split-every", "2", "--quiet")
#: Seconds a job may take in all, faults included.
JOB_BOUND_S = 120.0
#: The moments at which a worker can be killed; "checkpoint" only for jobs that write one.
MOMENTS = ("pass", "merge", "between", "checkpoint")
CHECKPOINTED = {"boost", "autoclass"}


def job_command(kind, data, workdir, connect):
    """The CLI arguments of a job of ``kind`` run with ``connect`` (e.g. ``["--scheduler", address]``),
    and where its result goes (a file, or None: stdout)."""
    out, checkpoint = workdir / "result.json", workdir / "checkpoint.json"
    commands = {
        "fit": ["fit", data, "--target", "label", "-o", out],
        "boost": ["fit", data, "--target", "label", "-o", out, "--boost", "5", "--checkpoint", checkpoint],
        "cv": ["cv", data, "--target", "label", "--folds", "4", "--json"],
        "select": ["select", data, "--target", "label", "-o", out, "--exact", "--max-features", "4"],
        "autoclass": ["cluster-fit", data, "--drop", "label", "--clusters", "3", "--seed", "0",
                      "--restarts", "2", "--max-iter", "6", "-o", out, "--checkpoint", checkpoint],
    }
    args = [str(a) for a in commands[kind]] + [*PARTITIONS, *connect]
    return args, (None if kind == "cv" else out)


JOBS = ("fit", "boost", "cv", "select", "autoclass")


def comparable(text, ignore=()):
    """A result's JSON without what differs between identical runs (timings, digest, checkpoint path)
    and the keys in ``ignore``."""
    skipped = {"seconds", "sha256", "checkpoint", *ignore}

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in skipped}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return json.dumps(strip(json.loads(text)), sort_keys=True)


def scheduler_state(dask_scheduler=None):
    """{worker name: keys it processes}, run on the scheduler."""
    return {str(ws.name): [str(ts.key) for ts in ws.processing] for ws in dask_scheduler.workers.values()}


class Workers:
    """The cluster's worker processes by name; fresh ones join on the same scheduler."""

    def __init__(self, address, initial):
        self.address = address
        self.procs = {f"worker-{i}": proc for i, proc in enumerate(initial)}
        self.fresh = []
        self.started = 0

    def alive(self):
        return [name for name, proc in self.procs.items() if proc.poll() is None]

    def kill(self, name):
        assert sigkill(self.procs[name]) == -9
        self.started += 1
        fresh = f"fresh-{self.started}"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))
        self.procs[fresh] = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--host", "127.0.0.1",
             "--nthreads", "1", "--no-nanny", "--name", fresh, "--death-timeout", "60"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        self.fresh.append(self.procs[fresh])
        return fresh

    def close(self):
        for proc in self.fresh:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(10)


def victim_at(moment, state, rng, seen_work):
    """The worker to kill now for ``moment`` given the scheduler's ``state``, or None (not yet)."""
    def busy(part):
        return sorted(name for name, keys in state.items() if any(part in key for key in keys))
    if moment == "pass":
        names = busy("-map-")
    elif moment == "merge":
        names = busy("-merge-")
    elif moment == "between":
        idle = seen_work and not any(state.values())
        names = sorted(state) if idle else []
    else:
        names = []
    return str(rng.choice(names)) if names else None


def checkpoint_written(path, before):
    """Whether the checkpoint file or its temporary has changed since ``before`` (a stat or None)."""
    temporaries = list(path.parent.glob(f".{path.name}.*.tmp"))
    now = path.stat().st_mtime_ns if path.exists() else None
    return bool(temporaries) or now != before


def inject(job, moments, observer, workers, rng, checkpoint, delay):
    """Kill one worker at each of ``moments`` in turn while ``job`` runs; return what was done."""
    done = []
    start = time.monotonic()
    time.sleep(delay)  # sleep: the soak's random start of the fault window (0 in the tests); it waits for nothing
    for moment in moments:
        seen = {"work": False}
        before = checkpoint.stat().st_mtime_ns if checkpoint.exists() else None

        def victim_or_end():
            """The worker to kill now, or "ended" once the job has; None: not yet."""
            if job.poll() is not None:
                return "ended"
            if moment == "checkpoint":
                victim = str(rng.choice(workers.alive())) if checkpoint_written(checkpoint, before) else None
            else:
                state = observer.run_on_scheduler(scheduler_state)
                seen["work"] = seen["work"] or any(state.values())
                victim = victim_at(moment, state, rng, seen["work"])
            return victim if victim in workers.alive() else None

        try:
            victim = wait_until(victim_or_end, max(JOB_BOUND_S - (time.monotonic() - start), 0),
                                f"the moment {moment!r}", interval=0.002)
        except TimeoutError:
            victim = "ended"  # the job overran its bound: run_job's wait reports it
        if victim == "ended":
            done.append((moment, None, None))
        else:
            workers.kill(victim)
            done.append((moment, victim, round(time.monotonic() - start, 2)))
    return done


def start_job(kind, data, workdir, connect):
    """Start a job in a subprocess, as a user runs it; return the process and where its result goes."""
    workdir.mkdir(parents=True, exist_ok=True)
    args, out = job_command(kind, data, workdir, connect)
    return subprocess.Popen([sys.executable, "-c", "import sys; from nbparallel.cli import main; sys.exit(main())",
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT), out


def run_job(kind, data, workdir, address, *, moments=(), workers=None, observer=None, rng=None, delay=0.0):
    """Run a job, injecting faults at ``moments``; return (exit status, result text, stderr, faults)."""
    job, out = start_job(kind, data, workdir, ["--scheduler", address])
    try:
        faults = inject(job, moments, observer, workers, rng, workdir / "checkpoint.json", delay) if moments else []
        stdout, stderr = job.communicate(timeout=JOB_BOUND_S)
    finally:
        if job.poll() is None:
            job.kill()
            job.communicate()
    result = stdout if out is None else (out.read_text() if out.exists() else None)
    return job.returncode, result, stderr, faults


def plan(rng, kind):
    """One or two fault moments for a job of ``kind``."""
    choices = [m for m in MOMENTS if m != "checkpoint" or kind in CHECKPOINTED]
    return [str(m) for m in rng.choice(choices, size=2 if rng.random() < 0.3 else 1)]


def wait_for_workers(observer, n):
    """Block until the scheduler has exactly ``n`` workers (a killed worker removed, its fresh one joined)."""
    observer.wait_for_workers(n, timeout=60)
    wait_until(lambda: len(observer.scheduler_info()["workers"]) <= n, 60, f"the scheduler down to {n} workers",
               interval=0.05)


def soak(n_jobs, seed, directory):
    """Run the soak; print one line per job and the totals; return (injected, survived, failures)."""
    from distributed import Client

    rng = np.random.default_rng(seed)
    data = write_data(directory / "data", n_files=N_FILES, rows=20_000)
    injected = survived = 0
    failures = []
    with dask_cluster(n_workers=3, nthreads=1) as (address, initial), \
            Client(address, timeout=10, set_as_default=False) as observer:
        workers = Workers(address, initial)
        try:
            references, durations = {}, {}
            for kind in JOBS:
                start = time.monotonic()
                status, result, stderr, _ = run_job(kind, data, directory / f"reference-{kind}", address)
                assert status == 0, stderr
                references[kind], durations[kind] = comparable(result), time.monotonic() - start
            print(f"{'job':>4} {'kind':<10} {'faults (moment: worker killed at s)':<58} {'result'}")
            for i in range(n_jobs):
                kind = str(rng.choice(JOBS))
                wait_for_workers(observer, 3)
                status, result, stderr, faults = run_job(
                    kind, data, directory / f"job-{i}", address, moments=plan(rng, kind), workers=workers,
                    observer=observer, rng=rng, delay=float(rng.uniform(0, 0.5 * durations[kind])))
                same = status == 0 and result is not None and comparable(result) == references[kind]
                hit = [f for f in faults if f[1] is not None]
                injected += len(hit)
                survived += len(hit) if same else 0
                if not same:
                    failures.append((i, kind, faults, status, stderr[-2000:]))
                text = ", ".join(f"{m}: {w} at {t}" if w else f"{m}: missed (job ended)" for m, w, t in faults)
                print(f"{i:>4} {kind:<10} {text:<58} {'identical' if same else f'DIFFERENT (exit {status})'}",
                      flush=True)
        finally:
            workers.close()
    print(f"{n_jobs} jobs, {injected} faults injected, {survived} survived")
    return injected, survived, failures


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.faults", description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=20, help="number of jobs with faults (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the job kinds, moments and victims")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nbparallel-faults-") as directory:
        injected, survived, failures = soak(args.jobs, args.seed, Path(directory))
    for i, kind, faults, status, stderr in failures:
        print(f"--- job {i} ({kind}, faults {faults}) exit {status}\n{stderr}", file=sys.stderr)
    return 0 if injected == survived and not failures else 1


if __name__ == "__main__":
    sys.exit(main())

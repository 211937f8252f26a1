"""Real ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1, for tests.

>>> with dask_cluster(n_workers=2) as (address, workers):  # doctest: +SKIP
...     sigkill(workers[0])
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent


class DaskProcesses(NamedTuple):
    """What :func:`dask_cluster` yields."""

    address: str
    workers: list


def free_port():
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sigkill(proc, timeout=10):
    """SIGKILL a process, wait for it, and return its exit status (-9)."""
    proc.send_signal(signal.SIGKILL)
    return proc.wait(timeout)


def _stop(proc):
    """Terminate a process, then kill it if it lingers."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _security(tls):
    from distributed.security import Security

    return Security(tls_ca_file=tls["ca_file"], tls_client_cert=tls["cert"],
                    tls_client_key=tls["key"], require_encryption=True)


def _wait_for_workers(address, n_workers, tls, procs, logs, timeout):
    """Block until ``n_workers`` are connected; raise with the logs if not."""
    from distributed import Client

    deadline = time.monotonic() + timeout
    error = None
    while time.monotonic() < deadline:
        dead = [p for p in procs if p.poll() is not None]
        if dead:
            error = f"process {dead[0].args[2]} exited with {dead[0].returncode}"
            break
        try:
            with Client(address, timeout=2, set_as_default=False,
                        security=_security(tls) if tls else None) as client:
                client.wait_for_workers(n_workers, timeout=max(deadline - time.monotonic(), 1))
                return
        except (OSError, TimeoutError) as exc:
            error = repr(exc)
    text = "\n".join(f"--- {log.name}\n{Path(log.name).read_text()[-3000:]}" for log in logs)
    raise RuntimeError(f"Dask cluster at {address} not ready in {timeout} s: {error}\n{text}")


@contextlib.contextmanager
def dask_cluster(n_workers=2, nthreads=1, tls=None, scheduler_config=None, timeout=60, memory_limit=None,
                 worker_config=None):
    """Start a scheduler and ``n_workers`` worker processes; stop them on exit.

    Parameters
    ----------
    n_workers, nthreads : int
        Worker processes (without nannies, so a killed worker stays dead) and
        threads in each.
    memory_limit : str, optional
        Each worker's memory limit, e.g. ``"512MB"``: the workers then run under
        nannies, which restart a worker that goes beyond it.
    tls : dict, optional
        ``ca_file``, ``cert``, ``key`` paths: the scheduler listens on
        ``tls://`` and everyone authenticates with this certificate.
    scheduler_config : dict, optional
        Dask config of the scheduler process, e.g.
        ``{"distributed.scheduler.no-workers-timeout": "2s"}``.
    worker_config : dict, optional
        Dask config of the worker processes, in the same form.
    timeout : float
        Seconds to wait for all workers to connect.

    Yields
    ------
    DaskProcesses
        ``(address, workers)``: the scheduler's address and the workers' Popen objects.
    """
    port = free_port()
    protocol = "tls" if tls else "tcp"
    address = f"{protocol}://127.0.0.1:{port}"
    tls_args = []
    if tls:
        tls_args = ["--tls-ca-file", tls["ca_file"], "--tls-cert", tls["cert"],
                    "--tls-key", tls["key"]]
    env = dict(os.environ)
    # Workers and the scheduler unpickle functions defined in test modules.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "tests"), str(ROOT), env.get("PYTHONPATH", "")])
    scheduler_env, worker_env = dict(env), dict(env)
    for config, process_env in ((scheduler_config, scheduler_env), (worker_config, worker_env)):
        for key, value in (config or {}).items():
            name = key.upper().replace(".", "__").replace("-", "_")
            process_env[f"DASK_{name}"] = str(value)

    procs, logs = [], []
    with contextlib.ExitStack() as stack:
        stack.callback(lambda: [_stop(p) for p in reversed(procs)])

        def start(args, env, name):
            log = stack.enter_context(tempfile.NamedTemporaryFile(
                "w+", prefix=f"{name}-", suffix=".log"))
            logs.append(log)
            proc = subprocess.Popen([sys.executable, "-m", *args], env=env, stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            procs.append(proc)
            return proc

        start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
               "--protocol", protocol, "--no-dashboard", *tls_args],
              scheduler_env, "scheduler")
        workers = [
            start(["distributed.cli.dask_worker", address, "--host", "127.0.0.1",
                   "--nthreads", str(nthreads), "--name", f"worker-{i}",
                   *(["--no-nanny"] if memory_limit is None else ["--nanny", "--memory-limit", memory_limit]),
                   "--death-timeout", str(timeout), *tls_args], worker_env, f"worker-{i}")
            for i in range(n_workers)
        ]
        _wait_for_workers(address, n_workers, tls, procs, logs, timeout)
        yield DaskProcesses(address, workers)

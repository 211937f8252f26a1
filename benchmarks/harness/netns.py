"""Emulated hosts: a Dask scheduler and N workers, each in its own network namespace.

Every process gets a namespace of its own, joined to the others by a Linux
bridge through a veth pair whose two ends are shaped with ``tc ... tbf`` (the
host's NIC: the same rate in and out). The test process (the Dask client)
stays in the root namespace and reaches the scheduler through the bridge's
own address; every address is in a private ``10.231.X.0/24`` subnet that no
other interface of this machine uses, and nothing is routed anywhere else.

A slow link is a low rate (:meth:`EmulatedHosts.shape`), a cut link is
``ip link set DEV down`` (:meth:`EmulatedHosts.cut`); this kernel has no
``netem``, so latency and loss are not emulated.

Everything is torn down by :meth:`EmulatedHosts.close` (idempotent; also run
at exit and on a failed start): processes, namespaces, veth pairs and the
bridge. Names start with :data:`PREFIX` and carry the owning process id, so
:func:`remove_stale` finds and removes what a killed run left behind.

>>> with EmulatedHosts(4, rate="100mbit") as hosts:   # doctest: +SKIP
...     with Client(hosts.address) as client:
...         hosts.cut(0)

Needs root (``CAP_NET_ADMIN``), ``ip`` and ``tc``; :func:`available` says why not.
Never imported by the package.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nbparallel.persistence.model_files import pid_alive

ROOT = Path(__file__).resolve().parents[2]

#: Prefix of every namespace this module creates: ``nbpnet-<pid>-<token>-<role>``.
PREFIX = "nbpnet"

#: Dask settings of every emulated host: a silent worker is removed after a few
#: seconds, and a connection to a cut host fails after a few seconds, instead of
#: the defaults (5 minutes, 30 s); the TCP timeout cannot go below 11 s that would make a cut link look like a hang.
FAST_FAILURE = {
    "distributed.scheduler.worker-ttl": "5s",
    "distributed.comm.timeouts.connect": "5s",
    "distributed.comm.timeouts.tcp": "15s",
    "distributed.scheduler.work-stealing": "True",
}

SCHEDULER_PORT = 8786

#: Tokens of the instances created by this process (see :func:`leftovers`).
_TOKENS = set()


def _run(*args, check=True):
    """Run a command of ``ip``/``tc``; raise with its stderr on failure."""
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done


def available():
    """``(True, "")`` when this machine lets us create namespaces, or ``(False, why)``."""
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return False, f"{tool!r} is not installed"
    if os.geteuid() != 0:
        return False, "network namespaces need root (CAP_NET_ADMIN)"
    name = f"{PREFIX}-{os.getpid()}-probe{secrets.token_hex(2)}"
    done = _run("ip", "netns", "add", name, check=False)
    if done.returncode != 0:
        return False, f"'ip netns add' refused: {done.stderr.strip()}"
    try:
        bridge = f"nbpp{secrets.token_hex(3)}"
        done = _run("ip", "link", "add", bridge, "type", "bridge", check=False)
        if done.returncode != 0:
            return False, f"'ip link add ... type bridge' refused: {done.stderr.strip()}"
        _run("ip", "link", "del", bridge, check=False)
    finally:
        _run("ip", "netns", "del", name, check=False)
    return True, ""


def _kill_namespace_processes(namespace):
    """SIGKILL every process in ``namespace`` (they are ours: we started them there)."""
    done = _run("ip", "netns", "pids", namespace, check=False)
    for pid in done.stdout.split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)


def remove_stale():
    """Remove namespaces and bridges of this module whose owning process is gone.

    Returns the names removed.
    """
    removed = []
    listing = _run("ip", "netns", "list", check=False).stdout.split("\n")
    for line in listing:
        name = line.split(" ")[0]
        match = re.fullmatch(rf"{PREFIX}-(\d+)-([0-9a-f]+)-\w+", name)
        if match and not pid_alive(int(match.group(1))):
            _kill_namespace_processes(name)
            _run("ip", "netns", "del", name, check=False)
            _run("ip", "link", "del", f"nbpb{match.group(2)}", check=False)
            removed.append(name)
    return removed


def _free_subnet():
    """A third octet X with 10.231.X.0/24 unused by this namespace's interfaces."""
    used = set(re.findall(r"10\.231\.(\d+)\.", _run("ip", "-o", "-4", "addr", "show").stdout))
    for x in range(256):
        if str(x) not in used:
            return x
    raise RuntimeError("no free 10.231.X.0/24 subnet")


def _burst(rate_bits):
    """tbf bucket size in bytes: 4 ms of traffic, at least 16 KiB."""
    return max(16 * 1024, int(rate_bits / 8 * 0.004))


def parse_rate(rate):
    """Bits per second of a tc rate string.

    >>> parse_rate("100mbit"), parse_rate("1gbit"), parse_rate("256kbit")
    (100000000, 1000000000, 256000)
    """
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(k|m|g)?bit", str(rate).lower())
    if not match:
        raise ValueError(f"rate must look like '100mbit' or '1gbit', got {rate!r}")
    scale = {None: 1, "k": 10**3, "m": 10**6, "g": 10**9}[match.group(2)]
    return int(float(match.group(1)) * scale)


class EmulatedHosts:
    """A scheduler and ``n_workers`` Dask workers, each in a namespace of its own.

    Parameters
    ----------
    n_workers : int
        Worker hosts (1 to 8 is what the machine's 2 cores carry).
    rate : str
        Rate of every host's link, in and out, as tc writes it ("1gbit").
    scheduler_rate : str, optional
        Rate of the scheduler's link (default ``rate``).
    nthreads : int
        Threads per worker.
    memory_limit : str
        Dask memory limit of each worker.
    dask_config : dict, optional
        Dask settings of every process, on top of :data:`FAST_FAILURE`.
    timeout : float
        Seconds to wait for every worker to connect.

    Attributes
    ----------
    address : str
        The scheduler's ``tcp://`` address, reachable from this process.
    workers : list of subprocess.Popen
        The worker processes, by index.
    """

    def __init__(self, n_workers, rate="1gbit", *, scheduler_rate=None, nthreads=1,
                 memory_limit="1.5GiB", dask_config=None, timeout=60.0):
        if not 1 <= n_workers <= 16:
            raise ValueError(f"n_workers must be in 1..16, got {n_workers}")
        self.n_workers = n_workers
        self.rate = rate
        self.scheduler_rate = scheduler_rate or rate
        self.nthreads = nthreads
        self.memory_limit = memory_limit
        self.config = {**FAST_FAILURE, **(dask_config or {})}
        self.timeout = timeout
        self.token = secrets.token_hex(3)
        _TOKENS.add(self.token)
        self.bridge = f"nbpb{self.token}"
        self.workers = []
        self._procs = []
        self._logs = []
        self._namespaces = []
        self._links = []
        self._closed = False
        self._started = False
        self.subnet = None

    # names -------------------------------------------------------------------------
    def _namespace(self, role):
        return f"{PREFIX}-{os.getpid()}-{self.token}-{role}"

    def _link(self, role):
        return f"nbp{self.token}{role}"  # host end, <= 15 characters

    def host_ip(self, role):
        """The address of ``"s"`` (the scheduler) or ``"w<i>"`` (worker i)."""
        last = 2 if role == "s" else 10 + int(role[1:])
        return f"10.231.{self.subnet}.{last}"

    @property
    def address(self):
        return f"tcp://{self.host_ip('s')}:{SCHEDULER_PORT}"

    def worker_address(self, i):
        """The Dask address worker ``i`` listens on (port fixed so it is known in advance)."""
        return f"tcp://{self.host_ip(f'w{i}')}:{SCHEDULER_PORT + 1}"

    @property
    def worker_addresses(self):
        return [self.worker_address(i) for i in range(self.n_workers)]

    # set-up ------------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def start(self):
        """Build the network, start the processes and wait for every worker."""
        if self._started:
            return self
        self._started = True
        atexit.register(self.close)
        try:
            remove_stale()
            self.subnet = _free_subnet()
            _run("ip", "link", "add", self.bridge, "type", "bridge")
            self._links.append(self.bridge)
            _run("ip", "addr", "add", f"10.231.{self.subnet}.1/24", "dev", self.bridge)
            _run("ip", "link", "set", self.bridge, "up")
            roles = ["s"] + [f"w{i}" for i in range(self.n_workers)]
            for role in roles:
                self._add_host(role, self.scheduler_rate if role == "s" else self.rate)
            self._start_processes()
        except BaseException:
            self.close()
            raise
        return self

    def _add_host(self, role, rate):
        namespace, link, peer = self._namespace(role), self._link(role), f"nbq{self.token}{role}"
        _run("ip", "netns", "add", namespace)
        self._namespaces.append(namespace)
        _run("ip", "link", "add", link, "type", "veth", "peer", "name", peer)
        self._links.append(link)
        _run("ip", "link", "set", peer, "netns", namespace)
        _run("ip", "link", "set", link, "master", self.bridge)
        _run("ip", "link", "set", link, "up")
        inside = ("ip", "netns", "exec", namespace)
        _run(*inside, "ip", "link", "set", peer, "name", "eth0")
        _run(*inside, "ip", "addr", "add", f"{self.host_ip(role)}/24", "dev", "eth0")
        _run(*inside, "ip", "link", "set", "eth0", "up")
        _run(*inside, "ip", "link", "set", "lo", "up")
        self._shape(role, rate, "add")

    def _shape(self, role, rate, verb):
        bits = parse_rate(rate)
        args = ("root", "tbf", "rate", f"{bits}bit", "burst", str(_burst(bits)), "latency", "100ms")
        _run("tc", "qdisc", verb, "dev", self._link(role), *args)  # into the host
        _run("ip", "netns", "exec", self._namespace(role), "tc", "qdisc", verb, "dev", "eth0", *args)  # out of it

    def _env(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "tests"), str(ROOT / "benchmarks"), str(ROOT), env.get("PYTHONPATH", "")])
        for key, value in self.config.items():
            env["DASK_" + key.upper().replace(".", "__").replace("-", "_")] = str(value)
        env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("NUMBA_NUM_THREADS", "1")
        env.setdefault("MALLOC_TRIM_THRESHOLD_", "65536")
        return env

    def _popen(self, role, args):
        log = tempfile.NamedTemporaryFile("w+", prefix=f"{PREFIX}-{role}-", suffix=".log", delete=False)  # noqa: SIM115 (closed by close())
        self._logs.append(log)
        proc = subprocess.Popen(["ip", "netns", "exec", self._namespace(role), sys.executable, "-m", *args],
                                env=self._env(), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        self._procs.append(proc)
        return proc

    def _start_processes(self):
        self._popen("s", ["distributed.cli.dask_scheduler", "--host", self.host_ip("s"),
                          "--port", str(SCHEDULER_PORT), "--no-dashboard"])
        self.workers = [
            self._popen(f"w{i}", ["distributed.cli.dask_worker", self.address,
                                  "--host", self.host_ip(f"w{i}"), "--worker-port", str(SCHEDULER_PORT + 1),
                                  "--nthreads", str(self.nthreads), "--no-nanny", "--name", f"w{i}",
                                  "--memory-limit", str(self.memory_limit),
                                  "--death-timeout", str(int(self.timeout))])
            for i in range(self.n_workers)]
        self._wait_for_workers()

    def _wait_for_workers(self):
        from distributed import Client

        deadline = time.monotonic() + self.timeout
        error = None
        while time.monotonic() < deadline:
            dead = [p for p in self._procs if p.poll() is not None]
            if dead:
                error = f"a process exited with status {dead[0].returncode}"
                break
            try:
                with Client(self.address, timeout=3, set_as_default=False) as client:
                    client.wait_for_workers(self.n_workers, timeout=max(deadline - time.monotonic(), 1))
                    return
            except (OSError, TimeoutError) as exc:
                error = repr(exc)
                time.sleep(0.5)
        raise RuntimeError(f"emulated hosts not ready in {self.timeout:g} s: {error}\n{self.logs()}")

    # faults ------------------------------------------------------------------------
    def cut(self, i):
        """Take worker ``i``'s link down (the cable pulled): its packets go nowhere."""
        _run("ip", "link", "set", self._link(f"w{i}"), "down")

    def restore(self, i):
        """Bring worker ``i``'s link back up."""
        _run("ip", "link", "set", self._link(f"w{i}"), "up")

    def shape(self, i, rate):
        """Change worker ``i``'s link rate, in and out (``"s"`` for the scheduler)."""
        self._shape("s" if i == "s" else f"w{i}", rate, "change")

    def shape_all(self, rate):
        """Set every worker's link to ``rate``."""
        self.rate = rate
        for i in range(self.n_workers):
            self.shape(i, rate)

    def logs(self, tail=2000):
        """The last ``tail`` characters of every process's log."""
        out = []
        for log in self._logs:
            with contextlib.suppress(OSError):
                out.append(f"--- {log.name}\n{Path(log.name).read_text()[-tail:]}")
        return "\n".join(out)

    # teardown ----------------------------------------------------------------------
    def close(self):
        """Stop every process and remove namespaces, links and the bridge. Idempotent."""
        if self._closed:
            return
        self._closed = True
        for proc in reversed(self._procs):
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + 3
        for proc in self._procs:
            try:
                proc.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(5)
        for namespace in self._namespaces:
            _kill_namespace_processes(namespace)
            _run("ip", "netns", "del", namespace, check=False)
        for link in reversed(self._links):  # veth pairs died with their namespaces
            _run("ip", "link", "del", link, check=False)
        for log in self._logs:
            log.close()
            with contextlib.suppress(OSError):
                os.unlink(log.name)
        with contextlib.suppress(Exception):
            atexit.unregister(self.close)


def leftovers(mine=True):
    """Names of this module's namespaces and links that exist now (for checks after teardown).

    With ``mine``, only those of the instances this process created.
    """
    names = [line.split(" ")[0] for line in _run("ip", "netns", "list", check=False).stdout.splitlines()
             if line.startswith(PREFIX + "-")]
    links = re.findall(r"^\d+: (nbp[bq0-9a-f][^:@]*)", _run("ip", "-o", "link", "show").stdout, re.MULTILINE)
    found = names + links
    if mine:
        found = [n for n in found if any(token in n for token in _TOKENS)]
    return found

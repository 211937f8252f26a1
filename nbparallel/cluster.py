"""Getting a Dask cluster from a YAML file in ``cluster_configs/`` (or the Spark or Ray settings of one).

A cluster config is a mapping with these keys::

    kind: local | scheduler | ssh | slurm | pbs | kubernetes | spark | ray   # required
    timeout: 10        # seconds to reach the scheduler (default 10)
    no_workers_timeout: 60   # fail tasks after this long without any worker
    options: {...}     # keyword arguments of the kind's cluster class
    security:          # kind: scheduler with a tls:// address only
      ca_file: ca.pem
      cert: client.pem
      key: client-key.pem

Kind ``spark`` has options ``master`` (a master URL: ``local[2]``, ``spark://HOST:7077``,
``sc://HOST:15002``) and ``conf`` (Spark settings); kind ``ray`` has ``address`` (``local``, ``auto``,
``HOST:PORT``, ``ray://HOST:PORT``) and ``num_cpus`` (a local Ray's cores). The command line starts
them and reads the data files with them (:mod:`nbparallel.cli.engines`); they are no Dask cluster.

Every key is checked, so a misspelt one is an error rather than a silently
ignored setting. The optional back ends (dask-jobqueue, dask-kubernetes,
asyncssh) are imported only when a config asks for them.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import os
import shutil
import sys
import threading
import time

import yaml

DEFAULT_TIMEOUT = 10.0


#: Seconds without any worker after which a fit fails, by kind; None waits for
#: ever (batch and Kubernetes workers may be queued for a long time).
DEFAULT_NO_WORKERS_TIMEOUT = {"local": 60.0, "scheduler": 60.0, "ssh": 60.0,
                              "slurm": None, "pbs": None, "kubernetes": None, "spark": None, "ray": None}

#: The kinds that are no Dask cluster: a Spark session or a Ray cluster, which the command line
#: (``--cluster``) starts and whose engine reads the data files.
ENGINE_KINDS = ("spark", "ray")


TOP_KEYS = ("kind", "no_workers_timeout", "options", "security", "timeout")
SECURITY_KEYS = ("ca_file", "cert", "key")
_JOBQUEUE_KEYS = (
    "queue", "account", "cores", "memory", "processes", "walltime", "jobs",
    "interface", "local_directory", "log_directory", "job_extra_directives",
    "job_script_prologue", "worker_extra_args", "python", "job_name",
)


#: Accepted ``options`` keys of each kind.
OPTION_KEYS = {
    "local": ("n_workers", "threads_per_worker", "memory_limit", "processes",
              "dashboard_address"),
    "scheduler": ("address",),
    "ssh": ("hosts", "connect_options", "worker_options", "scheduler_options",
            "remote_python"),
    "slurm": _JOBQUEUE_KEYS,
    "pbs": _JOBQUEUE_KEYS + ("resource_spec",),
    "kubernetes": ("name", "namespace", "image", "n_workers", "resources", "env",
                   "worker_command", "scheduler_service_type", "shutdown_on_close",
                   "idle_timeout"),
    "spark": ("master", "conf"),
    "ray": ("address", "num_cpus"),
}


#: kind -> (module, class, how to install it), imported lazily.
_BACKENDS = {
    "local": ("distributed", "LocalCluster", None),
    "ssh": ("distributed", "SSHCluster", "pip install nbparallel[ssh]"),
    "slurm": ("dask_jobqueue", "SLURMCluster", "pip install nbparallel[jobqueue]"),
    "pbs": ("dask_jobqueue", "PBSCluster", "pip install nbparallel[jobqueue]"),
    "kubernetes": ("dask_kubernetes.operator", "KubeCluster",
                   "pip install nbparallel[kubernetes]"),
}


_NEEDS = {"ssh": "asyncssh"}


#: The batch system's job submission command of the kinds that need one.
_SUBMIT_COMMANDS = {"slurm": "sbatch", "pbs": "qsub"}


def _check_keys(path, where, given, accepted):
    """Raise ValueError naming the file and the first key not in ``accepted``."""
    for key in given:
        if key not in accepted:
            close = difflib.get_close_matches(str(key), accepted, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(
                f"{path}: unknown key {key!r} in {where}{hint}; "
                f"accepted keys: {', '.join(accepted)}"
            )


def load_config(path):
    """Read and validate a cluster config.

    Parameters
    ----------
    path : str or os.PathLike
        YAML file, e.g. ``cluster_configs/local.yaml``.

    Returns
    -------
    dict
        ``kind``, ``timeout`` (float seconds), ``no_workers_timeout``
        (seconds or None), ``options`` (dict),
        ``security`` (dict of absolute paths, or None) and ``path``.
        Relative security paths are resolved against the file's directory.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not valid YAML or has a missing, unknown or invalid key;
        the message names the file and the key and lists the accepted keys.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"cluster config {path!r} does not exist")
    with open(path, encoding="utf-8") as f:
        try:
            raw = yaml.safe_load(f)
        except yaml.YAMLError as exc:
            raise ValueError(f"{path}: invalid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping with keys {', '.join(TOP_KEYS)}")
    _check_keys(path, "the top level", raw, TOP_KEYS)

    kind = raw.get("kind")
    if kind not in OPTION_KEYS:
        raise ValueError(
            f"{path}: key 'kind' is {kind!r}; accepted kinds: {', '.join(OPTION_KEYS)}"
        )
    options = raw.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError(f"{path}: key 'options' must be a mapping, got {options!r}")
    _check_keys(path, f"options of kind {kind!r}", options, OPTION_KEYS[kind])

    seconds = {"timeout": raw.get("timeout", DEFAULT_TIMEOUT),
               "no_workers_timeout": raw.get("no_workers_timeout",
                                             DEFAULT_NO_WORKERS_TIMEOUT[kind])}
    for key, value in seconds.items():
        if value is None and key == "no_workers_timeout":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ValueError(f"{path}: key {key!r} must be a positive number of seconds, "
                             f"got {value!r}")

    if kind in ENGINE_KINDS:
        _check_engine_options(path, kind, options)
    if kind == "scheduler":
        address = options.get("address")
        if not isinstance(address, str) or not address.startswith(("tcp://", "tls://")):
            raise ValueError(f"{path}: key 'options.address' must be a tcp:// or tls:// "
                             f"address, got {address!r}")
    security = raw.get("security")
    if security is not None:
        if kind != "scheduler" or not options["address"].startswith("tls://"):
            raise ValueError(f"{path}: key 'security' needs kind 'scheduler' with a "
                             f"tls:// address")
        if not isinstance(security, dict):
            raise ValueError(f"{path}: key 'security' must be a mapping with keys "
                             f"{', '.join(SECURITY_KEYS)}")
        _check_keys(path, "security", security, SECURITY_KEYS)
        missing = [k for k in SECURITY_KEYS if not security.get(k)]
        if missing:
            raise ValueError(f"{path}: key 'security.{missing[0]}' is missing; "
                             f"required keys: {', '.join(SECURITY_KEYS)}")
        base = os.path.dirname(os.path.abspath(path))
        security = {k: os.path.join(base, os.path.expanduser(str(v)))
                    for k, v in security.items()}
    return {"kind": kind, "timeout": float(seconds["timeout"]),
            "no_workers_timeout": seconds["no_workers_timeout"], "options": dict(options),
            "security": security, "path": path}


def _check_engine_options(path, kind, options):
    """Raise ValueError naming the file and the key unless a spark or ray config's options are valid."""
    from nbparallel.engine.backends.ray import check_address
    from nbparallel.engine.backends.spark import check_master

    key, check = ("master", check_master) if kind == "spark" else ("address", check_address)
    try:
        check(options.get(key))
    except ValueError as exc:
        raise ValueError(f"{path}: key 'options.{key}': {exc}") from None
    conf = options.get("conf", {})
    if kind == "spark" and not isinstance(conf, dict):
        raise ValueError(f"{path}: key 'options.conf' must be a mapping of Spark settings, got {conf!r}")
    cpus = options.get("num_cpus")
    if kind == "ray" and cpus is not None and (isinstance(cpus, bool) or not isinstance(cpus, int) or cpus < 1
                                               or options["address"] != "local"):
        raise ValueError(f"{path}: key 'options.num_cpus' must be an int >= 1, with address 'local', got {cpus!r}")


def _security(files):
    """A ``distributed.security.Security`` for mutual TLS from a security block."""
    from distributed.security import Security

    return Security(tls_ca_file=files["ca_file"], tls_client_cert=files["cert"],
                    tls_client_key=files["key"], require_encryption=True)


def _connect_address(address, timeout=DEFAULT_TIMEOUT, security=None, source=""):
    """A Client connected to ``address`` (a string or a cluster object).

    Raises ConnectionError naming the address after ``timeout`` seconds.
    """
    from distributed import Client

    if isinstance(address, str):
        from distributed.comm import get_address_host_port

        try:
            get_address_host_port(address)
        except ValueError as exc:
            raise ValueError(f"{address!r}{source} is not a Dask scheduler address like "
                             f"tcp://HOST:PORT ({exc})") from None
    if isinstance(address, str) and address.startswith("tls://") and security is None:
        from distributed.security import Security

        security = Security()  # TLS settings from the Dask config
    try:
        return Client(address, timeout=timeout, security=security, set_as_default=False)
    except (OSError, TypeError) as exc:
        raise ConnectionError(
            f"could not connect to the Dask scheduler at "
            f"{getattr(address, 'scheduler_address', address)}{source} "
            f"(timeout {timeout:g} s): {exc}"
        ) from exc


def _cluster_class(kind):
    """Import the cluster class of ``kind``, with an install hint if it is missing."""
    module, name, install = _BACKENDS[kind]
    try:
        if kind in _NEEDS:
            importlib.import_module(_NEEDS[kind])
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise ImportError(f"cluster kind {kind!r} needs {exc.name}: {install}") from exc


def _make_cluster(config):
    """Start the cluster a non-scheduler config describes, scaled to its ``jobs``."""
    cluster_class = _cluster_class(config["kind"])
    submit = _SUBMIT_COMMANDS.get(config["kind"])
    if submit is not None and shutil.which(submit) is None:
        raise FileNotFoundError(f"{config['path']}: kind {config['kind']!r} submits its workers with "
                                f"{submit!r}, which is not on this host's PATH; run on the cluster's login node")
    options = dict(config["options"])
    jobs = options.pop("jobs", None)
    cluster = cluster_class(**options)
    if jobs:
        cluster.scale(jobs=jobs)
    return cluster


def connect(config_path):
    """Build the cluster of a config (or reach its scheduler) and connect a Client.

    Parameters
    ----------
    config_path : str or os.PathLike
        Cluster config, see :func:`load_config`.

    Returns
    -------
    distributed.Client
        Not set as the default client. If the config started a cluster,
        ``client.cluster`` is it; close both (:func:`client_for` does).

    Raises
    ------
    ConnectionError
        If the scheduler cannot be reached within the config's ``timeout``.
    ImportError
        If the kind's optional back end is not installed.
    """
    config = load_config(config_path)
    source = f" (from {config['path']})"
    if config["kind"] in ENGINE_KINDS:
        raise ValueError(f"{config['path']}: kind {config['kind']!r} is no Dask cluster; give it to the command "
                         "line's --cluster, which starts it and reads the data with it")
    if config["kind"] == "scheduler":
        security = _security(config["security"]) if config["security"] else None
        return _connect_address(config["options"]["address"], config["timeout"], security,
                                source)
    cluster = _make_cluster(config)
    try:
        return _connect_address(cluster, config["timeout"], source=source)
    except BaseException:
        cluster.close()
        raise


def render_job_script(config_path):
    """The batch script a slurm or pbs config would submit, without submitting it.

    Parameters
    ----------
    config_path : str or os.PathLike
        Cluster config of kind ``slurm`` or ``pbs``.

    Returns
    -------
    str
        dask-jobqueue's ``job_script()``.
    """
    config = load_config(config_path)
    if config["kind"] not in ("slurm", "pbs"):
        raise ValueError(f"{config['path']}: job scripts exist for kinds slurm and pbs, "
                         f"not {config['kind']!r}")
    options = dict(config["options"])
    options.pop("jobs", None)
    with _cluster_class(config["kind"])(**options) as cluster:
        return cluster.job_script()


def _dashboard(client):
    """The client's dashboard address, or None when the scheduler serves none."""
    try:
        return client.dashboard_link or None
    except KeyError:
        return None


class NoWorkersError(TimeoutError):
    """The cluster had no worker for longer than the config's ``no_workers_timeout``."""


@contextlib.contextmanager
def _fail_without_workers(client, seconds, poll=0.5):
    """Stop the fit when the cluster has had no worker for ``seconds``.

    A thread of this process watches the number of workers and closes the
    client when the time is up, which ends the computation it waits for; the
    scheduler's own settings are never changed, so a fit that is killed
    leaves the shared scheduler as it found it.
    """
    if seconds is None:
        yield
        return
    stop, fired = threading.Event(), threading.Event()

    def watch():
        since = None
        while not stop.wait(poll):
            try:
                n_workers = len(client.nthreads())
            except Exception:  # the scheduler is unreachable: the client's own timeouts handle it
                continue
            now = time.monotonic()
            since = None if n_workers else (since or now)
            if since is not None and now - since >= seconds:
                fired.set()
                client.close(timeout=5)
                return

    watcher = threading.Thread(target=watch, name="nbparallel-no-workers-watch", daemon=True)
    watcher.start()
    try:
        yield
    except Exception as exc:
        if fired.is_set():
            raise _no_workers_error(seconds) from exc
        raise
    finally:
        stop.set()
        watcher.join()
    if fired.is_set():
        raise _no_workers_error(seconds)


def _no_workers_error(seconds):
    return NoWorkersError(f"the cluster was without any running workers for {seconds:g} s "
                          f"(no_workers_timeout); the fit was stopped")


@contextlib.contextmanager
def client_for(scheduler=None, cluster=None):
    """Context manager giving the Client a fit should run on.

    Parameters
    ----------
    scheduler : str, optional
        Address of a running scheduler (``tcp://`` or ``tls://``, the latter
        with the TLS settings of the Dask config).
    cluster : str or os.PathLike, optional
        Cluster config, see :func:`connect`.

    Yields
    ------
    distributed.Client or None
        None when neither is given: use Dask's local threaded scheduler.
        The client (and any cluster it started) is closed on exit; its
        dashboard address is printed to stderr when there is one. While it is
        open, a fit fails with :class:`NoWorkersError` after the config's
        ``no_workers_timeout`` (60 s for a scheduler address) without any
        worker instead of waiting for ever; the scheduler is not changed.
    """
    if scheduler is not None and cluster is not None:
        raise ValueError("give a scheduler address or a cluster config, not both")
    if scheduler is None and cluster is None:
        yield None
        return
    if scheduler is not None:
        client = _connect_address(scheduler)
        no_workers_timeout = DEFAULT_NO_WORKERS_TIMEOUT["scheduler"]
    else:
        client = connect(cluster)
        no_workers_timeout = load_config(cluster)["no_workers_timeout"]
    owned = client.cluster if cluster is not None else None
    try:
        link = _dashboard(client)
        if link:
            print(f"Dask dashboard: {link}", file=sys.stderr)
        with _fail_without_workers(client, no_workers_timeout):
            yield client
    finally:
        client.close()
        if owned is not None:
            owned.close()

"""A description of the machine a benchmark ran on, stored with its results."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib():
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        return None


def _version(package):
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def describe(client=None):
    """Cores, memory and library versions of this machine (and of the cluster).

    Parameters
    ----------
    client : distributed.Client, optional
        When given, the cluster's workers (threads and memory) are described too.

    Returns
    -------
    dict
        Plain values, for JSON.
    """
    info = {
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "python": sys.version.split()[0],
        **{name: _version(name) for name in
           ("nbparallel", "numpy", "numba", "pandas", "dask", "distributed", "scikit-learn")},
    }
    if client is not None:
        workers = client.scheduler_info(n_workers=-1)["workers"]
        info["cluster"] = {
            "scheduler": client.scheduler.address,
            "workers": len(workers),
            "threads": sum(w["nthreads"] for w in workers.values()),
            "memory_gib": round(sum(w["memory_limit"] for w in workers.values()) / 2**30, 1),
        }
    return info

"""A description of the machine a benchmark ran on, stored with its results."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from pathlib import Path

VIRTIO_ID_BALLOON = 5
"""The virtio device id of a memory balloon."""

VIRTIO_BALLOON_F_REPORTING = 5
"""The balloon's feature bit for free page reporting."""


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


def free_page_reporting(devices=Path("/sys/bus/virtio/devices")):
    """Whether this machine is a virtual one whose memory balloon reports free pages to its host (Linux's
    virtio-balloon free page reporting): memory freed about 2 s earlier then goes back to the host, and
    touching it again faults on the host, so a pass that allocates a large array is timed with those faults
    (``nbparallel bench fresh_memory``; docs/models.md, 'Fresh memory'). None where ``devices`` is not
    listed (not Linux).

    ``devices`` holds a folder per virtio device, its ``device`` file the device id (hexadecimal) and its
    ``features`` file the negotiated feature bits, bit ``i`` the ``i``-th character.
    """
    if not devices.is_dir():
        return None
    for device in devices.iterdir():
        try:
            kind = int((device / "device").read_text().strip(), 16)
            features = (device / "features").read_text().strip()
        except (OSError, ValueError):
            continue
        if kind == VIRTIO_ID_BALLOON and len(features) > VIRTIO_BALLOON_F_REPORTING \
                and features[VIRTIO_BALLOON_F_REPORTING] == "1":
            return True
    return False


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
        "free_page_reporting": free_page_reporting(),
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

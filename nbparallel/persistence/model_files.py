"""Model files: versioned JSON with a SHA-256 digest, written atomically, never unpickled.

A model file is one JSON object::

    {"format": "nbparallel-model", "format_version": 1, "estimator": "NaiveBayes",
     "params": {...}, "fitted": {...}, "sha256": "..."}

``sha256`` is the digest of the canonical JSON text of the other keys (sorted
keys, no spaces, ASCII). It detects a damaged file (a flipped bit, a truncated
copy) wherever the damage changes a value; a change that parses to the same
values (the 17th digit of a float that rounds to the same double) changes
nothing and passes. It is no signature: anyone can recompute it. Files written before the
digest existed have no ``sha256`` key; they are still read, and validated as
strictly as any other. Reading refuses anything that is not a regular file or
is larger than :data:`MAX_FILE_BYTES`, and every value is checked against the
format (see :mod:`nbparallel.persistence.validate`) before a model is built from it.

Writing goes to a temporary file in the target's directory, then renames it
over the target: a reader sees the old file or the new one, never a part.
The new file gets the permissions ``open()`` would give (0666 less the
umask). When the target is a symbolic link, the link itself is replaced by
the new file and the file it pointed to is left unchanged. A temporary file
left behind by a save that was killed is removed by the next save to the same
path.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path

import numpy as np

FORMAT = "nbparallel-model"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 1 << 30
"""The largest model or checkpoint file :func:`read_json` reads (1 GiB)."""
PICKLE_MARK = b"\x80"
"""The first byte of a pickle of protocol 2 or later (what ``pickle.dump`` and joblib write)."""


DIGEST_KEY = "sha256"
TOP_KEYS = ("format", "format_version", "estimator", "params", "fitted", DIGEST_KEY)


def digest(data):
    """SHA-256 hex digest of the canonical JSON text of ``data`` without its digest key.

    >>> digest({"a": 1, "b": [1.5, "x"]}) == digest({"b": [1.5, "x"], "a": 1, "sha256": "0"})
    True
    """
    body = {k: v for k, v in data.items() if k != DIGEST_KEY}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _umask():
    """The process umask, read without changing it where the system tells it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def pid_alive(pid):
    """Whether process ``pid`` exists (on this machine); a process of another user counts as alive."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_temporaries(path):
    """Remove temporary files of saves to ``path`` whose process no longer runs."""
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        pid = tmp.name[len(path.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            try:
                tmp.unlink()
            except OSError:
                pass


def write_json_atomic(data, path):
    """Write ``data`` and its digest as JSON to ``path``, completely or not at all.

    Raises
    ------
    FileNotFoundError
        If the directory of ``path`` does not exist.
    """
    path = Path(path)
    directory = path.parent
    if not directory.is_dir():
        raise FileNotFoundError(f"cannot write {path}: directory {str(directory)!r} does not exist")
    text = json.dumps({**data, DIGEST_KEY: digest(data)}, allow_nan=False)
    write_bytes_atomic(text.encode("utf-8"), path)


def write_bytes_atomic(content, path):
    """Write ``content`` (bytes) to ``path``, completely or not at all: through a temporary file in the same
    directory, renamed over ``path``, with the permissions ``open()`` would give (0666 less the umask).

    Raises
    ------
    FileNotFoundError
        If the directory of ``path`` does not exist.
    """
    path = Path(path)
    _remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o666 & ~_umask())
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_json(path, what):
    """The JSON value in ``path``, read within the size limit.

    Parameters
    ----------
    path : Path
    what : str
        What the file should be, for messages ("nbparallel model").

    Raises
    ------
    FileNotFoundError
        If there is no file.
    ValueError
        If it is not a regular file, larger than :data:`MAX_FILE_BYTES`, or not JSON.
    """
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path} is not a valid {what} file (not a regular file)")
    if info.st_size > MAX_FILE_BYTES:
        raise ValueError(f"{path} is not a valid {what} file: {info.st_size} bytes, "
                         f"more than the limit of {MAX_FILE_BYTES} (nbparallel.persistence.model_files.MAX_FILE_BYTES)")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise ValueError(f"more than the limit of {MAX_FILE_BYTES} bytes")
        if raw[:1] == PICKLE_MARK:
            raise TypeError("a Python pickle, which nbparallel never loads (unpickling runs code); "
                            "models are saved as JSON by model.save(path) or nbparallel fit -o")
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a valid {what} file (not JSON: {exc})") from None
    except TypeError as exc:
        raise ValueError(f"{path} is not a valid {what} file: {exc}") from None
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
        raise ValueError(f"{path} is not a valid {what} file ({type(exc).__name__}: {exc})") from None
    return data


def check_digest(data, path, what):
    """Raise ValueError naming ``path`` when the dict ``data`` has a digest that does not match."""
    if DIGEST_KEY not in data:
        return
    try:
        expected = digest(data)
    except (ValueError, TypeError, RecursionError, MemoryError, OverflowError) as exc:
        raise ValueError(f"{path} is a damaged {what} file ({type(exc).__name__}: {exc})") from None
    if data[DIGEST_KEY] != expected:
        raise ValueError(f"{path} is a damaged {what} file: its SHA-256 digest does not match its contents")


def json_param(value):
    """A parameter value JSON cannot hold as it is: numpy scalars and arrays as Python ones, random generators as null.

    >>> json_param(np.int64(3)), json_param(np.array([0.5, 0.5])), json_param(np.random.default_rng(0))
    (3, [0.5, 0.5], None)
    """
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    if isinstance(value, (np.random.Generator, np.random.RandomState)):
        return None
    raise TypeError(f"parameter value {value!r} of type {type(value).__name__} cannot be saved in a model file")


def save(estimator, path):
    """Save a fitted estimator as a model file (see the module docstring)."""
    body = estimator.fitted_to_dict()
    params = json.loads(json.dumps(estimator.get_params(), default=json_param))
    write_json_atomic(
        {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "estimator": type(estimator).__name__,
            "params": params,
            "fitted": body,
        },
        path,
    )

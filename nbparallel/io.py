"""Model files: versioned JSON, written atomically, never unpickled."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

FORMAT = "nbparallel-model"
FORMAT_VERSION = 1
_ESTIMATORS = {}


def register(cls):
    """Class decorator: make an estimator loadable by its class name."""
    _ESTIMATORS[cls.__name__] = cls
    return cls


def write_json_atomic(data, path):
    """Write JSON to ``path`` completely or not at all (temp file + rename)."""
    path = Path(path)
    text = json.dumps(data, allow_nan=False)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save(estimator, path):
    """Save a fitted estimator as a model file."""
    body = estimator._to_dict()
    write_json_atomic(
        {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "estimator": type(estimator).__name__,
            "params": {k: v.tolist() if hasattr(v, "tolist") else v for k, v in estimator.get_params().items()},
            "fitted": body,
        },
        path,
    )


def load(path):
    """Load a model file written by ``save``.

    Raises
    ------
    ValueError
        If the file is not JSON, not an nbparallel model, of an unknown format
        version or estimator, or its contents are inconsistent.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a valid nbparallel model file (not JSON: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not an nbparallel model file (no 'format': '{FORMAT}')")
    if data.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{path} has model format version {data.get('format_version')!r}; "
            f"this nbparallel reads version {FORMAT_VERSION}"
        )
    cls = _ESTIMATORS.get(data.get("estimator"))
    if cls is None:
        raise ValueError(f"{path} holds an unknown estimator {data.get('estimator')!r}; known: {sorted(_ESTIMATORS)}")
    try:
        estimator = cls(**data["params"])
        estimator._from_dict(data["fitted"])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"{path} is a damaged {cls.__name__} model file: {type(exc).__name__}: {exc}") from None
    return estimator

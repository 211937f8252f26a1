"""Weka 3.6 as an optional reference of the benchmarks: where its jar and example ARFF files are, and whether
it can run here (``WEKA_JAR``, default Debian weka's ``/usr/share/java/weka.jar``; ``WEKA_EXAMPLES``, default
``/usr/share/doc/weka/examples``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

WEKA_JAR = Path(os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar"))
WEKA_EXAMPLES = Path(os.environ.get("WEKA_EXAMPLES", "/usr/share/doc/weka/examples"))


def weka_missing():
    """Why Weka cannot run here, or None when it can."""
    if shutil.which("java") is None:
        return "no java on PATH"
    if not WEKA_JAR.is_file():
        return f"no Weka jar at {WEKA_JAR} (set WEKA_JAR)"
    return None

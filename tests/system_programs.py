"""The programs some tests need from the system, found with one clear message naming the Debian package.

``bash tests/run.sh`` (README's test command) installs them; a test run without them fails (never skips)
with that message."""

import shutil
from pathlib import Path

import pytest


def require(program, debian_package):
    """The path of ``program`` on PATH; else the test fails saying which Debian package installs it."""
    path = shutil.which(program)
    if path is None:
        pytest.fail(f"this test needs {program!r}: install Debian's package {debian_package} "
                    f"(apt-get install {debian_package}), or run README's test command, bash tests/run.sh, "
                    "which installs it", pytrace=False)
    return path


def require_files(folder, debian_package, pattern="*"):
    """The files matching ``pattern`` in ``folder``; else the test fails saying which Debian package installs
    them."""
    files = sorted(Path(folder).glob(pattern))
    if not files:
        pytest.fail(f"this test needs the files {folder}/{pattern}: install Debian's package {debian_package} "
                    f"(apt-get install {debian_package}), or run README's test command, bash tests/run.sh, "
                    "which installs it", pytrace=False)
    return files

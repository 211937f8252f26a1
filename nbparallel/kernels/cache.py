"""numba's on-disk cache of the kernels, one folder for each version of this package's modules.

numba keys a cached kernel on its own source file only: a change to a function defined in another file is not
seen (numba's documented limitation). The kernels here call and inline functions of their sibling modules (the
row sums and vector operations of the scoring kernels, the binning of the counting kernels), so after an edit
or an upgrade that changes ``row_sums.py`` but not ``scoring.py``, numba would load the old machine code of
the scoring kernels, silently; and an index written by one version can name types another version lacks,
which numba fails to unpickle. :class:`KernelCacheLocator` is numba's own locator of a kernel's cache with
one thing changed: the cache lives in a subfolder named by a hash of every module of this package, so a
version of the kernels never reads another's cache, and any change to any module compiles every kernel
afresh. When a version makes its folder, the folders of other versions beside it that nothing has written to
for :data:`STALE_AFTER_S` are removed (:func:`prune_stale_caches`), so that edits and upgrades in place do not
pile up copies of the machine code.

It is put first in numba's list of cache locators when this package is imported, before any kernel is
defined (``nbparallel/kernels/__init__.py`` imports this module first); it answers only for this package's
files and leaves every other numba cache as it was.
"""

import hashlib
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent


def package_stamp(package=PACKAGE):
    """A SHA-256 of the name and content of every module of ``package`` (a folder), in name order."""
    digest = hashlib.sha256()
    for path in sorted(Path(package).glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


STAMP = package_stamp()

STALE_AFTER_S = 3600
"""Seconds without a write after which another version's cache folder is removed (a process of that version
still running may write to it: it makes the folder again if it needs it)."""

_VERSION_FOLDER = re.compile(r"[0-9a-f]{16}")


def prune_stale_caches(folder, keep, stale_after_s=STALE_AFTER_S):
    """Remove the cache folders of other versions in ``folder``: subfolders named by 16 hex digits, other
    than ``keep``, not modified for ``stale_after_s`` seconds. Returns the names removed."""
    removed = []
    now = time.time()
    with os.scandir(folder) as entries:
        for entry in entries:
            if (entry.is_dir(follow_symlinks=False) and _VERSION_FOLDER.fullmatch(entry.name)
                    and entry.name != keep and now - entry.stat().st_mtime > stale_after_s):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.name)
    return sorted(removed)


class KernelCacheLocator:
    """The locator numba would use for a kernel of this package, its cache in the subfolder ``STAMP[:16]``
    of the folder that locator gives."""

    def __init__(self, locator):
        self.locator = locator

    @classmethod
    def from_function(cls, py_func, py_file):
        """The locator of a kernel defined in this package, or None for any other function."""
        if Path(py_file).resolve().parent != PACKAGE:
            return None
        for numba_locator in NUMBA_LOCATORS:
            locator = numba_locator.from_function(py_func, py_file)
            if locator is not None:
                return cls(locator)
        return None

    def ensure_cache_path(self):
        """Create the cache folder and check that it is writable (as numba's locators do); on creating it,
        remove the stale folders of other versions beside it."""
        path = self.get_cache_path()
        if not os.path.isdir(path):
            versions = os.path.dirname(path)
            os.makedirs(versions, exist_ok=True)
            prune_stale_caches(versions, STAMP[:16])
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()

    def get_cache_path(self):
        return os.path.join(self.locator.get_cache_path(), STAMP[:16])

    def get_source_stamp(self):
        return self.locator.get_source_stamp()

    def get_disambiguator(self):
        return self.locator.get_disambiguator()


# numba's list of locators, which it reads when a kernel is defined (``_CacheImpl`` in older numba)
LOCATORS = (caching.CacheImpl if hasattr(caching, "CacheImpl") else caching._CacheImpl)._locator_classes
NUMBA_LOCATORS = [locator for locator in LOCATORS if locator is not KernelCacheLocator]
if KernelCacheLocator not in LOCATORS:
    LOCATORS.insert(0, KernelCacheLocator)

"""The kernels' on-disk cache is made stale by a change to any module of the kernels package."""

import os
import shutil
import time
from pathlib import Path

import numba

import nbparallel.kernels
from nbparallel.kernels import boosting, clusters, counting, folds, row_sums, scoring, selection
from nbparallel.kernels.cache import STALE_AFTER_S, STAMP, KernelCacheLocator, package_stamp, prune_stale_caches


def _kernels(module):
    return [v for v in vars(module).values() if isinstance(v, numba.core.registry.CPUDispatcher)
            and v.__module__ == module.__name__ and v._cache is not None and hasattr(v._cache, "_impl")]


def test_every_cached_kernel_lives_in_the_folder_of_the_whole_packages_stamp():
    for module in (boosting, clusters, counting, folds, row_sums, scoring, selection):
        kernels = _kernels(module)
        assert kernels, module.__name__
        for kernel in kernels:
            locator = kernel._cache._impl._locator
            assert isinstance(locator, KernelCacheLocator), kernel
            path = Path(locator.get_cache_path())
            assert path.name == STAMP[:16] == package_stamp()[:16]
            assert path.parent == Path(locator.locator.get_cache_path())
            assert locator.get_source_stamp() == locator.locator.get_source_stamp()


def test_the_stamp_changes_with_any_module_and_with_nothing_else(tmp_path):
    copy = tmp_path / "kernels"
    shutil.copytree(nbparallel.kernels.__path__[0], copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert package_stamp(copy) == STAMP
    (copy / "notes.txt").write_text("not a module")
    assert package_stamp(copy) == STAMP
    source = (copy / "vectors.py").read_text()
    (copy / "vectors.py").write_text(source + "\n# an edit to a module the scoring kernels inline\n")
    assert package_stamp(copy) != STAMP
    (copy / "vectors.py").write_text(source)
    assert package_stamp(copy) == STAMP


def test_other_functions_keep_numbas_own_locator(tmp_path):
    module = tmp_path / "elsewhere.py"
    module.write_text("def f(x):\n    return x + 1\n")
    namespace = {}
    exec(compile(module.read_text(), str(module), "exec"), namespace)
    assert KernelCacheLocator.from_function(namespace["f"], str(module)) is None


def test_a_compiled_kernel_is_saved_in_the_stamps_folder_only():
    import numpy as np

    codes = np.zeros((3, 2), dtype=np.uint8)
    scoring.best_of_rows(codes, codes[:, :0], np.zeros((4, 2)), np.array([0, 2, 4]), np.log([0.5, 0.5]), [0, 1])
    locator = scoring._best_of_rows_kernel._cache._impl._locator
    own, parent = Path(locator.get_cache_path()), Path(locator.locator.get_cache_path())
    assert list(own.glob("scoring._best_of_rows_kernel-*.nbi"))
    assert not list(parent.glob("scoring._best_of_rows_kernel-*.nbi"))


def _aged(folder, seconds):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.nbi").write_bytes(b"index")
    then = time.time() - seconds
    os.utime(folder, (then, then))
    return folder


def test_stale_folders_of_other_versions_are_pruned_and_nothing_else(tmp_path):
    keep = _aged(tmp_path / "0123456789abcdef", 10 * STALE_AFTER_S)  # this version's own, however old
    stale = _aged(tmp_path / "fedcba9876543210", 2 * STALE_AFTER_S)
    recent = _aged(tmp_path / "00000000000000aa", STALE_AFTER_S / 2)  # maybe a process of it still runs
    other = _aged(tmp_path / "not-a-version", 10 * STALE_AFTER_S)
    loose = tmp_path / "0000000000000001"
    loose.write_text("a file, not a folder")
    assert prune_stale_caches(tmp_path, keep.name) == [stale.name]
    assert keep.is_dir() and recent.is_dir() and other.is_dir() and loose.is_file() and not stale.exists()


class _Folder:
    """numba's part of a locator: only the folder it gives."""

    def __init__(self, path):
        self.path = str(path)

    def get_cache_path(self):
        return self.path


def test_making_a_versions_folder_prunes_its_stale_siblings_once(tmp_path):
    stale = _aged(tmp_path / "fedcba9876543210", 2 * STALE_AFTER_S)
    locator = KernelCacheLocator(_Folder(tmp_path))
    locator.ensure_cache_path()
    assert Path(locator.get_cache_path()).is_dir() and not stale.exists()
    again = _aged(tmp_path / "fedcba9876543211", 2 * STALE_AFTER_S)
    locator.ensure_cache_path()  # the folder exists: nothing is scanned
    assert again.is_dir()

"""The kernels' on-disk cache is made stale by a change to any module of the kernels package."""

import shutil
from pathlib import Path

import numba

import nbparallel.kernels
from nbparallel.kernels import boosting, clusters, counting, folds, row_sums, scoring, selection
from nbparallel.kernels.cache import STAMP, KernelCacheLocator, package_stamp


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

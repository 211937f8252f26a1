"""Every compiled function, by topic: counting, binning, lookup tables, ranges, scoring, sparse matrices,
feature selection (``selection``), cross-validation folds (``folds``) and Gaussian moments (``moments``).

The kernels import nothing else of nbparallel: they take numpy arrays and
release the GIL (``nogil=True``), so Dask threads run them in parallel. The
public wrappers check their arguments (:mod:`~nbparallel.kernels.checks`) so a
bad array is a ``ValueError`` or ``TypeError`` here, never an out-of-bounds read.
Their compiled code is cached on disk, and the cache of every kernel is made stale by
a change to any module of the package (:mod:`~nbparallel.kernels.cache`, imported
first, before any kernel is defined).
"""

from nbparallel.kernels import cache  # noqa: F401 - before any kernel is defined: see its docstring
from nbparallel.kernels.binning import bin_codes, bin_values
from nbparallel.kernels.counting import CodeCounter, count_integers, count_integers_and_ranges, count_partition
from nbparallel.kernels.lookup import integer_codes, lookup_codes
from nbparallel.kernels.ranges import column_ranges, columns_values, seen_values
from nbparallel.kernels.scoring import best_classes, joint_log_likelihood
from nbparallel.kernels.sparse import count_csr

__all__ = [
    "CodeCounter", "best_classes", "bin_codes", "bin_values", "column_ranges", "columns_values", "count_csr",
    "count_integers", "count_integers_and_ranges", "count_partition", "integer_codes", "joint_log_likelihood",
    "lookup_codes", "seen_values",
]

"""Matrices of counts to partitions of rows, for the text models.

:func:`as_partitions` takes a dense array (or anything ``numpy`` reads),
a ``scipy.sparse`` matrix or array (CSR, CSC or any other format; CSR is what
the kernels read), or a Dask array whose chunks are dense or ``scipy.sparse``,
and cuts it into :class:`nbparallel.data.partitions.Part` s of consecutive rows.
Rows of a CSR matrix are sliced as views: no data is copied.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from nbparallel.data.dataset import default_partitions
from nbparallel.data.partitions import Part, PartitionInfo, feature_names_of, over_parts
from nbparallel.engine.backends.dask_collections import collection_of, computed
from nbparallel.engine.recipes import Block

MIN_ROWS = 16384
"""The fewest rows per default partition (:func:`nbparallel.data.dataset.default_partitions`).

Each partition fills its own (n_classes, n_features) table and each table
costs one merge; text tables are wide (20 classes x 2^18 hashed features is
42 MB), so a second partition per worker costs more than the balance it buys.
"""


@dataclass
class SparseDataset:
    """Partitions of a count matrix, and what its columns are.

    Attributes
    ----------
    partitions : list of Part or nbparallel.engine.recipes.Block
    n_features : int
    feature_names : ndarray of str or None
        The columns' names, when the input was a data frame with string names.
    n_rows : int
    y : ndarray or None
        All the class labels, checked, when given.
    token : object
        Identifies the data for task keys; None to use the partitions' identities.
    partition_rows : list of int or None
        Each partition's rows, when known without reading them (as :class:`~nbparallel.data.dataset.Dataset`
        has them); None here: in-memory partitions are counted where they are needed.
    """

    partitions: list
    n_features: int
    feature_names: np.ndarray | None
    n_rows: int
    y: np.ndarray | None = None
    token: object = None
    partition_rows: list | None = None

    def map(self, fn, *args, with_info=False, tables=False, categorical_target=False):
        """``fn(*args, X, y, w[, info])`` as a function of one partition (``tables`` and ``categorical_target``:
        as :meth:`nbparallel.data.dataset.Dataset.map` takes them; no partition here is an Arrow table, and
        every ``y`` is an array of labels)."""
        return over_parts(fn, *args, with_info=with_info)


def is_dask_array(X):
    return type(X).__module__.startswith("dask.array") and hasattr(X, "chunks")


def check_matrix(X, name="X"):
    """A 2-D float matrix: CSR for sparse input, a C-ordered ndarray otherwise."""
    if sp.issparse(X):
        return check_array(X, accept_sparse="csr", dtype=(np.float64, np.float32), input_name=name,
                           ensure_min_samples=0)
    return check_array(X, dtype=(np.float64, np.float32), input_name=name, ensure_min_samples=0)


def check_targets(y, n_rows):
    """A 1-D array of class labels with one label per row."""
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None")
    y = computed(y)
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    if len(y) != n_rows:
        raise ValueError(f"y has {len(y)} labels, but X has {n_rows} rows")
    return y


def check_weights(sample_weight, n_rows):
    """Non-negative finite float64 weights, one per row (None: all ones)."""
    if sample_weight is None:
        return None
    sample_weight = computed(sample_weight)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(n_rows, float(w))
    if w.shape != (n_rows,):
        raise ValueError(f"sample_weight must have shape ({n_rows},), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must hold finite, non-negative numbers")
    if not w.any():
        raise ValueError("sample_weight is zero for every row: there is nothing to count")
    return w


def row_slice(X, start, stop):
    """Rows ``start:stop`` of a CSR matrix, or of a dense array, as a view.

    The CSR slice shares ``data`` and ``indices`` with ``X`` (only its
    ``indptr`` is new). Its arrays are set after construction: scipy's
    constructor copies arrays that are views of a much larger one.
    """
    if not sp.issparse(X):
        return X[start:stop]
    a, b = X.indptr[start], X.indptr[stop]
    rows = sp.csr_matrix((stop - start, X.shape[1]), dtype=X.dtype)
    rows.indptr, rows.indices, rows.data = X.indptr[start : stop + 1] - a, X.indices[a:b], X.data[a:b]
    return rows


def _slice(v, start, stop):
    return None if v is None else v[start:stop]


def as_partitions(X, y=None, sample_weight=None, *, n_partitions=None, require_target=True):
    """Cut a count matrix (and its labels and weights) into partitions of rows.

    Parameters
    ----------
    X : array-like, scipy.sparse matrix or dask.array.Array, shape (n_rows, n_features)
    y : array-like, optional
        Class labels, one per row; required when ``require_target``.
    sample_weight : array-like, optional
    n_partitions : int, optional
        Number of partitions (default: one per worker for in-memory data, none
        smaller than :data:`MIN_ROWS` rows; a Dask array keeps its row chunks
        unless this is given).

    Returns
    -------
    SparseDataset
    """
    names = feature_names_of(X)
    if is_dask_array(X):
        return _dask_partitions(collection_of(X), y, sample_weight, n_partitions, require_target, names)
    X = check_matrix(X)
    n_rows = X.shape[0]
    if n_rows == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required.")
    y = check_targets(y, n_rows) if require_target or y is not None else None
    w = check_weights(sample_weight, n_rows)
    n = n_partitions or default_partitions(n_rows, min_rows=MIN_ROWS)
    bounds = np.linspace(0, n_rows, min(n, n_rows) + 1).astype(np.int64)
    parts = [Part(row_slice(X, a, b), _slice(y, a, b), _slice(w, a, b), PartitionInfo(i, int(a)))
             for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    return SparseDataset(parts, X.shape[1], names, n_rows, y)


def _chunk_part(X, y, w, index, offset):
    """One Dask chunk as a checked Part (runs inside the chunk's task)."""
    return Part(check_matrix(X), y, w, PartitionInfo(index, offset))


def _dask_partitions(X, y, sample_weight, n_partitions, require_target, names):
    """The partitions of a Dask array (an :class:`~nbparallel.engine.backends.dask_collections.Array`)."""
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional (rows x features), got a Dask array of shape {X.shape}")
    if any(math.isnan(c) for c in X.row_chunks):
        raise ValueError("X is a Dask array with unknown chunk sizes: call X.compute_chunk_sizes() first")
    n_rows = int(X.shape[0])
    if n_partitions:
        X = X.in_row_blocks(max(1, math.ceil(n_rows / n_partitions)))
    if X.n_column_chunks > 1:
        X = X.whole_rows()
    y = check_targets(y, n_rows) if require_target or y is not None else None
    w = check_weights(sample_weight, n_rows)
    offsets = np.concatenate([[0], np.cumsum(X.row_chunks)]).astype(np.int64)
    parts = [Block((block,), _chunk_part, (_slice(y, a, b), _slice(w, a, b), i, int(a)))
             for i, (block, a, b) in enumerate(zip(X.row_blocks(), offsets[:-1], offsets[1:]))]
    return SparseDataset(parts, int(X.shape[1]), names, n_rows, y, token=X.token)

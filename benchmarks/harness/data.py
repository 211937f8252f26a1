"""Synthetic data for the benchmarks: categorical codes, numeric values, count tables."""

from __future__ import annotations

import numpy as np

from nbparallel import CountTable


def categorical(n_rows, n_attributes, n_values, n_classes=2, seed=0):
    """Pre-encoded categorical data: codes 1..n_values and class codes 0..n_classes-1.

    Returns
    -------
    X : ndarray of uint8 (or uint16 past 254 values), shape (n_rows, n_attributes)
    y : ndarray of int64, shape (n_rows,)
    """
    rng = np.random.default_rng(seed)
    dtype = np.uint8 if n_values < 255 else np.uint16
    X = rng.integers(1, n_values + 1, size=(n_rows, n_attributes), dtype=dtype)
    return X, rng.integers(0, n_classes, size=n_rows)


def numeric(n_rows, n_attributes, n_classes=2, seed=0):
    """Float data in [0, 1) to be binned, and class codes."""
    rng = np.random.default_rng(seed)
    return rng.random((n_rows, n_attributes)), rng.integers(0, n_classes, size=n_rows)


def offsets(n_attributes, n_values):
    """Table offsets of ``n_attributes`` attributes of ``n_values`` values (plus missing)."""
    return np.arange(n_attributes + 1, dtype=np.int64) * (n_values + 1)


def count_table(n_attributes, n_values, n_classes=2, seed=0):
    """A filled :class:`CountTable` of ``n_attributes * (n_values + 1)`` rows."""
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 100, size=(n_attributes * (n_values + 1), n_classes)).astype(np.float64)
    totals = table[: n_values + 1].sum(axis=0)
    return CountTable(table, offsets(n_attributes, n_values), totals, np.zeros(n_classes))


def learnable_labels(X, seed=0):
    """Two classes that depend on the first three attributes, with noise (boosting needs signal)."""
    rng = np.random.default_rng(seed)
    score = X[:, :3].sum(axis=1, dtype=np.int64) + rng.integers(0, 10, size=len(X))
    return (score > np.median(score)).astype(np.int64)


def categorical_with_signal(n_rows, n_attributes=8, n_values=10, seed=0):
    """Codes 1..n_values as uint8; the class depends on three attributes, with noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(1, n_values + 1, size=(n_rows, n_attributes), dtype=np.uint8)
    score = (X[:, 0] > 5).astype(int) + (X[:, 1] > 7) + (X[:, 2] < 3)
    y = np.where(rng.random(n_rows) < 0.8, score >= 2, rng.random(n_rows) < 0.5).astype(np.int64)
    return X, y


def shifted_normal(n_rows, n_attributes=8, seed=0):
    """Three classes; normal floats of mean 100 and sd 1, every third attribute shifted by 0.4 per class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    X = rng.normal(0, 1, (n_rows, n_attributes)) + 0.4 * y[:, None] * (np.arange(n_attributes) % 3 == 0) + 100.0
    return X, y


def word_counts(n_rows, n_features, nnz_per_row=40, n_classes=5, seed=0):
    """A CSR matrix of word counts in which each class prefers its own block of features, and the classes."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    block = n_features // n_classes
    own = rng.random((n_rows, nnz_per_row)) < 0.3
    cols = np.where(own, y[:, None] * block + rng.integers(0, block, (n_rows, nnz_per_row)),
                    rng.integers(0, n_features, (n_rows, nnz_per_row)))
    X = sp.csr_matrix((rng.integers(1, 4, cols.size).astype(float), cols.ravel(),
                       np.arange(0, cols.size + 1, nnz_per_row)), shape=(n_rows, n_features))
    X.sum_duplicates()
    return X, y


def zipf_documents(n_docs, n_features, n_classes, seed=0):
    """A CSR matrix of hashed word counts (20 to 50 distinct words a document, ranks drawn from Zipf(1.1),
    counts 1 to 5; sorted, distinct columns per row) and labels."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    lengths = rng.integers(20, 51, n_docs)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    p = 1.0 / np.arange(1, n_features + 1) ** 1.1
    ranks = np.searchsorted(np.cumsum(p / p.sum()), rng.random(indptr[-1]))
    columns = rng.permutation(n_features)[np.minimum(ranks, n_features - 1)].astype(np.int32)
    counts = np.minimum(rng.geometric(0.6, indptr[-1]), 5).astype(np.float64)
    X = sp.csr_matrix((counts, columns, indptr), shape=(n_docs, n_features))
    X.sum_duplicates()  # canonical CSR: sorted, distinct columns (Spark's SparseVector needs it)
    return X, rng.integers(0, n_classes, n_docs)


def class_shifted_frame(n_rows, n_numeric=8, n_categorical=4, seed=0):
    """Rows of three classes: numeric columns shifted by class, categorical columns of 5 values."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    columns = {f"x{j}": rng.normal(y * 0.5, 1.0) for j in range(n_numeric)}
    columns.update({f"c{j}": pd.Categorical(np.array(list("abcde"))[(y + rng.integers(0, 3, n_rows)) % 5])
                    for j in range(n_categorical)})
    return pd.DataFrame(columns), y


def selection_data(n_rows, n_predictors, seed=0):
    """4 informative attributes, 2 noisy copies of each, the rest pure noise; codes 0..7."""
    rng = np.random.default_rng(seed)
    informative = rng.integers(0, 8, size=(n_rows, 4))
    logit = 0.9 * (informative[:, 0] - 3.5) / 3.5 + 0.7 * (informative[:, 1] > 4) - 0.6 * (informative[:, 2] < 2) \
        + 0.4 * (informative[:, 3] % 2)
    y = (rng.random(n_rows) < 1 / (1 + np.exp(-2 * logit))).astype(np.int64)
    copies = [np.where(rng.random(n_rows) < 0.3, rng.integers(0, 8, n_rows), informative[:, j])
              for j in range(4) for _ in range(2)]
    noise = rng.integers(0, 8, size=(n_rows, n_predictors - 12))
    X = np.column_stack([informative, *copies, noise])
    order = rng.permutation(n_predictors)  # informative columns are not first
    return X[:, order].astype(np.int64), y, [f"x{j}" for j in range(n_predictors)], order

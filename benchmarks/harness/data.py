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

"""Cross-validation folds from each row's global index (and class), decided inside the pass that counts it.

A fold never depends on the partitioning: it is a function of the row's place
in the global row order, so the same folds (and the same scores) come out for
any ``n_partitions``, any Dask partitioning and any file layout.

- **contiguous** (``shuffle=False``): k blocks of the global order, the first
  ``n % k`` one row longer: scikit-learn's unshuffled ``KFold``.
- **shuffled**: the global index ``i`` goes through a seeded pseudo-random
  permutation ``pi`` of ``0 .. n-1`` (a keyed Feistel network with cycle
  walking: each row's position is computed from ``i`` alone, no permutation is
  stored) and row ``i`` joins the block of ``pi(i)``. Fold sizes are those of
  ``KFold``, exactly.
- **stratified**: scikit-learn's ``StratifiedKFold`` allocation. The classes
  are laid end to end in order of first appearance; position ``g`` of that
  order is in fold ``g mod k``, so each fold holds ``n // k`` or ``n // k + 1``
  rows and each class's count in a fold is within one row of every other
  fold's. Within class ``c`` the row of class rank ``r`` (the r-th row of class
  ``c`` in the global order) takes the ``r``-th place of the class's fold
  blocks, or with ``shuffle`` the ``pi_c(r)``-th, ``pi_c`` a seeded
  permutation of the class's ``n_c`` rows. The class rank is the number of
  rows of the class in earlier partitions (``class_counts``, tallied by the
  schema pass that every cross-validation runs anyway: no extra pass) plus the
  row's rank inside its partition. Unshuffled, the folds are exactly
  ``StratifiedKFold(k)``'s.
"""

from __future__ import annotations

import itertools

import numpy as np

from nbparallel.kernels.folds import class_fold_codes, feistel_permute

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = 0x9E3779B97F4A7C15
_ROUNDS = 4  # Luby-Rackoff: four rounds of a pseudo-random function make a pseudo-random permutation


def _mix(x):
    """splitmix64's finaliser on a uint64 array (wrapping arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    return x ^ (x >> np.uint64(31))


def _round_keys(seed, stream):
    """The Feistel round keys of one (seed, stream): ``stream`` tells repeats and classes apart."""
    base = (int(seed) * _GOLDEN + int(stream) * 0xD1B54A32D192ED03) % 2**64
    return _mix(np.array([(base + r * _GOLDEN) % 2**64 for r in range(_ROUNDS)], dtype=np.uint64))


def permute(index, n, seed, stream=0):
    """A seeded pseudo-random permutation of ``0 .. n-1`` evaluated at ``index`` (an int array).

    Each value is computed from its index alone, so partitions compute their
    rows' positions independently and agree.

    >>> sorted(permute(np.arange(10), 10, seed=3).tolist()) == list(range(10))
    True
    """
    index = np.asarray(index, dtype=np.uint64)
    if n <= 1:
        return index.astype(np.int64)
    half = max(1, (int(n - 1).bit_length() + 1) // 2)  # 2 * half bits cover 0 .. n-1
    return feistel_permute(index, n, _round_keys(seed, stream), half, _M1, _M2)


def block_bounds(n, k):
    """Bounds of k contiguous blocks of n rows, the first ``n % k`` one row longer (``KFold``).

    >>> block_bounds(10, 3).tolist()
    [0, 4, 7, 10]
    """
    sizes = np.full(k, n // k, dtype=np.int64)
    sizes[: n % k] += 1
    return np.concatenate([[0], np.cumsum(sizes)])


def block_of(positions, n, k):
    """The block of :func:`block_bounds` (``n`` rows, ``k`` blocks) holding each position, by arithmetic.

    >>> block_of(np.arange(10), 10, 3).tolist()
    [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    """
    short, longer = divmod(n, k)
    edge = longer * (short + 1)  # the first ``longer`` blocks are one row longer
    return np.where(positions < edge, positions // (short + 1), longer + (positions - edge) // max(short, 1))


class Folds:
    """The fold of every row of a partition, from its global index, its class and its partition.

    Build one with :meth:`blocks`, :meth:`shuffled`, :meth:`stratified` or
    from explicit ``labels`` (one fold per global row, for a scikit-learn
    splitter). :meth:`of` gives a partition's folds (-1: the row is in no fold,
    for stratified folds a row with no class or of weight zero).
    """

    def __init__(self, k, *, bounds=None, n_rows=None, seed=None, stream=0, labels=None, class_bounds=None,
                 class_prefix=None):
        self.k = int(k)
        self.bounds, self.n_rows, self.seed, self.stream = bounds, n_rows, seed, stream
        self.labels, self.class_bounds, self.class_prefix = labels, class_bounds, class_prefix

    @classmethod
    def blocks(cls, n_rows, k):
        """k contiguous folds of the global order (scikit-learn's unshuffled ``KFold``).

        >>> Folds.blocks(10, 3).of(0, 10).tolist()
        [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
        """
        return cls(k, bounds=block_bounds(n_rows, k), n_rows=n_rows)

    @classmethod
    def shuffled(cls, n_rows, k, seed, stream=0):
        """k folds of ``KFold``'s sizes over a seeded permutation of the rows."""
        return cls(k, bounds=block_bounds(n_rows, k), n_rows=n_rows, seed=seed, stream=stream)

    @classmethod
    def stratified(cls, class_counts, k, seed=None, stream=0, order=None):
        """``StratifiedKFold``'s folds.

        Parameters
        ----------
        class_counts : int array (n_partitions, n_classes)
            Rows of each class in each partition (rows in no fold left out).
        seed : int or None
            None: each class's rows in their global order; else shuffled.
        order : sequence of class codes, optional
            The order the classes are laid end to end (scikit-learn: first
            appearance); default the codes' order.
        """
        class_counts = np.asarray(class_counts, dtype=np.int64)
        n_classes = class_counts.shape[1]
        per_class = class_counts.sum(axis=0)
        order = np.arange(n_classes) if order is None else np.asarray(order, dtype=np.int64)
        start = np.zeros(n_classes, dtype=np.int64)
        start[order] = np.concatenate([[0], np.cumsum(per_class[order])[:-1]])
        # class c's rows fill positions start_c .. start_c + n_c - 1; position g is in fold g mod k
        bounds = np.empty((n_classes, k + 1), dtype=np.int64)
        for c in range(n_classes):
            g = np.arange(k)
            first = start[c] + (g - start[c]) % k  # first position of fold g in the class's range
            sizes = np.maximum(0, (start[c] + per_class[c] - first + k - 1) // k)
            bounds[c] = np.concatenate([[0], np.cumsum(sizes)])
        prefix = np.vstack([np.zeros((1, n_classes), dtype=np.int64), np.cumsum(class_counts, axis=0)])
        return cls(k, n_rows=int(per_class.sum()), seed=seed, stream=stream, class_bounds=bounds,
                   class_prefix=prefix)

    @property
    def is_stratified(self):
        return self.class_bounds is not None

    @property
    def is_contiguous(self):
        """True for contiguous blocks of the global order: a partition's rows of a fold are one run
        (:meth:`segments` gives slices)."""
        return self.labels is None and self.seed is None and not self.is_stratified

    def of(self, info, n=None, classes=None, w=None):
        """Folds of a partition's ``n`` rows.

        ``info``: its :class:`~nbparallel.data.partitions.PartitionInfo` (or
        the global index of its first row, for unstratified folds);
        ``classes``, ``w``: its class codes (-1: missing) and weights, needed
        by stratified folds, which leave rows of weight zero or with no class
        out of every fold (-1).
        """
        offset = getattr(info, "row_offset", info)
        if self.is_stratified:
            return self._stratified_of(info.index, stratify_classes(classes, w))
        n = len(classes) if n is None else n
        if self.labels is not None:
            return np.asarray(self.labels[offset : offset + n], dtype=np.int64)
        if self.seed is None:  # contiguous blocks: each fold's run of the partition's rows
            return np.repeat(np.arange(self.k, dtype=np.int64), np.diff(np.clip(self.bounds - offset, 0, n)))
        return block_of(permute(np.arange(offset, offset + n, dtype=np.int64), self.n_rows, self.seed, self.stream),
                        self.n_rows, self.k)

    def _stratified_of(self, partition, classes):
        classes = np.asarray(classes)
        fold = np.full(len(classes), -1, dtype=np.int64)
        n_classes = self.class_bounds.shape[0]
        for c in np.unique(classes[(classes >= 0) & (classes < n_classes)]):
            rows = np.flatnonzero(classes == c)
            rank = self.class_prefix[partition, c] + np.arange(len(rows), dtype=np.int64)
            n_c = int(self.class_bounds[c, -1])
            if self.seed is not None:
                rank = permute(rank, n_c, self.seed, self.stream * 1_000_003 + int(c) + 1)
            fold[rows] = np.searchsorted(self.class_bounds[c], rank, side="right") - 1
        return fold

    def segments(self, info, n=None, classes=None, w=None):
        """``(fold, rows)`` of a partition's rows in some fold; rows is a slice for contiguous blocks."""
        if self.is_contiguous:
            offset = getattr(info, "row_offset", info)
            n = len(classes) if n is None else n
            starts = np.clip(self.bounds - offset, 0, n)
            return [(i, slice(int(a), int(b))) for i, (a, b) in enumerate(itertools.pairwise(starts)) if a < b]
        fold = self.of(info, n, classes, w)
        order = np.argsort(fold.astype(np.int16) if self.k < 2**15 else fold, kind="stable")  # radix sort
        cuts = np.searchsorted(fold[order], np.arange(self.k + 1))
        return [(i, order[cuts[i]:cuts[i + 1]]) for i in range(self.k) if cuts[i] < cuts[i + 1]]

    def labels_of(self, classes, n_classes, info, w=None):
        """Class-fold codes ``class + n_classes * fold`` of a partition's rows (-1: counted nowhere)."""
        classes = np.asarray(classes)
        return class_fold_codes(classes, self.of(info, len(classes), classes, w), n_classes)


def stratify_classes(classes, w=None):
    """The class codes that stratified folds place: -1 for rows of weight zero (as if absent)."""
    classes = np.asarray(classes)
    if w is None:
        return classes
    out = np.array(classes, dtype=np.int64)
    out[np.asarray(w) == 0] = -1
    return out


def tally_classes(y, w=None):
    """One partition's rows per class, in order of first appearance: ``(values, counts)``.

    Rows of weight zero and rows with a missing class are left out, as the
    schema pass leaves them out of the classes.
    """
    import pandas as pd

    y = np.asarray(y)
    if w is not None:
        y = y[np.asarray(w) != 0]
    codes, uniques = pd.factorize(y, use_na_sentinel=True)
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
    return np.asarray(uniques), counts.astype(np.int64)


def class_count_matrix(tallies, encode, n_classes):
    """Partition tallies (from :func:`tally_classes`) as an ``(n_partitions, n_classes)`` matrix of class
    codes, and the codes in order of first appearance. ``encode(values)`` gives the codes of class values."""
    counts = np.zeros((len(tallies), n_classes), dtype=np.int64)
    order = []
    seen = set()
    for p, (values, n) in enumerate(tallies):
        if not len(values):
            continue
        codes = np.asarray(encode(values), dtype=np.int64)
        np.add.at(counts[p], codes[codes >= 0], n[codes >= 0])
        for c in codes.tolist():
            if c >= 0 and c not in seen:
                seen.add(c)
                order.append(c)
    order += [c for c in range(n_classes) if c not in seen]
    return counts, order


"""``nbparallel demo``: fit and score bundled real datasets on partitions, and show the passes and the tree."""

from __future__ import annotations

import time

import numpy as np

from nbparallel.cli.progress import CompileWatch, compile_notice


def warm_up(model, X, y, per_class=8):
    """Fit ``model`` and score it on a few rows of each class of ``X``, so that numba compiles (or loads from
    its cache) the kernels that the timed fit and score of the same data and options use."""
    rows = y.groupby(y).head(per_class).index
    model.fit(X.loc[rows], y.loc[rows]).score(X.loc[rows], y.loc[rows])


def run_demo(n_partitions=8, split_every=2):
    """Fit scikit-learn's breast-cancer and digits datasets on ``n_partitions`` partitions and print test
    accuracy, the reduction tree, the passes' times and whether the counts equal a one-partition fit."""
    from sklearn.datasets import load_breast_cancer, load_digits

    print(f"nbparallel demo: naive Bayes by counting, {n_partitions} partitions, "
          f"tree fan-in {split_every or 'flat'}, local threaded scheduler\n")
    with compile_notice():  # one line, on the first run only
        for name, loader in (("breast cancer", load_breast_cancer), ("digits", load_digits)):
            demo_dataset(name, loader, n_partitions, split_every)


def demo_dataset(name, loader, n_partitions, split_every):
    """Fit and score one dataset (after a warm-up: the times printed exclude compiling) and print the figures."""
    from sklearn.model_selection import train_test_split

    from nbparallel.models.naive_bayes import NaiveBayes

    bunch = loader(as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(
        bunch.data, bunch.target, test_size=0.3, random_state=0, stratify=bunch.target)
    warm_up(NaiveBayes(n_partitions=n_partitions, split_every=split_every), X_train, y_train)
    with CompileWatch() as fit_watch:
        start = time.perf_counter()
        model = NaiveBayes(n_partitions=n_partitions, split_every=split_every, verbose=0).fit(X_train, y_train)
        fit_seconds = time.perf_counter() - start
    with CompileWatch() as score_watch:
        start = time.perf_counter()
        accuracy = model.score(X_test, y_test)
        score_seconds = time.perf_counter() - start
    single = NaiveBayes(n_partitions=1).fit(X_train, y_train)
    r = model.reduction_
    print(f"{name}: {len(X_train)} training rows, {X_train.shape[1]} attributes, {len(model.classes_)} classes")
    print(f"  test accuracy        {accuracy:.4f}")
    print(f"  partitions           {r.n_leaves}")
    print(f"  reduction tree       height {r.height} (ceil(log2 P) = {int(np.ceil(np.log2(r.n_leaves)))}), "
          f"{r.n_merges} merges, level sizes {list(r.level_sizes)}")
    print("  passes               " + ", ".join(f"{p['kind']} {p['seconds'] * 1000:.0f} ms" for p in model.passes_))
    print(f"  fit / score time     {fit_seconds:.3f} s / {score_seconds:.3f} s"
          + (" (including compiling kernels)" if fit_watch.compiled or score_watch.compiled else ""))
    print(f"  same counts as P=1   {model.counts_.equals(single.counts_)}\n")

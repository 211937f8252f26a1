"""``nbparallel demo``: fit and score bundled real datasets on partitions, and show the passes and the tree."""

from __future__ import annotations

import time

import numpy as np


def run_demo(n_partitions=8, split_every=2):
    """Fit scikit-learn's breast-cancer and digits datasets on ``n_partitions`` partitions and print test
    accuracy, the reduction tree, the passes' times and whether the counts equal a one-partition fit."""
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split

    from nbparallel.models.naive_bayes import NaiveBayes

    print(f"nbparallel demo: naive Bayes by counting, {n_partitions} partitions, "
          f"tree fan-in {split_every or 'flat'}, local threaded scheduler\n")
    for name, loader in (("breast cancer", load_breast_cancer), ("digits", load_digits)):
        bunch = loader(as_frame=True)
        X_train, X_test, y_train, y_test = train_test_split(
            bunch.data, bunch.target, test_size=0.3, random_state=0, stratify=bunch.target)
        start = time.perf_counter()
        model = NaiveBayes(n_partitions=n_partitions, split_every=split_every, verbose=0).fit(X_train, y_train)
        fit_seconds = time.perf_counter() - start
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
        print(f"  fit / score time     {fit_seconds:.3f} s / {score_seconds:.3f} s")
        print(f"  same counts as P=1   {model.counts_.equals(single.counts_)}\n")

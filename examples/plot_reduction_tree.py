"""
The reduction tree and a small scaling experiment
=================================================

Partitions are counted independently and merged by a binary tree of height ceil(log2 P), recorded in
``model.reduction_``. The counts are the same for any P. The timing below is of this machine, on its
threads; ``nbparallel bench strong`` is the full experiment.
"""

import math
import time

import matplotlib.pyplot as plt
import numpy as np

from nbparallel import NaiveBayes

rng = np.random.default_rng(0)
X = rng.integers(0, 10, size=(400_000, 20), dtype=np.uint8)
y = rng.integers(0, 2, 400_000)

reference = NaiveBayes(n_partitions=1, categorical_features="all").fit(X, y)
heights, seconds = [], []
parts = [1, 2, 3, 4, 8, 16]
for p in parts:
    start = time.perf_counter()
    model = NaiveBayes(n_partitions=p, categorical_features="all").fit(X, y)
    seconds.append(time.perf_counter() - start)
    heights.append(model.reduction_.height)
    assert model.reduction_.height == math.ceil(math.log2(p))
    assert np.array_equal(model.feature_log_prob_[0], reference.feature_log_prob_[0])
print("partitions:", parts)
print("tree heights:", heights)
print("fit seconds:", [round(s, 3) for s in seconds])

fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3))
left.step(parts, heights, where="post", label="recorded height")
left.plot(parts, [math.ceil(math.log2(p)) for p in parts], "o", label="ceil(log2 P)")
left.set_xlabel("partitions P")
left.legend()
right.plot(parts, seconds, marker="o")
right.set_xlabel("partitions P")
right.set_ylabel("fit seconds")
fig.tight_layout()

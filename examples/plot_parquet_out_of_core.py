"""
A Parquet directory fitted out of core
======================================

Write a directory of Parquet files, then fit naive Bayes from the path: each file is read by pyarrow
inside the task that counts it, so the data never has to fit in memory (a small directory like this one is read a few files per
partition). The model equals the one fitted
from the same rows in memory.
"""

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from nbparallel import NaiveBayes

rng = np.random.default_rng(0)
directory = Path(tempfile.mkdtemp()) / "credit"
directory.mkdir()
frames = []
for i in range(6):
    n = 20_000
    label = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "income": rng.normal(40 + 10 * label, 8, n),
        "region": rng.choice(["north", "south", "east", "west"], n),
        "owner": np.where(rng.random(n) < 0.3 + 0.4 * label, "yes", "no"),
        "label": label,
    })
    frame.to_parquet(directory / f"part-{i}.parquet")
    frames.append(frame)

model = NaiveBayes().fit(str(directory), y="label")
print("partitions:", model.reduction_.n_leaves, "tree height:", model.reduction_.height)
for record in model.passes_:
    print(record)

whole = pd.concat(frames, ignore_index=True)
in_memory = NaiveBayes().fit(whole.drop(columns="label"), whole["label"])
print("same predictions as in memory:",
      np.array_equal(model.predict(str(directory)), in_memory.predict(whole.drop(columns="label"))))

"""
AutoClass clustering
====================

AutoClass fits a mixture of naive Bayes components by EM over expected counts (CS181), all restarts in
one pass per iteration. Its log-posterior never decreases.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from nbparallel import AutoClass

rng = np.random.default_rng(0)
centres = np.array([[0, 0, 1], [2, 2, 0], [1, 3, 2]])
hidden = rng.integers(0, 3, 3000)
X = pd.DataFrame({f"a{j}": np.where(rng.random(3000) < 0.8, centres[hidden, j], rng.integers(0, 4, 3000))
                  for j in range(3)}).astype("category")

clusters = AutoClass(n_clusters=3, n_restarts=3, random_state=0).fit(X)
labels = clusters.predict(X)
print(pd.crosstab(hidden, labels, rownames=["hidden"], colnames=["found"]))

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(clusters.history_, marker=".")
ax.set_xlabel("EM iteration")
ax.set_ylabel("log-posterior")
ax.set_title("AutoClass: the best restart")
fig.tight_layout()

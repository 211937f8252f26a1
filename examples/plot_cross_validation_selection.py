"""
Cross-validation with stratified folds, and SPSS feature selection
==================================================================

``cross_validate`` counts every fold's table in one pass and derives fold i's model as the total minus
fold i, so it equals k separate fits. ``SelectedNaiveBayes`` chooses predictors by the SPSS forward
selection.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer

from nbparallel import NaiveBayes, SelectedNaiveBayes, cross_validate

X, y = load_breast_cancer(return_X_y=True, as_frame=True)

scores = cross_validate(NaiveBayes(), X, y, cv=10, shuffle=True, stratify=True, random_state=0,
                        scoring=("accuracy", "log_loss"))
print("10-fold accuracy: %.4f +- %.4f" % (np.mean(scores["test_accuracy"]), np.std(scores["test_accuracy"])))

selected = SelectedNaiveBayes(max_features=8).fit(X, y)
chosen = list(X.columns[selected.get_support()])
print("selected predictors:", chosen)

fig, ax = plt.subplots(figsize=(6, 3))
ax.bar(range(1, 11), scores["test_accuracy"])
ax.set_xlabel("fold")
ax.set_ylabel("accuracy")
ax.set_ylim(0.8, 1.0)
ax.set_title("stratified, shuffled 10-fold cross-validation")
fig.tight_layout()

"""
Quick start on a bundled dataset
================================

Fit naive Bayes on scikit-learn's breast-cancer data counted in 8 partitions, check it against one
partition, and read the reduction tree that merged the partitions' count tables.
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from nbparallel import NaiveBayes

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)

model = NaiveBayes(n_partitions=8).fit(X_train, y_train)
print("test accuracy:", round(model.score(X_test, y_test), 4))
print("reduction tree:", model.reduction_)

one = NaiveBayes(n_partitions=1).fit(X_train, y_train)
print("same counts as one partition:", np.array_equal(model.counts_.table, one.counts_.table))

"""
Boosting rounds, one pass each
==============================

``BoostedNaiveBayes`` runs AdaBoost (SAMME for more than two classes): each round is one counting pass
that scores the last learner and counts the rows it got right and wrong. The staged accuracy shows what
each round adds.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from nbparallel import BoostedNaiveBayes

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)

boosted = BoostedNaiveBayes(n_rounds=8, n_partitions=4).fit(X_train, y_train)
staged = [float((pred == y_test).mean()) for pred in boosted.staged_predict(X_test)]
print("passes:", len(boosted.passes_))
print("staged test accuracy:", [round(a, 3) for a in staged])

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(range(1, len(staged) + 1), staged, marker="o")
ax.set_xlabel("rounds")
ax.set_ylabel("test accuracy")
ax.set_title("BoostedNaiveBayes on digits")
fig.tight_layout()

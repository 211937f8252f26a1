"""
Text classification
===================

Documents hashed by scikit-learn's ``HashingVectorizer`` into a sparse count matrix, fitted by
multinomial naive Bayes; the sparse matrix is never densified.
"""

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer

from nbparallel import MultinomialNaiveBayes

rng = np.random.default_rng(0)
words = {"sport": "goal match team score league coach player win season".split(),
         "science": "atom cell energy experiment theory lab data gene physics".split()}
common = "the a of and to in is it was for".split()


def document(topic):
    return " ".join(rng.choice(words[topic] + common, 12))


topics = rng.choice(list(words), 2000)
docs = [document(t) for t in topics]
vectorizer = HashingVectorizer(n_features=2 ** 12, alternate_sign=False, norm=None)
X = vectorizer.transform(docs)

model = MultinomialNaiveBayes(alpha=1.0, n_partitions=4).fit(X[:1500], topics[:1500])
print("held-out accuracy:", model.score(X[1500:], topics[1500:]))
print(model.predict(vectorizer.transform(["the coach said the team will win the match",
                                          "a theory of energy in the cell"])))

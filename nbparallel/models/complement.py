"""Complement naive Bayes (Rennie et al., 2003) over count matrices, as scikit-learn's ``ComplementNB``.

The counting pass is the multinomial model's: per-class feature sums
(:class:`~nbparallel.summaries.features.FeatureCounts`), merged by the binary
tree. Only the derivation differs: each class is described by the counts of
every *other* class (its complement), which suits unbalanced classes:

``theta[c, j] = (sum_{c' != c} N_c'j + alpha) / sum_j (sum_{c' != c} N_c'j + alpha)``,
``feature_log_prob_ = -log(theta)`` (or ``log(theta) / sum_j log(theta)`` with
``norm=True``), and the score of a row is ``x . feature_log_prob_[c]``; the class
prior only counts when there is a single class, as in scikit-learn.
"""

from __future__ import annotations

import numpy as np

from nbparallel.models.params import BOOLEAN
from nbparallel.models.text import TextNaiveBayes, row_products


class ComplementNaiveBayes(TextNaiveBayes):
    """Complement naive Bayes over counts (e.g. word counts), in parallel; scikit-learn's ``ComplementNB``.

    Parameters
    ----------
    alpha : float >= 0 or array-like of shape (n_features,), default 1.0
        Additive smoothing of the complement counts.
    force_alpha : bool, default True
        Keep ``alpha`` as given; when False, values below 1e-10 become 1e-10 with a warning.
    fit_prior : bool, default True
        Only used with a single class in the training data (as scikit-learn).
    class_prior : array-like of shape (n_classes,), optional
        Only used with a single class in the training data (as scikit-learn).
    norm : bool, default False
        Normalise the weights (the second normalisation of Rennie et al.).
    n_partitions, split_every, verbose
        As in :class:`~nbparallel.models.text.MultinomialNaiveBayes`.

    Attributes
    ----------
    classes_, counts_, class_count_, feature_count_, class_log_prior_, n_features_in_, feature_names_in_,
    reduction_, passes_
        As in :class:`~nbparallel.models.text.MultinomialNaiveBayes`.
    feature_all_ : ndarray of shape (n_features,)
        Every class's feature sums added.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The complement weights (scikit-learn's ``feature_log_prob_``).

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import ComplementNaiveBayes
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 2]])
    >>> ComplementNaiveBayes().fit(X, [0, 0, 1, 1]).predict([[0, 2, 0]]).tolist()
    [1]
    """

    _parameter_constraints = {**TextNaiveBayes._parameter_constraints, "norm": [BOOLEAN]}

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, norm=False,
                 n_partitions=None, split_every=2, verbose=0):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm
        self.n_partitions = n_partitions
        self.split_every = split_every
        self.verbose = verbose

    def matrix_threshold(self):
        """Word counts, summed as they are, as the multinomial model sums them; negative counts are refused."""
        return None, False

    @property
    def feature_all_(self):
        """Every class's feature sums added."""
        return self.feature_count_.sum(axis=0)

    def _feature_log_prob(self, alpha):
        complement = self.feature_all_ + alpha - self.feature_count_
        logged = np.log(complement / complement.sum(axis=1, keepdims=True))
        if self.norm:
            return logged / logged.sum(axis=1, keepdims=True)
        return -logged

    def term_weights(self):
        """``(weights, intercept)``: the complement weights, and no intercept (the priors weigh only in a
        model of one class, as scikit-learn's ``ComplementNB`` scores)."""
        n_classes = len(self.classes_)
        return self.feature_log_prob_, self.class_log_prior_ if n_classes == 1 else np.zeros(n_classes)

    def joint_log_likelihood_part(self, X):
        jll = np.asarray(row_products(X, self.feature_log_prob_), dtype=np.float64)
        if len(self.classes_) == 1:
            jll = jll + self.class_log_prior_
        return jll

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True
        return tags

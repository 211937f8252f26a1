"""Multinomial and Bernoulli naive Bayes for word counts, as in scikit-learn.

One counting pass sums, per class, the rows' (weighted) feature values into a
:class:`FeatureCounts` summary; the summaries of the partitions are added by
the binary tree of :func:`nbparallel.engine.execution.run_pass`. Smoothing and logarithms
follow scikit-learn's ``MultinomialNB`` and ``BernoulliNB`` exactly.
Prediction on sparse input multiplies the sparse rows by the dense
(n_features, n_classes) log-probability matrix; nothing is densified.
"""

from __future__ import annotations

import warnings
from abc import abstractmethod

import numpy as np
import scipy.sparse as sp

from nbparallel.data.sparse import as_partitions
from nbparallel.engine.reduce import TreeRecord
from nbparallel.models.base import PartitionedClassifier
from nbparallel.models.counting_model import Counted, CountingClassifier
from nbparallel.models.estimator import check_is_fitted
from nbparallel.models.params import ARRAY_LIKE, BOOLEAN, Interval
from nbparallel.models.plan import CountingPlan
from nbparallel.summaries.features import FeatureCounts, check_sparse_threshold

ALPHA_LOWER_BOUND = 1e-10


def row_products(X, weights):
    """``X @ weights.T`` as a dense array whose every row is the same for any number of rows scored with it.

    numpy multiplies a dense single row by BLAS's matrix-vector product, whose sums are rounded otherwise than
    the matrix product of several rows: a lone row (a row scored alone, a partition's last row) is given a
    second row of zeros so that it takes the matrix product too.
    """
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[0] == 1:
        return np.asarray(np.vstack([X, np.zeros_like(X)]) @ weights.T)[:1]
    return np.asarray(X @ weights.T)


class TextNaiveBayes(CountingClassifier):
    """What the models of count matrices share (multinomial, Bernoulli, complement): counting, priors, files."""

    #: what its counting pass sums: per-class feature sums
    summary_type = FeatureCounts

    _parameter_constraints = {
        **PartitionedClassifier._parameter_constraints,
        "alpha": [Interval(float, 0, None, closed="left"), ARRAY_LIKE],
        "fit_prior": [BOOLEAN],
        "class_prior": [ARRAY_LIKE, None],
        "force_alpha": [BOOLEAN],
    }

    @abstractmethod
    def matrix_threshold(self):
        """``(binarize, allow_negative)``: the threshold that makes the count matrix 0/1 (None: summed as it
        is) and whether it may hold negative values."""

    # ------------------------------------------------------------ fitting

    def dataset(self, X, y=None, sample_weight=None, *, require_target=True, drop=()):
        """A count matrix (dense, ``scipy.sparse`` or Dask) as partitions of rows; it has no named columns
        to drop."""
        return as_partitions(X, y, sample_weight, n_partitions=self.n_partitions, require_target=require_target)

    def scoring_data(self, X, y=None, sample_weight=None):
        """The count matrix to score, checked against the fitted features."""
        data = self.dataset(X, y, sample_weight, require_target=y is not None)
        self._check_input_features(n_features=data.n_features, feature_names=data.feature_names)
        return data

    def counting_data(self, X, y, sample_weight, *, classes, batch, fitted):
        """The count matrix as partitions of rows; ``classes`` is required on ``partial_fit``'s first call, and
        a batch after a fit must have the fitted features (and, if given, the fitted classes)."""
        if not fitted:
            if batch and classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            return as_partitions(X, y, sample_weight, n_partitions=self.n_partitions)
        if classes is not None and not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
            raise ValueError(f"`classes={list(classes)}` is not the same as on the first call to partial_fit "
                             f"({self.classes_.tolist()})")
        return self.scoring_data(X, y, sample_weight)

    def counting_plan(self, data, *, weighted=False, batch=False):
        """Per-class feature sums of the count matrix (:meth:`~nbparallel.models.plan.CountingPlan.for_matrix`),
        thresholded as the model's :meth:`matrix_threshold` says; the same for any data."""
        return CountingPlan.for_matrix(*self.matrix_threshold())

    def count(self, plan, data, run_pass, *, classes, batch, fitted):
        """The per-class feature sums of ``data`` for the fitted classes, else for ``classes`` (the first
        ``partial_fit``) or the labels' (a fit); a batch after a fit adds to the fitted sums."""
        classes = self.classes_ if fitted else np.unique(data.y if classes is None else np.asarray(classes))
        summary, record = run_pass("count", plan.count_matrix, data, classes, type(self).__name__)
        return Counted(classes, summary, self.counts_ if fitted else None, record)

    def keep_summary(self, layout, summary):
        """The merged feature sums of the classes ``layout``."""
        self.classes_, self.counts_ = np.asarray(layout), summary

    def keep_input_features(self, X, data, *, fitted):
        """The count matrix's features, on the first count (a later batch was checked against them)."""
        if not fitted:
            self._set_input_features(n_features=data.n_features, feature_names=data.feature_names)

    # ---------------------------------------------------- probabilities

    @property
    def class_count_(self):
        """Weight of the training rows of each class."""
        return self.counts_.class_count

    @property
    def feature_count_(self):
        """Per-class sums of every feature, shape (n_classes, n_features)."""
        return self.counts_.feature_count

    def _alpha(self):
        """scikit-learn's alpha check: one value or one per feature, >= 0, floored unless forced."""
        alpha = np.asarray(self.alpha, dtype=np.float64) if not np.isscalar(self.alpha) else float(self.alpha)
        if isinstance(alpha, np.ndarray):
            if alpha.shape != (self.n_features_in_,):
                raise ValueError(f"When alpha is an array, it should contain `n_features`: got {alpha.shape} "
                                 f"instead of ({self.n_features_in_},)")
            if np.min(alpha) < 0:
                raise ValueError("All values in alpha must be greater than 0.")
        if np.min(alpha) < ALPHA_LOWER_BOUND and not self.force_alpha:
            warnings.warn(f"alpha too small will result in numeric errors, setting alpha = {ALPHA_LOWER_BOUND:.1e}. "
                          "Use `force_alpha=True` to keep alpha unchanged.", UserWarning)
            return np.maximum(alpha, ALPHA_LOWER_BOUND)
        return alpha

    def _class_log_prior(self):
        n_classes = len(self.classes_)
        if self.class_prior is not None:
            prior = np.asarray(self.class_prior, dtype=np.float64)
            if prior.shape != (n_classes,):
                raise ValueError(f"Number of priors must match number of classes: class_prior has {prior.size} "
                                 f"values for {n_classes} classes")
            return np.log(prior)
        if self.fit_prior:
            with np.errstate(divide="ignore"):
                return np.log(self.class_count_) - np.log(self.class_count_.sum())
        return np.full(n_classes, -np.log(n_classes))

    def _derive(self):
        """Smoothed log-probabilities from the counts (never merged)."""
        self.class_log_prior_ = self._class_log_prior()
        self.feature_log_prob_ = self._feature_log_prob(self._alpha())

    # ------------------------------------------------------------- explanations

    def term_weights(self):
        """``(weights, intercept)`` of the model's linear form: the joint log-likelihoods of rows are
        ``term_values(X) @ weights.T + intercept`` (shapes (n_classes, n_features) and (n_classes,))."""
        return self.feature_log_prob_, self.class_log_prior_

    def term_values(self, X):
        """The rows as :meth:`term_weights` multiplies them: the counts as they are."""
        return X

    def explain(self, X, for_class=None, against=None, top=10):
        """The terms that weigh most in each row's prediction, and the rest, summing to its log-odds.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_rows, n_features)
            Any input :meth:`predict` takes, read in one pass.
        for_class : label, optional
            Class ``c``; default: each row's predicted class (the best other one when that is ``against``).
        against : label, optional
            Class ``c'``; default: each row's best class other than ``c``.
        top : int or None, default 10
            How many terms of each row to list, by absolute evidence; None lists every present term.

        Returns
        -------
        evidence : pandas.DataFrame
            Columns ``row`` (the row's position in ``X``), ``class`` and ``versus`` (the labels of its
            classes ``c`` and ``c'``), ``rank`` (1 for the term of largest absolute evidence), ``term``
            (feature name, or index), ``evidence``: ``x_j (w_cj - w_c'j)`` with ``w`` the model's
            :meth:`term_weights`, and ``log_odds`` (the row's sum of ``evidence``). Each row has two entries
            of rank 0: ``(other terms)`` (the evidence of its present terms outside the top) and ``(prior)``
            (everything that does not depend on the row's terms: the log prior ratio, and for
            :class:`BernoulliNaiveBayes` the log-likelihood ratio of a row with no term present). A row's
            entries sum to ``log P(c | x) - log P(c' | x)``.

        Examples
        --------
        >>> import numpy as np
        >>> from nbparallel import MultinomialNaiveBayes
        >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 3, 1], [0, 2, 2]])
        >>> model = MultinomialNaiveBayes().fit(X, [0, 0, 1, 1])
        >>> evidence = model.explain(X[:1], top=1)
        >>> evidence["term"].tolist()
        [0, '(other terms)', '(prior)']
        >>> log_proba = model.predict_log_proba(X[:1])[0]
        >>> bool(np.isclose(evidence["evidence"].sum(), log_proba[0] - log_proba[1]))
        True
        """
        from nbparallel.models.explanation import explain_terms

        check_is_fitted(self, self._fitted_attribute)
        return explain_terms(self, X, for_class, against, top)

    # ------------------------------------------------------------- files

    def fitted_to_dict(self):
        return {
            "classes": self.classes_.tolist(),
            "counts": self.counts_.to_dict(),
            "reduction": self.reduction_.to_dict(),
            "n_features_in": self.n_features_in_,
            "feature_names_in": None if not hasattr(self, "feature_names_in_") else list(self.feature_names_in_),
        }

    def fitted_from_dict(self, d):
        self.validate_params()
        self._clear_fitted()
        counts = FeatureCounts.from_dict(d["counts"])
        classes = np.asarray(d["classes"])
        if counts.feature_count.shape[0] != len(classes):
            raise ValueError("the feature counts do not match the classes")
        self._set_input_features(n_features=d["n_features_in"], feature_names=d["feature_names_in"])
        if counts.feature_count.shape[1] != self.n_features_in_:
            raise ValueError("the feature counts do not match n_features_in")
        self.classes_, self.counts_ = classes, counts
        self.reduction_ = TreeRecord.from_dict(d["reduction"])
        self.n_partitions_ = self.reduction_.n_leaves
        self.passes_ = []
        self._derive()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.categorical = False
        tags.input_tags.string = False
        tags.input_tags.sparse = True
        return tags


class MultinomialNaiveBayes(TextNaiveBayes):
    """Multinomial naive Bayes over counts (e.g. word counts), in parallel.

    Same model as scikit-learn's ``MultinomialNB``:
    ``feature_log_prob_[c, j] = log((N_cj + alpha_j) / (N_c + sum_j alpha_j))``.

    Parameters
    ----------
    alpha : float >= 0 or array-like of shape (n_features,), default 1.0
        Additive (Laplace/Lidstone) smoothing.
    force_alpha : bool, default True
        Keep ``alpha`` as given; when False, values below 1e-10 become 1e-10 with a warning.
    fit_prior : bool, default True
        Learn class priors; when False, use a uniform prior.
    class_prior : array-like of shape (n_classes,), optional
        Prior probabilities of the classes, not adjusted to the data.
    n_partitions : int, optional
        Partitions of in-memory data (default: one per worker); a Dask array
        keeps its row chunks unless this is given. It never changes the counts.
    split_every : int >= 2 or False, default 2
        Fan-in of the reduction tree; False merges all partitions at once.
    verbose : int, default 0
        1 shows each pass on a labelled progress line (``count``, ``score``) on stderr.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    counts_ : FeatureCounts
        The merged raw counts.
    class_count_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Columns in the order of the input's columns.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a data frame with string column names.
    reduction_ : nbparallel.engine.reduce.TreeRecord
        The tree of the last counting pass.
    passes_ : list of dict
        Every pass run by the last fit: kind, tree record and wall seconds.

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import MultinomialNaiveBayes
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 2]])
    >>> MultinomialNaiveBayes(alpha=1.0).fit(X, ["a", "a", "b", "b"]).predict([[1, 0, 0]]).tolist()
    ['a']
    """

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, n_partitions=None,
                 split_every=2, verbose=0):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.n_partitions = n_partitions
        self.split_every = split_every
        self.verbose = verbose

    def matrix_threshold(self):
        """Word counts: the matrix summed as it is; negative counts are refused."""
        return None, False

    def _feature_log_prob(self, alpha):
        smoothed = self.feature_count_ + alpha
        log_total = np.log(smoothed.sum(axis=1, keepdims=True))
        np.log(smoothed, out=smoothed)  # in place: the table may be large (n_classes x 2^18 hashed words)
        smoothed -= log_total
        return smoothed

    def joint_log_likelihood_part(self, X):
        return row_products(X, self.feature_log_prob_) + self.class_log_prior_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        # scikit-learn's own MultinomialNB gets the same blobs data shifted
        # globally; the shift its checks apply to other estimators' data leaves
        # a multinomial model near 0.8 accuracy (as MultinomialNB on it).
        tags.classifier_tags.poor_score = True
        return tags

    def report_sections(self):
        """What :mod:`nbparallel.report` draws of this model: each class's most telling words."""
        return {"kind": "text", "model": self, "name": "multinomial"}


class BernoulliNaiveBayes(TextNaiveBayes):
    """Bernoulli naive Bayes over binary features (e.g. word presence), in parallel.

    Same model as scikit-learn's ``BernoulliNB``:
    ``feature_log_prob_[c, j] = log((N_cj + alpha) / (N_c + 2 alpha))``, and an
    absent feature counts ``log(1 - P(j | c))``.

    Parameters
    ----------
    alpha, force_alpha, fit_prior, class_prior, n_partitions, split_every, verbose :
        As in :class:`MultinomialNaiveBayes`.
    binarize : float or None, default 0.0
        Values above it count as present; None takes the input as already binary.

    Attributes
    ----------
    As in :class:`MultinomialNaiveBayes`; ``feature_count_`` counts the rows
    where each feature is present.

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import BernoulliNaiveBayes
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]])
    >>> BernoulliNaiveBayes().fit(X, [0, 0, 1, 1]).predict([[0, 1, 0]]).tolist()
    [1]
    """

    _parameter_constraints = {**TextNaiveBayes._parameter_constraints,
                              "binarize": [None, Interval(float, None, None)]}

    def __init__(self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True, class_prior=None,
                 n_partitions=None, split_every=2, verbose=0):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.n_partitions = n_partitions
        self.split_every = split_every
        self.verbose = verbose

    def matrix_threshold(self):
        """Word presence: the matrix thresholded at ``binarize`` (None: taken as 0/1 already)."""
        return self.binarize, True

    def _feature_log_prob(self, alpha):
        return np.log(self.feature_count_ + alpha) - np.log(self.class_count_[:, None] + 2 * alpha)

    def term_values(self, X):
        """The rows as :meth:`term_weights` multiplies them: 1 where a value is above ``binarize``, else 0
        (as they are when ``binarize`` is None)."""
        threshold = self.binarize
        if threshold is None:
            return X
        if sp.issparse(X):
            check_sparse_threshold(threshold)
            X = X.copy()
            X.data = (X.data > threshold).astype(np.float64)
            return X
        return (X > threshold).astype(np.float64)

    def term_weights(self):
        """``(weights, intercept)``: a present term weighs ``log P(j | c) - log(1 - P(j | c))``; the
        intercept is the log prior plus the log-likelihood of a row with no term present."""
        neg_prob = np.log(1 - np.exp(self.feature_log_prob_))
        return self.feature_log_prob_ - neg_prob, self.class_log_prior_ + neg_prob.sum(axis=1)

    def joint_log_likelihood_part(self, X):
        weights, intercept = self.term_weights()
        return row_products(self.term_values(X), weights) + intercept

    def report_sections(self):
        """What :mod:`nbparallel.report` draws of this model: each class's most telling words."""
        return {"kind": "text", "model": self, "name": "bernoulli"}

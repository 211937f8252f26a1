"""What every nbparallel estimator shares.

:class:`PartitionedClassifier` is the one base of the classifiers, in the spirit
of scikit-learn's ``_BaseNB``: ``predict``, ``predict_proba``,
``predict_log_proba``, ``predict_joint_log_proba``, ``score`` and ``evaluate``
are written once, over partitions, on top of two things a model supplies:

- ``dataset(X, y=None, sample_weight=None, *, require_target, drop)``: the
  input as partitions (an object with ``partitions``, ``columns``, ``token`` and
  ``map(fn, *args)``, where ``map`` makes a function of one partition that calls
  ``fn(*args, X, y, w)``), the same route ``fit`` takes;
- ``joint_log_likelihood_part(X)``: log P(x, c) of the rows of one partition,
  shape (n_rows, n_classes), columns in the order of ``classes_``.

Every scoring method takes its data through :meth:`PartitionedModel.scoring_data`,
so whatever ``fit`` accepts they accept too, the target given by name or by
values, and a fitted target column that the data to predict holds left out.

The rules every estimator follows (declared parameter checks, what a fresh
``fit`` clears, input features) live in :class:`PartitionedModel`, which
AutoClass, a clusterer, uses too; :class:`PartitionedClassifier` adds the
scoring.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from nbparallel.data.partitions import feature_names_of, input_feature_names
from nbparallel.engine import execution, memory
from nbparallel.models.params import Interval, Options, check_params
from nbparallel.persistence import model_files
from nbparallel.summaries.evaluation import Evaluation
from nbparallel.summaries.protocol import merge_summaries


class NBParallelMixin:
    """Estimators that take missing values, categories and strings as they are,
    and save themselves as model files.

    A subclass names the fitted attribute that marks it fitted in
    ``_fitted_attribute`` and implements ``fitted_to_dict`` and ``fitted_from_dict``.
    """

    _fitted_attribute = "counts_"

    def save(self, path):
        """Write the model as versioned JSON, completely or not at all."""
        check_is_fitted(self, self._fitted_attribute)
        model_files.save(self, path)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


def _normalise(jll):
    return jll - logsumexp(jll, axis=1, keepdims=True)


def _jll_task(model, X, y, w):
    return model.joint_log_likelihood_part(X)


def _rows(X, start, stop):
    return X.iloc[start:stop] if isinstance(X, pd.DataFrame) else X[start:stop]


def _predict_task(model, X, y, w):
    """Class indices of a partition's rows, in row chunks of bounded (row x class) size."""
    step = max(1, memory.PREDICT_CHUNK_CELLS // len(model.classes_))
    n = X.shape[0]
    return np.concatenate([np.zeros(0, dtype=np.int64)] + [
        model.best_classes(model.joint_log_likelihood_part(_rows(X, start, start + step)))
        for start in range(0, n, step)])


def _accuracy_task(model, X, y, w):
    """``[weight of the rows predicted right, weight of the rows with a known target]`` of one partition."""
    truth = model.encode_targets(y)
    known = truth >= 0
    right = _predict_task(model, X, None, None)[known] == truth[known]
    weights = np.ones(len(truth)) if w is None else np.asarray(w, dtype=np.float64)
    return np.array([weights[known][right].sum(), weights[known].sum()])


def _evaluation_task(model, X, y, w):
    """Confusion counts and summed log P(y|x) of one partition's labelled rows."""
    truth = model.encode_targets(y)
    known = truth >= 0
    jll = model.joint_log_likelihood_part(X)[known]
    truth = truth[known]
    confusion = np.zeros((len(model.classes_),) * 2, dtype=np.int64)
    np.add.at(confusion, (truth, model.best_classes(jll)), 1)
    return Evaluation(confusion, float(_normalise(jll)[np.arange(len(truth)), truth].sum()))


class PartitionedModel(NBParallelMixin, BaseEstimator):
    """The rules every nbparallel estimator follows.

    - **Parameters** are declared in ``_parameter_constraints`` (see
      :mod:`nbparallel.models.params`) and checked by :meth:`_check_params` at the start
      of ``fit`` and ``partial_fit``.
    - **A fresh fit clears** every fitted attribute, that is every attribute
      whose name ends in ``_`` (scikit-learn's convention; caches a model
      derives must be named so too) (:meth:`_clear_fitted`), so nothing of an
      earlier fit survives it: no ``feature_names_in_`` of a DataFrame fit
      after a refit on an ndarray.
      ``partial_fit`` after the first call keeps the state and adds to it.
    - **Input features**: ``n_features_in_`` always; ``feature_names_in_``
      only when the input's columns all have string names
      (:meth:`_set_input_features`); prediction checks both
      (:meth:`_check_input_features`).
    """

    _parameter_constraints = {
        "n_partitions": [None, Interval(int, 1, None)],
        "split_every": [Interval(int, 2, None), Options((False,))],
        "verbose": [Interval(int, 0, None), "boolean"],
    }

    # ------------------------------------------------------------ fitting rules

    def _check_params(self):
        """Check every declared parameter; raise ValueError naming the first bad one."""
        check_params(self, self._parameter_constraints)

    def _clear_fitted(self):
        """Forget everything an earlier fit set: every attribute whose name ends in ``_``."""
        for name in [n for n in vars(self) if n.endswith("_") and not n.startswith("__")]:
            delattr(self, name)

    def _set_input_features(self, X=None, *, n_features=None, feature_names=None):
        """Record ``n_features_in_`` and, for named string columns, ``feature_names_in_``.

        Give ``X`` (anything with ``shape`` or ``columns``) or ``n_features``
        and ``feature_names`` directly (inputs such as file paths).
        """
        if X is not None:
            n_features, feature_names = _shape_and_names(X)
        self.n_features_in_ = int(n_features)
        if feature_names is not None:
            self.feature_names_in_ = np.asarray(feature_names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _check_input_features(self, X=None, *, n_features=None, feature_names=None):
        """Raise ValueError when the input's features differ from the fitted ones."""
        if X is not None:
            n_features, feature_names = _shape_and_names(X)
        name = type(self).__name__
        fitted = getattr(self, "feature_names_in_", None)
        if feature_names is not None and fitted is None:
            warnings.warn(f"X has feature names, but {name} was fitted without feature names", UserWarning)
        elif feature_names is None and fitted is not None:
            warnings.warn(f"X does not have valid feature names, but {name} was fitted with feature names",
                          UserWarning)
        elif feature_names is not None and list(feature_names) != list(fitted):
            raise ValueError("The feature names should match those that were passed during fit.\n"
                             f"X has columns {list(feature_names)}; the model was fitted on {list(fitted)}")
        if n_features != self.n_features_in_:
            raise ValueError(f"X has {n_features} features, but {name} is expecting "
                             f"{self.n_features_in_} features as input.")

    def dataset(self, X, y=None, sample_weight=None, *, require_target=True, drop=()):
        """The input as partitions, with this model's partitioning and column kinds (models supply it)."""
        raise NotImplementedError

    def scoring_data(self, X, y=None, sample_weight=None):
        """The data to score or predict as partitions, by the route ``fit`` takes, checked against the
        fitted features.

        A named input (a DataFrame, a Dask DataFrame, files) that holds the
        fitted target column leaves it out of the attributes unless ``y``
        names it, so a test file with its labels predicts as it is.
        """
        target = getattr(self, "target_column_", None)
        drop = () if target is None or (isinstance(y, str) and y == target) else (target,)
        dataset = self.dataset(X, y, sample_weight, require_target=y is not None, drop=drop)
        self._check_input_features(n_features=len(dataset.columns),
                                   feature_names=input_feature_names(X, dataset.columns))
        return dataset

    def _record_pass(self, kind, record, seconds):
        """Keep a pass's tree record in ``passes_`` (and the counting pass's in ``reduction_``)."""
        self.passes_ = [*getattr(self, "passes_", []), {"kind": kind, "tree": record, "seconds": seconds}]


class PartitionedClassifier(ClassifierMixin, PartitionedModel):
    """Base of the classifiers scored partition by partition (see the module docstring)."""

    # ------------------------------------------------------------- what models supply

    def joint_log_likelihood_part(self, X):
        """log P(x, c) of one partition's rows, shape (n_rows, n_classes)."""
        raise NotImplementedError

    def encode_targets(self, y):
        """Positions of the labels in ``classes_``; -1 for a missing label.

        A label the model has never seen raises ValueError.
        """
        y = np.asarray(y)
        missing = np.asarray(pd.isna(y), dtype=bool) if y.dtype == object or y.dtype.kind == "f" else np.zeros(
            len(y), dtype=bool)
        codes = np.full(len(y), -1, dtype=np.int64)
        known = y[~missing]
        pos = np.searchsorted(self.classes_, known)
        found = (pos < len(self.classes_)) & (self.classes_[np.minimum(pos, len(self.classes_) - 1)] == known)
        if not np.all(found):
            raise ValueError(f"y holds labels {sorted(set(known[~found].tolist()))[:10]} the model was not "
                             f"fitted on; classes are {self.classes_.tolist()}")
        codes[~missing] = pos
        return codes

    def best_classes(self, jll):
        """Index of the most probable class of each row (first in ``classes_`` on ties)."""
        return np.argmax(jll, axis=1)

    # ------------------------------------------------------------- scoring, once

    def predict_joint_log_proba(self, X):
        """log P(x, c) for every row and class, shape (n_rows, n_classes)."""
        check_is_fitted(self, self._fitted_attribute)
        data = self.scoring_data(X)
        n_rows = getattr(X, "shape", (None,))[0]
        if isinstance(n_rows, (int, np.integer)):
            memory.check_memory(memory.CELL_BYTES * int(n_rows) * len(self.classes_) * 2,
                                f"the probabilities of {n_rows} rows x {len(self.classes_)} classes",
                                "predict the classes only, or predict fewer rows at a time", data.partitions)
        parts = execution.map_partitions(data.partitions, data.map(_jll_task, self), name="nbparallel-jll",
                                      token=data.token, verbose=bool(self.verbose))
        return np.vstack(parts) if parts else np.empty((0, len(self.classes_)))

    def predict_log_proba(self, X):
        """Normalised log-posteriors log P(c | x), computed in log space."""
        return _normalise(self.predict_joint_log_proba(X))

    def predict_proba(self, X):
        """Posterior probabilities P(c | x); rows sum to one."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class with the largest posterior, computed in row chunks of bounded size."""
        check_is_fitted(self, self._fitted_attribute)
        data = self.scoring_data(X)
        parts = execution.map_partitions(data.partitions, data.map(_predict_task, self), name="nbparallel-predict",
                                      token=data.token, verbose=bool(self.verbose))
        return self.classes_[np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)]

    def predict_part(self, X, proba=False):
        """Labels, and posteriors when ``proba``, of one in-memory partition (for the CLI)."""
        labels = self.classes_[_predict_task(self, X, None, None)]
        return labels, (np.exp(_normalise(self.joint_log_likelihood_part(X))) if proba else None)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted if asked), in one pass.

        ``y`` and ``sample_weight`` are values or, for named inputs, column
        names; rows with a missing target are left out.
        """
        check_is_fitted(self, self._fitted_attribute)
        data = self.scoring_data(X, y, sample_weight)
        (right, total), _ = execution.run_pass(data.partitions, data.map(_accuracy_task, self), merge_summaries,
                                               split_every=self.split_every, name="nbparallel-score",
                                               token=data.token, verbose=bool(self.verbose))
        if total == 0:
            raise ValueError("score needs rows with a known target (and a positive weight); every target is "
                             "missing")
        return float(right / total)

    def evaluate(self, X, y=None):
        """Accuracy, confusion matrix and average log-likelihood in one pass.

        Rows with a missing target are left out. The average log-likelihood is
        the mean of log P(y_i | x_i).

        Returns
        -------
        dict with ``accuracy``, ``classification_error`` (the SPSS
        misclassification ratio, 1 - accuracy), ``confusion_matrix`` (rows:
        true class, columns: predicted), per-class ``precision``, ``recall``
        and ``f1`` (0 where undefined), ``average_log_likelihood`` and ``n_rows``.
        """
        check_is_fitted(self, self._fitted_attribute)
        if y is None:
            raise ValueError("evaluate needs y: the target values, or the target column's name for a DataFrame "
                             "or a file")
        data = self.scoring_data(X, y)
        summary, _ = execution.run_pass(data.partitions, data.map(_evaluation_task, self), merge_summaries,
                                     split_every=self.split_every, name="nbparallel-evaluate",
                                     token=data.token, verbose=bool(self.verbose))
        return summary.report()

    def average_log_likelihood(self, X, y=None):
        """The average conditional log-likelihood of the data, mean of log P(y_i | x_i)."""
        return self.evaluate(X, y)["average_log_likelihood"]


def _shape_and_names(X):
    names = feature_names_of(X)
    if names is not None:
        return len(names), names
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2:
        raise ValueError(f"X must be 2-dimensional (rows x features), got shape {shape}")
    return int(shape[1]), None

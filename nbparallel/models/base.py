"""What every nbparallel estimator shares.

:class:`PartitionedClassifier` is the one base of the classifiers, in the spirit
of scikit-learn's ``_BaseNB``: ``predict``, ``predict_proba``,
``predict_log_proba``, ``predict_joint_log_proba``, ``score`` and ``evaluate``
are written once, over partitions, on top of two things a model supplies,
declared with ``abstractmethod`` (the estimators' metaclass is ``ABCMeta``, so a
model that lacks one cannot be made):

- ``dataset(X, y=None, sample_weight=None, *, require_target, drop)``: the
  input as partitions (an object with ``partitions``, ``columns``, ``token`` and
  ``map(fn, *args)``, where ``map`` makes a function of one partition that calls
  ``fn(*args, X, y, w)``), the same route ``fit`` takes;
- ``joint_log_likelihood_part(X)``: log P(x, c) of the rows of one partition,
  shape (n_rows, n_classes), columns in the order of ``classes_``. A model may
  also override ``scoring_inputs(X)`` (:class:`ScoringInputs`): the partition's
  codes and the model's log table, which the scoring kernels of
  :mod:`nbparallel.kernels.scoring` turn into the result in one pass over the
  codes (posteriors normalised in the kernel, best classes, evaluation sums)
  with no (row x class) array in between (NaiveBayes does, and says so by
  ``scores_from_codes``).

and, as every estimator does (:class:`PartitionedModel`), ``fitted_to_dict`` and
``fitted_from_dict`` for its model files.

Every per-row result (predict, the probabilities and scores, explain) is gathered
by one function, ``_gathered``: into one array allocated before the pass and
written in place by the partitions' tasks when their sizes are known and the
tasks run in this process (a small array is one such partition), else joined
once the tasks return.

Every scoring method takes its data through :meth:`PartitionedModel.scoring_data`,
so whatever ``fit`` accepts they accept too, the target given by name or by
values, and a fitted target column that the data to predict holds left out.

The rules every estimator follows (declared parameter checks, what a fresh
``fit`` clears, input features) live in :class:`PartitionedModel`, which
AutoClass, a clusterer, uses too; :class:`PartitionedClassifier` adds the
scoring.
"""

from __future__ import annotations

import functools
import itertools
from abc import abstractmethod
from typing import NamedTuple

import numpy as np
import pandas as pd

from nbparallel.data.columns import feature_names_differ
from nbparallel.data.partitions import feature_names_of, input_feature_names
from nbparallel.data.unseen import Tallied, untallied
from nbparallel.data.user_warnings import warn
from nbparallel.engine import execution, memory
from nbparallel.kernels import scoring
from nbparallel.models.estimator import Classifier, Estimator, check_is_fitted
from nbparallel.models.params import Interval, Options, check_params
from nbparallel.models.lazy_predictions import is_lazy_collection, lazy_predictions
from nbparallel.persistence import model_files
from nbparallel.summaries.evaluation import Evaluation
from nbparallel.summaries.protocol import merge_summaries


class NBParallelMixin:
    """Estimators that take missing values, categories and strings as they are,
    and save themselves as model files.

    A subclass names the fitted attribute that marks it fitted in
    ``_fitted_attribute``; :class:`PartitionedModel` declares ``fitted_to_dict`` and ``fitted_from_dict``.
    """

    _fitted_attribute = "counts_"

    def save(self, path):
        """Write the model as versioned JSON, completely or not at all."""
        check_is_fitted(self, self._fitted_attribute)
        model_files.save(self, path)

    def fitted_categories(self, name):
        """The categories of attribute ``name`` as fitted (what a warning of unseen values compares with)."""
        return self.schema_.attribute(name).categories

    def check_scorable(self):
        """Raise NotFittedError unless the model is fitted (a model may add what makes it usable to score)."""
        check_is_fitted(self, self._fitted_attribute)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


class ScoringInputs(NamedTuple):
    """What the scoring kernels (:mod:`nbparallel.kernels.scoring`) need to score one partition's rows.

    ``first`` and ``second`` are the rows' codes (attribute ``a`` of ``first`` reads table rows
    ``offsets[a]..``, then ``second``'s attributes), ``table`` the (rows x classes) log table, ``log_prior``
    the log class priors, ``extra`` a (rows x classes) block added last (or None) and ``order`` the classes
    by preference on ties. A model without a table gives its joint log-likelihoods as ``extra`` over no codes
    (:meth:`PartitionedClassifier.scoring_inputs`).
    """

    first: np.ndarray
    second: np.ndarray
    table: np.ndarray
    offsets: np.ndarray
    log_prior: np.ndarray
    extra: np.ndarray | None
    order: np.ndarray
    prepared: scoring.PreparedTable | None = None
    """:func:`~nbparallel.kernels.scoring.prepare_table` of ``table``, ``offsets`` and ``log_prior``, made once
    per fitted model, so that scoring a few rows does not check and pad the table again (or None)."""

    @classmethod
    def of_joint(cls, jll, order=None):
        """The inputs that score rows by their joint log-likelihoods ``jll`` alone."""
        n_rows, n_classes = jll.shape
        none = np.empty((n_rows, 0), dtype=np.uint8)
        return cls(none, none, np.empty((0, n_classes)), np.zeros(1, dtype=np.int64), np.zeros(n_classes),
                   np.asarray(jll, dtype=np.float64), np.arange(n_classes) if order is None else order)

    def scores(self, mode, out=None):
        """:func:`~nbparallel.kernels.scoring.score_rows` of these inputs."""
        return scoring.score_rows(self.first, self.second, self.table, self.offsets, self.log_prior,
                                  extra=self.extra, mode=mode, out=out, prepared=self.prepared)

    def best(self, out=None):
        """:func:`~nbparallel.kernels.scoring.best_of_rows` of these inputs."""
        return scoring.best_of_rows(self.first, self.second, self.table, self.offsets, self.log_prior, self.order,
                                    extra=self.extra, out=out, prepared=self.prepared)

    def two_best(self):
        """:func:`~nbparallel.kernels.scoring.two_best_of_rows` of these inputs."""
        return scoring.two_best_of_rows(self.first, self.second, self.table, self.offsets, self.log_prior,
                                        self.order, extra=self.extra, prepared=self.prepared)

    def evaluation(self, truth, roc=True):
        """The :class:`Evaluation` of the rows with a known class (``truth >= 0``); without its ROC histograms
        when not ``roc``."""
        confusion, log_likelihood, log_loss, histogram = scoring.evaluate_rows(
            self.first, self.second, self.table, self.offsets, self.log_prior, self.order, truth, extra=self.extra,
            roc=roc, prepared=self.prepared)
        return Evaluation(confusion, log_likelihood, log_loss, histogram)

    def joined_codes(self):
        """``first`` and ``second`` side by side as one uint16 array: every counted attribute's code of
        each row, in table order (what the selection kernels read)."""
        return np.hstack([self.first.astype(np.uint16), self.second.astype(np.uint16)])

    def confusion(self, truth):
        """:meth:`evaluation`'s confusion counts alone, from the best classes (:meth:`best`, the same ties):
        no posterior is made, so its log-likelihood and log loss are NaN and it has no ROC histograms. What
        an accuracy costs: the predict kernel's pass, not the evaluation kernel's."""
        n_classes = len(self.log_prior)
        truth = np.asarray(truth, dtype=np.int64)
        known = truth >= 0
        cells = np.bincount(truth[known] * n_classes + self.best()[known], minlength=n_classes * n_classes)
        return Evaluation(cells.reshape(n_classes, n_classes).astype(np.int64), np.nan, np.nan, None)


class _Slot:
    """Rows ``start:stop`` of a driver-side output array, which a task of this process writes into.

    Tokenized by identity, never by content (the array is not yet written)."""

    def __init__(self, out, start, stop):
        self.out, self.start, self.stop = out, start, stop

    def view(self):
        return self.out[self.start:self.stop]

    def __dask_tokenize__(self):
        return ("nbparallel-slot", id(self.out), self.start, self.stop)


def _partition_sizes(data):
    """Each partition's rows when known before the pass (in memory, or from the files' metadata), else None."""
    partitions = data.partitions
    if all(isinstance(p, tuple) for p in partitions):
        return [p[0].shape[0] for p in partitions]
    if data.partition_rows is not None and len(data.partition_rows) == len(partitions):
        return list(data.partition_rows)
    return None


def _slots(out, sizes):
    """Each partition's rows of ``out``, whose rows are theirs in order (``sizes`` rows each)."""
    bounds = itertools.accumulate(sizes, initial=0)
    return [_Slot(out, int(a), int(b)) for a, b in itertools.pairwise(bounds)]


def _check_scores_memory(n_rows, n_classes, copies, partitions=None):
    """ValueError naming the probabilities when ``copies`` arrays of their (row x class) float64 do not fit;
    an array of at most ``memory.PREDICT_CHUNK_CELLS`` cells (what one partition's scoring holds anyway) is
    not asked about."""
    if int(n_rows) * n_classes <= memory.PREDICT_CHUNK_CELLS:
        return
    memory.check_memory(memory.CELL_BYTES * int(n_rows) * n_classes * copies,
                        f"the probabilities of {n_rows} rows x {n_classes} classes",
                        "predict the classes only, or predict fewer rows at a time", partitions)


def _gathered(model, data, task, args, row_shape, dtype, name, *, n_others=0, check=None):
    """``[out, *others]``: ``task(model, *args, slot, X, y, w) -> (rows, *others)`` mapped over ``data``'s
    partitions, every partition's rows in one output ``out`` of ``row_shape`` cells of ``dtype`` a row, and
    its ``n_others`` other per-row arrays (of int64) joined.

    One partition's rows are the output itself (a small array is one partition). Of several, ``out`` is
    allocated before the pass when their sizes are known and their tasks run in this process: each task
    writes its rows into its slot (and gives None as ``rows``); else the rows the tasks return are joined
    once. ``check(n_rows)``, when given (the rows were not known before the pass), refuses an output that
    cannot fit before it is joined."""
    n_parts = len(data.partitions)
    sizes = None if n_parts < 2 else _partition_sizes(data)
    out = slots = None
    if sizes is not None and execution.backend_for(data.partitions).in_process:
        out = np.empty((sum(sizes), *row_shape), dtype=dtype)
        slots = _slots(out, sizes)
    tasks = (data.map(Tallied(task), model, *args, None, tables=True) if slots is None
             else [data.map(Tallied(task), model, *args, slot, tables=True) for slot in slots])
    parts = untallied(execution.map_partitions(data.partitions, tasks, name=name, token=data.token,
                                               verbose=bool(model.verbose)), model.fitted_categories)
    if check is not None and out is None:
        check(sum(len(part[0]) for part in parts))
    if n_parts == 1:
        return list(parts[0])
    if out is None:
        out = np.concatenate([part[0] for part in parts]) if parts else np.empty((0, *row_shape), dtype=dtype)
    return [out, *(np.concatenate([part[k] for part in parts]) if parts else np.zeros(0, np.int64)
                   for k in range(1, 1 + n_others))]


def _scores_task(model, mode, slot, X, y, w):
    """One partition's scores (``mode`` of :func:`~nbparallel.kernels.scoring.score_rows`), written into its
    ``slot`` of the output (then None) or returned."""
    out = None if slot is None else slot.view()
    result = model.scoring_inputs(X).scores(mode, out)
    return (None if slot is not None else result,)


def _chunks(model, n_rows):
    """Row blocks of a partition whose (row x class) scores stay under ``memory.PREDICT_CHUNK_CELLS``
    (one block when the model scores from codes without a per-row block)."""
    if model.scores_from_codes or 0 < n_rows * len(model.classes_) <= memory.PREDICT_CHUNK_CELLS:
        return [(0, n_rows)]
    step = max(1, memory.PREDICT_CHUNK_CELLS // len(model.classes_))
    return [(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]


def _rows(X, start, stop):
    if start == 0 and stop == X.shape[0]:
        return X
    return X.iloc[start:stop] if isinstance(X, pd.DataFrame) else X[start:stop]


def _best_classes(model, X, out):
    """Class indices of a partition's rows, written into ``out``."""
    for start, stop in _chunks(model, X.shape[0]):
        model.scoring_inputs(_rows(X, start, stop)).best(out[start:stop])
    return out


def _predict_task(model, slot, X, y, w):
    """Class indices of a partition's rows, into its ``slot`` (then None) or returned."""
    if slot is not None:
        _best_classes(model, X, slot.view())
        return (None,)
    return (_best_classes(model, X, np.empty(X.shape[0], dtype=np.int64)),)


def _accuracy_task(model, X, y, w):
    """``[weight of the rows predicted right, weight of the rows with a known target]`` of one partition."""
    truth = model.encode_targets(y)
    known = truth >= 0
    right = _best_classes(model, X, np.empty(X.shape[0], dtype=np.int64))[known] == truth[known]
    weights = np.ones(len(truth)) if w is None else np.asarray(w, dtype=np.float64)
    return np.array([weights[known][right].sum(), weights[known].sum()])


def _evaluation_task(model, X, y, w):
    """Confusion counts, log-likelihood and log-loss sums and ROC histograms of one partition's labelled rows."""
    truth = np.asarray(model.encode_targets(y), dtype=np.int64)
    n = X.shape[0]
    total = None
    for start, stop in _chunks(model, n):
        part = model.scoring_inputs(_rows(X, start, stop)).evaluation(truth[start:stop])
        total = part if total is None else total + part
    return total if total is not None else Evaluation.empty(len(model.classes_))


def _explain_task(model, for_class, against, slot, X, y, w):
    """``(evidence, chosen, other)`` of one partition's rows and their two classes
    (:func:`nbparallel.models.explanation.explain_part`), the evidence into its ``slot`` (then None) or
    returned."""
    from nbparallel.models.explanation import explain_part

    return explain_part(model, X, for_class, against, None if slot is None else slot.view())


class PartitionedModel(NBParallelMixin, Estimator):
    """The rules every nbparallel estimator follows.

    - **Parameters** are declared in ``_parameter_constraints`` (see
      :mod:`nbparallel.models.params`) and checked by :meth:`validate_params` at the start
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

    def validate_params(self):
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
            warn(f"X has feature names, but {name} was fitted without feature names")
        elif feature_names is None and fitted is not None:
            warn(f"X does not have valid feature names, but {name} was fitted with feature names")
        elif feature_names is not None and list(feature_names) != list(fitted):
            raise ValueError(feature_names_differ(list(feature_names), list(fitted)))
        if n_features != self.n_features_in_:
            raise ValueError(f"X has {n_features} features, but {name} is expecting "
                             f"{self.n_features_in_} features as input.")

    @abstractmethod
    def dataset(self, X, y=None, sample_weight=None, *, require_target=True, drop=(), features=None):
        """The input as partitions, with this model's partitioning and column kinds; ``features`` (the fitted
        column names, for data to score) are a named input's attributes, taken by name."""

    @abstractmethod
    def fitted_to_dict(self):
        """The fitted state as plain JSON values (a model file's ``fitted`` entry)."""

    @abstractmethod
    def fitted_from_dict(self, d):
        """Set the fitted state from :meth:`fitted_to_dict`'s values, checked (a model file's ``fitted``)."""

    def scoring_data(self, X, y=None, sample_weight=None):
        """The data to score or predict as partitions, by the route ``fit`` takes, checked against the
        fitted features.

        A named input (a DataFrame, a Dask DataFrame, files) of a model fitted on named columns gives them by
        name, as the command line takes a file's: in any order, its other columns left out (a missing one
        raises ValueError naming it). One that holds the fitted target column leaves it out of the
        attributes unless ``y`` names it, so a test file with its labels predicts as it is.
        """
        target = getattr(self, "target_column_", None)
        drop = () if target is None or (isinstance(y, str) and y == target) else (target,)
        fitted = getattr(self, "feature_names_in_", None)
        features = None if fitted is None or input_feature_names(X, ()) is None else list(fitted)
        dataset = self.dataset(X, y, sample_weight, require_target=y is not None, drop=drop, features=features)
        self._check_input_features(n_features=len(dataset.columns),
                                   feature_names=input_feature_names(X, dataset.columns))
        return dataset

    def _record_pass(self, kind, record, seconds):
        """Keep a pass's tree record in ``passes_`` (and the counting pass's in ``reduction_``)."""
        self.passes_ = [*getattr(self, "passes_", []), {"kind": kind, "tree": record, "seconds": seconds}]

    def predict_to(self, path, data, proba=False, keep=None, *, verbose=False, **read_options):
        """Predict every row of ``data`` and write the predictions to ``path``, a partition at a time.

        ``data`` is any input :meth:`predict` takes (arrays, DataFrames, Dask collections, files,
        directories, URLs); files are read as the model scores them, a batch of rows at a time. ``path``
        is a CSV or (by suffix) Parquet file, or a directory (it exists, or ends in a separator) that
        gets a ``part-NNNNN`` file per partition (``.csv`` when its name ends so, else ``.parquet``).
        Each row gives ``prediction`` and, with ``proba``, a ``proba_<class>`` column per class, after
        the ``keep`` columns copied from the data. ``read_options`` (``na_values``, ``delimiter``,
        ``encoding``, ``storage_options``) read files. Nothing is written unless all is: a failure
        leaves no partial file, nor part files in a local directory.

        Returns
        -------
        written : nbparallel.models.prediction_files.Written
            ``(n_rows, n_files)``.
        """
        from nbparallel.models.prediction_files import predict_to

        self.check_scorable()
        return predict_to(self, path, data, proba=proba, keep=keep, verbose=verbose, **read_options)


class PartitionedClassifier(Classifier, PartitionedModel):
    """Base of the classifiers scored partition by partition (see the module docstring)."""

    scores_from_codes = False
    """True when a model scores a partition from codes with no (row x class) block (NaiveBayes without
    Gaussian attributes): then its rows are scored in one block, else in blocks of bounded memory."""


    # ------------------------------------------------------------- what models supply

    @abstractmethod
    def joint_log_likelihood_part(self, X):
        """log P(x, c) of one partition's rows, shape (n_rows, n_classes)."""

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

    def scoring_inputs(self, X):
        """What the scoring kernels need for one partition's rows (:class:`ScoringInputs`).

        By default the joint log-likelihoods of :meth:`joint_log_likelihood_part` over no codes; a model
        that scores from codes and a log table (NaiveBayes) gives those instead, so that no (row x class)
        array is made before the result.
        """
        return ScoringInputs.of_joint(self.joint_log_likelihood_part(X))

    # ------------------------------------------------------------- scoring, once

    def _untallied(self, parts):
        """The results of scoring tasks wrapped in :class:`~nbparallel.data.unseen.Tallied`, after one warning
        naming the columns whose values the model was mostly not fitted on
        (:func:`~nbparallel.data.unseen.untallied`)."""
        return untallied(parts, self.fitted_categories)

    def _scores(self, X, mode, name):
        """Scores of every row (``mode`` of :func:`~nbparallel.kernels.scoring.score_rows`), in one array
        (:func:`_gathered`), refused before the pass when two copies of it cannot fit."""
        self.check_scorable()
        data = self.scoring_data(X)
        sizes = _partition_sizes(data)  # files' too, from their footers; a Dask DataFrame's shape is lazy
        n_rows = sum(sizes) if sizes is not None else getattr(X, "shape", (None,))[0]
        n_classes = len(self.classes_)
        known = isinstance(n_rows, (int, np.integer))
        if known:
            _check_scores_memory(n_rows, n_classes, 2, data.partitions)
        check = None if known else functools.partial(_check_scores_memory, n_classes=n_classes, copies=1)
        return _gathered(self, data, _scores_task, (mode,), (n_classes,), np.float64, name, check=check)[0]

    def predict_joint_log_proba(self, X):
        """log P(x, c) for every row and class, shape (n_rows, n_classes)."""
        return self._scores(X, scoring.JOINT, "nbparallel-jll")

    def predict_log_proba(self, X):
        """Normalised log-posteriors log P(c | x), computed in log space."""
        return self._scores(X, scoring.LOG_POSTERIOR, "nbparallel-log-proba")

    def predict_proba(self, X):
        """Posterior probabilities P(c | x); rows sum to one. Of a Spark DataFrame, a lazy Spark DataFrame: its
        rows with ``prediction`` and a ``proba_<class>`` column per class, computed on the executors (of a Ray
        Dataset, a lazy Ray Dataset likewise)."""
        if is_lazy_collection(X):
            self.check_scorable()
            return lazy_predictions(self, X, proba=True)
        return self._scores(X, scoring.POSTERIOR, "nbparallel-proba")

    def predict(self, X):
        """The class with the largest posterior (ties as the model's :class:`ScoringInputs` order them). Of a
        Spark DataFrame or a Ray Dataset, a lazy one of the same engine: its rows with a ``prediction`` column."""
        self.check_scorable()
        if is_lazy_collection(X):
            return lazy_predictions(self, X, proba=False)
        data = self.scoring_data(X)
        return self.classes_[_gathered(self, data, _predict_task, (), (), np.int64, "nbparallel-predict")[0]]

    def explain(self, X, for_class=None, against=None):
        """The evidence of each row's prediction: the two classes weighed, one column per attribute, in input
        order, ``(prior)`` and the log-odds they sum to.

        Columns ``(class)`` and ``(versus)`` name each row's classes ``c`` and ``c'``. An attribute's cell
        is ``log P(x_j | c) - log P(x_j | c')`` and ``(prior)`` is ``log pi_c - log pi_c'``; ``(log-odds)``,
        the last column, is their sum, ``log P(c | x) - log P(c' | x)``. ``c`` is
        ``for_class`` (default: the row's predicted class, or the best other one when that is
        ``against``), ``c'`` is ``against`` (default: the best class other than ``c``). A missing value or
        an unseen category contributes 0. ``X`` is any input :meth:`predict` takes, read in one pass by the
        same route.

        Returns
        -------
        evidence : pandas.DataFrame
            One row per input row (a DataFrame's index kept).
        """
        from nbparallel.models import explanation

        self.check_scorable()
        if not hasattr(self, "counted_attribute_names"):
            raise TypeError(f"{type(self).__name__} does not give per-attribute evidence; NaiveBayes and the text "
                            "models do")
        c, other = explanation.explained_classes(self, for_class, against)
        data = self.scoring_data(X)
        n_columns = len(explanation.evidence_columns(self))
        out, chosen, other = _gathered(self, data, _explain_task, (c, other), (n_columns,), np.float64,
                                       "nbparallel-explain", n_others=2)
        index = X.index if isinstance(X, pd.DataFrame) and len(X.index) == len(out) else None
        return explanation.evidence_frame(self, out, chosen, other, index)

    def predict_part(self, X, proba=False):
        """Positions in ``classes_`` of the predicted classes, and the posteriors when ``proba``, of one
        in-memory partition (for the CLI, which makes the labels once per class, not once per row)."""
        inputs = self.scoring_inputs(X)
        return inputs.best(), (inputs.scores(scoring.POSTERIOR) if proba else None)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted if asked), in one pass.

        ``y`` and ``sample_weight`` are values or, for named inputs, column
        names; rows with a missing target are left out.
        """
        self.check_scorable()
        data = self.scoring_data(X, y, sample_weight)
        tasks = data.map(Tallied(_accuracy_task), self, tables=True, categorical_target=True)
        tallied, _ = execution.run_pass(data.partitions, tasks, merge_summaries, split_every=self.split_every,
                                        name="nbparallel-score", token=data.token, verbose=bool(self.verbose))
        [(right, total)] = self._untallied([tallied])
        if total == 0:
            raise ValueError("score needs rows with a known target (and a positive weight); every target is "
                             "missing")
        return float(right / total)

    def evaluation(self, X, y=None):
        """The merged :class:`~nbparallel.summaries.evaluation.Evaluation` of labelled data, in one pass
        (the summary :meth:`evaluate` reports; cross-validation sums the same per fold)."""
        self.check_scorable()
        if y is None:
            raise ValueError("evaluate needs y: the target values, or the target column's name for a DataFrame "
                             "or a file")
        data = self.scoring_data(X, y)
        tasks = data.map(Tallied(_evaluation_task), self, tables=True, categorical_target=True)
        tallied, _ = execution.run_pass(data.partitions, tasks, merge_summaries, split_every=self.split_every,
                                        name="nbparallel-evaluate", token=data.token, verbose=bool(self.verbose))
        return self._untallied([tallied])[0]

    def evaluate(self, X, y=None):
        """Accuracy, confusion matrix, average log-likelihood, log loss and ROC AUC in one pass.

        Rows with a missing target are left out. The average log-likelihood is
        the mean of log P(y_i | x_i).

        Returns
        -------
        dict with ``accuracy``, ``classification_error`` (the SPSS
        misclassification ratio, 1 - accuracy), ``confusion_matrix`` (rows:
        true class, columns: predicted), per-class ``precision``, ``recall``
        and ``f1`` (0 where undefined), ``average_log_likelihood``,
        ``log_loss`` (``sklearn.metrics.log_loss``'s: the mean of
        -log P(y_i | x_i), each probability clipped to [eps, 1 - eps]),
        ``roc_auc`` (two classes: the ROC AUC of P(classes_[1] | x); more:
        the one-vs-rest macro average, as ``roc_auc_score(...,
        multi_class="ovr")``; NaN when a class has no row or every row has it),
        ``roc_auc_error_bound`` (``roc_auc`` comes from mergeable score
        histograms and is within this of the exact value; see
        :meth:`~nbparallel.summaries.evaluation.Evaluation.roc_auc`) and ``n_rows``.
        """
        return self.evaluation(X, y).report()

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

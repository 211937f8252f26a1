"""The counting-model template: ``fit`` and ``partial_fit`` written once for every model fitted by counting.

As scikit-learn's ``_BaseDiscreteNB.fit`` asks a subclass only for its counts and its derivation,
:class:`CountingClassifier` runs the same four steps for every counting model (naive Bayes, the text
models): **plan** (:meth:`~CountingClassifier.counting_plan`), **count** (:meth:`~CountingClassifier.count`,
one or two passes), **add** the fitted counts (a ``partial_fit`` batch after a fit: the summary's ``+``),
**derive** (``_derive``: smoothing and logarithms from the merged summary, never merged). A model supplies:

- ``summary_type``: its summary (:mod:`nbparallel.summaries`: ``+``, ``-``, an empty value, a JSON form),
  what cross-validation subtracts (``total - fold``) and ``from_counts`` derives a fold's model from;
- ``counting_data``: the input as partitions (for a batch after a fit, checked against the fitted features);
- ``counting_plan``: its :class:`~nbparallel.models.plan.CountingPlan`;
- ``count``: the per-partition counting, run by the plan: a :class:`Counted`;
- ``keep_summary``: the merged summary kept as fitted state (a fit's is then checked by ``check_scorable``),
  and ``keep_input_features``: the input's features;
- ``_derive``: the model from the kept summary, and its scoring inputs (``joint_log_likelihood_part`` or
  ``scoring_inputs``, :mod:`nbparallel.models.base`).

``from_counts`` derives a model from a merged summary with no pass over data (cross-validation's folds,
boosting's learners) through the same ``keep_summary`` and ``_derive``.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import NamedTuple

from nbparallel.engine.scheduler import PassScheduler
from nbparallel.models.base import PartitionedClassifier
from nbparallel.models.plan import recorded_by


class Counted(NamedTuple):
    """What a counting model's :meth:`CountingClassifier.count` counted.

    Attributes
    ----------
    layout : object
        What the summary is laid out by (a schema, the classes), as ``keep_summary`` takes it.
    summary : object
        The counts of this call's data.
    previous : object or None
        The fitted counts in the same layout, to add (a ``partial_fit`` batch after a fit), else None.
    record : nbparallel.engine.reduce.TreeRecord
        The tree of the counting pass.
    """

    layout: object
    summary: object
    previous: object
    record: object


class CountingClassifier(PartitionedClassifier):
    """A classifier fitted by counting: plan, count, add to the fitted counts, derive (see the module
    docstring for what a model supplies)."""

    summary_type = None
    """The summary type the model's counting pass sums (set by each model)."""

    def fit(self, X, y=None, sample_weight=None):
        """Fit from the data: count it (as the model's counting plan says) and derive the model.

        Parameters
        ----------
        X : array-like, DataFrame, Dask collection, path to CSV/Parquet, or count matrix
            Any input the model takes (the text models: dense, ``scipy.sparse`` or Dask arrays).
        y : array-like or str
            Target values, or the target column's name when X is a DataFrame or a path.
        sample_weight : array-like or str, optional
            Non-negative weights (or a weight column's name); weights multiply into the counts.

        Returns
        -------
        self
            The fitted model; a refused fit leaves the model as it was.
        """
        self.validate_params()

        def fit():
            self._clear_fitted()
            data = self.counting_data(X, y, sample_weight, classes=None, batch=False, fitted=False)
            return self._fit_counts(X, data, weighted=sample_weight is not None)

        return self._as_it_was_on_error(fit)

    def partial_fit(self, X, y=None, classes=None, sample_weight=None):
        """Add the counts of more data to the model: fitting on the whole data or on pieces gives the same
        counts (see the model's class documentation for what a batch may bring).

        Parameters
        ----------
        X, y, sample_weight
            As for :meth:`fit`.
        classes : array-like, optional
            Every class the batches hold (the text models need it on the first call).

        Returns
        -------
        self
            The model, its counts added to; a refused batch leaves the model as it was.
        """
        self.validate_params()

        def add():
            fitted = hasattr(self, self._fitted_attribute)
            if not fitted:
                self._clear_fitted()
            data = self.counting_data(X, y, sample_weight, classes=classes, batch=True, fitted=fitted)
            return self._fit_counts(X, data, classes=classes, batch=True)

        return self._as_it_was_on_error(add)

    def _fit_counts(self, X, data, *, classes=None, weighted=False, batch=False):
        """Plan, count ``data`` (the input ``X`` as :meth:`counting_data` made it), add the fitted counts
        (``batch``: a ``partial_fit`` batch, added to a fitted model) and derive."""
        fitted = batch and hasattr(self, self._fitted_attribute)
        plan = self.counting_plan(data, weighted=weighted, batch=batch)
        scheduler = PassScheduler(data, split_every=self.split_every, persist=False, verbose=bool(self.verbose))
        counted = self.count(plan, data, recorded_by(scheduler), classes=classes, batch=batch, fitted=fitted)
        summary = counted.summary if counted.previous is None else counted.summary + counted.previous
        self.passes_ = scheduler.passes  # the passes of this call only
        self.reduction_, self.n_partitions_ = counted.record, counted.record.n_leaves
        self.keep_summary(counted.layout, summary)
        if not batch:  # a partial_fit batch adds what it has; the model is checked where it is used
            self.check_scorable()
        self.keep_input_features(X, data, fitted=fitted)
        self._derive()
        self._warn_fitted()
        return self

    @classmethod
    def from_counts(cls, summary, layout, *, n_features_in, feature_names_in=None, **params):
        """A fitted model derived from a merged ``summary`` laid out by ``layout`` (no pass over data: a
        cross-validation fold's model from ``total - fold``, a boosting round's learner); ``params`` are the
        model's parameters."""
        model = cls(**params)
        model.validate_params()
        model._set_input_features(n_features=n_features_in, feature_names=feature_names_in)
        model.keep_summary(layout, summary)
        model._derive()
        return model

    def _as_it_was_on_error(self, fit):
        """``fit()``, and when it raises, every attribute put back as it was: a refused ``fit`` or
        ``partial_fit`` leaves the model as it was (fitting replaces attributes, never changes one in place)."""
        before = dict(vars(self))
        try:
            return fit()
        except BaseException:
            vars(self).clear()
            vars(self).update(before)
            raise

    # ------------------------------------------------------------ what a counting model supplies

    @abstractmethod
    def counting_data(self, X, y, sample_weight, *, classes, batch, fitted):
        """The input as partitions for counting; ``batch``: a ``partial_fit`` batch, ``fitted``: one after a fit
        (checked against the fitted features, ``classes`` against the fitted classes)."""

    @abstractmethod
    def counting_plan(self, data, *, weighted=False, batch=False):
        """The :class:`~nbparallel.models.plan.CountingPlan` of ``data`` (``weighted``: the rows carry sample
        weights; ``batch``: a ``partial_fit`` batch, which adds to a fixed layout)."""

    @abstractmethod
    def count(self, plan, data, run_pass, *, classes, batch, fitted):
        """Count ``data`` as ``plan`` says, each pass run by ``run_pass`` (see
        :meth:`~nbparallel.models.plan.CountingPlan.run`): a :class:`Counted`, with the fitted counts in its
        layout as ``previous`` when ``fitted``."""

    @abstractmethod
    def keep_summary(self, layout, summary):
        """Keep the merged ``summary`` (laid out by ``layout``) as the fitted state that ``_derive`` derives the
        model from (a fit's is then checked by ``check_scorable``)."""

    @abstractmethod
    def keep_input_features(self, X, data, *, fitted):
        """Keep the features of the input ``X`` (``data`` as :meth:`counting_data` made it; ``fitted``: a
        ``partial_fit`` batch after a fit, already checked against them)."""

    @abstractmethod
    def _derive(self):
        """The model (smoothed log-probabilities, scoring tables) from the kept summary."""

    def _warn_fitted(self):
        """Warn about what fitting found that the user surely did not mean (none by default)."""

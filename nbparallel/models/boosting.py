"""Boosted naive Bayes (Elkan, sec. 4): AdaBoost.M1 for two classes, SAMME for more.

Every round is one pass. The pass that scores learner t on a partition also
counts the partition's rows under the current weights into one count table of
2K classes, class code ``y + K * wrong``: the rows learner t gets right and the
rows it gets wrong. After the reduce, the wrong table's weight share is the
round's error e_t, its vote is ``alpha_t = log((1 - e_t) / e_t) + log(K - 1)``,
and the next learner's counts are ``c_t (right + exp(alpha_t) wrong)`` with
``c_t = W / (W_right + exp(alpha_t) W_wrong)``, which keeps the total weight at
the data's own W (so smoothing keeps its scale). Each partition applies the
same update to its rows' weights at the start of the next pass, so T rounds
cost T + 1 passes after the schema pass; T + 1 in all where ``fit`` takes one
pass (unweighted categorical and integer columns), whose one pass finds the
schema and counts the first learner.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from nbparallel.data.partitions import input_feature_names
from nbparallel.data.vocabularies import class_array
from nbparallel.engine import execution
from nbparallel.engine.scheduler import PassScheduler, passes_to_json
from nbparallel.kernels.boosting import reweight, round_labels
from nbparallel.kernels.counting import count_partition
from nbparallel.kernels.scoring import best_of_rows
from nbparallel.models.base import PartitionedClassifier
from nbparallel.models.estimator import check_is_fitted
from nbparallel.models.naive_bayes import AUTO_SMOOTHING, NaiveBayes, check_class_weights
from nbparallel.models.params import Interval, Options
from nbparallel.models.plan import CountingPlan, check_classes, recorded_by
from nbparallel.persistence import validate
from nbparallel.persistence.checkpoints import Checkpoint
from nbparallel.summaries.counts import CountSpec, CountTable
from nbparallel.summaries.protocol import merge_summaries


class RoundScorer(NamedTuple):
    """What a boosting pass needs of a learner: its final bins (the learner itself) and their identity (the
    rows' codes are reused while it stays the same), and its log table, table layout, log prior and tie
    order."""

    learner: NaiveBayes
    bins: tuple
    table: np.ndarray
    offsets: np.ndarray
    log_prior: np.ndarray
    order: np.ndarray

    @classmethod
    def of(cls, learner):
        inputs = learner.inputs_of_split(np.empty((0, 0), dtype=np.uint8), None)
        bins = tuple(edges.tobytes() for edges in learner.bin_edges_.values())
        return cls(learner, bins, inputs.table, inputs.offsets, inputs.log_prior, inputs.order)


def _scoring_codes(scorer, codes, values, cached):
    """``((categorical codes, binned codes), bins)``: the partition's codes under ``scorer``'s final bins.

    Boosting multiplies weights by positive factors, so the learners usually share their bins: ``cached``
    (the previous learner's codes and bins) is reused while the bins stay the same.
    """
    if cached is not None and cached[1] == scorer.bins:
        return cached
    return scorer.learner.inputs_of_split(codes, values)[:2], scorer.bins


def _predicted(scorer, codes, out=None):
    """The class index ``scorer``'s learner predicts for each row of ``codes`` (a pair of code blocks)."""
    return best_of_rows(*codes, scorer.table, scorer.offsets, scorer.log_prior, scorer.order, out=out)


def _score_round(scorer, codes, values, classes, cached):
    """The rows ``scorer``'s learner gets wrong (never those with a missing target), their labels in a
    2K-class count, and the codes to keep."""
    cached = _scoring_codes(scorer, codes, values, cached)
    wrong, labels = round_labels(_predicted(scorer, cached[0]), classes, len(scorer.order))
    return wrong, labels, cached


def boost_partition(spec, scored, current, state, X, y, w):
    """One partition's part of a boosting pass.

    Parameters
    ----------
    spec : nbparallel.summaries.counts.CountSpec
    scored : tuple of (RoundScorer, float, float)
        The learners scored so far, each with the weight factors of the rows
        it got right and wrong.
    current : RoundScorer or None
        The learner this pass scores; None for the first pass, which only counts.
    state : tuple or None
        ``(codes, values, counted, classes, weights, wrong, cached)`` left by
        the previous pass: the split rows, their codes as counted (numeric
        values binned once under the counting bins), the weights the last
        learner was trained on, the rows it got wrong (None before any) and
        the rows' codes under the last learner's final bins. None rebuilds it
        by replaying ``scored``.

    Returns
    -------
    state : tuple
    counts : CountTable
        K classes on the first pass; 2K (right, then wrong) afterwards.
    """
    if state is None:
        codes, values = spec.schema.split(X)
        counted = spec.counted_codes(codes, values)
        classes = spec.schema.encode_classes(y, w)
        weights = None if w is None else np.asarray(w, dtype=np.float64)
        wrong = cached = None
        for t, (scorer, _, _) in enumerate(scored):
            if t:
                weights = _reweighted_rows(weights, wrong, scored[t - 1], len(classes))
            wrong, _, cached = _score_round(scorer, codes, values, classes, cached)
    else:
        codes, values, counted, classes, weights, wrong, cached = state
    if wrong is not None:
        weights = _reweighted_rows(weights, wrong, scored[-1], len(classes))
    n_classes = len(spec.schema.classes)
    if current is None:
        labels, n_columns = np.asarray(classes, dtype=np.int32), n_classes
    else:
        wrong, labels, cached = _score_round(current, codes, values, classes, cached)
        n_columns = 2 * n_classes
    table, totals, all_missing, n_missing = count_partition(
        counted, np.empty((len(counted), 0)), labels, weights, spec.offsets, np.empty((0, 0)), n_columns)
    counts = CountTable(table, spec.offsets, totals, all_missing, int(n_missing))
    return (codes, values, counted, classes, weights, wrong, cached), counts


def _reweighted_rows(weights, wrong, round_factors, n_rows):
    """The rows' weights after a round: ``wrong`` rows times its wrong factor, the others times its right one
    (unit weights when ``weights`` is None)."""
    _, right, wrong_factor = round_factors
    weights = np.ones(n_rows) if weights is None else weights
    return reweight(weights, wrong, right, wrong_factor)


def _halves(counts, n_classes):
    """The (right, wrong) weight of a 2K-class table."""
    return counts.class_totals[:n_classes].sum(), counts.class_totals[n_classes:].sum()


def _reweighted(counts, n_classes, right, wrong):
    """``right * right_table + wrong * wrong_table``: the next learner's counts."""
    def mix(a):
        return a[..., :n_classes] * right + a[..., n_classes:] * wrong

    return CountTable(mix(counts.table), counts.offsets, mix(counts.class_totals), mix(counts.all_missing),
                      counts.n_missing_target)


def round_outcome(counts, n_classes):
    """Error, vote weight and weight factors of a round, from its 2K-class table.

    Returns
    -------
    error : float
    alpha : float
        ``log((1 - error) / error) + log(K - 1)``; 1.0 for a perfect learner
        (which stops boosting, as in scikit-learn's AdaBoost).
    right, wrong : float or None
        The factors of the right and wrong rows' weights (total kept); None
        when boosting stops after this round.
    """
    w_right, w_wrong = _halves(counts, n_classes)
    error = w_wrong / (w_right + w_wrong)
    if error <= 0 or error >= 1 - 1 / n_classes:
        return float(error), 1.0, None, None
    alpha = np.log((1 - error) / error) + np.log(n_classes - 1)
    right = (w_right + w_wrong) / (w_right + np.exp(alpha) * w_wrong)
    return float(error), float(alpha), float(right), float(np.exp(alpha) * right)


class BoostedNaiveBayes(PartitionedClassifier):
    """Boosted naive Bayes: AdaBoost.M1 (two classes) or SAMME (more), one pass per round.

    Each weak learner is a :class:`~nbparallel.NaiveBayes` derived from
    weighted counts (same smoothing and binning). Round t scores learner t and
    counts learner t + 1's table in the same pass, so ``n_rounds`` rounds run
    ``n_rounds + 1`` passes after the schema pass. Boosting stops early when a
    learner's weighted error is 0 (it is kept with vote 1) or at least
    ``1 - 1/K`` (it is dropped, unless it is the first). The result does not
    depend on the partitioning nor on the reduction tree.

    Parameters
    ----------
    n_rounds : int >= 1, default 10
        Boosting rounds (weak learners).
    alpha, class_alpha, n_bins, categorical_features, n_partitions, split_every, verbose, numeric_features
        As for :class:`~nbparallel.NaiveBayes`.
    persist : "auto", True or False, default "auto"
        Keep the partitions and the rows' weights in memory between passes
        (see :class:`nbparallel.engine.scheduler.PassScheduler`); without it each pass
        re-reads the data and recomputes the weights from the learners.
    checkpoint : str, PathLike or None, default None
        JSON file written after every pass; a fit on the same data and
        parameters resumes from it (``n_rounds`` may be larger than before).

    Attributes
    ----------
    classes_ : ndarray
    estimators_ : list of NaiveBayes
        The weak learners, in order.
    estimator_weights_ : ndarray
        Their votes alpha_t.
    estimator_errors_ : ndarray
        Their weighted training errors.
    schema_ : nbparallel.data.schema.Schema
    passes_ : list of dict
        The passes this fit ran: kind ("schema", "count", "boost"), tree record, seconds.
    resumed_rounds_ : int
        Rounds restored from the checkpoint.

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import BoostedNaiveBayes
    >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]] * 5)
    >>> y = np.array([0, 1, 1, 0] * 5)
    >>> boosted = BoostedNaiveBayes(n_rounds=2, categorical_features="all").fit(X, y)
    >>> boosted.predict(X[:4]).tolist()
    [0, 1, 1, 0]
    """

    _fitted_attribute = "estimators_"
    _parameter_constraints = {
        **PartitionedClassifier._parameter_constraints,
        **{name: NaiveBayes._parameter_constraints[name]
           for name in ("alpha", "class_alpha", "n_bins", "numeric_features")},
        "n_rounds": [Interval(int, 1, None)],
        "persist": [Options(("auto",)), "boolean"],
        "checkpoint": [None, str, os.PathLike],
    }

    def __init__(self, *, n_rounds=10, alpha=AUTO_SMOOTHING, class_alpha=AUTO_SMOOTHING, n_bins=10,
                 categorical_features="auto", n_partitions=None, split_every=2, persist="auto",
                 checkpoint=None, verbose=0, numeric_features=None):
        self.n_rounds = n_rounds
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.n_bins = n_bins
        self.categorical_features = categorical_features
        self.n_partitions = n_partitions
        self.split_every = split_every
        self.persist = persist
        self.checkpoint = checkpoint
        self.verbose = verbose
        self.numeric_features = numeric_features

    def _base(self):
        """A NaiveBayes with this model's naive Bayes parameters."""
        return NaiveBayes(alpha=self.alpha, class_alpha=self.class_alpha, n_bins=self.n_bins,
                          categorical_features=self.categorical_features, n_partitions=self.n_partitions,
                          split_every=self.split_every, verbose=self.verbose,
                          numeric_features=self.numeric_features)

    def _learner(self, counts):
        """The weak learner of a count table."""
        return NaiveBayes.from_counts(
            counts, self.schema_, n_features_in=self.n_features_in_,
            feature_names_in=getattr(self, "feature_names_in_", None), **self._base().get_params())

    # ------------------------------------------------------------ fitting

    def fit(self, X, y=None, sample_weight=None):
        """Boost naive Bayes learners on the data: a schema pass, then ``n_rounds + 1`` passes (the first
        counts the first learner); where ``fit`` takes one pass, that pass finds the schema too.

        Parameters
        ----------
        X : array-like, DataFrame, Dask collection, or path to CSV/Parquet
        y : array-like or str
            Target values, or the target column's name.
        sample_weight : array-like or str, optional
            Initial non-negative row weights.
        """
        self.validate_params()
        self._clear_fitted()
        dataset = self._base().dataset(X, y, sample_weight)
        plan = CountingPlan.for_table(self._base().get_params(), dataset, weighted=sample_weight is not None)
        scheduler = PassScheduler(dataset, split_every=self.split_every, persist=self.persist,
                                  verbose=bool(self.verbose))
        # one pass by value finds the schema and counts the first learner, else a schema pass
        self.schema_, pending, _, n_rows = plan.run(scheduler.dataset, recorded_by(scheduler), count=False)
        scheduler.keep_if_fits(n_rows)
        self._set_input_features(n_features=len(dataset.columns),
                                 feature_names=input_feature_names(X, dataset.columns))
        if dataset.target_column is not None:
            self.target_column_ = dataset.target_column
        self.classes_ = class_array(self.schema_.classes)

        checkpoint = Checkpoint.for_fit(self, self.schema_, n_rows, ignore=("n_rounds",))
        rounds, pending, stopped = checkpoint.load(self._restore) or ([], pending, False)
        self.resumed_rounds_ = len(rounds)
        spec = CountSpec.of(self.schema_)
        n_classes = len(self.classes_)
        scored = tuple((RoundScorer.of(self._learner(r["counts"])), r["right"], r["wrong"]) for r in rounds)
        if pending is None and not rounds:  # the first learner's counts did not come with the schema
            pending = scheduler.run_stateful("count", boost_partition, merge_summaries, spec, scored, None)
        if not rounds:
            check_class_weights(pending.class_weights)
            self._save(checkpoint, rounds, pending, stopped)
        while len(rounds) < self.n_rounds and not stopped:
            learner = RoundScorer.of(self._learner(pending))
            counts = scheduler.run_stateful("boost", boost_partition, merge_summaries, spec, scored, learner)
            error, alpha, right, wrong = round_outcome(counts, n_classes)
            stopped = right is None
            if stopped and error > 0 and rounds:  # no better than chance: dropped
                break
            rounds.append({"counts": pending, "error": error, "alpha": alpha, "right": right, "wrong": wrong})
            scored += ((learner, right, wrong),)
            pending = None if stopped else _reweighted(counts, n_classes, right, wrong)
            self._save(checkpoint, rounds, pending, stopped)
        self.passes_ = scheduler.passes
        self._set_rounds(rounds, [scorer.learner for scorer, _, _ in scored])
        return self

    def _set_rounds(self, rounds, learners=None):
        """The fitted rounds: their learners (derived from their counts unless given), votes and errors."""
        self.estimators_ = learners if learners is not None else [self._learner(r["counts"]) for r in rounds]
        self.estimator_weights_ = np.array([r["alpha"] for r in rounds])
        self.estimator_errors_ = np.array([r["error"] for r in rounds])

    def _save(self, checkpoint, rounds, pending, stopped):
        """Write the checkpoint, when there is one (the state's JSON form is built only then)."""
        if self.checkpoint is not None:
            checkpoint.save(self._state(rounds, pending, stopped))

    @staticmethod
    def _state(rounds, pending, stopped):
        return {
            "rounds": [{**r, "counts": r["counts"].to_dict()} for r in rounds],
            "pending": None if pending is None else pending.to_dict(),
            "stopped": stopped,
        }

    def _restore(self, state):
        """``(rounds, pending counts, stopped)`` from a checkpoint state, checked against the schema."""
        validate.keys(state, "state", ("rounds", "pending", "stopped"))
        if not isinstance(state["rounds"], list) or not isinstance(state["stopped"], bool):
            raise ValueError("state.rounds must be a list and state.stopped a boolean")
        rounds = []
        for i, r in enumerate(state["rounds"]):
            r = self._read_round(r, f"state.rounds[{i}]", ("right", "wrong"))
            for key in ("right", "wrong"):
                if r[key] is not None:
                    r[key] = validate.number(r[key], f"state.rounds[{i}].{key}", 0)
            rounds.append(r)
        pending = None if state["pending"] is None else validate.count_table(
            state["pending"], self.schema_, len(self.schema_.classes), "state.pending")
        if pending is None and not rounds:
            raise ValueError("state has neither rounds nor pending counts")
        return rounds, pending, state["stopped"]

    # --------------------------------------------------------- prediction

    def dataset(self, X, y=None, sample_weight=None, *, require_target=True, drop=(), features=None):
        """The input as partitions, as the base learner reads it."""
        return self._base().dataset(X, y, sample_weight, require_target=require_target, drop=drop,
                                    features=features)

    def joint_log_likelihood_part(self, X):
        """The log of each class's share of the learners' weighted votes.

        The scoring of the base then gives ``predict_proba`` = vote shares,
        ``predict`` = the class with the largest weighted vote, and
        ``evaluate``'s ``average_log_likelihood`` = the mean log vote share of
        the true class (-inf when some row gets no vote for it).
        """
        with np.errstate(divide="ignore"):
            return np.log(self._vote_shares(_predictions_of(self.estimators_, X, None, None)))

    def _learner_predictions(self, X):
        """Class index predicted by every learner, shape (n_rows, n_learners)."""
        check_is_fitted(self, "estimators_")
        dataset = self.scoring_data(X)
        parts = execution.map_partitions(dataset.partitions,
                                         dataset.map(_predictions_of, self.estimators_, tables=True),
                                         name="nbparallel-boost-predict", token=dataset.token,
                                         verbose=bool(self.verbose))
        return np.vstack(parts)

    def _vote_shares(self, predictions):
        votes = np.zeros((len(predictions), len(self.classes_)))
        for t, alpha in enumerate(self.estimator_weights_):
            votes[np.arange(len(predictions)), predictions[:, t]] += alpha
        return votes / self.estimator_weights_.sum()

    def decision_function(self, X):
        """Vote shares, shape (n_rows, n_classes); for two classes, class 1's share minus class 0's."""
        shares = self.predict_proba(X)
        return shares[:, 1] - shares[:, 0] if len(self.classes_) == 2 else shares

    def staged_predict(self, X):
        """Predictions of the ensemble of the first t learners, for t = 1, 2, ..."""
        predictions = self._learner_predictions(X)
        votes = np.zeros((len(predictions), len(self.classes_)))
        for t, alpha in enumerate(self.estimator_weights_):
            votes[np.arange(len(predictions)), predictions[:, t]] += alpha
            yield self.classes_[np.argmax(votes, axis=1)]

    # ------------------------------------------------------------- files

    def fitted_to_dict(self):
        return {
            "schema": self.schema_.to_dict(),
            "rounds": [{"counts": m.counts_.to_dict(), "alpha": float(a), "error": float(e)}
                       for m, a, e in zip(self.estimators_, self.estimator_weights_, self.estimator_errors_)],
            "n_features_in": self.n_features_in_,
            "feature_names_in": list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else None,
            "target_column": getattr(self, "target_column_", None),
            "passes": passes_to_json(getattr(self, "passes_", [])),
        }

    def fitted_from_dict(self, d):
        self.validate_params()
        validate.keys(d, "fitted", ("schema", "rounds", "n_features_in", "feature_names_in", "target_column",
                                    "passes"))
        self.schema_ = validate.schema(d["schema"])
        check_classes(self.schema_.classes)
        self.classes_ = class_array(self.schema_.classes)
        n_features, names, target = validate.feature_names(d, self.schema_)
        self._set_input_features(n_features=n_features, feature_names=names)
        if target is not None:
            self.target_column_ = target
        if not isinstance(d["rounds"], list) or not d["rounds"]:
            raise ValueError("a boosted model needs a non-empty list of rounds")
        self._set_rounds([self._read_round(r, f"rounds[{i}]") for i, r in enumerate(d["rounds"])])
        self.passes_ = validate.passes(d["passes"])

    def _read_round(self, r, where, extra=()):
        """A round (``counts``, ``alpha``, ``error`` and the ``extra`` keys) checked against the schema."""
        validate.keys(r, where, ("counts", "alpha", "error", *extra))
        counts = validate.count_table(r["counts"], self.schema_, len(self.schema_.classes), f"{where}.counts")
        check_class_weights(counts.class_weights)
        return {**r, "counts": counts, "alpha": validate.number(r["alpha"], f"{where}.alpha", 0),
                "error": validate.number(r["error"], f"{where}.error", 0, 1)}

    def report_sections(self):
        """What :mod:`nbparallel.report` draws of this model: its first learner's evidence, the naive Bayes
        model of the unweighted rows, with a note saying so."""
        check_is_fitted(self, "estimators_")
        return {"kind": "naive Bayes", "model": self.estimators_[0],
                "note": f"BoostedNaiveBayes: its first learner of {len(self.estimators_)}, the naive Bayes model "
                        f"of the unweighted rows (vote weight {self.estimator_weights_[0]:.3g})"}


def _predictions_of(learners, X, y, w):
    """Class index of every row under every learner (one column each)."""
    codes, values = learners[0].schema_.split(X)
    cached = None
    out = np.empty((len(codes), len(learners)), dtype=np.int64, order="F")
    for t, learner in enumerate(learners):
        scorer = RoundScorer.of(learner)
        cached = _scoring_codes(scorer, codes, values, cached)
        _predicted(scorer, cached[0], out[:, t])
    return out

"""AutoClass (CS181 lecture 18, sec. 3): naive Bayes clustering by EM over expected counts.

Each EM iteration is one pass. Every partition computes, under the current
parameters of all R restarts at once, its rows' cluster responsibilities and
adds them into a table of expected counts shaped like a count table with R x K
columns (one per restart and cluster), plus each restart's log-likelihood.
The merged table gives the next parameters (the M step) in the driver.
Attributes are categorical or binned numeric; a missing value contributes
nothing to its row's likelihood nor to the expected value counts.
"""

from __future__ import annotations

import os

import numpy as np

from nbparallel.data.inputs import as_dataset
from nbparallel.data.partitions import input_feature_names
from nbparallel.data.unseen import Tallied, untallied
from nbparallel.engine import execution, memory
from nbparallel.engine.scheduler import PassScheduler, passes_to_json
from nbparallel.kernels.binning import bin_values
from nbparallel.kernels.clusters import JointCodes, expected_counts
from nbparallel.kernels.scoring import JOINT, score_rows
from nbparallel.models.base import PartitionedModel
from nbparallel.models.estimator import Clusterer, check_is_fitted
from nbparallel.models.params import Interval, Options
from nbparallel.models.plan import CountingPlan, recorded_by
from nbparallel.persistence import validate
from nbparallel.persistence.checkpoints import Checkpoint
from nbparallel.summaries.expected import ExpectedCounts
from nbparallel.summaries.protocol import merge_summaries


def scoring_codes(schema, X):
    """``(categorical codes, binned codes)`` of a partition under the schema's bins, as the scoring kernels
    read them (no joined copy; a uint8 input coded 1..M is used as it is)."""
    codes, values = schema.split(X)
    binned = schema.binned_attributes()
    if not binned:
        return codes, np.empty((len(codes), 0), dtype=np.uint8)
    edges = np.full((len(binned), max(at.n_bins for at in binned) - 1), np.inf)
    for j, at in enumerate(binned):
        edges[j, : at.n_bins - 1] = at.edges()
    if values.dtype not in (np.float64, np.float32):
        values = np.asarray(values, dtype=np.float64)
    return codes, bin_values(values, edges, np.array([at.n_bins for at in binned], dtype=np.int64))


def log_parameters(table, totals, offsets, n_clusters, alpha):
    """The M step: smoothed log-parameters from expected counts (any number of restarts).

    ``pi_k = (N_k + alpha) / (N + K alpha)`` and
    ``theta_amk = (E_amk + alpha) / (sum_m E_amk + M_a alpha)``; missing rows get 0.

    Returns
    -------
    log_table : ndarray, shape table.shape
    log_prior : ndarray, shape totals.shape
    """
    by_restart = totals.reshape(-1, n_clusters)
    log_prior = (np.log(by_restart + alpha)
                 - np.log(by_restart.sum(axis=1, keepdims=True) + n_clusters * alpha)).ravel()
    log_table = np.zeros_like(table)
    for a in range(len(offsets) - 1):
        cells = table[offsets[a] + 1: offsets[a + 1]]
        log_table[offsets[a] + 1: offsets[a + 1]] = np.log(cells + alpha) - np.log(
            cells.sum(axis=0) + len(cells) * alpha)
    return log_table, log_prior


def _normalise(jll, n_clusters):
    """Log-responsibilities and row log-likelihoods of (n_rows, R * K) joint log-likelihoods."""
    jll = jll.reshape(len(jll), -1, n_clusters)
    top = jll.max(axis=2, keepdims=True)
    log_norm = top + np.log(np.exp(jll - top).sum(axis=2, keepdims=True))
    return (jll - log_norm).reshape(len(jll), -1), log_norm[:, :, 0]


def e_step_partition(schema, log_table, log_prior, n_clusters, state, X, y, w):
    """Expected counts of one partition, in one kernel pass over its codes
    (:func:`nbparallel.kernels.clusters.expected_counts`); the state keeps its codes, joined and checked once
    (:class:`~nbparallel.kernels.clusters.JointCodes`), and its weights."""
    if state is None:
        codes = JointCodes(*scoring_codes(schema, X), schema.offsets, len(log_prior))
        state = codes, (np.ones(len(codes)) if w is None else np.asarray(w, dtype=np.float64))
    codes, weights = state
    table, totals, log_likelihood = expected_counts(codes, log_table, log_prior, n_clusters, weights)
    return state, ExpectedCounts(table, totals, log_likelihood)


def random_counts(schema, n_clusters, n_rows, seed):
    """Random asymmetric expected counts: every cluster's value distributions drawn from Dirichlet(1)."""
    rng = np.random.default_rng(seed)
    offsets = schema.offsets
    table = np.zeros((offsets[-1], n_clusters))
    share = n_rows / n_clusters
    for a in range(len(offsets) - 1):
        n_values = offsets[a + 1] - offsets[a] - 1
        table[offsets[a] + 1: offsets[a + 1]] = rng.dirichlet(np.ones(n_values), size=n_clusters).T * share
    return table, np.full(n_clusters, share)


class AutoClass(Clusterer, PartitionedModel):
    """Unsupervised naive Bayes clustering (AutoClass) by EM, one pass per iteration.

    All restarts run together: one pass per iteration computes the expected
    counts of every restart and cluster. With ``alpha > 0`` the M step is the
    Dirichlet-smoothed (MAP) estimate, so EM never decreases the log-posterior
    ``log P(X | theta) + alpha * (sum log theta + sum log pi)``; that is the
    quantity ``history_`` tracks and convergence tests. The restart with the
    largest final log-posterior is kept.

    Parameters
    ----------
    n_clusters : int >= 2, default 2
    n_restarts : int >= 1, default 5
        Random asymmetric starts, computed together.
    max_iter : int >= 1, default 100
        Most EM iterations (passes).
    tol : float >= 0, default 1e-6
        A restart stops (its parameters are frozen) when an iteration raises
        its log-posterior by at most ``tol`` per row.
    random_state : None, int >= 0, numpy.random.Generator or RandomState, default None
        Seed of the starting parameters; with an int, restart r's start does
        not depend on ``n_restarts``. A Generator or RandomState is drawn
        from (as in scikit-learn) and is saved as null in model files.
    alpha : float > 0, default 1.0
        Dirichlet smoothing of the cluster priors and value probabilities.
    n_bins, categorical_features, n_partitions, split_every, verbose, numeric_features
        As for :class:`~nbparallel.NaiveBayes`.
    persist, checkpoint
        As for :class:`~nbparallel.BoostedNaiveBayes` (``max_iter`` may grow on resume).

    Attributes
    ----------
    schema_ : nbparallel.data.schema.Schema
    counts_ : ndarray, shape (table_rows, n_clusters)
        Expected counts the fitted parameters derive from.
    cluster_totals_ : ndarray, shape (n_clusters,)
    cluster_log_prior_ : ndarray, shape (n_clusters,)
    feature_log_prob_ : list of ndarray
        Per attribute, log P(value | cluster) of shape (n_values, n_clusters).
    history_ : list of float
        The kept restart's log-posterior before each of its M steps; never decreasing.
    restart_histories_ : list of list of float
        The same for every restart.
    best_restart_ : int
    converged_ : bool
        Whether the kept restart met ``tol``.
    n_iter_ : int
        EM passes run (including those restored from a checkpoint).
    passes_ : list of dict
        The passes this fit ran.

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import AutoClass
    >>> X = np.array([[0, 0], [0, 0], [1, 1], [1, 1]] * 10)
    >>> clusters = AutoClass(n_clusters=2, random_state=0).fit(X)
    >>> len(set(clusters.predict(X[:2]).tolist())), len(set(clusters.predict(X[:3]).tolist()))
    (1, 2)
    """

    _parameter_constraints = {
        **PartitionedModel._parameter_constraints,
        "n_clusters": [Interval(int, 2, None)],
        "n_restarts": [Interval(int, 1, None)],
        "max_iter": [Interval(int, 1, None)],
        "tol": [Interval(float, 0, np.inf, "left")],
        "alpha": [Interval(float, 0, np.inf, "neither")],
        "n_bins": [Interval(int, 2, validate.MAX_BINS)],
        "numeric_features": [None, "array-like"],
        "persist": [Options(("auto",)), "boolean"],
        "checkpoint": [None, str, os.PathLike],
    }

    def __init__(self, *, n_clusters=2, n_restarts=5, max_iter=100, tol=1e-6, random_state=None, alpha=1.0,
                 n_bins=10, categorical_features="auto", n_partitions=None, split_every=2, persist="auto",
                 checkpoint=None, verbose=0, numeric_features=None):
        self.n_clusters = n_clusters
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.alpha = alpha
        self.n_bins = n_bins
        self.categorical_features = categorical_features
        self.n_partitions = n_partitions
        self.split_every = split_every
        self.persist = persist
        self.checkpoint = checkpoint
        self.verbose = verbose
        self.numeric_features = numeric_features

    def validate_params(self):
        """The declared checks, then ``random_state`` (TypeError for a wrong type)."""
        super().validate_params()
        check_random_state(self.random_state)

    def _seeds(self):
        """One seed sequence per restart, from ``random_state``."""
        state = check_random_state(self.random_state)
        if isinstance(state, np.random.RandomState):
            state = state.randint(0, 2**32, size=4, dtype=np.uint64)
        elif isinstance(state, np.random.Generator):
            state = state.integers(0, 2**32, size=4, dtype=np.uint64)
        return np.random.SeedSequence(state).spawn(self.n_restarts)

    def dataset(self, X, y=None, sample_weight=None, *, require_target=False, drop=(), features=None):
        """The rows as partitions, by the route a classifier's fit takes; clustering has no target."""
        if y is not None:
            raise TypeError(f"AutoClass clusters unlabelled rows: y must be None, got {type(y).__name__}")
        return as_dataset(X, None, sample_weight, n_partitions=self.n_partitions,
                          categorical_features=self.categorical_features, require_target=False,
                          numeric_features=self.numeric_features, drop=drop, features=features)

    # ------------------------------------------------------------ fitting

    def fit(self, X, y=None, sample_weight=None):
        """Cluster the rows: a schema pass, then one EM pass per iteration.

        Parameters
        ----------
        X : array-like, DataFrame, Dask collection, or path to CSV/Parquet
        y : ignored
        sample_weight : array-like or str, optional
            Non-negative row weights; they multiply into the expected counts.
        """
        self.validate_params()
        self._clear_fitted()
        dataset = self.dataset(X, None, sample_weight)
        scheduler = PassScheduler(dataset, split_every=self.split_every, persist=self.persist,
                                  verbose=bool(self.verbose))
        plan = CountingPlan.for_table(self.get_params(), dataset, weighted=sample_weight is not None,
                                      by_value=False)  # each EM iteration scores codes under the schema
        schema, _, _, n_rows = plan.run(scheduler.dataset, recorded_by(scheduler), count=False, supervised=False)
        scheduler.keep_if_fits(n_rows)
        K, R = self.n_clusters, self.n_restarts
        rows_per_partition = -(-n_rows // len(scheduler.dataset.partitions))
        memory.check_memory(
            memory.table_bytes(schema.offsets[-1], R * K, len(scheduler.dataset.partitions))
            + 4 * memory.CELL_BYTES * R * K * rows_per_partition * min(len(scheduler.dataset.partitions),
                                                                     execution.available_workers()),
            f"the expected counts of n_clusters={K} x n_restarts={R}", "use fewer clusters or restarts",
            scheduler.dataset.partitions, task_bytes=memory.task_table_bytes(schema.offsets[-1], R * K)
            + 4 * memory.CELL_BYTES * R * K * rows_per_partition)
        checkpoint = Checkpoint.for_fit(self, schema, n_rows, ignore=("max_iter",))
        state = checkpoint.load(lambda saved: _restore(saved, schema.offsets[-1], R, K))
        if state is None:
            starts = [random_counts(schema, K, n_rows, seed) for seed in self._seeds()]
            table = np.hstack([t for t, _ in starts])
            totals = np.concatenate([n for _, n in starts])
            histories, converged, n_iter, n_weight = [[] for _ in range(R)], np.zeros(R, bool), 0, None
        else:
            table, totals, histories, converged, n_iter, n_weight = state
        self.resumed_iterations_ = n_iter
        while n_iter < self.max_iter and not converged.all():
            log_table, log_prior = log_parameters(table, totals, schema.offsets, K, self.alpha)
            summary = scheduler.run_stateful("em", e_step_partition, merge_summaries,
                                             schema, log_table, log_prior, K)
            n_iter += 1
            n_weight = float(summary.totals[:K].sum())
            log_posterior = summary.log_likelihood + self.alpha * (
                log_table.reshape(len(table), R, K).sum(axis=(0, 2)) + log_prior.reshape(R, K).sum(axis=1))
            for r in np.flatnonzero(~converged):
                history = histories[r]
                if history and log_posterior[r] - history[-1] <= self.tol * n_weight:
                    converged[r] = True
                else:
                    columns = slice(r * K, (r + 1) * K)
                    table[:, columns], totals[columns] = summary.table[:, columns], summary.totals[columns]
                history.append(float(log_posterior[r]))
            checkpoint.save({"table": table.tolist(), "totals": totals.tolist(), "histories": histories,
                             "converged": converged.tolist(), "n_iter": n_iter, "n_weight": n_weight})
        best = int(np.argmax([h[-1] for h in histories]))
        columns = slice(best * K, (best + 1) * K)
        self.schema_, self.counts_, self.cluster_totals_ = schema, table[:, columns].copy(), totals[columns].copy()
        self.restart_histories_, self.history_, self.best_restart_ = histories, histories[best], best
        self.converged_, self.n_iter_, self.passes_ = bool(converged[best]), n_iter, scheduler.passes
        self._set_input_features(n_features=len(dataset.columns),
                                 feature_names=input_feature_names(X, dataset.columns))
        self._derive()
        return self

    def _derive(self):
        self._log_table, self.cluster_log_prior_ = log_parameters(
            self.counts_, self.cluster_totals_, self.schema_.offsets, self.n_clusters, self.alpha)
        offsets = self.schema_.offsets
        self.feature_log_prob_ = [self._log_table[offsets[a] + 1: offsets[a + 1]] for a in range(len(offsets) - 1)]

    # --------------------------------------------------------- prediction

    def _log_responsibilities(self, X):
        """Log-responsibilities (n_rows, K) and row log-likelihoods (n_rows,)."""
        check_is_fitted(self, "counts_")
        dataset = self.scoring_data(X)
        parts = execution.map_partitions(dataset.partitions,
                                         dataset.map(Tallied(_log_responsibilities_of), self, tables=True),
                                         name="nbparallel-autoclass-predict", token=dataset.token,
                                         verbose=bool(self.verbose))
        parts = untallied(parts, self.fitted_categories)
        return np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def predict_proba(self, X):
        """P(cluster | row) under the fitted model; rows sum to one."""
        return np.exp(self._log_responsibilities(X)[0])

    def predict(self, X):
        """The most probable cluster of every row."""
        return np.argmax(self._log_responsibilities(X)[0], axis=1)

    def predict_part(self, X, proba=False):
        """Clusters (their numbers), and their probabilities when ``proba``, of one in-memory partition's
        attribute columns."""
        log_resp = _log_responsibilities_of(self, X, None, None)[0]
        return np.argmax(log_resp, axis=1), (np.exp(log_resp) if proba else None)

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit, then predict the clusters of the same rows."""
        return self.fit(X, sample_weight=sample_weight).predict(X)

    def score_samples(self, X):
        """log P(row) under the fitted model (missing values skipped)."""
        return self._log_responsibilities(X)[1]

    def score(self, X, y=None):
        """Average log-likelihood per row."""
        return float(np.mean(self.score_samples(X)))

    def n_parameters(self):
        """Free parameters: K - 1 priors and K (M_a - 1) per attribute."""
        check_is_fitted(self, "counts_")
        sizes = np.diff(self.schema_.offsets) - 1
        return int(self.n_clusters - 1 + self.n_clusters * np.sum(np.maximum(sizes - 1, 0)))

    def bic(self, X):
        """Bayesian information criterion on X; lower is better."""
        log_likelihood = self.score_samples(X)
        return float(-2 * log_likelihood.sum() + self.n_parameters() * np.log(len(log_likelihood)))

    # ------------------------------------------------------------- files

    def fitted_to_dict(self):
        return {
            "schema": self.schema_.to_dict(),
            "counts": self.counts_.tolist(),
            "cluster_totals": self.cluster_totals_.tolist(),
            "restart_histories": self.restart_histories_,
            "best_restart": self.best_restart_,
            "converged": self.converged_,
            "n_iter": self.n_iter_,
            "passes": passes_to_json(self.passes_),
        }

    def fitted_from_dict(self, d):
        self.validate_params()
        validate.keys(d, "fitted", ("schema", "counts", "cluster_totals", "restart_histories", "best_restart",
                                    "converged", "n_iter", "passes"))
        self.schema_ = validate.schema(d["schema"])
        K = self.n_clusters
        self.counts_ = validate.numbers(d["counts"], "counts", (self.schema_.offsets[-1], K), low=0)
        self.cluster_totals_ = validate.numbers(d["cluster_totals"], "cluster_totals", (K,), low=0)
        self.n_iter_ = validate.integer(d["n_iter"], "n_iter")
        self.restart_histories_ = _histories(d["restart_histories"], self.n_restarts, self.n_iter_,
                                             "restart_histories")
        self.best_restart_ = validate.integer(d["best_restart"], "best_restart", 0, self.n_restarts - 1)
        self.history_ = self.restart_histories_[self.best_restart_]
        if not self.history_ or not isinstance(d["converged"], bool):
            raise ValueError("the kept restart has no history or 'converged' is not a boolean")
        self.converged_ = d["converged"]
        columns = self.schema_.columns  # model files of arrays have the columns "0", "1", ...
        named = columns != [str(i) for i in range(len(columns))]
        self._set_input_features(n_features=len(columns), feature_names=columns if named else None)
        self.passes_ = validate.passes(d["passes"])
        self._derive()

    def report_sections(self):
        """What :mod:`nbparallel.report` draws of this model: its clusters' weights and profiles."""
        return {"kind": "clusters", "model": self}


def check_random_state(random_state):
    """``random_state`` if it is None, an int >= 0, a numpy Generator or RandomState; else TypeError.

    >>> check_random_state(3), check_random_state(None)
    (3, None)
    """
    if random_state is None or isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be an int >= 0, got {random_state!r}")
        return int(random_state)
    raise TypeError(f"random_state must be None, an int >= 0, a numpy.random.Generator or "
                    f"numpy.random.RandomState, got {type(random_state).__name__} {random_state!r}")


def _histories(value, n_restarts, n_iter, where):
    """Per-restart lists of finite log-posteriors, at most ``n_iter`` each."""
    if not isinstance(value, list) or len(value) != n_restarts:
        raise ValueError(f"{where} must be a list of {n_restarts} lists (one per restart)")
    histories = []
    for r, history in enumerate(value):
        if not isinstance(history, list) or len(history) > n_iter:
            raise ValueError(f"{where}[{r}] must be a list of at most {n_iter} numbers")
        histories.append([validate.number(h, f"{where}[{r}]") for h in history])
    return histories


def _restore(state, n_table_rows, R, K):
    """``(table, totals, histories, converged, n_iter, n_weight)`` from an AutoClass checkpoint state."""
    validate.keys(state, "state", ("table", "totals", "histories", "converged", "n_iter", "n_weight"))
    table = validate.numbers(state["table"], "state.table", (n_table_rows, R * K), low=0)
    totals = validate.numbers(state["totals"], "state.totals", (R * K,), low=0)
    n_iter = validate.integer(state["n_iter"], "state.n_iter")
    histories = _histories(state["histories"], R, n_iter, "state.histories")
    converged = state["converged"]
    if not isinstance(converged, list) or len(converged) != R or not all(isinstance(c, bool) for c in converged):
        raise ValueError(f"state.converged must be a list of {R} booleans")
    n_weight = None if state["n_weight"] is None else validate.number(state["n_weight"], "state.n_weight", 0)
    return table, totals, histories, np.asarray(converged, bool), n_iter, n_weight


def _log_responsibilities_of(model, X, y, w):
    first, second = scoring_codes(model.schema_, X)
    jll = score_rows(first, second, model._log_table, model.schema_.offsets, model.cluster_log_prior_, mode=JOINT)
    log_resp, log_norm = _normalise(jll, model.n_clusters)
    return log_resp, log_norm[:, 0]

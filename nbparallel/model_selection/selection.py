"""SPSS forward feature selection for naive Bayes (Natarajan and Pednault, 2001).

The SPSS "Naive Bayes Algorithms" document, section "Feature Selection":

1. one counting pass collects every statistic (N, N_k, N^j_mk);
2. from an initial "must include" subset, each step adds the predictor whose
   model has the largest average log-likelihood ``l(J) = A(J) + B(J)``;
3. the sequence stops at an exact number of predictors, or at a maximum
   (given, or ``J_Max``), and the best subset minimises ``Q(J)``: the test
   criterion ``-l_test(J)`` when there is test data, else the pseudo-BIC
   ``-l_train(J) + J log(N) / (2N)``.

``A(J)`` comes from the counts alone. ``B(J)`` is either exact, one pass per
step that scores every remaining candidate for every row at once, or, the
document's default, computed on ``m`` cases simulated from the fitted model.
The model of every subset uses the parameters of the full model (pi_k and
p^j_mk do not depend on the other predictors), restricted to the subset.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import replace

import numpy as np
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state

from nbparallel.data.columns import BINNED, GAUSSIAN
from nbparallel.engine import execution
from nbparallel.engine.scheduler import PassScheduler
from nbparallel.kernels import selection as kernels
from nbparallel.models.naive_bayes import AUTO_SMOOTHING, OBSERVED, NaiveBayes

CRITERIA = ("auto", "bic", "test")
B_ESTIMATES = ("auto", "sample", "exact")

#: ``b_estimate="auto"`` computes B(J) exactly while (training rows) x (steps) stays at most this: one
#: scoring pass per step is then cheap (a UCI dataset of 1,000 rows and 20 steps is 20,000), and the
#: sampled estimate's noise, which moves the first choices with the seed, is avoided.
EXACT_BUDGET = 5_000_000

#: Simulated cases are scored in chunks of this many rows, one thread per core; a fixed size, so that B(J)
#: (summed chunk by chunk, in order) does not depend on the number of cores.
SAMPLE_CHUNK = 10_000


def resolve_b_estimate(b_estimate, n_rows, n_steps):
    """``"auto"``: "exact" when ``n_rows * n_steps <= EXACT_BUDGET``, else "sample".

    >>> resolve_b_estimate("auto", 1000, 20), resolve_b_estimate("auto", 10**6, 20), resolve_b_estimate("sample", 10, 1)
    ('exact', 'sample', 'sample')
    """
    if b_estimate != "auto":
        return b_estimate
    return "exact" if n_rows * max(n_steps, 1) <= EXACT_BUDGET else "sample"


def auto_max_features(n_predictors, n_must):
    """``J_Max = min{J_Must + min{100, max(20, J0 / 5)}, J0}``, rounded down.

    SPSS, "Feature Selection / Create the Sequence of Subsets".

    >>> auto_max_features(10, 0), auto_max_features(1000, 3), auto_max_features(110, 2)
    (10, 103, 24)
    """
    return math.floor(min(n_must + min(100, max(20, n_predictors / 5)), n_predictors))


def padded_tables(feature_log_prob):
    """Per attribute, log p^j_mk with a row of zeros first: code 0 (missing) adds nothing."""
    return [np.vstack([np.zeros((1, p.shape[1])), p]) for p in feature_log_prob]


def a_terms(model):
    """The pieces of ``A(J) = (1/N) sum_k N_k log(pi_k) + (1/N) sum_k sum_j sum_m N^j_mk log(p^j_mk)``.

    SPSS, "Average Log-likelihood" (the first two lines of l(J) = A(J) + B(J)).

    Returns
    -------
    a0 : float
        ``(1/N) sum_k N_k log(pi_k)``, which is A(0) = l(0).
    terms : ndarray
        Per attribute j, ``(1/N) sum_k sum_m N^j_mk log(p^j_mk)``; A(J) is a0
        plus the terms of the J predictors.
    """
    N_k = model.counts_.class_counts
    N = N_k.sum()
    a0 = float(np.sum(np.where(N_k > 0, N_k * np.where(N_k > 0, model.class_log_prior_, 0.0), 0.0)) / N)
    terms = np.array([float(np.sum(fit.counts * fit.log_prob)) / N for fit in model.counted_fits_])
    return a0, terms


def _log_sum_exp(scores):
    top = np.max(scores, axis=1, keepdims=True)
    return (top + np.log(np.sum(np.exp(scores - top), axis=1, keepdims=True)))[:, 0]


def candidate_tables(model):
    """The full model's log tables as the candidate sums read them (:func:`padded_tables`, stacked), made
    once per selection."""
    tables = padded_tables([fit.log_prob for fit in model.counted_fits_])
    starts = np.concatenate([[0], np.cumsum([len(t) for t in tables])]).astype(np.int64)
    return kernels.CandidateTables(np.vstack(tables), starts, model.class_log_prior_)


def first_step_sums(model, tables, candidates):
    """The candidate sums of the empty subset from the counts alone, without a pass over the rows.

    With no predictor chosen, a row's term depends on its candidate's value only (and is ignored when that
    value is missing), so ``sums[c] = sum_m N^c_m log sum_k pi_k p^c_mk`` and ``kept[c] = sum_m N^c_m``,
    ``N^c_m`` the weighted rows of value m with a known target; the empty subset's own term is ignored.
    Returns ``(sums, kept)`` as :func:`nbparallel.kernels.selection.candidate_sums` does.
    """
    sums, kept = np.zeros(len(candidates) + 1), np.zeros(len(candidates) + 1)
    for j, c in enumerate(candidates):
        rows = model.counted_fits_[c].counts.sum(axis=1)
        sums[j + 1] = np.dot(rows, _log_sum_exp(model.class_log_prior_ + tables[c][1:]))
        kept[j + 1] = rows.sum()
    return sums, kept


def _training_rows(model, X, y, w):
    """A partition's codes under the final bins (row-major, as the candidate sums read them), class codes
    (-1: unknown target) and weights: what every step of the exact B(J) reads, kept between its passes."""
    codes, values = model.schema_.counted().split(X)
    # categorical attributes only: their codes as they are (uint8 where they fit), else one uint16 array
    codes = np.ascontiguousarray(codes) if not values.shape[1] else model.inputs_of_split(codes, values).joined_codes()
    return codes, model.schema_.encode_classes(y, w), None if w is None else np.asarray(w, np.float64)


def _step_partition(model, tables, subset, candidates, rows, X, y, w):
    """One step's candidate sums of a partition (:func:`nbparallel.kernels.selection.candidate_sums`), and
    its rows (:func:`_training_rows`) for the next step."""
    rows = _training_rows(model, X, y, w) if rows is None else rows
    codes, labels, weights = rows
    return rows, kernels.candidate_sums(tables, codes, labels, weights, subset, candidates)


def _row_estimate(dataset, class_counts):
    """The data's rows: known beforehand, else the (weighted) rows with a known target."""
    if dataset.n_rows is not None:
        return int(dataset.n_rows)
    if dataset.partition_rows:
        return int(sum(dataset.partition_rows))
    return int(np.ceil(np.sum(class_counts)))


def _add_pairs(*parts):
    return sum(p[0] for p in parts), sum(p[1] for p in parts)


def _known_rows(model, X, y, w):
    """Codes under the final bins and weights of the rows with a known target, and their class codes."""
    labels = model.schema_.encode_classes(y, w)
    known = labels >= 0
    codes = model.scoring_inputs(X).joined_codes()[known]
    return codes, None if w is None else np.asarray(w, dtype=np.float64)[known], labels[known]


def sequence_log_likelihoods(tables, log_prior, codes, labels, weights, subsets):
    """``sum_i w_i log P(y_i | x_i)`` under each nested subset, in one scan of the rows.

    Every row with a known target counts; a missing value contributes no
    factor (an all-missing row scores its prior).
    """
    w = np.ones(len(codes)) if weights is None else weights
    scores = np.tile(log_prior, (len(codes), 1))
    done, out = set(), []
    rows = np.arange(len(codes))
    for subset in subsets:
        for a in subset:
            if a not in done:
                scores += tables[a][codes[:, a]]
                done.add(a)
        out.append(float(np.dot(w, scores[rows, labels] - _log_sum_exp(scores))) if len(codes) else 0.0)
    return np.array(out), float(w.sum())


def _test_partition(model, tables, subsets, X, y, w):
    codes, weights, labels = _known_rows(model, X, y, w)
    return sequence_log_likelihoods(tables, model.class_log_prior_, codes, labels, weights, subsets)


def simulate_codes(model, size, random_state):
    """``size`` cases drawn from a fitted :class:`NaiveBayes` (all its predictors):
    y from pi, each x_j from p^j_{.y}.

    SPSS, "Calculation of average log-likelihood by sampling":
    ``B(J) = -(1/m) sum_{i=1..m} log(sum_k pi_k prod_j p^j_{x_ji k})`` on these cases (m = 1000 by default).

    Ignored attributes are left missing (code 0). These are the simulated
    pseudo-data of Natarajan and Pednault from which B(J) is estimated.
    """
    rng = check_random_state(random_state)
    prior = np.exp(model.class_log_prior_)
    y = rng.choice(len(prior), size=size, p=prior / prior.sum())
    codes = np.zeros((size, len(model.counted_fits_)), dtype=np.uint16)
    for a, fit in enumerate(model.counted_fits_):
        if fit.ignored:
            continue
        logp = fit.log_prob
        seen = fit.counts.sum(axis=1) > 0
        prob = np.where(seen[:, None], np.exp(logp), 0.0)
        cdf = np.cumsum(prob / prob.sum(axis=0), axis=0)
        kernels.draw_codes(cdf.T, y, rng.random_sample(size), codes[:, a])
    return codes


class SelectedNaiveBayes(SelectorMixin, NaiveBayes):
    """Naive Bayes on the predictors chosen by SPSS forward selection.

    A classifier (the naive Bayes model of the selected predictors) and a
    scikit-learn feature selector (``get_support``, ``transform``). Fitting
    counts as :meth:`NaiveBayes.fit` does; with ``b_estimate="sample"`` the
    whole selection then runs on the counts and ``sample_size`` simulated
    cases (no more passes), with ``"exact"`` it runs one pass per step, each
    scoring every remaining candidate (the partitions' codes are kept between
    the steps when the data fit in memory). Test data adds one pass that
    scores every subset of the sequence.

    The naive Bayes parameters are explicit keyword parameters, as scikit-learn
    requires of ``__init__`` (``get_params``/``clone`` read its signature, so
    ``**kwargs`` cannot be cloned or grid-searched).

    Parameters
    ----------
    n_features : int or None, default None
        Select exactly this many predictors (must-include ones counted): the
        last subset of the sequence is the model.
    max_features : int or "auto", default "auto"
        Otherwise the sequence grows to this many predictors (at most J0, the
        number of usable predictors); "auto" is the SPSS
        ``J_Max = min{J_Must + min{100, max(20, J0/5)}, J0}``. The best subset
        of the sequence minimises Q(J).
    must_include : sequence of column names or indices, default ()
        The initial subset, always in the model.
    criterion : "auto", "bic" or "test", default "auto"
        Q(J): "test" is ``-l_test(J)`` (needs ``X_test`` in ``fit``), "bic" is
        ``-l_train(J) + J log(N) / (2N)``; "auto" takes "test" when test data
        is given.
    b_estimate : "auto", "sample" or "exact", default "auto"
        How B(J) of l_train is computed: from ``sample_size`` cases simulated
        from the fitted model (the SPSS default) or exactly from the data (one
        scoring pass per step). "auto" is exact when (training rows) x
        (steps) is at most ``EXACT_BUDGET`` (5 million), else sampled; the
        choice made is ``b_estimate_``. Sampled with m = 1000, the first
        choices move with the seed on UCI datasets (credit-g); exact, they do
        not.
    sample_size : int >= 1, default 20000
        m, the number of simulated cases.
    random_state : int, RandomState or None
        Seed of the simulated cases.
    alpha, class_alpha, n_bins, categorical_features, n_partitions, split_every, verbose
        As for :class:`NaiveBayes`.
    fit_prior, force_alpha, integer_categories, min_categories
        As for :class:`NaiveBayes` (an array of ``min_categories`` gives one number per column of ``X``).
    numeric_ranges, numeric, var_smoothing, numeric_features, class_prior
        As for :class:`NaiveBayes`. Every parameter of :class:`NaiveBayes` is one of this model's, so the
        model of the selected predictors is the :class:`NaiveBayes` of the same parameters on those
        columns. Selection chooses among counted attributes, so ``numeric`` must leave every numeric
        column binned (a Gaussian one raises ValueError).

    Attributes
    ----------
    selected_features_ : list of str
        The chosen predictors, in the order they entered (must-include first).
    selection_path_ : list of dict
        The sequence of subsets: per step ``added`` (None for the initial
        subset), ``n_features`` J, ``A``, ``B``, ``l_train``, ``l_test`` (None
        without test data) and ``Q``.
    criterion_ : str
        "test", "bic", or "exact" (when ``n_features`` fixed the subset).
    b_estimate_ : str
        How B(J) was computed: "exact" or "sample" ("auto" resolved).
    passes_ : list of dict
        Every pass of the fit: "count" (after a "schema" pass where the counting needs one), "select"
        (one per step of the exact B), "test".

    Every fitted attribute of :class:`NaiveBayes` is there too;
    ``feature_log_prob_`` holds zeros for the predictors left out.

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import SelectedNaiveBayes
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = np.column_stack([y, rng.integers(0, 3, 200)])
    >>> SelectedNaiveBayes(n_features=1, categorical_features="all").fit(X, y).get_support().tolist()
    [True, False]
    """

    def __init__(self, *, n_features=None, max_features="auto", must_include=(), criterion="auto",
                 b_estimate="auto", sample_size=20000, random_state=None, alpha=AUTO_SMOOTHING,
                 class_alpha=AUTO_SMOOTHING, n_bins=10, categorical_features="auto", n_partitions=None,
                 split_every=2, verbose=0, numeric_ranges=None, numeric=BINNED, var_smoothing=1e-9,
                 numeric_features=None, class_prior=None, fit_prior=True, force_alpha=True,
                 integer_categories=OBSERVED, min_categories=None):
        self.n_features = n_features
        self.max_features = max_features
        self.must_include = must_include
        self.criterion = criterion
        self.b_estimate = b_estimate
        self.sample_size = sample_size
        self.random_state = random_state
        super().__init__(alpha=alpha, class_alpha=class_alpha, n_bins=n_bins,
                         categorical_features=categorical_features, n_partitions=n_partitions,
                         split_every=split_every, verbose=verbose, numeric_ranges=numeric_ranges, numeric=numeric,
                         var_smoothing=var_smoothing, numeric_features=numeric_features, class_prior=class_prior,
                         fit_prior=fit_prior, force_alpha=force_alpha, integer_categories=integer_categories,
                         min_categories=min_categories)

    @property
    def partial_fit(self):
        """Not available: selection needs every statistic of the data at once."""
        raise AttributeError("SelectedNaiveBayes has no partial_fit: refit on all the data")

    def _check_selection_params(self):
        for name in ("n_features", "max_features", "sample_size"):
            value = getattr(self, name)
            if name == "n_features" and value is None or name == "max_features" and value == "auto":
                continue
            low = 0 if name == "n_features" else 1
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                allowed = {"n_features": "None or an int >= 0", "max_features": "'auto' or an int >= 1",
                           "sample_size": "an int >= 1"}[name]
                raise ValueError(f"{name} must be {allowed}, got {value!r}")
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}, got {self.criterion!r}")
        if self.b_estimate not in B_ESTIMATES:
            raise ValueError(f"b_estimate must be one of {B_ESTIMATES}, got {self.b_estimate!r}")
        if isinstance(self.must_include, (str, int)) or not hasattr(self.must_include, "__iter__"):
            raise TypeError(f"must_include must be a list of column names or indices, got {self.must_include!r}")
        kinds = self.numeric.values() if isinstance(self.numeric, dict) else [self.numeric]
        if GAUSSIAN in kinds:
            raise ValueError(f"numeric={self.numeric!r} asks for Gaussian attributes, but forward selection "
                             f"chooses among counted ones: use numeric={BINNED!r}")

    # ------------------------------------------------------------ fitting

    def fit(self, X, y=None, sample_weight=None, X_test=None, y_test=None):
        """Count, then select predictors forward as the SPSS document describes.

        Parameters
        ----------
        X, y, sample_weight
            As for :meth:`NaiveBayes.fit`.
        X_test, y_test : optional
            Test data (same columns) and its target (values or column name)
            for the criterion ``Q(J) = -l_test(J)``.
        """
        self.validate_params()
        self._check_selection_params()
        if self.criterion == "test" and X_test is None:
            raise ValueError("criterion='test' needs test data: pass X_test (and y_test) to fit")
        self._clear_fitted()
        dataset = self.dataset(X, y, sample_weight)
        # the full model, every statistic counted as NaiveBayes.fit counts it
        self._fit_counts(X, dataset, weighted=sample_weight is not None)
        test = None
        if X_test is not None:
            test = self.dataset(X_test, y_test)
            if list(test.columns) != list(dataset.columns):
                raise ValueError(f"X_test has columns {list(test.columns)}; X has {list(dataset.columns)}")
        self._select(dataset, test)
        self._derive()
        return self

    def _predictor_indices(self):
        """Usable predictors (count-table order) and the must-include ones (given order)."""
        schema = self.schema_
        index = {at.name: a for a, at in enumerate(schema.counted().attributes)}
        ignored = set(self.ignored_attributes_)
        must = []
        for item in self.must_include:
            if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                if not 0 <= item < len(schema.columns):
                    raise ValueError(f"must_include index {item} is out of range for {len(schema.columns)} columns")
                item = schema.columns[item]
            if item not in index:
                raise ValueError(f"must_include names column {item!r}, which is not in the data {schema.columns}")
            if item in ignored:
                raise ValueError(f"must_include names column {item!r}, which the model ignores "
                                 "(no observed value or a single observed category)")
            if index[item] not in must:
                must.append(index[item])
        usable = [a for a, at in enumerate(schema.counted().attributes) if at.name not in ignored]
        return usable, must

    def _target_size(self, n_usable, n_must):
        if self.n_features is not None:
            if not n_must <= self.n_features <= n_usable:
                raise ValueError(f"n_features={self.n_features} must lie between the {n_must} must-include "
                                 f"predictors and the {n_usable} usable ones")
            return self.n_features
        if self.max_features == "auto":
            return auto_max_features(n_usable, n_must)
        if self.max_features < n_must:
            raise ValueError(f"max_features={self.max_features} is smaller than the {n_must} must-include predictors")
        return min(self.max_features, n_usable)

    def _select(self, dataset, test):
        usable, subset = self._predictor_indices()
        attributes = self.schema_.counted().attributes
        target = self._target_size(len(usable), len(subset))
        tables = padded_tables([fit.log_prob for fit in self.counted_fits_])
        prepared = candidate_tables(self)
        a0, terms = a_terms(self)
        self.b_estimate_ = resolve_b_estimate(self.b_estimate, float(self.counts_.class_counts.sum()),
                                              target - len(subset))
        if self.b_estimate_ == "sample":
            simulated = simulate_codes(self, self.sample_size, self.random_state)
            chunks = [simulated[i:i + SAMPLE_CHUNK] for i in range(0, len(simulated), SAMPLE_CHUNK)]

            def b_sums(subset, candidates):  # the chunks on a thread per core, summed in chunk order
                def chunk_sums(codes):
                    return kernels.candidate_sums(prepared, codes, None, None, subset, candidates)

                return _add_pairs(*execution.map_locally([chunk_sums] * len(chunks), chunks))
        else:  # one pass per step; each partition's codes are kept between them when the data fit in memory
            scheduler = PassScheduler(dataset, split_every=self.split_every, verbose=bool(self.verbose))
            scheduler.keep_if_fits(_row_estimate(dataset, self.counts_.class_counts))

            def b_sums(subset, candidates):
                if not subset:
                    return first_step_sums(self, tables, candidates)
                out = scheduler.run_stateful("select", _step_partition, _add_pairs, self, prepared, list(subset),
                                             list(candidates))
                self._record_pass("select", scheduler.passes[-1]["tree"], scheduler.passes[-1]["seconds"])
                return out

        path, b_subset = [], (0.0 if not subset else None)
        while True:
            grow = len(subset) < target
            candidates = [a for a in usable if a not in subset] if grow else []
            if grow or b_subset is None:
                sums, kept = b_sums(subset, candidates)
                b_all = -np.divide(sums, kept, out=np.zeros_like(sums), where=kept > 0)
                if b_subset is None:
                    b_subset = float(b_all[0])
            if not path:
                path.append(_step(None, subset, a0 + terms[subset].sum(), b_subset))
            if not grow:
                break
            l_candidates = a0 + terms[subset].sum() + terms[candidates] + b_all[1:]
            best = int(np.argmax(l_candidates))  # ties: the first in schema order
            subset = [*subset, candidates[best]]
            b_subset = float(b_all[1 + best])
            path.append(_step(attributes[candidates[best]].name, subset,
                              a0 + terms[subset].sum(), b_subset))
        self._score_path(path, dataset, test, tables)
        if self.n_features is not None:
            chosen, self.criterion_ = len(path) - 1, "exact"
        else:
            chosen = int(np.argmin([step["Q"] for step in path]))
        order = [attributes[a].name for a in subset]
        self.selected_features_ = order[: path[chosen]["n_features"]]
        self.selection_path_ = path
        if not self.selected_features_:
            warnings.warn(f"no predictor lowers the {self.criterion_} criterion Q(J) below that of the empty "
                          "subset: the model predicts from the class prior alone", UserWarning, stacklevel=3)

    def _score_path(self, path, dataset, test, tables):
        """l_test(J) (one pass over the test data) and Q(J) of every subset in the path.

        SPSS, "Find the 'Best' Subset": the test data criterion ``Q(J) = -l_test(J)``, or the
        pseudo-BIC criterion ``Q(J) = -l_train(J) + J log(N) / (2N)``.
        """
        N = float(self.counts_.class_counts.sum())
        self.criterion_ = "test" if self.criterion == "test" or (self.criterion == "auto" and test) else "bic"
        l_test = [None] * len(path)
        if test is not None:
            subsets = [step["subset"] for step in path]
            start = time.perf_counter()
            (sums, n), record = execution.run_pass(
                test.partitions, test.map(_test_partition, self, tables, subsets, categorical_target=True), _add_pairs,
                split_every=self.split_every, name="nbparallel-select-test", token=test.token,
                verbose=bool(self.verbose))
            self._record_pass("test", record, time.perf_counter() - start)
            if n <= 0:
                raise ValueError("the test data holds no row with a known target")
            l_test = list(sums / n)
        for step, lt in zip(path, l_test):
            J = step["n_features"]
            step["l_test"] = None if lt is None else float(lt)
            step["Q"] = float(-lt if self.criterion_ == "test" else -step["l_train"] + J * math.log(N) / (2 * N))
            del step["subset"]

    # ---------------------------------------------------- the chosen model

    def _derive(self):
        """The full model's probabilities, then zeros for the predictors left out."""
        super()._derive()
        if not hasattr(self, "selected_features_"):
            return
        chosen = set(self.selected_features_)
        fits = [fit if at.name in chosen else replace(fit, log_prob=np.zeros_like(fit.log_prob))
                for at, fit in zip(self.schema_.counted().attributes, self.counted_fits_)]
        self._set_fits(fits, None)

    def _get_support_mask(self):
        chosen = set(self.selected_features_)
        return np.array([c in chosen for c in self.schema_.columns], dtype=bool)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        return tags

    # ------------------------------------------------------------- files

    def fitted_to_dict(self):
        return {**super().fitted_to_dict(), "selected_features": list(self.selected_features_),
                "selection_path": self.selection_path_, "criterion": self.criterion_}

    _SELECTION_KEYS = ("selected_features", "selection_path", "criterion")

    def fitted_from_dict(self, d):
        self.selected_features_ = [str(name) for name in d["selected_features"]]
        self.selection_path_ = list(d["selection_path"])
        self.criterion_ = str(d["criterion"])
        super().fitted_from_dict({k: v for k, v in d.items() if k not in self._SELECTION_KEYS})
        unknown = set(self.selected_features_) - set(self.schema_.columns)
        if unknown:
            raise ValueError(f"selected features {sorted(unknown)} are not in the model's schema")


def _step(added, subset, a, b):
    return {"added": added, "n_features": len(subset), "subset": list(subset),
            "A": float(a), "B": float(b), "l_train": float(a + b)}

"""The naive Bayes classifier of Elkan and of the SPSS algorithm document."""

from __future__ import annotations

import time
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .. import dictionary_counts, engine, io, limits, validate
from ..counting import CountSpec, count_dataset
from ..data import CATEGORICAL, NUMERIC, Attribute, Schema, all_codes, as_dataset, scan_schema, sort_values
from ..kernels import best_classes, joint_log_likelihood
from ..params import Interval, Options
from ..partitions import input_feature_names
from ..summaries import merge_summaries
from .base import PartitionedClassifier
from .gaussian import (
    BINNED, GAUSSIAN, GaussianMoments, count_and_moments, gaussian_log_likelihood, gaussian_parameters,
    gaussian_values,
)

AUTO_SMOOTHING = "1/N"


def check_classes(classes):
    """Raise ValueError unless there are at least two classes to tell apart."""
    if len(classes) < 2:
        raise ValueError(f"y has 1 class {list(classes)}: at least two classes are needed")


def check_counts(counts):
    """Raise ValueError when no case has both a known target and a known attribute value."""
    check_class_weights(counts.class_counts)


def check_class_weights(class_weights):
    """Raise ValueError when no case has both a known target and a known attribute value."""
    if class_weights.sum() <= 0:
        raise ValueError("no training case has both a known target and a known attribute value (all weights zero?)")


def merged_bins(counts, edges):
    """SPSS empty-bin elimination: the non-empty bins and their new inner edges.

    Each run of empty bins between two non-empty ones is removed and a single
    boundary is set at the middle of the gap; training counts are unchanged.

    >>> merged_bins(np.array([3., 0., 0., 2.]), np.array([1., 2., 3.]))
    (array([0, 3]), array([2.]))
    """
    kept = np.flatnonzero(counts > 0)
    # bin b covers (edges[b-1], edges[b]]; the gap between kept bins a < b is (edges[a], edges[b-1]].
    # Halving before adding cannot overflow near the float limit, and (halving by a power of two being
    # exact) gives the same bits as (x + y) / 2 everywhere else.
    new_edges = np.array([edges[a] / 2 + edges[b - 1] / 2 for a, b in zip(kept[:-1], kept[1:])])
    return kept, new_edges


@io.register
class NaiveBayes(PartitionedClassifier):
    """Naive Bayes by counting, in parallel, with a binary-tree reduction.

    Categorical attributes are counted per value and class; numeric attributes
    are cut into ``n_bins`` equal-width bins (from a min/max pass, right-closed,
    empty bins eliminated as in the SPSS algorithm) inside the counting pass.
    Probabilities follow the SPSS document:
    ``pi_k = (N_k + lambda) / (N + K lambda)`` and
    ``p_mk = (N_mk + f) / (sum_l N_lk + M f)``.

    Parameters
    ----------
    alpha : float > 0 or "1/N", default "1/N"
        The cell smoothing f; "1/N" uses one over the number of training cases,
        as the SPSS document recommends; 1.0 is Laplace smoothing.
    class_alpha : float > 0 or "1/N", default "1/N"
        The class-prior smoothing lambda.
    n_bins : int >= 2, default 10
        Equal-width bins per numeric attribute (Elkan's M = 10).
    categorical_features : "auto", "all" or list, default "auto"
        Which attributes are categorical: "auto" takes non-numeric columns,
        "all" every column, or a list of column names or indices.
    numeric_features : list or None, default None
        Column names or indices that are numeric whatever their dtype (and
        whatever ``categorical_features`` says; a column in both lists is an
        error). Text in them (an object column of ``"3.5"`` strings, a CSV
        column with ``?`` marks) is parsed to float64 when the data is read:
        pandas' missing-value strings and a :class:`~nbparallel.files.Files`
        path's ``na_values`` become missing, any other value that is no
        number raises ValueError naming the column and the value. Booleans
        become 0 and 1. Dates and times raise TypeError: convert them first.
    n_partitions : int or None, default None
        Partitions of in-memory data (None: one per worker or core, none
        smaller than 65536 rows); Dask collections and files keep their own
        unless this is given. It never changes the model.
    split_every : int >= 2 or False, default 2
        Fan-in of the reduction tree; False merges all partitions at once.
    verbose : int, default 0
        1 shows a progress bar for each pass.
    numeric : "binned", "gaussian" or dict, default "binned"
        How numeric attributes are modelled: "binned" counts them in
        ``n_bins`` equal-width bins; "gaussian" fits a normal distribution per
        class (the primer; scikit-learn's ``GaussianNB``), from per-class
        weighted count, mean and M2 summed in the same counting pass. A dict
        ``{column name or index: "binned" or "gaussian"}`` chooses per column
        (columns it leaves out are binned). Categorical columns stay
        categorical. With ``class_alpha`` tiny (say 1e-12) the prior is the
        empirical one and the model is GaussianNB's on all-numeric data.
    var_smoothing : float >= 0, default 1e-9
        As in ``GaussianNB``: ``var_smoothing`` times the largest variance of
        a Gaussian attribute (all classes together) is added to every
        Gaussian variance.
    numeric_ranges : dict or None, default None
        ``{column: (lo, hi)}``: the range the equal-width bins of these
        numeric columns cover, instead of the data's min and max. Give it to
        ``partial_fit`` when the first batch does not span the data (for
        example batches ordered by class); values outside fall into the end
        bins, with a warning.

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted.
    counts_ : nbparallel.counts.CountTable
        The merged raw counts (numeric attributes in their equal-width bins).
    reduction_ : nbparallel.reduce.TreeRecord
        The tree of the last counting pass.
    passes_ : list of dict
        Every pass run by the last fit: kind, tree record and wall seconds.
    schema_ : nbparallel.data.Schema
        Attributes (categorical first, then numeric), vocabularies, ranges.
    feature_kinds_ : dict
        The resolved kind of every input column, "categorical" or "numeric"
        (under "auto", integer columns are numeric: binned).
    n_missing_target_ : int
        Training rows skipped because their target was missing.
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_log_prob_ : list of ndarray
        Per attribute (schema order), log P(value | class) of shape
        (n_values, n_classes); an ignored attribute is all zeros.
    target_column_ : str
        The target column's name, when fitted from a DataFrame or file column.
    ignored_attributes_ : list of str
        Attributes with no observed value or a single observed category.
    bin_edges_ : dict
        Inner bin edges of each binned attribute after empty-bin elimination.
    log_probabilities_ : dict of DataFrame
        The fitted probabilities a user reads, keyed by input column in
        input order: log P(value | class) with value labels (categories, or
        bin intervals "(lo, hi]") as the index and ``classes_`` as columns;
        for a Gaussian column, the rows "theta" and "var".
        (``feature_log_prob_`` and ``log_odds_weights_`` are the same numbers
        as arrays in the order of ``schema_.attributes``.)
    gaussian_features_ : list of str
        The Gaussian attributes, in input order (empty when none).
    moments_ : nbparallel.models.gaussian.GaussianMoments
        Their merged per-class weighted count, mean and M2 (only with
        Gaussian attributes), and from them ``theta_`` and ``var_`` (shape
        (n_classes, n_gaussian), columns as ``gaussian_features_``) and
        ``epsilon_``, as in ``GaussianNB``.
    """

    _parameter_constraints = {
        **PartitionedClassifier._parameter_constraints,
        "alpha": [Interval(float, 0, np.inf, "neither"), Options((AUTO_SMOOTHING,))],
        "class_alpha": [Interval(float, 0, np.inf, "neither"), Options((AUTO_SMOOTHING,))],
        "n_bins": [Interval(int, 2, validate.MAX_BINS)],
        "numeric_ranges": [None, dict],
        "numeric_features": [None, "array-like"],
        "numeric": [Options((BINNED, GAUSSIAN)), dict],
        "var_smoothing": [Interval(float, 0, np.inf, "left")],
    }

    def __init__(self, *, alpha=AUTO_SMOOTHING, class_alpha=AUTO_SMOOTHING, n_bins=10,
                 categorical_features="auto", n_partitions=None, split_every=2, verbose=0, numeric_ranges=None,
                 numeric=BINNED, var_smoothing=1e-9, numeric_features=None):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.n_bins = n_bins
        self.categorical_features = categorical_features
        self.n_partitions = n_partitions
        self.split_every = split_every
        self.verbose = verbose
        self.numeric_ranges = numeric_ranges
        self.numeric = numeric
        self.var_smoothing = var_smoothing
        self.numeric_features = numeric_features

    # ------------------------------------------------------------ fitting

    def _check_params(self):
        """The declared checks (``categorical_features`` is checked against the columns by the data layer)."""
        super()._check_params()
        _check_ranges(self.numeric_ranges)

    def dataset(self, X, y=None, sample_weight=None, *, require_target=True):
        """The input as partitions (:class:`nbparallel.data.Dataset`), with this model's
        partitioning and categorical features; sparse input is refused."""
        _reject_sparse(X)
        return as_dataset(X, y, sample_weight, n_partitions=self.n_partitions,
                          categorical_features=self.categorical_features, require_target=require_target,
                          numeric_features=self.numeric_features)

    def _data(self, X, y=None, sample_weight=None):
        """The input to score, checked against the fitted features."""
        dataset = self.dataset(X, y, sample_weight, require_target=y is not None)
        self._check_input_features(n_features=len(dataset.columns),
                                   feature_names=input_feature_names(X, dataset.columns))
        return dataset

    def _run(self, kind, fn, *args, **kwargs):
        """Run one pass, returning what ``fn`` returns (its tree record last), and record it."""
        start = time.perf_counter()
        out = fn(*args, split_every=self.split_every, verbose=bool(self.verbose), **kwargs)
        self._record_pass(kind, out[-1], time.perf_counter() - start)
        return out

    def fit(self, X, y=None, sample_weight=None):
        """Fit from the data: one schema pass, then one counting pass; one pass when every attribute is
        categorical and the rows are unweighted (see :mod:`nbparallel.dictionary_counts`).

        Parameters
        ----------
        X : array-like, DataFrame, Dask collection, or path to CSV/Parquet
        y : array-like or str
            Target values, or the target column's name when X is a DataFrame
            or a path.
        sample_weight : array-like or str, optional
            Non-negative weights (or a weight column's name); weights multiply
            into the counts.
        """
        self._check_params()
        self._clear_fitted()
        dataset = self.dataset(X, y, sample_weight)
        return self._fit_counts(X, dataset, classes=None,
                                one_pass=sample_weight is None and dictionary_counts.applies(dataset))

    def partial_fit(self, X, y=None, sample_weight=None, classes=None):
        """Add the counts of more data to the model.

        The first call fixes the numeric bins' ranges to its data's min and
        max, or to ``numeric_ranges`` where given; a later batch's values
        beyond them fall into the end bins and raise a warning, so give
        ``numeric_ranges`` when the first batch does not span the data. Later
        calls may bring new categories and classes. Fitting on the whole data
        or on pieces gives the same counts when the ranges are the same.
        """
        self._check_params()
        return self._fit_counts(X, self.dataset(X, y, sample_weight), classes=classes)

    def _fit_counts(self, X, dataset, classes, one_pass=False):
        self.passes_ = []  # the passes of this call only
        if one_pass:  # every attribute categorical: vocabularies and counts from one pass
            schema, counts, record = self._run("count", dictionary_counts.count_in_one_pass, dataset,
                                               n_bins=self.n_bins)
        else:
            schema, scan, _ = self._run("schema", scan_schema, dataset, n_bins=self.n_bins,
                                        classes=None if classes is None else sort_values(set(classes)))
        gaussian = self._gaussian_columns(dataset)
        schema = counted_schema(schema, gaussian)
        previous = None  # the fitted counts, in the layout of the (possibly grown) schema
        if hasattr(self, "schema_"):
            _warn_out_of_range(self.schema_, schema)
            schema, previous = self._extend_schema(schema, dataset.columns)
            if gaussian != self.gaussian_features_:
                raise ValueError(f"partial_fit got Gaussian columns {gaussian}, but the model was fitted with "
                                 f"{self.gaussian_features_}")
        else:
            if classes is not None and not set(scan.classes) <= set(schema.classes):
                raise ValueError(f"y holds classes {sorted(set(scan.classes) - set(schema.classes))} "
                                 f"not in `classes`")
            schema = self._fixed_ranges(schema)
        check_classes(schema.classes)
        limits.check_memory(limits.table_bytes(schema.offsets[-1], len(schema.classes), len(dataset.partitions)),
                            f"the count tables of {len(schema.classes)} classes x {schema.offsets[-1]} values",
                            "use fewer bins (n_bins) or fewer categorical values")
        if gaussian:
            position = {c: i for i, c in enumerate(dataset.columns)}
            summary, record = self._run(
                "count", engine.run_pass, dataset.partitions,
                dataset.map(count_and_moments, CountSpec.of(schema), tuple(position[c] for c in gaussian),
                            tuple(position[c] for c in dataset.columns if c not in gaussian)),
                merge_summaries, name="nbparallel-count", token=dataset.token)
            counts, moments = summary.counts, summary.moments
        elif not one_pass:
            counts, record = self._run("count", count_dataset, dataset, schema)
        if previous is not None:
            counts = counts + previous
            if gaussian:
                class_map = [schema.classes.index(c) for c in self.schema_.classes]
                moments = moments + self.moments_.reindex(class_map, len(schema.classes))
        if gaussian:
            self.moments_ = moments
        self.gaussian_features_ = gaussian
        self.schema_, self.counts_, self.reduction_ = schema, counts, record
        check_class_weights(self.class_weights())
        self.n_partitions_ = record.n_leaves
        self._set_input_features(n_features=len(dataset.columns),
                                 feature_names=input_feature_names(X, dataset.columns))
        if dataset.target is not None:
            self.target_column_ = dataset.target
        self._derive()
        self._warn_ignored()
        return self

    def _gaussian_columns(self, dataset):
        """The numeric columns modelled as Gaussian, in input order."""
        if isinstance(self.numeric, str):
            return [c for c, kind in zip(dataset.columns, dataset.kinds) if kind == NUMERIC and self.numeric == GAUSSIAN]
        chosen = {}
        for key, how in self.numeric.items():
            if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= key < len(dataset.columns):
                key = dataset.columns[key]
            if key not in dataset.columns:
                raise ValueError(f"numeric names column {key!r}, which is not in the data {list(dataset.columns)}")
            if how not in (BINNED, GAUSSIAN):
                raise ValueError(f"numeric[{key!r}] must be {BINNED!r} or {GAUSSIAN!r}, got {how!r}")
            if dataset.kinds[dataset.columns.index(key)] != NUMERIC:
                raise ValueError(f"numeric names column {key!r}, which is categorical: only numeric columns can "
                                 "be binned or Gaussian")
            chosen[key] = how
        return [c for c in dataset.columns if chosen.get(c) == GAUSSIAN]

    def class_weights(self):
        """N_k: the weight per class of the training cases the model uses (a case
        whose every attribute is missing is left out, as in the SPSS document)."""
        if self.gaussian_features_:
            return self.counts_.class_totals - self.moments_.all_missing
        return self.counts_.class_counts

    def _fixed_ranges(self, schema):
        """The schema with ``numeric_ranges`` applied; warns where the data reach beyond them."""
        ranges = dict(self.numeric_ranges or {})
        numeric = {at.name for at in schema.attributes if at.kind != CATEGORICAL}
        unknown = sorted(set(ranges) - numeric)
        if unknown:
            raise ValueError(f"numeric_ranges names {unknown}, which are not numeric columns; "
                             f"numeric columns are {sorted(numeric)}")
        fixed = []
        for at in schema.attributes:
            if at.name in ranges:
                lo, hi = (float(v) for v in ranges[at.name])
                fixed.append(replace(at, lo=lo, hi=hi))
            else:
                fixed.append(at)
        fixed_schema = Schema(fixed, schema.columns, schema.classes)
        _warn_out_of_range(fixed_schema, schema)
        return fixed_schema

    def ignored_reasons(self):
        """Why each ignored attribute is ignored, ``{name: reason}`` in schema order."""
        check_is_fitted(self, "counts_")
        reasons = {}
        for a, at in enumerate(self.schema_.attributes):
            if at.name not in self.ignored_attributes_:
                continue
            seen = np.flatnonzero(self.counts_.attribute(a).sum(axis=1) > 0)
            if not len(seen):
                reasons[at.name] = "no observed value (every value missing)"
            elif at.kind == CATEGORICAL:
                reasons[at.name] = f"a single observed category ({at.categories[seen[0]]!r})"
            elif at.lo == at.hi:
                reasons[at.name] = f"constant (every observed value is {at.lo:g})"
            else:
                reasons[at.name] = "every observed value falls in one bin"
        for g, name in enumerate(self.gaussian_features_):
            if name in self.ignored_attributes_:
                reasons[name] = "no observed value (every value missing)"
        return reasons

    def _warn_ignored(self):
        """Warn when fitting ignored every attribute, or more than half of them, naming the causes."""
        reasons = self.ignored_reasons()
        n = self.n_features_in_
        if len(reasons) <= n / 2:
            return
        causes = "; ".join(f"{name!r}: {why}" for name, why in list(reasons.items())[:5])
        more = f"; and {len(reasons) - 5} more" if len(reasons) > 5 else ""
        head = ("every attribute is ignored, so the model predicts from the class prior alone"
                if len(reasons) == n else f"{len(reasons)} of {n} attributes are ignored")
        warnings.warn(f"{head} ({causes}{more})", UserWarning, stacklevel=4)

    @classmethod
    def from_counts(cls, counts, schema, *, n_features_in, feature_names_in=None, gaussian=None, **params):
        """A fitted model derived from a merged count table and its (counted) schema, and
        ``gaussian = (columns, moments)`` (:class:`GaussianMoments`) for Gaussian attributes."""
        model = cls(**params)
        model._check_params()
        model.schema_, model.counts_, model.gaussian_features_ = schema, counts, []
        if gaussian is not None:
            model.gaussian_features_, model.moments_ = list(gaussian[0]), gaussian[1]
        model._set_input_features(n_features=n_features_in, feature_names=feature_names_in)
        model._derive()
        return model

    def _extend_schema(self, new, columns):
        """Union of the fitted schema and a new piece's, and the fitted counts remapped to it.

        The model itself is left untouched, so a pass that fails afterwards
        changes nothing.
        """
        old = self.schema_
        if len(columns) != len(old.columns):
            raise ValueError(f"X has {len(columns)} features, but {type(self).__name__} is expecting "
                             f"{len(old.columns)} features as input")
        if list(columns) != old.columns:
            raise ValueError(f"partial_fit got columns {list(columns)}, but the model was fitted on {old.columns}")
        attributes, row_maps, sizes = [], [], []
        new_by_name = {at.name: at for at in new.attributes}
        for at in old.attributes:
            if at.kind == CATEGORICAL:
                cats = sort_values(set(at.categories) | set(new_by_name[at.name].categories))
                index = {c: i for i, c in enumerate(cats)}
                row_maps.append([index[c] for c in at.categories])
                at = type(at)(at.name, CATEGORICAL, categories=cats)
            else:
                row_maps.append(list(range(at.n_bins)))
            attributes.append(at)
            sizes.append(at.n_values)
        classes = sort_values(set(old.classes) | set(new.classes))
        schema = Schema(attributes, old.columns, classes)
        if schema.to_dict() == old.to_dict():
            return schema, self.counts_
        class_map = [classes.index(c) for c in old.classes]
        return schema, self.counts_.reindex(row_maps, sizes, class_map, len(classes))

    # ---------------------------------------------------- probabilities

    def _derive(self):
        """Smoothed log-probabilities from the counts (never merged)."""
        counts, schema = self.counts_, self.schema_
        self.classes_ = np.asarray(schema.classes)
        kinds = {at.name: at.kind for at in schema.attributes}
        self.feature_kinds_ = {c: GAUSSIAN if c in self.gaussian_features_ else kinds[c] for c in schema.columns}
        self.n_missing_target_ = counts.n_missing_target
        N_k = self.class_weights()
        N = N_k.sum()
        lam = 1.0 / N if self.class_alpha == AUTO_SMOOTHING else float(self.class_alpha)
        f = 1.0 / N if self.alpha == AUTO_SMOOTHING else float(self.alpha)
        present = N_k > 0  # empty classes are removed from the calculations
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.where(
                present, np.log(N_k + lam) - np.log(N + present.sum() * lam), -np.inf
            )
        self.feature_log_prob_, self.ignored_attributes_, self.bin_edges_ = [], [], {}
        for a, at in enumerate(schema.attributes):
            cells = counts.attribute(a)
            seen = cells.sum(axis=1) > 0
            if at.kind != CATEGORICAL:
                kept, edges = merged_bins(cells.sum(axis=1), at.edges())
                self.bin_edges_[at.name] = edges
                cells, seen = cells[kept], np.ones(len(kept), dtype=bool)
            M = int(seen.sum())
            logp = np.zeros(cells.shape)
            if M <= 1:
                self.ignored_attributes_.append(at.name)
            else:
                denom = cells[seen].sum(axis=0) + M * f
                logp[seen] = np.log(cells[seen] + f) - np.log(denom)
            self.feature_log_prob_.append(logp)
        if self.gaussian_features_:
            self.theta_, self.var_, self.epsilon_ = gaussian_parameters(self.moments_, self.var_smoothing)
            unseen = self.moments_.n.sum(axis=0) <= 0
            self.ignored_attributes_ += [c for c, u in zip(self.gaussian_features_, unseen) if u]
            self._gaussian_positions = [schema.columns.index(c) for c in self.gaussian_features_]
        self.log_probabilities_ = self._log_probabilities_by_column()
        self._log_table = np.vstack([np.zeros((0, len(N_k)))] + [np.vstack([np.zeros((1, len(N_k))), p])
                                                                 for p in self.feature_log_prob_])
        sizes = [len(p) + 1 for p in self.feature_log_prob_]
        self._log_offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._tie_order = np.argsort(-self.class_log_prior_, kind="stable")

    def _log_probabilities_by_column(self):
        """``{input column: DataFrame}`` in input order: log P(value | class) with value labels
        (categories, or bin intervals ``(lo, hi]`` after empty-bin elimination) as the index and
        the classes as columns; a Gaussian column has the rows ``theta`` and ``var`` instead."""
        by_name = {}
        for at, logp in zip(self.schema_.attributes, self.feature_log_prob_):
            if at.kind == CATEGORICAL:
                labels = [str(c) for c in at.categories]
            else:
                bounds = [-np.inf, *self.bin_edges_[at.name], np.inf]
                labels = [f"({lo:g}, {hi:g}]" for lo, hi in zip(bounds[:-1], bounds[1:])][:len(logp)]
            by_name[at.name] = pd.DataFrame(logp, index=labels, columns=self.classes_)
        for g, name in enumerate(self.gaussian_features_):
            by_name[name] = pd.DataFrame([self.theta_[:, g], self.var_[:, g]], index=["theta", "var"],
                                         columns=self.classes_)
        return {c: by_name[c] for c in self.schema_.columns}

    def plot_evidence(self, max_attributes=8, path=None):
        """The model as a figure: see :func:`nbparallel.report.plot_evidence`."""
        from ..report import plot_evidence

        return plot_evidence(self, max_attributes=max_attributes, path=path)

    @property
    def log_odds_weights_(self):
        """Elkan's eq. 2 weights w_jj' = log P(a_jj'|C=1) - log P(a_jj'|C=0), per attribute."""
        self._check_binary()
        return [p[:, 1] - p[:, 0] for p in self.feature_log_prob_]

    @property
    def log_odds_bias_(self):
        """Elkan's eq. 2 bias b = log P(C=1) - log P(C=0)."""
        self._check_binary()
        return float(self.class_log_prior_[1] - self.class_log_prior_[0])

    def _check_binary(self):
        check_is_fitted(self, "counts_")
        if len(self.classes_) != 2:
            raise AttributeError(f"log-odds weights exist for two classes; this model has {len(self.classes_)}")

    # --------------------------------------------------------- scoring pieces

    def encode(self, X):
        """A partition's attributes as codes under the final bins (schema order; 0 = missing or unseen)."""
        return self.encode_split(*self.schema_.split(X))

    def encode_split(self, codes, values):
        """Codes of a partition already split by :meth:`nbparallel.data.Schema.split`, under the final bins."""
        schema = self.schema_
        numeric = [at.name for at in schema.attributes[schema.n_categorical :]]
        return all_codes(codes, values, [self.bin_edges_[n] for n in numeric])

    def joint_log_likelihood_of_codes(self, codes):
        """log P(x, c) of rows given as codes under the final bins (see :meth:`encode`)."""
        return joint_log_likelihood(codes, self._log_table, self._log_offsets, self.class_log_prior_)

    def best_classes(self, jll):
        """Index of the class with the largest joint log-likelihood; ties go to the larger prior."""
        return best_classes(jll, self._tie_order)

    def _joint_log_likelihood_part(self, X):
        jll = self.joint_log_likelihood_of_codes(self.encode(X))
        if self.gaussian_features_:
            jll += gaussian_log_likelihood(gaussian_values(X, self._gaussian_positions), self.theta_, self.var_)
        return jll

    def _best_classes(self, jll):
        return self.best_classes(jll)

    def _encode_targets(self, y):
        return self.schema_.encode_classes(y)

    # ------------------------------------------------------------- files

    def _to_dict(self):
        return {
            "schema": input_schema(self.schema_, self.gaussian_features_, self.n_bins).to_dict(),
            "counts": self.counts_.to_dict(),
            "gaussian": None if not self.gaussian_features_ else {
                "columns": list(self.gaussian_features_), "moments": self.moments_.to_dict()},
            "reduction": self.reduction_.to_dict(),
            "n_features_in": self.n_features_in_,
            "feature_names_in": None if not hasattr(self, "feature_names_in_") else list(self.feature_names_in_),
            "target_column": getattr(self, "target_column_", None),
        }

    def _from_dict(self, d):
        self._check_params()
        d = {"gaussian": None, **d}  # files written before Gaussian attributes have no "gaussian"
        validate.keys(d, "fitted", ("schema", "counts", "gaussian", "reduction", "n_features_in",
                                    "feature_names_in", "target_column"))
        full = validate.schema(d["schema"])
        self.gaussian_features_ = _read_gaussian_columns(d["gaussian"], full)
        self.schema_ = counted_schema(full, self.gaussian_features_)
        check_classes(self.schema_.classes)
        self.counts_ = validate.count_table(d["counts"], self.schema_, len(self.schema_.classes))
        if self.gaussian_features_:
            self.moments_ = GaussianMoments.from_dict(d["gaussian"]["moments"])
            if self.moments_.n.shape != (len(self.schema_.classes), len(self.gaussian_features_)):
                raise ValueError("gaussian.moments do not match the classes and Gaussian columns")
        check_class_weights(self.class_weights())
        self.reduction_ = validate.tree_record(d["reduction"])
        self.n_partitions_ = self.reduction_.n_leaves
        n_features, names, target = validate.feature_names(d, self.schema_)
        self._set_input_features(n_features=n_features, feature_names=names)
        if target is not None:
            self.target_column_ = target
        self.passes_ = []
        self._derive()


def counted_schema(schema, gaussian):
    """The schema of the counted attributes: ``schema`` without the Gaussian columns' attributes.

    Its ``columns`` are still every input column, so it encodes a partition's
    counted attributes by name.
    """
    if not gaussian:
        return schema
    return Schema([at for at in schema.attributes if at.name not in gaussian], schema.columns, schema.classes)


def input_schema(schema, gaussian, n_bins):
    """The schema of every input column (a model file's): the counted attributes and the Gaussian ones."""
    if not gaussian:
        return schema
    gaussian_attributes = [Attribute(c, NUMERIC, lo=np.nan, hi=np.nan, n_bins=n_bins) for c in gaussian]
    attributes = sorted(schema.attributes + gaussian_attributes, key=lambda at: at.kind != CATEGORICAL)
    return Schema(attributes, schema.columns, schema.classes)


def _read_gaussian_columns(d, schema):
    """The Gaussian columns of a model file's ``gaussian`` entry, checked against its schema."""
    if d is None:
        return []
    validate.keys(d, "gaussian", ("columns", "moments"))
    numeric = [at.name for at in schema.attributes if at.kind == NUMERIC]
    columns = d["columns"]
    if not isinstance(columns, list) or not columns or not set(columns) <= set(numeric):
        raise ValueError(f"gaussian.columns must be a non-empty list of numeric columns, got {columns!r}")
    return [c for c in schema.columns if c in columns]


def _check_ranges(ranges):
    """Raise unless ``ranges`` is None or ``{column name: (lo, hi)}`` with finite lo < hi."""
    if ranges is None:
        return
    if not isinstance(ranges, dict):
        raise TypeError(f"numeric_ranges must be a dict {{column: (lo, hi)}} or None, got {ranges!r}")
    for name, bounds in ranges.items():
        ok = isinstance(name, str) and isinstance(bounds, (tuple, list)) and len(bounds) == 2 and all(
            isinstance(b, (int, float, np.integer, np.floating)) and not isinstance(b, bool) and np.isfinite(b)
            for b in bounds)
        if not ok or not bounds[0] < bounds[1]:
            raise ValueError(f"numeric_ranges[{name!r}] must be (lo, hi) with finite lo < hi, got {bounds!r}")


def _warn_out_of_range(fixed, seen):
    """Warn for each numeric attribute whose values in ``seen`` (a batch's schema) leave ``fixed``'s range."""
    seen_by_name = {at.name: at for at in seen.attributes if at.kind != CATEGORICAL}
    for at in fixed.attributes:
        batch = seen_by_name.get(at.name)
        if at.kind == CATEGORICAL or batch is None or batch.lo is None or np.isnan(batch.lo) or np.isnan(at.lo):
            continue
        if batch.lo < at.lo or batch.hi > at.hi:
            warnings.warn(
                f"column {at.name!r} has values in [{batch.lo:g}, {batch.hi:g}], outside the fixed bin range "
                f"[{at.lo:g}, {at.hi:g}]: they are counted in the end bins. Give numeric_ranges={{{at.name!r}: "
                f"(lo, hi)}} to cover the whole data", UserWarning, stacklevel=4)


def _reject_sparse(X):
    if hasattr(X, "tocsr") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError("sparse input is not supported: pass a dense array or a DataFrame")
    if isinstance(X, pd.DataFrame) and any(isinstance(d, pd.SparseDtype) for d in X.dtypes):
        raise TypeError("sparse DataFrame columns are not supported: densify them first")

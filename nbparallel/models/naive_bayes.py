"""The naive Bayes classifier of Elkan and of the SPSS algorithm document."""

from __future__ import annotations

import time
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .. import engine, io, limits, validate
from ..counting import count_dataset
from ..data import CATEGORICAL, Schema, all_codes, as_dataset, scan_schema, sort_values
from ..kernels import best_classes, joint_log_likelihood
from .base import NBParallelMixin

AUTO_SMOOTHING = "1/N"


def _check_smoothing(value, name):
    if isinstance(value, str):
        if value != AUTO_SMOOTHING:
            raise ValueError(f"{name} must be a positive number or '{AUTO_SMOOTHING}', got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not 0 < value < np.inf:
        raise ValueError(f"{name} must be a positive finite number or '{AUTO_SMOOTHING}', got {value!r}")
    return float(value)


def check_classes(classes):
    """Raise ValueError unless there are at least two classes to tell apart."""
    if len(classes) < 2:
        raise ValueError(f"y has 1 class {list(classes)}: at least two classes are needed")


def check_counts(counts):
    """Raise ValueError when no case has both a known target and a known attribute value."""
    if counts.class_counts.sum() <= 0:
        raise ValueError("no training case has both a known target and a known attribute value (all weights zero?)")


def merged_bins(counts, edges):
    """SPSS empty-bin elimination: the non-empty bins and their new inner edges.

    Each run of empty bins between two non-empty ones is removed and a single
    boundary is set at the middle of the gap; training counts are unchanged.

    >>> merged_bins(np.array([3., 0., 0., 2.]), np.array([1., 2., 3.]))
    (array([0, 3]), array([2.]))
    """
    kept = np.flatnonzero(counts > 0)
    # bin b covers (edges[b-1], edges[b]]; the gap between kept bins a < b is (edges[a], edges[b-1]]
    new_edges = np.array([(edges[a] + edges[b - 1]) / 2 for a, b in zip(kept[:-1], kept[1:])])
    return kept, new_edges


@io.register
class NaiveBayes(NBParallelMixin, ClassifierMixin, BaseEstimator):
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
    n_partitions : int or None, default None
        Partitions of in-memory data (None: one per worker or core, none
        smaller than 65536 rows); Dask collections and files keep their own
        unless this is given. It never changes the model.
    split_every : int >= 2 or False, default 2
        Fan-in of the reduction tree; False merges all partitions at once.
    verbose : int, default 0
        1 shows a progress bar for each pass.
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
        Inner bin edges of each numeric attribute after empty-bin elimination.
    """

    def __init__(self, *, alpha=AUTO_SMOOTHING, class_alpha=AUTO_SMOOTHING, n_bins=10,
                 categorical_features="auto", n_partitions=None, split_every=2, verbose=0, numeric_ranges=None):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.n_bins = n_bins
        self.categorical_features = categorical_features
        self.n_partitions = n_partitions
        self.split_every = split_every
        self.verbose = verbose
        self.numeric_ranges = numeric_ranges

    # ------------------------------------------------------------ fitting

    def _check_params(self):
        _check_smoothing(self.alpha, "alpha")
        _check_smoothing(self.class_alpha, "class_alpha")
        if isinstance(self.n_bins, bool) or not isinstance(self.n_bins, (int, np.integer)) \
                or not 2 <= self.n_bins <= validate.MAX_BINS:
            raise ValueError(f"n_bins must be an int in [2, {validate.MAX_BINS}], got {self.n_bins!r}")
        _check_ranges(self.numeric_ranges)

    def _dataset(self, X, y, sample_weight=None, require_target=True):
        _reject_sparse(X)
        return as_dataset(
            X, y, sample_weight,
            n_partitions=self.n_partitions,
            categorical_features=self.categorical_features,
            require_target=require_target,
        )

    def _run(self, kind, fn, *args, **kwargs):
        """Run one pass, returning what ``fn`` returns (its tree record last), and record it."""
        start = time.perf_counter()
        out = fn(*args, split_every=self.split_every, verbose=bool(self.verbose), **kwargs)
        self.passes_.append({"kind": kind, "tree": out[-1], "seconds": time.perf_counter() - start})
        return out

    def fit(self, X, y=None, sample_weight=None):
        """Fit from the data: one schema pass, then one counting pass.

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
        for attr in ("schema_", "counts_"):
            self.__dict__.pop(attr, None)
        return self._fit_counts(self._dataset(X, y, sample_weight), classes=None)

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
        return self._fit_counts(self._dataset(X, y, sample_weight), classes=classes)

    def _fit_counts(self, dataset, classes):
        self.passes_ = []
        schema, scan, _ = self._run("schema", scan_schema, dataset, n_bins=self.n_bins,
                                    classes=None if classes is None else sort_values(set(classes)))
        previous = None  # the fitted counts, in the layout of the (possibly grown) schema
        if hasattr(self, "schema_"):
            _warn_out_of_range(self.schema_, schema)
            schema, previous = self._extend_schema(schema, dataset.columns)
        else:
            if classes is not None and not set(scan.classes) <= set(schema.classes):
                raise ValueError(f"y holds classes {sorted(set(scan.classes) - set(schema.classes))} "
                                 f"not in `classes`")
            schema = self._fixed_ranges(schema)
        check_classes(schema.classes)
        limits.check_memory(limits.table_bytes(schema.offsets[-1], len(schema.classes), len(dataset.partitions)),
                            f"the count tables of {len(schema.classes)} classes x {schema.offsets[-1]} values",
                            "use fewer bins (n_bins) or fewer categorical values")
        counts, record = self._run("count", count_dataset, dataset, schema)
        if previous is not None:
            counts = counts.merge(previous)
        check_counts(counts)
        self.schema_, self.counts_, self.reduction_ = schema, counts, record
        self.n_partitions_ = record.n_leaves
        self._set_feature_names(dataset)
        self._derive()
        self._warn_ignored()
        return self

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
        return reasons

    def _warn_ignored(self):
        """Warn when fitting ignored every attribute, or more than half of them, naming the causes."""
        reasons = self.ignored_reasons()
        n = len(self.schema_.attributes)
        if len(reasons) <= n / 2:
            return
        causes = "; ".join(f"{name!r}: {why}" for name, why in list(reasons.items())[:5])
        more = f"; and {len(reasons) - 5} more" if len(reasons) > 5 else ""
        head = ("every attribute is ignored, so the model predicts from the class prior alone"
                if len(reasons) == n else f"{len(reasons)} of {n} attributes are ignored")
        warnings.warn(f"{head} ({causes}{more})", UserWarning, stacklevel=4)

    @classmethod
    def from_counts(cls, counts, schema, *, n_features_in, feature_names_in=None, **params):
        """A fitted model derived from a merged count table and its schema."""
        model = cls(**params)
        model._check_params()
        model.schema_, model.counts_ = schema, counts
        model.n_features_in_ = n_features_in
        if feature_names_in is not None:
            model.feature_names_in_ = feature_names_in
        model._derive()
        return model

    def _set_feature_names(self, dataset):
        self.n_features_in_ = len(dataset.columns)
        if dataset.target is not None:
            self.target_column_ = dataset.target
        if dataset.target is not None or not all(c == str(i) for i, c in enumerate(dataset.columns)):
            self.feature_names_in_ = np.asarray(dataset.columns, dtype=object)

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
        self.feature_kinds_ = schema.feature_kinds
        self.n_missing_target_ = counts.n_missing_target
        N_k = counts.class_counts
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
        self._log_table = np.vstack([np.vstack([np.zeros((1, len(N_k))), p]) for p in self.feature_log_prob_])
        sizes = [len(p) + 1 for p in self.feature_log_prob_]
        self._log_offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._tie_order = np.argsort(-self.class_log_prior_, kind="stable")

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

    # --------------------------------------------------------- prediction

    def _encode_for_prediction(self, X):
        """All attributes as codes under the final bins; unseen categories are missing."""
        return self._final_codes(*self.schema_.split(X))

    def _final_codes(self, codes, values):
        """Categorical codes and numeric values (a split partition) as codes under the final bins."""
        schema = self.schema_
        numeric = [at.name for at in schema.attributes[schema.n_categorical :]]
        return all_codes(codes, values, [self.bin_edges_[n] for n in numeric])

    def _jll_of_codes(self, codes):
        """log P(x, c) of rows given as codes under the final bins."""
        return joint_log_likelihood(codes, self._log_table, self._log_offsets, self.class_log_prior_)

    def _jll_rows(self, X):
        return self._jll_of_codes(self._encode_for_prediction(X))

    def _class_indices(self, jll):
        """Index of the class with the largest joint log-likelihood; ties go to the larger prior."""
        return best_classes(jll, self._tie_order)

    def _prediction_dataset(self, X):
        check_is_fitted(self, "counts_")
        dataset = self._dataset(X, None, require_target=False)
        if len(dataset.columns) != self.n_features_in_:
            raise ValueError(f"X has {len(dataset.columns)} features, but {type(self).__name__} "
                             f"is expecting {self.n_features_in_} features as input")
        if hasattr(self, "feature_names_in_") and list(dataset.columns) != list(self.feature_names_in_):
            if dataset.target is None and all(c == str(i) for i, c in enumerate(dataset.columns)):
                return dataset
            raise ValueError(f"X has columns {list(dataset.columns)}; the model was fitted on "
                             f"{list(self.feature_names_in_)}")
        return dataset

    def _joint_log_likelihood(self, X):
        dataset = self._prediction_dataset(X)
        if hasattr(X, "shape") and isinstance(X.shape[0], int):
            limits.check_memory(limits.CELL_BYTES * X.shape[0] * len(self.classes_) * 2,
                                f"the probabilities of {X.shape[0]} rows x {len(self.classes_)} classes",
                                "predict the classes only, or predict fewer rows at a time")
        parts = engine.map_partitions(
            dataset.partitions, dataset.map(_jll_of, self), name="nbparallel-jll", token=dataset.token,
            verbose=bool(self.verbose),
        )
        return np.vstack(parts)

    def predict_joint_log_proba(self, X):
        """log P(x, c) for every row and class."""
        return self._joint_log_likelihood(X)

    def predict(self, X):
        """The class with the largest posterior; ties go to the larger prior."""
        dataset = self._prediction_dataset(X)
        parts = engine.map_partitions(dataset.partitions, dataset.map(_predict_of, self), name="nbparallel-predict",
                                      token=dataset.token, verbose=bool(self.verbose))
        return self.classes_[np.concatenate(parts)]

    def _predict_from_jll(self, jll):
        return self.classes_[self._class_indices(jll)]

    def predict_log_proba(self, X):
        """Normalised log-posteriors, computed in log space."""
        return _normalise(self._joint_log_likelihood(X))

    def predict_proba(self, X):
        """Posterior probabilities; rows sum to one."""
        return np.exp(self.predict_log_proba(X))

    def _predict_part(self, X, proba=False):
        """Labels, and posteriors when ``proba``, of one in-memory partition's attribute columns."""
        labels = self.classes_[_predict_of(self, X, None, None)]
        return labels, (np.exp(_normalise(self._jll_rows(X))) if proba else None)

    def evaluate(self, X, y=None):
        """Accuracy, confusion matrix and average log-likelihood in one pass.

        Rows with a missing target are left out. The average log-likelihood is
        the SPSS mean of log P(y_i | x_i).

        Returns
        -------
        dict with ``accuracy``, ``classification_error`` (the SPSS
        misclassification ratio, 1 - accuracy), ``confusion_matrix`` (rows:
        true class, columns: predicted), per-class ``precision``, ``recall``
        and ``f1`` (0 where undefined), ``average_log_likelihood`` and ``n_rows``.
        """
        check_is_fitted(self, "counts_")
        dataset = self._dataset(X, y)
        summary, _ = engine.run_pass(dataset.partitions, dataset.map(_evaluate_partition, self), _add_evaluations,
                                     split_every=self.split_every, name="nbparallel-evaluate",
                                     token=dataset.token, verbose=bool(self.verbose))
        confusion, loglik, n = summary
        return {
            "accuracy": float(np.trace(confusion) / n) if n else float("nan"),
            "classification_error": float(1 - np.trace(confusion) / n) if n else float("nan"),
            "confusion_matrix": confusion,
            **per_class_scores(confusion),
            "average_log_likelihood": float(loglik / n) if n else float("nan"),
            "n_rows": int(n),
        }

    def average_log_likelihood(self, X, y=None):
        """The SPSS average (conditional) log-likelihood of the data."""
        return self.evaluate(X, y)["average_log_likelihood"]

    # ------------------------------------------------------------- files

    def _to_dict(self):
        return {
            "schema": self.schema_.to_dict(),
            "counts": self.counts_.to_dict(),
            "reduction": self.reduction_.to_dict(),
            "n_features_in": self.n_features_in_,
            "feature_names_in": None if not hasattr(self, "feature_names_in_") else list(self.feature_names_in_),
            "target_column": getattr(self, "target_column_", None),
        }

    def _from_dict(self, d):
        self._check_params()
        validate.keys(d, "fitted", ("schema", "counts", "reduction", "n_features_in", "feature_names_in",
                                    "target_column"))
        self.schema_ = validate.schema(d["schema"])
        check_classes(self.schema_.classes)
        self.counts_ = validate.count_table(d["counts"], self.schema_, len(self.schema_.classes))
        check_counts(self.counts_)
        self.reduction_ = validate.tree_record(d["reduction"])
        self.n_partitions_ = self.reduction_.n_leaves
        self.n_features_in_, names, target = validate.feature_names(d, self.schema_)
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        if target is not None:
            self.target_column_ = target
        self.passes_ = []
        self._derive()


def _jll_of(model, X, y, w):
    return model._jll_rows(X)


def _predict_of(model, X, y, w):
    """Class indices of a partition's rows, computed in row chunks of bounded (row x class) size."""
    codes = model._encode_for_prediction(X)
    step = max(1, limits.PREDICT_CHUNK_CELLS // len(model.classes_))
    return np.concatenate([np.zeros(0, dtype=np.int64)] + [
        model._class_indices(model._jll_of_codes(codes[start:start + step]))
        for start in range(0, len(codes), step)])


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


def _evaluate_partition(model, X, y, w):
    """Confusion counts and summed log P(y|x) of one partition."""
    k = len(model.classes_)
    truth = model.schema_.encode_classes(y)
    known = truth >= 0
    jll = model._jll_rows(X)[known]
    truth = truth[known]
    predicted = model._class_indices(jll)
    confusion = np.zeros((k, k), dtype=np.int64)
    np.add.at(confusion, (truth, predicted), 1)
    loglik = _normalise(jll)[np.arange(len(truth)), truth].sum()
    return confusion, float(loglik), int(known.sum())


def per_class_scores(confusion):
    """Per-class precision, recall and F1 from a confusion matrix (rows true, columns predicted); 0 where undefined.

    >>> per_class_scores(np.array([[3, 1], [0, 4]]))["recall"].tolist()
    [0.75, 1.0]
    """
    hits = np.diag(confusion).astype(np.float64)
    predicted, actual = confusion.sum(axis=0), confusion.sum(axis=1)
    precision = np.divide(hits, predicted, out=np.zeros_like(hits), where=predicted > 0)
    recall = np.divide(hits, actual, out=np.zeros_like(hits), where=actual > 0)
    both = precision + recall
    f1 = np.divide(2 * precision * recall, both, out=np.zeros_like(hits), where=both > 0)
    return {"precision": precision, "recall": recall, "f1": f1}


def _add_evaluations(*parts):
    confusion = sum(p[0] for p in parts)
    return confusion, sum(p[1] for p in parts), sum(p[2] for p in parts)


def _normalise(jll):
    top = np.max(jll, axis=1, keepdims=True)
    return jll - (top + np.log(np.sum(np.exp(jll - top), axis=1, keepdims=True)))


def _reject_sparse(X):
    if hasattr(X, "tocsr") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError("sparse input is not supported: pass a dense array or a DataFrame")
    if isinstance(X, pd.DataFrame) and any(isinstance(d, pd.SparseDtype) for d in X.dtypes):
        raise TypeError("sparse DataFrame columns are not supported: densify them first")

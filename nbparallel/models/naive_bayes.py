"""The naive Bayes classifier of Elkan and of the SPSS algorithm document."""

from __future__ import annotations

from dataclasses import replace as replace_fields
from functools import cached_property

import numpy as np
import pandas as pd

from nbparallel.data.columns import BINNED, CATEGORICAL, GAUSSIAN, NUMERIC
from nbparallel.data.encoding import MAX_CATEGORIES, integer_vocabulary
from nbparallel.data.inputs import as_dataset, is_sparse_matrix
from nbparallel.data.partitions import input_feature_names
from nbparallel.data.user_warnings import warn
from nbparallel.data.schema import CountedSplit, Schema
from nbparallel.data.vocabularies import class_array, sort_values
from nbparallel.kernels.scoring import JOINT, prepare_table
from nbparallel.models import attribute_kinds
from nbparallel.models.base import PartitionedClassifier, ScoringInputs
from nbparallel.models.counting_model import Counted, CountingClassifier
from nbparallel.models.discretisation import FINE_BINS, MDL
from nbparallel.models.estimator import check_is_fitted
from nbparallel.models.params import BOOLEAN, Interval, Options
from nbparallel.models.plan import (
    CountingPlan,
    check_classes,
    check_ranges,
    warn_out_of_range,
)
from nbparallel.persistence import validate
from nbparallel.summaries.counts import CountTable
from nbparallel.summaries.moments import CountsAndMoments, GaussianMoments, gaussian_columns

AUTO_SMOOTHING = "1/N"

#: the smallest ``alpha`` used when ``force_alpha`` is False (scikit-learn's bound)
ALPHA_LOWER_BOUND = 1e-10

#: ``integer_categories``: the integers seen, or every integer from 0 to the largest seen (CategoricalNB's)
OBSERVED, RANGE = "observed", "range"


def check_class_weights(class_weights):
    """Raise ValueError when no case has both a known target and a known attribute value."""
    if class_weights.sum() <= 0:
        raise ValueError("no training case has both a known target and a known attribute value (all weights zero?)")


class NaiveBayes(CountingClassifier):
    """Naive Bayes by counting, in parallel, with a binary-tree reduction.

    Categorical attributes are counted per value and class; numeric attributes
    are cut into ``n_bins`` equal-width bins (from a min/max pass, right-closed,
    empty bins eliminated as in the SPSS algorithm) inside the counting pass,
    or, with ``n_bins="mdl"``, into Fayyad and Irani's supervised MDL intervals.
    Probabilities follow the SPSS document:
    ``pi_k = (N_k + lambda) / (N + K lambda)`` and
    ``p_mk = (N_mk + f) / (sum_l N_lk + M f)``.

    ``fit`` takes one schema pass, then one counting pass; one pass when the
    rows are unweighted and every attribute is categorical or a binned
    integer column (see :mod:`nbparallel.summaries.dictionary_counts`).
    ``partial_fit`` adds the counts of more data. Its first call fixes the
    numeric bins' ranges to its data's min and max, or to ``numeric_ranges``
    where given; a later batch's values beyond them fall into the end bins
    and raise a warning, so give ``numeric_ranges`` when the first batch does
    not span the data. Later calls may bring new categories and classes.
    Fitting on the whole data or on pieces gives the same counts when the
    ranges are the same. A batch whose every target is missing adds only its
    rows to ``n_missing_target_``, one whose weights are all zero adds
    nothing, the first batch too when ``classes`` names the classes (needed
    where its labels are not every class); the model scores once some batch
    has brought a case with a known target and a known value.

    Parameters
    ----------
    alpha : float >= 0 or "1/N", default "1/N"
        The cell smoothing f; "1/N" uses one over the number of training cases,
        as the SPSS document recommends; 1.0 is Laplace smoothing
        (scikit-learn's default). See ``force_alpha``.
    class_alpha : float > 0 or "1/N", default "1/N"
        The class-prior smoothing lambda.
    n_bins : int >= 2 or "mdl", default 10
        Equal-width bins per numeric attribute (Elkan's M = 10). "mdl":
        supervised discretisation as Weka's ``NaiveBayes -D`` (Fayyad and
        Irani's recursive entropy cuts with the MDL stopping rule), found on
        the merged per-class histograms of 4096 fine equal-width bins counted
        in the same counting pass (no extra pass); cuts lie between non-empty
        fine bins, so values sharing a fine bin are never cut apart (see
        :mod:`nbparallel.models.discretisation`). An attribute with no
        accepted cut is one interval and ignored, as in Weka.
    categorical_features : "auto", "all" or list, default "auto"
        Which attributes are categorical: "auto" takes non-numeric columns,
        "all" every column, or a list of column names or indices.
    numeric_features : list or None, default None
        Column names or indices that are numeric whatever their dtype (and
        whatever ``categorical_features`` says; a column in both lists is an
        error). Text in them (an object column of ``"3.5"`` strings, a CSV
        column with ``?`` marks) is parsed to float64 when the data is read:
        pandas' missing-value strings and a :class:`~nbparallel.data.files.options.Files`
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
        1 shows each pass on a labelled progress line (``count``, ``score``) on stderr.
    numeric : "binned", "gaussian" or dict, default "binned"
        How numeric attributes are modelled: "binned" counts them in
        ``n_bins`` equal-width bins; "gaussian" fits a normal distribution per
        class (the primer; scikit-learn's ``GaussianNB``), from per-class
        weighted count, mean and M2 summed in the same counting pass. A dict
        ``{column name or index: "binned" or "gaussian"}`` chooses per column
        (columns it leaves out are binned). Categorical columns stay
        categorical. With ``class_alpha`` tiny (say 1e-12) the prior is the
        empirical one and the model is GaussianNB's on all-numeric data.
    class_prior : array-like of shape (n_classes,) or dict, optional
        Fixed class priors, in the order of ``classes_`` or as ``{class:
        prior}`` (classes matched as given or by their text), instead of the
        smoothed training frequencies (positive, summing to 1); the counts
        are unchanged.
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
    fit_prior : bool, default True
        As in scikit-learn: False gives every class the same prior, 1 /
        n_classes (``class_prior``, when given, wins).
    force_alpha : bool, default True
        As in scikit-learn: True uses ``alpha`` as given; False raises an
        ``alpha`` below 1e-10 (or a "1/N" below it) to 1e-10, with a warning.
        ``alpha=0`` needs ``force_alpha=False``: unsmoothed, a category a class
        never had would make that class impossible.
    integer_categories : "observed" or "range", default "observed"
        The categories of an integer-coded categorical column (every value an
        integer): "observed" takes the values seen in training (a value never
        seen adds nothing when scored, as a missing value); "range" takes
        every integer from 0 to the largest seen, as scikit-learn's
        ``CategoricalNB`` does, so an integer within that range never seen
        in training gets the smoothed probability ``f / (N_k + M f)``; a
        negative value is then an error. Other columns keep their observed
        values.
    min_categories : int, array-like of shape (n_features,) or None, default None
        As in ``CategoricalNB``: the integers 0 .. ``min_categories`` - 1 are
        categories of each integer-coded categorical column (an array gives
        one number per input column; it is not read for other columns),
        smoothed whether seen or not.

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted.
    counts_ : nbparallel.summaries.counts.CountTable
        The merged raw counts of the counted attributes (categorical, and
        binned numeric in their equal-width bins, the fine ones for
        ``n_bins="mdl"``), laid out as
        ``schema_.counted()``; per column, :attr:`log_probabilities_` and
        ``counted_fits_`` give them with value labels.
    reduction_ : nbparallel.engine.reduce.TreeRecord
        The tree of the last counting pass.
    passes_ : list of dict
        Every pass run by the last fit: kind, tree record and wall seconds.
    schema_ : nbparallel.data.schema.Schema
        Every attribute with its kind (categorical, binned "numeric" or
        "gaussian"; see :mod:`nbparallel.models.attribute_kinds`), vocabularies, ranges.
    feature_kinds_ : dict
        The kind of every input column, in input order: "categorical",
        "numeric" (binned; under "auto", integer columns are numeric) or
        "gaussian".
    n_missing_target_ : int
        Training rows skipped because their target was missing.
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_log_prob_ : list of ndarray
        Per input column, in input order, log P(value | class) of shape
        (n_values, n_classes), rows labelled as in :attr:`log_probabilities_`
        (categories; bins after empty-bin elimination); an ignored attribute
        is all zeros, a Gaussian column has no rows (shape (0, n_classes)).
    counted_fits_ : list of nbparallel.models.attribute_kinds.CountedFit
        The counted attributes derived, in the order of ``schema_.counted()``
        (the count table's and the scoring codes'): log-probabilities, counts,
        value labels, bin edges, whether ignored.
    target_column_ : str
        The target column's name, when fitted from a DataFrame or file column.
    ignored_attributes_ : list of str
        Attributes with no observed value or a single observed category (or,
        with ``n_bins="mdl"``, no accepted MDL cut); :meth:`ignored_reasons`
        says which.
    bin_edges_ : dict
        Inner bin edges of each binned attribute after empty-bin elimination
        (with ``n_bins="mdl"``, its MDL cuts).
    log_probabilities_ : dict of DataFrame
        The fitted probabilities a user reads, keyed by input column in
        input order: log P(value | class) with value labels (categories, or
        bin intervals "(lo, hi]") as the index and ``classes_`` as columns;
        for a Gaussian column, the rows "theta" and "var".
        (``feature_log_prob_`` and ``log_odds_weights_`` are the same numbers
        as arrays, in input order.)
    gaussian_features_ : list of str
        The Gaussian attributes, in input order (empty when none).
    moments_ : nbparallel.summaries.moments.GaussianMoments
        Their merged per-class weighted count, mean and M2 (only with
        Gaussian attributes), and from them ``theta_`` and ``var_`` (shape
        (n_classes, n_gaussian), columns as ``gaussian_features_``) and
        ``epsilon_``, as in ``GaussianNB``.
    class_count_ : ndarray of shape (n_classes,)
        N_k, the weight per class of the training cases (as scikit-learn's;
        a case whose every attribute is missing is left out).
    category_count_ : list of ndarray
        Per input column, in input order, the training counts in
        ``CategoricalNB``'s layout, shape (n_classes, n_values): its
        categories (or bins after empty-bin elimination), in the order of
        ``feature_log_prob_``'s rows; a Gaussian column has shape
        (n_classes, 0).

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import NaiveBayes
    >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]] * 5)
    >>> y = np.array([0, 1, 1, 0] * 5)
    >>> model = NaiveBayes(n_partitions=2, categorical_features="all").fit(X, y)
    >>> model.predict(X[:4]).tolist()
    [0, 1, 1, 0]
    >>> model.reduction_.height
    1
    """

    #: what its counting pass sums: count tables (with Gaussian attributes, and their moments)
    summary_type = CountTable

    _parameter_constraints = {
        **PartitionedClassifier._parameter_constraints,
        "alpha": [Interval(float, 0, np.inf, "left"), Options((AUTO_SMOOTHING,))],
        "class_alpha": [Interval(float, 0, np.inf, "neither"), Options((AUTO_SMOOTHING,))],
        "n_bins": [Interval(int, 2, validate.MAX_BINS), Options((MDL,))],
        "numeric_ranges": [None, dict],
        "numeric_features": [None, "array-like"],
        "numeric": [Options((BINNED, GAUSSIAN)), dict],
        "var_smoothing": [Interval(float, 0, np.inf, "left")],
        "class_prior": [None, "array-like", dict],
        "fit_prior": [BOOLEAN],
        "force_alpha": [BOOLEAN],
        "integer_categories": [Options((OBSERVED, RANGE))],
        "min_categories": [None, Interval(int, 1, None), "array-like"],
    }

    def __init__(self, *, alpha=AUTO_SMOOTHING, class_alpha=AUTO_SMOOTHING, n_bins=10,
                 categorical_features="auto", n_partitions=None, split_every=2, verbose=0, numeric_ranges=None,
                 numeric=BINNED, var_smoothing=1e-9, numeric_features=None, class_prior=None, fit_prior=True,
                 force_alpha=True, integer_categories=OBSERVED, min_categories=None):
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
        self.class_prior = class_prior
        self.fit_prior = fit_prior
        self.force_alpha = force_alpha
        self.integer_categories = integer_categories
        self.min_categories = min_categories

    # ------------------------------------------------------------ fitting

    def validate_params(self):
        """The declared checks (``categorical_features`` is checked against the columns by the data layer)."""
        super().validate_params()
        check_ranges(self.numeric_ranges)
        if self.alpha == 0 and self.force_alpha:
            raise ValueError("alpha=0 needs force_alpha=False (alpha is then 1e-10): unsmoothed, a category a "
                             "class never had would make that class impossible")

    def dataset(self, X, y=None, sample_weight=None, *, require_target=True, drop=(), features=None):
        """The input as partitions (:class:`nbparallel.data.dataset.Dataset`), with this model's
        partitioning and categorical features; sparse input is refused."""
        _reject_sparse(X)
        return as_dataset(X, y, sample_weight, n_partitions=self.n_partitions,
                          categorical_features=self.categorical_features, require_target=require_target,
                          numeric_features=self.numeric_features, drop=drop, features=features)

    def counting_data(self, X, y, sample_weight, *, classes, batch, fitted):
        """The input as partitions (:meth:`dataset`); a batch after a fit is checked against the fitted
        columns when its schema is grown (:meth:`count`)."""
        return self.dataset(X, y, sample_weight)

    def counting_plan(self, data, *, weighted=False, batch=False):
        """The :class:`~nbparallel.models.plan.CountingPlan` of this model's parameters for ``data``: one pass
        by value where it can (unweighted rows, every attribute categorical or a binned integer column; not
        for a ``partial_fit`` batch, which adds to a fixed layout), else a schema pass then a counting pass."""
        return CountingPlan.for_table(self.get_params(), data, weighted=weighted, by_value=not batch)

    def count(self, plan, data, run_pass, *, classes, batch, fitted):
        """The schema and counts of ``data`` (:meth:`CountingPlan.run`); a batch after a fit is counted in the
        fitted schema, grown by the batch's categories and classes, and the fitted counts laid out anew in it
        are its ``previous``."""
        previous = []

        def extend(schema):  # partial_fit after a fit: the batch counted in the fitted schema, grown
            warn_out_of_range(self.schema_, schema)
            batch_gaussian = _names(schema.by_kind(GAUSSIAN))
            schema, counts = self._extend_schema(schema, data.columns)
            if batch_gaussian != self.gaussian_features_:
                raise ValueError(f"partial_fit got Gaussian columns {batch_gaussian}, but the model was fitted "
                                 f"with {self.gaussian_features_}")
            if batch_gaussian:
                class_map = [schema.classes.index(c) for c in self.schema_.classes]
                counts = CountsAndMoments(counts, self.moments_.reindex(class_map, len(schema.classes)))
            previous.append(counts)
            return schema

        schema, summary, record, _ = plan.run(data, run_pass, classes=classes, batch=batch,
                                              extend=extend if fitted else None)
        return Counted(schema, summary, previous[0] if previous else None, record)

    def keep_summary(self, layout, summary):
        """The merged counts (and, as ``CountsAndMoments``, Gaussian moments) in the schema ``layout``, widened
        to the categories the parameters add (:meth:`_widened`)."""
        counts = summary
        if isinstance(summary, CountsAndMoments):
            counts, self.moments_ = summary.counts, summary.moments
        self.schema_, self.counts_ = self._widened(layout, counts)

    def keep_input_features(self, X, data, *, fitted):
        """The input's columns (and names), and its target column's name when it was given by name."""
        self._set_input_features(n_features=len(data.columns), feature_names=input_feature_names(X, data.columns))
        if data.target_column is not None:
            self.target_column_ = data.target_column

    def check_scorable(self):
        """Raise NotFittedError unless fitted, ValueError while no case has both a known target and a known
        attribute value (``partial_fit`` batches may have added none yet)."""
        super().check_scorable()
        check_class_weights(self.class_weights())

    def class_weights(self):
        """N_k: the weight per class of the training cases the model uses (a case
        whose every attribute is missing is left out, as in the SPSS document)."""
        if self.schema_.by_kind(GAUSSIAN):
            return CountsAndMoments(self.counts_, self.moments_).class_weights
        return self.counts_.class_weights

    def ignored_reasons(self):
        """Why each ignored attribute is ignored, ``{name: reason}`` in input order."""
        check_is_fitted(self, "counts_")
        reasons = {}
        supervised = self.n_bins == MDL
        for a, (at, fit) in enumerate(zip(self.schema_.counted().attributes, self.counted_fits_)):
            if not fit.ignored:
                continue
            seen = np.flatnonzero(fit.counts.sum(axis=1) > 0)
            if not len(seen):
                reasons[at.name] = "no observed value (every value missing)"
            elif at.kind == CATEGORICAL:
                reasons[at.name] = f"a single observed category ({at.categories[seen[0]]!r})"
            elif at.lo == at.hi:
                reasons[at.name] = f"constant (every observed value is {at.lo:g})"
            elif supervised and np.count_nonzero(self.counts_.attribute(a).sum(axis=1)) > 1:
                reasons[at.name] = "no MDL cut (no cut of its values gains enough class information)"
            else:
                reasons[at.name] = "every observed value falls in one bin"
        for j, name in enumerate(self.gaussian_features_):
            if name in self.ignored_attributes_:
                observed = self.moments_.n[:, j].sum() > 0
                value = self.theta_[np.argmax(self.moments_.n[:, j]), j]
                reasons[name] = (f"constant (every observed value is {value:g})" if observed
                                 else "no observed value (every value missing)")
        return {c: reasons[c] for c in self.schema_.columns if c in reasons}

    def _warn_fitted(self):
        """Warn when fitting ignored every attribute, or more than half of them, naming the causes."""
        reasons = self.ignored_reasons()
        n = self.n_features_in_
        if len(reasons) <= n / 2:
            return
        causes = "; ".join(f"{name!r}: {why}" for name, why in list(reasons.items())[:5])
        more = f"; and {len(reasons) - 5} more" if len(reasons) > 5 else ""
        head = ("every attribute is ignored, so the model predicts from the class prior alone"
                if len(reasons) == n else f"{len(reasons)} of {n} attributes are ignored")
        warn(f"{head} ({causes}{more})")

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
        new_by_name = {at.name: at for at in new.attributes}

        def grown(at):  # a categorical attribute's categories and the batch's; None when it brings none
            added = set(new_by_name[at.name].categories) - set(at.categories)
            if not added:
                return None  # the order kept (ARFF's)
            union = set(at.categories) | added
            integers = not at.declared and all(type(v) is int for v in union)
            # integer codes: the run that fit makes of all the values (the batches' runs may leave a gap)
            return integer_vocabulary(union) if integers else sort_values(union)

        attributes, row_maps, sizes = _recategorized(old.attributes, grown)
        classes = sort_values(set(old.classes) | set(new.classes))
        schema = Schema.of(attributes, old.columns, classes)
        if schema.to_dict() == old.to_dict():
            return schema, self.counts_
        class_map = [classes.index(c) for c in old.classes]
        return schema, self.counts_.reindex(row_maps, sizes, class_map, len(classes))

    def _category_spaces(self, schema):
        """``{name: n}`` for each integer-coded categorical attribute whose categories include the integers
        0 .. n-1 whether seen or not (``min_categories`` and ``integer_categories="range"``)."""
        minimum = self.min_categories
        if minimum is None and self.integer_categories == OBSERVED:
            return {}
        if minimum is not None and not isinstance(minimum, int):
            minimum = np.asarray(minimum)
            if minimum.shape != (len(schema.columns),) or minimum.dtype.kind not in "iu":
                raise ValueError(f"min_categories must be an int or one int per input column "
                                 f"({len(schema.columns)}), got {self.min_categories!r}")
        spaces = {}
        for at in schema.attributes:
            if at.kind != CATEGORICAL or not all(type(v) is int for v in at.categories):
                continue
            n = 0 if minimum is None else int(minimum if np.ndim(minimum) == 0
                                              else minimum[schema.position_of(at.name)])
            if self.integer_categories == RANGE and at.categories:
                if at.categories[0] < 0:
                    raise ValueError(f"integer_categories={RANGE!r} takes the categories 0 .. max of column "
                                     f"{at.name!r}, but it holds the negative value {at.categories[0]}")
                n = max(n, at.categories[-1] + 1)
            if n > MAX_CATEGORIES:
                raise ValueError(f"column {at.name!r} would have {n} categories 0 .. {n - 1} "
                                 f"(integer_categories, min_categories); at most {MAX_CATEGORIES}")
            if n:
                spaces[at.name] = n
        return spaces

    def _widened(self, schema, counts):
        """``schema`` with the integers of :meth:`_category_spaces` added to its categories, and ``counts``
        laid out for it (their rows zero)."""
        spaces = self._category_spaces(schema)
        if not spaces:
            return schema, counts
        attributes, row_maps, sizes = _recategorized(
            schema.attributes,
            lambda at: sort_values(set(at.categories) | set(range(spaces[at.name]))) if at.name in spaces else None)
        widened = Schema.of(attributes, schema.columns, schema.classes)
        if widened.to_dict() == schema.to_dict():
            return schema, counts
        return widened, counts.reindex(row_maps, sizes, list(range(len(schema.classes))), len(schema.classes))

    # ---------------------------------------------------- probabilities

    def _derive(self):
        """Smoothed log-probabilities from the summaries (never merged), each attribute by its kind."""
        counts, schema = self.counts_, self.schema_
        self.classes_ = class_array(schema.classes)
        self.feature_kinds_ = schema.feature_kinds
        self.n_missing_target_ = counts.n_missing_target
        N_k = self.class_weights()
        N = N_k.sum()
        per_case = 1.0 / N if N > 0 else 1.0  # "1/N"; nothing counted yet (partial_fit): not scorable anyway
        lam = per_case if self.class_alpha == AUTO_SMOOTHING else float(self.class_alpha)
        f = per_case if self.alpha == AUTO_SMOOTHING else float(self.alpha)
        if f < ALPHA_LOWER_BOUND and not self.force_alpha:
            warn(f"alpha {f:.3g} is below {ALPHA_LOWER_BOUND:.0e} and force_alpha is False: alpha = "
                 f"{ALPHA_LOWER_BOUND:.0e} is used (force_alpha=True keeps it)")
            f = ALPHA_LOWER_BOUND
        present = N_k > 0  # empty classes are removed from the calculations
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.where(
                present, np.log(N_k + lam) - np.log(N + present.sum() * lam), -np.inf
            )
        if self.class_prior is not None:  # fixed priors
            self.class_log_prior_ = fixed_log_prior(self.class_prior, self.classes_)
        elif not self.fit_prior:
            self.class_log_prior_ = np.full(len(self.classes_), -np.log(len(self.classes_)))
        self.class_count_ = N_k
        counted = schema.counted().attributes
        smoothing = attribute_kinds.Smoothing(f, self._category_spaces(schema), self.n_bins == MDL)
        fits = attribute_kinds.derive_counted(counted, [counts.attribute(a) for a in range(len(counted))], smoothing)
        gaussian = schema.by_kind(GAUSSIAN)
        self.gaussian_features_ = _names(gaussian)
        gaussian_fit = attribute_kinds.GaussianNumeric.derive(self.moments_, self.var_smoothing) if gaussian else None
        self._set_fits(fits, gaussian_fit)
        self._tie_order = np.argsort(-self.class_log_prior_, kind="stable")

    def _set_fits(self, counted_fits, gaussian_fit):
        """The fitted attributes a user reads, and the scoring tables, from the derived kinds."""
        schema, n_classes = self.schema_, len(self.classes_)
        self.counted_fits_ = list(counted_fits)
        counted = dict(zip(_names(schema.counted().attributes), self.counted_fits_))
        self.bin_edges_ = {name: fit.edges for name, fit in counted.items() if fit.edges is not None}
        self._gaussian_fit = gaussian_fit
        ignored = {name for name, fit in counted.items() if fit.ignored}
        if gaussian_fit is not None:
            self.theta_, self.var_, self.epsilon_ = gaussian_fit.theta, gaussian_fit.var, gaussian_fit.epsilon
            self._gaussian_positions = [schema.position_of(c) for c in self.gaussian_features_]
            self._gaussian_every_column = self._gaussian_positions == list(range(len(schema.columns)))
            ignored |= {c for c, unseen in zip(self.gaussian_features_, gaussian_fit.ignored) if unseen}
        self.ignored_attributes_ = [c for c in schema.columns if c in ignored]
        self.feature_log_prob_ = [counted[c].log_prob if c in counted else np.zeros((0, n_classes))
                                  for c in schema.columns]
        self.category_count_ = [counted[c].counts.T if c in counted else np.zeros((n_classes, 0))
                                for c in schema.columns]
        for built in ("log_probabilities_", "_counting_bins_table"):  # built again from these fits when asked
            self.__dict__.pop(built, None)
        self._log_table, self._log_offsets = attribute_kinds.Counted.log_table(self.counted_fits_, n_classes)
        binned = [fit for at, fit in zip(schema.counted().attributes, self.counted_fits_) if at.kind == NUMERIC]
        self._final_bins = attribute_kinds.BinnedNumeric.final_bins(binned)
        self._counted_split = CountedSplit(schema.counted())
        self._prepared_table = prepare_table(self._log_table, self._log_offsets, self.class_log_prior_)

    @cached_property
    def log_probabilities_(self):
        """See the class docstring; built on first access (a DataFrame per column cost more than a small fit)."""
        if "counts_" not in vars(self):
            raise AttributeError("log_probabilities_ is set by fit")
        counted = zip(_names(self.schema_.counted().attributes), self.counted_fits_)
        labelled = {name: (fit.log_prob, fit.labels) for name, fit in counted}
        gaussian = self._gaussian_fit
        if gaussian is not None:
            labels = attribute_kinds.GaussianNumeric.labels
            labelled.update({c: (np.vstack([gaussian.theta[:, g], gaussian.var[:, g]]), labels)
                             for g, c in enumerate(self.gaussian_features_)})
        return {c: pd.DataFrame(labelled[c][0], index=labelled[c][1], columns=self.classes_)
                for c in self.schema_.columns}


    @property
    def log_odds_weights_(self):
        """Elkan's eq. 2 weights ``w_jj' = log P(a_jj' | C=1) - log P(a_jj' | C=0)``, per input column (input
        order, rows as in ``feature_log_prob_``)."""
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

    # --------------------------------------------------------- scoring entry points

    @property
    def scores_from_codes(self):
        """True when rows are scored from codes alone (no Gaussian attribute), with no (row x class) block."""
        return self._gaussian_fit is None

    def scoring_inputs(self, X):
        """The :class:`~nbparallel.models.base.ScoringInputs` of one partition: its categorical codes as
        counting gets them (a uint8 input array itself, a ``Categorical``'s codes through a lookup table of
        its categories, strings hashed once per partition and their dictionary mapped to the vocabulary),
        its numeric values binned under the final bins, and its Gaussian attributes' log-likelihoods."""
        codes, values = self._counted_split.split(X)
        return self.inputs_of_split(codes, values, X)

    def inputs_of_split(self, codes, values, X=None):
        """The :class:`~nbparallel.models.base.ScoringInputs` of rows already split by
        :meth:`nbparallel.data.schema.Schema.split` (of ``schema_.counted()``): the categorical ``codes`` as
        they are, the numeric ``values`` binned under the final bins (1 + bin; 0 for a missing value and for
        every value of an attribute left with no bin), or no binned block when ``values`` is None (``codes``
        then covers every counted attribute). With Gaussian attributes, ``X`` holds the same rows, whose
        Gaussian log-likelihoods are added last; without ``X`` the inputs give the log table alone."""
        binned = (np.empty((len(codes), 0), dtype=np.uint8) if values is None
                  else self._final_bins.codes(values))
        extra = None
        if self._gaussian_fit is not None and X is not None:
            extra = attribute_kinds.GaussianNumeric.score(*self._gaussian_block(X), self._gaussian_fit)
        return ScoringInputs(codes, binned, self._log_table, self._log_offsets, self.class_log_prior_, extra,
                             self._tie_order, self._prepared_table)

    def _gaussian_block(self, X):
        """``(array, columns)`` of :func:`~nbparallel.summaries.moments.gaussian_columns`, or ``(X, None)`` (its
        every column, in order, as the Gaussian kernel reads None) for a float array whose columns are the
        Gaussian attributes: no columns to check at each call."""
        if (self._gaussian_every_column and type(X) is np.ndarray and X.dtype in (np.float64, np.float32)
                and X.ndim == 2 and X.shape[1] == len(self._gaussian_positions)):
            return X, None
        return gaussian_columns(X, self._gaussian_positions)

    def counted_attribute_names(self):
        """The counted (categorical and binned) attributes' names, in the order of their codes in
        :meth:`scoring_inputs` (what :mod:`nbparallel.models.explanation` reads)."""
        return [at.name for at in self.schema_.counted().attributes]

    def explanation_inputs(self, X):
        """``(inputs, gaussian)`` of one partition for :mod:`nbparallel.models.explanation`: its
        :class:`~nbparallel.models.base.ScoringInputs` (as :meth:`scoring_inputs`) and None or
        ``(values, columns, theta, var)``: a float array whose ``columns`` hold the Gaussian attributes (in
        :attr:`gaussian_features_` order), read once for both, and their means and variances."""
        codes, values = self.schema_.counted().split(X)
        inputs = self.inputs_of_split(codes, values)
        if self._gaussian_fit is None:
            return inputs, None
        array, columns = gaussian_columns(X, self._gaussian_positions)
        fit = self._gaussian_fit
        extra = attribute_kinds.GaussianNumeric.score(array, columns, fit)
        return inputs._replace(extra=extra), (array, columns, fit.theta, fit.var)

    def explained_features(self):
        """The attributes' names in input order (the columns of :meth:`explain`)."""
        return sorted((at.name for at in self.schema_.attributes), key=self.schema_.position_of)

    def inputs_of_counted(self, counted):
        """The :class:`~nbparallel.models.base.ScoringInputs` of rows given as their codes as counted
        (:meth:`~nbparallel.summaries.counts.CountSpec.counted_codes`: numeric values under the schema's
        counting bins), read through the log table re-indexed to the counting bins, so that a pass that
        counted the rows scores them without binning their values again (cross-validation's scoring pass).
        None when a row lies in a counting bin that a final bin edge splits (see
        :func:`~nbparallel.models.attribute_kinds.final_bins_of_counting_bins`) or the model has Gaussian attributes:
        then the rows are scored from their values."""
        if not self.scores_from_codes:
            return None
        table, splits = self._counting_bins_table
        if any(split[counted[:, a]].any() for a, split in splits):
            return None
        return ScoringInputs(counted, np.empty((len(counted), 0), dtype=np.uint8), table,
                             self.schema_.counted().offsets, self.class_log_prior_, None, self._tie_order)

    @cached_property
    def _counting_bins_table(self):
        """``(table, splits)``: the log table with a row per counting bin (that of the final bin holding its
        highest value) instead of a row per final bin, and for each binned attribute with a counting bin that
        a final edge splits, ``(its position, a flag per code)``."""
        counted = self.schema_.counted()
        offsets = counted.offsets
        table = np.zeros((offsets[-1], len(self.classes_)))
        splits = []
        for a, (attribute, fit) in enumerate(zip(counted.attributes, self.counted_fits_)):
            start = self._log_offsets[a]
            if attribute.kind != NUMERIC:
                table[offsets[a]:offsets[a + 1]] = self._log_table[start:self._log_offsets[a + 1]]
            elif len(fit.log_prob):  # else no bin left: every code reads zeros, as the final bins' code 0
                final, split = attribute_kinds.final_bins_of_counting_bins(attribute.edges(), fit.edges)
                table[offsets[a] + 1:offsets[a + 1]] = self._log_table[start + 1 + final]
                if split.any():
                    splits.append((a, np.concatenate([[False], split])))  # code 0 (missing) is never split
        return table, splits

    def joint_log_likelihood_part(self, X):
        return self.scoring_inputs(X).scores(JOINT)

    def encode_targets(self, y):
        return self.schema_.encode_classes(y)

    # ------------------------------------------------------------- files

    def fitted_to_dict(self):
        return {
            # format 1: Gaussian columns are written as numeric attributes, named in "gaussian"
            "schema": self.schema_.with_kinds({c: NUMERIC for c in self.gaussian_features_}).to_dict(),
            "counts": self.counts_.to_dict(),
            "gaussian": None if not self.gaussian_features_ else {
                "columns": list(self.gaussian_features_), "moments": self.moments_.to_dict()},
            "reduction": self.reduction_.to_dict(),
            "n_features_in": self.n_features_in_,
            "feature_names_in": None if not hasattr(self, "feature_names_in_") else list(self.feature_names_in_),
            "target_column": getattr(self, "target_column_", None),
        }

    def fitted_from_dict(self, d):
        self.validate_params()
        d = {"gaussian": None, **d}  # files written before Gaussian attributes have no "gaussian"
        validate.keys(d, "fitted", ("schema", "counts", "gaussian", "reduction", "n_features_in",
                                    "feature_names_in", "target_column"))
        written = validate.schema(d["schema"])
        gaussian = _read_gaussian_columns(d["gaussian"], written)
        self.schema_ = written.with_kinds({c: GAUSSIAN for c in gaussian})
        if self.n_bins == MDL:  # the MDL cuts are found on the fine bins a fit counts
            validate.numeric_bins(self.schema_, FINE_BINS, f"n_bins={MDL!r}")
        check_classes(self.schema_.classes)
        self.counts_ = validate.count_table(d["counts"], self.schema_.counted(), len(self.schema_.classes))
        if gaussian:
            self.moments_ = GaussianMoments.from_dict(d["gaussian"]["moments"])
            if self.moments_.n.shape != (len(self.schema_.classes), len(gaussian)):
                raise ValueError("gaussian.moments do not match the classes and Gaussian columns")
        self.reduction_ = validate.tree_record(d["reduction"])
        self.n_partitions_ = self.reduction_.n_leaves
        n_features, names, target = validate.feature_names(d, self.schema_)
        self._set_input_features(n_features=n_features, feature_names=names)
        if target is not None:
            self.target_column_ = target
        self.passes_ = []
        self._derive()

    def report_sections(self):
        """What :mod:`nbparallel.report` draws of this model: the evidence of its attributes' values."""
        return {"kind": "naive Bayes", "model": self, "note": None}


def _recategorized(attributes, categories_of):
    """``(attributes, row_maps, sizes)``: the attributes with the categories ``categories_of(at)`` gives a
    categorical one (None: as they are), each counted attribute's map from its count-table rows to the new
    ones, and the new row counts, as ``CountTable.reindex`` takes them to lay fitted counts out anew."""
    out, row_maps, sizes = [], [], []
    for at in attributes:
        categories = categories_of(at) if at.kind == CATEGORICAL else None
        if categories is not None:
            index = {c: i for i, c in enumerate(categories)}
            row_maps.append([index[c] for c in at.categories])
            at = replace_fields(at, categories=categories)
        elif at.counted:
            row_maps.append(list(range(at.n_values)))
        out.append(at)
        if at.counted:
            sizes.append(at.n_values)
    return out, row_maps, sizes


def _names(attributes):
    return [at.name for at in attributes]


def _read_gaussian_columns(d, schema):
    """The Gaussian columns of a model file's ``gaussian`` entry, checked against its schema."""
    if d is None:
        return []
    validate.keys(d, "gaussian", ("columns", "moments"))
    numeric = _names(schema.binned_attributes())
    columns = d["columns"]
    if not isinstance(columns, list) or not columns or not set(columns) <= set(numeric):
        raise ValueError(f"gaussian.columns must be a non-empty list of numeric columns, got {columns!r}")
    return [c for c in schema.columns if c in columns]


def _reject_sparse(X):
    if is_sparse_matrix(X):
        raise TypeError("sparse input is not supported: pass a dense array or a DataFrame")
    if isinstance(X, pd.DataFrame) and any(isinstance(d, pd.SparseDtype) for d in X.dtypes):
        raise TypeError("sparse DataFrame columns are not supported: densify them first")


def fixed_log_prior(class_prior, classes):
    """``log(class_prior)``, checked: one non-negative prior per class, summing to 1 (a zero gives -inf).

    >>> fixed_log_prior([0.25, 0.75], ["a", "b"]).round(4).tolist()
    [-1.3863, -0.2877]
    >>> fixed_log_prior({"1": 0.25, "0": 0.75}, [0, 1]).round(4).tolist()
    [-0.2877, -1.3863]
    """
    if isinstance(class_prior, dict):
        given = {str(k): v for k, v in class_prior.items()}
        names = [str(c) for c in classes]
        unknown = sorted(set(given) - set(names))
        missing = [c for c in names if c not in given]
        if unknown or missing:
            raise ValueError(f"class_prior must give one prior to each class {names}: "
                             + (f"unknown classes {unknown}" if unknown else f"missing {missing}"))
        class_prior = [given[c] for c in names]
    prior = np.asarray(class_prior, dtype=np.float64)
    if prior.shape != (len(classes),):
        raise ValueError(f"class_prior must hold one prior per class ({len(classes)}: {list(classes)}), "
                         f"got {prior.size} values")
    if not np.all(np.isfinite(prior)) or np.any(prior < 0) or abs(prior.sum() - 1) > 1e-6:
        raise ValueError(f"class_prior must be non-negative and sum to 1, got {prior.tolist()}")
    with np.errstate(divide="ignore"):  # a zero prior: the class is never predicted, as in scikit-learn
        return np.log(prior)

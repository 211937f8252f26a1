"""The estimators :class:`AODE` and :class:`TAN`: semi-naive Bayes as counting models, on pair counts.

Both are fitted as naive Bayes is (:class:`~nbparallel.models.counting_model.CountingClassifier`): a schema pass
(vocabularies, numeric ranges, classes), then one counting pass of per-class pair tables
(:class:`~nbparallel.summaries.pair_counts.PairCounts`), merged by the reduction tree, from which
:mod:`nbparallel.models.seminaive` derives the model; TAN's tree and its tables come from the same counts.
Numeric attributes are counted in ``n_bins`` equal-width bins, or with ``n_bins="mdl"`` in the MDL intervals that
``NaiveBayes(n_bins="mdl")`` cuts (:mod:`nbparallel.models.mdl_layout`: a counting pass of fine bins finds the cuts,
then one pass counts the pairs of the intervals); a missing value adds nothing.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import replace

import numpy as np

from nbparallel.data.columns import CATEGORICAL, NUMERIC
from nbparallel.data.encoding import integer_vocabulary
from nbparallel.data.inputs import as_dataset, is_sparse_matrix
from nbparallel.data.partitions import input_feature_names
from nbparallel.data.schema import Schema
from nbparallel.data.vocabularies import class_array, sort_values
from nbparallel.kernels.pair_counts import pair_row_starts
from nbparallel.models.base import PartitionedClassifier
from nbparallel.models.counting_model import Counted, CountingClassifier
from nbparallel.models.discretisation import FINE_BINS, MDL, counting_bins
from nbparallel.models.mdl_layout import interval_recoding, interval_spec, mdl_bin_edges
from nbparallel.models.naive_bayes import check_class_weights
from nbparallel.models.params import Interval, Options
from nbparallel.models.plan import CountingPlan, check_classes, check_table_memory, warn_out_of_range
from nbparallel.models.seminaive import (
    aode_joint_log_likelihood,
    aode_tables,
    tan_joint_log_likelihood,
    tan_link_gains,
    tan_parents,
    tan_tables,
)
from nbparallel.persistence import validate
from nbparallel.summaries.counts import CountSpec, CountTable
from nbparallel.summaries.pair_counts import PairCounts

#: TAN's link scores: the conditional mutual information, or Weka's Bayesian score
ENTROPY, BAYES = "entropy", "bayes"

_INPUT_DOC = """
    n_bins : int >= 2 or "mdl", default 10
        Equal-width bins of each numeric attribute (from the schema pass's min and max); "mdl": the supervised
        intervals of ``NaiveBayes(n_bins="mdl")`` (Fayyad and Irani's MDL cuts, as Weka's supervised
        ``Discretize``), found by a counting pass of fine bins before the pairs' pass; then ``partial_fit`` takes
        no batch after the first (the cuts are the first batch's).
    categorical_features : "auto", "all" or list, default "auto"
        Which attributes are categorical, as for :class:`~nbparallel.NaiveBayes`.
    numeric_features : list or None, default None
        Columns that are numeric whatever their dtype, as for :class:`~nbparallel.NaiveBayes`.
    n_partitions : int or None, default None
        Partitions of in-memory data (None: one per worker or core); it never changes the model.
    split_every : int >= 2 or False, default 2
        Fan-in of the reduction tree; False merges all partitions at once.
    verbose : int, default 0
        1 shows each pass on a labelled progress line on stderr."""


class PairCountingClassifier(CountingClassifier):
    """What AODE and TAN share: the input, the counting of pair counts, scoring from codes, model files.

    ``partial_fit`` adds the counts of more data: a later batch may bring new categories and classes (the
    fitted counts are laid out anew, the new cells zero); numeric bins keep the first batch's ranges (values
    beyond them fall in the end bins, with a warning), so fitting on the whole data or on batches gives the
    same counts when the ranges are the same.
    """

    summary_type = PairCounts
    _fitted_attribute = "pair_counts_"

    _parameter_constraints = {
        **PartitionedClassifier._parameter_constraints,
        "n_bins": [Interval(int, 2, validate.MAX_BINS), Options((MDL,))],
        "numeric_features": [None, "array-like"],
    }

    def __init__(self, *, n_bins=10, categorical_features="auto", numeric_features=None, n_partitions=None,
                 split_every=2, verbose=0):
        self.n_bins = n_bins
        self.categorical_features = categorical_features
        self.numeric_features = numeric_features
        self.n_partitions = n_partitions
        self.split_every = split_every
        self.verbose = verbose

    # ------------------------------------------------------------ fitting

    def dataset(self, X, y=None, sample_weight=None, *, require_target=True, drop=(), features=None):
        """The input as partitions (:class:`nbparallel.data.dataset.Dataset`), with this model's partitioning
        and column kinds."""
        if is_sparse_matrix(X):
            raise TypeError(f"{type(self).__name__} takes no sparse input: pass a dense array or a DataFrame")
        return as_dataset(X, y, sample_weight, n_partitions=self.n_partitions,
                          categorical_features=self.categorical_features, require_target=require_target,
                          numeric_features=self.numeric_features, drop=drop, features=features)

    def counting_data(self, X, y, sample_weight, *, classes, batch, fitted):
        """The input as partitions (:meth:`dataset`); a batch after a fit is checked against the fitted layout
        in :meth:`count`."""
        return self.dataset(X, y, sample_weight)

    def counting_plan(self, data, *, weighted=False, batch=False):
        """A schema pass, then the counting pass of :class:`~nbparallel.summaries.pair_counts.PairCounts` (its
        size checked against the memory first)."""
        return CountingPlan(PairCounts, n_bins=counting_bins(self.n_bins))

    def count(self, plan, data, run_pass, *, classes, batch, fitted):
        """The schema and pair counts of ``data`` (:meth:`CountingPlan.run`); a batch after a fit is counted in
        the fitted schema grown by the batch's categories and classes, and the fitted counts laid out anew in
        it are its ``previous``."""
        if self.n_bins == MDL:
            if fitted:
                raise ValueError(f"a {type(self).__name__} with n_bins='mdl' keeps the MDL cuts of its first batch: "
                                 "partial_fit cannot add another batch (fit the whole data, or use n_bins=N)")
            return self._count_mdl(plan, data, run_pass, classes=classes, batch=batch)
        previous = []

        def extend(schema):
            grown, counts = self._grown_layout(schema, data.columns)
            warn_out_of_range(self.schema_, schema)
            previous.append(counts)
            return grown

        schema, summary, record, _ = plan.run(data, run_pass, classes=classes, batch=batch,
                                              extend=extend if fitted else None)
        return Counted(schema, summary, previous[0] if previous else None, record)

    def _count_mdl(self, plan, data, run_pass, *, classes, batch):
        """The schema pass, the counting pass of fine bins that finds the MDL cuts, then the pair counts of the
        intervals: a :class:`Counted` laid out by ``(schema, bin edges)``."""
        schema = plan.run(data, run_pass, classes=classes, batch=batch, count=False).schema
        check_table_memory(schema, data.partitions, CountTable)
        fine, _ = run_pass("cuts", CountTable.counting_pass, data, schema)
        bin_edges = mdl_bin_edges(schema, fine)
        recoding = interval_recoding(schema, bin_edges)
        check_table_memory(schema, data.partitions, PairCounts, recoding.offsets)
        summary, record = run_pass("count", PairCounts.counting_pass, data, schema, recoding=recoding)
        return Counted((schema, bin_edges), summary, None, record)

    def _grown_layout(self, batch, columns):
        """``(schema, counts)``: the fitted schema grown by the categories and classes of a ``partial_fit``
        batch's schema ``batch``, and the fitted pair counts laid out in it (the model is left as it is).

        Raises
        ------
        ValueError
            When the batch has other columns, or a column of another kind.
        """
        fitted = self.schema_
        name = type(self).__name__
        if list(columns) != fitted.columns:
            raise ValueError(f"partial_fit got columns {list(columns)}, but the {name} was fitted on "
                             f"{fitted.columns}")
        attributes, row_maps = [], []
        for at in fitted.attributes:
            new = batch.attribute(at.name)
            if new.kind != at.kind:
                raise ValueError(f"partial_fit got column {at.name!r} as {new.kind}, but the {name} was fitted "
                                 f"with it {at.kind}")
            added = set(new.categories) - set(at.categories) if at.kind == CATEGORICAL else set()
            if added:
                union = set(at.categories) | added
                integers = not at.declared and all(type(v) is int for v in union)
                categories = integer_vocabulary(union) if integers else sort_values(union)
                index = {c: i for i, c in enumerate(categories)}
                row_maps.append([index[c] for c in at.categories])
                at = replace(at, categories=categories)
            else:
                row_maps.append(list(range(at.n_values)))
            attributes.append(at)
        classes = sort_values(set(fitted.classes) | set(batch.classes))
        schema = Schema.of(attributes, fitted.columns, classes)
        if schema.to_dict() == fitted.to_dict():
            return fitted, self.pair_counts_
        class_map = [classes.index(c) for c in fitted.classes]
        return schema, self.pair_counts_.reindex(row_maps, [at.n_values for at in attributes], class_map,
                                                 len(classes))

    def keep_summary(self, layout, summary):
        """The merged pair counts, laid out by the schema ``layout`` (with ``n_bins="mdl"``, ``(schema, bin
        edges)``: the intervals' inner edges by numeric attribute)."""
        schema, bin_edges = layout if self.n_bins == MDL else (layout, None)
        if bin_edges is None:
            bin_edges = {at.name: at.edges() for at in schema.binned_attributes()}
        self.schema_, self.bin_edges_, self.pair_counts_ = schema, bin_edges, summary

    def keep_input_features(self, X, data, *, fitted):
        """The input's columns (and names), and its target column's name when it was given by name."""
        self._set_input_features(n_features=len(data.columns), feature_names=input_feature_names(X, data.columns))
        if data.target_column is not None:
            self.target_column_ = data.target_column

    def check_scorable(self):
        """Raise NotFittedError unless fitted, ValueError while no case has both a known target and a known
        attribute value."""
        super().check_scorable()
        check_class_weights(self.pair_counts_.class_weights)

    def _derive(self):
        """The classes and the scoring layout, then the model's own tables (:meth:`_derive_tables`)."""
        self.classes_ = class_array(self.schema_.classes)
        self.n_missing_target_ = self.pair_counts_.counts.n_missing_target
        self._spec = interval_spec(self.schema_, self.bin_edges_) if self.n_bins == MDL else CountSpec.of(
            self.schema_.counted())
        self._derive_tables()

    @abstractmethod
    def _derive_tables(self):
        """The model's log-probabilities from ``pair_counts_``."""

    # ------------------------------------------------------------ scoring

    def codes_of(self, X):
        """One partition's rows as codes in table order (0 missing or unseen; numeric values in the counting
        bins or MDL intervals), as the counting pass counted them."""
        counted = self.schema_.counted()
        return self._spec.counted_codes(*counted.split(X))

    def encode_targets(self, y):
        return self.schema_.encode_classes(y)

    def report_sections(self):
        """What :mod:`nbparallel.report` draws of this model: its structure, attributes and class prior."""
        return {"kind": "semi-naive", "model": self, "note": None}

    # ------------------------------------------------------------- files

    def fitted_to_dict(self):
        return {
            "schema": self.schema_.to_dict(),
            "pair_counts": self.pair_counts_.to_dict(),
            "reduction": self.reduction_.to_dict(),
            "n_features_in": self.n_features_in_,
            "feature_names_in": None if not hasattr(self, "feature_names_in_") else list(self.feature_names_in_),
            "target_column": getattr(self, "target_column_", None),
            **({"bin_edges": {name: e.tolist() for name, e in self.bin_edges_.items()}} if self.n_bins == MDL else {}),
            **self._structure_to_dict(),
        }

    _structure_keys = ()
    """The keys of what the model writes of its structure beside the counts (re-derived and checked on loading)."""

    def _structure_to_dict(self):
        """The model's structure as plain JSON values, under :attr:`_structure_keys`."""
        return {}

    def fitted_from_dict(self, d):
        self.validate_params()
        mdl = self.n_bins == MDL
        validate.keys(d, "fitted", ("schema", "pair_counts", "reduction", "n_features_in", "feature_names_in",
                                    "target_column", *(("bin_edges",) if mdl else ()), *self._structure_keys))
        schema = validate.schema(d["schema"])
        check_classes(schema.classes)
        validate.numeric_bins(schema, FINE_BINS if mdl else self.n_bins, f"n_bins={self.n_bins!r}")
        if len(schema.counted().attributes) != len(schema.attributes):
            raise ValueError(f"schema: a {type(self).__name__} counts every attribute; it has no Gaussian one")
        if mdl:
            self.bin_edges_ = _bin_edges(d["bin_edges"], schema)
            layout = interval_spec(schema, self.bin_edges_)
        else:
            self.bin_edges_ = {at.name: at.edges() for at in schema.binned_attributes()}
            layout = schema.counted()
        self.pair_counts_ = _pair_counts(d["pair_counts"], layout, len(schema.classes))
        self.schema_ = schema
        self.reduction_ = validate.tree_record(d["reduction"])
        self.n_partitions_ = self.reduction_.n_leaves
        n_features, names, target = validate.feature_names(d, schema)
        self._set_input_features(n_features=n_features, feature_names=names)
        if target is not None:
            self.target_column_ = target
        self.passes_ = []
        self._derive()
        self._check_structure(d)

    def _check_structure(self, d):
        """ValueError when a model file's structure is not the one its counts give."""


def _bin_edges(d, schema, where="bin_edges"):
    """The MDL intervals' inner edges from their dict: ascending finite numbers for each numeric attribute."""
    names = [at.name for at in schema.attributes if at.kind == NUMERIC]
    if not isinstance(d, dict) or sorted(d) != sorted(names):
        raise ValueError(f"{where} must give the edges of the numeric attributes {names}, got "
                         f"{sorted(d) if isinstance(d, dict) else d!r}")
    edges = {}
    for name in names:
        e = validate.numbers(d[name], f"{where}[{name!r}]", (-1,))
        if np.any(np.diff(e) <= 0):
            raise ValueError(f"{where}[{name!r}] must be ascending finite numbers, got {d[name]!r}")
        edges[name] = e
    return edges


def _pair_counts(d, layout, n_classes, where="pair_counts"):
    """A :class:`PairCounts` from its dict, laid out as ``layout`` (a Schema, or a CountSpec of MDL intervals)
    with ``n_classes`` classes."""
    validate.keys(d, where, ("counts", "pairs"))
    counts = validate.count_table(d["counts"], layout, n_classes, f"{where}.counts")
    cells = pair_row_starts(layout.offsets)[1]
    pairs = validate.numbers(d["pairs"], f"{where}.pairs", (n_classes, cells), low=0)
    return PairCounts(counts, pairs)


class AODE(PairCountingClassifier):
    __doc__ = """Averaged one-dependence estimators (Webb, Boughton and Wang, 2005), as Weka 3.6's ``AODE``.

    Each attribute whose value is seen at least ``frequency_limit`` times is in turn the super-parent of all
    the others; their estimates ``P(c, x_p) prod_a P(x_a | c, x_p)`` are averaged, and a row with no such
    value is scored by naive Bayes. Fitted from one counting pass of per-class pair counts after the schema
    pass; the pair tables grow as (attributes x values)^2 x classes, checked against the memory before the
    pass. See :mod:`nbparallel.models.seminaive` for the estimates, and :class:`PairCountingClassifier` for
    ``partial_fit``.

    Parameters
    ----------
    frequency_limit : float >= 0, default 1
        Weka's ``-F``: a value seen fewer times (weighted, over every class) is no super-parent.
    m_estimate : float > 0 or None, default None
        None for Laplace's estimates (Weka's default), else the weight of the m-estimate (Weka's ``-M -W``).""" \
        + _INPUT_DOC + """

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted.
    pair_counts_ : nbparallel.summaries.pair_counts.PairCounts
        The merged counts, laid out as ``schema_``'s attributes (table order).
    schema_ : nbparallel.data.schema.Schema
        Every attribute with its kind, vocabulary or bins, and the classes.
    bin_edges_ : dict
        Each numeric attribute's inner bin edges, ``{name: ndarray}``: the equal-width bins', or the MDL cuts.
    tables_ : nbparallel.models.seminaive.AODETables
        The log-probabilities derived from ``pair_counts_``.
    n_missing_target_ : int
        Training rows skipped because their target was missing.
    reduction_ : nbparallel.engine.reduce.TreeRecord
        The tree of the last counting pass.

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import AODE
    >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]] * 5)
    >>> y = np.array([0, 1, 1, 0] * 5)
    >>> AODE(categorical_features="all").fit(X, y).predict(X[:4]).tolist()
    [0, 1, 1, 0]
    """

    _parameter_constraints = {
        **PairCountingClassifier._parameter_constraints,
        "frequency_limit": [Interval(float, 0, np.inf, "left")],
        "m_estimate": [None, Interval(float, 0, np.inf, "neither")],
    }

    def __init__(self, *, frequency_limit=1, m_estimate=None, n_bins=10, categorical_features="auto",
                 numeric_features=None, n_partitions=None, split_every=2, verbose=0):
        super().__init__(n_bins=n_bins, categorical_features=categorical_features,
                         numeric_features=numeric_features, n_partitions=n_partitions, split_every=split_every,
                         verbose=verbose)
        self.frequency_limit = frequency_limit
        self.m_estimate = m_estimate

    def _derive_tables(self):
        self.tables_ = aode_tables(self.pair_counts_, frequency_limit=self.frequency_limit,
                                   m_estimate=self.m_estimate)

    def joint_log_likelihood_part(self, X):
        return aode_joint_log_likelihood(self.tables_, self.codes_of(X))


class TAN(PairCountingClassifier):
    __doc__ = """Tree-augmented naive Bayes (Friedman, Geiger and Goldszmidt, 1997), as Weka 3.6's ``BayesNet``
    with the ``TAN`` search and the ``SimpleEstimator``.

    Each attribute has the class and at most one other attribute as parents: the maximum spanning tree of the
    link gains (``score``), read from the pair counts and directed as Weka directs it; each attribute's
    probabilities given the class and its parent are ``(n + alpha) / (N + V alpha)``. The tree and the tables
    come from the same counting pass of per-class pair counts after the schema pass; the pair tables grow as
    (attributes x values)^2 x classes, checked against the memory before the pass. See
    :mod:`nbparallel.models.seminaive`, and :class:`PairCountingClassifier` for ``partial_fit``.

    Parameters
    ----------
    alpha : float > 0, default 0.5
        The estimator's prior count per value (Weka's ``SimpleEstimator -A``).
    link_score : {"entropy", "bayes"}, default "entropy"
        The link score of the tree: the conditional mutual information, or Weka's Bayesian score (Weka's
        ``-S``; named so as not to hide the method :meth:`score`).""" \
        + _INPUT_DOC + """

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted.
    parents_ : dict
        Each attribute's parent in the tree besides the class, ``{name: parent name or None}`` (None for the
        root), in table order.
    pair_counts_ : nbparallel.summaries.pair_counts.PairCounts
        The merged counts, laid out as ``schema_``'s attributes (table order).
    schema_ : nbparallel.data.schema.Schema
        Every attribute with its kind, vocabulary or bins, and the classes.
    bin_edges_ : dict
        Each numeric attribute's inner bin edges, ``{name: ndarray}``: the equal-width bins', or the MDL cuts.
    tables_ : nbparallel.models.seminaive.TANTables
        The tree and the log-probabilities derived from ``pair_counts_``.
    n_missing_target_ : int
        Training rows skipped because their target was missing.
    reduction_ : nbparallel.engine.reduce.TreeRecord
        The tree of the last counting pass.

    Examples
    --------
    >>> import numpy as np
    >>> from nbparallel import TAN
    >>> X = np.array([[0, 1, 1], [1, 1, 0], [1, 0, 0], [0, 0, 1]] * 5)
    >>> y = np.array([0, 1, 1, 0] * 5)
    >>> model = TAN(categorical_features="all").fit(X, y)
    >>> model.predict(X[:4]).tolist(), sum(parent is None for parent in model.parents_.values())
    ([0, 1, 1, 0], 1)
    """

    _parameter_constraints = {
        **PairCountingClassifier._parameter_constraints,
        "alpha": [Interval(float, 0, np.inf, "neither")],
        "link_score": [Options((ENTROPY, BAYES))],
    }

    def __init__(self, *, alpha=0.5, link_score=ENTROPY, n_bins=10, categorical_features="auto",
                 numeric_features=None, n_partitions=None, split_every=2, verbose=0):
        super().__init__(n_bins=n_bins, categorical_features=categorical_features,
                         numeric_features=numeric_features, n_partitions=n_partitions, split_every=split_every,
                         verbose=verbose)
        self.alpha = alpha
        self.link_score = link_score

    def _derive_tables(self):
        self.tables_ = tan_tables(self.pair_counts_, alpha=self.alpha, score=self.link_score)
        names = [at.name for at in self.schema_.attributes]
        self.parents_ = {name: None if p < 0 else names[p] for name, p in zip(names, self.tables_.parents)}

    def joint_log_likelihood_part(self, X):
        return tan_joint_log_likelihood(self.tables_, self.codes_of(X))

    def _structure_to_dict(self):
        return {"parents": self.tables_.parents.tolist()}

    _structure_keys = ("parents",)

    def _check_structure(self, d):
        derived = tan_parents(tan_link_gains(self.pair_counts_, self.link_score)).tolist()
        if d["parents"] != derived:
            raise ValueError(f"parents {d['parents']!r} are not the tree the pair counts give ({derived}) with "
                             f"link_score={self.link_score!r}")

"""The model kinds: every estimator by the name its model files give, and what each one takes part in.

One entry per estimator class, keyed by the name a model file writes (``"estimator"``, the class's
``__name__``). The package's exports, :func:`nbparallel.load`, ``export``, ``report`` and
``cross_validate`` all read this one table instead of lists of their own. An entry names the module
that defines the class, imported only when the class is used, so that ``import nbparallel`` imports no
model and loading a NaiveBayes file does not import feature selection (and scikit-learn with it). The
module of a kind may lie above ``models/`` (``SelectedNaiveBayes``): it is named, never imported here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

#: the forms ``export`` writes (:mod:`nbparallel.exporters`): a naive Bayes model of attribute tables, a
#: boosted ensemble of them, a model whose joint log-likelihood is linear in the row (the text models), averaged
#: one-dependence estimators, a tree-augmented naive Bayes
NAIVE_BAYES, BOOSTED, LINEAR, AODE, TAN = "naive Bayes", "boosted", "linear", "AODE", "TAN"


@dataclass(frozen=True)
class ModelKind:
    """One estimator class and what it takes part in.

    Attributes
    ----------
    name : str
        The class's name, as model files and ``nbparallel.<name>`` give it.
    module : str
        The module that defines the class.
    export : str or None
        The form ``export`` writes of it (:data:`NAIVE_BAYES`, :data:`BOOSTED`, :data:`LINEAR`, :data:`AODE`,
        :data:`TAN`), None when
        it is not exported.
    report : bool
        Whether ``report`` draws it (the class supplies ``report_sections``).
    cross_validated : bool
        Whether ``cross_validate`` takes it (its summary subtracts: fold i's model is derived from
        ``total - fold_i``, by the class's ``from_counts``).
    """

    name: str
    module: str
    export: str | None = None
    report: bool = True
    cross_validated: bool = False

    def estimator_class(self):
        """The class (its module imported now)."""
        return getattr(importlib.import_module(self.module), self.name)


MODEL_KINDS = {kind.name: kind for kind in (
    ModelKind("NaiveBayes", "nbparallel.models.naive_bayes", NAIVE_BAYES, cross_validated=True),
    ModelKind("MultinomialNaiveBayes", "nbparallel.models.text", LINEAR, cross_validated=True),
    ModelKind("BernoulliNaiveBayes", "nbparallel.models.text", LINEAR, cross_validated=True),
    ModelKind("ComplementNaiveBayes", "nbparallel.models.complement", LINEAR, report=False, cross_validated=True),
    ModelKind("BoostedNaiveBayes", "nbparallel.models.boosting", BOOSTED),
    ModelKind("SelectedNaiveBayes", "nbparallel.model_selection.selection", NAIVE_BAYES),
    ModelKind("AutoClass", "nbparallel.models.autoclass", export=None),
    ModelKind("AODE", "nbparallel.models.seminaive_models", AODE, cross_validated=True),
    ModelKind("TAN", "nbparallel.models.seminaive_models", TAN, cross_validated=True),
)}


def model_kind(name):
    """The :class:`ModelKind` of an estimator ``name`` (a model file's, or a class's ``__name__``), or None."""
    return MODEL_KINDS.get(name) if isinstance(name, str) else None


def kind_of_model(model):
    """The :class:`ModelKind` of an estimator or of its class: that of its exact class (a subclass is no kind
    of its base's), or None."""
    cls = model if isinstance(model, type) else type(model)
    kind = model_kind(cls.__name__)
    return kind if kind is not None and cls.__module__ == kind.module else None


def names_of(kinds, last="and"):
    """The names of ``kinds`` as a message lists them: "A, B and C" (``last`` joins the last two).

    >>> names_of([MODEL_KINDS["NaiveBayes"], MODEL_KINDS["AutoClass"]], "or")
    'NaiveBayes or AutoClass'
    """
    names = [kind.name for kind in kinds]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {last} " + names[-1]


def kinds_where(predicate):
    """The model kinds for which ``predicate(kind)`` holds, in the registry's order."""
    return [kind for kind in MODEL_KINDS.values() if predicate(kind)]

"""The scikit-learn estimator protocol, implemented without importing scikit-learn.

scikit-learn treats any object with ``get_params``, ``set_params`` and ``__sklearn_tags__`` as an estimator:
``clone``, ``Pipeline``, ``GridSearchCV`` and ``cross_val_score`` take it. Importing ``sklearn`` imports
``scipy.stats`` and costs more than the whole of a small fit, so a command-line ``fit`` of a small file would
spend most of its time there. The estimators therefore implement the protocol here, as
``sklearn.base.BaseEstimator`` does (parameters are the keyword arguments of ``__init__``), and import
scikit-learn only when scikit-learn itself asks for their tags, or when an unfitted estimator raises its
``NotFittedError``, so that ``except sklearn.exceptions.NotFittedError`` works as with any scikit-learn model.
"""

from __future__ import annotations

import inspect
from abc import ABCMeta
from functools import cache


class Estimator(metaclass=ABCMeta):
    """Parameters as scikit-learn estimators have them: the keyword arguments of ``__init__``, stored as
    attributes of the same names and nothing else, read by ``get_params`` and written by ``set_params``.

    The metaclass is ``ABCMeta``, as scikit-learn's ``_BaseNB`` has it: a base declares what its models
    must supply with ``abc.abstractmethod``, and a class that lacks one cannot be instantiated."""

    @classmethod
    @cache
    def _get_param_names(cls):
        """The names of ``__init__``'s parameters, sorted (scikit-learn's name for this method); read from
        the signature once per class, since every fold, round or selected model asks for them."""
        if cls.__init__ is object.__init__:
            return ()
        names = []
        for p in inspect.signature(cls.__init__).parameters.values():
            if p.kind == p.VAR_POSITIONAL:
                raise RuntimeError(f"{cls.__name__} must name its parameters in __init__'s signature, no *args")
            if p.name != "self" and p.kind != p.VAR_KEYWORD:
                names.append(p.name)
        return tuple(sorted(names))

    def get_params(self, deep=True):
        """The estimator's parameters; with ``deep``, those of estimators among them as ``name__param``."""
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params):
        """Set parameters (``name__param`` reaches into an estimator parameter); returns the estimator.

        Raises ValueError naming a parameter the estimator does not have.
        """
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested = {}
        for key, value in params.items():
            name, delimiter, sub_name = key.partition("__")
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {self}. Valid parameters are: "
                                 f"{self._get_param_names()!r}.")
            if delimiter:
                nested.setdefault(name, {})[sub_name] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self):
        """``Name(param=value, ...)`` of the parameters that differ from their defaults, as scikit-learn prints."""
        signature = inspect.signature(type(self).__init__).parameters
        changed = []
        for name in self._get_param_names():
            value = getattr(self, name, None)
            default = signature[name].default
            if not _same(value, default):
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        """scikit-learn's description of the estimator (imports scikit-learn, which is asking)."""
        from sklearn.utils import Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False), transformer_tags=None,
                    regressor_tags=None, classifier_tags=None)


class Classifier(Estimator):
    """An estimator of classes: scikit-learn's classifier tags (the target is required)."""

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        tags.target_tags.required = True
        return tags


class Clusterer(Estimator):
    """An estimator of clusters: scikit-learn's clusterer tags."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "clusterer"
        return tags


def check_is_fitted(estimator, attribute):
    """Raise scikit-learn's ``NotFittedError`` (a ValueError and an AttributeError) unless ``estimator`` has
    the fitted ``attribute``."""
    if not hasattr(estimator, attribute):
        from sklearn.exceptions import NotFittedError

        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
                             "appropriate arguments before using this estimator.")


def _same(value, default):
    """Whether a parameter still has its default (``is``, or ``==`` for plain values; arrays never)."""
    if value is default:
        return True
    if isinstance(value, (str, int, float, bool, type(None), tuple)) and type(value) is type(default):
        try:
            return bool(value == default)
        except (TypeError, ValueError):
            return False
    return False

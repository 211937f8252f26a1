"""nbparallel: parallel and distributed naive Bayes.

Naive Bayes learning is counting: partitions are counted independently into
count tables, merged by a binary tree of Dask tasks, and the model is derived
from the merged counts.

The names below are imported on first use, so ``import nbparallel`` is cheap
and Dask, scikit-learn and numba load only when a model or pass needs them.
"""

import importlib
import importlib.abc
import sys

__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS = {
    "AutoClass": ".models.autoclass",
    "BernoulliNaiveBayes": ".models.text",
    "BoostedNaiveBayes": ".models.boosting",
    "ComplementNaiveBayes": ".models.complement",
    "MultinomialNaiveBayes": ".models.text",
    "NaiveBayes": ".models.naive_bayes",
    "SelectedNaiveBayes": ".model_selection.selection",
    "cross_validate": ".model_selection.cross_validation",
    "CountTable": ".summaries.counts",
    "Files": ".data.files.options",
    "TreeRecord": ".engine.reduce",
    "load": ".loading",
    "run_pass": ".engine.execution",
    "local_below": ".engine.execution",
}
__all__ = sorted(_EXPORTS) + ["__version__"]

#: modules of the flat layout before the layered packages -> where their contents went
MOVED = {
    "nbparallel.counting": "nbparallel.summaries.counts",
    "nbparallel.counts": "nbparallel.summaries.counts",
    "nbparallel.cross_validation": "nbparallel.model_selection.cross_validation",
    "nbparallel.dictionary_counts": "nbparallel.summaries.dictionary_counts",
    "nbparallel.encoding": "nbparallel.data.encoding",
    "nbparallel.factorize": "nbparallel.data.factorize",
    "nbparallel.files": "nbparallel.data.files",
    "nbparallel.io": "nbparallel.persistence.model_files (load: nbparallel.loading)",
    "nbparallel.kinds": "nbparallel.models.kinds",
    "nbparallel.limits": "nbparallel.engine.memory",
    "nbparallel.numeric_text": "nbparallel.data.numeric_text",
    "nbparallel.params": "nbparallel.models.params",
    "nbparallel.partitions": "nbparallel.data.partitions",
    "nbparallel.passes": "nbparallel.engine.scheduler (checkpoints: nbparallel.persistence.checkpoints)",
    "nbparallel.reduce": "nbparallel.engine.reduce",
    "nbparallel.selection": "nbparallel.model_selection.selection",
    "nbparallel.sparse": "nbparallel.data.sparse",
    "nbparallel.sparse_kernels": "nbparallel.kernels.sparse",
    "nbparallel.validate": "nbparallel.persistence.validate",
}


class _MovedModules(importlib.abc.MetaPathFinder):
    """Say where a module of the flat layout went, instead of a bare ModuleNotFoundError."""

    def find_spec(self, name, path=None, target=None):
        where = MOVED.get(name)
        if where is not None:
            raise ModuleNotFoundError(f"{name} moved to {where} (nbparallel's modules are now layered packages: "
                                      "see docs/architecture.md)", name=name)
        return None


sys.meta_path.append(_MovedModules())


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nbparallel' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))

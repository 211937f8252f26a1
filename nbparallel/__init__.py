"""nbparallel: parallel and distributed naive Bayes.

Naive Bayes learning is counting: partitions are counted independently into
count tables, merged by a binary tree of Dask tasks, and the model is derived
from the merged counts.

The names below are imported on first use, so ``import nbparallel`` is cheap
and Dask, scikit-learn and numba load only when a model or pass needs them.
"""

import importlib as _importlib

from nbparallel.models.registry import MODEL_KINDS as _MODEL_KINDS

__version__ = "0.1.0"

#: public name -> module that defines it: every model kind, and the functions and types of the API
_EXPORTS = {
    **{kind.name: kind.module for kind in _MODEL_KINDS.values()},
    "cross_validate": ".model_selection.cross_validation",
    "CountTable": ".summaries.counts",
    "Files": ".data.files.options",
    "TreeRecord": ".engine.reduce",
    "load": ".loading",
    "export": ".exporters",
    "run_pass": ".engine.execution",
    "local_below": ".engine.execution",
    "observe_passes": ".engine.execution",
}
__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nbparallel' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    """The public API (``__all__``), whether or not its names or any subpackage have been imported yet."""
    return list(__all__)

"""Export of fitted models to formats other tools score: PMML (``.pmml``) and ONNX (``.onnx``).

:func:`export` (``nbparallel.export``) picks the format from the path's suffix.
"""

from nbparallel.exporters.onnx_graph import write_onnx
from nbparallel.exporters.pmml import write_pmml

__all__ = ["export"]

WRITERS = {".pmml": write_pmml, ".onnx": write_onnx}


def export(model, path):
    """Write ``model`` to ``path`` in the format its suffix names (``.pmml`` or ``.onnx``).

    Parameters
    ----------
    model : NaiveBayes, BoostedNaiveBayes, MultinomialNaiveBayes, BernoulliNaiveBayes or ComplementNaiveBayes
        A fitted model; a model the format cannot express raises ValueError and writes nothing.
    path : str or os.PathLike
        The output file; written to a temporary file in the same folder and renamed.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> import nbparallel
    >>> X = pd.DataFrame({"outlook": ["sunny", "rain", "sunny", "overcast"]})
    >>> model = nbparallel.NaiveBayes().fit(X, ["no", "yes", "no", "yes"])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.pmml")
    >>> nbparallel.export(model, path)
    >>> os.path.exists(path)
    True
    """
    import pathlib

    suffix = pathlib.Path(path).suffix.lower()
    if suffix not in WRITERS:
        raise ValueError(f"cannot export to {str(path)!r}: unknown suffix {suffix!r}; expected one of {sorted(WRITERS)}")
    WRITERS[suffix](model, path)

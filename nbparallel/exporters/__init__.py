"""Export of fitted models to formats other tools score: PMML (``.pmml``) and ONNX (``.onnx``).

:func:`export` (``nbparallel.export``) picks the format from the path's suffix and writes the whole file or none.
"""

import pathlib

from nbparallel.exporters.onnx_graph import onnx_bytes
from nbparallel.exporters.pmml import pmml_bytes
from nbparallel.persistence.model_files import write_bytes_atomic

__all__ = ["export"]

#: suffix -> the function giving a model's file in that format, as bytes
FORMATS = {".pmml": pmml_bytes, ".onnx": onnx_bytes}


def export(model, path):
    """Write ``model`` to ``path`` in the format its suffix names (``.pmml`` or ``.onnx``).

    Parameters
    ----------
    model : NaiveBayes, BoostedNaiveBayes, MultinomialNaiveBayes, BernoulliNaiveBayes, ComplementNaiveBayes, AODE or TAN
        A fitted model (AODE and TAN to ONNX only); a model the format cannot express raises ValueError and
        writes nothing.
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
    suffix = pathlib.Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"cannot export to {str(path)!r}: unknown suffix {suffix!r}; expected one of {sorted(FORMATS)}")
    write_whole(FORMATS[suffix](model), path)


def write_whole(content, path):
    """Write ``content`` (bytes) to ``path`` as a model file is written (never partially, with the permissions
    the umask gives)."""
    folder = pathlib.Path(path).resolve().parent
    if not folder.is_dir():
        raise ValueError(f"the output directory {str(folder)!r} of {str(path)!r} does not exist")
    write_bytes_atomic(content, path)

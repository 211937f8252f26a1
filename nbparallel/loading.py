"""Loading model files: :func:`load`, the estimator class by the name a model file gives.

The file format (envelope, digest, atomic writes) is :mod:`nbparallel.persistence`,
which knows no model; this module sits above the models, and the classes a file may
hold are the model kinds of :data:`nbparallel.models.registry.MODEL_KINDS`. Only the
module of the file's estimator is imported: loading a NaiveBayes model to predict does
not import feature selection (and scikit-learn with it).
"""

from __future__ import annotations

from pathlib import Path

from nbparallel.models.registry import MODEL_KINDS, model_kind
from nbparallel.persistence.model_files import FORMAT, FORMAT_VERSION, TOP_KEYS, check_digest, read_json


def load(path):
    """Load a model file written by ``save``.

    Parameters
    ----------
    path : str or PathLike
        The model file.

    Returns
    -------
    model : estimator
        The fitted estimator the file holds.

    Raises
    ------
    FileNotFoundError
        If there is no file at ``path``.
    ValueError
        If the file is not a regular file, too large, not JSON, not an
        nbparallel model, of an unknown format version or estimator, has a
        wrong digest, or any value disagrees with the format; the message
        names the file.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from nbparallel import NaiveBayes, load
    >>> model = NaiveBayes(categorical_features="all").fit(np.array([[0], [1], [1]]), [0, 1, 1])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> model.save(path)
    >>> load(path).predict(np.array([[1]])).tolist()
    [1]
    """
    path = Path(path)
    data = read_json(path, "nbparallel model")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not an nbparallel model file (no 'format': '{FORMAT}')")
    if data.get("format_version") != FORMAT_VERSION or isinstance(data.get("format_version"), bool):
        raise ValueError(
            f"{path} has model format version {data.get('format_version')!r}; "
            f"this nbparallel reads version {FORMAT_VERSION}"
        )
    name = data.get("estimator")
    kind = model_kind(name)
    if kind is None:
        raise ValueError(f"{path} holds an unknown estimator {name!r}; known: {sorted(MODEL_KINDS)}")
    cls = kind.estimator_class()
    check_digest(data, path, "nbparallel model")
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise ValueError(f"{path} is a damaged nbparallel model file: unknown keys {unknown}")
    try:
        if not isinstance(data.get("params"), dict) or not isinstance(data.get("fitted"), dict):
            raise ValueError("'params' and 'fitted' must be JSON objects")
        estimator = cls(**data["params"])
        estimator.fitted_from_dict(data["fitted"])
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError,
            RecursionError, MemoryError) as exc:
        raise ValueError(f"{path} is a damaged {cls.__name__} model file: {type(exc).__name__}: {exc}") from None
    return estimator

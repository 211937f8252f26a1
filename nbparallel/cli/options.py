"""Parsed options as the library's inputs: files with their read options, estimator settings, the cluster.

Every data path goes to the library as a :class:`~nbparallel.data.files.options.Files`
(``--na-values``, ``--numeric``, ``--drop``, ``--delimiter``, ``--encoding``,
``--storage-option``), which reads it partition by partition; the command line
never reads a table itself. The library is imported inside the functions, so
that ``--help`` and argument errors do not wait for pandas, Dask or numba.
"""

from __future__ import annotations

import contextlib
from pathlib import Path


def read_settings(args):
    """``Files`` keywords of the read options a verb has: ``--na-values``, ``--delimiter``, ``--encoding``,
    ``--storage-option``."""
    settings = {"na_values": getattr(args, "na_values", None)}
    for name in ("delimiter", "encoding"):
        if getattr(args, name, None) is not None:
            settings[name] = getattr(args, name)
    if getattr(args, "storage_options", None):
        settings["storage_options"] = dict(args.storage_options)
    return settings


def training_files(args, path=None, engine=None):
    """The training data (or ``path``, the test data) with the options' read settings and ``--drop``; read by
    ``engine`` (a started :class:`~nbparallel.cli.engines.Engine`) when one is given."""
    from nbparallel.data.files import Files, read_files

    path = args.data if path is None else path
    drop = getattr(args, "drop", None)
    settings = read_settings(args)
    if engine is not None:
        return engine.files(path, settings, drop)
    if drop:  # the columns, from the files' headers or footers (no rows are read)
        from nbparallel.models.prediction_files import check_columns

        check_columns(drop, list(read_files(Files(path, **settings)).columns), "--drop")
    return Files(path, numeric_features=getattr(args, "numeric", None), drop=drop, **settings)


def document_labels(args, n_documents):
    """The ``--labels`` file's lines: one class label per document of ``args.data``."""
    from nbparallel.data.documents import read_labels

    labels = read_labels(args.labels)
    if len(labels) != n_documents:
        raise ValueError(f"--labels has {len(labels)} lines, but {str(args.data)!r} has {n_documents} documents")
    return labels


def data_settings(args):
    """The estimator parameters every training verb shares: partitions, bins, column kinds, progress."""
    return dict(n_bins=args.bins, categorical_features=args.categorical or "auto", numeric_features=args.numeric,
                n_partitions=args.partitions, split_every=args.split_every, verbose=0 if args.quiet else 1)


def gaussian_setting(args):
    """``NaiveBayes(numeric=...)`` from ``--gaussian``: absent "binned"; with no column "gaussian" (every
    numeric column); else ``{column: "gaussian"}``."""
    columns = getattr(args, "gaussian", None)
    if columns is None:
        return {}
    if not columns:
        return {"numeric": "gaussian"}
    if getattr(args, "categorical", None) and set(columns) & set(args.categorical):
        raise ValueError(f"--gaussian and --categorical both name {sorted(set(columns) & set(args.categorical))}")
    return {"numeric": {c: "gaussian" for c in columns}}


def class_priors(args, classes):
    """``--class-prior CLASS=P ...`` as an array in the order of ``classes``; None without the option.

    Raises ValueError unless every class has exactly one prior and they sum to 1.
    """
    import numpy as np

    pairs = getattr(args, "class_prior", None)
    if not pairs:
        return None
    names = {str(c): c for c in classes}
    given = {}
    for key, p in pairs:
        if key not in names:
            raise ValueError(f"--class-prior names class {key!r}, which the data does not have; "
                             f"classes are {list(names)}")
        if key in given:
            raise ValueError(f"--class-prior gives class {key!r} twice")
        given[key] = p
    missing = [k for k in names if k not in given]
    if missing:
        raise ValueError(f"--class-prior must give every class a prior; missing {missing}")
    prior = np.array([given[str(c)] for c in classes])
    if abs(prior.sum() - 1) > 1e-6:
        raise ValueError(f"--class-prior's priors must sum to 1, got {prior.sum():g}")
    return prior


def load_model(args):
    """The model file's estimator, its progress bars set by --quiet rather than by the file."""
    from nbparallel.loading import load

    model = load(args.model)
    verbose = 0 if getattr(args, "quiet", False) else 1
    model.set_params(verbose=verbose)
    for learner in getattr(model, "estimators_", []):
        learner.set_params(verbose=verbose)
    return model


@contextlib.contextmanager
def cluster(args):
    """Activate the cluster the options name (this machine's threads otherwise: ``--threads`` of them, by
    :func:`nbparallel.engine.execution.threads`, or one per core).

    Yields the started :class:`~nbparallel.cli.engines.Engine` of ``--spark``, ``--ray`` or a config of kind
    ``spark`` or ``ray``, through which the command reads its data; else None (a Dask cluster is made the
    current client, through which every pass runs).
    """
    from nbparallel.cli.engines import engine_settings, started_engine

    engine = engine_settings(args)
    if engine is not None:
        with started_engine(engine) as started:
            yield started
        return
    if not (getattr(args, "scheduler", None) or getattr(args, "cluster", None)):
        if getattr(args, "threads", None) is None:
            yield None
            return
        from nbparallel.engine.execution import threads

        with threads(args.threads):
            yield None
        return
    from nbparallel.cluster import client_for

    with client_for(scheduler=args.scheduler, cluster=args.cluster) as client:
        with client.as_current():
            yield None


def check_output(path):
    """Raise ValueError before any work when the output's directory does not exist (a URL's store is
    checked when it is written)."""
    if "://" in str(path):
        return
    parent = Path(path).parent
    if not parent.is_dir():
        raise ValueError(f"the output directory {str(parent)!r} of {str(path)!r} does not exist")

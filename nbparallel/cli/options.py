"""Parsed options as the library's inputs: files with their read options, estimator settings, the cluster.

Every data path goes to the library as a :class:`~nbparallel.data.files.options.Files`
(``--na-values``, ``--numeric``, ``--drop``), which reads it partition by
partition; the command line never reads a table itself.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from nbparallel.data.files.dataset import file_layout
from nbparallel.data.files.options import Files


def check_columns(names, columns, option):
    """Raise ValueError when ``option`` (``--drop``, ``--keep``) names columns the data does not have."""
    missing = [c for c in names if c not in columns]
    if missing:
        raise ValueError(f"{option} names columns {missing} that the data does not have; columns are {list(columns)}")


def training_files(args, path=None):
    """The training data (or ``path``, the test data) with the options' read settings and ``--drop``."""
    path = args.data if path is None else path
    drop = getattr(args, "drop", None)
    if drop:
        check_columns(drop, file_layout(path).columns, "--drop")
    return Files(path, na_values=args.na_values, numeric_features=getattr(args, "numeric", None), drop=drop)


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
    """Activate the cluster the options name (the local threaded scheduler otherwise)."""
    if not (getattr(args, "scheduler", None) or getattr(args, "cluster", None)):
        yield None
        return
    from nbparallel.cluster import client_for

    with client_for(scheduler=args.scheduler, cluster=args.cluster) as client:
        with client.as_current():
            yield client


def check_output(path):
    """Raise ValueError before any work when the output's directory does not exist."""
    parent = Path(path).parent
    if not parent.is_dir():
        raise ValueError(f"the output directory {str(parent)!r} of {str(path)!r} does not exist")

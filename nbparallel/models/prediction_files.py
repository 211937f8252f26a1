"""Predictions written to files (:func:`predict_to`, ``model.predict_to``), partition by partition.

Any input ``predict`` takes can be predicted to a CSV or Parquet file, or to a
directory of part files (one per partition). Files are read as the model scores
them: they go to the model's own data route (``model.dataset``, as ``fit`` and
``predict`` take them) as a :class:`~nbparallel.data.files.options.Files` that
reads the model's attribute columns (those it binned as numbers, as numbers,
as its fit read them) and the target, and no other. Each partition is
predicted by ``model.predict_part`` inside the task that reads it, a batch of
rows at a time (so that its memory stays that of a batch, however large the
partition), beside the columns to copy into the output as the files hold
them, and either returned or written to a file of its own. Arrays, DataFrames and Dask collections are
predicted a partition at a time, with ``predict`` (and ``predict_proba``). Nothing is left behind when the
prediction fails: a file, or a directory's parts (local or a URL), appear only once all are written.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from nbparallel.data.dataset import is_arrow_table
from nbparallel.data.files.readers import file_layout, file_readers
from nbparallel.data.files.options import Files
from nbparallel.data.unseen import Tallied, untallied
from nbparallel.engine import execution
from nbparallel.engine.backends.dask_collections import computed_blocks


def is_url(path):
    """Whether ``path`` is a URL (``s3://...``), written through its filesystem."""
    return "://" in str(path)


def values_of_dictionaries(table):
    """An Arrow table with its dictionary columns decoded to their values' type."""
    import pyarrow as pa

    fields = [pa.field(f.name, f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in table.schema]
    return table.cast(pa.schema(fields))


def write_table(frame, path, storage_options=None):
    """Write a DataFrame as a CSV or (by suffix) Parquet file, or an Arrow table as a Parquet file, completely
    or not at all; a URL through its filesystem.

    An Arrow table's dictionary columns are written as columns of their values (a Parquet file keeps them
    dictionary-encoded: the values are encoded once, not once per row), without Arrow's schema, so that
    every reader reads them as such, not as categories.
    """
    arrow = not hasattr(frame, "to_parquet")
    if arrow and not str(path).lower().endswith((".parquet", ".pq")):
        raise ValueError(f"an Arrow table is written as Parquet, not to {str(path)!r}")
    if is_url(path):
        from nbparallel.data.files import write_table as write_through_filesystem

        return write_through_filesystem(values_of_dictionaries(frame) if arrow else frame, str(path),
                                        storage_options=storage_options)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        if arrow:
            import pyarrow.parquet as pq

            pq.write_table(frame, tmp, store_schema=False)
        elif path.suffix.lower() in (".parquet", ".pq"):
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def output_directory(path):
    """The directory ``path`` names (it ends in a separator or exists as one), else None; a URL
    directory (``s3://bucket/out/``) stays a string."""
    path = str(path) if is_url(path) else os.fspath(path)
    if is_url(path):
        return path if path.endswith("/") else None
    return Path(path) if path.endswith(("/", "\\")) or Path(path).is_dir() else None


def check_columns(names, columns, option):
    """Raise ValueError when ``option`` (``keep``, ``--drop``) names columns the data does not have."""
    missing = [c for c in names if c not in columns]
    if missing:
        raise ValueError(f"{option} names columns {missing} that the data does not have; columns are {list(columns)}")


def model_features(model, columns, exclude=()):
    """The model's attribute columns among ``columns``: its recorded names, else every column but its
    target and ``exclude``; ValueError naming those the data lacks."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        target = getattr(model, "target_column_", None)
        return [c for c in columns if c != target and c not in exclude]
    missing = [c for c in names if c not in columns]
    if missing:
        raise ValueError(f"the data lacks columns {missing[:5]}{' ...' if len(missing) > 5 else ''} "
                         f"that the model was fitted on")
    return list(names)


def numeric_features(model, features):
    """The ``features`` (in the model's input order) that the model reads as numbers: binned or Gaussian."""
    schema = getattr(model, "schema_", None)
    if schema is None:
        raise ValueError(f"a {type(model).__name__} model scores documents, not tables: "
                         "use nbparallel text-predict")
    kinds = getattr(model, "feature_kinds_", None) or schema.feature_kinds
    return [c for c, kind in zip(features, kinds.values()) if kind in ("numeric", "gaussian")]


def scoring_files(model, path, settings=None, target=None, keep=(), keep_option="--keep"):
    """The files as ``model`` scores them, read with ``settings`` (``Files`` keywords: ``na_values``,
    ``delimiter``, ``encoding``, ``storage_options``).

    Returns
    -------
    files : Files
        Reading the model's attribute columns and ``target``, no other.
    features : list of str
        The model's attribute columns, in its order.
    n_partitions : int
        The files' own partitions (a file each, or runs of a large Parquet
        file's row groups).
    """
    settings = dict(settings or {})
    layout = file_layout(Files(path, **settings))
    columns = layout.columns
    check_columns(keep, columns, keep_option)
    if target is not None and target not in columns:
        raise ValueError(f"target column {target!r} does not exist; columns are {columns}")
    features = model_features(model, columns, exclude=(target, *keep))
    if target in features:
        raise ValueError(f"target column {target!r} is one of the attributes the model was fitted on")
    files = Files(path, numeric_features=numeric_features(model, features) or None,
                  drop=[c for c in columns if c not in features and c != target], **settings)
    return files, features, layout.n_partitions


def batch_predictions(model, features, proba, X):
    """``(positions, probabilities)`` of a batch of rows of ``features`` (read in any order; a DataFrame or an
    Arrow table): the predicted classes' positions in ``model.classes_`` (a clusterer's cluster numbers), and
    their probabilities when ``proba`` (else None)."""
    if is_arrow_table(X):
        X = X if X.column_names == features else X.select(features)
    elif list(X.columns) != features:
        X = X[features]
    return model.predict_part(X, proba)


class BatchPredictor:
    """:func:`batch_predictions` of ``model``'s ``features``, with probabilities when ``proba``."""

    def __init__(self, model, features, proba):
        self.model, self.features, self.proba = model, features, proba

    def __call__(self, X):
        return batch_predictions(self.model, self.features, self.proba, X)


def probability_columns(model, probabilities):
    """``{"proba_<class>": column}`` of a partition's probabilities (none when None); clusters are numbered."""
    if probabilities is None:
        return {}
    names = getattr(model, "classes_", range(probabilities.shape[1]))
    return {f"proba_{c}": probabilities[:, k] for k, c in enumerate(names)}


def predictions_frame(model, positions, probabilities):
    """The predictions as a DataFrame: ``prediction`` (the labels, made once per class by a pandas Index) and,
    with ``probabilities``, a ``proba_<class>`` column per class."""
    classes = getattr(model, "classes_", None)
    labels = positions if classes is None else pd.Index(classes).take(positions)
    return pd.DataFrame({"prediction": labels, **probability_columns(model, probabilities)})


def predictions_table(model, positions, probabilities):
    """:func:`predictions_frame` as an Arrow table, string labels as a dictionary column of the classes: the
    Parquet writer then encodes the classes once, not a string per row."""
    import pyarrow as pa

    classes = getattr(model, "classes_", None)
    if classes is None:
        labels = pa.array(positions)
    elif all(isinstance(c, str) for c in classes):
        labels = pa.DictionaryArray.from_arrays(positions.astype(np.int32), pa.array(list(classes), pa.string()))
    else:
        labels = pa.array(pd.Index(classes).take(positions))
    return pa.table({"prediction": labels, **probability_columns(model, probabilities)})


#: Values (rows x the model's columns) of a partition predicted at a time: its memory is that of one batch,
#: whatever the partition's size (a batch of 2^20 values decoded by pyarrow takes about 20 MiB).
BATCH_VALUES = 2**20


class PartitionOutput:
    """The task of partition ``index``: :func:`partition_output` of it with these settings.

    Tokenized by the identity of ``predict`` (which holds the model) and the settings, so that building
    the graph does not pickle the model once per partition.
    """

    def __init__(self, predict, keep, directory, storage_options, index):
        self.predict, self.keep, self.directory = predict, keep, directory
        self.storage_options, self.index = storage_options, index

    def __call__(self, readers):
        return partition_output(self.predict, self.keep, self.directory, self.storage_options, self.index, readers)

    def __dask_tokenize__(self):
        return ("nbparallel-partition-output", id(self.predict), tuple(self.keep), str(self.directory),
                repr(self.storage_options), self.index)


def partition_output(predict, keep, directory, storage_options, index, readers):
    """One partition's output: the ``keep`` columns and ``predict`` of the model's columns, read
    :data:`BATCH_VALUES` values at a time; returned, or written to ``directory`` (a path, or a URL string; then
    its row count).

    ``readers`` are the partition's :class:`~nbparallel.data.files.readers.PieceReader` of the model's
    columns and, with ``keep``, that of the columns to copy (read whole).
    """
    reader, copier = readers
    parts = [predict(batch) for batch in reader.batches(max(1, BATCH_VALUES // len(reader.columns)), tables=True)]
    positions = np.concatenate([p for p, _ in parts])
    probabilities = None if parts[0][1] is None else np.concatenate([q for _, q in parts])
    name = None if directory is None else str(directory).rstrip("/\\")
    suffix = ".csv" if name is not None and name.lower().endswith(".csv") else ".parquet"
    if name is not None and suffix == ".parquet" and not keep:
        write_table(predictions_table(predict.model, positions, probabilities), f"{name}/part-{index:05d}{suffix}",
                    storage_options)
        return len(positions)
    out = predictions_frame(predict.model, positions, probabilities)
    if keep:
        copied = copier.read()
        if len(copied) != len(out):
            raise ValueError(f"partition {index} gave {len(out)} predictions for {len(copied)} rows: "
                             "the files changed while they were read")
        out = pd.concat([copied[list(keep)].reset_index(drop=True), out], axis=1)
    if name is None:
        return out
    write_table(out, f"{name}/part-{index:05d}{suffix}", storage_options)
    return len(out)


def predict_files(model, path, *, settings=None, keep=(), proba=False, directory=None, verbose=False):
    """Predict every row of the files: one DataFrame per partition, or its row count once written as
    ``directory/part-NNNNN.parquet`` (``.csv`` when the directory's name ends so).

    The partitions are the files' own (not the training data's number), so
    each file gets its own output file. Each is read and predicted
    :data:`BATCH_VALUES` values at a time, inside its task, and its output
    written once. The ``keep`` columns are copied as the files hold them,
    read beside the model's columns partition by partition (any type: they
    are no attributes).
    """
    keep = list(keep)
    files, features, n_partitions = scoring_files(model, path, settings, keep=keep)
    model.set_params(n_partitions=n_partitions)
    data = model.dataset(files, None, require_target=False)
    copiers = file_readers(Files(path, **dict(settings or {})), columns=keep) if keep else [None] * len(data.readers)
    if len(copiers) != len(data.readers):
        raise ValueError(f"{len(copiers)} partitions of columns to copy for {len(data.readers)} to predict")
    if directory is not None and not isinstance(directory, str):
        directory.mkdir(exist_ok=True)
    predict = BatchPredictor(model, features, proba)
    storage_options = dict(settings or {}).get("storage_options")
    tasks = [Tallied(PartitionOutput(predict, keep, directory, storage_options, i)) for i in range(len(data.readers))]
    parts = execution.map_read_partitions(list(zip(data.readers, copiers)), tasks, name="nbparallel-cli-predict",
                                          token=execution.token_of(data.token, keep), verbose=verbose)
    return untallied(parts, model.fitted_categories)


class Written(NamedTuple):
    """What :func:`predict_to` wrote: its rows, and its files (1 for a single file)."""

    n_rows: int
    n_files: int


def is_file_input(data):
    """Whether ``data`` names files (a path, a URL or a :class:`Files`), read as the model scores them."""
    return isinstance(data, (str, os.PathLike, Files))


def in_memory_partitions(data):
    """``data`` as a sequence of partitions, each computed only when it is taken (a Dask collection's), or
    the data itself as one."""
    blocks = computed_blocks(data)
    return iter([data]) if blocks is None else blocks


def predictions_of(model, X, proba, keep):
    """The output frame of one in-memory partition: its ``keep`` columns, ``prediction`` and, with ``proba``,
    a ``proba_<class>`` column per class."""
    copied = X[list(keep)].reset_index(drop=True) if keep else None
    names = getattr(model, "feature_names_in_", None)
    if hasattr(X, "columns") and names is not None and set(names) <= set(X.columns):
        X = X[list(names)]  # the model's columns, as files are read: others (kept ones too) are no attributes
    out = pd.DataFrame({"prediction": np.asarray(model.predict(X))})
    if proba:
        out = pd.concat([out, pd.DataFrame(probability_columns(model, model.predict_proba(X)))], axis=1)
    if keep:
        out = pd.concat([copied, out], axis=1)
    return out


def predict_in_memory(model, data, proba, keep, directory):
    """Predict an array, DataFrame or Dask collection a partition at a time: the frames, or their row
    counts once written to ``directory``."""
    if keep and not hasattr(data, "columns"):
        raise ValueError("keep names columns to copy: give the data as a DataFrame (or Dask DataFrame)")
    if keep:
        check_columns(keep, list(data.columns), "keep")
    parts = []
    for index, X in enumerate(in_memory_partitions(data)):
        out = predictions_of(model, X, proba, keep)
        if directory is None:
            parts.append(out)
            continue
        name = str(directory).rstrip("/\\")
        suffix = ".csv" if name.lower().endswith(".csv") else ".parquet"
        write_table(out, f"{name}/part-{index:05d}{suffix}")
        parts.append(len(out))
    return parts


def predict_parts(model, data, proba, keep, directory, settings, verbose):
    """The per-partition outputs of ``data`` (frames, or row counts once written to ``directory``)."""
    if not is_file_input(data):
        return predict_in_memory(model, data, proba, keep, directory)
    if isinstance(data, Files):  # its read settings; the model decides the columns it reads
        given = {"na_values": data.na_values and list(data.na_values), "delimiter": data.delimiter,
                 "encoding": data.encoding, "storage_options": data.storage_options}
        data, settings = data.path, {**{k: v for k, v in given.items() if v is not None}, **settings}
    n_partitions = model.get_params()["n_partitions"]
    try:
        return predict_files(model, data, settings=settings, keep=keep, proba=proba, directory=directory,
                             verbose=verbose)
    finally:
        model.set_params(n_partitions=n_partitions)


def predict_to(model, path, data, *, proba=False, keep=None, verbose=False, **read_options):
    """Predict every row of ``data`` and write the predictions to ``path``; see ``model.predict_to``."""
    keep = list(keep or ())
    directory = output_directory(path)
    if directory is None:
        parts = predict_parts(model, data, proba, keep, None, read_options, verbose)
        out = pd.concat(parts, ignore_index=True)
        write_table(out, path, read_options.get("storage_options"))
        return Written(len(out), 1)
    if is_url(directory):
        return predict_to_url_directory(model, directory, data, proba, keep, read_options, verbose)
    if not directory.parent.is_dir():
        raise ValueError(f"the output directory {str(directory.parent)!r} of {str(directory)!r} does not exist")
    staging = directory.parent / f".tmp-{uuid.uuid4().hex}-{directory.name}"  # its suffix: the parts' format
    staging.mkdir()
    try:
        parts = predict_parts(model, data, proba, keep, staging, read_options, verbose)
        directory.mkdir(exist_ok=True)
        for part in sorted(staging.iterdir()):
            part.replace(directory / part.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Written(sum(parts), len(parts))


def predict_to_url_directory(model, directory, data, proba, keep, read_options, verbose):
    """:func:`predict_to` for a directory URL: the parts are written under a staging prefix beside it and
    moved into it once every part is written, so a failure leaves no part behind."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(directory, **(read_options.get("storage_options") or {}))
    root = root.rstrip("/")
    parent, _, name = root.rpartition("/")
    staging = f"{parent}/.tmp-{uuid.uuid4().hex}-{name}"  # its suffix: the parts' format
    protocol = directory.split("://", 1)[0]
    try:
        parts = predict_parts(model, data, proba, keep, f"{protocol}://{staging}", read_options, verbose)
        for part in sorted(fs.ls(staging, detail=False)):
            fs.mv(part, f"{root}/{part.rstrip('/').rpartition('/')[2]}")
    finally:
        if fs.exists(staging):
            fs.rm(staging, recursive=True)
    return Written(sum(parts), len(parts))

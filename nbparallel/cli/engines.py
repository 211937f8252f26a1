"""``--spark`` and ``--ray`` (or a cluster config of kind ``spark`` or ``ray``): the engine a command starts and
stops, and its data files read by that engine, so that every pass runs on it.

A command's CSV and Parquet files become a Spark DataFrame or a Ray Dataset whose partitions follow the files
(sorted, as every route lists them) and each file's rows, so that the folds of ``cv`` and the row order of
``predict`` and ``explain`` are those of the files. CSV files are read with the column types and the
missing-value strings that this process's reader gives them, so that the model is the one the same command
without the engine fits. Predictions are collected into this process and written as the local route writes
them. The engines' own imports are in :mod:`nbparallel.engine.backends.spark` and
:mod:`nbparallel.engine.backends.ray`.
"""

from __future__ import annotations

import contextlib


class Engine:
    """A started engine: ``option`` (``--spark``, ``--ray``, for errors), how it reads files and collects rows.

    ``read(paths, kind, columns=..., **csv_settings)`` returns the engine's collection of the files' ``columns``;
    ``collect(collection, columns)`` an Arrow table of its rows.
    """

    def __init__(self, option, read, collect):
        self.option, self.read, self.collect = option, read, collect

    def files(self, path, settings, drop=None):
        """The CSV or Parquet file or directory ``path`` as the engine's collection, read with ``settings``
        (``Files`` keywords: ``na_values``, ``delimiter``, ``encoding``), less the ``drop`` columns."""
        from nbparallel.data.columns import NA_VALUES
        from nbparallel.data.files import Files
        from nbparallel.data.files.csv import delimiter_of
        from nbparallel.data.files.listing import list_files
        from nbparallel.data.files.options import ReadOptions
        from nbparallel.data.files.readers import file_readers
        from nbparallel.models.prediction_files import check_columns

        if settings.get("storage_options"):
            raise ValueError(f"--storage-option is not taken with {self.option}: the engine reaches the files "
                             "with its own filesystem settings")
        paths, kind = list_files(path)
        if kind not in ("csv", "parquet"):
            raise ValueError(f"{self.option} reads CSV and Parquet files; {str(path)!r} holds {kind} files")
        types = file_readers(Files(path, **settings))[0].types
        if drop:
            check_columns(drop, list(types), "--drop")
        csv = {}
        if kind == "csv":
            options = ReadOptions.of(settings)
            csv = {"types": types, "delimiter": delimiter_of(paths[0], options), "encoding": options.encoding,
                   "null_values": [*NA_VALUES, *(str(v) for v in settings.get("na_values") or ())]}
        return self.read(paths, kind, columns=[c for c in types if c not in (drop or ())], **csv)


def engine_settings(args):
    """``("spark", master, conf)``, ``("ray", address, num_cpus)`` or None: the engine the options name, by
    ``--spark``, ``--ray`` or a ``--cluster`` config of kind ``spark`` or ``ray``."""
    if getattr(args, "spark", None):
        return "spark", args.spark, {}
    if getattr(args, "ray", None):
        return "ray", args.ray, None
    if getattr(args, "cluster", None):
        from nbparallel.cluster import load_config

        config = load_config(args.cluster)
        if config["kind"] == "spark":
            return "spark", config["options"]["master"], config["options"].get("conf") or {}
        if config["kind"] == "ray":
            return "ray", config["options"]["address"], config["options"].get("num_cpus")
    return None


@contextlib.contextmanager
def started_engine(settings):
    """The :class:`Engine` of :func:`engine_settings`' ``settings``, started, and stopped on exit (on failure
    too)."""
    from nbparallel.engine.backends import ray, spark

    kind, where, extra = settings
    if kind == "spark":
        with spark.session_from(where, extra) as session:
            yield Engine("--spark", lambda paths, kind, **csv: spark.read_files(session, paths, kind, **csv),
                         spark.to_arrow)
        return
    with ray.connect(where, extra):
        yield Engine("--ray", ray.read_files, ray.to_arrow)

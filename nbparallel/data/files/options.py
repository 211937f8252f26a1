"""The options of reading data files: :class:`Files`, a path that carries them, and :class:`ReadOptions`.

:class:`Files` is a file or directory path (or URL) with the options for
reading it (missing-value strings, numeric and dropped columns, storage
options, delimiter, encoding); :class:`ReadOptions` is the part of them a
partition's read needs. Listing the files of a path is
:mod:`nbparallel.data.files.listing`; reading them is
:mod:`nbparallel.data.files.readers` and one module per format.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from nbparallel.data.files.filesystems import store_of


class Files(os.PathLike):
    """A file or directory path with options for reading it; use it wherever a path goes.

    Parameters
    ----------
    path : str or PathLike
    na_values : str or list of str, optional
        Strings that mean a missing value, besides pandas' defaults (for
        example Weka's ``"?"``). In CSV files they apply to every column, so
        a numeric column with ``?`` stays numeric; in Parquet files they
        apply to string values.
    numeric_features : list of str, optional
        Columns read as numbers (float64) in every file, whatever their
        values look like: a CSV column is parsed as float64 from the start,
        a Parquet text column is parsed after reading. A value that is
        neither a number nor missing (``na_values``) raises ValueError naming
        the column, the file and the value; dates raise TypeError. The
        estimators' ``numeric_features`` does the same for their data.
    drop : list of str, optional
        Columns that are no attributes (ids, leaks): no pass reads them. A
        name that is no column of the files raises ValueError naming it, and
        so does dropping the target or weight column.
    storage_options : dict, optional
        fsspec options of a URL's filesystem (``s3://``, ``gs://``,
        ``abfs://``, ...): credentials, ``endpoint_url``, ``anon`` and so on,
        as ``dask.dataframe.read_parquet`` takes them. The files are listed
        and read by pyarrow through that filesystem, inside the tasks that
        use them. A URL without options uses the environment's credentials.
    delimiter : str, optional
        The one character between the fields of a CSV file (``","`` by
        default, a tab for ``.tsv`` files), such as ``";"``.
    encoding : str, optional
        The text encoding of CSV and ARFF files (``"utf-8"`` by default),
        such as ``"latin-1"``.

    Examples
    --------
    >>> from nbparallel import Files
    >>> Files("data/", delimiter=";", na_values="?").delimiter
    ';'

    Wherever a path goes (these read files that are not here)::

        NaiveBayes().fit(Files("credit.csv", na_values="?", drop=["id"]), "class")
        NaiveBayes().fit(Files("s3://bucket/credit/", storage_options={"anon": True}), "class")
    """

    def __init__(self, path, *, na_values=None, numeric_features=None, drop=None, storage_options=None,
                 delimiter=None, encoding=None):
        if isinstance(na_values, str):
            na_values = [na_values]
        if na_values is not None and not all(isinstance(v, str) for v in na_values):
            raise TypeError(f"na_values must be a string or a list of strings, got {na_values!r}")
        if numeric_features is not None and (isinstance(numeric_features, str) or not all(
                isinstance(c, str) for c in numeric_features)):
            raise TypeError(f"numeric_features must be a list of column names, got {numeric_features!r}")
        if drop is not None and (isinstance(drop, str) or not all(isinstance(c, str) for c in drop)):
            raise TypeError(f"drop must be a list of column names, got {drop!r}")
        if isinstance(path, Files):  # its place (and store options, unless given anew) with these read options
            storage_options = path.storage_options if storage_options is None else storage_options
            path = path.path
        if delimiter is not None and not (isinstance(delimiter, str) and len(delimiter) == 1
                                          and delimiter not in "\r\n\"'"):
            raise ValueError(f"delimiter must be one character (not a quote or a line end), got {delimiter!r}")
        if encoding is not None:
            import codecs

            if not isinstance(encoding, str):
                raise TypeError(f"encoding must be the name of a text encoding, got {encoding!r}")
            try:
                encoding = codecs.lookup(encoding).name
            except LookupError:
                raise ValueError(f"encoding {encoding!r} is not a known text encoding (such as 'utf-8', "
                                 "'latin-1', 'cp1252')") from None
        self.store, self.path = store_of(path, storage_options)
        self.storage_options = None if self.store is None else self.store.options
        self.na_values = None if na_values is None else tuple(na_values)
        self.numeric_features = None if numeric_features is None else tuple(numeric_features)
        self.drop = () if drop is None else tuple(drop)
        self.delimiter = delimiter
        self.encoding = encoding

    def __fspath__(self):
        return self.path

    def __repr__(self):
        extra = "".join(f", {k}={v!r}" for k, v in (("delimiter", self.delimiter), ("encoding", self.encoding))
                        if v is not None)
        if self.storage_options:  # their keys only: values may be credentials
            extra += f", storage_options={{{', '.join(repr(k) + ': ...' for k in sorted(self.storage_options))}}}"
        return (f"Files({self.path!r}, na_values={self.na_values!r}, numeric_features={self.numeric_features!r}, "
                f"drop={self.drop!r}{extra})")


@dataclass(frozen=True)
class ReadOptions:
    """How the rows of text files are read: what a partition's read needs besides the columns and types."""

    #: strings read as missing, besides pandas' defaults
    na_values: tuple | None = None
    #: the CSV field delimiter (None: ``","``, or a tab for ``.tsv`` files)
    delimiter: str | None = None
    #: the text encoding of CSV and ARFF files (None: UTF-8)
    encoding: str | None = None
    #: ``((column, token), ...)``: CSV columns of numbers whose one other token is read as missing
    missing_tokens: tuple = ()

    @classmethod
    def of(cls, path):
        """The read options of a path (:class:`Files` or plain); a :class:`ReadOptions` or a tuple of
        ``na_values`` (the older form) is taken as it is."""
        if isinstance(path, ReadOptions):
            return path
        if isinstance(path, Files):
            return cls(path.na_values, path.delimiter, path.encoding)
        if isinstance(path, (tuple, list)):
            return cls(tuple(path))
        return cls()


def dropped_columns(path, names, roles=()):
    """The columns a :class:`Files` path drops (``()`` for a plain path), checked against the files' column
    ``names`` and the target and weight columns named in ``roles``; ValueError naming a wrong one."""
    drop = path.drop if isinstance(path, Files) else ()
    for name in drop:
        if name not in names:
            raise ValueError(f"drop names column {name!r}, which is not in the data {list(names)}")
        if name in roles:
            raise ValueError(f"column {name!r} is both dropped and named as the target or weight column")
    return drop

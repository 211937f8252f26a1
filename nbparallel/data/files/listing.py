"""The data files a path names: their list and format, and what identifies each file cheaply.

:func:`list_files` lists a file, a directory or a URL (one format per
directory, chosen by the names' suffixes, see :func:`kind_of`);
:func:`file_signature`, :func:`file_size` and :func:`unit_store` tell a listed
file's size, version and store, local or remote alike.
"""

from __future__ import annotations

import os
from pathlib import Path

from nbparallel.data.files.filesystems import RemoteFile, list_remote, remote_info, signature_of, store_of
from nbparallel.data.files.options import Files

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.zst", ".tsv", ".tsv.gz", ".tsv.bz2", ".tsv.zst")
ARFF_SUFFIXES = (".arff", ".arff.gz", ".arff.bz2", ".arff.zst")


def kind_of(name):
    """The format of a file by its name's suffix (any case): "parquet", "csv", "arff" or None.

    >>> kind_of("a.PARQUET"), kind_of("b.tsv"), kind_of("iris.arff"), kind_of("notes.txt")
    ('parquet', 'csv', 'arff', None)
    """
    name = name.lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(CSV_SUFFIXES):
        return "csv"
    if name.endswith(ARFF_SUFFIXES):
        return "arff"
    return None


_KINDS_NAMED = "CSV (.csv, .tsv), ARFF (.arff) or Parquet (.parquet, .pq)"
_NAMES = {"parquet": "Parquet", "csv": "CSV", "arff": "ARFF"}


def list_files(path):
    """The data files of a file or directory path or URL, sorted, and their format.

    Files directly in a directory are read; hidden files and names starting
    with ``_`` (``_SUCCESS``, ``_metadata``) are skipped. Suffixes are
    matched without regard to case. A URL (or a :class:`Files` of one) is
    listed through its filesystem, once.

    Returns
    -------
    files : list of pathlib.Path, or of :class:`~nbparallel.data.files.filesystems.RemoteFile` for a URL
    kind : "parquet", "csv" or "arff"
    """
    store, text = (path.store, path.path) if isinstance(path, Files) else store_of(path)
    if store is not None:
        shape, entries = list_remote(text, store)
        if shape == "file":
            if kind_of(entries[0].name) is None:
                raise ValueError(f"data path {text!r} is neither {_KINDS_NAMED}")
            return entries, kind_of(entries[0].name)
        files = sorted((e for e in entries if isinstance(e, RemoteFile) and not e.name.startswith((".", "_"))),
                       key=lambda e: e.name)
        nested = [e[:-1] for e in entries if isinstance(e, str) and not e.startswith((".", "_"))]
        return _one_kind(text, files, nested)
    p = Path(text)
    if not p.exists():
        raise ValueError(f"data path {str(p)!r} does not exist")
    if p.is_file():
        kind = kind_of(p.name)
        if kind is None:
            raise ValueError(f"data path {str(p)!r} is neither {_KINDS_NAMED}")
        return [p], kind
    entries = sorted(f for f in p.iterdir() if not f.name.startswith((".", "_")))
    return _one_kind(str(p), [f for f in entries if f.is_file()], [f.name for f in entries if f.is_dir()])


def _one_kind(directory, files, nested):
    by_kind = {}
    for f in files:
        if kind_of(f.name) is not None:
            by_kind.setdefault(kind_of(f.name), []).append(f)
    if len(by_kind) > 1:
        a, b = [k for k in ("parquet", "csv", "arff") if k in by_kind][:2]
        raise ValueError(
            f"directory {directory!r} holds both {_NAMES[a]} files ({by_kind[a][0].name}, ...) and {_NAMES[b]} "
            f"files ({by_kind[b][0].name}, ...): put each kind in its own directory")
    if not by_kind:
        hint = f"; its subdirectories {nested[:3]} are not read" if nested else ""
        raise ValueError(f"directory {directory!r} holds no {_KINDS_NAMED} files{hint}")
    (kind, found), = by_kind.items()
    return found, kind


def file_signature(path, store=None):
    """What identifies a file's contents cheaply: its size and modification time (or, in a store, the
    size and version its listing gave)."""
    if isinstance(path, RemoteFile):
        return path.signature
    if store is not None:
        info = remote_info(str(path), store)
        return int(info.get("size") or 0), signature_of(info)[1]
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def file_size(path):
    """The size in bytes of a local path or a listed :class:`RemoteFile`."""
    return path.size if isinstance(path, RemoteFile) else os.stat(path).st_size


def unit_store(path):
    """The :class:`Store` of a listed file (None for a local one)."""
    return path.store if isinstance(path, RemoteFile) else None

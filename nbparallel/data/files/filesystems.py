"""Where files live: local paths, or fsspec URLs (``s3://``, ``gs://``, ``abfs://``, ``memory://``) opened by
pyarrow through their filesystem inside the task that reads them.

A local path (or a ``file://`` URL) is read with the operating system's calls, as it always was. A URL
names a :class:`Store`: its protocol and the fsspec ``storage_options`` (credentials, endpoint), a small
picklable value that a task sends to a worker, where :meth:`Store.filesystem` makes (or takes from
fsspec's cache) the filesystem; no open handle ever travels. Listing gives each file a :class:`RemoteFile`
with its size and a signature (ETag or modification time) taken from the listing itself, so that no file
is asked twice; a read asks the store again (its cache dropped) and refuses a file deleted or changed
since it was listed.

The storage libraries are optional extras (``pip install nbparallel[s3]``, ``[gcs]``, ``[azure]``): a URL
whose library is missing raises ImportError naming the package to install.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from nbparallel.engine import execution

#: The package that gives fsspec each protocol, for the message when it is missing.
PACKAGES = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "abfs": "adlfs", "abfss": "adlfs",
            "az": "adlfs", "adl": "adlfs"}


def is_url(path):
    """Whether ``path`` is a URL of a filesystem other than the local one (``file://`` is local).

    >>> is_url("s3://bucket/data"), is_url("file:///tmp/x.csv"), is_url("data/x.csv")
    (True, False, False)
    """
    text = os.fspath(path) if isinstance(path, os.PathLike) else path
    return isinstance(text, str) and "://" in text and not text.startswith("file://")


def local_path(path):
    """A local path without its ``file://`` prefix.

    >>> local_path("file:///tmp/x.csv")
    '/tmp/x.csv'
    """
    text = os.fspath(path)
    return text.removeprefix("file://")


@dataclass(frozen=True, eq=False)
class Store:
    """A filesystem as a picklable value: an fsspec protocol and its ``storage_options``.

    Two stores are equal when their protocol and options are; the repr names the protocol and the option
    keys, never their values (credentials).
    """

    protocol: str
    options: dict = field(default_factory=dict)

    def filesystem(self):
        """The fsspec filesystem (fsspec keeps one instance per protocol and options in each process)."""
        import fsspec

        try:
            return fsspec.filesystem(self.protocol, **self.options)
        except ImportError as exc:
            package = PACKAGES.get(self.protocol, f"the fsspec implementation of {self.protocol!r}")
            raise ImportError(f"reading {self.protocol}:// URLs needs {package}: pip install {package} "
                              f"(or nbparallel[{_EXTRAS.get(package, 'storage')}]); {exc}") from None
        except ValueError as exc:
            raise ValueError(f"unknown filesystem protocol {self.protocol!r} in a data URL: {exc}") from None
        except TypeError as exc:
            raise TypeError(f"storage_options {sorted(self.options)} do not suit {self.protocol}:// URLs: "
                            f"{exc}") from None

    def key(self):
        return self.protocol, execution.token_of(self.options)

    def __eq__(self, other):
        return isinstance(other, Store) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return f"Store({self.protocol!r}, options={sorted(self.options)!r}, token={self.key()[1][:8]!r})"


_EXTRAS = {"s3fs": "s3", "gcsfs": "gcs", "adlfs": "azure"}


def store_of(path, storage_options=None):
    """``(store, path)``: the :class:`Store` of a URL and the URL, or ``(None, local path)``.

    ``storage_options`` must be a dict and is for URLs only: given with a local path it raises ValueError.
    """
    if storage_options is not None and not isinstance(storage_options, dict):
        raise TypeError(f"storage_options must be a dict of fsspec options, got {type(storage_options).__name__}")
    text = os.fspath(path)
    if not is_url(text):
        if storage_options:
            raise ValueError(f"storage_options {sorted(storage_options)} are for URLs (s3://, gs://, ...), but "
                             f"{text!r} is a local path")
        return None, local_path(text)
    protocol = text.split("://", 1)[0].lower()
    return Store(protocol, dict(storage_options or {})), text


@dataclass(frozen=True)
class RemoteFile:
    """A file of a :class:`Store`, as listed: its URL, size and signature (ETag or time)."""

    url: str
    store: Store
    size: int
    signature: tuple

    @property
    def name(self):
        return self.url.rstrip("/").rsplit("/", 1)[-1]

    def __str__(self):
        return self.url

    def __fspath__(self):  # pragma: no cover - so that a RemoteFile is never taken for a local path
        raise TypeError(f"{self.url!r} is no local path")


def _with_protocol(store, path):
    return path if "://" in path else f"{store.protocol}://{path}"


def signature_of(info):
    """``(size, version)`` of an fsspec info dict: the ETag where the store gives one, else a time."""
    version = next((info[k] for k in ("ETag", "etag", "md5Hash", "generation", "mtime", "LastModified",
                                      "last_modified", "updated", "created") if info.get(k) is not None), "")
    return int(info.get("size") or 0), str(version)


def _describe(exc):
    text = str(exc) or type(exc).__name__
    return text if len(text) < 300 else text[:300] + "..."


def store_error(url, exc, doing="read"):
    """A ValueError naming ``url`` for an exception of a store: missing, refused (credentials) or other."""
    if isinstance(exc, FileNotFoundError):
        return ValueError(f"cannot {doing} {url!r}: it does not exist (or its bucket does not): {_describe(exc)}")
    if isinstance(exc, PermissionError) or "AccessDenied" in str(exc) or "InvalidAccessKeyId" in str(exc) \
            or "SignatureDoesNotMatch" in str(exc) or "Forbidden" in str(exc):
        return ValueError(f"cannot {doing} {url!r}: access refused; check the credentials in storage_options "
                          f"(--storage-option) or the environment: {_describe(exc)}")
    return ValueError(f"cannot {doing} {url!r}: {_describe(exc)}")


def remote_info(url, store):
    """The fsspec info of ``url``, asked of the store (its cache dropped); ValueError naming the URL."""
    fs = store.filesystem()
    try:
        fs.invalidate_cache(url)
        return fs.info(url)
    except Exception as exc:  # noqa: BLE001 - each store raises its own errors: all are named by the URL
        raise store_error(url, exc) from None


def list_remote(url, store):
    """``(kind, entries)`` of a URL: ``("file", [RemoteFile])`` or ``("directory", [RemoteFile or name of a
    subdirectory])``, from one listing."""
    fs = store.filesystem()
    info = remote_info(url, store)
    if info.get("type") != "directory":
        return "file", [RemoteFile(url, store, *signature_of(info)[:1], signature_of(info))]
    try:
        entries = fs.ls(url, detail=True)
    except Exception as exc:  # noqa: BLE001
        raise store_error(url, exc, "list") from None
    listed = []
    for entry in entries:
        path = _with_protocol(store, entry["name"])
        if entry.get("type") == "directory":
            listed.append(path.rstrip("/").rsplit("/", 1)[-1] + "/")
        else:
            listed.append(RemoteFile(path, store, int(entry.get("size") or 0), signature_of(entry)))
    return "directory", listed


def check_unchanged(url, store, signature):
    """Raise ValueError when the file at ``url`` was deleted or changed since it was listed."""
    try:
        info = remote_info(url, store)
    except ValueError as exc:
        raise ValueError(f"file {url!r} was deleted (or became unreadable) after the data was listed: fit again "
                         f"on data that stays unchanged during the fit ({exc})") from None
    if signature_of(info) != signature:
        raise ValueError(f"file {url!r} changed after the data was listed (size or version differ): fit again "
                         "on data that stays unchanged during the fit")


def open_input_file(path, store=None):
    """A random-access pyarrow file of a local path or of a URL of ``store`` (for Parquet)."""
    import pyarrow as pa

    if store is None:
        return pa.OSFile(str(path))
    fs = store.filesystem()
    try:
        handle = fs.open(path, "rb", cache_type="none")
    except Exception as exc:  # noqa: BLE001
        raise store_error(path, exc) from None
    return pa.PythonFile(handle, mode="r")


def read_bytes(path, store=None):
    """All the bytes of a local path or a URL (one request to a store)."""
    if store is None:
        with open(path, "rb") as file:
            return file.read()
    fs = store.filesystem()
    try:
        return fs.cat_file(path)
    except Exception as exc:  # noqa: BLE001
        raise store_error(path, exc) from None


def open_input_stream(path, store=None, head=False):
    """A pyarrow input stream of a local path or a URL, decompressed by its suffix (.gz, .bz2, .zst); with
    ``head``, a URL is fetched in small blocks (for reading its first line only)."""
    import pyarrow as pa

    if store is None:
        return pa.input_stream(str(path))
    compression = {"gz": "gzip", "bz2": "bz2", "zst": "zstd"}.get(path.rsplit(".", 1)[-1].lower())
    fs = store.filesystem()
    try:
        handle = fs.open(path, "rb", block_size=1 << 16) if head else fs.open(path, "rb")
    except Exception as exc:  # noqa: BLE001
        raise store_error(path, exc) from None
    return pa.input_stream(handle, compression=compression)


def write_table(table, path, *, storage_options=None, format=None):
    """Write a pandas DataFrame or Arrow table to a local path or a URL, completely or not at all.

    ``format`` is ``"csv"`` or ``"parquet"`` (by default from the suffix: ``.parquet``, ``.pq`` and
    ``.parq`` are Parquet, anything else CSV). A local file is written beside its place and renamed
    onto it (atomic on one filesystem); an object store (S3, GCS, Azure) makes an object visible only when
    its upload completes, so it is written in place; another filesystem writes a temporary name and moves
    it. Returns the path or URL written.

    >>> import pandas as pd, tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = write_table(pd.DataFrame({"a": [1, 2]}), os.path.join(d, "p.csv"))
    ...     open(os.path.join(d, "p.csv")).read()
    '"a"\\n1\\n2\\n'
    """
    import io

    import pyarrow as pa

    store, target = store_of(path, storage_options)
    if format is None:
        format = "parquet" if target.lower().endswith((".parquet", ".pq", ".parq")) else "csv"
    if format not in ("csv", "parquet"):
        raise ValueError(f"format must be 'csv' or 'parquet', got {format!r}")
    if not isinstance(table, pa.Table):
        table = pa.Table.from_pandas(table, preserve_index=False)
    buffer = io.BytesIO()
    if format == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, buffer)
    else:
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, buffer)
    data = buffer.getvalue()
    if store is None:
        directory = Path(target).parent
        if not directory.is_dir():
            raise ValueError(f"cannot write {target!r}: directory {str(directory)!r} does not exist")
        tmp = Path(f"{target}.tmp-{os.getpid()}")
        try:
            tmp.write_bytes(data)
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                tmp.unlink()
        return target
    fs = store.filesystem()
    try:
        if store.protocol in ("s3", "s3a", "gs", "gcs", "abfs", "abfss", "az", "adl", "memory"):
            fs.pipe_file(target, data)
        else:
            tmp = f"{target}.tmp-{os.getpid()}"
            fs.pipe_file(tmp, data)
            fs.mv(tmp, target)
    except Exception as exc:  # noqa: BLE001
        raise store_error(target, exc, "write") from None
    return target

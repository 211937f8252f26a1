"""CSV, Parquet and ARFF files and directories, local or at fsspec URLs, as partitions, read by pyarrow inside
the tasks that use them.

One module per part: :mod:`~.options` (:class:`Files` and the read options), :mod:`~.listing`
(the files of a path, their format and signatures), :mod:`~.column_names` (checks of the files' column names),
:mod:`~.filesystems` (local paths and URLs of object stores: listing, opening, :func:`write_table`),
:mod:`~.arrow` (Arrow tables to pandas), :mod:`~.pieces` (files and row groups
grouped into partitions), :mod:`~.csv`, :mod:`~.parquet` and :mod:`~.arff` (each format's
layout and reads), :mod:`~.dataset` (a path to a dataset).
"""

from nbparallel.data.files.readers import PieceReader, file_dataset, file_readers, read_files
from nbparallel.data.files.filesystems import write_table
from nbparallel.data.files.listing import list_files
from nbparallel.data.files.options import Files

__all__ = ["Files", "PieceReader", "file_dataset", "file_readers", "list_files", "read_files", "write_table"]

"""CSV and Parquet files and directories as partitions, read by pyarrow inside the tasks that use them.

One module per part: :mod:`~.options` (:class:`Files`, listing, layout rules),
:mod:`~.arrow` (Arrow tables to pandas), :mod:`~.pieces` (files and row groups
grouped into partitions), :mod:`~.csv` and :mod:`~.parquet` (each format's
layout and reads), :mod:`~.dataset` (a path to a dataset).
"""

from nbparallel.data.files.dataset import file_dataset, read_files, read_piece
from nbparallel.data.files.options import Files, list_files

__all__ = ["Files", "file_dataset", "list_files", "read_files", "read_piece"]

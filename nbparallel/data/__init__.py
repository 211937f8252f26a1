"""Inputs to partitions: columns, in-memory data and files become partitions of rows and the codes they count.

Bottom to top: :mod:`~nbparallel.data.columns` (kind names, missing-value tokens,
column rules), :mod:`~nbparallel.data.partitions`, :mod:`~nbparallel.data.factorize`
and :mod:`~nbparallel.data.encoding` (columns to codes), :mod:`~nbparallel.data.numeric_text`,
:mod:`~nbparallel.data.files` (one module per format), :mod:`~nbparallel.data.dataset`,
:mod:`~nbparallel.data.inputs` (any input to a dataset), :mod:`~nbparallel.data.sparse`
(count matrices), :mod:`~nbparallel.data.vocabularies` (vocabulary checks),
:mod:`~nbparallel.data.schema` (the schema and its encoder), :mod:`~nbparallel.data.schema_json`
(its JSON forms) and :mod:`~nbparallel.data.schema_pass` (the pass that finds it).
"""

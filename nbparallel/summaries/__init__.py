"""What one partition of a pass produces: every summary type, each with ``+``, an empty value and a JSON form.

:mod:`~.protocol` (the protocol and :func:`merge_summaries`), :mod:`~.counts`
(count tables and counting a partition), :mod:`~.dictionary_counts` (counts by
value against each partition's dictionaries), :mod:`~.moments` (Gaussian
moments), :mod:`~.features` (text models' feature sums), :mod:`~.expected`
(AutoClass expected counts), :mod:`~.evaluation` (confusion counts and
log-likelihood). The summaries that cross-validation uses also subtract.
"""

"""What one partition of a pass produces, and the counting passes that make it.

Every summary type has ``+``, an empty value and a JSON form:
:mod:`~.protocol` (the protocol and :func:`merge_summaries`), :mod:`~.counts`
(count tables, counting a partition and the counting pass), :mod:`~.dictionary_counts`
(counts by value against each partition's dictionaries, and the one-pass fit
that makes them), :mod:`~.moments` (Gaussian moments), :mod:`~.features` (text
models' feature sums), :mod:`~.expected` (AutoClass expected counts),
:mod:`~.evaluation` (confusion counts and log-likelihood), :mod:`~.fold_counts`
(cross-validation's per-fold summaries and the passes that count them). The
summaries that cross-validation uses also subtract.
"""

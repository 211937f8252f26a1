"""Running passes: where a pass runs, the binary-tree reduction, the pass scheduler, memory limits.

The engine knows nothing of the models: a pass is a function per partition and
a merge, :func:`~nbparallel.engine.execution.run_pass` runs it (in this process
for small data, else on Dask), :mod:`~nbparallel.engine.reduce` merges the
summaries by a tree of height ceil(log2 P) and records it, and
:class:`~nbparallel.engine.scheduler.PassScheduler` runs passes one after another
over the same partitions.
"""

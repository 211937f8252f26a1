"""Running passes: where a pass runs, the binary-tree reduction, the pass scheduler, memory limits.

The engine knows nothing of the models: a pass is a function per partition and a merge;
:func:`~nbparallel.engine.execution.run_pass` runs it on a backend of :mod:`~nbparallel.engine.backends`
(this process's threads for small data, else Dask), over partitions that are values or engine-neutral
recipes (:mod:`~nbparallel.engine.recipes`); :mod:`~nbparallel.engine.reduce` shapes the tree of height
ceil(log2 P) that every backend merges along and records it, and
:class:`~nbparallel.engine.scheduler.PassScheduler` runs passes one after another over the same partitions.
"""

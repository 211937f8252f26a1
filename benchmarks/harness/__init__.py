"""The benchmark harness of nbparallel: one module per experiment.

Each experiment is a function ``run(ctx) -> Result`` (:mod:`.report`); the
entry point ``benchmarks/run.py`` picks one, runs it and writes its results.
The package never imports this code.
"""

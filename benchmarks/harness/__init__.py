"""The benchmark harness of nbparallel: one module per experiment (or a few alike).

Every experiment is a function ``experiment(ctx) -> Result`` (:mod:`.report`) whose own
options are declared with :func:`.context.parameters`; ``benchmarks/run.py`` parses them,
runs it and writes its result. Timings go through :mod:`.timing`, synthetic data comes
from :mod:`.data`. The package never imports this code.
"""

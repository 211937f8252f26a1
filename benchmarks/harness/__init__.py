"""The benchmark harness of nbparallel: one module per experiment.

Each experiment is either a function ``run(ctx) -> Result`` (:mod:`.report`),
which ``benchmarks/run.py`` runs and writes, or a module whose ``main(argv)``
parses its own options and writes its own results into :data:`RESULTS` (or
``--results-dir``). Timings go through :func:`.timing.best_of` or
:func:`.timing.best_interleaved`. The package never imports this code.
"""

from pathlib import Path

#: where results are written unless ``--results-dir`` says otherwise
RESULTS = Path(__file__).resolve().parents[1] / "results"

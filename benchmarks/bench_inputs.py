"""Every input kind end to end, against the kernel and peers: ``python benchmarks/bench_inputs.py [--quick]``.

The same as ``nbparallel bench inputs [--quick]``; see ``harness/inputs.py``.
Writes ``benchmarks/results/inputs.{csv,json,png}`` (``inputs-quick.*`` with ``--quick``).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["inputs", *sys.argv[1:]]))

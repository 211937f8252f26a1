"""Fresh memory: how long allocating and filling a large array takes after a process freed one as large and
sat idle.

A virtual machine whose memory balloon reports free pages to its host (Linux's virtio-balloon free page
reporting, as on Firecracker microVMs) hands memory freed about 2 s earlier back to the host; touching it
again then faults on the host, page by page. A pass that returns a large array (a 20-class
``predict_proba`` of 10^6 rows: 160 MB) is timed with those faults whenever the memory it gets was freed a
while before, as happens in the passes benchmark, which runs other passes between two runs of one. This
probe measures that apart from any pass: in a fresh process per setting, each step frees the block, idles
``pause`` seconds, then times allocating and filling a new one. Once with glibc's defaults (a block this
large is mapped afresh and unmapped when freed: what a user's process gets) and once with glibc keeping
freed memory (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``, which a user may set), where the
block is reused and nothing goes back to the kernel. The machine's description says whether free page
reporting is on (``harness.machine.free_page_reporting``).

Usage::

    nbparallel bench fresh_memory              # 160 MiB, pauses 0-4 s, 3 repeats
    nbparallel bench fresh_memory --quick      # 16 MiB, short pauses, once

Writes ``fresh_memory.csv`` and ``.json`` into ``benchmarks/results/`` (or ``--results-dir``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from harness import RESULTS
from harness.machine import describe


#: glibc keeping freed memory: blocks under 1 GB from its heap, never trimmed back to the kernel.
KEEP_FREED = {"MALLOC_MMAP_THRESHOLD_": "1000000000", "MALLOC_TRIM_THRESHOLD_": "100000000000"}

SETTINGS = {"glibc defaults": {}, "glibc keeping freed memory": KEEP_FREED}


def probe(mib, pauses, repeat):
    """In this process: ``(pause, seconds)`` of allocating and filling ``mib`` MiB after freeing as much and
    idling ``pause`` seconds, every pause ``repeat`` times (interleaved)."""
    n = mib * 2**20 // 8
    block = np.empty(n)
    block.fill(1.0)  # the process's first touch, not timed
    timed = []
    for _ in range(repeat):
        for pause in pauses:
            del block
            time.sleep(pause)
            start = time.perf_counter()
            block = np.empty(n)
            block.fill(1.0)
            timed.append((pause, time.perf_counter() - start))
    return timed


def run_setting(env, mib, pauses, repeat):
    """:func:`probe` in a fresh process with ``env`` added to this one's environment."""
    runner = Path(__file__).resolve().parents[1] / "run.py"
    command = [sys.executable, str(runner), "fresh_memory", "--child", "--mib", str(mib), "--repeat", str(repeat),
               "--pauses", ",".join(str(p) for p in pauses)]
    done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=160, help="size of the block (default 160)")
    parser.add_argument("--pauses", default="0,0.5,1,2,4", help="seconds idle before each timing, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="16 MiB, pauses 0 and 0.1 s, once")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    pauses = [float(p) for p in args.pauses.split(",")]
    if args.child:
        print(json.dumps(probe(args.mib, pauses, args.repeat)))
        return 0
    if args.quick:
        args.mib, pauses, args.repeat = 16, [0.0, 0.1], 1
    rows = [{"setting": name, "mib": args.mib, "pause_s": pause, "seconds": seconds}
            for name, env in SETTINGS.items() for pause, seconds in run_setting(env, args.mib, pauses, args.repeat)]
    frame = pd.DataFrame(rows)
    summary = (frame.groupby(["setting", "pause_s"], sort=False)["seconds"].agg(["min", "median", "max"]) * 1e3)
    summary = summary.round(1).rename(columns=lambda c: f"{c}_ms").reset_index()
    machine = describe()
    print(f"## Allocating and filling {args.mib} MiB after freeing as much and idling (best, median and worst "
          f"of {args.repeat}); free page reporting: {machine['free_page_reporting']}\n")
    print(summary.to_string(index=False))
    args.results_dir.mkdir(parents=True, exist_ok=True)
    stem = "fresh_memory-quick" if args.quick else "fresh_memory"
    frame.to_csv(args.results_dir / f"{stem}.csv", index=False)
    (args.results_dir / f"{stem}.json").write_text(json.dumps(
        {"machine": machine, "mib": args.mib, "pauses_s": pauses, "repeat": args.repeat,
         "summary": summary.to_dict(orient="records")}, indent=1))
    print(f"\nwrote {args.results_dir / stem}.csv, .json")
    return 0

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

"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from harness.context import Parameter, parameters
from harness.machine import describe
from harness.report import Result


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
    benchmarks = str(Path(__file__).resolve().parents[1])
    command = [sys.executable, "-c", f"import json, sys; sys.path.insert(0, {benchmarks!r}); "
               f"from harness.fresh_memory import probe; print(json.dumps(probe({mib}, {pauses!r}, {repeat})))"]
    done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@parameters(mib=Parameter(160, "size of the block in MiB", quick=16),
            pauses=Parameter([0.0, 0.5, 1.0, 2.0, 4.0], "seconds idle before each timing", quick=[0.0, 0.1]),
            repeat=Parameter(3, "timings of each pause", quick=1))
def run(ctx):
    """Each setting's timings after each pause, and their best, median and worst."""
    mib, pauses, repeat = ctx.parameters["mib"], ctx.parameters["pauses"], ctx.parameters["repeat"]
    rows = [{"setting": name, "mib": mib, "pause_s": pause, "seconds": seconds}
            for name, env in SETTINGS.items() for pause, seconds in run_setting(env, mib, pauses, repeat)]
    frame = pd.DataFrame(rows)
    summary = (frame.groupby(["setting", "pause_s"], sort=False)["seconds"].agg(["min", "median", "max"]) * 1e3)
    summary = summary.round(1).rename(columns=lambda c: f"{c}_ms").reset_index()
    print(f"## Allocating and filling {mib} MiB after freeing as much and idling (best, median and worst "
          f"of {repeat}); free page reporting: {describe()['free_page_reporting']}")
    return Result("fresh_memory", frame, summary)

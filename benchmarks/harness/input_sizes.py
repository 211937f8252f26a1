"""The inputs of ``bench inputs`` at smaller sizes, where fixed costs show.

``nbparallel bench input_sizes [--rows 100000 1000000] [--inputs category str Parquet ...]``

For each size, the same table (20 attributes of 10 values, 2 classes; files
split into 40) is given as each chosen input and measured side by side as
``harness/inputs.py`` measures it: nbparallel ``fit`` on 2 threads, the kernel
alone on one, DuckDB and polars (when installed), best of 5 interleaved
repeats, in ns per row x attribute cell.
"""

import tempfile
from pathlib import Path

import pandas as pd

from harness import inputs as H
from harness.context import Parameter, parameters
from harness.report import Result


@parameters(rows=Parameter([100_000, 1_000_000], "sizes of the table", quick=[2_000]),
            inputs=Parameter(["uint8 0..9", "int64", "pandas, 20 category", "pandas, 20 object", "pandas, 20 str",
                              "Parquet", "CSV"], "prefixes of the input names of bench inputs",
                             quick=["uint8 0..9", "int64"]),
            repeat=Parameter(5, "interleaved timed rounds", quick=1))
def run(ctx):
    """ns per cell of every tool on every chosen input at every size."""
    args = ctx.parameters
    records, notes = [], []
    for n_rows in args["rows"]:
        codes, y = H.make_codes(n_rows)
        with tempfile.TemporaryDirectory(prefix="nbparallel-sizes-") as tmp:
            for name in H.INPUTS:
                if not any(name.startswith(prefix) for prefix in args["inputs"]):
                    continue
                X = H.build_input(name, codes, y, Path(tmp))
                tools = {H.NB: (H._nbparallel(name), H.WORKERS, 4.0, args["repeat"], None),
                         H.KERNEL: (H._kernel(name, codes, y), 1, 4.0, args["repeat"], None)}
                for tool, factory in ((H.DUCKDB, H._duckdb), (H.POLARS, H._polars)):
                    try:
                        tools[tool] = (factory(name), H.WORKERS, 4.0, args["repeat"], None)
                    except H.Skip as exc:
                        notes.append(f"{tool} skipped: {exc}")
                measured = H.measure_input(name, X, y, codes, tools, ctx, args["repeat"], notes)
                records += [{"table_rows": n_rows, **r} for r in measured]
    frame = pd.DataFrame(records)
    table = frame.pivot_table(index=["table_rows", "input"], columns="tool", values="ns_per_cell", sort=False)
    return Result("input_sizes", frame, table.reset_index(), notes=list(dict.fromkeys(notes)))

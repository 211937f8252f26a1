"""The inputs of ``bench inputs`` at smaller sizes, where fixed costs show.

``nbparallel bench input_sizes [--rows 100000 1000000] [--inputs category str Parquet ...]``

For each size, the same table (20 attributes of 10 values, 2 classes; files
split into 40) is given as each chosen input and measured side by side as
``harness/inputs.py`` measures it: nbparallel ``fit`` on 2 threads, the kernel
alone on one, DuckDB and polars (when installed), best of 5 interleaved
repeats, in ns per row x attribute cell. Writes
``benchmarks/results/input_sizes.csv``.
"""

import argparse
import tempfile
from pathlib import Path

import pandas as pd  # noqa: E402
from harness import RESULTS
from harness import inputs as H  # noqa: E402
from harness.context import Context  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--inputs", nargs="+", default=["uint8 0..9", "int64", "pandas, 20 category",
                                                        "pandas, 20 object", "pandas, 20 str", "Parquet", "CSV"],
                        help="prefixes of the input names of bench inputs")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--results-dir", type=Path, default=RESULTS, help="where to write the results")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, written as NAME-quick.*")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.repeat, args.inputs = [2_000], 1, args.inputs[:2]
    ctx = Context(False, Path("."), None)
    records, notes = [], []
    for n_rows in args.rows:
        codes, y = H.make_codes(n_rows)
        with tempfile.TemporaryDirectory(prefix="nbparallel-sizes-") as tmp:
            for name in H.INPUTS:
                if not any(name.startswith(prefix) for prefix in args.inputs):
                    continue
                X = H.build_input(name, codes, y, Path(tmp))
                tools = {H.NB: (H._nbparallel(name), H.WORKERS, 4.0, args.repeat, None),
                         H.KERNEL: (H._kernel(name, codes, y), 1, 4.0, args.repeat, None)}
                for tool, factory in ((H.DUCKDB, H._duckdb), (H.POLARS, H._polars)):
                    try:
                        tools[tool] = (factory(name), H.WORKERS, 4.0, args.repeat, None)
                    except H.Skip as exc:
                        notes.append(f"{tool} skipped: {exc}")
                measured = H.measure_input(name, X, y, codes, tools, ctx, args.repeat, notes)
                records += [{"table_rows": n_rows, **r} for r in measured]
    frame = pd.DataFrame(records)
    out = args.results_dir / f"input_sizes{'-quick' * args.quick}.csv"
    frame.to_csv(out, index=False)
    table = frame.pivot_table(index=["table_rows", "input"], columns="tool", values="ns_per_cell", sort=False)
    print(table.round(2).to_markdown() if _has_tabulate() else table.round(2).to_string())
    for note in dict.fromkeys(notes):
        print("note:", note)
    print(f"wrote {out}")


def _has_tabulate():
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True

"""Every kind of input, end to end, against the kernel alone and against other engines.

One table, 20 attributes of 10 values and 2 classes, given as each input users
have: uint8 codes, integers, floats, pandas ``category``, object and ``str``
columns, and Parquet and CSV directories. For each input, side by side in one
run (repeats interleaved, best kept):

- nbparallel ``fit`` on 2 workers (threads);
- the counting kernel alone, one thread, on the same data's codes;
- DuckDB, a ``GROUP BY GROUPING SETS ((a_j, y), ...)`` count of the same table;
- polars, ``group_by([a_j, y]).len()`` for every attribute, collected together;
- scikit-learn ``CategoricalNB`` (with the encoder it needs) on in-memory inputs;
- Spark MLlib: read, encode and fit on the Parquet directory; fit only, on
  cached one-hot data, for the uint8 input.

A run that would take longer than the time budget is measured on a prefix of
the rows (or of the files) and compared per cell (row x attribute): the
``rows`` column says how many. The 10-fold cross-validation on iris and the
peak memory of an in-memory fit (in a subprocess) are measured too. Peers that
are not installed are skipped with a note (``pip install nbparallel[bench]``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

os.environ.setdefault("POLARS_MAX_THREADS", "2")  # before polars is imported

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .report import Result, Target  # noqa: E402
from .timing import timed  # noqa: E402

N_ATTRIBUTES, N_VALUES, N_FILES, WORKERS = 20, 10, 40, 2
NAMES = [f"a{j}" for j in range(N_ATTRIBUTES)]
LEVELS = [f"v{v}" for v in range(N_VALUES)]

NB, KERNEL, DUCKDB, POLARS, SKLEARN, SPARK = (
    "nbparallel fit", "kernel alone", "DuckDB GROUP BY count", "polars group_by", "sklearn CategoricalNB",
    "Spark MLlib")

# input name -> (target group, in memory)
INPUTS = {
    "uint8 1..10, categorical_features='all'": ("a", True),
    "uint8 0..9, defaults": ("a", True),
    "int64 0..9, defaults": ("a", True),
    "float64, defaults (10 bins)": ("a", True),
    "pandas, 20 category columns": ("a", True),
    "pandas, 20 object string columns": ("b", True),
    "pandas, 20 str columns": ("b", True),
    f"Parquet directory, {N_FILES} files, string columns": ("b", False),
    f"CSV directory, {N_FILES} files": ("b", False),
}


class Skip(Exception):
    """A peer that cannot run here (not installed, no Java); the message says why."""


def _require(module):
    try:
        return __import__(module)
    except ImportError:
        raise Skip(f"{module} is not installed (pip install 'nbparallel[bench]')") from None


# ------------------------------------------------------------------ data


def make_codes(n_rows, seed=0):
    """Codes 0..9 (uint8, rows x attributes) and classes 0/1 that depend on them."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, N_VALUES, size=(n_rows, N_ATTRIBUTES), dtype=np.uint8)
    y = ((codes[:, 0].astype(np.int64) + codes[:, 1] + rng.integers(0, 10, n_rows)) > 13).astype(np.int64)
    return codes, y


def build_input(name, codes, y, directory):
    """The input ``name`` holding ``codes``: an array, a DataFrame or a directory path."""
    if name.startswith("uint8 1..10"):
        return codes + np.uint8(1)
    if name.startswith("uint8 0..9"):
        return codes
    if name.startswith("int64"):
        return codes.astype(np.int64)
    if name.startswith("float64"):
        rng = np.random.default_rng(1)
        return (codes + rng.random(codes.shape)) / N_VALUES  # bin v of [0, 1) holds code v
    if name.startswith("pandas, 20 category"):
        return pd.DataFrame({c: pd.Categorical.from_codes(codes[:, j], LEVELS) for j, c in enumerate(NAMES)})
    levels = np.array(LEVELS, dtype=object)
    if name.startswith("pandas, 20 object"):
        return pd.DataFrame({c: pd.Series(levels[codes[:, j]], dtype=object) for j, c in enumerate(NAMES)})
    if name.startswith("pandas, 20 str"):
        return pd.DataFrame({c: pd.Series(levels[codes[:, j]], dtype="str") for j, c in enumerate(NAMES)})
    return _write_files(name.split()[0].lower(), codes, y, directory / name.split()[0].lower())


def _write_files(kind, codes, y, directory):
    """``N_FILES`` files of string columns and a string class column ``y``."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    levels = pa.array(LEVELS)
    classes = pa.array(["no", "yes"])
    for i, rows in enumerate(np.array_split(np.arange(len(codes)), N_FILES)):
        a, b = rows[0], rows[-1] + 1
        columns = {c: levels.take(pa.array(codes[a:b, j])) for j, c in enumerate(NAMES)}
        table = pa.table({**columns, "y": classes.take(pa.array(y[a:b]))})
        if kind == "parquet":
            pq.write_table(table, directory / f"part-{i:03d}.parquet")
        else:
            pcsv.write_csv(table, directory / f"part-{i:03d}.csv")
    return directory


def _subset_dir(directory, k):
    """A directory of links to the first ``k`` files of ``directory``."""
    if k >= N_FILES:
        return directory
    sub = directory.parent / f"{directory.name}-first-{k}"
    if not sub.exists():
        sub.mkdir()
        for f in sorted(directory.iterdir())[:k]:
            (sub / f.name).symlink_to(f)
    return sub


def _rows_of(X, rows):
    return X.iloc[:rows] if isinstance(X, pd.DataFrame) else X[:rows]


# ------------------------------------------------------------------ tools
# Each maker takes (data, y, size) and returns a thunk; ``size`` is rows for
# in-memory data and files for directories.


def _nbparallel(name):
    from nbparallel import NaiveBayes

    kind = "all" if name.startswith("uint8 1..10") else "auto"

    def make(X, y, size, files):
        if files:
            path = _subset_dir(X, size)
            return lambda: NaiveBayes(categorical_features=kind).fit(path, "y")
        Xs, ys = _rows_of(X, size), y[:size]
        return lambda: NaiveBayes(categorical_features=kind, n_partitions=WORKERS).fit(Xs, ys)

    return make


def _kernel(name, codes, y):
    """count_partition on one thread: the codes 1..10 (compact table), or the floats binned in the pass."""
    from nbparallel.kernels import count_partition

    offsets = np.arange(N_ATTRIBUTES + 1, dtype=np.int64) * (N_VALUES + 1)
    coded = codes + np.uint8(1)

    def make(X, _, size, files):
        n = size if not files else len(codes) * size // N_FILES
        ys = y[:n]
        if name.startswith("float64"):
            edges = np.tile(np.arange(1, N_VALUES) / N_VALUES, (N_ATTRIBUTES, 1))
            no_codes, values = np.empty((n, 0), np.uint8), X[:n]
            return lambda: count_partition(no_codes, values, ys, None, offsets, edges, 2)
        cs, none = coded[:n], np.empty((n, 0))
        return lambda: count_partition(cs, none, ys, None, offsets, np.empty((0, 0)), 2)

    return make


def _frame_with_target(X, y):
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame({c: X[:, j] for j, c in enumerate(NAMES)})
    return frame.assign(y=y)


def _duckdb(name):
    duckdb = _require("duckdb")
    floats = name.startswith("float64")
    column = (lambda c: f"least(floor({c} * {N_VALUES}), {N_VALUES - 1})::INTEGER AS {c}") if floats else str
    sets = ", ".join(f"({c}, y)" for c in NAMES)

    def make(X, y, size, files):
        con = duckdb.connect()
        con.execute(f"SET threads = {WORKERS}")
        if files:
            path = _subset_dir(X, size)
            reader = "read_parquet" if next(path.iterdir()).suffix == ".parquet" else "read_csv"
            source = f"{reader}('{path}/*')"
        else:
            con.register("t", _frame_with_target(_rows_of(X, size), y[:size]))
            source = "t"
        query = (f"SELECT {', '.join(NAMES)}, y, count(*) FROM (SELECT {', '.join(map(column, NAMES))}, y "
                 f"FROM {source}) GROUP BY GROUPING SETS ({sets})")
        return lambda: con.execute(query).fetchall()

    return make


def _polars(name):
    pl = _require("polars")
    floats = name.startswith("float64")

    def make(X, y, size, files):
        if files:
            path = _subset_dir(X, size)
            scan = pl.scan_parquet if next(path.iterdir()).suffix == ".parquet" else pl.scan_csv
            lazy = lambda: scan(str(path / "*"))  # noqa: E731
        else:
            frame = pl.from_pandas(_frame_with_target(_rows_of(X, size), y[:size]))  # not timed
            lazy = frame.lazy
        key = (lambda c: (pl.col(c) * N_VALUES).floor().clip(upper_bound=N_VALUES - 1)) if floats else pl.col

        def run():
            base = lazy()
            return pl.collect_all([base.group_by([key(c), "y"]).len() for c in NAMES])

        return run

    return make


def _sklearn(name):
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

    def make(X, y, size, files):
        Xs, ys = _rows_of(X, size), y[:size]
        if name.startswith(("uint8", "int64")):
            return lambda: CategoricalNB().fit(Xs, ys)
        if name.startswith("float64"):
            bins = KBinsDiscretizer(n_bins=N_VALUES, encode="ordinal", strategy="uniform")
            return lambda: CategoricalNB().fit(bins.fit_transform(Xs), ys)
        return lambda: CategoricalNB().fit(OrdinalEncoder().fit_transform(Xs), ys)

    return make


# ------------------------------------------------------------------ Spark


@contextlib.contextmanager
def spark_session():
    """A local[2] Spark session, or Skip when pyspark or Java is missing."""
    _require("pyspark")
    from pyspark.sql import SparkSession

    try:
        spark = (SparkSession.builder.master(f"local[{WORKERS}]").appName("nbparallel-inputs")
                 .config("spark.sql.execution.arrow.pyspark.enabled", "true")
                 .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                 .config("spark.driver.memory", "6g")
                 .config("spark.sql.shuffle.partitions", str(2 * WORKERS)).getOrCreate())
    except Exception as exc:  # no Java runtime, ...
        raise Skip(f"Spark did not start: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}") from None
    spark.sparkContext.setLogLevel("ERROR")
    try:
        yield spark
    finally:
        spark.stop()


def _spark_pipeline(spark, df, label):
    from pyspark.ml.feature import OneHotEncoder, StringIndexer, VectorAssembler

    indexed = StringIndexer(inputCols=[*NAMES, label], outputCols=[f"{c}_i" for c in [*NAMES, label]],
                            handleInvalid="keep").fit(df).transform(df)
    encoded = OneHotEncoder(inputCols=[f"{c}_i" for c in NAMES], outputCols=[f"{c}_v" for c in NAMES],
                            dropLast=False).fit(indexed).transform(indexed)
    features = VectorAssembler(inputCols=[f"{c}_v" for c in NAMES], outputCol="features").transform(encoded)
    return features, f"{label}_i"


def _spark_files(spark):
    from pyspark.ml.classification import NaiveBayes as SparkNaiveBayes

    def make(X, y, size, files):
        path = _subset_dir(X, size)

        def run():  # read, encode and fit, end to end
            features, label = _spark_pipeline(spark, spark.read.parquet(str(path)), "y")
            return SparkNaiveBayes(modelType="multinomial", labelCol=label).fit(features)

        return run

    return make


def _spark_cached(spark):
    from pyspark.ml.classification import NaiveBayes as SparkNaiveBayes

    def make(X, y, size, files):
        frame = pd.DataFrame(X[:size].astype(np.int32), columns=NAMES).assign(label=y[:size].astype(np.float64))
        from pyspark.ml.feature import OneHotEncoder, VectorAssembler

        df = spark.createDataFrame(frame)
        encoded = OneHotEncoder(inputCols=NAMES, outputCols=[f"{c}_v" for c in NAMES],
                                dropLast=False).fit(df).transform(df)
        cached = VectorAssembler(inputCols=[f"{c}_v" for c in NAMES], outputCol="features").transform(
            encoded).select("features", "label").cache()
        cached.count()
        return lambda: SparkNaiveBayes(modelType="multinomial").fit(cached)

    return make


# ------------------------------------------------------------------ timing


def measure_input(name, X, y, codes, tools, ctx, repeat, notes):
    """Time every tool on one input, repeats interleaved; returns records.

    ``tools`` maps a tool to ``(make, workers, budget_s, repeat, max_size)``;
    a warm-up and a timed run on a small prefix decide the size measured.
    """
    files = not INPUTS[name][1]
    n_rows = len(codes)
    full = N_FILES if files else n_rows
    probe = 1 if files else min(n_rows, max(n_rows // 50, 20_000))
    thunks = {}
    for tool, (make, workers, tool_budget, tool_repeat, max_size) in tools.items():
        try:
            thunk = make(X, y, probe, files)
            with ctx.workers(workers):
                timed(thunk)  # warm-up: compilation, JVM, caches
                seconds = timed(thunk)[0]
            per_unit = seconds / probe
            size = full if per_unit * full <= tool_budget else max(probe, int(tool_budget / per_unit))
            size = max(probe, min(size, max_size)) if max_size else size
            thunks[tool] = (thunk if size == probe else make(X, y, size, files), size, workers, tool_repeat)
        except Skip as exc:
            notes.append(f"{name}: {tool} skipped: {exc}")
        except Exception as exc:  # a peer failing must not stop the benchmark
            notes.append(f"{name}: {tool} failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    times = {tool: [] for tool in thunks}
    for r in range(repeat):
        for tool, (thunk, size, workers, tool_repeat) in thunks.items():
            if r < tool_repeat:
                with ctx.workers(workers):
                    times[tool].append(timed(thunk)[0])
    records = []
    for tool, (thunk, size, workers, _) in thunks.items():
        rows = n_rows * size // N_FILES if files else size
        best = min(times[tool])
        records.append({"input": name, "tool": tool, "rows": rows, "workers": workers,
                        "best_s": best, "median_s": float(np.median(times[tool])),
                        "ns_per_cell": best / (rows * N_ATTRIBUTES) * 1e9})
    return records


# ------------------------------------------------------------------ cross-validation and memory


def cross_validation(ctx, repeat):
    """10-fold cross_val_score on binned iris: nbparallel / CategoricalNB, without and with a Client."""
    from distributed import Client, LocalCluster
    from sklearn.datasets import load_iris
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.preprocessing import KBinsDiscretizer

    from nbparallel import NaiveBayes

    X, y = load_iris(return_X_y=True)
    Xb = KBinsDiscretizer(n_bins=10, encode="ordinal", strategy="uniform").fit_transform(X).astype(np.int64)
    runs = {"CategoricalNB": lambda: cross_val_score(CategoricalNB(), Xb, y, cv=10),
            "nbparallel": lambda: cross_val_score(NaiveBayes(categorical_features="all"), Xb, y, cv=10)}

    def best(fn):
        fn()
        return min(timed(fn)[0] for _ in range(repeat))

    records = []
    with LocalCluster(n_workers=WORKERS, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as client:
        for r in range(2):  # interleave: without, with, without, with
            for where in ("no client", "active Client"):
                scope = client.as_current() if where == "active Client" else contextlib.nullcontext()
                with scope:
                    for tool, fn in runs.items():
                        records.append({"where": where, "tool": tool, "best_s": best(fn)})
    frame = pd.DataFrame(records).groupby(["where", "tool"], as_index=False)["best_s"].min()
    return frame


RSS_SCRIPT = textwrap.dedent("""
    import gc, json, sys, threading, time
    sys.path.insert(0, sys.argv[3])
    from harness.inputs import build_input, make_codes
    from nbparallel import NaiveBayes

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))

    name, n = sys.argv[1], int(sys.argv[2])
    kind = "all" if name.startswith("uint8 1..10") else "auto"
    codes, y = make_codes(2000)
    NaiveBayes(categorical_features=kind, n_partitions=2).fit(build_input(name, codes, y, None), y)  # compile
    gc.collect()
    baseline = status("VmRSS:")  # the interpreter and its libraries
    codes, y = make_codes(n)
    X = build_input(name, codes, y, None)
    size = X.nbytes if hasattr(X, "nbytes") else int(X.memory_usage(index=False, deep=True).sum())
    size += y.nbytes
    del codes
    gc.collect()
    try:  # hand the heap memory freed while building X back to the system: it is not the fit's
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    before_fit = status("VmRSS:")
    try:  # reset the peak (VmHWM) to the current RSS
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        reset = True
    except OSError:
        reset = False
    peak, done = [status("VmRSS:")], []
    def sample():
        while not done:
            peak.append(status("VmRSS:"))
            time.sleep(0.001)
    sampler = threading.Thread(target=sample)
    sampler.start()
    NaiveBayes(categorical_features=kind, n_partitions=2).fit(X, y)
    done.append(1)
    sampler.join()
    top = max(max(peak), status("VmHWM:") if reset else 0)
    print(json.dumps({"input_bytes": size, "peak_bytes": top - baseline, "fit_growth_bytes": top - before_fit,
                      "peak_reset": reset}))
""")


def fit_memory(name, n_rows):
    """Peak extra RSS of a fit over the input's size, measured in a fresh process."""
    harness_dir = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(harness_dir).parent), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", RSS_SCRIPT, name, str(n_rows), harness_dir],
                         capture_output=True, text=True, env=env, timeout=600)
    if out.returncode:
        raise RuntimeError(f"memory run of {name!r} failed: {out.stderr[-500:]}")
    import json

    return json.loads(out.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ the experiment


def run(ctx):
    """Every input, every tool; ns per cell and the targets."""
    quick = ctx.quick
    n_rows = 20_000 if quick else 10_000_000
    budget = 0.5 if quick else 4.0  # seconds one timed run may take before a prefix is used
    repeat = 2 if quick else 3
    notes = []
    codes, y = make_codes(n_rows)
    records = []
    with tempfile.TemporaryDirectory(prefix="nbparallel-inputs-") as tmp, contextlib.ExitStack() as stack:
        spark = None
        if not quick:
            try:
                spark = stack.enter_context(spark_session())
            except Skip as exc:
                notes.append(f"Spark MLlib skipped: {exc}")
        else:
            notes.append("Spark MLlib runs in the full mode only (its JVM start-up dwarfs a quick run)")
        for name, (group, in_memory) in INPUTS.items():
            start = time.perf_counter()
            X = build_input(name, codes, y, Path(tmp))
            tools = {NB: (_nbparallel(name), WORKERS, budget, repeat, None),
                     KERNEL: (_kernel(name, codes, y), 1, budget, repeat, None)}
            for tool, factory in ((DUCKDB, _duckdb), (POLARS, _polars)):
                try:
                    tools[tool] = (factory(name), WORKERS, budget, repeat, None)
                except Skip as exc:
                    if name == list(INPUTS)[0]:
                        notes.append(f"{tool} skipped: {exc}")
            if in_memory:
                tools[SKLEARN] = (_sklearn(name), 1, budget, repeat, None)
            if spark is not None and name.startswith("Parquet"):
                tools[SPARK] = (_spark_files(spark), WORKERS, 10 * budget, 1, None)
            if spark is not None and name.startswith("uint8 1..10"):
                tools[SPARK] = (_spark_cached(spark), WORKERS, 10 * budget, 1, 1)  # the probe's rows only
            records += measure_input(name, X, y, codes, tools, ctx, repeat, notes)
            del X
            print(f"  measured {name} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        cv = cross_validation(ctx, 2 if quick else 5)
    memory = []
    for name in (list(INPUTS)[:1] if quick else [n for n, (g, m) in INPUTS.items() if g == "a"]):
        try:
            m = fit_memory(name, 50_000 if quick else 2_000_000)
            memory.append({"input": name, **m, "ratio": m["peak_bytes"] / m["input_bytes"]})
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            notes.append(f"memory of {name}: {exc}")
    rows = pd.DataFrame(records)
    notes += _notes(quick)
    summary = rows.pivot_table(index="input", columns="tool", values="ns_per_cell", sort=False).reset_index()
    summary = summary[["input"] + [t for t in (NB, KERNEL, DUCKDB, POLARS, SKLEARN, SPARK) if t in summary]]
    parameters = {"rows": n_rows, "attributes": N_ATTRIBUTES, "values": N_VALUES, "classes": 2,
                  "files": N_FILES, "workers": WORKERS, "budget_s": budget, "repeat": repeat,
                  "cross_validation": cv.to_dict(orient="records"), "memory": memory}
    return Result("inputs", rows, summary, _plot, parameters, _targets(rows, cv, memory), notes)


def _notes(quick):
    return [
        "ns per cell = best wall time / (rows x 20 attributes); 'rows' < the full size means the run was "
        "measured on a prefix of the rows (or files) to stay within the time budget",
        "nbparallel and DuckDB/polars use 2 threads; the kernel and scikit-learn one",
        "scikit-learn includes OrdinalEncoder (strings, categories) or KBinsDiscretizer (floats); "
        "polars' from_pandas conversion of in-memory inputs is not timed",
        "Spark MLlib: read + StringIndexer + OneHotEncoder + fit on the Parquet directory; "
        "fit only on cached one-hot data for the uint8 input",
    ] + (["quick run: tiny sizes, the ratios are not meaningful"] if quick else [])


def _targets(rows, cv, memory):
    ns = rows.set_index(["input", "tool"])["ns_per_cell"]
    targets = []
    for name, (group, in_memory) in INPUTS.items():
        if (name, NB) not in ns:
            continue
        if group == "a" and (name, KERNEL) in ns:
            targets.append(Target(f"(a) {name}: fit on {WORKERS} workers / kernel on 1 thread",
                                  ns[name, NB] / ns[name, KERNEL], 1.5, at_most=True))
        if group == "b":
            for peer in (DUCKDB, POLARS):
                if (name, peer) in ns:
                    targets.append(Target(f"(b) {name}: {peer} / nbparallel fit", ns[name, peer] / ns[name, NB],
                                          1.0, at_most=False))
    parquet = f"Parquet directory, {N_FILES} files, string columns"
    if (parquet, SPARK) in ns:
        targets.append(Target(f"(c) {parquet}: Spark MLlib end to end / nbparallel fit",
                              ns[parquet, SPARK] / ns[parquet, NB], 50, at_most=False))
    times = cv.set_index(["where", "tool"])["best_s"]
    for where in ("no client", "active Client"):
        targets.append(Target(f"(d) 10-fold cross_val_score on binned iris, {where}: nbparallel / CategoricalNB",
                              times[where, "nbparallel"] / times[where, "CategoricalNB"], 1.5, at_most=True))
    for m in memory:
        targets.append(Target(f"(e) peak RSS of a fit (above the interpreter's) / input size, {m['input']}", m["ratio"], 1.3,
                              at_most=True))
    return targets


def _plot(rows):
    pivot = rows.pivot_table(index="input", columns="tool", values="ns_per_cell", sort=False)
    figure, ax = plt.subplots(figsize=(10, 0.6 * len(pivot) + 1.5))
    pivot.plot.barh(ax=ax, logx=True, width=0.8)
    ax.invert_yaxis()
    ax.set(xlabel="ns per cell (row x attribute), best of the repeats", ylabel="",
           title="Every input: nbparallel fit, its kernel, and peers, same data, same run")
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=7)
    return figure

"""Passes against the machine's own limit (issue 56), every limit measured in the same run.

Run: ``nbparallel bench limits [--quick]``. The data: 10^7 rows x 20 attributes of 10 values, 2 classes (10^5
rows with ``--quick``), the table of ``nbparallel bench passes`` (:func:`.pass_costs.make_data`: codes 1..10 as
uint8, classes that depend on two attributes), every pass on ``THREADS`` threads (Dask's threaded scheduler).
Measured side by side: each round runs every timed function of a group once (:func:`.timing.best_interleaved`),
best of the rounds. Three kinds of limit:

- The read rate of the same bytes: the best of numpy's ``sum`` of the array's bytes as uint64 on one thread and a
  compiled sum over the pass's threads (numba, ``nogil``, one slice of rows per thread); ``ratio_to_read`` is the
  read's time over the pass's (1 is the memory wall). Compared so: the fits of the uint8 codes, of the same codes
  as int64 and of the codes plus uniform noise in [0, 1) as float64 (10 equal-width bins: the same values binned),
  and ``predict``, ``predict_proba`` and ``evaluate`` of the uint8 codes (:func:`.pass_costs.pass_thunks`). The
  counting kernels alone (``count_integers``, which the fit of an integer array runs per partition, and the pairs
  kernel of ``CodeCounter``, the scalar count) run on one thread and are compared with the one-thread read.
- Files: the same table as ``N_FILES`` Parquet files and ``N_FILES`` CSV files of string columns (values ``v0``
  .. ``v9``, classes ``c00``, ``c01``: :func:`.pass_costs.write_files`). ``NaiveBayes().fit(directory, "y")`` is
  compared with pyarrow reading the same columns over the same threads (``pyarrow.set_cpu_count``; Parquet by
  ``pyarrow.parquet.read_table``, CSV by ``pyarrow.dataset``), once as strings and once as dictionaries, plus the
  in-memory fit of the table it read (``NaiveBayes().fit(table, "y")``, which converts it to pandas as a fit of
  any Arrow table does): ``ratio_to_limit`` is the fit's time over the faster of the two.
- Composite passes, each beside the sum of its parts (rows ``<pass> / part: ...``), the library's own steps:

  - 10-fold ``cross_validate`` (every score): the counting pass of the fold tables (a public fit of the labels
    ``class + 2 * fold``, the columns the CV's one pass counts), deriving the 10 fold models
    (``NaiveBayes.from_counts``) and the evaluation kernel with ROC histograms over the model's partitions (the
    CV's scoring pass scores each row once, under its fold's model).
  - a boosting round, ``(BoostedNaiveBayes(n_rounds=1 + ROUNDS).fit - BoostedNaiveBayes(n_rounds=1).fit) /
    ROUNDS``: over the partitions, the best class (the round's scoring kernel), the round labels and reweighting
    (``nbparallel.kernels.boosting``) and the weighted count of 2K classes (``count_partition``), plus one learner
    derived from counts (the 10 fold models' time / 10).
  - an AutoClass EM iteration (3 clusters, one restart), ``(fit(max_iter=1 + ROUNDS) - fit(max_iter=1)) /
    ROUNDS``: the E step and its weighted count, which the library runs as one kernel
    (``nbparallel.kernels.clusters.expected_counts`` over the partitions' joined codes, no public API), and the
    M step (``nbparallel.models.autoclass.log_parameters``).

  The kernels' parts are those of :func:`.pass_costs.part_thunks`, on the partitions of the uint8 codes' fit;
  ``ratio_to_limit`` is the pass's time over the sum of its parts. Rows ``<pass> / recorded: ...`` are the
  library's own record of the last run's passes (``passes`` of the CV's result, ``passes_`` of a fit), where
  the time goes.

Targets: every fit and ``predict``, ``predict_proba`` and ``evaluate`` at least :data:`FIT_TARGET` and
:data:`SCORE_TARGET` of the read rate; a directory's fit at most :data:`FILE_TARGET` x its limit; a composite
pass at most :data:`PARTS_TARGET` x the sum of its parts.
"""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import dask
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from numba import njit

from nbparallel import AutoClass, BoostedNaiveBayes, NaiveBayes
from nbparallel.kernels import CodeCounter, count_integers
from nbparallel.kernels.clusters import JointCodes, expected_counts
from nbparallel.models.autoclass import log_parameters, scoring_codes

from .data import offsets
from .pass_costs import NAMES, build, make_data, part_thunks, pass_thunks, write_files
from .report import Result, Target
from .timing import best_interleaved

N_ROWS, N_ATTRIBUTES, N_VALUES, THREADS = 10**7, 20, 10, 2
N_FILES = 12
#: boosting rounds and EM iterations timed (beyond the first, which is subtracted)
ROUNDS = 5
#: every fit at least this fraction of the read rate of the same bytes (issue 56's table)
FIT_TARGET = 1 / 4
#: predict, predict_proba and evaluate at least this fraction of the read rate of the same codes
SCORE_TARGET = 1 / 8
#: a directory's fit at most this multiple of pyarrow's read plus the in-memory fit of what it read
FILE_TARGET = 1.2
#: a composite pass at most this multiple of the sum of its parts
PARTS_TARGET = 1.1
SCORING = ("predict", "predict_proba", "evaluate")


@njit(nogil=True, cache=True)
def _sum_words(words):
    total = np.uint64(0)
    for i in range(words.size):
        total += words[i]
    return total


def reads(X, threads):
    """``{name: callable}`` reading every byte of C-contiguous ``X``: numpy's sum on one thread, and the compiled
    sum on one thread and on ``threads`` threads."""
    words = X.reshape(-1).view(np.uint64)
    pieces = np.array_split(words, threads)
    pool = ThreadPoolExecutor(threads)
    return {"numpy sum, 1 thread": lambda: words.sum(),
            "compiled sum, 1 thread": lambda: _sum_words(words),
            f"compiled sum, {threads} threads": lambda: sum(pool.map(_sum_words, pieces))}


def row(data, name, seconds, n_cells, bytes_=np.nan, **limit):
    """One row of the result: a pass's seconds and ns per cell, and what it is compared with."""
    return {"data": data, "pass": name, "bytes": bytes_, "seconds": seconds, "ns_per_cell": seconds * 1e9 / n_cells,
            **limit}


def read_rows(data, X, timed, repeat, n_cells):
    """Each of ``timed`` (name -> thunk) beside the reads of ``X``: ``ratio_to_read`` against the one-thread read
    for the names that say "1 thread", else against the best read on ``THREADS`` threads."""
    best = best_interleaved({**reads(X, THREADS), **timed}, repeat)[0]
    same_threads = min(best["numpy sum, 1 thread"], best[f"compiled sum, {THREADS} threads"])
    one_thread = min(best["numpy sum, 1 thread"], best["compiled sum, 1 thread"])
    rows = []
    for name, seconds in best.items():
        read = one_thread if "1 thread" in name else same_threads
        rows.append(row(data, name, seconds, n_cells, X.nbytes, read_s=read, ratio_to_read=read / seconds))
    return rows


def uint8_thunks(X, y, passes):
    """The fit, the scoring passes and the counting kernels alone of the uint8 codes."""
    lo = np.ones(N_ATTRIBUTES, np.int64)
    table_offsets = offsets(N_ATTRIBUTES, N_VALUES)  # values 1 .. 10 in rows 1 + value - lo; as codes, 0 missing
    return {"fit": passes["fit"][0], **{name: passes[name][0] for name in SCORING},
            "count_integers (lanes), 1 thread": lambda: count_integers(X, y, lo, table_offsets, 2),
            "CodeCounter (pairs), 1 thread": lambda: CodeCounter(table_offsets, 2).add(X, y)}


def fit_thunk(X, y, kind):
    """The fit of a wide array (``kind``: 'int64 codes' or 'binned float64')."""
    model = NaiveBayes(categorical_features="all") if kind == "int64 codes" else NaiveBayes(n_bins=N_VALUES)
    return {"fit": lambda: model.fit(X, y)}


def em_fit(max_iter):
    """AutoClass of 3 clusters, one restart, exactly ``max_iter`` iterations."""
    return AutoClass(n_clusters=3, n_restarts=1, max_iter=max_iter, tol=0.0, random_state=0,
                     categorical_features="all")


def em_parts(X, n_partitions):
    """The parts of an EM iteration over ``n_partitions`` row blocks of ``X``: the expected counts kernel (its
    E step and weighted count) on ``THREADS`` threads, over codes joined once as the fit keeps them, and the M
    step."""
    model = em_fit(1).fit(X)
    schema = model.schema_
    bounds = np.linspace(0, len(X), n_partitions + 1).astype(int)
    codes = [JointCodes(*scoring_codes(schema, X[a:b]), schema.offsets, 3) for a, b in zip(bounds, bounds[1:])]
    weights = [np.ones(b - a) for a, b in zip(bounds, bounds[1:])]
    log_table, log_prior = log_parameters(model.counts_, model.cluster_totals_, schema.offsets, 3, model.alpha)
    pool = ThreadPoolExecutor(THREADS)
    return {
        "part: E step and weighted count (expected_counts kernel)": lambda: list(pool.map(
            lambda i: expected_counts(codes[i], log_table, log_prior, 3, weights[i]), range(n_partitions))),
        "part: M step (log_parameters)": lambda: log_parameters(model.counts_, model.cluster_totals_,
                                                                 schema.offsets, 3, model.alpha),
    }


def composite_rows(X, y, passes, repeat, n_cells):
    """10-fold CV, a boosting round and an EM iteration beside their parts (see the module's docstring)."""
    kernels = {name: thunk for name, (thunk, _) in part_thunks(X, y, 2, THREADS).items()}
    fold = np.repeat(np.arange(10), [len(rows) for rows in np.array_split(np.arange(len(y)), 10)])
    fold_labels = y + 2 * fold  # class + K * fold: the columns the CV counts
    n_partitions = NaiveBayes(categorical_features="all").fit(X, y).n_partitions_
    em = em_parts(X, n_partitions)
    derived = "part: 10 fold models derived (CV)"
    parts = {  # pass -> its parts, each the name of a timed thunk
        "10-fold CV": ["part: count of the fold tables (fit of class + 2 * fold)", derived,
                       "part: evaluation with ROC (evaluate's kernel)"],
        "boosting round": ["part: best class (predict's kernel)", "part: round labels and reweighting (boosting)",
                           "part: weighted count of 2K classes (boosting)", "part: one learner derived (from_counts)"],
        "EM iteration": list(em),
    }
    boosted, em_iterated = f"boosting, {1 + ROUNDS} rounds", f"EM, {1 + ROUNDS} iterations"
    timed = {"10-fold CV": passes["10-fold CV"][0],
             parts["10-fold CV"][0]: lambda: NaiveBayes(categorical_features="all").fit(X, fold_labels),
             **{name: kernels[name] for name in [derived, *parts["10-fold CV"][2:], *parts["boosting round"][:3]]},
             "boosting, 1 round": lambda: BoostedNaiveBayes(n_rounds=1, categorical_features="all").fit(X, y),
             boosted: lambda: BoostedNaiveBayes(n_rounds=1 + ROUNDS, categorical_features="all").fit(X, y),
             "EM, 1 iteration": lambda: em_fit(1).fit(X),
             em_iterated: lambda: em_fit(1 + ROUNDS).fit(X),
             **em}
    best, last = best_interleaved(timed, repeat)
    best["part: one learner derived (from_counts)"] = best[derived] / 10
    whole = {"10-fold CV": best["10-fold CV"],
             "boosting round": (best[boosted] - best["boosting, 1 round"]) / ROUNDS,
             "EM iteration": (best[em_iterated] - best["EM, 1 iteration"]) / ROUNDS}
    recorded = {"10-fold CV": last["10-fold CV"]["passes"], "boosting round": last[boosted].passes_,
                "EM iteration": last[em_iterated].passes_}
    rows = []
    for name, its_parts in parts.items():
        total = sum(best[part] for part in its_parts)
        rows.append(row("uint8 codes", name, whole[name], n_cells, X.nbytes, limit_s=total,
                        ratio_to_limit=whole[name] / total))
        rows += [row("uint8 codes", f"{name} / {part}", best[part], n_cells, X.nbytes) for part in its_parts]
        rows += [row("uint8 codes", f"{name} / recorded: {p['kind']} pass {i}", p["seconds"], n_cells, X.nbytes)
                 for i, p in enumerate(recorded[name])]
    rows += [row("uint8 codes", name, best[name], n_cells, X.nbytes)
             for name in ("boosting, 1 round", boosted, "EM, 1 iteration", em_iterated)]
    return rows


def file_rows(codes, y, directory, repeat, n_cells):
    """The fit of a Parquet and a CSV directory beside pyarrow's read of the same columns plus the in-memory fit
    of the table it read (strings or dictionaries, the faster), on ``THREADS`` threads."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    columns = [*NAMES, "y"]
    paths = {kind: write_files(kind, codes, y, directory / kind, N_FILES) for kind in ("parquet", "csv")}
    as_dictionaries = ds.CsvFileFormat(convert_options=pcsv.ConvertOptions(auto_dict_encode=True))
    read = {"parquet": {"strings": lambda: pq.read_table(paths["parquet"], columns=columns),
                        "dictionaries": lambda: pq.read_table(paths["parquet"], columns=columns,
                                                              read_dictionary=columns)},
            "csv": {"strings": lambda: ds.dataset(paths["csv"], format="csv").to_table(columns=columns),
                    "dictionaries": lambda: ds.dataset(paths["csv"], format=as_dictionaries).to_table(
                        columns=columns)}}
    tables = {(kind, way): fn() for kind, ways in read.items() for way, fn in ways.items()}
    timed = {}
    for kind, ways in read.items():
        timed[f"{kind}: fit of the directory"] = lambda path=paths[kind]: NaiveBayes().fit(path, "y")
        for way, fn in ways.items():
            timed[f"{kind}: pyarrow read ({way})"] = fn
            timed[f"{kind}: fit of the table read ({way})"] = lambda t=tables[kind, way]: NaiveBayes().fit(t, "y")
    cpus = pa.cpu_count()
    pa.set_cpu_count(THREADS)
    try:
        best, last = best_interleaved(timed, repeat)
    finally:
        pa.set_cpu_count(cpus)
    rows = []
    for kind, label in (("parquet", "Parquet directory"), ("csv", "CSV directory")):
        size = sum(f.stat().st_size for f in paths[kind].iterdir())
        limits = {way: best[f"{kind}: pyarrow read ({way})"] + best[f"{kind}: fit of the table read ({way})"]
                  for way in read[kind]}
        fit = best[f"{kind}: fit of the directory"]
        rows.append(row(label, "fit of the directory", fit, n_cells, size, limit_s=min(limits.values()),
                        ratio_to_limit=fit / min(limits.values())))
        for way in read[kind]:
            rows.append(row(label, f"pyarrow read ({way})", best[f"{kind}: pyarrow read ({way})"], n_cells, size))
            rows.append(row(label, f"fit of the table read ({way})", best[f"{kind}: fit of the table read ({way})"],
                            n_cells, size))
            rows.append(row(label, f"limit: read + fit ({way})", limits[way], n_cells, size))
        rows += [row(label, f"fit of the directory / recorded: {p['kind']} pass {i}", p["seconds"], n_cells, size)
                 for i, p in enumerate(last[f"{kind}: fit of the directory"].passes_)]
    return rows


def run(ctx):
    """Every row of issue 56's table beside its limit, measured in this run."""
    n_rows, repeat = (10**5, 3) if ctx.quick else (N_ROWS, 7)
    few = 2 if ctx.quick else 3  # the composite passes and the files take seconds a run at 10^7 rows
    n_cells = n_rows * N_ATTRIBUTES
    codes, y = make_data(n_rows, 2)
    X = build("uint8 codes", codes, y, None)[0]
    with dask.config.set(scheduler="threads", num_workers=THREADS):
        passes = pass_thunks(X, y, "all", 2)
        rows = read_rows("uint8 codes", X, uint8_thunks(X, y, passes), repeat, n_cells)
        rows += composite_rows(X, y, passes, few, n_cells)
        del passes
        with tempfile.TemporaryDirectory(prefix="nbparallel-limits-") as tmp:
            rows += file_rows(codes, y, Path(tmp), few, n_cells)
        del codes
        wide = X.astype(np.int64)
        rows += read_rows("int64 codes", wide, fit_thunk(wide, y, "int64 codes"), repeat, n_cells)
        del wide
        floats = X + np.random.default_rng(1).random(X.shape)  # ten equal-width bins, as the codes
        del X
        rows += read_rows("binned float64", floats, fit_thunk(floats, y, "binned float64"), max(3, repeat // 2),
                          n_cells)
    rows = pd.DataFrame(rows)
    summary = rows[["data", "pass", "seconds", "ns_per_cell", "ratio_to_read", "ratio_to_limit"]]
    return Result("limits", rows, summary, _plot,
                  {"rows": n_rows, "attributes": N_ATTRIBUTES, "values": N_VALUES, "classes": 2,
                   "threads": THREADS, "repeat": repeat, "repeat_composite_and_files": few, "files": N_FILES,
                   "rounds": ROUNDS},
                  targets=_targets(rows),
                  notes=["ratio_to_read: the time to read the same bytes (the best of numpy's sum on one thread and "
                         "a compiled sum on the pass's threads) over the pass's time; targets: >= 1/4 for every "
                         "fit, >= 1/8 for predict, predict_proba and evaluate",
                         "ratio_to_limit: a directory's fit over the faster of pyarrow's read of the same columns "
                         "(strings or dictionaries) plus the in-memory fit of the table it read (target <= 1.2); a "
                         "composite pass over the sum of its parts, the rows '<pass> / part: ...' (target <= 1.1)",
                         f"boosting round and EM iteration: the fit of {1 + ROUNDS} rounds (iterations) minus the "
                         f"fit of 1, over {ROUNDS}; 'recorded' rows: the library's own record of the last run's "
                         "passes"])


def _targets(rows):
    targets = []
    for r in rows.to_dict("records"):
        name, data = r["pass"], r["data"]
        if name == "fit":
            targets.append(Target(f"fit of {data}, {THREADS} threads (read time / fit time)", r["ratio_to_read"],
                                  FIT_TARGET, False))
        elif name in SCORING:
            targets.append(Target(f"{name} of {data}, {THREADS} threads (read time / pass time)",
                                  r["ratio_to_read"], SCORE_TARGET, False))
        elif name == "fit of the directory":
            targets.append(Target(f"fit of a {data}, {THREADS} threads (fit / pyarrow read + in-memory fit)",
                                  r["ratio_to_limit"], FILE_TARGET, True))
        elif np.isfinite(r["ratio_to_limit"]):
            targets.append(Target(f"{name} of {data}, {THREADS} threads (pass / sum of its parts)",
                                  r["ratio_to_limit"], PARTS_TARGET, True))
    return targets


def _plot(rows):
    figure, (reads_axis, limits_axis) = plt.subplots(1, 2, figsize=(13, 4.5))
    passes = rows[rows["ratio_to_read"].notna() & ~rows["pass"].str.contains("sum")]
    reads_axis.barh([f"{d}: {p}" for d, p in zip(passes["data"], passes["pass"])], passes["ratio_to_read"],
                    color="#4c72b0")
    reads_axis.axvline(FIT_TARGET, color="black", linestyle="--", label="fit target")
    reads_axis.axvline(SCORE_TARGET, color="grey", linestyle=":", label="scoring target")
    reads_axis.set(xlabel="read time of the same bytes / pass time", title="Passes against the read rate")
    composite = rows[rows["ratio_to_limit"].notna()]
    limits_axis.barh([f"{d}: {p}" for d, p in zip(composite["data"], composite["pass"])],
                     composite["ratio_to_limit"], color="#dd8452")
    limits_axis.axvline(FILE_TARGET, color="black", linestyle="--", label="files target")
    limits_axis.axvline(PARTS_TARGET, color="grey", linestyle=":", label="composite target")
    limits_axis.set(xlabel="pass time / its limit", title="Files and composite passes against their limits")
    for axis in (reads_axis, limits_axis):
        axis.tick_params(axis="y", labelsize=8)
        axis.legend(fontsize=8)
    figure.tight_layout()
    return figure

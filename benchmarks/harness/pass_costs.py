"""Every pass at counting speed? Each pass of every algorithm, timed beside the same input's own ``fit``.

One table, 20 attributes of 10 values, 2 or 20 classes, given as each input users have: uint8 codes 1..10 and an
int64 array of codes 0..9 (both ``categorical_features="all"``), a float64 array of the codes plus uniform noise in
[0, 1) (numeric, 10 equal-width bins: the same values binned), pandas ``category`` columns, ``str`` columns, a
Parquet directory, a CSV directory and a Dask DataFrame from ``read_parquet`` of the Parquet directory. For each
input and class count, in one process (repeats interleaved, best kept; the Parquet directory's and the Dask
DataFrame's, which are compared, interleaved with each other): ``fit``, ``predict``, ``predict_proba``,
``evaluate``, boosting (5 rounds, per round), 10-fold ``cross_validate`` (every score, as the CV target is
judged; and ``scoring="accuracy"`` alone, which the predict kernel scores, shown without a target),
``SelectedNaiveBayes`` (sampled B(J), 5 attributes) and AutoClass EM (3 clusters, one restart, per iteration);
each as a ratio to the input's ``fit``. Beside them, on the in-memory inputs, scikit-learn
``CategoricalNB.predict_proba`` on integer codes (for strings and categories from an ``OrdinalEncoder``, its
transform not timed), the same as a ``Pipeline(OrdinalEncoder, CategoricalNB).predict_proba`` of the strings or
categories themselves (the transform timed: what a scikit-learn user runs on such data, and what our
``predict_proba`` of them does; the 10x target is judged on it for those inputs), for the floats a
``Pipeline(KBinsDiscretizer(10, "uniform"), CategoricalNB)`` (the same model: equal-width bins) and
``AdaBoostClassifier(CategoricalNB(), algorithm="SAMME")`` with 10 rounds against
``BoostedNaiveBayes(n_rounds=10)``, up to ``PEER_ROWS`` rows.

10^7 rows are measured on the inputs named in ``NBPARALLEL_BENCH_BIG`` (default: uint8 codes, pandas
category, the Parquet directory); ``NBPARALLEL_BENCH_SIZES`` (default ``1e6,1e7``) sets the sizes. After a
warm-up run (it also compiles and touches fresh memory), every pass, fit and peer is timed once, and again up to
``MAX_REPEAT`` runs in all while its timed runs and one more of its fastest fit in ``RUN_BUDGET_S`` (the ``runs``
column): on a noisy machine a pass is compared with its fit as the best of as many runs as the budget allows
(9 up to about 1.7 s a run, 4 at 3.5 s), not of two against nine.

A subset runs with ``NBPARALLEL_BENCH_INPUTS`` (input names, comma-separated), ``NBPARALLEL_BENCH_PASSES``
(pass names; ``fit`` is always timed), ``NBPARALLEL_BENCH_CLASSES`` (default ``2,20``) and
``NBPARALLEL_BENCH_PEERS=0`` (no scikit-learn peers); it is written as ``passes-partial.*``, never over the
full table. ``NBPARALLEL_BENCH_WORKERS`` (default 2) sets the threads of every pass (a many-core machine's run).

Beside the passes, on the uint8 codes with 20 classes (``NBPARALLEL_BENCH_PARTS=0`` leaves them out), the parts
the 20-class targets are made of (:func:`part_thunks`), each timed as the passes are, interleaved with the fit,
on the same threads: the counting kernel of a fit; the scoring kernels over the model's partitions (the best
class, as predict; the posterior into a kept output, as predict_proba; the evaluation sums without and with
the ROC histograms, as evaluate); the derivation of a 10-fold CV's ten models from their counts; a boosting
round's labels and reweighting and its weighted count of 2K classes. They are rows of the result (pass
``part: ...``), outside the summary table.

Targets (:data:`TARGETS`, :data:`RELATIVE_TARGETS`), as multiples of the input's fit: with 2 classes ``predict``
<= 1.5, ``predict_proba`` and ``evaluate`` <= 2, boosting round <= 2.5, 10-fold CV, select and EM iteration <= 3;
with 20 classes ``predict`` and ``predict_proba`` <= 4 and ``evaluate`` <= 6 (its row sums, exponentials and ROC
histogram increments each cost one to two fits per row), a 10-fold CV at most that input's ``evaluate`` plus one
fit and a boosting round at most its ``predict`` plus one fit (one count).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .report import Result, Target
from .timing import timed

N_ATTRIBUTES, N_VALUES, N_FILES = 20, 10, 20
NAMES = [f"a{j}" for j in range(N_ATTRIBUTES)]
LEVELS = np.array([f"v{v}" for v in range(N_VALUES)], dtype=object)

INPUTS = ["uint8 codes", "int64 array", "float64 array", "pandas category", "pandas str", "Parquet directory", "CSV directory",
          "Dask DataFrame (read_parquet)"]
IN_MEMORY = {"uint8 codes", "int64 array", "float64 array", "pandas category", "pandas str"}
CODES = {"uint8 codes", "int64 array"}  # integer arrays, categorical_features="all"
FILE_INPUTS = {"parquet": {"Parquet directory", "Dask DataFrame (read_parquet)"}, "csv": {"CSV directory"}}
PASSES = ["fit", "predict", "predict_proba", "evaluate", "boosting round", "10-fold CV", "10-fold CV (accuracy)",
          "select 5", "EM iteration"]
# targets: pass -> (2 classes, 20 classes), as multiples of the input's fit; None: a relative target below
TARGETS = {"predict": (1.5, 4.0), "predict_proba": (2.0, 4.0), "evaluate": (2.0, 6.0), "boosting round": (2.5, None),
           "10-fold CV": (3.0, None), "select 5": (3.0, 3.0), "EM iteration": (3.0, 3.0)}
# 20 classes, issue 47: pass -> (the pass it is judged against, fits added): a 10-fold CV at most its evaluation
# plus one fit, a boosting round at most a predict plus one count (a fit)
RELATIVE_TARGETS = {"10-fold CV": ("evaluate", 1.0), "boosting round": ("predict", 1.0)}
BOOST_ROUNDS, EM_ITERATIONS = 5, 10
MAX_REPEAT, RUN_BUDGET_S = 9, 15.0
PIPELINE = "sklearn OrdinalEncoder + CategoricalNB.predict_proba"
BINNING_PIPELINE = "sklearn KBinsDiscretizer + CategoricalNB.predict_proba"  # the float64 array's
PEER_ROWS = 1_000_000  # scikit-learn's 20-class AdaBoost takes minutes at 10^6 rows: peers run up to here


def make_data(n_rows, n_classes, seed=0):
    """Codes 0..9 (uint8, rows x attributes) and classes 0..n_classes-1 that depend on them."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, N_VALUES, size=(n_rows, N_ATTRIBUTES), dtype=np.uint8)
    signal = codes[:, 0].astype(np.int64) + 3 * codes[:, 1] + rng.integers(0, 10, n_rows)
    y = (signal > 22).astype(np.int64) if n_classes == 2 else signal % n_classes
    return codes, y


def write_files(kind, codes, y, directory, n_files=N_FILES):
    """``n_files`` files of string columns and a string class column ``y``."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    levels = pa.array(LEVELS.tolist())
    classes = pa.array([f"c{k:02d}" for k in range(int(y.max()) + 1)])
    for i, rows in enumerate(np.array_split(np.arange(len(codes)), n_files)):
        a, b = rows[0], rows[-1] + 1
        table = pa.table({**{c: levels.take(pa.array(codes[a:b, j])) for j, c in enumerate(NAMES)},
                          "y": classes.take(pa.array(y[a:b]))})
        if kind == "parquet":
            pq.write_table(table, directory / f"part-{i:03d}.parquet")
        else:
            pcsv.write_csv(table, directory / f"part-{i:03d}.csv")
    return directory


def build(name, codes, y, directory):
    """``(X, target, kind)``: the input, its target (values or a column name), categorical_features."""
    if name == "uint8 codes":
        return codes + np.uint8(1), y, "all"
    if name == "int64 array":  # 0-based, numpy's default integer: what OrdinalEncoder and most code produce
        return codes.astype(np.int64), y, "all"
    if name == "float64 array":  # measurements: each code's bin of width 1, binned into 10 equal-width bins
        return codes + np.random.default_rng(1).random(codes.shape), y, "auto"
    if name == "pandas category":
        return pd.DataFrame({c: pd.Categorical.from_codes(codes[:, j], LEVELS) for j, c in enumerate(NAMES)}), y, "auto"
    if name == "pandas str":
        return pd.DataFrame({c: pd.Series(LEVELS[codes[:, j]], dtype="str") for j, c in enumerate(NAMES)}), y, "auto"
    if name == "Parquet directory":
        return directory / "parquet", "y", "auto"
    if name == "CSV directory":
        return directory / "csv", "y", "auto"
    import dask.dataframe as dd

    return dd.read_parquet(str(directory / "parquet")), "y", "auto"


def side_by_side(chosen):
    """The chosen inputs in the groups measured together: the Parquet directory and the Dask DataFrame read
    from it, whose times are compared (a target), with their runs interleaved (so that a slow spell of the
    machine falls on both); every other input alone."""
    pair = ["Parquet directory", "Dask DataFrame (read_parquet)"]
    together = all(name in chosen for name in pair)
    groups = []
    for name in chosen:
        if not (together and name in pair):
            groups.append([name])
        elif name == pair[0]:
            groups.append(pair)
    return groups


def _chosen(variable, default):
    """The comma-separated names of an environment variable, or ``default``."""
    value = os.environ.get(variable)
    return default if not value else [v.strip() for v in value.split(",") if v.strip()]


def pass_thunks(X, target, kind, n_classes):
    """Every pass over one input, as thunks, each with the number of units it does (rounds, iterations)."""
    from nbparallel import AutoClass, BoostedNaiveBayes, NaiveBayes, SelectedNaiveBayes
    from nbparallel.model_selection.cross_validation import cross_validate

    model = NaiveBayes(categorical_features=kind).fit(X, target)
    attributes = X if not isinstance(target, str) else _attributes(X, target)
    return {
        "fit": (lambda: NaiveBayes(categorical_features=kind).fit(X, target), 1),
        "predict": (lambda: model.predict(attributes), 1),
        "predict_proba": (lambda: model.predict_proba(attributes), 1),
        "evaluate": (lambda: model.evaluate(X, target), 1),
        "boosting round": (lambda: BoostedNaiveBayes(n_rounds=BOOST_ROUNDS, categorical_features=kind)
                           .fit(X, target), BOOST_ROUNDS),
        "10-fold CV": (lambda: cross_validate(NaiveBayes(categorical_features=kind), X, target, cv=10), 1),
        "10-fold CV (accuracy)": (lambda: cross_validate(NaiveBayes(categorical_features=kind), X, target, cv=10,
                                                        scoring="accuracy"), 1),
        "select 5": (lambda: SelectedNaiveBayes(n_features=5, b_estimate="sample", categorical_features=kind)
                     .fit(X, target), 1),
        "EM iteration": (lambda: AutoClass(n_clusters=3, n_restarts=1, max_iter=EM_ITERATIONS, tol=0.0,
                                           random_state=0, categorical_features=kind).fit(attributes),
                         EM_ITERATIONS),
    }


def _attributes(X, target):
    """The attribute columns of a path or a Dask DataFrame (the target left out)."""
    if isinstance(X, Path):
        from nbparallel import Files

        return Files(X, drop=[target])
    return X.drop(columns=target)


def part_thunks(X, y, n_classes, workers):
    """The parts of the 20-class scoring passes on an in-memory array (see the module's docstring), as thunks
    with their units: the kernels run over the fitted model's partitions on ``workers`` threads."""
    from concurrent.futures import ThreadPoolExecutor

    from nbparallel import NaiveBayes
    from nbparallel.kernels import count_partition, scoring
    from nbparallel.kernels.boosting import reweight, round_labels

    model = NaiveBayes(categorical_features="all").fit(X, y)
    bounds = np.linspace(0, len(y), model.n_partitions_ + 1).astype(int)
    blocks = [(model.scoring_inputs(X[a:b]), np.asarray(y[a:b], dtype=np.int64)) for a, b in zip(bounds, bounds[1:])]
    posteriors = [np.empty((len(truth), n_classes)) for _, truth in blocks]
    pool = ThreadPoolExecutor(workers)
    no_edges = np.empty((0, 0))

    def each(fn):
        return lambda: list(pool.map(fn, range(len(blocks))))

    def count(i, labels=None, weights=None, columns=n_classes):
        inputs, truth = blocks[i]
        labels = truth.astype(np.int32) if labels is None else labels
        return count_partition(inputs.first, np.empty((len(truth), 0)), labels, weights, inputs.offsets, no_edges,
                               columns)

    rounds = []
    for inputs, truth in blocks:  # a round's predictions, labels and weights, made once
        predicted = inputs.best()
        rounds.append((predicted, *round_labels(predicted, truth, n_classes), np.ones(len(truth))))
    return {
        "part: counting kernel (fit's)": (each(count), 1),
        "part: best class (predict's kernel)": (each(lambda i: blocks[i][0].best()), 1),
        "part: posterior (predict_proba's kernel)": (each(lambda i: blocks[i][0].scores(scoring.POSTERIOR,
                                                                                          posteriors[i])), 1),
        "part: evaluation without ROC": (each(lambda i: blocks[i][0].evaluation(blocks[i][1], roc=False)), 1),
        "part: evaluation with ROC (evaluate's kernel)": (each(lambda i: blocks[i][0].evaluation(blocks[i][1])), 1),
        "part: 10 fold models derived (CV)": (lambda: [NaiveBayes.from_counts(
            model.counts_, model.schema_, n_features_in=X.shape[1], **model.get_params()) for _ in range(10)], 1),
        "part: round labels and reweighting (boosting)": (each(lambda i: (
            round_labels(rounds[i][0], blocks[i][1], n_classes), reweight(rounds[i][3], rounds[i][1], 0.5, 2.0))), 1),
        "part: weighted count of 2K classes (boosting)": (each(lambda i: count(
            i, rounds[i][2], rounds[i][3], 2 * n_classes)), 1),
    }


def peer_thunks(name, X, y, n_classes):
    """scikit-learn on the in-memory inputs: CategoricalNB.predict_proba (of codes; of strings or categories
    through an OrdinalEncoder pipeline) and 10 SAMME rounds."""
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

    from nbparallel import BoostedNaiveBayes

    binning = KBinsDiscretizer(n_bins=N_VALUES, encode="ordinal", strategy="uniform")
    if name == "uint8 codes":  # scikit-learn's codes are 0-based
        codes = X - 1
    elif name == "int64 array":
        codes = X
    elif name == "float64 array":
        codes = binning.fit_transform(X).astype(np.int64)  # not timed
    else:
        codes = OrdinalEncoder(dtype=np.int64).fit_transform(X)  # not timed
    nb = CategoricalNB().fit(codes, y)
    kind = "all" if name in CODES else "auto"
    thunks = {
        "sklearn CategoricalNB.predict_proba": lambda: nb.predict_proba(codes),
        "sklearn AdaBoost SAMME 10 rounds": lambda: _adaboost(AdaBoostClassifier, CategoricalNB).fit(codes, y),
        "nbparallel 10 boosting rounds": lambda: BoostedNaiveBayes(n_rounds=10, categorical_features=kind).fit(X, y),
    }
    if name not in CODES:
        encoder = binning if name == "float64 array" else OrdinalEncoder(dtype=np.int64)
        pipeline = make_pipeline(encoder, CategoricalNB()).fit(X, y)
        thunks[_pipeline_name(name)] = lambda: pipeline.predict_proba(X)
    return thunks


def _pipeline_name(name):
    """The scikit-learn pipeline an input's predict_proba is compared with."""
    return BINNING_PIPELINE if name == "float64 array" else PIPELINE


def _adaboost(AdaBoostClassifier, CategoricalNB):
    """``AdaBoostClassifier(CategoricalNB(), algorithm="SAMME")``, 10 rounds; scikit-learn >= 1.8 has SAMME only
    and no ``algorithm`` argument."""
    try:
        return AdaBoostClassifier(CategoricalNB(), n_estimators=10, algorithm="SAMME")
    except TypeError:
        return AdaBoostClassifier(CategoricalNB(), n_estimators=10)


def measure(thunks, notes, label, max_repeat=MAX_REPEAT):
    """Best wall time of each thunk and its timed runs, repeats interleaved: after a warm-up, one run, and more
    up to ``max_repeat`` while its runs and one more of its fastest fit in ``RUN_BUDGET_S``."""
    times = {}
    for tool, fn in thunks.items():
        try:
            timed(fn)  # warm-up (compilation, caches, fresh memory)
            times[tool] = [timed(fn)[0]]
        except Exception as exc:  # noqa: BLE001 - a pass or a peer failing must not stop the benchmark
            notes.append(f"{label}: {tool} failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    for _ in range(max_repeat - 1):  # at most max_repeat runs: one above, one more a round
        for tool, runs in times.items():
            if sum(runs) + min(runs) <= RUN_BUDGET_S:
                runs.append(timed(thunks[tool])[0])
    return {tool: (min(runs), len(runs)) for tool, runs in times.items()}


def run(ctx):
    """Every pass, every input, 2 and 20 classes, 10^6 (and 10^7) rows."""
    import dask

    quick = ctx.quick
    sizes = [int(float(n)) for n in os.environ.get("NBPARALLEL_BENCH_SIZES", "1e6,1e7").split(",")]
    sizes = [5_000] if quick else sizes
    max_repeat = 1 if quick else MAX_REPEAT  # a smoke run times each pass once
    notes, records = [], []
    big_inputs = set(os.environ.get("NBPARALLEL_BENCH_BIG", "uint8 codes,pandas category,Parquet directory")
                     .split(","))
    inputs = _chosen("NBPARALLEL_BENCH_INPUTS", INPUTS)
    passes = set(_chosen("NBPARALLEL_BENCH_PASSES", PASSES)) | {"fit"}
    class_counts = [int(k) for k in _chosen("NBPARALLEL_BENCH_CLASSES", ["2", "20"])]
    peers = os.environ.get("NBPARALLEL_BENCH_PEERS", "1") != "0"
    workers = int(os.environ.get("NBPARALLEL_BENCH_WORKERS", "2"))
    parts = os.environ.get("NBPARALLEL_BENCH_PARTS", "1") != "0"
    unknown = sorted(set(inputs) - set(INPUTS)) + sorted(passes - set(PASSES))
    if unknown:
        raise ValueError(f"unknown inputs or passes {unknown}: inputs are {INPUTS}, passes {PASSES}")
    partial = (inputs != INPUTS or passes != set(PASSES) or class_counts != [2, 20] or not peers or workers != 2)
    with dask.config.set(scheduler="threads", num_workers=workers):
        for n_rows in sizes:
            for n_classes in class_counts:
                codes, y = make_data(n_rows, n_classes)
                chosen = [name for name in inputs if n_rows <= 1_000_000 or name in big_inputs]
                with tempfile.TemporaryDirectory(prefix="nbparallel-passes-") as tmp:
                    files = Path(tmp)
                    for kind, readers in FILE_INPUTS.items():  # only the files a chosen input reads
                        if readers & set(chosen):
                            write_files(kind, codes, y, files / kind)
                    for group in side_by_side(chosen):
                        start = time.perf_counter()
                        label = f"{' and '.join(group)}, {n_rows} rows, {n_classes} classes"
                        built = {name: build(name, codes, y, files) for name in group}
                        thunks = {(name, p): t for name, (X, target, kind) in built.items()
                                  for p, t in pass_thunks(X, target, kind, n_classes).items() if p in passes}
                        if parts and group == ["uint8 codes"] and n_classes == 20 and n_rows <= 1_000_000:
                            X, target, _ = built["uint8 codes"]
                            thunks.update({("uint8 codes", p): t
                                           for p, t in part_thunks(X, target, n_classes, workers).items()})
                        timed = measure({key: f for key, (f, _) in thunks.items()}, notes, label, max_repeat)
                        for name, (X, _, _) in built.items():
                            mine = {p: value for (owner, p), value in timed.items() if owner == name}
                            if name in IN_MEMORY and peers and n_rows <= PEER_ROWS:
                                mine.update(measure(peer_thunks(name, X, y, n_classes), notes,
                                                    f"{name}, {n_rows} rows, {n_classes} classes", max_repeat))
                            fit = mine.get("fit", (np.nan, 0))[0]
                            for tool, (best, runs) in mine.items():
                                per = best / thunks.get((name, tool), (None, 1))[1]
                                records.append({"input": name, "rows": n_rows, "classes": n_classes, "pass": tool,
                                                "best_s": best, "per_unit_s": per, "runs": runs,
                                                "ratio_to_fit": per / fit})
                        print(f"  {label}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
                        del built, thunks
    rows = pd.DataFrame(records)
    summary = rows[rows["pass"].isin(PASSES)].pivot_table(
        index=["input", "rows", "classes"], columns="pass", values="ratio_to_fit", sort=False).reset_index()
    # the fit column holds seconds, the others multiples of it
    fits = rows[rows["pass"] == "fit"].set_index(["input", "rows", "classes"])["best_s"]
    summary["fit"] = [fits[tuple(k)] for k in summary[["input", "rows", "classes"]].itertuples(index=False)]
    summary = summary[["input", "rows", "classes"] + [p for p in PASSES if p in summary]]
    notes += [
        ("fit: best seconds; every other column: the pass (per boosting round, per EM iteration) as a multiple "
        "of the same input's fit, same run, same process"),
        (f"{workers} threads (Dask's threaded scheduler); peers on one thread (scikit-learn is single-threaded), "
         f"at up to {PEER_ROWS:,} rows"),
        ("boosting round = BoostedNaiveBayes(n_rounds=5).fit / 5 (its first counting pass included, and its schema "
         "pass where fit takes two); "
         "EM iteration = AutoClass(3 clusters, 1 restart, max_iter=10, tol=0).fit / 10 (its schema pass included)"),
    ] + (["quick run: tiny sizes, the ratios are not meaningful"] if quick else [])
    parameters = {"sizes": sizes, "inputs": inputs, "passes": sorted(passes), "classes": class_counts,
                  "max_repeat": max_repeat, "run_budget_s": RUN_BUDGET_S, "attributes": N_ATTRIBUTES,
                  "values": N_VALUES, "files": N_FILES, "workers": workers, "load_average": os.getloadavg()}
    if partial:
        notes.append("partial run: a subset of the inputs, passes, classes or peers, or other than 2 threads")
    return Result("passes-partial" if partial else "passes", rows, summary, _plot, parameters, _targets(rows), notes)


def _targets(rows):
    targets = []
    ratio = rows.set_index(["input", "rows", "classes", "pass"])["ratio_to_fit"]
    best = rows.set_index(["input", "rows", "classes", "pass"])["best_s"]
    for (name, n, k, p), value in ratio.items():
        threshold = TARGETS[p][0 if k == 2 else 1] if p in TARGETS else None
        if threshold is None and p in RELATIVE_TARGETS and (name, n, k, RELATIVE_TARGETS[p][0]) in ratio:
            base, fits = RELATIVE_TARGETS[p]
            threshold = ratio[name, n, k, base] + fits
            p = f"{p} (target: {base} + {fits:g} fit)"
        if threshold is not None:
            targets.append(Target(f"{name}, {n} rows, {k} classes: {p} / fit", value, threshold, at_most=True))
    for n in sorted(rows["rows"].unique()):
        for k in (2, 20):
            dask_name, path = "Dask DataFrame (read_parquet)", "Parquet directory"
            for p in PASSES:
                if (dask_name, n, k, p) in best and (path, n, k, p) in best:
                    targets.append(Target(f"{n} rows, {k} classes: {p}, Dask DataFrame / the files as a path",
                                          best[dask_name, n, k, p] / best[path, n, k, p], 1.3, at_most=True))
            for name in IN_MEMORY:
                key = (name, n, k)
                peer = "sklearn CategoricalNB.predict_proba" if name in CODES else _pipeline_name(name)
                if (*key, peer) in best and (*key, "predict_proba") in best:
                    targets.append(Target(f"{name}, {n} rows, {k} classes: {peer} / nbparallel predict_proba",
                                          best[(*key, peer)] / best[(*key, "predict_proba")], 10, at_most=False))
                theirs, ours = (*key, "sklearn AdaBoost SAMME 10 rounds"), (*key, "nbparallel 10 boosting rounds")
                if theirs in best and ours in best:
                    targets.append(Target(f"{name}, {n} rows, {k} classes: AdaBoost(CategoricalNB) / nbparallel, "
                                          "10 rounds", best[theirs] / best[ours], 20, at_most=False))
    return targets


def _plot(rows):
    data = rows[rows["pass"].isin(PASSES[1:])]
    groups = list(data.groupby(["rows", "classes"]))
    figure, axes = plt.subplots(len(groups), 1, figsize=(11, 3.2 * len(groups) + 0.5), squeeze=False)
    for ax, ((n, k), part) in zip(axes[:, 0], groups):
        pivot = part.pivot_table(index="pass", columns="input", values="ratio_to_fit", sort=False)
        pivot = pivot.reindex([p for p in PASSES[1:] if p in pivot.index])
        pivot.plot.bar(ax=ax, logy=True, width=0.8, rot=0)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set(ylabel="x the input's fit", xlabel="", title=f"{n:,} rows x {N_ATTRIBUTES} attributes, {k} classes")
        ax.tick_params(axis="x", labelsize=8)
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))  # log axes label minor ticks too
        ax.legend(fontsize=7, ncol=3)
    figure.suptitle("Every pass as a multiple of the same input's fit (same process, best of the repeats)")
    figure.tight_layout()
    return figure

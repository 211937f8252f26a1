"""Benchmark one Langley-Sage figure's experiment against the plain loop of NaiveBayes fits it replaces.

Run ``nbparallel bench langley [--figure 1a] [--runs 1000] [--loop-runs 3] [--repeat 3]``.

* engine: :func:`nbparallel.analysis.figures.figure_table`, R runs per curve as one
  pass on the engine (vectorised counting of every run's prefixes), best of ``--repeat``.
* loop: for each curve, run and n, ``NaiveBayes(alpha=1, class_alpha=2,
  categorical_features="all").fit`` on the first n cases and ``predict`` on the
  2^(r+i) test instances. It runs ``--loop-runs`` runs per curve and is
  extrapolated linearly to R (training sets with one class, which NaiveBayes
  cannot fit, are skipped and their time counted as the average fit's).

Its target: the figure at R = 1000 in under a minute.
"""

import time

import pandas as pd

from harness.context import Parameter, parameters
from harness.report import Result, Target
from harness.timing import best_of
from nbparallel import NaiveBayes
from nbparallel.analysis.experiment import run_stream
from nbparallel.analysis.figures import FIGURES, figure_table

TARGET_SECONDS = 60.0


def engine_seconds(name, runs, repeat):
    """Best wall seconds of the figure's experiment on the engine."""
    return best_of(lambda: figure_table(name, runs, seed=0), repeat, warmup=False)[0]


def loop_seconds(name, loop_runs):
    """Wall seconds of the plain loop over ``loop_runs`` runs per curve, and the fits it made and skipped."""
    figure = FIGURES[name]
    fits = skipped = 0
    start = time.perf_counter()
    for curve, (_, domain) in enumerate(figure.curves):
        test_X = domain.test_set()[0].astype(int)
        for run in range(loop_runs):
            X, y = domain.sample(run_stream(0, curve, run), figure.n_max)
            X, y = X.astype(int), y.astype(int)
            for n in range(1, figure.n_max + 1):
                if 0 < y[:n].sum() < n:
                    model = NaiveBayes(alpha=1.0, class_alpha=2.0, categorical_features="all")
                    model.fit(X[:n], y[:n]).predict(test_X)
                    fits += 1
                else:
                    skipped += 1
    return time.perf_counter() - start, fits, skipped


@parameters(figure=Parameter("1a", "the figure", choices=tuple(sorted(FIGURES))),
            runs=Parameter(1000, "runs R per curve of the engine", quick=2),
            loop_runs=Parameter(3, "runs per curve of the plain loop", quick=1),
            repeat=Parameter(3, "timed runs of the engine", quick=1))
def run(ctx):
    """The engine's time against the plain loop's, extrapolated to R runs."""
    name, runs, loop_runs, repeat = (ctx.parameters[key] for key in ("figure", "runs", "loop_runs", "repeat"))
    figure_table(name, 20, seed=0)  # warm-up: imports, numba caches
    loop_seconds(name, 1)
    engine = engine_seconds(name, runs, repeat)
    loop, fits, skipped = loop_seconds(name, loop_runs)
    per_fit = loop / fits
    loop_at_runs = per_fit * (fits + skipped) * runs / loop_runs
    ratio = loop_at_runs / engine
    n_sets = len(FIGURES[name].curves) * runs * FIGURES[name].n_max
    record = {"figure": name, "runs": runs, "training_sets": n_sets, "engine_best_s": engine,
              "loop_runs_measured": loop_runs, "loop_measured_s": loop, "loop_fits": fits,
              "loop_skipped_one_class": skipped, "loop_s_per_fit": per_fit, "loop_extrapolated_s": loop_at_runs,
              "speedup": ratio, "target_s": TARGET_SECONDS, "pass": engine < TARGET_SECONDS}
    print(f"figure {name}: {n_sets} training sets (R = {runs} per curve)")
    print(f"  engine pass (vectorised counting), best of {repeat}: {engine:8.2f} s")
    print(f"  plain loop of NaiveBayes fit+predict: {per_fit * 1e3:.1f} ms per fit, measured on R = {loop_runs} "
          f"({loop:.1f} s), extrapolated to R = {runs}: {loop_at_runs:8.0f} s")
    print(f"  speed-up {ratio:,.0f}x")
    frame = pd.DataFrame([record])
    return Result("langley", frame, frame,
                  targets=[Target(f"figure {name} on the engine, R = {runs}", engine, TARGET_SECONDS, at_most=True,
                                  unit=" s")])

"""Benchmark one Langley-Sage figure's experiment against the plain loop of NaiveBayes fits it replaces.

Run ``nbparallel bench langley [--figure 1a] [--runs 1000] [--loop-runs 3] [--repeat 3]``.

* engine: :func:`nbparallel.analysis.figures.figure_table`, R runs per curve as one
  pass on the engine (vectorised counting of every run's prefixes), best of ``--repeat``.
* loop: for each curve, run and n, ``NaiveBayes(alpha=1, class_alpha=2,
  categorical_features="all").fit`` on the first n cases and ``predict`` on the
  2^(r+i) test instances. It runs ``--loop-runs`` runs per curve and is
  extrapolated linearly to R (training sets with one class, which NaiveBayes
  cannot fit, are skipped and their time counted as the average fit's).

Writes ``benchmarks/results/langley/bench_langley.json`` and prints PASS/FAIL
for the target (the figure at R = 1000 in under a minute).
"""

import argparse
import json
import os
import platform
import time
from pathlib import Path

from harness import RESULTS as HARNESS_RESULTS
from harness.timing import best_of
from nbparallel import NaiveBayes
from nbparallel.analysis.experiment import run_stream
from nbparallel.analysis.figures import FIGURES, figure_table

TARGET_SECONDS = 60.0
RESULTS = HARNESS_RESULTS / "langley"


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figure", default="1a", choices=sorted(FIGURES))
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--loop-runs", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--results-dir", type=Path, default=RESULTS, help="where to write the results")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, written as NAME-quick.*")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.loop_runs, args.repeat = 2, 1, 1

    figure_table(args.figure, 20, seed=0)  # warm-up: imports, numba caches
    loop_seconds(args.figure, 1)
    engine = engine_seconds(args.figure, args.runs, args.repeat)
    loop, fits, skipped = loop_seconds(args.figure, args.loop_runs)
    per_fit = loop / fits
    loop_at_runs = per_fit * (fits + skipped) * args.runs / args.loop_runs
    ratio = loop_at_runs / engine
    n_sets = len(FIGURES[args.figure].curves) * args.runs * FIGURES[args.figure].n_max
    result = {
        "figure": args.figure, "runs": args.runs, "training_sets": n_sets,
        "engine_best_s": engine, "loop_runs_measured": args.loop_runs, "loop_measured_s": loop,
        "loop_fits": fits, "loop_skipped_one_class": skipped, "loop_s_per_fit": per_fit,
        "loop_extrapolated_s": loop_at_runs, "speedup": ratio,
        "target_s": TARGET_SECONDS, "pass": engine < TARGET_SECONDS,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / f"bench_langley{'-quick' * args.quick}.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"figure {args.figure}: {n_sets} training sets (R = {args.runs} per curve)")
    print(f"  engine pass (vectorised counting), best of {args.repeat}: {engine:8.2f} s")
    print(f"  plain loop of NaiveBayes fit+predict: {per_fit * 1e3:.1f} ms per fit, measured on R = {args.loop_runs} "
          f"({loop:.1f} s), extrapolated to R = {args.runs}: {loop_at_runs:8.0f} s")
    print(f"  speed-up {ratio:,.0f}x; target < {TARGET_SECONDS:.0f} s: {'PASS' if result['pass'] else 'FAIL'}")
    return 0 if result["pass"] else 1

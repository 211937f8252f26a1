"""The ``nbparallel`` command line, thin over the library."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd


def _split_every(text):
    if text == "flat":
        return False
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--split-every must be an int >= 2 or 'flat', got {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"--split-every must be an int >= 2 or 'flat', got {value}")
    return value


def _smoothing(text):
    return text if text == "1/N" else float(text)


def _add_data_options(p):
    p.add_argument("--partitions", type=int, help="number of partitions (default: the files' own)")
    p.add_argument("--bins", type=int, default=10, help="equal-width bins per numeric column (default 10)")
    p.add_argument("--split-every", type=_split_every, default=2, help="reduction fan-in, or 'flat' (default 2)")
    p.add_argument("--categorical", nargs="+", metavar="COLUMN", help="numeric columns to treat as categorical")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def _add_cluster_options(p):
    group = p.add_mutually_exclusive_group()
    group.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at this address")
    group.add_argument("--cluster", metavar="CONFIG", help="run on the cluster a cluster_configs/*.yaml file describes")


@contextlib.contextmanager
def _execution(args):
    """Activate the cluster the options name; the local threaded scheduler otherwise."""
    if not (getattr(args, "scheduler", None) or getattr(args, "cluster", None)):
        yield None
        return
    from .cluster import client_for

    with client_for(scheduler=args.scheduler, cluster=args.cluster) as client:
        with client.as_current():
            yield client


def _read_table(path):
    p = Path(path)
    if not p.exists():
        raise ValueError(f"data path {str(p)!r} does not exist")
    from .data import read_files

    return read_files(p)


def _write_table(frame, path):
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    if path.suffix.lower() in (".parquet", ".pq"):
        frame.to_parquet(tmp, index=False)
    else:
        frame.to_csv(tmp, index=False)
    tmp.replace(path)


def cmd_fit(args):
    from .models import NaiveBayes

    if args.boost:
        return cmd_fit_boosted(args)
    model = NaiveBayes(
        alpha=args.alpha, class_alpha=args.class_alpha, n_bins=args.bins,
        categorical_features=args.categorical or "auto", n_partitions=args.partitions,
        split_every=args.split_every, verbose=0 if args.quiet else 1,
    )
    start = time.perf_counter()
    with _execution(args), _warnings_as_messages("fit"):
        model.fit(args.data, args.target, sample_weight=args.weight)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    r = model.reduction_
    print(f"fitted {len(model.classes_)} classes from {model.counts_.class_totals.sum():g} rows "
          f"({model.n_missing_target_} with a missing target skipped) in {elapsed:.2f} s")
    print(f"partitions {r.n_leaves}, reduction tree height {r.height}, merges {r.n_merges}")
    print(f"model written to {args.output}")


def _print_passes(model):
    kinds = dict.fromkeys(p["kind"] for p in model.passes_)
    print("passes: " + ", ".join(
        f"{sum(p['kind'] == k for p in model.passes_)} {k} "
        f"({sum(p['seconds'] for p in model.passes_ if p['kind'] == k):.2f} s)" for k in kinds))


def cmd_fit_boosted(args):
    from .models import BoostedNaiveBayes

    model = BoostedNaiveBayes(
        n_rounds=args.boost, alpha=args.alpha, class_alpha=args.class_alpha, n_bins=args.bins,
        categorical_features=args.categorical or "auto", n_partitions=args.partitions,
        split_every=args.split_every, checkpoint=args.checkpoint, verbose=0 if args.quiet else 1,
    )
    start = time.perf_counter()
    with _execution(args):
        model.fit(args.data, args.target, sample_weight=args.weight)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    print(f"boosted {len(model.estimators_)} naive Bayes rounds over {len(model.classes_)} classes "
          f"in {elapsed:.2f} s; weighted errors " + ", ".join(f"{e:.4f}" for e in model.estimator_errors_))
    _print_passes(model)
    print(f"model written to {args.output}")


def cmd_cluster_fit(args):
    from .models import AutoClass

    model = AutoClass(
        n_clusters=args.clusters, n_restarts=args.restarts, max_iter=args.max_iter, tol=args.tol,
        random_state=args.seed, alpha=args.alpha, n_bins=args.bins,
        categorical_features=args.categorical or "auto", n_partitions=args.partitions,
        split_every=args.split_every, checkpoint=args.checkpoint, verbose=0 if args.quiet else 1,
    )
    start = time.perf_counter()
    with _execution(args):
        model.fit(args.data)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    print(f"{args.clusters} clusters, best of {args.restarts} restarts (restart {model.best_restart_}), "
          f"{model.n_iter_} EM iterations{'' if model.converged_ else ' (not converged)'} in {elapsed:.2f} s")
    print(f"log-posterior {model.history_[-1]:.4f}")
    _print_passes(model)
    print(f"model written to {args.output}")


def cmd_predict(args):
    from .io import load

    model = load(args.model)
    with _execution(args):
        data = _read_table(args.data)
        columns = list(model.feature_names_in_) if hasattr(model, "feature_names_in_") else None
        X = data[columns] if columns is not None else data
        out = pd.DataFrame({"prediction": model.predict(X)})
        if args.proba:
            proba = model.predict_proba(X)
            labels = getattr(model, "classes_", range(proba.shape[1]))  # clusters are numbered
            for k, c in enumerate(labels):
                out[f"proba_{c}"] = proba[:, k]
    _write_table(out, args.output)
    print(f"{len(out)} predictions written to {args.output}")


@contextlib.contextmanager
def _warnings_as_messages(command):
    """Show the library's warnings (ignored attributes, ...) as plain messages on stderr."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        yield
    for w in caught:
        print(f"nbparallel {command}: warning: {w.message}", file=sys.stderr)


def cmd_select(args):
    from .selection import SelectedNaiveBayes

    model = SelectedNaiveBayes(
        n_features=args.features, max_features=args.max_features or "auto", must_include=args.must or (),
        b_estimate="exact" if args.exact else "sample", sample_size=args.sample_size, random_state=args.seed,
        n_bins=args.bins, categorical_features=args.categorical or "auto", n_partitions=args.partitions,
        split_every=args.split_every, verbose=0 if args.quiet else 1,
    )
    start = time.perf_counter()
    with _execution(args), _warnings_as_messages("select"):
        test = None if args.test is None else _read_table(args.test)
        model.fit(args.data, args.target, X_test=test, y_test=None if test is None else args.target)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    print(f"{'J':>3}  {'added':<28} {'l_train':>10} {'l_test':>10} {'Q':>10}")
    for step in model.selection_path_:
        lt = "" if step["l_test"] is None else f"{step['l_test']:.5f}"
        print(f"{step['n_features']:>3}  {str(step['added'] or '(initial)'):<28} {step['l_train']:>10.5f} "
              f"{lt:>10} {step['Q']:>10.5f}")
    print(f"selected {len(model.selected_features_)} predictors by {model.criterion_}: "
          + ", ".join(model.selected_features_))
    _print_passes(model)
    print(f"in {elapsed:.2f} s; model written to {args.output}")


def cmd_cv(args):
    from .cross_validation import cross_validate
    from .models import NaiveBayes

    estimator = NaiveBayes(alpha=args.alpha, class_alpha=args.class_alpha, n_bins=args.bins,
                           categorical_features=args.categorical or "auto", n_partitions=args.partitions,
                           split_every=args.split_every, verbose=0 if args.quiet else 1)
    start = time.perf_counter()
    with _execution(args):
        result = cross_validate(estimator, args.data, args.target, cv=args.folds)
    elapsed = time.perf_counter() - start
    table = pd.DataFrame({"rows": result["n_test_rows"], "accuracy": result["test_accuracy"],
                          "log_likelihood": result["test_log_likelihood"]})
    table.index.name = "fold"
    print(table.to_string(float_format=lambda v: f"{v:.4f}"))
    print(f"mean accuracy {table['accuracy'].mean():.4f} (sd {table['accuracy'].std(ddof=0):.4f}), "
          f"mean log-likelihood {table['log_likelihood'].mean():.4f}")
    print("passes: " + ", ".join(f"{p['kind']} ({p['seconds']:.2f} s)" for p in result["passes"])
          + f"; {elapsed:.2f} s in all")


def cmd_report(args):
    from .io import load
    from .report import write_report

    model = load(args.model)
    if not hasattr(model, "feature_log_prob_"):
        raise TypeError(f"a report needs a NaiveBayes or SelectedNaiveBayes model, got {type(model).__name__}")
    path = write_report(model, args.output, max_attributes=args.top)
    print(f"report written to {path}")


def cmd_evaluate(args):
    from .io import load

    model = load(args.model)
    target = args.target or getattr(model, "target_column_", None)
    if target is None:
        raise ValueError("--target is required: the model does not record its target column")
    with _execution(args):
        data = _read_table(args.data)
        if target not in data.columns:
            raise ValueError(f"target column {target!r} does not exist; columns are {list(data.columns)}")
        columns = list(model.feature_names_in_) if hasattr(model, "feature_names_in_") else None
        frame = data[columns + [target]] if columns is not None else data
        result = model.evaluate(frame, target)
    if args.json:
        import json

        classes = [c.item() if isinstance(c, np.generic) else c for c in model.classes_]
        print(json.dumps({"classes": classes, **{k: v.tolist() if isinstance(v, np.ndarray) else v
                                                 for k, v in result.items()}}, indent=2))
        return
    print(f"rows                    {result['n_rows']}")
    print(f"accuracy                {result['accuracy']:.4f}")
    print(f"average log-likelihood  {result['average_log_likelihood']:.4f}")
    if "classification_error" in result:
        print(f"classification error    {result['classification_error']:.4f}")
    print("confusion matrix (rows: true class, columns: predicted):")
    print(pd.DataFrame(result["confusion_matrix"], index=model.classes_, columns=model.classes_).to_string())
    if "precision" in result:
        print(pd.DataFrame({k: result[k] for k in ("precision", "recall", "f1")}, index=model.classes_)
              .to_string(float_format=lambda v: f"{v:.4f}"))


def cmd_demo(args):
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split

    from .models import NaiveBayes

    print(f"nbparallel demo: naive Bayes by counting, {args.partitions} partitions, "
          f"tree fan-in {args.split_every or 'flat'}, local threaded scheduler\n")
    for name, loader in (("breast cancer", load_breast_cancer), ("digits", load_digits)):
        bunch = loader(as_frame=True)
        X_train, X_test, y_train, y_test = train_test_split(
            bunch.data, bunch.target, test_size=0.3, random_state=0, stratify=bunch.target)
        start = time.perf_counter()
        model = NaiveBayes(n_partitions=args.partitions, split_every=args.split_every, verbose=0).fit(X_train, y_train)
        fit_seconds = time.perf_counter() - start
        start = time.perf_counter()
        accuracy = model.score(X_test, y_test)
        score_seconds = time.perf_counter() - start
        single = NaiveBayes(n_partitions=1).fit(X_train, y_train)
        r = model.reduction_
        print(f"{name}: {len(X_train)} training rows, {X_train.shape[1]} attributes, {len(model.classes_)} classes")
        print(f"  test accuracy        {accuracy:.4f}")
        print(f"  partitions           {r.n_leaves}")
        print(f"  reduction tree       height {r.height} (ceil(log2 P) = {int(np.ceil(np.log2(r.n_leaves)))}), "
              f"{r.n_merges} merges, level sizes {list(r.level_sizes)}")
        print("  passes               " + ", ".join(f"{p['kind']} {p['seconds'] * 1000:.0f} ms" for p in model.passes_))
        print(f"  fit / score time     {fit_seconds:.3f} s / {score_seconds:.3f} s")
        print(f"  same counts as P=1   {model.counts_.equals(single.counts_)}\n")


def cmd_bench(args):
    """Run ``benchmarks/run.py`` of a source checkout; the package never imports it."""
    import subprocess

    import nbparallel

    candidates = [Path(nbparallel.__file__).resolve().parents[1] / "benchmarks" / "run.py",
                  Path.cwd() / "benchmarks" / "run.py"]
    runner = next((c for c in candidates if c.is_file()), None)
    if runner is None:
        raise FileNotFoundError("the benchmarks are not installed with the package; run `nbparallel bench` "
                                "from a source checkout of nbparallel (looked for "
                                + " and ".join(str(c) for c in candidates) + ")")
    status = subprocess.run([sys.executable, str(runner), *args.bench_args]).returncode
    if status:
        raise SystemExit(status)


def build_parser():
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="nbparallel", description="Parallel and distributed naive Bayes.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fit", help="train a naive Bayes model and save it as JSON")
    p.add_argument("data", help="CSV or Parquet file or directory")
    p.add_argument("--target", required=True, help="name of the target column")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    p.add_argument("--weight", help="name of a sample-weight column")
    p.add_argument("--alpha", type=_smoothing, default="1/N", help="cell smoothing f (default 1/N; 1 = Laplace)")
    p.add_argument("--class-alpha", type=_smoothing, default="1/N", help="class-prior smoothing lambda (default 1/N)")
    p.add_argument("--boost", type=int, metavar="T", help="boost T naive Bayes rounds (AdaBoost.M1 / SAMME)")
    p.add_argument("--checkpoint", metavar="FILE", help="with --boost: resume from / save state to this JSON file")
    _add_data_options(p)
    _add_cluster_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("cluster-fit", help="cluster rows with AutoClass (naive Bayes EM) and save the model")
    p.add_argument("data", help="CSV or Parquet file or directory")
    p.add_argument("--clusters", type=int, required=True, help="number of clusters K")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    p.add_argument("--restarts", type=int, default=5, help="random restarts, run together (default 5)")
    p.add_argument("--max-iter", type=int, default=100, help="most EM iterations (default 100)")
    p.add_argument("--tol", type=float, default=1e-6, help="stop when the log-posterior gains <= tol per row")
    p.add_argument("--seed", type=int, help="random seed of the starting parameters")
    p.add_argument("--alpha", type=float, default=1.0, help="Dirichlet smoothing (default 1)")
    p.add_argument("--checkpoint", metavar="FILE", help="resume from / save state to this JSON file")
    _add_data_options(p)
    _add_cluster_options(p)
    p.set_defaults(func=cmd_cluster_fit)

    p = sub.add_parser("predict", help="predict with a saved model")
    p.add_argument("model")
    p.add_argument("data", help="CSV or Parquet file or directory")
    p.add_argument("-o", "--output", required=True, help="CSV or Parquet file to write")
    p.add_argument("--proba", action="store_true", help="also write class probabilities")
    _add_cluster_options(p)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("evaluate", help="accuracy, confusion matrix and average log-likelihood")
    p.add_argument("model")
    p.add_argument("data", help="CSV or Parquet file or directory")
    p.add_argument("--target", help="target column (default: the one the model was fitted on)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    _add_cluster_options(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("select", help="SPSS forward feature selection; save the selected naive Bayes model")
    p.add_argument("data", help="CSV or Parquet file or directory")
    p.add_argument("--target", required=True, help="name of the target column")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--max-features", type=int, metavar="K", help="grow to at most K predictors (default: J_Max)")
    size.add_argument("--features", type=int, metavar="K", help="select exactly K predictors")
    p.add_argument("--must", nargs="+", metavar="COL", help="predictors always included")
    p.add_argument("--test", metavar="DATA", help="test data: the best subset maximises its log-likelihood")
    p.add_argument("--exact", action="store_true", help="exact B(J): one data pass per step (default: sampled)")
    p.add_argument("--sample-size", type=int, default=1000, help="simulated cases for B(J) (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulated cases (default 0)")
    _add_data_options(p)
    _add_cluster_options(p)
    p.set_defaults(func=cmd_select)

    p = sub.add_parser("cv", help="exact k-fold cross-validation in one counting pass")
    p.add_argument("data", help="CSV or Parquet file or directory")
    p.add_argument("--target", required=True, help="name of the target column")
    p.add_argument("--folds", type=int, default=10, help="number of folds, contiguous in row order (default 10)")
    p.add_argument("--alpha", type=_smoothing, default="1/N", help="cell smoothing f (default 1/N; 1 = Laplace)")
    p.add_argument("--class-alpha", type=_smoothing, default="1/N", help="class-prior smoothing lambda (default 1/N)")
    _add_data_options(p)
    _add_cluster_options(p)
    p.set_defaults(func=cmd_cv)

    p = sub.add_parser("report", help="draw a model: evidence of every value, attributes ranked, ignored ones")
    p.add_argument("model")
    p.add_argument("-o", "--output", default="report.png", help="report.png, .svg, .pdf or .html (default report.png)")
    p.add_argument("--top", type=int, default=8, help="evidence panels for the top N attributes (default 8)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("demo", help="the main job: fit and score on bundled real datasets, locally")
    p.add_argument("--partitions", type=int, default=8, help="number of partitions (default 8)")
    p.add_argument("--split-every", type=_split_every, default=2, help="reduction fan-in, or 'flat'")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("bench", help="run a benchmark experiment (source checkout only)",
                       description="Run benchmarks/run.py: EXPERIMENT (strong, weak, reduction, model, peers, "
                                   "boosting) [--quick] [--scheduler ADDRESS | --cluster CONFIG] [--results-dir DIR]")
    p.add_argument("bench_args", nargs=argparse.REMAINDER, metavar="EXPERIMENT [OPTIONS]",
                   help="passed on to benchmarks/run.py")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv=None):
    """Entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except (ValueError, TypeError, FileNotFoundError, ImportError, ConnectionError) as exc:
        print(f"nbparallel {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # failures of the cluster: NoWorkerError, KilledWorker, ...
        print(f"nbparallel {args.command}: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

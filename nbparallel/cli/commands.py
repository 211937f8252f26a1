"""The ``nbparallel`` command line, thin over the library."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from nbparallel.engine import execution


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


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _smoothing(text):
    if text == "1/N":
        return text
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive finite number or '1/N', got {text!r}")
    return value


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an int >= 1, got {text!r}")
    return value


def _add_data_options(p):
    p.add_argument("--partitions", type=int, help="number of partitions (default: the files' own)")
    p.add_argument("--bins", type=int, default=10, help="equal-width bins per numeric column (default 10)")
    p.add_argument("--split-every", type=_split_every, default=2, help="reduction fan-in, or 'flat' (default 2)")
    p.add_argument("--categorical", nargs="+", metavar="COLUMN", help="numeric columns to treat as categorical")
    p.add_argument("--numeric", nargs="+", metavar="COLUMN",
                   help="columns to treat as numeric (binned) whatever their values look like; text in them is "
                        "read as numbers, --na-values as missing, anything else is an error")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--drop", nargs="+", metavar="COLUMN", help="columns to leave out (ids, leaks)")
    _add_na_values(p)


def _add_na_values(p):
    p.add_argument("--na-values", nargs="+", metavar="TEXT",
                   help="strings that mean a missing value besides the usual ones (e.g. '?' in Weka files)")


def _data_path(args, path=None):
    """The data path (or ``path``, test data), with its read options."""
    path = args.data if path is None else path
    if not (getattr(args, "na_values", None) or getattr(args, "numeric", None)):
        return path
    from nbparallel.data.files.options import Files

    return Files(path, na_values=args.na_values, numeric_features=getattr(args, "numeric", None))


def _add_cluster_options(p):
    group = p.add_mutually_exclusive_group()
    group.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at this address")
    group.add_argument("--cluster", metavar="CONFIG", help="run on the cluster a cluster_configs/*.yaml file describes")


@contextlib.contextmanager
def _execution(args):
    """Activate the cluster the options name (the local threaded scheduler otherwise)."""
    if not (getattr(args, "scheduler", None) or getattr(args, "cluster", None)):
        yield None
        return
    from nbparallel.cluster import client_for

    with client_for(scheduler=args.scheduler, cluster=args.cluster) as client:
        with client.as_current():
            yield client


def _check_output(path):
    """Raise ValueError before any work when the output's directory does not exist."""
    parent = Path(path).parent
    if not parent.is_dir():
        raise ValueError(f"the output directory {str(parent)!r} of {str(path)!r} does not exist")


def _training_data(args):
    """The data path, or the files without the ``--drop`` columns."""
    if not args.drop:
        return _data_path(args)
    data = _read_table(_data_path(args))
    missing = [c for c in args.drop if c not in data.columns]
    if missing:
        raise ValueError(f"--drop names columns {missing} that the data does not have; "
                         f"columns are {list(data.columns)}")
    return data.drop(columns=args.drop)


def _loaded(args):
    """The model file's estimator, its progress bars set by --quiet rather than by the file."""
    from nbparallel.loading import load

    model = load(args.model)
    verbose = 0 if args.quiet else 1
    model.set_params(verbose=verbose)
    for learner in getattr(model, "estimators_", []):
        learner.set_params(verbose=verbose)
    return model


def _feature_columns(model, data, keep=()):
    """The model's attribute columns of ``data``: its recorded names, or all but the target and ``keep``."""
    names = list(model.feature_names_in_) if hasattr(model, "feature_names_in_") else None
    if names is None:
        target = getattr(model, "target_column_", None)
        return [c for c in data.columns if c != target and c not in keep]
    missing = [c for c in names if c not in data.columns]
    if missing:
        raise ValueError(f"the data lacks columns {missing[:5]}{' ...' if len(missing) > 5 else ''} "
                         f"that the model was fitted on")
    return names


def _read_table(path):
    p = Path(path)
    if not p.exists():
        raise ValueError(f"data path {str(p)!r} does not exist")
    from nbparallel.data.files.dataset import read_files

    return read_files(path)  # a Files keeps its read options


def _write_table(frame, path):
    """Write a CSV or (by suffix) Parquet file completely or not at all."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def _is_directory_output(path):
    return path.endswith(("/", "\\")) or Path(path).is_dir()


def _numbers_parsed(model, X):
    """``X`` with the text in the model's numeric columns parsed to numbers, as its fit did."""
    from nbparallel.data.numeric_text import numeric_frame

    kinds = getattr(model, "feature_kinds_", None) or model.schema_.feature_kinds
    return numeric_frame(X, ["numeric" if kinds.get(c) in ("numeric", "gaussian") else "categorical"
                             for c in X.columns])


def _predictions(model, part, features, keep, proba, directory, index):
    """One partition's predictions as a DataFrame, or written to ``directory`` (then its row count)."""
    labels, probabilities = model.predict_part(_numbers_parsed(model, part[features]), proba)
    out = pd.DataFrame({c: part[c].to_numpy() for c in keep})
    out["prediction"] = labels
    if proba:
        names = getattr(model, "classes_", range(probabilities.shape[1]))  # clusters are numbered
        for k, c in enumerate(names):
            out[f"proba_{c}"] = probabilities[:, k]
    if directory is None:
        return out
    suffix = ".csv" if directory.suffix.lower() == ".csv" else ".parquet"
    _write_table(out, directory / f"part-{index:05d}{suffix}")
    return len(out)


def cmd_fit(args):
    from nbparallel.models.naive_bayes import NaiveBayes

    _check_output(args.output)
    if args.boost is not None:
        return cmd_fit_boosted(args)
    if args.checkpoint is not None:
        raise ValueError("--checkpoint needs --boost T: only boosting resumes from a checkpoint")
    model = NaiveBayes(
        alpha=args.alpha, class_alpha=args.class_alpha, n_bins=args.bins,
        categorical_features=args.categorical or "auto", numeric_features=args.numeric,
        n_partitions=args.partitions,
        split_every=args.split_every, verbose=0 if args.quiet else 1,
    )
    start = time.perf_counter()
    with _execution(args), _warnings_as_messages("fit"):
        model.fit(_training_data(args), args.target, sample_weight=args.weight)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    r = model.reduction_
    amount = f"a total weight of {model.counts_.class_totals.sum():g}" if args.weight \
        else f"{model.counts_.class_totals.sum():g} rows"
    print(f"fitted {len(model.classes_)} classes from {amount} "
          f"({model.n_missing_target_} rows with a missing target skipped) in {elapsed:.2f} s")
    print(f"partitions {r.n_leaves}, reduction tree height {r.height}, merges {r.n_merges}")
    print(f"model written to {args.output}")


def _print_passes(model):
    kinds = dict.fromkeys(p["kind"] for p in model.passes_)
    print("passes: " + ", ".join(
        f"{sum(p['kind'] == k for p in model.passes_)} {k} "
        f"({sum(p['seconds'] for p in model.passes_ if p['kind'] == k):.2f} s)" for k in kinds))


def cmd_fit_boosted(args):
    from nbparallel.models.boosting import BoostedNaiveBayes

    model = BoostedNaiveBayes(
        n_rounds=args.boost, alpha=args.alpha, class_alpha=args.class_alpha, n_bins=args.bins,
        categorical_features=args.categorical or "auto", numeric_features=args.numeric,
        n_partitions=args.partitions,
        split_every=args.split_every, checkpoint=args.checkpoint, verbose=0 if args.quiet else 1,
    )
    start = time.perf_counter()
    with _execution(args):
        model.fit(_training_data(args), args.target, sample_weight=args.weight)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    print(f"boosted {len(model.estimators_)} naive Bayes rounds over {len(model.classes_)} classes "
          f"in {elapsed:.2f} s; weighted errors " + ", ".join(f"{e:.4f}" for e in model.estimator_errors_))
    _print_passes(model)
    print(f"model written to {args.output}")


def cmd_cluster_fit(args):
    from nbparallel.models.autoclass import AutoClass

    model = AutoClass(
        n_clusters=args.clusters, n_restarts=args.restarts, max_iter=args.max_iter, tol=args.tol,
        random_state=args.seed, alpha=args.alpha, n_bins=args.bins,
        categorical_features=args.categorical or "auto", numeric_features=args.numeric,
        n_partitions=args.partitions,
        split_every=args.split_every, checkpoint=args.checkpoint, verbose=0 if args.quiet else 1,
    )
    _check_output(args.output)
    start = time.perf_counter()
    with _execution(args):
        model.fit(_training_data(args))
    elapsed = time.perf_counter() - start
    model.save(args.output)
    print(f"{args.clusters} clusters, best of {args.restarts} restarts (restart {model.best_restart_}), "
          f"{model.n_iter_} EM iterations{'' if model.converged_ else ' (not converged)'} in {elapsed:.2f} s")
    print(f"log-posterior {model.history_[-1]:.4f}")
    _print_passes(model)
    print(f"model written to {args.output}")


def cmd_predict(args):

    model = _loaded(args)
    directory = Path(args.output) if _is_directory_output(args.output) else None
    _check_output(args.output.rstrip("/\\") if directory is not None else args.output)
    with _execution(args):
        data = _read_table(_data_path(args))
        keep = args.keep or []
        missing = [c for c in keep if c not in data.columns]
        if missing:
            raise ValueError(f"--keep names columns {missing} that the data does not have")
        features = _feature_columns(model, data, keep)
        if directory is not None:
            directory.mkdir(exist_ok=True)
        from dask import delayed

        tasks = [delayed(_predictions, pure=True)(model, part, features, keep, args.proba, directory, i)
                 for i, part in enumerate(data.to_delayed())]
        parts = execution.compute(tasks, not args.quiet)
    if directory is not None:
        print(f"{sum(parts)} predictions written to {len(parts)} files in {directory}")
        return
    out = pd.concat(parts, ignore_index=True)
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
    from nbparallel.model_selection.selection import SelectedNaiveBayes

    model = SelectedNaiveBayes(
        n_features=args.features, max_features=args.max_features or "auto", must_include=args.must or (),
        b_estimate="exact" if args.exact else "sample", sample_size=args.sample_size, random_state=args.seed,
        n_bins=args.bins, categorical_features=args.categorical or "auto", numeric_features=args.numeric,
        n_partitions=args.partitions,
        split_every=args.split_every, verbose=0 if args.quiet else 1,
    )
    start = time.perf_counter()
    with _execution(args), _warnings_as_messages("select"):
        test = None if args.test is None else _read_table(_data_path(args, args.test))
        model.fit(_training_data(args), args.target, X_test=test, y_test=None if test is None else args.target)
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
    from nbparallel.model_selection.cross_validation import cross_validate
    from nbparallel.models.naive_bayes import NaiveBayes

    estimator = NaiveBayes(alpha=args.alpha, class_alpha=args.class_alpha, n_bins=args.bins,
                           categorical_features=args.categorical or "auto", numeric_features=args.numeric,
                           n_partitions=args.partitions,
                           split_every=args.split_every, verbose=0 if args.quiet else 1)
    start = time.perf_counter()
    with _execution(args):
        result = cross_validate(estimator, _training_data(args), args.target, cv=args.folds)
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
    from nbparallel.loading import load
    from nbparallel.report import write_report

    model = load(args.model)
    if not hasattr(model, "feature_log_prob_"):
        raise TypeError(f"a report needs a NaiveBayes or SelectedNaiveBayes model, got {type(model).__name__}")
    path = write_report(model, args.output, max_attributes=args.top)
    print(f"report written to {path}")


def cmd_evaluate(args):
    model = _loaded(args)
    if not hasattr(model, "evaluate"):
        raise ValueError(f"{args.model} holds a {type(model).__name__} model, which has no classes to evaluate; "
                         f"evaluate needs a NaiveBayes or BoostedNaiveBayes model")
    target = args.target or getattr(model, "target_column_", None)
    if target is None:
        raise ValueError("--target is required: the model does not record its target column")
    with _execution(args):
        data = _read_table(_data_path(args))
        if target not in data.columns:
            raise ValueError(f"target column {target!r} does not exist; columns are {list(data.columns)}")
        columns = _feature_columns(model, data, [target])
        if target in columns:
            raise ValueError(f"target column {target!r} is one of the attributes the model was fitted on")
        result = model.evaluate(data[columns + [target]], target)
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


def _read_documents(path, labels_path, n_features):
    """A count matrix and its labels (None without labels) from documents or a ``.npz`` matrix.

    ``path`` is a text file (one document per line), a directory of class
    directories of text files (labels from the directory names), or a
    ``scipy.sparse.save_npz`` file (rows are documents). Text is hashed by
    ``HashingVectorizer(n_features, alternate_sign=False, norm=None)``.
    """
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import HashingVectorizer

    path = Path(path)
    if not path.exists():
        raise ValueError(f"data path {str(path)!r} does not exist")
    labels = None
    if path.suffix == ".npz":
        X = sp.load_npz(path)
    else:
        if path.is_dir():
            files = sorted(f for f in path.glob("*/*") if f.is_file())
            if not files:
                raise ValueError(f"directory {str(path)!r} holds no CLASS/DOCUMENT files")
            docs = [f.read_text(encoding="utf-8", errors="replace") for f in files]
            labels = np.array([f.parent.name for f in files])
        else:
            docs = path.read_text(encoding="utf-8").splitlines()
        X = HashingVectorizer(n_features=n_features, alternate_sign=False, norm=None).transform(docs)
    if labels_path is not None:
        labels = np.array(Path(labels_path).read_text(encoding="utf-8").splitlines())
        if len(labels) != X.shape[0]:
            raise ValueError(f"--labels has {len(labels)} lines, but {str(path)!r} has {X.shape[0]} documents")
    return X, labels


def cmd_text_fit(args):
    from nbparallel.models.text import BernoulliNaiveBayes, MultinomialNaiveBayes

    X, y = _read_documents(args.data, args.labels, 2**args.hashing_bits)
    if y is None:
        raise ValueError("--labels is required unless DATA is a directory of class directories")
    params = dict(alpha=args.alpha, n_partitions=args.partitions, split_every=args.split_every)
    model = (MultinomialNaiveBayes(**params) if args.model == "multinomial"
             else BernoulliNaiveBayes(binarize=args.binarize, **params))
    start = time.perf_counter()
    with _execution(args):
        model.fit(X, y)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    r = model.reduction_
    print(f"fitted {args.model} naive Bayes: {len(model.classes_)} classes, {X.shape[0]} documents, "
          f"{X.shape[1]} features in {elapsed:.2f} s")
    print(f"partitions {r.n_leaves}, reduction tree height {r.height}, merges {r.n_merges}")
    print(f"model written to {args.output}")


def cmd_text_predict(args):
    from nbparallel.loading import load

    model = load(args.model)
    if not hasattr(model, "feature_count_"):
        raise ValueError(f"{args.model} is not a text model (MultinomialNaiveBayes or BernoulliNaiveBayes)")
    X, _ = _read_documents(args.data, None, model.n_features_in_)
    with _execution(args):
        out = pd.DataFrame({"prediction": model.predict(X)})
        if args.proba:
            proba = model.predict_proba(X)
            for k, c in enumerate(model.classes_):
                out[f"proba_{c}"] = proba[:, k]
    _write_table(out, args.output)
    print(f"{len(out)} predictions written to {args.output}")


def cmd_demo(args):
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split

    from nbparallel.models.naive_bayes import NaiveBayes

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


def cmd_langley(args):
    """Reproduce a figure of Langley and Sage's analysis: theory against experiment."""
    from nbparallel.analysis.figures import main as langley_main

    with _execution(args):
        lines = langley_main(args.figures, args.out, runs=args.runs, seed=args.seed, verbose=not args.quiet)
    print("\n".join(lines))


def build_parser():
    """The argument parser of every subcommand."""
    parser = _Parser(prog="nbparallel", description="Parallel and distributed naive Bayes.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fit", help="train a naive Bayes model and save it as JSON")
    p.add_argument("data", help="CSV or Parquet file or directory")
    p.add_argument("--target", required=True, help="name of the target column")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    p.add_argument("--weight", help="name of a sample-weight column")
    p.add_argument("--alpha", type=_smoothing, default="1/N", help="cell smoothing f (default 1/N; 1 = Laplace)")
    p.add_argument("--class-alpha", type=_smoothing, default="1/N", help="class-prior smoothing lambda (default 1/N)")
    p.add_argument("--boost", type=_positive_int, metavar="T",
                   help="boost T >= 1 naive Bayes rounds (AdaBoost.M1 / SAMME)")
    p.add_argument("--checkpoint", metavar="FILE", help="with --boost: resume from / save state to this JSON file")
    _add_data_options(p)
    _add_cluster_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("cluster-fit", help="cluster rows with AutoClass (naive Bayes EM) and save the model")
    p.add_argument("data", help="CSV or Parquet file or directory")
    p.add_argument("--clusters", type=_positive_int, required=True, help="number of clusters K")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    p.add_argument("--restarts", type=_positive_int, default=5, help="random restarts, run together (default 5)")
    p.add_argument("--max-iter", type=_positive_int, default=100, help="most EM iterations (default 100)")
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
    p.add_argument("-o", "--output", required=True,
                   help="CSV or Parquet file to write, or a directory (ending in '/' or existing) to write one "
                        "file per partition into: CSV when its name ends in .csv, Parquet otherwise")
    p.add_argument("--proba", action="store_true", help="also write class probabilities")
    p.add_argument("--keep", nargs="+", metavar="COLUMN", help="columns to copy into the output (ids)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    _add_na_values(p)
    _add_cluster_options(p)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("evaluate", help="accuracy, confusion matrix and average log-likelihood")
    p.add_argument("model")
    p.add_argument("data", help="CSV or Parquet file or directory")
    p.add_argument("--target", help="target column (default: the one the model was fitted on)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    _add_na_values(p)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    _add_cluster_options(p)
    p.set_defaults(func=cmd_evaluate)

    text_data = ("a text file (one document per line), a directory of CLASS/DOCUMENT text files, "
                 "or a scipy.sparse .npz count matrix (rows are documents)")
    p = sub.add_parser("text-fit", help="train a multinomial or Bernoulli text model and save it as JSON",
                       description="Documents are hashed by HashingVectorizer(n_features=2**BITS, "
                                   "alternate_sign=False, norm=None); text-predict hashes the same way.")
    p.add_argument("data", help=text_data)
    p.add_argument("--labels", help="file of class labels, one line per document (default: directory names)")
    p.add_argument("--model", choices=["multinomial", "bernoulli"], default="multinomial")
    p.add_argument("--hashing-bits", type=int, default=18, help="hash words into 2**BITS features (default 18)")
    p.add_argument("--alpha", type=float, default=1.0, help="additive smoothing (default 1)")
    p.add_argument("--binarize", type=float, default=0.0, help="bernoulli: counts above this are present")
    p.add_argument("--partitions", type=int, help="number of partitions (default: one per worker)")
    p.add_argument("--split-every", type=_split_every, default=2, help="reduction fan-in, or 'flat' (default 2)")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    _add_cluster_options(p)
    p.set_defaults(func=cmd_text_fit)

    p = sub.add_parser("text-predict", help="predict the classes of documents with a saved text model")
    p.add_argument("model")
    p.add_argument("data", help=text_data)
    p.add_argument("-o", "--output", required=True, help="CSV or Parquet file to write")
    p.add_argument("--proba", action="store_true", help="also write class probabilities")
    _add_cluster_options(p)
    p.set_defaults(func=cmd_text_predict)

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
                                   "boosting, inputs) [--quick] [--scheduler ADDRESS | --cluster CONFIG] [--results-dir DIR]")
    p.add_argument("bench_args", nargs=argparse.REMAINDER, metavar="EXPERIMENT [OPTIONS]",
                   help="passed on to benchmarks/run.py")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("langley", help="a figure of the Langley-Sage average-case analysis, theory vs experiment")
    p.add_argument("figures", nargs="+", choices=["1a", "1b", "2a", "2b", "all"], metavar="FIGURE",
                   help="1a, 1b, 2a, 2b or all")
    p.add_argument("--runs", type=int, default=1000, help="training sets per curve (default 1000)")
    p.add_argument("--out", default="benchmarks/results/langley", help="output directory for CSV and PNG")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_cluster_options(p)
    p.set_defaults(func=cmd_langley)
    return parser


def main(argv=None):
    """Entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except KeyboardInterrupt:
        print(f"nbparallel {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, ImportError) as exc:
        _report(args.command, str(exc))
        return 2
    except Exception as exc:  # failures of the cluster: KilledWorker, a timeout, ...
        _report(args.command, f"{type(exc).__name__}: {exc}")
        return 2
    return 0


def _report(command, message):
    """One line on stderr naming the problem."""
    print(f"nbparallel {command}: error: " + " ".join(message.split()), file=sys.stderr)



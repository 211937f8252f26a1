"""One function per ``nbparallel`` verb, each a few lines over public library functions, and :func:`main`.

The parser is :mod:`nbparallel.cli.parser`; data paths become library inputs in
:mod:`nbparallel.cli.options`; predictions are written by the model's
``predict_to``; what is printed is :mod:`nbparallel.cli.output`.
"""

from __future__ import annotations

import gc
import importlib
import inspect
import os
import sys
import threading
import time
from contextlib import contextmanager

from nbparallel.cli import output, parser
from nbparallel.cli.engines import engine_settings
from nbparallel.cli.options import (
    check_output,
    class_priors,
    cluster,
    data_settings,
    document_labels,
    gaussian_setting,
    load_model,
    read_settings,
    training_files,
)
from nbparallel.cli.output import report_error, warnings_as_messages


class LazyModule:
    """A module imported on first attribute access: pandas costs 0.3 s, which ``--help`` need not pay."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)


pd = LazyModule("pandas")


def cmd_fit(args):
    from nbparallel.models.naive_bayes import NaiveBayes

    check_output(args.output)
    if args.model != "naive-bayes":
        model = semi_naive_model(args)
    elif args.boost is not None:
        return cmd_fit_boosted(args)
    else:
        naive_bayes_only(args)
        if args.checkpoint is not None:
            raise ValueError("--checkpoint needs --boost T: only boosting resumes from a checkpoint")
        prior = None if not args.class_prior else dict(args.class_prior)
        if prior is not None and len(prior) != len(args.class_prior):
            raise ValueError("--class-prior gives a class twice")
        model = NaiveBayes(alpha=smoothing_of(args.alpha), class_alpha=args.class_alpha, class_prior=prior,
                           **gaussian_setting(args), **data_settings(args))
    start = time.perf_counter()
    with cluster(args) as engine, warnings_as_messages("fit"):
        model.fit(training_files(args, engine=engine), args.target, sample_weight=args.weight)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    output.print_fit(model, elapsed, weighted=args.weight is not None)
    print(f"model written to {args.output}")


def cmd_fit_boosted(args):
    from nbparallel.models.boosting import BoostedNaiveBayes

    if args.gaussian is not None:
        raise ValueError("--gaussian is not taken with --boost: boosted learners count binned numeric columns")
    if args.class_prior:
        raise ValueError("--class-prior is not taken with --boost: boosting reweights the rows every round")
    naive_bayes_only(args)
    model = BoostedNaiveBayes(n_rounds=args.boost, alpha=smoothing_of(args.alpha), class_alpha=args.class_alpha,
                              checkpoint=args.checkpoint, **data_settings(args))
    start = time.perf_counter()
    with cluster(args) as engine:
        model.fit(training_files(args, engine=engine), args.target, sample_weight=args.weight)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    output.print_boosted(model, elapsed)
    print(f"model written to {args.output}")


def smoothing_of(alpha):
    """Naive Bayes's ``alpha`` from ``--alpha``: its default "1/N" when the option is not given."""
    return "1/N" if alpha is None else alpha


def naive_bayes_only(args):
    """ValueError naming an option of AODE or TAN given to a naive Bayes verb."""
    given = [flag for flag, value in (("--frequency-limit", args.frequency_limit), ("--m-estimate", args.m_estimate),
                                      ("--link-score", args.link_score)) if value is not None]
    if given:
        raise ValueError(f"{given[0]} is an option of --model aode or tan, not of naive Bayes")


def semi_naive_model(args):
    """The AODE or TAN that ``--model`` names, with the command's settings; ValueError for an option it does not
    take (naive Bayes's, or the other model's)."""
    from nbparallel.models.seminaive_models import AODE, TAN

    own = {"aode": ("--frequency-limit", "--m-estimate"), "tan": ("--alpha", "--link-score")}[args.model]
    options = {"--gaussian": args.gaussian, "--class-prior": getattr(args, "class_prior", None) or None,
               "--boost": getattr(args, "boost", None), "--checkpoint": getattr(args, "checkpoint", None),
               "--class-alpha": None if args.class_alpha == "1/N" else args.class_alpha, "--alpha": args.alpha,
               "--frequency-limit": args.frequency_limit, "--m-estimate": args.m_estimate,
               "--link-score": args.link_score}
    other = [flag for flag, value in options.items() if value is not None and flag not in own]
    if other:
        raise ValueError(f"{other[0]} is not an option of --model {args.model}")
    if args.model == "aode":
        given = {"frequency_limit": args.frequency_limit, "m_estimate": args.m_estimate}
        return AODE(**{name: value for name, value in given.items() if value is not None}, **data_settings(args))
    given = {"alpha": args.alpha, "link_score": args.link_score}
    return TAN(**{name: value for name, value in given.items() if value is not None}, **data_settings(args))


def cmd_cluster_fit(args):
    from nbparallel.models.autoclass import AutoClass

    model = AutoClass(n_clusters=args.clusters, n_restarts=args.restarts, max_iter=args.max_iter, tol=args.tol,
                      random_state=args.seed, alpha=args.alpha, checkpoint=args.checkpoint, **data_settings(args))
    check_output(args.output)
    start = time.perf_counter()
    with cluster(args) as engine:
        model.fit(training_files(args, engine=engine))
    elapsed = time.perf_counter() - start
    model.save(args.output)
    output.print_clusters(model, elapsed)
    print(f"model written to {args.output}")


def cmd_select(args):
    from nbparallel.model_selection.selection import SelectedNaiveBayes

    b_estimate = "exact" if args.exact else "sample" if args.sampled else "auto"
    model = SelectedNaiveBayes(
        n_features=args.features, max_features=args.max_features or "auto", must_include=args.must or (),
        b_estimate=b_estimate, sample_size=args.sample_size, random_state=args.seed, **data_settings(args))
    start = time.perf_counter()
    with cluster(args) as engine, warnings_as_messages("select"):
        test = None if args.test is None else training_files(args, args.test, engine)
        model.fit(training_files(args, engine=engine), args.target, X_test=test,
                  y_test=None if test is None else args.target)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    output.print_selection(model, elapsed, args.output)


def cmd_cv(args):
    from nbparallel.model_selection.cross_validation import cross_validate
    from nbparallel.models.naive_bayes import NaiveBayes

    if args.model != "naive-bayes":
        estimator = semi_naive_model(args)
    else:
        naive_bayes_only(args)
        estimator = NaiveBayes(alpha=smoothing_of(args.alpha), class_alpha=args.class_alpha,
                               **gaussian_setting(args), **data_settings(args))
    if args.repeats > 1 and not args.shuffle:
        raise ValueError(f"--repeats {args.repeats} needs --shuffle: unshuffled repeats are the same folds")
    if args.seed is not None and not args.shuffle:
        raise ValueError("--seed seeds shuffled folds: give --shuffle too")
    start = time.perf_counter()
    with cluster(args) as engine, warnings_as_messages("cv"):
        result = cross_validate(estimator, training_files(args, engine=engine), args.target, cv=args.folds,
                                scoring=args.scoring, shuffle=args.shuffle, stratify=args.stratify,
                                n_repeats=args.repeats, random_state=args.seed)
    output.print_cross_validation(result, time.perf_counter() - start, as_json=args.json)


def cmd_predict(args):
    from nbparallel.models.prediction_files import output_directory

    model = load_model(args)
    directory = output_directory(args.output)
    check_output(args.output.rstrip("/\\") if directory is not None else args.output)
    if directory is not None and engine_settings(args) is not None:
        raise ValueError("with --spark, --ray or an engine's --cluster config, -o names one CSV or Parquet file, "
                         "not a directory")
    with cluster(args) as engine:
        if engine is not None:
            written = predict_with_engine(model, args, engine)
        else:
            written = model.predict_to(args.output, args.data, proba=args.proba, keep=args.keep or (),
                                       verbose=not args.quiet, **read_settings(args))
    if directory is not None:
        print(f"{written.n_rows} predictions written to {written.n_files} files in {directory}")
        return
    print(f"{written.n_rows} predictions written to {args.output}")


def predict_with_engine(model, args, engine):
    """``predict`` of files read by a started engine: the lazy predictions collected here, in the files' row
    order, and written as the local route writes them (``--keep`` columns, ``prediction``, ``proba_<class>``)."""
    from nbparallel.models.prediction_files import Written, check_columns, write_table

    data = engine.files(args.data, read_settings(args))
    predictions = model.predict_proba(data) if args.proba else model.predict(data)
    keep = list(args.keep or ())
    columns = data.columns
    check_columns(keep, list(columns() if callable(columns) else columns), "--keep")  # a Ray Dataset's is a method
    classes = getattr(model, "classes_", None)
    labels = range(model.n_clusters) if classes is None else classes
    names = ["prediction", *(f"proba_{c}" for c in labels if args.proba)]
    frame = engine.collect(predictions, keep + names).to_pandas()
    write_table(frame, args.output)
    return Written(len(frame), 1)


def cmd_explain(args):
    from nbparallel.models.prediction_files import scoring_files

    model = load_model(args)
    if not hasattr(model, "explain"):
        raise ValueError(f"{args.model} holds a {type(model).__name__} model, which has no predictions to explain")
    terms = "top" in inspect.signature(model.explain).parameters
    if args.top is not None and not terms:
        raise ValueError(f"--top lists a text model's terms; {args.model} holds a {type(model).__name__}, whose "
                         "evidence has one column per attribute")
    check_output(args.output)
    classes = {"for_class": class_label(model, args.for_class), "against": class_label(model, args.against)}
    if terms and engine_settings(args) is not None:
        raise ValueError("a text model's documents are read here: --spark, --ray and engine configs read tables")
    with cluster(args) as engine:
        if terms:
            evidence = explain_documents(model, args.data, 10 if args.top is None else args.top, classes)
        else:
            files = engine.files(args.data, read_settings(args)) if engine is not None else scoring_files(
                model, args.data, read_settings(args))[0]
            evidence = model.explain(files, **classes)
    evidence.to_csv(args.output, index=False)
    print(f"evidence of {evidence['row'].nunique() if terms else len(evidence)} rows written to {args.output}")


def explain_documents(model, path, top, classes):
    """A text model's top terms of each document of ``path`` (text, class directories or ``.npz``), each
    hashed column named by the corpus' words that land in it (``|``-joined, most frequent first)."""
    from nbparallel.data.documents import hashed_words, read_documents

    X, _ = read_documents(path, n_features=model.n_features_in_)
    evidence = model.explain(X, top=top, **classes)
    if not str(path).endswith(".npz"):
        words = hashed_words(path, model.n_features_in_)
        evidence["term"] = [t if isinstance(t, str) else "|".join(words.get(t, [str(t)])) for t in evidence["term"]]
    return evidence


def cmd_export(args):
    from nbparallel.exporters import export

    export(load_model(args), args.output)
    print(f"{args.model} exported to {args.output}")


def class_label(model, text):
    """The class of ``model`` whose printed form is ``text`` (None stays None)."""
    if text is None:
        return None
    for label in model.classes_:
        if str(label) == text:
            return label
    raise ValueError(f"no class {text!r}; classes are {[str(c) for c in model.classes_]}")


def cmd_evaluate(args):
    from nbparallel.models.prediction_files import scoring_files

    model = load_model(args)
    if hasattr(model, "feature_count_"):
        return evaluate_text(model, args)
    if args.labels is not None:
        raise ValueError("--labels is for text models' documents; with tables, --target names the class column")
    if not hasattr(model, "evaluate"):
        raise ValueError(f"{args.model} holds a {type(model).__name__} model, which has no classes to evaluate; "
                         f"evaluate needs a NaiveBayes or BoostedNaiveBayes model")
    target = args.target or getattr(model, "target_column_", None)
    if target is None:
        raise ValueError("--target is required: the model does not record its target column")
    with cluster(args) as engine:
        files = engine.files(args.data, read_settings(args)) if engine is not None else scoring_files(
            model, args.data, read_settings(args), target=target)[0]
        result = model.evaluate(files, target)
    output.print_evaluation(model.classes_, result, as_json=args.json)


def evaluate_text(model, args):
    """``evaluate`` of a text model: documents hashed as text-fit hashed them, labels from --labels or the
    class directories."""
    from nbparallel.data.documents import read_documents

    if args.target is not None:
        raise ValueError("--target names a table's class column; a text model's documents take --labels "
                         "(or a directory of class directories)")
    if engine_settings(args) is not None:
        raise ValueError("a text model's documents are read here: --spark, --ray and engine configs read tables")
    X, y = read_documents(args.data, n_features=model.n_features_in_)
    if args.labels is not None:
        y = document_labels(args, X.shape[0])
    if y is None:
        raise ValueError("--labels is required unless DATA is a directory of class directories")
    with cluster(args):
        result = model.evaluate(X, y)
    output.print_evaluation(model.classes_, result, as_json=args.json)


def text_model(args, classes=None):
    """The text model ``--model`` names, with the command's settings."""
    import numpy as np

    from nbparallel.models.complement import ComplementNaiveBayes
    from nbparallel.models.text import BernoulliNaiveBayes, MultinomialNaiveBayes

    params = {"alpha": args.alpha, "n_partitions": args.partitions, "split_every": args.split_every}
    if args.model == "complement":
        if args.class_prior:
            raise ValueError("--class-prior is not taken by the complement model, which (as scikit-learn's "
                             "ComplementNB) predicts from the complement counts alone")
        return ComplementNaiveBayes(**params)
    prior = class_priors(args, np.unique(classes)) if classes is not None else None
    if args.model == "multinomial":
        return MultinomialNaiveBayes(class_prior=prior, **params)
    return BernoulliNaiveBayes(binarize=args.binarize, class_prior=prior, **params)


def cmd_text_fit(args):
    from nbparallel.data.documents import read_documents

    X, y = read_documents(args.data, n_features=2**args.hashing_bits)
    if args.labels is not None:
        y = document_labels(args, X.shape[0])
    if y is None:
        raise ValueError("--labels is required unless DATA is a directory of class directories")
    model = text_model(args, y)
    start = time.perf_counter()
    with cluster(args):
        model.fit(X, y)
    elapsed = time.perf_counter() - start
    model.save(args.output)
    output.print_text_fit(model, args.model, X.shape, elapsed)
    print(f"model written to {args.output}")


def cmd_text_predict(args):
    from nbparallel.data.documents import read_documents
    from nbparallel.loading import load

    model = load(args.model)
    if not hasattr(model, "feature_count_"):
        raise ValueError(f"{args.model} is not a text model (MultinomialNaiveBayes or BernoulliNaiveBayes)")
    X, _ = read_documents(args.data, n_features=model.n_features_in_)
    with cluster(args):
        out = pd.DataFrame({"prediction": model.predict(X)})
        if args.proba:
            proba = model.predict_proba(X)
            for k, c in enumerate(model.classes_):
                out[f"proba_{c}"] = proba[:, k]
    from nbparallel.models.prediction_files import write_table

    write_table(out, args.output)
    print(f"{len(out)} predictions written to {args.output}")


def report_feature_names(model, args):
    """The words of a text model's hashed features, read from ``--documents`` (None without it)."""
    if args.documents is None:
        return None
    from nbparallel.data.documents import hashed_words

    if not hasattr(model, "feature_count_"):
        raise ValueError("--documents names the hashed features of text models; "
                         f"{args.model} holds a {type(model).__name__} model")
    return hashed_words(args.documents, model.n_features_in_)


def explained_prediction(model, args):
    """The evidence of row ``--row`` of ``--explain DATA`` for the report (None without ``--explain``)."""
    if args.explain is None:
        return None
    from nbparallel.models.prediction_files import scoring_files
    from nbparallel.report import explained_row

    files, _, _ = scoring_files(model, args.explain, read_settings(args))
    return explained_row(model, files, args.row, for_class=class_label(model, args.for_class))


def cmd_report(args):
    from nbparallel.loading import load
    from nbparallel.report import write_nomogram, write_report

    model = load(args.model)
    if args.nomogram:
        path = write_nomogram(model, args.output, for_class=class_label(model, args.for_class))
        print(f"nomogram written to {path}")
        return
    path = write_report(model, args.output, max_attributes=args.top, feature_names=report_feature_names(model, args),
                        explained=explained_prediction(model, args))
    print(f"report written to {path}")


def cmd_demo(args):
    from nbparallel.cli.demo import run_demo

    run_demo(args.partitions, args.split_every)


def cmd_bench(args):
    from nbparallel.cli.bench import run_benchmarks

    run_benchmarks(args.bench_args)


def cmd_langley(args):
    """Reproduce a figure of Langley and Sage's analysis: theory against experiment."""
    from nbparallel.analysis.figures import main as langley_main

    with cluster(args):
        lines = langley_main(args.figures, args.out, runs=args.runs, seed=args.seed, verbose=not args.quiet)
    print("\n".join(lines))


#: verb -> its function
COMMANDS = {
    "fit": cmd_fit, "cluster-fit": cmd_cluster_fit, "predict": cmd_predict, "evaluate": cmd_evaluate,
    "text-fit": cmd_text_fit, "text-predict": cmd_text_predict, "select": cmd_select, "cv": cmd_cv,
    "report": cmd_report, "explain": cmd_explain, "export": cmd_export, "demo": cmd_demo, "bench": cmd_bench, "langley": cmd_langley,
}


def build_parser():
    """The argument parser, each verb's arguments carrying its function as ``func``."""
    return parser.build_parser(COMMANDS)


def quiet_closed_pipe():
    """After stdout's reader went away (``| head -1``): point stdout at /dev/null, so that Python's
    flush at exit cannot fail again, as coreutils end quietly with status 0."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


START_UP_S = 2.0
"""Seconds of a command's process run with Python's cyclic garbage collector paused (:func:`run`)."""


def _collect_again():
    """The collector back on, with every object made so far frozen (never looked at by a collection again)."""
    gc.freeze()
    gc.enable()


@contextmanager
def start_up_uncollected(seconds=START_UP_S):
    """Python's cyclic garbage collector paused for the first ``seconds``, then frozen and on again.

    Start-up (importing pandas, dask and numba; numba setting up its compiler on the first kernel call)
    makes hundreds of thousands of objects that live as long as the process and little cyclic garbage; the
    collections over them during start-up, and the one at exit, were much of a small command's time.
    Garbage left in a cycle meanwhile is never collected: for a process of its own only.
    """
    gc.disable()
    timer = threading.Timer(seconds, _collect_again)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        _collect_again()


def run():
    """The ``nbparallel`` command (its console script, ``python -m nbparallel.cli``): :func:`main` in a
    process of its own, with its start-up uncollected (:func:`start_up_uncollected`)."""
    with start_up_uncollected():
        status = main()
    sys.exit(status)


def main(argv=None):
    """Run the command ``argv`` (``sys.argv[1:]`` when None) in this process; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        from nbparallel.cli.progress import command_display

        with command_display(args):
            args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_closed_pipe()
        return 0
    except KeyboardInterrupt:
        print(f"nbparallel {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, ImportError) as exc:
        report_error(args.command, str(exc))
        return 2
    except Exception as exc:  # failures of the cluster: KilledWorker, a timeout, ...
        report_error(args.command, f"{type(exc).__name__}: {exc}")
        return 2
    return 0

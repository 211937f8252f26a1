"""The argument parser of every ``nbparallel`` verb, and the checks of option values.

:func:`build_parser` knows the verbs and their options, not what they do: the
caller passes each verb's function (see :mod:`nbparallel.cli.commands`), which
the parsed arguments carry as ``func``.
"""

from __future__ import annotations

import argparse


class UsageParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def split_every(text):
    """``--split-every``: an int >= 2, or ``flat`` (False: one merge of every partition).

    >>> split_every("4"), split_every("flat")
    (4, False)
    """
    if text == "flat":
        return False
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--split-every must be an int >= 2 or 'flat', got {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"--split-every must be an int >= 2 or 'flat', got {value}")
    return value


def bins(text):
    """``--bins``: an int >= 2, or ``mdl`` (Fayyad and Irani's supervised discretisation).

    >>> bins("8"), bins("mdl")
    (8, 'mdl')
    """
    if text == "mdl":
        return text
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be an int >= 2 or 'mdl', got {text!r}")
    return value


def smoothing(text):
    """``--alpha``, ``--class-alpha``: a positive finite number, or ``1/N``.

    >>> smoothing("1/N"), smoothing("0.5")
    ('1/N', 0.5)
    """
    if text == "1/N":
        return text
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive finite number or '1/N', got {text!r}")
    return value


SCORINGS = ("accuracy", "log_likelihood", "log_loss", "roc_auc")  # cross_validate's, without importing it


def scorings(text):
    """Comma-separated names of cross-validation scores."""
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in SCORINGS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"must name some of {', '.join(SCORINGS)}, got {text!r}")
    return names


def positive_int(text):
    """An int >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an int >= 1, got {text!r}")
    return value


def key_value(text):
    """``--storage-option KEY=VALUE``: a pair, the value read as JSON when it parses (numbers, true/false).

    >>> key_value("anon=true"), key_value("region=eu-west-1")
    (('anon', True), ('region', 'eu-west-1'))
    """
    import json

    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"must be KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def class_prior(text):
    """``--class-prior``: ``CLASS=P`` with P a probability in (0, 1].

    >>> class_prior("spam=0.2")
    ('spam', 0.2)
    """
    key, sep, value = text.rpartition("=")
    try:
        p = float(value)
    except ValueError:
        p = float("nan")
    if not sep or not key or not 0 < p <= 1:
        raise argparse.ArgumentTypeError(f"must be CLASS=P with 0 < P <= 1, got {text!r}")
    return key, p


def add_read_options(p):
    """How files are read: the CSV delimiter, the text encoding, the filesystem's options."""
    p.add_argument("--delimiter", metavar="CHAR", help="CSV field delimiter (default ',', a tab for .tsv files)")
    p.add_argument("--encoding", metavar="NAME",
                   help="text encoding of CSV and ARFF files, e.g. latin-1 (default utf-8)")
    p.add_argument("--storage-option", dest="storage_options", action="append", type=key_value,
                   metavar="KEY=VALUE", help="an option of the files' filesystem (fsspec), repeatable")


def add_data_options(p):
    """How to partition, bin and read the columns of training data."""
    p.add_argument("--partitions", type=int, help="number of partitions (default: the files' own)")
    p.add_argument("--bins", type=bins, default=10,
                   help="equal-width bins per numeric column (default 10), or 'mdl': supervised MDL "
                        "discretisation (Fayyad-Irani, as Weka's NaiveBayes -D)")
    p.add_argument("--split-every", type=split_every, default=2, help="reduction fan-in, or 'flat' (default 2)")
    p.add_argument("--categorical", nargs="+", metavar="COLUMN", help="numeric columns to treat as categorical")
    p.add_argument("--numeric", nargs="+", metavar="COLUMN",
                   help="columns to treat as numeric (binned) whatever their values look like; text in them is "
                        "read as numbers, --na-values as missing, anything else is an error")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--drop", nargs="+", metavar="COLUMN",
                   help="columns to leave out (ids, leaks); never read, in the test data too")
    add_na_values(p)
    add_read_options(p)


def add_na_values(p):
    p.add_argument("--na-values", nargs="+", metavar="TEXT",
                   help="strings that mean a missing value besides the usual ones (e.g. '?' in Weka files)")


def spark_master(text):
    """``--spark``: a Spark master URL (``local[2]``, ``spark://HOST:7077``, ``sc://HOST:15002``, ...)."""
    from nbparallel.engine.backends.spark import check_master

    try:
        return check_master(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def ray_address(text):
    """``--ray``: ``local``, ``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``."""
    from nbparallel.engine.backends.ray import check_address

    try:
        return check_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_cluster_options(p, engines=False):
    """Where the passes run: a Dask scheduler or cluster config, this machine's threads, and with ``engines``
    (the verbs that read tables) Spark or Ray, which then read the data files too."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at this address")
    group.add_argument("--cluster", metavar="CONFIG", help="run on the cluster a cluster_configs/*.yaml file describes"
                       + (" (Dask, Spark or Ray)" if engines else ""))
    group.add_argument("--threads", type=positive_int, metavar="N",
                       help="run on N threads of this machine (default: one per core)")
    if engines:
        group.add_argument("--spark", type=spark_master, metavar="MASTER",
                           help="read the data with Spark and run on it: local[N], spark://HOST:7077, or "
                                "sc://HOST:15002 for Spark Connect (needs nbparallel[spark])")
        group.add_argument("--ray", type=ray_address, metavar="ADDRESS",
                           help="read the data with Ray and run on it: 'local' starts a Ray of this machine's "
                                "cores; auto, HOST:PORT or ray://HOST:PORT join a cluster (needs nbparallel[ray])")


def add_scoring_run_options(p):
    """The options of a verb that reads data to score with a saved model: quiet, missing-value strings,
    the files' read options and where it runs."""
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_na_values(p)
    add_read_options(p)
    add_cluster_options(p, engines=True)


def _add_smoothing(p):
    p.add_argument("--alpha", type=smoothing,
                   help="cell smoothing f (default 1/N; 1 = Laplace); with --model tan, its estimator's prior "
                        "count per value (default 0.5, Weka's SimpleEstimator -A)")
    p.add_argument("--class-alpha", type=smoothing, default="1/N", help="class-prior smoothing lambda (default 1/N)")
    p.add_argument("--gaussian", nargs="*", metavar="COLUMN",
                   help="numeric columns modelled by per-class Gaussians instead of bins; with no COLUMN, "
                        "every numeric column")


def _add_model_choice(p):
    """``--model``: naive Bayes, AODE or TAN, and the options of AODE and TAN."""
    p.add_argument("--model", choices=MODELS, default=MODELS[0],
                   help="naive Bayes (default), AODE (averaged one-dependence estimators) or TAN (tree-augmented "
                        "naive Bayes), the last two counted from per-class pair tables")
    p.add_argument("--frequency-limit", type=float, metavar="F",
                   help="aode: a value seen fewer than F times is no super-parent (default 1, Weka's -F)")
    p.add_argument("--m-estimate", type=float, metavar="W",
                   help="aode: m-estimates of weight W instead of Laplace's estimates (Weka's -M -W)")
    p.add_argument("--link-score", choices=["entropy", "bayes"],
                   help="tan: the score of the tree's links, conditional mutual information (default) or Weka's "
                        "Bayesian score")


def _add_class_prior(p):
    p.add_argument("--class-prior", nargs="+", type=class_prior, metavar="CLASS=P",
                   help="fixed class priors instead of the training frequencies, one CLASS=P per class "
                        "(they must sum to 1)")


#: the models of ``fit --model`` and ``cv --model``
MODELS = ("naive-bayes", "aode", "tan")

TEXT_DATA = ("a text file (one document per line), a directory of CLASS/DOCUMENT text files, "
             "or a scipy.sparse .npz count matrix (rows are documents)")


def build_parser(commands=None):
    """The argument parser of every verb.

    Parameters
    ----------
    commands : dict, optional
        ``{verb: function of the parsed arguments}``; a verb's function is
        set as its arguments' ``func``.
    """
    commands = commands or {}
    parser = UsageParser(prog="nbparallel", description="Parallel and distributed naive Bayes.")
    sub = parser.add_subparsers(dest="command", required=True)

    def verb(name, **kwargs):
        p = sub.add_parser(name, **kwargs)
        if name in commands:
            p.set_defaults(func=commands[name])
        return p

    p = verb("fit", help="train a naive Bayes, AODE or TAN model and save it as JSON")
    p.add_argument("data", help="CSV, Parquet or ARFF file or directory")
    p.add_argument("--target", required=True, help="name of the target column")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    p.add_argument("--weight", help="name of a sample-weight column")
    _add_model_choice(p)
    _add_smoothing(p)
    _add_class_prior(p)
    p.add_argument("--boost", type=positive_int, metavar="T",
                   help="boost T >= 1 naive Bayes rounds (AdaBoost.M1 / SAMME)")
    p.add_argument("--checkpoint", metavar="FILE", help="with --boost: resume from / save state to this JSON file")
    add_data_options(p)
    add_cluster_options(p, engines=True)

    p = verb("cluster-fit", help="cluster rows with AutoClass (naive Bayes EM) and save the model")
    p.add_argument("data", help="CSV, Parquet or ARFF file or directory")
    p.add_argument("--clusters", type=positive_int, required=True, help="number of clusters K")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    p.add_argument("--restarts", type=positive_int, default=5, help="random restarts, run together (default 5)")
    p.add_argument("--max-iter", type=positive_int, default=100, help="most EM iterations (default 100)")
    p.add_argument("--tol", type=float, default=1e-6, help="stop when the log-posterior gains <= tol per row")
    p.add_argument("--seed", type=int, help="random seed of the starting parameters")
    p.add_argument("--alpha", type=float, default=1.0, help="Dirichlet smoothing (default 1)")
    p.add_argument("--checkpoint", metavar="FILE", help="resume from / save state to this JSON file")
    add_data_options(p)
    add_cluster_options(p, engines=True)

    p = verb("predict", help="predict with a saved model")
    p.add_argument("model")
    p.add_argument("data", help="CSV, Parquet or ARFF file or directory")
    p.add_argument("-o", "--output", required=True,
                   help="CSV or Parquet file to write, or a directory (ending in '/' or existing) to write one "
                        "file per partition into: CSV when its name ends in .csv, Parquet otherwise")
    p.add_argument("--proba", action="store_true", help="also write class probabilities")
    p.add_argument("--keep", nargs="+", metavar="COLUMN", help="columns to copy into the output (ids)")
    add_scoring_run_options(p)

    p = verb("explain", help="per-row evidence of each attribute for a saved model's predictions (CSV)")
    p.add_argument("model")
    p.add_argument("data", help="CSV, Parquet or ARFF file or directory; for a text model, documents as text-predict "
                   "reads them")
    p.add_argument("-o", "--output", required=True, help="CSV file to write: one row per data row, a column "
                   "per attribute and (prior), each row summing to the log-odds")
    p.add_argument("--for-class", metavar="CLASS", help="the class explained (default: each row's prediction, or "
                   "the best other one when that is --against)")
    p.add_argument("--against", metavar="CLASS", help="the class it is weighed against (default: the best other)")
    p.add_argument("--top", type=int, metavar="N", help="text models: the N terms of each row with the largest "
                   "evidence (default 10), then (other terms) and (prior), one CSV row each")
    add_scoring_run_options(p)

    p = verb("export", help="write a saved model as PMML (.pmml) or ONNX (.onnx) for other tools to score")
    p.add_argument("model")
    p.add_argument("-o", "--output", required=True, help="file to write; its suffix names the format (.pmml or .onnx)")

    p = verb("evaluate", help="accuracy, confusion matrix and average log-likelihood")
    p.add_argument("model")
    p.add_argument("data", help="CSV, Parquet or ARFF file or directory; for a text model, " + TEXT_DATA)
    p.add_argument("--target", help="target column (default: the one the model was fitted on)")
    p.add_argument("--labels", help="text models: file of class labels, one line per document "
                                    "(default: the directory names of DATA)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_na_values(p)
    add_read_options(p)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    add_cluster_options(p, engines=True)

    p = verb("text-fit", help="train a multinomial or Bernoulli text model and save it as JSON",
             description="Documents are hashed by HashingVectorizer(n_features=2**BITS, "
                         "alternate_sign=False, norm=None); text-predict hashes the same way.")
    p.add_argument("data", help=TEXT_DATA)
    p.add_argument("--labels", help="file of class labels, one line per document (default: directory names)")
    p.add_argument("--hashing-bits", type=int, default=18, help="hash words into 2**BITS features (default 18)")
    p.add_argument("--alpha", type=float, default=1.0, help="additive smoothing (default 1)")
    p.add_argument("--model", choices=["multinomial", "bernoulli", "complement"], default="multinomial",
                   help="multinomial (default), bernoulli (word presence) or complement (ComplementNB, for "
                        "unbalanced classes)")
    p.add_argument("--binarize", type=float, default=0.0, help="bernoulli: counts above this are present")
    _add_class_prior(p)
    p.add_argument("--partitions", type=int, help="number of partitions (default: one per worker)")
    p.add_argument("--split-every", type=split_every, default=2, help="reduction fan-in, or 'flat' (default 2)")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    add_cluster_options(p)

    p = verb("text-predict", help="predict the classes of documents with a saved text model")
    p.add_argument("model")
    p.add_argument("data", help=TEXT_DATA)
    p.add_argument("-o", "--output", required=True, help="CSV or Parquet file to write")
    p.add_argument("--proba", action="store_true", help="also write class probabilities")
    add_cluster_options(p)

    p = verb("select", help="SPSS forward feature selection; save the selected naive Bayes model")
    p.add_argument("data", help="CSV, Parquet or ARFF file or directory")
    p.add_argument("--target", required=True, help="name of the target column")
    p.add_argument("-o", "--output", required=True, help="model file to write (JSON)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--max-features", type=int, metavar="K", help="grow to at most K predictors (default: J_Max)")
    size.add_argument("--features", type=int, metavar="K", help="select exactly K predictors")
    p.add_argument("--must", nargs="+", metavar="COL", help="predictors always included")
    p.add_argument("--test", metavar="DATA", help="test data, read with the same --drop, --numeric and "
                                                  "--na-values: the best subset maximises its log-likelihood")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--exact", action="store_true",
                     help="exact B(J): one data pass per step (default: exact when rows x steps is at most "
                          "5 million, else sampled)")
    how.add_argument("--sampled", action="store_true", help="sampled B(J) whatever the data's size")
    p.add_argument("--sample-size", type=positive_int, default=20000,
                   help="simulated cases for sampled B(J) (default 20000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulated cases (default 0)")
    add_data_options(p)
    add_cluster_options(p, engines=True)

    p = verb("cv", help="exact k-fold cross-validation in one counting pass")
    p.add_argument("data", help="CSV, Parquet or ARFF file or directory")
    p.add_argument("--target", required=True, help="name of the target column")
    p.add_argument("--folds", type=int, default=10,
                   help="number of folds (default 10): contiguous blocks of the row order unless --shuffle "
                        "or --stratify")
    p.add_argument("--shuffle", action="store_true", help="folds over a seeded random permutation of the rows")
    p.add_argument("--stratify", action="store_true",
                   help="stratified folds: every class spread evenly over the folds (scikit-learn's "
                        "StratifiedKFold)")
    p.add_argument("--repeats", type=positive_int, default=1, metavar="R",
                   help="repeat the cross-validation R times with differently shuffled folds (needs --shuffle)")
    p.add_argument("--seed", type=int, help="seed of the shuffled folds (default: drawn, and printed)")
    p.add_argument("--scoring", type=scorings, default=SCORINGS, metavar="S[,S...]",
                   help=f"scores per fold, some of {', '.join(SCORINGS)} (default all); accuracy alone is "
                        "scored by the predict kernel, without posteriors")
    p.add_argument("--json", action="store_true", help="print what cross_validate returns, as JSON")
    _add_model_choice(p)
    _add_smoothing(p)
    add_data_options(p)
    add_cluster_options(p, engines=True)

    p = verb("report", help="draw a model: the evidence of its values (naive Bayes), its most telling words "
                            "(text models), its clusters' profiles (AutoClass)")
    p.add_argument("model")
    p.add_argument("-o", "--output", default="report.png", help="report.png, .svg, .pdf or .html (default report.png)")
    p.add_argument("--top", type=positive_int,
                   help="naive Bayes: evidence panels for the top N attributes (default 8); text models: the N "
                        "most telling features per class (default 15); AutoClass: value panels for the N "
                        "attributes that tell the clusters apart best (default 8)")
    p.add_argument("--documents", metavar="DOCS",
                   help="text models: documents hashed as text-fit did, whose words name the hashed features")
    p.add_argument("--nomogram", action="store_true",
                   help="naive Bayes: write an interactive nomogram (-o nomogram.html) instead of the report")
    p.add_argument("--for-class", metavar="CLASS", help="with --nomogram: the class against the rest (default: "
                   "the last class); with --explain: the class explained (default: the row's prediction)")
    p.add_argument("--explain", metavar="DATA", help="naive Bayes: CSV or Parquet file or directory whose row --row "
                   "is drawn as a waterfall of its evidence beside the model's panels")
    p.add_argument("--row", type=int, default=0, help="with --explain: the row's position in DATA (default 0)")

    p = verb("demo", help="the main job: fit and score on bundled real datasets, locally")
    p.add_argument("--partitions", type=int, default=8, help="number of partitions (default 8)")
    p.add_argument("--split-every", type=split_every, default=2, help="reduction fan-in, or 'flat'")

    p = verb("bench", help="run a benchmark experiment (source checkout only)",
             description="Run benchmarks/run.py: EXPERIMENT [--quick] [--results-dir DIR] [OPTIONS] "
                         "(`python benchmarks/run.py --help` lists the experiments, "
                         "`nbparallel bench EXPERIMENT --help` their options)")
    p.add_argument("bench_args", nargs=argparse.REMAINDER, metavar="EXPERIMENT [OPTIONS]",
                   help="passed on to benchmarks/run.py")

    p = verb("langley", help="a figure of the Langley-Sage average-case analysis, theory vs experiment")
    p.add_argument("figures", nargs="+", choices=["1a", "1b", "2a", "2b", "all"], metavar="FIGURE",
                   help="1a, 1b, 2a, 2b or all")
    p.add_argument("--runs", type=int, default=1000, help="training sets per curve (default 1000)")
    p.add_argument("--out", default=".", help="output directory for langley_fig*.csv and .png "
                                               "(default: the current directory)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_cluster_options(p)
    return parser

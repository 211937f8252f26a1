"""The cost of ``model.explain`` against ``predict_proba`` on the same input (issue 46: at most 2x).

Run: nbparallel bench explain [--quick]
Writes benchmarks/results/explain.json: best seconds of each, interleaved, and their ratio, for a
mixed categorical/binned model and a Gaussian one, on a DataFrame in memory; and the parts of each on the
whole input in one thread (best of several, interleaved): the rows' scoring inputs (codes, Gaussian
log-likelihoods), predict_proba's scoring kernel, explain's scoring pass that finds each row's best two
classes, the evidence kernel (into a new array, as explain writes), and the DataFrame made of
the evidence array; and the ratio of explain's parts (scoring inputs, classes pass, evidence kernel,
DataFrame) to predict_proba's (scoring inputs, posterior pass).
"""

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from harness import RESULTS
from harness.timing import best_interleaved
from nbparallel import NaiveBayes
from nbparallel.kernels import scoring
from nbparallel.kernels.evidence import evidence_rows
from nbparallel.models.explanation import evidence_columns, evidence_frame


def mixed_frame(n_rows, n_numeric=8, n_categorical=4, seed=0):
    """Rows of three classes: numeric columns shifted by class, categorical columns of 5 values."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    columns = {f"x{j}": rng.normal(y * 0.5, 1.0) for j in range(n_numeric)}
    columns.update({f"c{j}": pd.Categorical(np.array(list("abcde"))[(y + rng.integers(0, 3, n_rows)) % 5])
                    for j in range(n_categorical)})
    return pd.DataFrame(columns), y


def measure(numeric, n_rows, repeat):
    X, y = mixed_frame(n_rows)
    model = NaiveBayes(numeric=numeric).fit(X, y)
    best, _ = best_interleaved({"predict_proba": lambda: model.predict_proba(X),
                                "explain": lambda: model.explain(X)}, repeat)
    part = parts(model, X, repeat)
    explain_parts = part["scoring_inputs"] + part["classes_kernel"] + part["evidence_kernel"] + part["dataframe"]
    return {"rows": n_rows, "predict_proba_s": best["predict_proba"], "explain_s": best["explain"],
            "ratio": best["explain"] / best["predict_proba"], "parts_s": part,
            "parts_ratio": explain_parts / (part["scoring_inputs"] + part["posterior_kernel"])}


def parts(model, X, repeat):
    """Best seconds of each part of explain and predict_proba on the whole of ``X`` in one thread."""
    inputs, gaussian = model.explanation_inputs(X)
    values, value_columns, theta, var = gaussian or (None, None, None, None)
    columns = evidence_columns(model)
    names = {name: j for j, name in enumerate(columns)}
    order = [names[name] for name in (*model.counted_attribute_names(), *model.gaussian_features_)]
    proba = np.empty((len(inputs.first), len(model.classes_)))
    best_two = inputs.two_best()
    evidence = np.empty((len(proba), len(columns)))
    best, _ = best_interleaved({
        "scoring_inputs": lambda: model.explanation_inputs(X),
        "posterior_kernel": lambda: inputs.scores(scoring.POSTERIOR, proba),
        "classes_kernel": lambda: inputs.two_best(),
        "evidence_kernel": lambda: evidence_rows(inputs.first, inputs.second, inputs.table, inputs.offsets,
                                                 inputs.log_prior, *best_two, order,
                                                 np.empty((len(proba), len(columns))),
                                                 values, value_columns, theta, var),
        "dataframe": lambda: evidence_frame(model, evidence, *best_two, X.index)}, repeat)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, written as NAME-quick.*")
    args = parser.parse_args(argv)
    n_rows, repeat = (20_000, 3) if args.quick else (1_000_000, 9)
    results = {numeric: measure(numeric, n_rows, repeat) for numeric in ("binned", "gaussian")}
    for numeric, r in results.items():
        print(f"{numeric:9s} {r['rows']} rows: predict_proba {r['predict_proba_s']:.4f} s, explain "
              f"{r['explain_s']:.4f} s, ratio {r['ratio']:.2f} (target <= 2)")
        print("          parts, whole input in one thread: "
              + ", ".join(f"{name} {seconds:.4f} s" for name, seconds in r["parts_s"].items())
              + f"; explain's parts over predict_proba's {r['parts_ratio']:.2f}")
    out = args.results_dir / f"explain{'-quick' * args.quick}.json"
    out.write_text(json.dumps(results, indent=2))
    print(f"written {out}")

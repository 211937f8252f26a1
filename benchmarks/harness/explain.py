"""The cost of ``model.explain`` against ``predict_proba`` on the same input (issue 46: at most 2x).

Run: nbparallel bench explain [--quick]
Measures the best seconds of each, interleaved, and their ratio, for a
mixed categorical/binned model and a Gaussian one, on a DataFrame in memory; and the parts of each on the
whole input in one thread (best of several, interleaved): the rows' scoring inputs (codes, Gaussian
log-likelihoods), predict_proba's scoring kernel, explain's scoring pass that finds each row's best two
classes, the evidence kernel (into a new array, as explain writes), and the DataFrame made of
the evidence array; and the ratio of explain's parts (scoring inputs, classes pass, evidence kernel,
DataFrame) to predict_proba's (scoring inputs, posterior pass).
"""

import numpy as np
import pandas as pd

from harness.context import Parameter, parameters
from harness.data import class_shifted_frame
from harness.report import Result, Target
from harness.timing import best_interleaved
from nbparallel import NaiveBayes
from nbparallel.kernels import scoring
from nbparallel.kernels.evidence import evidence_rows
from nbparallel.models.explanation import evidence_columns, evidence_frame


def measure(numeric, n_rows, repeat):
    X, y = class_shifted_frame(n_rows)
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


@parameters(rows=Parameter(1_000_000, "rows of the frame", quick=20_000),
            repeat=Parameter(9, "interleaved timed rounds", quick=3))
def run(ctx):
    """Explain against predict_proba for a binned and a Gaussian model."""
    n_rows, repeat = ctx.parameters["rows"], ctx.parameters["repeat"]
    results = {numeric: measure(numeric, n_rows, repeat) for numeric in ("binned", "gaussian")}
    for numeric, r in results.items():
        print(f"{numeric:9s} {r['rows']} rows: predict_proba {r['predict_proba_s']:.4f} s, explain "
              f"{r['explain_s']:.4f} s, ratio {r['ratio']:.2f} (target <= 2)")
        print("          parts, whole input in one thread: "
              + ", ".join(f"{name} {seconds:.4f} s" for name, seconds in r["parts_s"].items())
              + f"; explain's parts over predict_proba's {r['parts_ratio']:.2f}")
    frame = pd.DataFrame([{"numeric": numeric, **{k: v for k, v in r.items() if k != "parts_s"},
                           **{f"{part}_s": seconds for part, seconds in r["parts_s"].items()}}
                          for numeric, r in results.items()])
    targets = [Target(f"{numeric}: explain / predict_proba", r["ratio"], 2.0, at_most=True)
               for numeric, r in results.items()]
    return Result("explain", frame, frame[["numeric", "rows", "predict_proba_s", "explain_s", "ratio",
                                           "parts_ratio"]], targets=targets)

"""PMML ``NaiveBayesModel`` of a fitted NaiveBayes (categorical, binned numeric, Gaussian, mixed), and the
``MiningModel`` of a BoostedNaiveBayes (one such model per round).

Smoothing is baked into real-valued PairCounts: for class c with BayesOutput count
n_c = N * pi_c, the pair count of value v is n_c * P(v | c), so the standard's scoring
(count(v, c) / n_c) reproduces the model's conditional probabilities. A binned column goes
through a Discretize derived field with the model's final edges (after empty-bin elimination
and MDL cuts); a Gaussian column through a GaussianDistribution per class with the model's
``theta_`` and ``var_`` (``var_smoothing``'s epsilon included).

A missing value adds nothing, as in the model; an unseen category is declared invalid and
treated as missing (``invalidValueTreatment="asMissing"``), so it adds nothing too. An attribute
the model ignores (no known value, or a Gaussian column with one value only) has no BayesInput.

The model's ``threshold`` is 0: the standard puts the threshold in place of a conditional
probability below it, and 0 changes none. Where the JPMML evaluator differs from ``predict_proba``:
it combines the columns' probabilities in log space, but computes each Gaussian density as a
number first, so a value whose density underflows to 0 for every class (more than about 38
standard deviations from every class's mean, (x - theta)^2 / (2 var) > 745) gives that row no
probabilities (missing), where ``predict_proba`` still ranks the classes by log-likelihood. A
density that underflows for some classes only gives those classes probability 0, as
``predict_proba`` does to within 1e-300.

A Gaussian column that some class never saw (the model adds nothing for that class) cannot be
written: a GaussianDistribution has no constant density of one; such a model is refused.
"""

import xml.etree.ElementTree as ET

import numpy as np

from nbparallel.exporters.pmml_schema import add_mining_schema

TOTAL = 1.0e6


def fields(model):
    """``[(name, values, data type)]`` of the columns ``model`` reads, in input order: a categorical column
    with its categories as PMML writes them (:func:`category_values`), a numeric one (binned or Gaussian)
    with None and "double"."""
    categories = {str(name): fit.categories for name, fit in zip(model.counted_attribute_names(), model.counted_fits_)
                  if fit.edges is None}
    names = [str(c) for c in model.schema_.columns]
    return [(name, *category_values(categories[name])) if name in categories else (name, None, "double")
            for name in names]


def category_values(categories):
    """``(values, data type)``: the categories as PMML strings; a column of booleans (a CSV's TRUE/FALSE
    read as such) is a "boolean" field of values "true" and "false", which the evaluator parses."""
    if len(categories) and all(isinstance(c, (bool, np.bool_)) for c in categories):
        return ["true" if c else "false" for c in categories], "boolean"
    return [str(c) for c in categories], "string"


def add_naive_bayes_model(parent, model, target):
    """Add the NaiveBayesModel of ``model`` under ``parent``; returns it."""
    classes = [str(c) for c in model.classes_]
    class_counts = np.exp(model.class_log_prior_) * TOTAL
    element = ET.SubElement(parent, "NaiveBayesModel", functionName="classification", threshold="0")
    add_mining_schema(element, [name for name, *_ in fields(model)], target)
    inputs = ET.SubElement(element, "BayesInputs")
    for name, fitted in zip(model.counted_attribute_names(), model.counted_fits_):
        if len(fitted.log_prob):
            add_counted_input(inputs, str(name), fitted, classes, class_counts)
    for g, name in enumerate(getattr(model, "gaussian_features_", [])):
        add_gaussian_input(inputs, str(name), model.theta_[:, g], model.var_[:, g], classes)
    output = ET.SubElement(element, "BayesOutput", fieldName=target)
    counts = ET.SubElement(output, "TargetValueCounts")
    for c, n in zip(classes, class_counts):
        ET.SubElement(counts, "TargetValueCount", value=c, count=repr(float(n)))
    return element


def add_counted_input(inputs, name, fitted, classes, class_counts):
    """The BayesInput of a categorical or binned column: real-valued PairCounts n_c * P(v | c)."""
    bayes_input = ET.SubElement(inputs, "BayesInput", fieldName=name)
    if fitted.edges is None:
        values, _ = category_values(fitted.categories)
    else:
        values = [str(b) for b in range(len(fitted.edges) + 1)]
        add_discretize(bayes_input, name, fitted.edges)
    for value, row in zip(values, np.exp(fitted.log_prob)):
        pair = ET.SubElement(bayes_input, "PairCounts", value=str(value))
        counts = ET.SubElement(pair, "TargetValueCounts")
        for c, p, n in zip(classes, row, class_counts):
            ET.SubElement(counts, "TargetValueCount", value=c, count=repr(float(p * n)))


def add_discretize(bayes_input, name, edges):
    """A DerivedField mapping column ``name`` to its bin number: bin b holds edges[b-1] < x <= edges[b]."""
    derived = ET.SubElement(bayes_input, "DerivedField", optype="categorical", dataType="string")
    discretize = ET.SubElement(derived, "Discretize", field=name)
    bounds = [None, *[float(e) for e in edges], None]
    for b in range(len(edges) + 1):
        attributes = {"closure": "openClosed"}
        if bounds[b] is not None:
            attributes["leftMargin"] = repr(bounds[b])
        if bounds[b + 1] is not None:
            attributes["rightMargin"] = repr(bounds[b + 1])
        discretize_bin = ET.SubElement(discretize, "DiscretizeBin", binValue=str(b))
        ET.SubElement(discretize_bin, "Interval", **attributes)


def add_gaussian_input(inputs, name, theta, var, classes):
    """The BayesInput of a Gaussian column: a GaussianDistribution per class; none for an ignored column."""
    unknown = np.isnan(var)
    if unknown.all():
        return
    if unknown.any():
        missing = [c for c, u in zip(classes, unknown) if u]
        raise ValueError(f"PMML cannot express Gaussian column {name!r}: class(es) {missing} have no value of it, "
                         "which the model scores as adding nothing and a GaussianDistribution cannot")
    bayes_input = ET.SubElement(inputs, "BayesInput", fieldName=name)
    stats = ET.SubElement(bayes_input, "TargetValueStats")
    for c, mean, variance in zip(classes, theta, var):
        stat = ET.SubElement(stats, "TargetValueStat", value=c)
        ET.SubElement(stat, "GaussianDistribution", mean=repr(float(mean)), variance=repr(float(variance)))


def add_boosted_model(parent, model, target):
    """Add the MiningModel of a BoostedNaiveBayes under ``parent``: one NaiveBayesModel segment per round,
    combined by weightedMajorityVote with weights ``estimator_weights_``; returns it."""
    element = ET.SubElement(parent, "MiningModel", functionName="classification")
    add_mining_schema(element, [name for name, *_ in fields(model.estimators_[0])], target)
    segmentation = ET.SubElement(element, "Segmentation", multipleModelMethod="weightedMajorityVote")
    for t, (learner, weight) in enumerate(zip(model.estimators_, model.estimator_weights_)):
        segment = ET.SubElement(segmentation, "Segment", id=str(t + 1), weight=repr(float(weight)))
        ET.SubElement(segment, "True")
        add_naive_bayes_model(segment, learner, target)
    return element

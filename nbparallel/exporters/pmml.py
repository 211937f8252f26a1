"""PMML 4.4 NaiveBayesModel of a fitted NaiveBayes of categorical and binned numeric columns.

A binned column goes through a Discretize derived field with the model's edges.

Smoothing is baked into real-valued PairCounts: for class c with BayesOutput count
n_c = N * pi_c, the pair count of value v is n_c * P(v | c), so the standard's scoring
(count(v, c) / n_c) reproduces the model's conditional probabilities exactly.
A missing value adds nothing, as in the model; an unseen category is declared
invalid and treated as missing (invalidValueTreatment="asMissing"), so it adds nothing too.
"""

import os
import pathlib
import tempfile
import xml.etree.ElementTree as ET

import numpy as np

NS = "http://www.dmg.org/PMML-4_4"
TOTAL = 1.0e6


def check_supported(model):
    """Raise ValueError unless ``model`` is a fitted NaiveBayes of categorical columns only."""
    kinds = getattr(model, "feature_kinds_", None)
    if type(model).__name__ not in ("NaiveBayes", "SelectedNaiveBayes") or kinds is None:
        raise ValueError(f"PMML export supports a fitted NaiveBayes; got {type(model).__name__}")
    other = [name for name, fitted in zip(model.feature_names_in_, model.counted_fits_)
             if kinds[name] != "categorical" and fitted.edges is None]
    if other or getattr(model, "gaussian_features_", []):
        raise ValueError(f"PMML export supports categorical and binned numeric columns so far; not {other}")


def pmml_tree(model):
    """The PMML document (an ElementTree) of ``model``."""
    check_supported(model)
    classes = [str(c) for c in model.classes_]
    class_counts = np.exp(model.class_log_prior_) * TOTAL
    root = ET.Element("PMML", xmlns=NS, version="4.4")
    ET.SubElement(root, "Header", description="nbparallel NaiveBayes")
    dictionary = ET.SubElement(root, "DataDictionary")
    names = [str(n) for n in model.feature_names_in_]
    for name, fitted in zip(names, model.counted_fits_):
        if fitted.edges is not None:
            ET.SubElement(dictionary, "DataField", name=name, optype="continuous", dataType="double")
            continue
        field = ET.SubElement(dictionary, "DataField", name=name, optype="categorical", dataType="string")
        for value in fitted.categories:
            ET.SubElement(field, "Value", value=str(value))
    target = ET.SubElement(dictionary, "DataField", name="target", optype="categorical", dataType="string")
    for c in classes:
        ET.SubElement(target, "Value", value=c)
    nb = ET.SubElement(root, "NaiveBayesModel", functionName="classification", threshold="0")
    schema = ET.SubElement(nb, "MiningSchema")
    for name in names:
        ET.SubElement(schema, "MiningField", name=name, invalidValueTreatment="asMissing")
    ET.SubElement(schema, "MiningField", name="target", usageType="target")
    output_fields = ET.SubElement(nb, "Output")
    ET.SubElement(output_fields, "OutputField", name="label", optype="categorical", dataType="string", feature="predictedValue")
    for c in classes:
        ET.SubElement(
            output_fields, "OutputField", name=f"probability({c})", optype="continuous",
            dataType="double", feature="probability", value=c,
        )
    inputs = ET.SubElement(nb, "BayesInputs")
    for name, fitted in zip(names, model.counted_fits_):
        bayes_input = ET.SubElement(inputs, "BayesInput", fieldName=name)
        values = fitted.categories
        if fitted.edges is not None:
            values = [str(b) for b in range(len(fitted.edges) + 1)]
            add_discretize(bayes_input, name, fitted.edges)
        probabilities = np.exp(fitted.log_prob)
        for value, row in zip(values, probabilities):
            pair = ET.SubElement(bayes_input, "PairCounts", value=str(value))
            counts = ET.SubElement(pair, "TargetValueCounts")
            for c, p, n in zip(classes, row, class_counts):
                ET.SubElement(counts, "TargetValueCount", value=c, count=repr(float(p * n)))
    output = ET.SubElement(nb, "BayesOutput", fieldName="target")
    counts = ET.SubElement(output, "TargetValueCounts")
    for c, n in zip(classes, class_counts):
        ET.SubElement(counts, "TargetValueCount", value=c, count=repr(float(n)))
    return ET.ElementTree(root)


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


def write_pmml(model, path):
    """Write ``model`` as PMML to ``path`` (temporary file in the same folder, then renamed)."""
    tree = pmml_tree(model)
    folder = pathlib.Path(path).resolve().parent
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            tree.write(stream, encoding="utf-8", xml_declaration=True)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise

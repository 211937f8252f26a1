"""PMML ``RegressionModel`` of the text models (multinomial, Bernoulli, complement naive Bayes).

A NaiveBayesModel cannot read counts, but these models' joint log-likelihood is linear in the row
(:mod:`nbparallel.exporters.linear`), and ``predict_proba`` is its softmax. So the PMML is a
classification RegressionModel with ``normalizationMethod="softmax"`` and one RegressionTable per
class (intercept ``b_c``, a NumericPredictor ``w_cj`` per column); a Bernoulli model's columns are
binarised by a derived field ``present(NAME)`` (1 when above ``binarize``, else 0; the column itself
when ``binarize`` is None).

The fields are named by the model's ``feature_names_in_``, or ``x0``, ``x1``, ... when it has none;
every field is a double. These models take no missing values, and neither does the PMML.
"""

import xml.etree.ElementTree as ET

from nbparallel.exporters.linear import binarize_threshold, feature_names, linear_scores
from nbparallel.exporters.pmml_schema import add_mining_schema


def fields(model):
    """``[(name, None, "double")]``: every column is a continuous field."""
    return [(name, None, "double") for name in feature_names(model)]


def add_regression_model(parent, model, target):
    """Add the softmax RegressionModel of a text model under ``parent``; returns it."""
    names = feature_names(model)
    element = ET.SubElement(parent, "RegressionModel", functionName="classification",
                            normalizationMethod="softmax")
    add_mining_schema(element, names, target)
    if binarize_threshold(model) is not None:
        names = add_binarised(element, names, float(binarize_threshold(model)))
    intercepts, coefficients = linear_scores(model)
    for c, intercept, row in zip(model.classes_, intercepts, coefficients):
        table = ET.SubElement(element, "RegressionTable", intercept=repr(float(intercept)), targetCategory=str(c))
        for name, coefficient in zip(names, row):
            ET.SubElement(table, "NumericPredictor", name=name, coefficient=repr(float(coefficient)))
    return element


def add_binarised(element, names, threshold):
    """LocalTransformations with a field ``present(NAME)`` per column: 1 when the value is above
    ``threshold``, else 0; returns the new fields' names."""
    transformations = ET.SubElement(element, "LocalTransformations")
    present = []
    for name in names:
        derived = ET.SubElement(transformations, "DerivedField", name=f"present({name})", optype="continuous",
                                dataType="double")
        choice = ET.SubElement(derived, "Apply", function="if")
        above = ET.SubElement(choice, "Apply", function="greaterThan")
        ET.SubElement(above, "FieldRef", field=name)
        ET.SubElement(above, "Constant", dataType="double").text = repr(threshold)
        ET.SubElement(choice, "Constant", dataType="double").text = "1"
        ET.SubElement(choice, "Constant", dataType="double").text = "0"
        present.append(f"present({name})")
    return present

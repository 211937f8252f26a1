"""PMML ``RegressionModel`` of the text models (multinomial, Bernoulli, complement naive Bayes).

A NaiveBayesModel cannot read counts, but these models' joint log-likelihood is linear in the row
``x``: ``jll_c = b_c + sum_j w_cj x_j``, and ``predict_proba`` is its softmax. So the PMML is a
classification RegressionModel with ``normalizationMethod="softmax"`` and one RegressionTable per
class (intercept ``b_c``, a NumericPredictor ``w_cj`` per column):

- multinomial: ``b_c = log pi_c``, ``w_cj = feature_log_prob_[c, j]``;
- Bernoulli: each column binarised by a derived field ``present(NAME)`` (1 when above ``binarize``,
  else 0; the column itself when ``binarize`` is None), ``w_cj = log p_cj - log(1 - p_cj)`` and the
  absent terms folded into the intercept, ``b_c = log pi_c + sum_j log(1 - p_cj)``;
- complement: ``b_c = 0`` (the prior counts only with one class, as in ``predict_proba``),
  ``w_cj = feature_log_prob_[c, j]``.

The fields are named by the model's ``feature_names_in_``, or ``x0``, ``x1``, ... when it has none;
every field is a double. These models take no missing values, and neither does the PMML.
"""

import xml.etree.ElementTree as ET

import numpy as np

from nbparallel.exporters.pmml_schema import add_mining_schema

LINEAR_KINDS = ("MultinomialNaiveBayes", "BernoulliNaiveBayes", "ComplementNaiveBayes")


def feature_names(model):
    """The model's feature names, or ``x0`` .. ``x{F-1}`` when it was fitted without names."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return [f"x{j}" for j in range(model.n_features_in_)]
    return [str(name) for name in names]


def fields(model):
    """``[(name, None, "double")]``: every column is a continuous field."""
    return [(name, None, "double") for name in feature_names(model)]


def linear_scores(model):
    """``(intercepts, coefficients)``: shapes (n_classes,) and (n_classes, n_features), such that
    ``intercepts + coefficients @ x`` is the model's joint log-likelihood of ``x`` (binarised for Bernoulli)."""
    kind = type(model).__name__
    log_prob = model.feature_log_prob_
    if kind == "BernoulliNaiveBayes":
        absent = np.log(1 - np.exp(log_prob))
        return model.class_log_prior_ + absent.sum(axis=1), log_prob - absent
    if kind == "ComplementNaiveBayes" and len(model.classes_) > 1:
        return np.zeros(len(model.classes_)), log_prob
    return model.class_log_prior_, log_prob


def add_regression_model(parent, model, target):
    """Add the softmax RegressionModel of a text model under ``parent``; returns it."""
    names = feature_names(model)
    element = ET.SubElement(parent, "RegressionModel", functionName="classification",
                            normalizationMethod="softmax")
    add_mining_schema(element, names, target)
    if type(model).__name__ == "BernoulliNaiveBayes" and model.binarize is not None:
        names = add_binarised(element, names, float(model.binarize))
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

"""PMML 4.4 documents of fitted models, as bytes: the document's frame (header, data dictionary,
outputs) and the choice of model element by model kind.

- :class:`~nbparallel.NaiveBayes` (categorical, binned numeric, Gaussian, and mixed): a ``NaiveBayesModel``
  (:mod:`nbparallel.exporters.pmml_bayes`).
- :class:`~nbparallel.BoostedNaiveBayes`: a ``MiningModel`` of one ``NaiveBayesModel`` segment per round,
  combined by ``weightedMajorityVote`` with the rounds' votes as weights (its ``predict_proba`` is the
  vote shares).
- :class:`~nbparallel.MultinomialNaiveBayes`, :class:`~nbparallel.BernoulliNaiveBayes` and
  :class:`~nbparallel.ComplementNaiveBayes`: a ``RegressionModel`` with a softmax over one linear score per
  class (:mod:`nbparallel.exporters.pmml_linear`). Their fields are the model's feature names, or
  ``x0``, ``x1``, ... when it was fitted without names.
- :class:`~nbparallel.AODE` and :class:`~nbparallel.TAN`: refused, each with a ValueError saying why (export
  them to ONNX).

The target field is named ``target`` (``target_`` and so on if a column has that name); the ``Output``
gives ``label`` and ``probability(CLASS)`` for each class, in ``classes_`` order.
"""

import io
import xml.etree.ElementTree as ET

from nbparallel.exporters import pmml_bayes, pmml_linear
from nbparallel.exporters.exportable import exported_kind
from nbparallel.exporters.pmml_schema import NS
from nbparallel.models.registry import AODE, BOOSTED, NAIVE_BAYES, TAN


def model_element_writer(model):
    """The function that adds ``model``'s PMML model element to a document, and the fields it reads
    (``[(name, values, data type)]``: a categorical field's values, None for a continuous field)."""
    kind = exported_kind(model, "PMML")
    if kind == AODE:
        raise ValueError("PMML has no model of averaged one-dependence estimators: export an AODE to .onnx")
    if kind == TAN:
        raise ValueError("PMML export of a TAN is not written (PMML's BayesianNetworkModel could hold its tree, "
                         "but no PMML scorer was checked against it here): export a TAN to .onnx")
    if kind == NAIVE_BAYES:
        return pmml_bayes.add_naive_bayes_model, pmml_bayes.fields(model)
    if kind == BOOSTED:
        return pmml_bayes.add_boosted_model, pmml_bayes.fields(model.estimators_[0])
    return pmml_linear.add_regression_model, pmml_linear.fields(model)


def pmml_tree(model):
    """The PMML document (an ElementTree) of the fitted ``model``."""
    add_model, fields = model_element_writer(model)
    classes = [str(c) for c in model.classes_]
    target = target_name([name for name, *_ in fields])
    root = ET.Element("PMML", xmlns=NS, version="4.4")
    ET.SubElement(root, "Header", description=f"nbparallel {type(model).__name__}")
    dictionary = ET.SubElement(root, "DataDictionary")
    for name, values, data_type in fields:
        if values is None:
            ET.SubElement(dictionary, "DataField", name=name, optype="continuous", dataType=data_type)
            continue
        field = ET.SubElement(dictionary, "DataField", name=name, optype="categorical", dataType=data_type)
        for value in values:
            ET.SubElement(field, "Value", value=value)
    target_field = ET.SubElement(dictionary, "DataField", name=target, optype="categorical", dataType="string")
    for c in classes:
        ET.SubElement(target_field, "Value", value=c)
    element = add_model(root, model, target)
    add_output(element, classes)
    return ET.ElementTree(root)


def target_name(names):
    """``target``, with underscores added until no field has that name."""
    name = "target"
    while name in names:
        name += "_"
    return name


def add_output(element, classes):
    """The Output of ``label`` and ``probability(CLASS)`` per class, placed right after the MiningSchema."""
    output = ET.Element("Output")
    ET.SubElement(output, "OutputField", name="label", optype="categorical", dataType="string",
                  feature="predictedValue")
    for c in classes:
        ET.SubElement(output, "OutputField", name=f"probability({c})", optype="continuous", dataType="double",
                      feature="probability", value=c)
    position = [child.tag for child in element].index("MiningSchema") + 1
    element.insert(position, output)


def pmml_bytes(model):
    """The PMML file of ``model``, as UTF-8 bytes with an XML declaration."""
    stream = io.BytesIO()
    pmml_tree(model).write(stream, encoding="utf-8", xml_declaration=True)
    return stream.getvalue()

"""ONNX graphs of fitted models (``ai.onnx`` and ``ai.onnx.ml`` operators), scored by any ONNX runtime.

A :class:`~nbparallel.NaiveBayes` graph has one input per column of the data it was fitted on, named
after the column, of shape [N, 1]: a string tensor for a categorical column (the value as ``str(value)``
writes it, a boolean also as ``true``/``TRUE``; a missing value is any string that is not a category, such
as ``""``), a double tensor for a
numeric one (binned or Gaussian; a missing value is NaN). Each column adds its log-probabilities per class:

- categorical: a ``LabelEncoder`` maps the value to its row of the column's log-probability table; an
  unseen or missing value maps to a row of zeros, so it adds nothing, as in the model;
- binned: the bin is the number of the model's edges below the value (bin b holds
  ``edges[b-1] < x <= edges[b]``), each bin a row of the table; NaN adds nothing;
- Gaussian: ``-log(2 pi var) / 2 - (x - theta)^2 / (2 var)`` per class (``var_`` with its epsilon); NaN adds
  nothing, and nor does a column for a class that never saw a value of it.

The sum with the class log-priors is the joint log-likelihood; the outputs are ``label`` [N] (its
``ArgMax``, as a tensor of the classes' type: int64, double or string) and ``probabilities`` [N, K] (its
``Softmax``), in ``classes_`` order.

A :class:`~nbparallel.BoostedNaiveBayes` graph scores every round's model on the same inputs and gives the
vote shares, each round's predicted class weighted by its ``estimator_weights_``, as ``predict_proba`` does.
The text models (:mod:`nbparallel.exporters.linear`) take one input ``X`` [N, F] of doubles, the rows of
counts (a graph input per term would be thousands), and score it by one ``MatMul``. AODE and TAN take the
column inputs of a NaiveBayes graph and score them by gathered log tables (:mod:`nbparallel.exporters.onnx_seminaive`).

The ``onnx`` package builds the graph: ``pip install 'nbparallel[export]'``.
"""

import numpy as np

from nbparallel.exporters.linear import binarize_threshold, linear_scores
from nbparallel.exporters.onnx_categories import category_keys
from nbparallel.exporters.onnx_seminaive import aode_log_likelihood, seminaive_inputs, tan_log_likelihood
from nbparallel.exporters.exportable import exported_kind
from nbparallel.models.registry import AODE, BOOSTED, LINEAR, TAN

#: opsets of the graph: the default domain's and ai.onnx.ml's (LabelEncoder with string keys)
OPSETS = {"": 17, "ai.onnx.ml": 3}
IR_VERSION = 8


def onnx_modules():
    """``(onnx, onnx.helper, onnx.numpy_helper)``, or an ImportError saying how to install them."""
    try:
        import onnx
        from onnx import helper, numpy_helper
    except ImportError as error:
        raise ImportError("ONNX export needs the onnx package: pip install 'nbparallel[export]'") from error
    return onnx, helper, numpy_helper


class GraphBuilder:
    """The nodes, constants and inputs of a graph under construction, each value named uniquely."""

    def __init__(self):
        self.onnx, self.helper, self.numpy_helper = onnx_modules()
        self.nodes, self.initializers, self.inputs, self.count = [], [], [], 0

    def name(self, hint):
        """A fresh value name."""
        self.count += 1
        return f"{hint}_{self.count}"

    def constant(self, array, hint="constant"):
        """The name of a constant holding ``array``."""
        name = self.name(hint)
        self.initializers.append(self.numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, domain="", hint=None, **attributes):
        """Add node ``op`` of ``inputs``; returns its output's name."""
        output = self.name(hint or op.lower())
        self.nodes.append(self.helper.make_node(op, inputs, [output], domain=domain, **attributes))
        return output

    def add_input(self, name, element_type, width=1):
        """Declare graph input ``name`` of shape [N, width]; returns its name."""
        self.inputs.append(self.helper.make_tensor_value_info(name, element_type, ["N", width]))
        return name

    def model(self, outputs, doc):
        """The ModelProto of the graph with ``outputs`` (``[(name, element type, shape)]``)."""
        helper = self.helper
        graph = helper.make_graph(self.nodes, "nbparallel", self.inputs,
                                  [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                                  initializer=self.initializers)
        model = helper.make_model(graph, producer_name="nbparallel", doc_string=doc,
                                  opset_imports=[helper.make_opsetid(d, v) for d, v in OPSETS.items()])
        model.ir_version = IR_VERSION
        self.onnx.checker.check_model(model)
        return model


def table_rows(builder, log_prob, codes):
    """The rows of ``log_prob`` (with a row of zeros appended) at ``codes`` [N, 1]: shape [N, K]."""
    table = np.vstack([log_prob, np.zeros((1, log_prob.shape[1]))])
    flat = builder.node("Reshape", [codes, builder.constant(np.array([-1], dtype=np.int64))])
    return builder.node("Gather", [builder.constant(table, "log_prob"), flat], axis=0)


def categorical_terms(builder, column, fitted):
    """[N, K] log-probabilities of a categorical column; unseen and missing values get the zero row."""
    keys, codes = category_keys(fitted.categories)
    codes = builder.node("LabelEncoder", [column], domain="ai.onnx.ml", keys_strings=keys, values_int64s=codes,
                         default_int64=len(fitted.categories))
    return table_rows(builder, fitted.log_prob, codes)


def binned_terms(builder, column, fitted):
    """[N, K] log-probabilities of a binned column: bin = number of edges below the value; NaN the zero row."""
    above = builder.node("Greater", [column, builder.constant(np.asarray(fitted.edges, dtype=np.float64), "edges")])
    as_int = builder.node("Cast", [above], to=builder.onnx.TensorProto.INT64)
    bins = builder.node("ReduceSum", [as_int, builder.constant(np.array([1], dtype=np.int64))], keepdims=1)
    missing = builder.node("IsNaN", [column])
    codes = builder.node("Where", [missing, builder.constant(np.array(len(fitted.log_prob), dtype=np.int64)), bins])
    return table_rows(builder, fitted.log_prob, codes)


def gaussian_terms(builder, column, theta, var):
    """[N, K] normal log-densities of a Gaussian column; NaN, or a class without a variance, adds 0."""
    known = ~np.isnan(var)
    safe = np.where(known, var, 1.0)
    offset = np.where(known, -0.5 * np.log(2 * np.pi * safe), 0.0)
    scale = np.where(known, -0.5 / safe, 0.0)
    centre = np.where(known, theta, 0.0)
    deviation = builder.node("Sub", [column, builder.constant(centre[None, :], "theta")])
    square = builder.node("Mul", [deviation, deviation])
    terms = builder.node("Add", [builder.node("Mul", [square, builder.constant(scale[None, :], "scale")]),
                                 builder.constant(offset[None, :], "offset")])
    missing = builder.node("IsNaN", [column])
    return builder.node("Where", [missing, builder.constant(np.array(0.0)), terms])


def naive_bayes_log_likelihood(builder, model, inputs, rows):
    """[N, K] joint log-likelihood of a NaiveBayes reading the graph ``inputs`` ({column: name});
    ``rows`` is a [N, K] zero tensor that gives the class log-priors their shape."""
    terms = [builder.node("Add", [rows, builder.constant(model.class_log_prior_, "log_prior")])]
    for name, fitted in zip(model.counted_attribute_names(), model.counted_fits_):
        if len(fitted.log_prob):
            add = categorical_terms if fitted.edges is None else binned_terms
            terms.append(add(builder, inputs[str(name)], fitted))
    for g, name in enumerate(getattr(model, "gaussian_features_", [])):
        terms.append(gaussian_terms(builder, inputs[str(name)], model.theta_[:, g], model.var_[:, g]))
    return builder.node("Sum", terms, hint="joint_log_likelihood")


def column_inputs(builder, model):
    """One graph input per column of ``model``'s data: a string for a categorical column, else a double."""
    tensor = builder.onnx.TensorProto
    categorical = {str(n) for n, f in zip(model.counted_attribute_names(), model.counted_fits_) if f.edges is None}
    return {str(c): builder.add_input(str(c), tensor.STRING if str(c) in categorical else tensor.DOUBLE)
            for c in model.schema_.columns}


def zero_rows(builder, first_input, n_classes):
    """A [N, K] tensor of zeros, N the rows of ``first_input``."""
    shape = builder.node("Shape", [first_input])
    n = builder.node("Slice", [shape, builder.constant(np.array([0], dtype=np.int64)),
                               builder.constant(np.array([1], dtype=np.int64))])
    size = builder.node("Concat", [n, builder.constant(np.array([n_classes], dtype=np.int64))], axis=0)
    return builder.node("ConstantOfShape", [size], value=builder.numpy_helper.from_array(np.zeros(1)))


def linear_log_likelihood(builder, model):
    """[N, K] joint log-likelihood of a text model reading the graph input ``X`` [N, F]."""
    rows = builder.add_input("X", builder.onnx.TensorProto.DOUBLE, model.n_features_in_)
    if binarize_threshold(model) is not None:
        present = builder.node("Greater", [rows, builder.constant(np.array(float(binarize_threshold(model))))])
        rows = builder.node("Cast", [present], to=builder.onnx.TensorProto.DOUBLE)
    intercepts, coefficients = linear_scores(model)
    product = builder.node("MatMul", [rows, builder.constant(np.ascontiguousarray(coefficients.T), "weights")])
    return builder.node("Add", [product, builder.constant(intercepts, "intercepts")], hint="joint_log_likelihood")


def boosted_vote_shares(builder, model):
    """[N, K] vote shares of a BoostedNaiveBayes: each round's class gets its weight, over the weights' sum."""
    inputs = column_inputs(builder, model.estimators_[0])
    rows = zero_rows(builder, next(iter(inputs.values())), len(model.classes_))
    classes = builder.constant(np.arange(len(model.classes_), dtype=np.int64), "class_index")
    votes = []
    for learner, weight in zip(model.estimators_, model.estimator_weights_):
        jll = naive_bayes_log_likelihood(builder, learner, inputs, rows)
        best = builder.node("ArgMax", [jll], axis=1, keepdims=1)
        chosen = builder.node("Cast", [builder.node("Equal", [best, classes])], to=builder.onnx.TensorProto.DOUBLE)
        votes.append(builder.node("Mul", [chosen, builder.constant(np.array(float(weight)), "weight")]))
    total = builder.constant(np.array(float(np.sum(model.estimator_weights_))), "total_weight")
    return builder.node("Div", [builder.node("Sum", votes), total], hint="vote_shares")


def class_labels(classes):
    """The classes as a constant array for the label output: int64, double or string."""
    if all(isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)) for c in classes):
        return np.asarray(classes, dtype=np.int64)
    if all(isinstance(c, (float, np.floating)) for c in classes):
        return np.asarray(classes, dtype=np.float64)
    return np.array([str(c) for c in classes], dtype=object)


def onnx_model(model):
    """The ONNX ModelProto of the fitted ``model``."""
    kind = exported_kind(model, "ONNX")
    builder = GraphBuilder()
    if kind == LINEAR:
        scores = linear_log_likelihood(builder, model)
    elif kind == BOOSTED:
        scores = boosted_vote_shares(builder, model)
    elif kind in (AODE, TAN):
        inputs = seminaive_inputs(builder, model)
        rows = zero_rows(builder, next(iter(inputs.values())), len(model.classes_))
        scores = (aode_log_likelihood if kind == AODE else tan_log_likelihood)(builder, model, inputs, rows)
    else:
        inputs = column_inputs(builder, model)
        rows = zero_rows(builder, next(iter(inputs.values())), len(model.classes_))
        scores = naive_bayes_log_likelihood(builder, model, inputs, rows)
    best = builder.node("ArgMax", [scores], axis=1, keepdims=0)
    labels = class_labels(list(model.classes_))
    builder.nodes.append(builder.helper.make_node("Gather", [builder.constant(labels, "classes"), best], ["label"]))
    probabilities = scores if kind == BOOSTED else builder.node("Softmax", [scores], axis=1)
    builder.nodes.append(builder.helper.make_node("Identity", [probabilities], ["probabilities"]))
    label_type = builder.helper.np_dtype_to_tensor_dtype(labels.dtype) if labels.dtype != object \
        else builder.onnx.TensorProto.STRING
    return builder.model([("label", label_type, ["N"]),
                          ("probabilities", builder.onnx.TensorProto.DOUBLE, ["N", len(model.classes_)])],
                         doc=f"nbparallel {kind}")


def onnx_bytes(model):
    """The ONNX file of ``model``, as bytes."""
    return onnx_model(model).SerializeToString()

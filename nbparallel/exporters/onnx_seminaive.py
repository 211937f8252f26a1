"""ONNX graphs of AODE and TAN: their joint log-likelihoods from the graph's column inputs, by ``Gather`` on codes.

Every column becomes its attribute's code as the model counts it (0 missing, ``1 .. M_a``): a categorical column
by a ``LabelEncoder`` (an unseen or missing value to 0), a numeric one by the number of the model's bin edges
below the value plus one (``bin_edges_``: equal-width or MDL; NaN to 0).

- **TAN** is a sum of per-class log tables indexed by the attribute's code and its parent's: each table's rows
  are gathered at ``parent code * (M_a + 1) + code`` (a root's parent code is 0), as
  :func:`~nbparallel.kernels.pair_models.tan_scores` reads them, and added to the class log-priors.
- **AODE** scores each super-parent ``p`` as ``log P(c, x_p) + sum_a log P(x_a | c, x_p)`` (one gathered table
  per pair of attributes), and takes the log of the mean of their exponentials over the parents whose value
  qualifies (a log-sum-exp with the largest score taken out); a row with none is scored by naive Bayes, as
  :func:`~nbparallel.kernels.pair_models.aode_scores` scores it.
"""

import numpy as np

from nbparallel.data.columns import CATEGORICAL
from nbparallel.exporters.onnx_categories import category_keys


def attribute_codes(builder, model, inputs):
    """``[codes [N, 1] int64]`` of ``model``'s attributes in table order, read from the graph ``inputs``."""
    tensor = builder.onnx.TensorProto
    codes = []
    for at in model.schema_.counted().attributes:
        column = inputs[str(at.name)]
        if at.kind == CATEGORICAL:
            keys, values = category_keys(at.categories)
            codes.append(builder.node("LabelEncoder", [column], domain="ai.onnx.ml", keys_strings=keys,
                                      values_int64s=[v + 1 for v in values], default_int64=0))
            continue
        edges = np.asarray(model.bin_edges_[at.name], dtype=np.float64)
        if len(edges):
            above = builder.node("Cast", [builder.node("Greater", [column, builder.constant(edges, "edges")])],
                                 to=tensor.INT64)
            bins = builder.node("ReduceSum", [above, builder.constant(np.array([1], dtype=np.int64))], keepdims=1)
        else:
            bins = builder.node("Mul", [builder.node("Cast", [column], to=tensor.INT64),
                                        builder.constant(np.array(0, dtype=np.int64))])
        one = builder.constant(np.array(1, dtype=np.int64))
        codes.append(builder.node("Where", [builder.node("IsNaN", [column]),
                                            builder.constant(np.array(0, dtype=np.int64)),
                                            builder.node("Add", [bins, one])]))
    return codes


def gathered(builder, table, index):
    """The rows of ``table`` (rows x K) at ``index`` [N, 1]: [N, K]."""
    flat = builder.node("Reshape", [index, builder.constant(np.array([-1], dtype=np.int64))])
    return builder.node("Gather", [builder.constant(np.ascontiguousarray(table), "log_table"), flat], axis=0)


def pair_index(builder, first, second, n_second):
    """``first * n_second + second`` of two [N, 1] codes."""
    scaled = builder.node("Mul", [first, builder.constant(np.array(n_second, dtype=np.int64))])
    return builder.node("Add", [scaled, second])


def tan_log_likelihood(builder, model, inputs, rows):
    """[N, K] joint log-likelihood of a TAN; ``rows`` a [N, K] zero tensor."""
    tables = model.tables_
    codes = attribute_codes(builder, model, inputs)
    terms = [builder.node("Add", [rows, builder.constant(tables.log_prior, "log_prior")])]
    for a, (table, parent) in enumerate(zip(tables.tables, tables.parents)):
        n_classes, n_parent, n_own = table.shape
        flat = np.moveaxis(table, 0, 2).reshape(n_parent * n_own, n_classes)
        index = codes[a] if parent < 0 else pair_index(builder, codes[parent], codes[a], n_own)
        terms.append(gathered(builder, flat, index))
    return builder.node("Sum", terms, hint="joint_log_likelihood")


def aode_log_likelihood(builder, model, inputs, rows):
    """[N, K] joint log-likelihood of an AODE (up to a constant per row); ``rows`` a [N, K] zero tensor."""
    tables = model.tables_
    offsets = tables.offsets
    codes = attribute_codes(builder, model, inputs)
    f = len(codes)
    spans = [slice(offsets[a], offsets[a + 1]) for a in range(f)]
    naive = [builder.node("Add", [rows, builder.constant(tables.log_prior, "log_prior")])]
    naive += [gathered(builder, tables.log_single[spans[a]], codes[a]) for a in range(f)]
    scores, qualified = [], []
    for p in range(f):
        terms = [gathered(builder, tables.log_joint[spans[p]], codes[p])]
        n_parent = offsets[p + 1] - offsets[p]
        for a in range(f):
            if a != p:
                block = tables.log_cond[spans[p], spans[a]]  # (parent rows, child rows, K)
                terms.append(gathered(builder, block.reshape(-1, block.shape[2]),
                                      pair_index(builder, codes[p], codes[a], block.shape[1])))
        axis = builder.constant(np.array([1], dtype=np.int64))
        scores.append(builder.node("Unsqueeze", [builder.node("Sum", terms), axis]))  # [N, 1, K]
        ok = gathered(builder, tables.parent_ok[spans[p]].astype(np.float64).reshape(n_parent, 1), codes[p])
        qualified.append(builder.node("Unsqueeze", [ok, axis]))  # [N, 1, 1]
    stacked = builder.node("Concat", scores, axis=1)  # [N, f, K]
    ok = builder.node("Concat", qualified, axis=1)  # [N, f, 1], 1.0 where the parent qualifies
    is_ok = builder.node("Greater", [ok, builder.constant(np.array(0.5))])
    masked = builder.node("Where", [is_ok, stacked, builder.constant(np.array(-np.inf))])
    top = builder.node("ReduceMax", [masked], axes=[1], keepdims=1)
    top = builder.node("Where", [builder.node("IsInf", [top]), builder.constant(np.array(0.0)), top])
    axes = builder.constant(np.array([1], dtype=np.int64))
    total = builder.node("ReduceSum", [builder.node("Exp", [builder.node("Sub", [masked, top])]), axes], keepdims=0)
    count = builder.node("ReduceSum", [ok, axes], keepdims=0)  # [N, 1]
    mean = builder.node("Sub", [builder.node("Add", [builder.node("Log", [total]),
                                                     builder.node("Squeeze", [top, axes])]),
                                builder.node("Log", [count])])
    some = builder.node("Greater", [count, builder.constant(np.array(0.5))])
    return builder.node("Where", [some, mean, builder.node("Sum", naive)], hint="joint_log_likelihood")


def seminaive_inputs(builder, model):
    """One graph input per column of ``model``'s data: a string for a categorical column, else a double."""
    tensor = builder.onnx.TensorProto
    kinds = {at.name: at.kind for at in model.schema_.attributes}
    return {str(c): builder.add_input(str(c), tensor.STRING if kinds[c] == CATEGORICAL else tensor.DOUBLE)
            for c in model.schema_.columns}

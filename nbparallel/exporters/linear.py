"""The text models' joint log-likelihood as a linear function of a row, which every export format writes.

Multinomial, Bernoulli and complement naive Bayes score a row ``x`` by ``jll_c = b_c + sum_j w_cj x_j``
(Bernoulli of ``x`` binarised), and ``predict_proba`` is its softmax:

- multinomial: ``b_c = log pi_c``, ``w_cj = feature_log_prob_[c, j]``;
- Bernoulli: ``w_cj = log p_cj - log(1 - p_cj)``, the absent terms folded into the intercept,
  ``b_c = log pi_c + sum_j log(1 - p_cj)``;
- complement: ``b_c = 0`` (the prior counts only with one class, as in ``predict_proba``),
  ``w_cj = feature_log_prob_[c, j]``.
"""


def feature_names(model):
    """The model's feature names, or ``x0`` .. ``x{F-1}`` when it was fitted without names."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return [f"x{j}" for j in range(model.n_features_in_)]
    return [str(name) for name in names]


def linear_scores(model):
    """``(intercepts, coefficients)``: shapes (n_classes,) and (n_classes, n_features), such that
    ``intercepts + coefficients @ x`` is the model's joint log-likelihood of ``x`` (binarised for Bernoulli):
    the model's own linear form (its ``term_weights``)."""
    coefficients, intercepts = model.term_weights()
    return intercepts, coefficients


def binarize_threshold(model):
    """The threshold above which a Bernoulli model counts a term present (None: the row is already 0/1);
    None for the other text models, which read counts (and have no ``binarize``)."""
    return getattr(model, "binarize", None)

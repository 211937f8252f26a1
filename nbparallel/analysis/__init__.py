"""Langley and Sage's average-case analysis of naive Bayes, and its experiments on the engine."""

from .theory import (
    binomial,
    case_probability,
    class_probability,
    difference_moments,
    learning_curve,
    log_count_moments,
    predicted_accuracy,
    probability_d_nonpositive,
    relevant_given_class,
    score_moments,
    type_accuracies,
)

__all__ = [
    "binomial", "class_probability", "difference_moments", "learning_curve", "log_count_moments",
    "predicted_accuracy", "probability_d_nonpositive", "relevant_given_class", "score_moments",
    "case_probability", "type_accuracies",
]
from .experiment import Domain, learning_curves, paper_estimator_matches_naive_bayes

__all__ += ["Domain", "learning_curves", "paper_estimator_matches_naive_bayes"]

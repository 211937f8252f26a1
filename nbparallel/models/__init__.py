"""Estimators built from merged summaries: the base, attribute kinds, the counting plan and the models.

Import a model from its module (``nbparallel.models.naive_bayes.NaiveBayes``) or
from the top-level package (``nbparallel.NaiveBayes``).
"""

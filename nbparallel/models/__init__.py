"""Estimators built from merged summaries."""

from .naive_bayes import NaiveBayes

__all__ = ["NaiveBayes"]

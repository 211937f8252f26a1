"""Estimators built from merged summaries."""

from .autoclass import AutoClass
from .boosting import BoostedNaiveBayes
from .naive_bayes import NaiveBayes

__all__ = ["AutoClass", "BoostedNaiveBayes", "NaiveBayes"]

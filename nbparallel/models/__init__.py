"""Estimators built from merged summaries."""

from .autoclass import AutoClass
from .boosting import BoostedNaiveBayes
from .naive_bayes import NaiveBayes
from .text import BernoulliNaiveBayes, MultinomialNaiveBayes

__all__ = ["AutoClass", "BernoulliNaiveBayes", "BoostedNaiveBayes", "MultinomialNaiveBayes", "NaiveBayes"]

"""nbparallel as a ``pyspark.ml`` Estimator and Model, for a Spark ML ``Pipeline`` or ``CrossValidator``.

:class:`NaiveBayesClassifier` takes the raw columns (strings, integers, doubles, missing values): no
``StringIndexer``, ``OneHotEncoder`` or ``VectorAssembler``. Its ``fit`` is :class:`nbparallel.NaiveBayes`'s
on the Spark DataFrame, counted on the executors; :class:`NaiveBayesClassificationModel.transform` adds the
``predictionCol`` (the predicted label, of the label column's type) and the ``probabilityCol`` (a vector of
the class probabilities, in the order of ``classes``), computed on the executors. A model is saved with
``model.write().save(path)`` as the parameters and nbparallel's validated JSON model file, and read back
with ``NaiveBayesClassificationModel.load(path)`` (a local or mounted path).

``pip install 'nbparallel[spark]'``. This module, :mod:`nbparallel.cluster` and the engine's backends are
the only ones that import pyspark.
"""

from __future__ import annotations

import os
import shutil

from pyspark.ml import Estimator, Model
from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.param.shared import HasInputCols, HasLabelCol, HasPredictionCol, HasProbabilityCol, HasWeightCol
from pyspark.ml.util import DefaultParamsReader, DefaultParamsWriter, MLReadable, MLReader, MLWritable, MLWriter

from nbparallel.loading import load
from nbparallel.models.naive_bayes import NaiveBayes

#: the nbparallel model file inside a saved Model's directory
MODEL_FILE = "model.json"


class _NaiveBayesParams(HasInputCols, HasLabelCol, HasWeightCol, HasPredictionCol, HasProbabilityCol):
    """The parameters the Estimator and its Model share."""

    alpha = Param(Params._dummy(), "alpha", "additive smoothing of the attributes' tables; 0 or less: 1/N, "
                  "the SPSS document's", typeConverter=TypeConverters.toFloat)
    nBins = Param(Params._dummy(), "nBins", "equal-width bins of each numeric column", TypeConverters.toInt)
    categoricalCols = Param(Params._dummy(), "categoricalCols", "numeric columns counted per value as "
                            "categories (text columns always are)", TypeConverters.toListString)

    def __init__(self):
        super().__init__()
        self._setDefault(alpha=0.0, nBins=10, categoricalCols=[], labelCol="label", predictionCol="prediction",
                         probabilityCol="probability")

    def attribute_columns(self, columns):
        """``inputCols`` when set, else every column but the label and the weight."""
        if self.isSet(self.inputCols):
            return list(self.getOrDefault(self.inputCols))
        skip = {self.getOrDefault(self.labelCol)} | ({self.getOrDefault(self.weightCol)}
                                                     if self.isDefined(self.weightCol) else set())
        return [c for c in columns if c not in skip]


class NaiveBayesClassifier(Estimator, _NaiveBayesParams, MLReadable, MLWritable):
    """Naive Bayes on raw Spark columns (see the module docstring).

    Parameters
    ----------
    inputCols : list of str, optional
        The attribute columns (default: every column but the label and the weight).
    labelCol, weightCol, predictionCol, probabilityCol : str
        Spark ML's column parameters.
    alpha : float
        Additive smoothing; 0 (the default) or less takes 1/N, as the SPSS document does.
    nBins : int
        Equal-width bins of a numeric column.
    categoricalCols : list of str
        Numeric columns counted per value.
    """

    def __init__(self, **params):
        super().__init__()
        self._set(**params)

    def naive_bayes(self):
        """The :class:`~nbparallel.NaiveBayes` these parameters make."""
        alpha = self.getOrDefault(self.alpha)
        categorical = list(self.getOrDefault(self.categoricalCols)) or "auto"
        return NaiveBayes(alpha="1/N" if alpha <= 0 else alpha, n_bins=self.getOrDefault(self.nBins),
                          categorical_features=categorical)

    def _fit(self, dataset):
        label = self.getOrDefault(self.labelCol)
        weight = self.getOrDefault(self.weightCol) if self.isDefined(self.weightCol) else None
        columns = self.attribute_columns(dataset.columns)
        frame = dataset.select(*columns, label, *([weight] if weight else []))
        fitted = self.naive_bayes().fit(frame, label, sample_weight=weight)
        model = NaiveBayesClassificationModel(fitted)
        return self._copyValues(model)

    def write(self):
        return _ParamsWriter(self)

    @classmethod
    def read(cls):
        return _Reader(cls)


class NaiveBayesClassificationModel(Model, _NaiveBayesParams, MLReadable, MLWritable):
    """A fitted :class:`NaiveBayesClassifier`: ``transform`` adds the prediction and the probabilities.

    Attributes
    ----------
    model : nbparallel.NaiveBayes
        The fitted nbparallel model.
    classes : list
        The labels, in the order of the probability vector.
    """

    def __init__(self, model=None):
        super().__init__()
        self.model = model

    @property
    def classes(self):
        """The class labels, in the order of ``probabilityCol``'s vector."""
        return self.model.classes_.tolist()

    def _transform(self, dataset):
        from pyspark.ml.functions import array_to_vector
        from pyspark.sql import functions as F

        proba = [f"proba_{c}" for c in self.model.classes_]
        scored = self.model.predict_proba(dataset)
        out = scored.withColumn(self.getOrDefault(self.probabilityCol),
                                array_to_vector(F.array(*[F.col(f"`{c}`") for c in proba])))
        out = out.drop(*proba)
        if self.getOrDefault(self.predictionCol) != "prediction":
            out = out.withColumnRenamed("prediction", self.getOrDefault(self.predictionCol))
        return out

    def write(self):
        return _ParamsWriter(self)

    @classmethod
    def read(cls):
        return _Reader(cls)


class _ParamsWriter(MLWriter):
    """Writes Spark ML's metadata (the parameters, what a ``Pipeline`` reads back) and, for a Model, its
    nbparallel model file ``model.json``, into directory ``path``."""

    def __init__(self, instance):
        super().__init__()
        self.instance = instance

    def saveImpl(self, path):
        if os.path.exists(path) and not self.shouldOverwrite:
            raise ValueError(f"{path!r} exists: write().overwrite().save(path) replaces it")
        DefaultParamsWriter.saveMetadata(self.instance, path, self.sparkSession)
        if isinstance(self.instance, NaiveBayesClassificationModel):
            self.instance.model.save(os.path.join(path, MODEL_FILE))

    def _handleOverwrite(self, path):
        shutil.rmtree(path, ignore_errors=True)


class _Reader(MLReader):
    """Reads what :class:`_ParamsWriter` wrote: the parameters and, for a Model, its validated model file."""

    def __init__(self, cls):
        super().__init__()
        self.cls = cls

    def load(self, path):
        metadata = DefaultParamsReader.loadMetadata(path, self.sparkSession)
        if metadata["class"].rsplit(".", 1)[-1] != self.cls.__name__:
            raise ValueError(f"{path!r} holds a {metadata['class']!r}, not a {self.cls.__name__}")
        if self.cls is NaiveBayesClassificationModel:
            instance = self.cls(load(os.path.join(path, MODEL_FILE)))
        else:
            instance = self.cls()
        instance._resetUid(metadata["uid"])
        DefaultParamsReader.getAndSetParams(instance, metadata)
        return instance

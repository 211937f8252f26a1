"""The one registry of model kinds, and what reads it: the package's exports, load, export, report, cross_validate."""

import numpy as np
import pytest

import nbparallel
from nbparallel.models.registry import MODEL_KINDS, kind_of_model, model_kind


def test_every_estimator_a_model_file_may_name_is_the_class_of_that_name():
    for name, kind in MODEL_KINDS.items():
        cls = kind.estimator_class()
        assert cls.__name__ == name and cls.__module__ == kind.module and hasattr(cls, "fitted_from_dict")
        assert kind_of_model(cls) is kind
    assert model_kind("LogisticRegression") is None and model_kind(3) is None


def test_the_package_exports_every_model_kind_as_the_class_its_entry_names():
    for name, kind in MODEL_KINDS.items():
        assert name in nbparallel.__all__ and getattr(nbparallel, name) is kind.estimator_class()


def test_a_kind_is_drawn_by_report_exactly_when_its_class_supplies_report_sections():
    for kind in MODEL_KINDS.values():
        assert kind.report == callable(getattr(kind.estimator_class(), "report_sections", None)), kind.name


def test_a_subclass_is_no_kind_of_its_base():
    class MyNaiveBayes(nbparallel.NaiveBayes):
        pass

    assert kind_of_model(MyNaiveBayes()) is None and kind_of_model(nbparallel.NaiveBayes()).name == "NaiveBayes"
    with pytest.raises(TypeError, match="cross_validate takes a NaiveBayes, .* got MyNaiveBayes"):
        nbparallel.cross_validate(MyNaiveBayes(), np.zeros((4, 1)), [0, 1, 0, 1], cv=2)


def test_cross_validate_takes_the_kinds_the_registry_marks_and_refuses_the_others():
    X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]] * 5)
    y = np.array([0, 1, 1, 0] * 5)
    for kind in MODEL_KINDS.values():
        cls = kind.estimator_class()
        if kind.cross_validated:
            result = nbparallel.cross_validate(cls(), X, y, cv=2, scoring="accuracy")
            assert len(result["test_accuracy"]) == 2
        else:
            with pytest.raises(TypeError, match=f"cross_validate takes .* got {kind.name}"):
                nbparallel.cross_validate(cls(), X, y, cv=2)

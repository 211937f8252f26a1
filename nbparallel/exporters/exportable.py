"""The models export writes, by the form their model kind names, and the check every format makes of a model
before writing it."""

from nbparallel.models.registry import kind_of_model, kinds_where, names_of


def exported_kind(model, format_name):
    """The export form (:data:`~nbparallel.models.registry.NAIVE_BAYES`, ``BOOSTED`` or ``LINEAR``) of a fitted
    model that export supports; else one ValueError naming the format (``"PMML"``, ``"ONNX"``) and what it takes."""
    kind = kind_of_model(model)
    if kind is None or kind.export is None:
        supported = names_of(kinds_where(lambda k: k.export is not None))
        raise ValueError(f"{format_name} export supports {supported}; got {type(model).__name__}")
    if not hasattr(model, "classes_"):
        raise ValueError(f"{format_name} export needs a fitted model; this {kind.name} is not fitted")
    return kind.export

"""The models export writes, named by kind, and the check every format makes of a model before writing it."""

NAIVE_BAYES_KINDS = ("NaiveBayes", "SelectedNaiveBayes")
BOOSTED_KIND = "BoostedNaiveBayes"
#: the text models, whose joint log-likelihood is linear in a row (:mod:`nbparallel.exporters.linear`)
LINEAR_KINDS = ("MultinomialNaiveBayes", "BernoulliNaiveBayes", "ComplementNaiveBayes")


def exported_kind(model, format_name):
    """``type(model).__name__`` of a fitted model that export supports; else one ValueError naming the format
    (``"PMML"``, ``"ONNX"``) and what it takes."""
    kind = type(model).__name__
    if kind not in (*NAIVE_BAYES_KINDS, BOOSTED_KIND, *LINEAR_KINDS):
        raise ValueError(f"{format_name} export supports NaiveBayes, BoostedNaiveBayes, MultinomialNaiveBayes, "
                         f"BernoulliNaiveBayes and ComplementNaiveBayes; got {kind}")
    if not hasattr(model, "classes_"):
        raise ValueError(f"{format_name} export needs a fitted model; this {kind} is not fitted")
    return kind

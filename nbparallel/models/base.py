"""What every nbparallel estimator shares."""


class MixedInputMixin:
    """Estimators that take missing values, categories and strings as they are."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

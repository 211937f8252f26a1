"""What every nbparallel estimator shares."""

from sklearn.utils.validation import check_is_fitted

from .. import io


class NBParallelMixin:
    """Estimators that take missing values, categories and strings as they are,
    and save themselves as model files.

    A subclass names the fitted attribute that marks it fitted in
    ``_fitted_attribute`` and implements ``_to_dict`` and ``_from_dict``.
    """

    _fitted_attribute = "counts_"

    def save(self, path):
        """Write the model as versioned JSON, completely or not at all."""
        check_is_fitted(self, self._fitted_attribute)
        io.save(self, path)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

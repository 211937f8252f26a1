"""The estimators follow scikit-learn's protocol without importing scikit-learn (nbparallel.models.estimator)."""

import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone, is_classifier, is_clusterer
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from nbparallel import AutoClass, BoostedNaiveBayes, MultinomialNaiveBayes, NaiveBayes, SelectedNaiveBayes


def test_a_fit_and_a_command_line_fit_do_not_import_scikit_learn(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("outlook,temp,play\nsunny,85,no\nrainy,70,yes\novercast,64,yes\nsunny,72,no\n")
    script = f"""
import sys
import numpy as np
import pandas as pd
from nbparallel import NaiveBayes
from nbparallel.cli import main
frame = pd.DataFrame({{"a": ["x", "y", "x", "y"], "b": [1.0, 2.0, 3.0, 4.0]}})
model = NaiveBayes().fit(frame, np.array([0, 1, 0, 1]))
model.predict_proba(frame)
assert main(["fit", {str(data)!r}, "--target", "play", "-o", {str(tmp_path / "m.json")!r}, "--quiet"]) == 0
print(sorted(m for m in sys.modules if m.split(".")[0] == "sklearn"))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("model", [NaiveBayes(), BoostedNaiveBayes(), MultinomialNaiveBayes(), AutoClass()])
def test_an_unfitted_model_raises_scikit_learns_not_fitted_error(model):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        model.predict(np.zeros((2, 3)))


def test_parameters_repr_clone_and_tags_are_scikit_learns():
    model = NaiveBayes(alpha=1.0, categorical_features=["a"], n_bins=5)
    assert repr(model) == "NaiveBayes(alpha=1.0, categorical_features=['a'], n_bins=5)"
    assert repr(NaiveBayes()) == "NaiveBayes()"
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert is_classifier(model) and is_classifier(BoostedNaiveBayes()) and not is_classifier(AutoClass())
    assert is_clusterer(AutoClass()) and not is_clusterer(model)
    assert model.set_params(alpha=2.0) is model and model.alpha == 2.0
    with pytest.raises(ValueError, match="Invalid parameter 'alhpa' for estimator"):
        model.set_params(alhpa=1.0)
    assert set(SelectedNaiveBayes().get_params()) >= {"max_features", "alpha", "n_bins"}


def test_nested_parameters_reach_into_a_pipeline_and_a_grid_search():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(300, 4))
    y = (X[:, 0] + rng.integers(0, 2, 300) > 1).astype(int)
    pipe = Pipeline([("nb", NaiveBayes(categorical_features="all"))])
    assert pipe.get_params()["nb__alpha"] == "1/N"
    pipe.set_params(nb__alpha=0.5)
    assert pipe.named_steps["nb"].alpha == 0.5
    search = GridSearchCV(pipe, {"nb__alpha": [0.5, 2.0]}, cv=3).fit(X, y)
    expected = NaiveBayes(categorical_features="all", alpha=search.best_params_["nb__alpha"]).fit(X, y)
    np.testing.assert_array_equal(search.predict(X), expected.predict(X))


def test_predicting_from_a_model_file_does_not_import_scikit_learn(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("outlook,temp,play\nsunny,85,no\nrainy,70,yes\novercast,64,yes\nsunny,72,no\n")
    NaiveBayes().fit(str(data), "play").save(tmp_path / "m.json")
    script = f"""
import sys
from nbparallel.cli import main
assert main(["predict", {str(tmp_path / "m.json")!r}, {str(data)!r}, "-o", {str(tmp_path / "p.csv")!r}]) == 0
assert main(["evaluate", {str(tmp_path / "m.json")!r}, {str(data)!r}, "--target", "play"]) == 0
print(sorted(m for m in sys.modules if m.split(".")[0] == "sklearn"))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_bases_declare_what_a_model_must_supply():
    from nbparallel.models.base import PartitionedClassifier, PartitionedModel
    from nbparallel.models.counting_model import CountingClassifier
    from nbparallel.models.text import TextNaiveBayes

    assert PartitionedModel.__abstractmethods__ == {"dataset", "fitted_to_dict", "fitted_from_dict"}
    assert PartitionedClassifier.__abstractmethods__ == {"dataset", "fitted_to_dict", "fitted_from_dict",
                                                         "joint_log_likelihood_part"}
    assert CountingClassifier.__abstractmethods__ == PartitionedClassifier.__abstractmethods__ | {
        "counting_data", "counting_plan", "count", "keep_summary", "keep_input_features", "_derive"}
    assert TextNaiveBayes.__abstractmethods__ == {"matrix_threshold", "joint_log_likelihood_part"}

    class Incomplete(PartitionedClassifier):
        def __init__(self, *, n_partitions=None, split_every=2, verbose=0):
            self.n_partitions, self.split_every, self.verbose = n_partitions, split_every, verbose

        def dataset(self, X, y=None, sample_weight=None, *, require_target=True, drop=()):
            return None

    with pytest.raises(TypeError, match="abstract method.*fitted_from_dict"):
        Incomplete()
    for model in (NaiveBayes(), BoostedNaiveBayes(), MultinomialNaiveBayes(), AutoClass(), SelectedNaiveBayes()):
        assert not type(model).__abstractmethods__
        assert clone(model).get_params() == model.get_params()

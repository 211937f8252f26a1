"""The engine runs the same pass on the local scheduler and on a distributed client."""

import numpy as np
import pytest
from distributed import Client, LocalCluster
from sklearn.datasets import load_digits

from nbparallel import NaiveBayes
from nbparallel.engine import active_client, available_workers, map_partitions, run_pass


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with Client(cluster, set_as_default=False) as c:
            yield c


def test_local_default_needs_no_client():
    assert active_client() is None
    assert available_workers() >= 1
    assert map_partitions([1, 2, 3], lambda x: x * 10) == [10, 20, 30]


def test_distributed_client_gives_identical_model(client):
    X, y = load_digits(return_X_y=True)
    local = NaiveBayes(n_partitions=7).fit(X, y)
    with client.as_current():
        assert active_client() is client
        assert available_workers() == 2
        remote = NaiveBayes(n_partitions=7).fit(X, y)
        assert NaiveBayes().fit(X, y).n_partitions_ == 1
        predicted = remote.predict(X)
    assert remote.counts_.equals(local.counts_)
    np.testing.assert_array_equal(predicted, local.predict(X))


def test_run_pass_on_client_keeps_index_order(client):
    with client.as_current():
        result, record = run_pass(list(range(13)), lambda i: (i,), lambda *p: sum(p, ()))
    assert result == tuple(range(13)) and record.height == 4


def test_errors_in_a_task_reach_the_caller(client):
    def boom(x):
        raise ValueError(f"bad partition {x}")

    with client.as_current(), pytest.raises(ValueError, match="bad partition"):
        run_pass([1, 2], boom, max)


@pytest.mark.parametrize("persist", [True, False])
def test_iterative_estimators_give_the_same_model_on_a_client(client, persist):
    from nbparallel import AutoClass, BoostedNaiveBayes

    X, y = load_digits(return_X_y=True)
    X, y = X[:600], y[:600]
    boosted_local = BoostedNaiveBayes(n_rounds=3, n_partitions=4, persist=persist).fit(X, y)
    clusters_local = AutoClass(n_clusters=3, n_restarts=2, max_iter=4, random_state=0, n_partitions=4,
                               persist=persist).fit(X)
    with client.as_current():
        boosted = BoostedNaiveBayes(n_rounds=3, n_partitions=4, persist=persist).fit(X, y)
        clusters = AutoClass(n_clusters=3, n_restarts=2, max_iter=4, random_state=0, n_partitions=4,
                             persist=persist).fit(X)
        assert boosted.predict(X).tolist() == boosted_local.predict(X).tolist()
    np.testing.assert_allclose(boosted.estimator_weights_, boosted_local.estimator_weights_, rtol=1e-12)
    np.testing.assert_allclose(clusters.history_, clusters_local.history_, rtol=1e-9)
    assert [p["kind"] for p in boosted.passes_] == [p["kind"] for p in boosted_local.passes_]

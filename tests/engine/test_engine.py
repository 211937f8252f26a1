"""The engine runs the same pass on the local scheduler and on a distributed client."""

import os

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster
from sklearn.datasets import load_digits

from nbparallel import NaiveBayes
from nbparallel.engine.backends.dask import active_client
from nbparallel.engine.execution import (
    LOCAL_BELOW,
    available_workers,
    local_below,
    local_threads,
    map_partitions,
    map_read_partitions,
    run_pass,
    runs_locally,
)


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


# ------------------------------------------------ where a pass runs


def _where(_):
    """'worker' inside a Dask worker, 'here' in the calling thread, 'local' in the engine's own pool of this
    process, 'thread' in another pool (Dask's threaded scheduler)."""
    import threading

    from distributed import get_worker

    try:
        get_worker()
        return ("worker",)
    except ValueError:
        thread = threading.current_thread()
        if thread is threading.main_thread():
            return ("here",)
        return ("local",) if thread.name.startswith("nbparallel-local") else ("thread",)


def _concat(*parts):
    return sum(parts, ())


@pytest.mark.parametrize("P, k", [(1, 2), (5, 2), (9, 3), (13, False)])
def test_small_in_memory_pass_runs_inline_with_the_tree_it_would_build(P, k, monkeypatch):
    graph_result, graph_record = None, None
    with local_below(0):
        graph_result, graph_record = run_pass(list(range(P)), lambda i: (i,), _concat, split_every=k)
    import nbparallel.engine.backends.dask as engine

    monkeypatch.setattr(engine, "compute", lambda *a, **kw: pytest.fail("a Dask graph was computed"))
    result, record = run_pass(list(range(P)), lambda i: (i,), _concat, split_every=k)
    assert result == graph_result == tuple(range(P))
    assert record == graph_record
    assert runs_locally([np.zeros(10)] * P)


def test_lazy_or_large_data_goes_to_dask():
    from dask import delayed

    assert not runs_locally([delayed(1)])
    big = np.zeros(LOCAL_BELOW // 8 + 1)
    assert runs_locally([big])  # one partition, no client: nothing to parallelise
    assert not runs_locally([big[:10], big])
    assert {w for (w,) in map_partitions([big[:10], big], _where)} == {"thread"}
    with local_below(0):
        assert not runs_locally([np.zeros(1)])
    with pytest.raises(ValueError, match="local_below"):
        with local_below(-1):
            pass


def test_several_local_partitions_are_summarised_on_a_thread_per_core(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert run_pass([np.zeros(3)] * 4, _where, _concat)[0] == ("local",) * 4
    assert map_partitions([np.zeros(3)] * 3, _where) == [("local",)] * 3
    assert run_pass([np.zeros(3)], _where, _concat)[0] == ("here",)  # one partition: no thread
    # a pass run by a pool thread runs in that thread, not waiting on the pool it occupies
    nested = run_pass([np.zeros(3)] * 2, lambda part: run_pass([part] * 3, _where, _concat)[0], _concat)[0]
    assert nested == ("local",) * 6
    import nbparallel.engine.execution as engine

    with local_below(12345):  # the threads run in the caller's context
        assert run_pass([np.zeros(3)] * 2, lambda _: (engine._local_below.get(),), _concat)[0] == (12345, 12345)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert run_pass([np.zeros(3)] * 4, _where, _concat)[0] == ("here",) * 4


def test_a_local_pass_that_fails_raises_once_its_other_tasks_have_stopped(monkeypatch):
    """A failing partition's error reaches the caller once no other task runs (those not started are dropped),
    so that no task writes after the caller cleans up (predict_to's staging directory)."""
    import threading

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    running, finished, started, lock = [], [], [], threading.Lock()
    other_runs, failing = threading.Event(), threading.Event()

    def task(part):
        if part == 0:
            other_runs.wait(5)  # fail while another partition runs
            failing.set()
            raise RuntimeError("partition 0 failed")
        with lock:
            started.append(part)
            running.append(part)
        other_runs.set()
        failing.wait(5)  # still running when partition 0 raises
        with lock:
            running.remove(part)
            finished.append(part)
        return part

    with pytest.raises(RuntimeError, match="partition 0 failed"):
        map_partitions(list(range(8)), task)
    assert running == [] and 1 in finished
    seen = list(started)
    # both pool threads take up a new pass (a barrier of 2): every queued task of the failed pass was dequeued
    both = threading.Barrier(2, timeout=5)
    assert map_partitions([0, 1], lambda part: (both.wait(), part)[1]) == [0, 1]
    assert started == seen  # nothing started after the error reached the caller


class _Reader:
    """A partition's recipe, read by its task: ``(where it was read, its number)``."""

    def __init__(self, number):
        self.number = number

    def read(self):
        return _where(None) + (self.number,)


def test_partitions_read_by_their_tasks_run_here_without_a_graph_unless_shown_or_sent(client, monkeypatch):
    import nbparallel.engine.backends.dask as engine

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    readers = [_Reader(i) for i in range(5)]
    computed = []
    compute = engine.compute
    monkeypatch.setattr(engine, "compute", lambda *a, **k: computed.append(1) or compute(*a, **k))
    assert map_read_partitions(readers, _Reader.read) == [("local", i) for i in range(5)]
    assert not computed  # no Dask graph
    with local_below(0):
        assert map_read_partitions(readers, _Reader.read) == [("thread", i) for i in range(5)]
    assert map_read_partitions(readers, _Reader.read, verbose=True) == [("thread", i) for i in range(5)]
    with client.as_current():  # read by the workers, even when small
        assert map_read_partitions(readers, _Reader.read) == [("worker", i) for i in range(5)]
    assert len(computed) == 3


def test_small_data_stays_local_with_a_client_unless_asked(client):
    with client.as_current():
        assert set(run_pass([np.zeros(3)] * 4, _where, _concat)[0]) <= {"here", "local"}  # in this process
        with local_below(0):
            assert set(run_pass([np.zeros(3)] * 4, _where, _concat)[0]) == {"worker"}
        X, y = load_digits(return_X_y=True)
        with local_below(0):
            remote = NaiveBayes(n_partitions=3).fit(X, y)
        local = NaiveBayes(n_partitions=3).fit(X, y)
    assert remote.counts_.equals(local.counts_)
    assert remote.reduction_ == local.reduction_


def test_cross_validation_with_a_client_stays_local(client):
    from sklearn.model_selection import cross_val_score

    X, y = load_digits(return_X_y=True)
    alone = cross_val_score(NaiveBayes(), X, y, cv=3)
    def transitions():
        return client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.transition_counter)

    with client.as_current():
        before = transitions()
        with_client = cross_val_score(NaiveBayes(), X, y, cv=3)
        assert transitions() == before  # no task reached the cluster
        with local_below(0):
            NaiveBayes().fit(X, y)
        assert transitions() > before
    np.testing.assert_array_equal(alone, with_client)


def test_small_fits_with_a_client_ask_the_scheduler_nothing(client, monkeypatch):
    """Data that stays local is checked against this machine's memory: no round trip per fit or prediction."""
    from sklearn.model_selection import cross_val_score

    from nbparallel.engine.memory import available_memory

    X, y = load_digits(return_X_y=True)
    asked = []
    for name in ("scheduler_info", "nthreads"):
        original = getattr(client, name)
        monkeypatch.setattr(client, name, lambda *a, _o=original, _n=name, **k: asked.append(_n) or _o(*a, **k))
    with client.as_current():
        cross_val_score(NaiveBayes(), X, y, cv=3)
        assert asked == []
        cluster_memory = available_memory()  # no partitions: the cluster's limits
        assert asked == ["scheduler_info"]
        limits = [w["memory_limit"] for w in client.scheduler_info()["workers"].values()]
        assert cluster_memory == sum(limits)
        assert available_memory([X]) != cluster_memory or sum(limits) == 0  # this machine's free memory
        with local_below(0):
            asked.clear()
            assert available_memory([X]) == cluster_memory and asked == ["scheduler_info"]


FAILED_CLIENT = r"""
import sys, time
import numpy as np, pandas as pd
from distributed import Client
address, data = sys.argv[1], sys.argv[2]
try:
    Client(address, timeout=5)  # a TLS scheduler, no credentials
except Exception as exc:
    print("client failed:", type(exc).__name__)
else:
    sys.exit("the client connected")
import dask
assert dask.config.get("scheduler", None) == "dask.distributed", dask.config.get("scheduler", None)
from nbparallel import NaiveBayes
X = np.random.default_rng(0).integers(0, 3, (300, 4))
y = X[:, 0] % 2
assert NaiveBayes().fit(X, y).score(X, y) == 1.0
big = np.tile(X, (20000, 1))
assert NaiveBayes(n_partitions=3).fit(big, np.tile(y, 20000)).n_partitions_ == 3
model = NaiveBayes().fit(data, "y")
print("fitted", model.n_partitions_)
"""


def test_local_fits_work_after_a_failed_client(tmp_path):
    """A failed ``Client(...)`` leaves Dask's config and a broken default client behind."""
    import subprocess
    import sys

    from tests.dask_processes import ROOT, dask_cluster
    from tests.cluster.test_cluster_processes import make_tls_files

    files = make_tls_files(tmp_path, "good")
    frame = pd.DataFrame({"a": np.arange(100) % 3, "y": np.arange(100) % 2})
    for i in range(2):
        frame.to_parquet(tmp_path / f"part{i}.parquet", index=False)
    with dask_cluster(n_workers=1, tls=files) as cluster:
        result = subprocess.run([sys.executable, "-c", FAILED_CLIENT, cluster.address, str(tmp_path)],
                                capture_output=True, text=True, timeout=120, cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "client failed" in result.stdout and "fitted 2" in result.stdout


def test_import_is_lazy():
    import subprocess
    import sys

    code = ("import sys, nbparallel; heavy = {'dask', 'distributed', 'sklearn', 'numba', 'pandas'} & "
            "set(sys.modules); assert not heavy, heavy; nbparallel.load; assert 'sklearn' not in sys.modules; "
            "assert nbparallel.NaiveBayes.__name__ == 'NaiveBayes'")
    from tests.dask_processes import ROOT

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr


def test_local_passes_through_dask_leave_distributed_unimported():
    """Naming a local scheduler to dask.compute imports distributed (13 MB); its function does not."""
    import subprocess
    import sys

    code = ("import sys, numpy as np, nbparallel; X = np.arange(40).reshape(20, 2) % 3; "
            "with_graph = nbparallel.local_below(0); with_graph.__enter__(); "
            "model = nbparallel.NaiveBayes(n_partitions=4, categorical_features='all').fit(X, X[:, 0]); "
            "assert model.reduction_.n_leaves == 4; model.predict(X); "
            "assert 'dask' in sys.modules and 'distributed' not in sys.modules")
    from tests.dask_processes import ROOT

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr


def test_progress_bars_go_to_stderr_for_library_users_too(capsys):
    import numpy as np

    from nbparallel import NaiveBayes, local_below

    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 5, (2000, 3)), rng.integers(0, 2, 2000)
    with local_below(0):  # through the threaded scheduler, where the line is drawn
        NaiveBayes(verbose=1, n_partitions=2).fit(X, y).predict(X)
    out, err = capsys.readouterr()
    assert out == ""
    drawn = [line.strip() for line in err.split("\r") if line.strip()]
    # the labelled line of the commands (a label per pass), not Dask's unlabelled bar
    assert any(line.startswith("count ") and line.endswith("100%") for line in drawn), drawn
    assert any(line.startswith("score ") and line.endswith("100%") for line in drawn), drawn
    assert "Completed" not in err


def _most_at_once(n_partitions, pass_of, together):
    """``(the most partitions summarised at the same time, the threads that summarised them)`` by
    ``pass_of(partitions, fn)``, each task held at a barrier until ``together`` of them run at once: a pass that
    never runs that many at once breaks the barrier (BrokenBarrierError), one that runs more shows it in the
    count or in its threads."""
    import threading

    lock, running, most, threads = threading.Lock(), [0], [0], set()
    meet = threading.Barrier(together, timeout=30)

    def summarise(part):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            threads.add(threading.get_ident())
        meet.wait()
        with lock:
            running[0] -= 1
        return (part,)

    pass_of([np.zeros(3)] * n_partitions, summarise)
    return most[0], len(threads)


@pytest.mark.parametrize("pass_of", [lambda parts, fn: run_pass(parts, fn, _concat),
                                     lambda parts, fn: map_partitions(parts, fn)])
def test_local_passes_keep_to_dasks_num_workers(pass_of, monkeypatch):
    import dask

    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert local_threads() == available_workers() == 4
    assert _most_at_once(8, pass_of, 4) == (4, 4)  # a thread per core
    for n in (1, 2):
        with dask.config.set(num_workers=n):
            assert local_threads() == available_workers() == n
            assert _most_at_once(8, pass_of, n) == (n, n)
            with local_below(0):  # Dask's threaded scheduler keeps to the same setting
                assert _most_at_once(8, pass_of, n) == (n, n)
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, (300_000, 2), dtype=np.uint8), rng.integers(0, 2, 300_000)
    assert NaiveBayes(categorical_features="all").fit(X, y).n_partitions_ == 4  # a partition per thread
    with dask.config.set(num_workers=2):
        assert NaiveBayes(categorical_features="all").fit(X, y).n_partitions_ == 2
    for bad in (0, 1.5, "2"):
        with dask.config.set(num_workers=bad), pytest.raises(ValueError, match="num_workers"):
            local_threads()


class _CountsPickles:
    """A stand-in for a model a pass carries: it counts how often it is pickled."""

    pickled = 0

    def __reduce__(self):
        type(self).pickled += 1
        return (_CountsPickles, ())


def test_a_pass_on_dask_hashes_none_of_what_its_functions_carry():
    """The task keys of a pass come from a random part, not from hashing its functions: a pass on Dask's
    threaded scheduler never pickles the models its functions carry (cross-validation carries ten), and two
    passes over the same data get different keys, which name their kind."""
    import operator
    from functools import partial

    import dask

    from nbparallel.engine.backends.dask import pass_kind
    from nbparallel.engine.execution import pass_token

    carried = _CountsPickles()
    parts = [dask.delayed(np.arange)(10 * (i + 1)) for i in range(3)]  # lazy partitions: the pass runs on Dask
    summarize = partial(lambda model, x: int(x.sum()), carried)
    total, _ = run_pass(parts, summarize, operator.add, name="nbparallel-count", token="data")
    assert total == sum(int(np.arange(10 * (i + 1)).sum()) for i in range(3))
    assert map_partitions(parts, [summarize] * 3, name="nbparallel-score") == [45, 190, 435]
    assert _CountsPickles.pickled == 0
    first, second = pass_token("data"), pass_token("data")
    assert first != second and first.endswith("-data")
    key = type("Leaf", (), {"key": f"nbparallel-count-map-{first}-0"})()
    assert pass_kind(key) == "count"


def test_an_observer_is_told_each_pass_kind_start_progress_and_end(capsys):
    from nbparallel.engine.execution import PassObserver, local_below, observe_passes, run_pass

    class Recorder(PassObserver):
        def __init__(self):
            self.events = []

        def pass_started(self, kind):
            self.events.append(("start", kind))

        def pass_progressed(self, done, total):
            self.events.append(("progress", done, total))

        def pass_finished(self):
            self.events.append(("end",))

    recorder = Recorder()
    with local_below(0), observe_passes(recorder):
        total, _ = run_pass([1, 2, 3, 4], lambda x: x * 10, lambda *s: sum(s), name="nbparallel-tally",
                            verbose=True)
    assert total == 100
    assert recorder.events[0] == ("start", "tally") and recorder.events[-1] == ("end",)
    progress = [e for e in recorder.events if e[0] == "progress"]
    assert progress and progress[-1][1] == progress[-1][2] and all(0 < e[1] <= e[2] for e in progress)
    assert capsys.readouterr().err == ""  # the observer shows the pass; no bar of the engine's own

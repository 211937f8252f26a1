"""Fits over emulated hosts: Dask workers in network namespaces on shaped links.

A scheduler and 3 workers each run in a network namespace of their own, joined
by a bridge, every link shaped to 1 Gbit/s (``tests/netns_hosts.py``, which uses
``benchmarks/harness/netns.py``). The tests need root and ``ip``/``tc``; where
the machine refuses network namespaces they are skipped with the reason.
"""

import threading
import time

import numpy as np
import pytest

from nbparallel import NaiveBayes
from nbparallel.engine.execution import LostDataError, local_below
from tests.netns_hosts import CUT_BOUND_S, EmulatedHosts, available, cut_during_fit, holds_data, leftovers, write_data

AVAILABLE, WHY = available()
pytestmark = [pytest.mark.skipif(not AVAILABLE, reason=f"network namespaces refused on this machine: {WHY}"),
              pytest.mark.xdist_group("network namespaces")]  # one worker: no two pick a subnet at once

N_PARTITIONS = 24

#: A worker's link throttled to this rate (in and out) ...
TRICKLE = "256kbit"
#: ... must not make the fit take longer than this many seconds.
TRICKLE_BOUND_S = 30.0


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_data(tmp_path_factory.mktemp("hosts") / "data", n_files=N_PARTITIONS)


@pytest.fixture(scope="module")
def local_counts(data):
    return NaiveBayes(n_partitions=N_PARTITIONS).fit(str(data), "label").counts_


@pytest.fixture(scope="module")
def hosts():
    with EmulatedHosts(3, rate="1gbit") as emulated:
        yield emulated
    emulated.close()  # idempotent: a second close is a no-op
    assert all(proc.poll() is not None for proc in emulated._procs)
    assert not [name for name in leftovers(mine=False) if emulated.token in name]


def _fit(hosts, data):
    """Fit on the emulated hosts; returns the model and the hosts that ran tasks."""
    from distributed import Client, get_task_stream

    with Client(hosts.address, timeout=10) as client, get_task_stream(client) as stream:
        model = NaiveBayes(n_partitions=N_PARTITIONS).fit(str(data), "label")
    return model, {task["worker"] for task in stream.data}


def test_fit_over_emulated_hosts_equals_local_fit(hosts, data, local_counts):
    model, ran_on = _fit(hosts, data)
    assert (model.counts_.table == local_counts.table).all()
    assert model.classes_.tolist() == ["a", "b", "c"]
    assert model.n_partitions_ == N_PARTITIONS
    assert len(ran_on) >= 2 and ran_on <= set(hosts.worker_addresses)


def test_a_trickle_link_does_not_stall_the_fit(hosts, data, local_counts):
    hosts.shape(0, TRICKLE)
    try:
        start = time.monotonic()
        model, _ = _fit(hosts, data)
        seconds = time.monotonic() - start
    finally:
        hosts.shape(0, hosts.rate)
    assert (model.counts_.table == local_counts.table).all()
    assert seconds < TRICKLE_BOUND_S, f"a {TRICKLE} link stalled the fit for {seconds:.1f} s"


def test_a_link_cut_with_in_memory_data_gives_the_same_model_or_a_clear_error(hosts):
    """Partitions scattered from this process die with worker 1: a LostDataError, never a hang or a wrong model."""
    from distributed import Client

    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 10, (600_000, 8)).astype(np.uint8), rng.integers(0, 3, 600_000)
    local = NaiveBayes(n_partitions=12).fit(X, y).counts_
    victim, stop, cut = hosts.worker_address(1), threading.Event(), threading.Event()

    def cut_once_it_holds_data(observer):
        while not stop.wait(0.01):
            if observer.run_on_scheduler(holds_data, worker=victim):
                hosts.cut(1)
                cut.set()
                return

    with Client(hosts.address, timeout=10) as client, local_below(0):
        watcher = threading.Thread(target=cut_once_it_holds_data, args=(client,), daemon=True)
        watcher.start()
        start = time.monotonic()
        try:
            model = NaiveBayes(n_partitions=12).fit(X, y)
        except LostDataError as exc:
            assert "lost its data" in str(exc) and "cannot be recomputed" in str(exc)
        else:
            assert (model.counts_.table == local.table).all()
        finally:
            stop.set()
            watcher.join()
        assert time.monotonic() - start < CUT_BOUND_S
    assert cut.is_set(), "the link was not cut during the fit"


def test_a_link_cut_mid_pass_gives_the_same_model_or_a_clear_error(hosts, data, local_counts, tmp_path):
    """Last of the file: worker 0 stays cut, the fixture's teardown removes everything."""
    result = cut_during_fit(data, tmp_path / "model.json", local_counts, n_partitions=N_PARTITIONS, hosts=hosts)
    assert result["outcome"] in ("identical", "error")
    assert result["seconds"] < CUT_BOUND_S

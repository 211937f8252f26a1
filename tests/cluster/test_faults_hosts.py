"""Boosting over emulated hosts with a worker's link cut between two passes and during one.

A scheduler and 3 workers each in a network namespace (``tests/netns_hosts.py``);
``nbparallel fit --boost`` reads a Parquet directory, so the tasks of a worker that
goes silent are rerun elsewhere once the scheduler drops it (``worker-ttl``). The
result must equal the undisturbed run's bit for bit within :data:`CUT_BOUND_S`.
Skipped, with the reason, where the machine refuses network namespaces.
"""

import time

import pytest

from tests.cluster.test_faults import saved_rounds
from tests.faults import N_FILES, comparable, start_job
from tests.netns_hosts import CUT_BOUND_S, EmulatedHosts, available, leftovers, pass_state, write_data

AVAILABLE, WHY = available()
pytestmark = [pytest.mark.skipif(not AVAILABLE, reason=f"network namespaces refused on this machine: {WHY}"),
              pytest.mark.xdist_group("network namespaces")]  # one worker: no two pick a subnet at once


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_data(tmp_path_factory.mktemp("hosts") / "data", n_files=N_FILES, rows=20_000)


@pytest.fixture(scope="module")
def hosts():
    with EmulatedHosts(3, rate="1gbit") as emulated:
        yield emulated
    assert not [name for name in leftovers(mine=False) if emulated.token in name]


@pytest.fixture(scope="module")
def undisturbed(hosts, data, tmp_path_factory):
    job, out = start_job("boost", data, tmp_path_factory.mktemp("reference"), ["--scheduler", hosts.address])
    _, stderr = job.communicate(timeout=CUT_BOUND_S)
    assert job.returncode == 0, stderr
    return comparable(out.read_text())


def boost_with_a_cut(hosts, data, workdir, worker, during_pass):
    """Boost on the hosts and cut ``worker``'s link after the first checkpoint: at once (between
    two passes) or once that worker counts in the next pass; return (result, seconds)."""
    from distributed import Client

    start = time.monotonic()
    job, out = start_job("boost", data, workdir, ["--scheduler", hosts.address])
    try:
        with Client(hosts.address, timeout=10, set_as_default=False) as observer:
            while job.poll() is None and time.monotonic() - start < CUT_BOUND_S:
                if saved_rounds(workdir / "checkpoint.json") and (
                        not during_pass or observer.run_on_scheduler(
                            pass_state, worker=hosts.worker_address(worker))[1]):
                    hosts.cut(worker)
                    break
                time.sleep(0.002)
            assert job.poll() is None, "the job ended before the link was cut"
        _, stderr = job.communicate(timeout=CUT_BOUND_S)
    finally:
        if job.poll() is None:
            job.kill()
            job.communicate()
    assert job.returncode == 0, stderr
    return comparable(out.read_text()), time.monotonic() - start


def test_link_cut_between_passes(hosts, data, undisturbed, tmp_path):
    result, seconds = boost_with_a_cut(hosts, data, tmp_path, worker=1, during_pass=False)
    assert result == undisturbed
    assert seconds < CUT_BOUND_S


def test_link_cut_during_a_pass(hosts, data, undisturbed, tmp_path):
    result, seconds = boost_with_a_cut(hosts, data, tmp_path, worker=2, during_pass=True)
    assert result == undisturbed
    assert seconds < CUT_BOUND_S

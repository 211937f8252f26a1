"""Boosting over emulated hosts with one worker's link cut between two passes and another's during one.

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
from tests.waiting import wait_until

AVAILABLE, WHY = available()
pytestmark = [pytest.mark.skipif(not AVAILABLE, reason=f"network namespaces refused on this machine: {WHY}"),
              pytest.mark.xdist_group("network namespaces")]  # one worker: no two pick a subnet at once


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_data(tmp_path_factory.mktemp("hosts") / "data", n_files=N_FILES, rows=10_000)


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


def test_links_cut_between_passes_and_during_one(hosts, data, undisturbed, tmp_path):
    """Worker 1's link is cut right after the first checkpoint (between two boosting passes), worker 2's
    once it counts in a later pass; the result is the undisturbed one, within the bound."""
    from distributed import Client

    start = time.monotonic()
    job, out = start_job("boost", data, tmp_path, ["--scheduler", hosts.address])
    cuts = []

    def cut_at_its_moment():
        """Cut the next link once its moment has come; true once both are cut or the job has ended."""
        if not cuts and saved_rounds(tmp_path / "checkpoint.json"):
            hosts.cut(1)
            cuts.append(("between passes", saved_rounds(tmp_path / "checkpoint.json")))
        elif cuts and observer.run_on_scheduler(pass_state, worker=hosts.worker_address(2))[1]:
            hosts.cut(2)
            cuts.append(("during a pass", saved_rounds(tmp_path / "checkpoint.json")))
        return len(cuts) == 2 or job.poll() is not None

    try:
        with Client(hosts.address, timeout=10, set_as_default=False) as observer:
            wait_until(cut_at_its_moment, CUT_BOUND_S, "both links cut", interval=0.002)
        _, stderr = job.communicate(timeout=CUT_BOUND_S)
    finally:
        if job.poll() is None:
            job.kill()
            job.communicate()
    assert [c[0] for c in cuts] == ["between passes", "during a pass"], cuts
    assert cuts[1][1] < 5, f"the second cut came after the last round: {cuts}"
    assert job.returncode == 0, stderr
    assert comparable(out.read_text()) == undisturbed
    assert time.monotonic() - start < CUT_BOUND_S

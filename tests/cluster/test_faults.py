"""Multi-pass jobs under faults and load on a scheduler and 3 worker processes on 127.0.0.1.

A sample of the soak's scenarios (``python -m tests.faults``): a worker SIGKILLed
during a counting pass, between passes, during a merge or at a checkpoint write,
one or two per job, a fresh worker joining; every worker gone; a client killed and
rerun from its checkpoint; four clients at once; a cluster busy with another
client's work. Each result must equal the undisturbed one bit for bit (timings aside).
"""

import json
import time

import numpy as np
import pytest

from tests.dask_processes import dask_cluster, sigkill
from tests.faults import N_FILES, Workers, comparable, run_job, start_job, wait_for_workers
from tests.netns_hosts import write_data
from tests.waiting import wait_until

#: Seconds within which a job whose workers are all gone must fail.
NO_WORKERS_BOUND_S = 30.0


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_data(tmp_path_factory.mktemp("faults") / "data", n_files=N_FILES, rows=10_000)


@pytest.fixture(scope="module")
def cluster():
    """A scheduler, 3 workers (killed ones replaced by fresh ones), and an observing client."""
    from distributed import Client

    with dask_cluster(n_workers=3, nthreads=1) as (address, initial), \
            Client(address, timeout=10, set_as_default=False) as observer:
        workers = Workers(address, initial)
        try:
            yield address, workers, observer
        finally:
            workers.close()


@pytest.fixture(scope="module")
def reference(data, cluster, tmp_path_factory):
    """The undisturbed result of each kind of job, computed once on first use."""
    results = {}

    def result(kind):
        if kind not in results:
            status, text, stderr, _ = run_job(kind, data, tmp_path_factory.mktemp(f"ref-{kind}"), cluster[0])
            assert status == 0, stderr
            results[kind] = comparable(text)
        return results[kind]
    return result


@pytest.mark.parametrize("kind, moments", [
    ("boost", ["pass"]), ("boost", ["between"]), ("cv", ["pass"]), ("cv", ["between"]),
    ("autoclass", ["merge", "checkpoint"]),
])
def test_job_survives_killed_workers(kind, moments, data, cluster, reference, tmp_path):
    address, workers, observer = cluster
    expected = reference(kind)
    wait_for_workers(observer, 3)
    status, text, stderr, faults = run_job(kind, data, tmp_path, address, moments=moments, workers=workers,
                                           observer=observer, rng=np.random.default_rng(0))
    assert [m for m, victim, _ in faults if victim is not None] == moments, f"a fault missed its moment: {faults}"
    assert status == 0, stderr
    assert comparable(text) == expected


@pytest.mark.parametrize("kind", ["boost", "autoclass"])
def test_client_killed_resumes_from_its_checkpoint(kind, data, cluster, reference, tmp_path):
    address, _, observer = cluster
    expected = reference(kind)
    wait_for_workers(observer, 3)
    job, out = start_job(kind, data, tmp_path, ["--scheduler", address])
    checkpoint = tmp_path / "checkpoint.json"
    wait_until(lambda: job.poll() is not None or checkpoint.exists(), 60, "the job's first checkpoint")
    assert job.poll() is None, "the job ended before its first checkpoint"
    assert sigkill(job) == -9
    assert checkpoint.exists() and not out.exists()
    status, text, stderr, _ = run_job(kind, data, tmp_path, address)
    assert status == 0, stderr
    # the same model; its record of passes says the rerun made fewer passes than the whole job
    assert comparable(text, ignore=["passes"]) == comparable(expected, ignore=["passes"])
    passes, whole = (len(json.loads(t)["fitted"]["passes"]) for t in (text, expected))
    assert passes < whole


def saved_rounds(checkpoint):
    """Boosting rounds a checkpoint file holds (0 when absent or being replaced)."""
    try:
        return len(json.loads(checkpoint.read_text())["state"]["rounds"])
    except (OSError, ValueError, KeyError):
        return 0


def test_four_clients_at_once_get_the_models_they_get_alone(data, cluster, reference, tmp_path):
    address, _, observer = cluster
    kinds = ["fit", "boost", "select", "autoclass"]
    expected = {kind: reference(kind) for kind in kinds}
    wait_for_workers(observer, 3)
    jobs = {kind: start_job(kind, data, tmp_path / kind, ["--scheduler", address]) for kind in kinds}
    for kind, (job, out) in jobs.items():
        _, stderr = job.communicate(timeout=120)
        assert job.returncode == 0, stderr
        assert comparable(out.read_text()) == expected[kind], kind


def test_fit_on_a_busy_cluster_gets_the_same_model(data, cluster, reference, tmp_path):
    address, _, observer = cluster
    expected = reference("boost")
    wait_for_workers(observer, 3)
    busy = observer.map(time.sleep, [0.2] * 30, pure=False)  # sleep: another client's work, queued first, by design
    try:
        status, text, stderr, _ = run_job("boost", data, tmp_path, address)
        assert status == 0, stderr
        assert sum(f.status == "finished" for f in busy) >= 1  # the cluster did run the other work meanwhile
    finally:
        observer.cancel(busy)
    assert comparable(text) == expected


def test_job_without_any_worker_fails_with_one_error_and_no_model(data, tmp_path):
    with dask_cluster(n_workers=3, nthreads=1) as (address, workers):
        config = tmp_path / "cluster.yaml"
        config.write_text(f"kind: scheduler\nno_workers_timeout: 1\noptions: {{address: '{address}'}}\n")
        job, out = start_job("boost", data, tmp_path / "job", ["--cluster", str(config)])
        checkpoint = tmp_path / "job" / "checkpoint.json"
        # kill them between two boosting passes
        wait_until(lambda: job.poll() is not None or saved_rounds(checkpoint), 60, "the job's first saved round")
        assert job.poll() is None, "the job ended before its first checkpoint"
        assert [sigkill(w) for w in workers] == [-9, -9, -9]
        start = time.monotonic()
        _, stderr = job.communicate(timeout=NO_WORKERS_BOUND_S + 30)
        assert time.monotonic() - start < NO_WORKERS_BOUND_S
    assert job.returncode == 2, stderr
    lines = [line for line in stderr.strip().splitlines() if not line.startswith("Dask dashboard:")]
    assert len(lines) == 1 and "without any running workers for 1 s" in lines[0], stderr
    assert not out.exists()
    assert sorted(p.name for p in out.parent.iterdir()) == ["checkpoint.json"]  # no temporary left

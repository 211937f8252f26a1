"""Fits on workers with a small memory limit (512 MB each, under nannies) on 127.0.0.1.

A Parquet directory of 2 million rows gives the model of unlimited workers and no
worker is restarted; count tables too large for one worker are refused before the
fit with one clear error, never a loop of nanny restarts.
"""

import os

import numpy as np
import pandas as pd
import pytest

from nbparallel import NaiveBayes
from tests.dask_processes import dask_cluster

N_FILES, ROWS_PER_FILE = 8, 250_000
MEMORY_LIMIT = "512MB"


@pytest.fixture(scope="module")
def parquet_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("memory") / "data"
    directory.mkdir()
    for i in range(N_FILES):
        rng = np.random.default_rng(i)
        label = rng.integers(0, 3, ROWS_PER_FILE)
        frame = pd.DataFrame({f"c{j}": (rng.integers(0, 8, ROWS_PER_FILE) + label * j) % 10 for j in range(5)}
                             | {"x": rng.normal(label, 1.0, ROWS_PER_FILE), "label": label})
        frame.to_parquet(directory / f"part-{i:03d}.parquet", index=False)
    return directory


@pytest.fixture(scope="module")
def limited():
    """A scheduler and 3 workers limited to 512 MB each, and a client of them."""
    from distributed import Client

    # not paused at 80% of the limit: a worker whose first tasks compile the kernels (a cold numba cache) can
    # stay above it, and a paused worker never runs another task (the fit would wait forever)
    with dask_cluster(n_workers=3, nthreads=1, memory_limit=MEMORY_LIMIT,
                      worker_config={"distributed.worker.memory.pause": False}) as (address, _), \
            Client(address, timeout=10, set_as_default=False) as client:
        yield client


def worker_pids(client):
    """{worker name: process id}: a nanny's restart changes it."""
    names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
    return {names[a]: pid for a, pid in client.run(os.getpid).items()}


def test_memory_limited_workers_fit_the_same_model(limited, parquet_dir):
    local = NaiveBayes(n_partitions=N_FILES).fit(str(parquet_dir), "label")
    before = worker_pids(limited)
    assert len(before) == 3
    with limited.as_current():
        model = NaiveBayes(n_partitions=N_FILES).fit(str(parquet_dir), "label")
    np.testing.assert_array_equal(model.counts_.table, local.counts_.table)
    np.testing.assert_array_equal(model.counts_.class_totals, local.counts_.class_totals)
    assert model.counts_.class_totals.sum() == N_FILES * ROWS_PER_FILE
    assert worker_pids(limited) == before, "a worker was restarted"


@pytest.fixture(scope="module")
def wide_dir(tmp_path_factory):
    """1 million rows of 3 columns of 60,000 categories and 150 classes: 216 MB count tables."""
    directory = tmp_path_factory.mktemp("memory") / "wide"
    directory.mkdir()
    classes = np.array([f"c{j}" for j in range(150)])
    for i in range(4):
        rng = np.random.default_rng(i)
        rows = np.arange(i * 250_000, (i + 1) * 250_000)
        frame = pd.DataFrame({f"id{k}": rows * (k + 1) % 60_000 for k in range(3)}
                             | {"x": rng.normal(size=rows.size), "label": classes[rng.integers(0, 150, rows.size)]})
        frame.to_parquet(directory / f"part-{i}.parquet", index=False)
    return directory


def test_count_tables_beyond_one_worker_are_refused_before_the_fit(limited, wide_dir):
    # The tables (216 MB, 1.1 GB for the whole pass) fit in the 3 workers' 1.5 GB together, but a
    # merge holds three: without the check of one task against one worker, every worker that ran
    # it was killed by its nanny, four times, before a KilledWorker error.
    before = worker_pids(limited)
    with limited.as_current(), pytest.raises(ValueError) as info:
        NaiveBayes(n_partitions=4, categorical_features=["id0", "id1", "id2"]).fit(str(wide_dir), "label")
    message = str(info.value)
    assert "count tables of 150 classes" in message and "in one task" in message, message
    assert "memory limit of 488.3 MiB" in message and "fewer categorical values" in message, message
    assert worker_pids(limited) == before, "a worker was restarted"


def test_a_column_of_a_million_categories_is_refused_in_the_schema_pass(limited, tmp_path):
    # Each partition holds 250,000 distinct ids: the schema pass's sets of values once filled a merge's
    # worker beyond its limit, four workers killed in turn; now the partition's task refuses the column.
    for i in range(4):
        rng = np.random.default_rng(i)
        frame = pd.DataFrame({"id": np.arange(i * 250_000, (i + 1) * 250_000), "x": rng.normal(size=250_000),
                              "label": rng.integers(0, 3, 250_000)})
        frame.to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    before = worker_pids(limited)
    with limited.as_current(), pytest.raises(ValueError) as info:
        NaiveBayes(n_partitions=4, categorical_features=["id"]).fit(str(tmp_path), "label")
    assert str(info.value) == ("column 'id' has more than 65534 categories (at least 250000); "
                               "at most 65534 are supported")
    assert worker_pids(limited) == before, "a worker was restarted"

"""A task that fails once is run again by its engine, and the result is the one an undisturbed run gives.

On Spark (``local[2,2]``: each task tried twice) the input DataFrame's rows fail the first time one partition
is read: the counting pass's task fails and Spark runs it again. On Ray the worker process running one block's
task dies (``os._exit``) the first time: Ray runs the task again on a new worker. The failure is injected once,
through a marker file that the first try creates.
"""

from __future__ import annotations

import os

import pytest
import ray
import ray.data

from nbparallel import NaiveBayes, run_pass
from nbparallel.engine.backends.ray import ray_blocks
from tests.engine.spark_sessions import mixed_frame, session


class FailOnce:
    """Partition ``index``'s first try (in any process) fails: :meth:`first_time` says when."""

    def __init__(self, marker, index):
        self.marker, self.index = str(marker), index

    def first_time(self, index):
        """True once: for partition ``index``'s first try."""
        if index != self.index:
            return False
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL))  # atomic: one try only creates it
        except FileExistsError:
            return False
        return True

    def __call__(self, batches):
        """Spark's mapInArrow: the partition's batches as they are, the first try of one partition failed."""
        from pyspark import TaskContext

        if self.first_time(TaskContext.get().partitionId()):
            raise RuntimeError("injected failure")
        yield from batches


@pytest.mark.xdist_group("spark")
def test_spark_runs_a_failed_task_again_and_the_model_is_the_same(tmp_path):
    spark = session("classic")
    frame = spark.createDataFrame(mixed_frame()).repartition(3)
    expected = NaiveBayes().fit(frame, "label")
    failing = frame.mapInArrow(FailOnce(tmp_path / "failed", 1), frame.schema)
    model = NaiveBayes().fit(failing, "label")
    assert (tmp_path / "failed").exists()  # the failure happened
    assert model.counts_.equals(expected.counts_) and model.schema_.to_dict() == expected.schema_.to_dict()


def _rows_or_die(marker, table):
    if FailOnce(marker, 0).first_time(0) and table.num_rows:
        os._exit(1)  # the worker process dies mid-task
    return table.num_rows


@pytest.mark.xdist_group("ray")
def test_ray_runs_the_task_of_a_dead_worker_again_and_the_pass_is_the_same(tmp_path):
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        blocks = ray_blocks(ray.data.from_pandas(mixed_frame()).repartition(3).materialize())
        expected, _ = run_pass(blocks, lambda t: t.num_rows, lambda *s: sum(s))
        counted, record = run_pass(blocks, lambda t: _rows_or_die(tmp_path / "died", t), lambda *s: sum(s))
    finally:
        ray.shutdown()
    assert (tmp_path / "died").exists()
    assert counted == expected == len(mixed_frame()) and record.n_leaves == 3

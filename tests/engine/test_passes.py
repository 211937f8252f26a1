"""The pass scheduler: records, persistence, per-partition state, checkpoints."""

import json

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.delayed import Delayed

from nbparallel.data.inputs import as_dataset
from nbparallel.data.schema_pass import schema_pass
from nbparallel.engine.memory import fits_in_memory
from nbparallel.engine.recipes import Block
from nbparallel.engine.scheduler import PassScheduler
from nbparallel.persistence.checkpoints import Checkpoint


def row_sum(X, y, w):
    return float(np.nansum(np.asarray(X, dtype=float)))


def add(*parts):
    return sum(parts)


def count_rebuilds(state, X, y, w):
    """State: the number of passes this partition has kept it; summary: rebuilt (1) or not (0)."""
    return (0 if state is None else state + 1), int(state is None)


def frame_dataset(n_partitions):
    frame = pd.DataFrame({"a": np.arange(40.0), "b": np.arange(40.0) % 3})
    return as_dataset(dd.from_pandas(frame, npartitions=n_partitions), require_target=False)


def test_fits_in_memory():
    assert fits_in_memory(10, 100) and not fits_in_memory(60, 100) and fits_in_memory(60, None)


def test_records_every_pass(monkeypatch):
    import types

    import nbparallel.engine.scheduler as scheduler_module

    scheduler = PassScheduler(frame_dataset(4), split_every=2, persist=False)
    schema_pass(scheduler, n_bins=5)
    clock = iter([10.0, 10.75])  # the sum pass's start and end: its recorded duration is the one measured
    monkeypatch.setattr(scheduler_module, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    assert scheduler.run("sum", row_sum, add) == float(np.arange(40.0).sum() + (np.arange(40) % 3).sum())
    assert [p["kind"] for p in scheduler.passes] == ["schema", "sum"]
    assert all(p["tree"].n_leaves == 4 and p["tree"].height == 2 for p in scheduler.passes)
    assert scheduler.passes[1]["seconds"] == 0.75


@pytest.mark.parametrize("persist", [True, "auto"])
def test_persisting_keeps_partitions_and_state(persist):
    scheduler = PassScheduler(frame_dataset(3), persist=persist)
    schema_pass(scheduler, n_bins=5)
    assert scheduler.persisted
    kept = [p.handles[0] for p in scheduler.dataset.partitions if isinstance(p, Block) and p.fn is None]
    assert len(kept) == 3 and all(isinstance(k, Delayed) and len(k.dask) == 1 for k in kept)  # computed once
    assert [scheduler.run_stateful("state", count_rebuilds, add) for _ in range(3)] == [3, 0, 0]


def test_without_persisting_the_state_is_rebuilt():
    scheduler = PassScheduler(frame_dataset(3), persist=False)
    assert not scheduler.persisted
    assert [scheduler.run_stateful("state", count_rebuilds, add) for _ in range(2)] == [3, 3]


def test_rejects_unknown_persist():
    with pytest.raises(ValueError, match="persist"):
        PassScheduler(frame_dataset(1), persist="sometimes")


def test_disabled_checkpoint_writes_and_reads_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Checkpoint(None, {}).save({"ignored": True})
    assert list(tmp_path.iterdir()) == []
    assert Checkpoint(None, {}).load() is None


def test_checkpoint_round_trip_and_fingerprint(tmp_path):
    path = tmp_path / "state.json"
    Checkpoint(path, {"data": 1}).save({"step": 3})
    assert Checkpoint(path, {"data": 1}).load() == {"step": 3}
    with pytest.warns(UserWarning, match="other data"):
        assert Checkpoint(path, {"data": 2}).load() is None
    assert Checkpoint(tmp_path / "absent.json", {}).load() is None
    assert json.loads(path.read_text())["format"] == "nbparallel-checkpoint"

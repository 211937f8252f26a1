"""The backend seam: which backend runs a pass, and the recipes every backend makes its partitions from."""

import operator
from functools import partial

import numpy as np
from dask import delayed

from nbparallel.engine.backends.dask import DaskBackend
from nbparallel.engine.backends.local import LocalBackend
from nbparallel.engine.execution import backend_for, local_below, local_threads, map_partitions, run_pass
from nbparallel.engine.recipes import Block, Read


def _rows(start, stop):
    return np.arange(start, stop)


def _concat(*parts):
    return sum(parts, ())


def test_small_in_memory_data_runs_locally_and_recipes_or_large_data_on_dask():
    assert isinstance(backend_for([np.zeros(3)] * 2), LocalBackend)
    assert isinstance(backend_for([Read(partial(_rows, 0, 3), key="read-0")]), DaskBackend)
    with local_below(0):
        assert isinstance(backend_for([np.zeros(3)] * 2), DaskBackend)
    assert backend_for().in_process  # no cluster: Dask's threaded scheduler runs here


def test_recipes_are_made_where_their_task_runs():
    read = Read(partial(_rows, 0, 3), key="nbparallel-read-test-0")
    block = Block((delayed(_rows)(3, 7), None), lambda rows, none, offset: (rows + offset, none), (10,))
    plain = Block((delayed(_rows)(7, 9),))
    got = map_partitions([read, block, plain], lambda part: part)
    np.testing.assert_array_equal(got[0], [0, 1, 2])
    np.testing.assert_array_equal(got[1][0], [13, 14, 15, 16])
    assert got[1][1] is None
    np.testing.assert_array_equal(got[2], [7, 8])


def test_every_backend_merges_along_the_same_tree():
    parts = [(i,) for i in range(11)]
    fns = [lambda part: part] * len(parts)
    local = LocalBackend(local_threads).map_reduce(parts, fns, _concat, 3, name="t", token="a")
    on_dask = DaskBackend(None, local_threads).map_reduce(parts, fns, _concat, 3, name="t", token="a")
    assert local == on_dask and local[0] == tuple(range(11)) and local[1].height == 3  # ceil(log3 11)
    recipes = [Read(partial(operator.add, (i,), ()), key=f"nbparallel-read-tree-{i}") for i in range(11)]
    assert run_pass(recipes, lambda part: part, _concat, split_every=3) == local


def test_stateful_passes_keep_their_states_on_every_backend():
    parts = [np.arange(4.0) + i for i in range(3)]

    def step(part, state):
        state = 0 if state is None else state + 1
        return state, float(part.sum()) * state

    for backend in (LocalBackend(local_threads), DaskBackend(None, local_threads)):
        states = [None] * 3
        for expected in (0, 1, 2):
            summary, record, states = backend.map_reduce_stateful(parts, states, [step] * 3, operator.add, 2,
                                                                  keep=True, name="s", token=f"t{expected}")
            assert states == [expected] * 3 and record.height == 2
            assert summary == expected * sum(float(p.sum()) for p in parts)

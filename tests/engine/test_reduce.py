"""The binary-tree reduction: its shape, its order and its Dask graph."""

import math

import dask
import pytest
from dask import delayed

from nbparallel.engine.execution import run_pass
from nbparallel.engine.backends.dask import tree_reduce


def concat(*parts):
    return sum(parts, ())


@pytest.mark.parametrize("P", list(range(1, 40)) + [64, 100, 1000, 1024])
def test_fan_in_two_gives_height_ceil_log2_p(P):
    result, record = run_pass(list(range(P)), lambda i: (i,), concat)
    assert result == tuple(range(P))  # merged in partition index order
    assert record.n_leaves == P
    assert record.height == math.ceil(math.log2(P))
    assert record.n_merges == P - 1
    assert record.max_fan_in == (2 if P > 1 else 0)


@pytest.mark.parametrize("k", [3, 4, 8])
@pytest.mark.parametrize("P", [1, 2, 5, 9, 27, 64, 100])
def test_fan_in_k(P, k):
    result, record = run_pass(list(range(P)), lambda i: (i,), concat, split_every=k)
    assert result == tuple(range(P))
    assert record.height == (math.ceil(round(math.log(P, k), 9)) if P > 1 else 0)
    assert record.max_fan_in <= k


def test_flat_merge_is_one_task():
    result, record = run_pass(list(range(17)), lambda i: (i,), concat, split_every=False)
    assert result == tuple(range(17))
    assert (record.height, record.n_merges, record.max_fan_in) == (1, 1, 17)


def test_graph_shape_matches_record():
    leaves = [delayed(lambda i: (i,))(i, dask_key_name=f"leaf-{i}") for i in range(11)]
    root, record = tree_reduce(leaves, concat, 2, name="t")
    graph = dict(root.__dask_graph__())
    merges = [k for k in graph if str(k).startswith("t-merge")]
    assert len(merges) == record.n_merges == 10
    deps = {k: len(v) for k, v in root.dask.dependencies.items() if str(k).startswith("t-merge")}
    assert max(deps.values()) == 2
    assert dask.compute(root)[0] == tuple(range(11))


def test_same_inputs_give_same_keys():
    leaves = [delayed(i, name=f"x-{i}") for i in range(5)]
    a, _ = tree_reduce(leaves, concat, 2, name="same")
    b, _ = tree_reduce(leaves, concat, 2, name="same")
    assert a.key == b.key
    assert sorted(map(str, a.__dask_graph__())) == sorted(map(str, b.__dask_graph__()))


@pytest.mark.parametrize("bad, error", [(1, ValueError), (0, ValueError), (2.5, TypeError), ("2", TypeError)])
def test_bad_split_every(bad, error):
    with pytest.raises(error, match="split_every"):
        run_pass([1, 2, 3], lambda i: i, max, split_every=bad)


def test_zero_partitions_is_an_error():
    with pytest.raises(ValueError, match="zero partitions"):
        tree_reduce([], concat)

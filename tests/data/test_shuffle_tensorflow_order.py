"""Dataset.shuffle gives TensorFlow's order for a global and op seed.

The expected orders were recorded with TensorFlow 2.21 by running the same definitions
(`import tensorflow as tf`, then `[int(x) for x in ds]`) in a fresh process."""

import runtime as rt


def _order(ds):
    return [int(x) for x in ds]


def test_seeded_shuffles_follow_tensorflow():
    rt.random.set_seed(0)
    ds = rt.data.Dataset.range(10).shuffle(4, seed=123)
    # a reshuffling dataset draws new seeds each iteration, as TensorFlow's does
    assert _order(ds) == [1, 2, 0, 6, 7, 5, 8, 4, 9, 3]
    assert _order(ds) == [2, 4, 0, 1, 5, 8, 6, 7, 3, 9]
    ds = rt.data.Dataset.range(10).shuffle(100, seed=5, reshuffle_each_iteration=False)
    assert _order(ds) == _order(ds) == [4, 0, 7, 5, 1, 2, 8, 9, 6, 3]


def test_op_seeds_come_from_the_global_seeds_sequence():
    rt.random.set_seed(7)
    assert _order(rt.data.Dataset.range(12).shuffle(5)) == [3, 5, 2, 6, 7, 1, 4, 11, 0, 9, 8, 10]
    assert _order(rt.data.Dataset.range(12).shuffle(12)) == [8, 10, 9, 1, 11, 6, 3, 0, 7, 5, 2, 4]


def test_an_op_seed_alone_pairs_with_tensorflows_default_graph_seed():
    rt.random.set_seed(None)
    assert _order(rt.data.Dataset.range(8).shuffle(8, seed=42)) == [1, 4, 0, 6, 5, 2, 3, 7]


def test_unseeded_shuffles_are_permutations():
    rt.random.set_seed(None)
    ds = rt.data.Dataset.range(50).shuffle(7)
    assert sorted(_order(ds)) == list(range(50))

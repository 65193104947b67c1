"""tf.space_to_batch(_nd) / batch_to_space / required_space_to_batch_paddings, dynamic_stitch,
edit_distance, is_symbolic_tensor and timestamp: TensorFlow's docstring examples and NumPy."""

from __future__ import annotations

import time

import numpy as np
import pytest

import runtime as rt


def test_space_to_batch_docstring_examples():
    x = np.array([[[[1], [2]], [[3], [4]]]], np.float32)
    np.testing.assert_array_equal(rt.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]).numpy(),
                                  [[[[1]]], [[[2]]], [[[3]]], [[[4]]]])
    x = np.array([[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]], np.float32)
    np.testing.assert_array_equal(rt.space_to_batch(x, [2, 2], [[0, 0], [0, 0]]).numpy(),
                                  [[[[1, 2, 3]]], [[[4, 5, 6]]], [[[7, 8, 9]]],
                                   [[[10, 11, 12]]]])
    x = np.arange(1, 17, dtype=np.float32).reshape(1, 4, 4, 1)
    np.testing.assert_array_equal(rt.nn.space_to_batch(x, [2, 2], [[0, 0], [0, 0]]).numpy(),
                                  [[[[1], [3]], [[9], [11]]], [[[2], [4]], [[10], [12]]],
                                   [[[5], [7]], [[13], [15]]], [[[6], [8]], [[14], [16]]]])
    # batch_to_space's docstring: the inverse
    y = np.array([[[[1]]], [[[2]]], [[[3]]], [[[4]]]], np.float32)
    np.testing.assert_array_equal(rt.batch_to_space(y, [2, 2], [[0, 0], [0, 0]]).numpy(),
                                  [[[[1], [2]], [[3], [4]]]])


def test_round_trip_with_padding_and_gradient():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 7, 3))
    paddings, crops = rt.required_space_to_batch_paddings([5, 7], [2, 3])
    np.testing.assert_array_equal(paddings.numpy(), [[0, 1], [0, 2]])
    np.testing.assert_array_equal(crops.numpy(), [[0, 1], [0, 2]])
    y = rt.space_to_batch_nd(x, [2, 3], paddings)
    assert y.shape.as_list() == [12, 3, 3, 3]
    np.testing.assert_allclose(rt.batch_to_space(y, [2, 3], crops).numpy(), x)
    # element (b, i, j) of the padded input lands in batch (i % 2 * 3 + j % 3) * 2 + b
    padded = np.pad(x, [(0, 0), (0, 1), (0, 2), (0, 0)])
    np.testing.assert_allclose(y.numpy()[(1 * 3 + 2) * 2 + 1, 2, 1], padded[1, 5, 5])
    w = rng.normal(size=(12, 3, 3, 3))
    t = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(t)
        s = rt.reduce_sum(rt.space_to_batch_nd(t, [2, 3], paddings) * w)
    np.testing.assert_allclose(tape.gradient(s, t).numpy(),
                               rt.batch_to_space(w, [2, 3], crops).numpy())
    base = rt.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 2]])
    np.testing.assert_array_equal(base[0].numpy(), [[1, 0], [0, 2]])
    with pytest.raises(rt.errors.InvalidArgumentError, match="divisible"):
        rt.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])


def test_dynamic_stitch_docstring_examples():
    indices = [rt.constant(6), [4, 1], [[5, 2], [0, 3]]]
    data = [[61.0, 62.0], [[41.0, 42.0], [11.0, 12.0]],
            [[[51.0, 52.0], [21.0, 22.0]], [[1.0, 2.0], [31.0, 32.0]]]]
    np.testing.assert_array_equal(
        rt.dynamic_stitch(indices, data).numpy(),
        [[1, 2], [11, 12], [21, 22], [31, 32], [41, 42], [51, 52], [61, 62]])
    # a repeated index: the later value wins
    np.testing.assert_array_equal(
        rt.dynamic_stitch([[0, 2], [1, 2]], [[1.0, 2.0], [3.0, 4.0]]).numpy(), [1, 3, 4])


def test_edit_distance_docstring_example():
    hypothesis = rt.SparseTensor([[0, 0, 0], [1, 0, 0]], ["a", "b"], (2, 1, 1))
    truth = rt.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], ["a", "b", "c", "a"],
                            (2, 2, 2))
    np.testing.assert_array_equal(rt.edit_distance(hypothesis, truth).numpy(),
                                  [[np.inf, 1.0], [0.5, 1.0]])
    np.testing.assert_array_equal(rt.edit_distance(hypothesis, truth, normalize=False).numpy(),
                                  [[1.0, 1.0], [1.0, 1.0]])
    staged = rt.function(lambda h, t: rt.edit_distance(h, t, normalize=False))
    np.testing.assert_array_equal(staged(hypothesis, truth).numpy(), [[1.0, 1.0], [1.0, 1.0]])
    kitten = rt.SparseTensor([[0, i] for i in range(6)], list(b"kitten"), (1, 6))
    sitting = rt.SparseTensor([[0, i] for i in range(7)], list(b"sitting"), (1, 7))
    assert rt.edit_distance(kitten, sitting, normalize=False).numpy().tolist() == [3.0]
    with pytest.raises(TypeError, match="SparseTensor"):
        rt.edit_distance([1], sitting)


def test_is_symbolic_tensor_and_timestamp():
    assert not rt.is_symbolic_tensor(rt.constant(1.0))
    seen = []
    rt.function(lambda x: seen.append(rt.is_symbolic_tensor(x)) or x)(rt.constant(1.0))
    assert seen == [True]
    before = time.time()
    stamp = rt.timestamp()
    assert stamp.dtype == rt.float64 and before <= float(stamp) <= time.time()
    clock = rt.function(lambda: rt.timestamp())
    first = float(clock())
    assert float(clock()) >= first  # read at each call, not once while tracing

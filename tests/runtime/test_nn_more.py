"""tf.nn.approx_max_k / approx_min_k, batch_norm_with_global_normalization, pool,
collapse_repeated and the depthwise convolution gradients: NumPy, TensorFlow's docstring
examples, and the tape's own gradients."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

RNG = np.random.default_rng(0)


def test_approx_top_k_is_exact():
    x = RNG.normal(size=(3, 5)).astype(np.float32)
    values, indices = rt.math.approx_max_k(x, 2)
    np.testing.assert_array_equal(indices.numpy(), np.argsort(-x, axis=1)[:, :2])
    np.testing.assert_array_equal(values.numpy(), -np.sort(-x, axis=1)[:, :2])
    values, indices = rt.nn.approx_min_k(x, 2, reduction_dimension=0)
    np.testing.assert_array_equal(indices.numpy(), np.argsort(x, axis=0)[:2])
    np.testing.assert_array_equal(values.numpy(), np.sort(x, axis=0)[:2])


def test_batch_norm_with_global_normalization():
    t = RNG.normal(size=(2, 4, 3)).astype(np.float32)
    m, v, b, g = (RNG.uniform(0.5, 1.5, size=3).astype(np.float32) for _ in range(4))
    for scale in (True, False):
        want = (t - m) / np.sqrt(v + 1e-3) * (g if scale else 1) + b
        got = rt.nn.batch_norm_with_global_normalization(t, m, v, b, g, 1e-3, scale)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


def test_pool():
    x = RNG.normal(size=(1, 4, 4, 2)).astype(np.float32)
    got = rt.nn.pool(x, [2, 2], "MAX", strides=[2, 2])
    want = x.reshape(1, 2, 2, 2, 2, 2).max(axis=(2, 4))
    np.testing.assert_allclose(got.numpy(), want)
    avg = rt.nn.pool(x, [2, 2], "AVG", strides=[2, 2])
    np.testing.assert_allclose(avg.numpy(), x.reshape(1, 2, 2, 2, 2, 2).mean(axis=(2, 4)),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="pooling_type"):
        rt.nn.pool(x, [2, 2], "SUM")


def test_collapse_repeated():
    labels, lengths = rt.nn.collapse_repeated([[1, 1, 2, 2, 2, 3, 0], [4, 4, 4, 5, 5, 0, 0]],
                                              [6, 5])
    assert labels.numpy().tolist() == [[1, 2, 3], [4, 5, 0]]
    assert lengths.numpy().tolist() == [3, 2]
    labels, lengths = rt.nn.collapse_repeated([[1, 2, 2, 1], [3, 3, 3, 3]], [4, 2])
    assert labels.numpy().tolist() == [[1, 2, 1], [3, 0, 0]] and lengths.numpy().tolist() == [3, 1]


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_depthwise_backprops_are_the_tapes_gradients(padding):
    x = rt.constant(RNG.normal(size=(2, 5, 5, 3)).astype(np.float32))
    w = rt.constant(RNG.normal(size=(3, 3, 3, 2)).astype(np.float32))
    strides = [1, 2, 2, 1]
    out = rt.nn.depthwise_conv2d(x, w, strides, padding)
    upstream = rt.constant(RNG.normal(size=out.shape.as_list()).astype(np.float32))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = rt.nn.depthwise_conv2d(x, w, strides, padding)
    gx, gw = tape.gradient(y, [x, w], output_gradients=upstream)
    np.testing.assert_allclose(
        rt.nn.depthwise_conv2d_backprop_filter(x, [3, 3, 3, 2], upstream, strides, padding)
        .numpy(), gw.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        rt.nn.depthwise_conv2d_backprop_input([2, 5, 5, 3], w, upstream, strides, padding)
        .numpy(), gx.numpy(), rtol=1e-5, atol=1e-5)
    # by its definition: <backprop_input(dy), dx> = <dy, conv(dx)> for any dx
    dx = RNG.normal(size=(2, 5, 5, 3)).astype(np.float32)
    lhs = np.sum(gx.numpy() * dx)
    rhs = np.sum(upstream.numpy() * rt.nn.depthwise_conv2d(dx, w, strides, padding).numpy())
    np.testing.assert_allclose(lhs, rhs, rtol=1e-4)

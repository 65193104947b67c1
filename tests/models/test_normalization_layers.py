"""BatchNormalization and LayerNormalization against NumPy: batch statistics and moving
averages when training, moving statistics in inference, staged updates, gradients."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

L = rt.layers
RNG = np.random.default_rng(2)


def test_batch_norm_training_uses_batch_statistics_and_updates_moving_ones():
    x = RNG.standard_normal((16, 3, 4)) * 3 + 2
    layer = L.BatchNormalization(momentum=0.9, epsilon=1e-3, dtype="float64")
    y = layer(x, training=True)
    mean, var = x.mean(axis=(0, 1)), x.var(axis=(0, 1))
    np.testing.assert_allclose(y.numpy(), (x - mean) / np.sqrt(var + 1e-3), rtol=1e-10)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.1 * mean, rtol=1e-10)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-10)
    assert [v.name.split("/")[-1].split(":")[0] for v in layer.trainable_variables] == ["gamma", "beta"]
    assert [v.name.split("/")[-1].split(":")[0] for v in layer.non_trainable_variables] == \
        ["moving_mean", "moving_variance"]


@pytest.mark.parametrize("training", [False, None])
def test_batch_norm_inference_uses_moving_statistics(training):
    x = RNG.standard_normal((8, 5))
    layer = L.BatchNormalization(dtype="float64", epsilon=0.01)
    layer(x)  # build
    mm, mv = RNG.standard_normal(5), RNG.random(5) + 0.5
    g, b = RNG.standard_normal(5), RNG.standard_normal(5)
    layer.set_weights([g, b, mm, mv])
    y = layer(x, training=training)
    np.testing.assert_allclose(y.numpy(), (x - mm) / np.sqrt(mv + 0.01) * g + b, rtol=1e-10)
    np.testing.assert_array_equal(layer.moving_mean.numpy(), mm)  # unchanged


def test_batch_norm_over_another_axis_and_without_center_scale():
    x = RNG.standard_normal((6, 3, 4, 4))
    layer = L.BatchNormalization(axis=1, center=False, scale=False, dtype="float64")
    y = layer(x, training=True)
    assert layer.trainable_variables == [] and layer.moving_mean.shape == (3,)
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    var = x.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y.numpy(), (x - mean) / np.sqrt(var + 1e-3), rtol=1e-10)


@pytest.mark.parametrize("jit", [False, True])
def test_batch_norm_staged_updates_are_variable_assigns(jit):
    layer = L.BatchNormalization(momentum=0.5)
    x = (RNG.standard_normal((10, 3)) + 4).astype(np.float32)
    f = rt.function(lambda v, training: layer(v, training=training), jit_compile=jit)
    f(x, True)
    f(x, True)
    m = x.mean(axis=0)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.75 * m, rtol=1e-5)
    before = layer.moving_mean.numpy()
    out = f(x, False)
    np.testing.assert_array_equal(layer.moving_mean.numpy(), before)
    expected = (x - before) / np.sqrt(layer.moving_variance.numpy() + 1e-3)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_batch_norm_with_a_tensor_training_flag():
    layer = L.BatchNormalization(momentum=0.0)
    x = RNG.standard_normal((6, 2)).astype(np.float32)
    f = rt.function(lambda v, t: layer(v, training=t))
    f(x, rt.constant(False))
    np.testing.assert_array_equal(layer.moving_mean.numpy(), [0, 0])
    f(x, rt.constant(True))
    np.testing.assert_allclose(layer.moving_mean.numpy(), x.mean(axis=0), rtol=1e-5)


def test_batch_norm_gradient_matches_finite_differences():
    x = RNG.standard_normal((5, 3))
    layer = L.BatchNormalization(dtype="float64")
    xt = rt.constant(x)
    probe = RNG.standard_normal((5, 3))
    with rt.GradientTape() as tape:
        tape.watch(xt)
        y = rt.reduce_sum(layer(xt, training=True) ** 2 * probe)
    g = tape.gradient(y, xt).numpy()

    def f(a):
        z = (a - a.mean(0)) / np.sqrt(a.var(0) + 1e-3)
        return np.sum(z ** 2 * probe)
    eps, num = 1e-6, np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        num[idx] = (f(x + d) - f(x - d)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


def test_layer_normalization():
    x = RNG.standard_normal((4, 3, 6))
    layer = L.LayerNormalization(dtype="float64")
    y = layer(x)
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(y.numpy(), (x - mean) / np.sqrt(var + 1e-3), rtol=1e-10)
    assert layer.gamma.shape == (6,) and layer.beta.shape == (6,)
    two = L.LayerNormalization(axis=[1, 2], epsilon=1e-5, dtype="float64")
    y2 = two(x)
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(y2.numpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-9)
    assert two.gamma.shape == (3, 6)
    mid = L.LayerNormalization(axis=1, dtype="float64")
    mid(x)
    mid.set_weights([np.arange(3.0), np.ones(3)])
    mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    np.testing.assert_allclose(mid(x).numpy(), (x - mean) / np.sqrt(var + 1e-3)
                               * np.arange(3.0)[:, None] + 1, rtol=1e-9, atol=1e-12)


def test_bad_arguments():
    with pytest.raises(TypeError):
        L.BatchNormalization(momentun=0.9)
    with pytest.raises(ValueError, match="momentum"):
        L.BatchNormalization(momentum=2)
    with pytest.raises(ValueError, match="axis"):
        L.LayerNormalization(axis=3)(np.zeros((2, 3), np.float32))

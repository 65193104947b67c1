"""Labels of shape (N,) against predictions (N, 1): Keras gives the labels the last axis, so the
loss is the mean per-sample loss (not an (N, N) broadcast) and fit learns."""

import numpy as np
import pytest

import runtime as rt
from runtime.layers import losses, metrics


def _data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = (x @ np.array([1.5, -2.0, 0.5], np.float32) + 0.25).astype(np.float32)
    return x, y


@pytest.mark.parametrize("loss", ["mse", "mae"])
def test_fit_learns_a_linear_map_from_1d_labels(loss):
    x, y = _data()
    assert y.shape == (64,)
    rt.random.set_seed(1)
    model = rt.layers.Sequential([rt.layers.Dense(1)])
    model.compile(rt.optimizers.Adam(0.1) if loss == "mae" else rt.optimizers.SGD(0.1), loss)
    history = model.fit(x, y, epochs=60, batch_size=16, verbose=0)
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(kernel[:, 0], [1.5, -2.0, 0.5], atol=0.1)
    np.testing.assert_allclose(bias, [0.25], atol=0.1)
    assert history.history["loss"][-1] < 0.1 * history.history["loss"][0]


def _per_sample(name, y, p):
    p = p[:, 0]
    if name == "mse":
        return (p - y) ** 2
    if name == "mae":
        return np.abs(p - y)
    q = np.clip(p, 1e-7, 1 - 1e-7)
    return -(y * np.log(q) + (1 - y) * np.log(1 - q))


@pytest.mark.parametrize("name", ["mse", "mae", "binary_crossentropy"])
def test_the_loss_is_the_mean_per_sample_loss(name):
    rng = np.random.default_rng(3)
    y = (rng.random(10) > 0.5).astype(np.float32)
    p = rng.uniform(0.05, 0.95, size=(10, 1)).astype(np.float32)
    expected = np.mean(_per_sample(name, y, p))
    fn = losses.get(name)  # Keras's function: one loss per sample (the mean over the last axis)
    np.testing.assert_allclose(fn(y, p).numpy(), _per_sample(name, y, p), rtol=1e-5)
    np.testing.assert_allclose(np.mean(fn(y[:, None], p[:, 0])), expected, rtol=1e-5)  # and back
    np.testing.assert_allclose(fn(y[:, None], p).numpy(), _per_sample(name, y, p), rtol=1e-5)
    compiled = rt.function(lambda a, b: fn(a, b))
    np.testing.assert_allclose(np.mean(compiled(y, p)), expected, rtol=1e-5)


def test_evaluate_with_1d_labels_equals_numpy():
    x, y = _data(40, seed=2)
    rt.random.set_seed(0)
    model = rt.layers.Sequential([rt.layers.Dense(1)])
    model.compile(rt.optimizers.SGD(0.01), "mse")
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    prediction = model.predict(x, batch_size=8)
    assert prediction.shape == (40, 1)
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=40, verbose=0),
                               np.mean((prediction[:, 0] - y) ** 2), rtol=1e-5)


def test_binary_accuracy_with_1d_labels():
    y = np.array([1, 0, 1, 1], np.float32)
    p = np.array([[0.9], [0.2], [0.4], [0.7]], np.float32)
    assert float(np.mean(metrics.binary_accuracy(y, p))) == 0.75

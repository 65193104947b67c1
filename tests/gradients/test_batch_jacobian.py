"""GradientTape.batch_jacobian and jacobian (keywords, staged use, unconnected sources) against
finite differences and against each other; tape.gradient's unconnected_gradients."""

import numpy as np
import pytest

import runtime as rt

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 2))
W = RNG.normal(size=(2, 4))


def _model(x):
    return rt.tanh(x @ rt.constant(W)) * rt.reduce_sum(x * x, axis=1, keepdims=True)


def _fd_batch(x, eps=1e-6):
    out = np.zeros((3, 4, 2))
    for b in range(3):
        for j in range(2):
            d = np.zeros_like(x)
            d[b, j] = eps
            out[b, :, j] = (_model(rt.constant(x + d)).numpy()[b]
                            - _model(rt.constant(x - d)).numpy()[b]) / (2 * eps)
    return out


def _both(x, **kw):
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = _model(x)
    return tape.batch_jacobian(y, x, **kw), tape.jacobian(y, x, **kw)


@pytest.mark.parametrize("staged", [False, True])
def test_batch_jacobian_against_finite_differences_and_jacobian(staged):
    f = rt.function(_both) if staged else _both
    bj, j = f(rt.constant(X))
    assert bj.shape.as_list() == [3, 4, 2] and j.shape.as_list() == [3, 4, 3, 2]
    np.testing.assert_allclose(bj.numpy(), _fd_batch(X), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(bj.numpy(), np.stack([j.numpy()[b, :, b] for b in range(3)]))


def test_tf_keywords_are_accepted_and_typos_refused():
    bj, _ = _both(rt.constant(X), parallel_iterations=4, experimental_use_pfor=False)
    np.testing.assert_allclose(bj.numpy(), _fd_batch(X), rtol=1e-5, atol=1e-8)
    with rt.GradientTape() as tape:
        x = rt.constant(X)
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(TypeError):
        tape.batch_jacobian(y, x, parallel_iteration=4)


def test_batch_jacobian_multi_dim_target_and_source():
    x = rt.constant(RNG.normal(size=(2, 2, 3)))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reshape(rt.reduce_sum(x, axis=2), [2, 2, 1]) * rt.constant([1.0, 2.0, 3.0], rt.float64)
    bj = tape.batch_jacobian(y, x)
    assert bj.shape.as_list() == [2, 2, 3, 2, 3]
    want = np.zeros((2, 2, 3, 2, 3))
    for i in range(2):
        for k in range(3):
            want[:, i, k, i, :] = k + 1.0
    np.testing.assert_allclose(bj.numpy(), want)


def test_unconnected():
    x = rt.constant(X)
    z = rt.constant(W)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 3.0
    assert tape.batch_jacobian(y, z[:3] if False else rt.constant(X)) is None
    zero = tape.batch_jacobian(y, rt.constant(X), unconnected_gradients=rt.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zero.numpy(), np.zeros((3, 2, 2)))
    assert tape.jacobian(y, z) is None
    np.testing.assert_array_equal(
        tape.jacobian(y, z, unconnected_gradients="zero").numpy(), np.zeros((3, 2, 2, 4)))
    gx, gz = tape.gradient(y, [x, z], unconnected_gradients=rt.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(gz.numpy(), np.zeros_like(W))
    np.testing.assert_array_equal(gx.numpy(), np.full_like(X, 3.0))
    assert tape.gradient(y, z) is None


def test_errors():
    x = rt.constant(X)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError, match="batch size"):
        tape.batch_jacobian(y, rt.constant(X[:2]))
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="zeros")

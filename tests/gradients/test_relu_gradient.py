"""The ReLU gradient is `g * (y > 0)`, in g's dtype, eagerly and compiled."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_gradient_matches_numpy(dtype):
    xv = np.array([[-2.0, -0.5, 0.0], [0.5, 1.0, 3.0]], dtype)
    wv = np.arange(6, dtype=dtype).reshape(2, 3)

    def grad(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.nn.relu(x) * wv)
        return tape.gradient(y, x)
    expected = wv * (np.maximum(xv, 0) > 0)
    for fn in (grad, rt.function(grad, autograph=False)):
        g = fn(rt.constant(xv))
        assert g.dtype == rt.as_dtype(dtype)
        np.testing.assert_array_equal(g.numpy(), expected)


def test_relu_second_order_gradient_is_zero():
    x = rt.constant(np.array([-1.0, 2.0], np.float32))
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(rt.nn.relu(x) * x)
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [0.0, 4.0])
    np.testing.assert_array_equal(outer.gradient(g, x).numpy(), [0.0, 2.0])

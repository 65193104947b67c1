"""Second (and third) derivatives of reduce_prod, against finite differences of the first."""

import numpy as np
import pytest

import runtime as rt


def _first(x_value, axis, keepdims, weights):
    x = rt.constant(x_value)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.reduce_prod(x, axis=axis, keepdims=keepdims) * weights)
    return tape.gradient(y, x).numpy()


def _second(x_value, axis, keepdims, weights, direction):
    """d/dx of <first derivative, direction>: a Hessian-vector product."""
    x = rt.constant(x_value)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(rt.reduce_prod(x, axis=axis, keepdims=keepdims) * weights)
        g = inner.gradient(y, x)
        z = rt.reduce_sum(g * direction)
    return outer.gradient(z, x).numpy()


def _finite_difference(x_value, axis, keepdims, weights, direction, eps=1e-6):
    out = np.zeros_like(x_value)
    for index in np.ndindex(x_value.shape):
        plus, minus = x_value.copy(), x_value.copy()
        plus[index] += eps
        minus[index] -= eps
        out[index] = np.sum((_first(plus, axis, keepdims, weights)
                             - _first(minus, axis, keepdims, weights)) * direction) / (2 * eps)
    return out


@pytest.mark.parametrize("shape,axis,keepdims", [
    ((4,), None, False),
    ((3, 4), 1, False),
    ((3, 4), 0, True),
    ((2, 3, 4), (0, 2), False),
    ((2, 3), -1, False),
])
def test_second_derivative_matches_finite_differences(shape, axis, keepdims):
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    x.flat[1] = 0.0  # a zero: the rule must not divide by x
    reduced = np.prod(x, axis=axis, keepdims=keepdims)
    weights = rng.normal(size=np.shape(reduced))
    direction = rng.normal(size=shape)
    expected = _finite_difference(x, axis, keepdims, weights, direction)
    np.testing.assert_allclose(_second(x, axis, keepdims, weights, direction), expected,
                               rtol=1e-5, atol=1e-6)


def test_the_hessian_of_a_product_of_three():
    x = rt.constant([1.5, -2.0, 3.0], rt.float64)
    with rt.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_prod(x)
        g = inner.gradient(y, x)
        rows = [g[i] for i in range(3)]
    hessian = np.stack([outer.gradient(r, x).numpy() for r in rows])
    a, b, c = 1.5, -2.0, 3.0
    np.testing.assert_allclose(hessian, [[0, c, b], [c, 0, a], [b, a, 0]])


def test_third_derivative_and_inside_a_function():
    f = rt.function(lambda x: rt.reduce_prod(x))
    x = rt.constant([2.0, 3.0, 5.0], rt.float64)
    with rt.GradientTape() as t3:
        t3.watch(x)
        with rt.GradientTape() as t2:
            t2.watch(x)
            with rt.GradientTape() as t1:
                t1.watch(x)
                y = f(x)
            total = rt.reduce_sum(t1.gradient(y, x))
        h = t2.gradient(total, x)
        h_total = rt.reduce_sum(h)
    third = t3.gradient(h_total, x)
    # sum of the Hessian's rows: (y + z, x + z, x + y); their derivatives: 2 per pair
    np.testing.assert_allclose(h.numpy(), [8.0, 7.0, 5.0])
    np.testing.assert_allclose(third.numpy(), [2.0, 2.0, 2.0])

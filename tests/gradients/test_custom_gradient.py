"""`rt.custom_gradient`: eagerly, in compiled functions, with variables."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


@rt.custom_gradient
def clipped_identity(x):
    def grad(dy):
        return rt.clip_by_value(dy, -1.0, 1.0)
    return rt.identity(x), grad


@rt.custom_gradient
def log1pexp(x):
    e = rt.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return rt.log(1 + e), grad


def test_custom_gradient_replaces_the_gradient_eagerly():
    x = rt.constant([0.5, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = clipped_identity(x) * 10.0
    np.testing.assert_allclose(tape.gradient(y, x), [1.0, 1.0])


def test_custom_gradient_value_is_the_forward_value():
    np.testing.assert_allclose(log1pexp(rt.constant([0.0])), [np.log(2.0)], rtol=1e-6)


def test_custom_gradient_numerically_stable_example():
    x = rt.constant(50.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == 1.0


def test_custom_gradient_with_the_tape_inside_a_compiled_function():
    @rt.function(autograph=False)
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = clipped_identity(x) * 10.0
        return tape.gradient(y, x)
    np.testing.assert_allclose(f(rt.constant([0.5, 2.0])), [1.0, 1.0])


def test_custom_gradient_through_a_compiled_call():
    @rt.function(autograph=False)
    def f(x):
        return clipped_identity(x) * 10.0
    x = rt.constant([0.5, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x), [1.0, 1.0])


def test_custom_gradient_of_several_inputs_and_outputs():
    @rt.custom_gradient
    def pair(a, b):
        def grad(da, db):
            return da * 2.0 + db, db * 3.0
        return (a * 1.0, b * 1.0), grad
    a, b = rt.constant(1.0), rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch([a, b])
        p, q = pair(a, b)
        y = p + q
    assert [float(g) for g in tape.gradient(y, [a, b])] == [3.0, 3.0]


def test_custom_gradient_with_variables():
    w = rt.Variable(2.0)

    @rt.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * 100.0, [dy * 7.0 for _ in variables]
        return x * w, grad
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x)
    gx, gw = tape.gradient(y, [x, w])
    assert float(gx) == 100.0 and float(gw) == 7.0


def test_custom_gradient_reading_variables_needs_a_variables_argument():
    w = rt.Variable(2.0)

    @rt.custom_gradient
    def scaled(x):
        return x * w, lambda dy: dy
    with pytest.raises(TypeError, match="variables"):
        scaled(rt.constant(1.0))


def test_second_order_through_a_custom_gradient():
    @rt.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x
        return x * x * x, grad
    x = rt.constant(2.0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        g = inner.gradient(y, x)
    assert float(g) == 12.0
    assert float(outer.gradient(g, x)) == 12.0

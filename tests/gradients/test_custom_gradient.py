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


# -- a custom gradient function closing over a tensor of a loop body or branch ----------------

def _loop_closing_over_a_body_tensor(x):
    def body(i, y):
        s = rt.sin(y)

        @rt.custom_gradient
        def scaled(v):
            return v * s, lambda dy: dy * s * 3.0  # reads s, a tensor of the forward body
        return i + 1, scaled(y) + y
    return rt.while_loop(lambda i, y: i < 2, body, (0, x))[1]


def _branch_closing_over_a_branch_tensor(x):
    def true_fn():
        s = rt.cos(x)

        @rt.custom_gradient
        def scaled(v):
            return v * s, lambda dy: dy * s * 3.0
        return scaled(x) + x
    return rt.cond(x > 0, true_fn, lambda: x * x)


def _value_and_gradient(fn, x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return y, tape.gradient(y, x)


@pytest.mark.parametrize("fn", [_loop_closing_over_a_body_tensor,
                                _branch_closing_over_a_branch_tensor])
def test_a_gradient_function_may_close_over_a_tensor_of_a_loop_body_or_branch(fn):
    """The backward body reads that tensor as the forward saved it (it was an
    InaccessibleTensorError); oracle: the same Python run eagerly."""
    x = rt.constant(np.float64(0.7))
    rt.run_functions_eagerly(True)
    try:
        want = [float(v) for v in _value_and_gradient(rt.function(fn), x)]
    finally:
        rt.run_functions_eagerly(False)
    staged = rt.function(lambda v: _value_and_gradient(fn, v))(x)  # the tape inside
    around = _value_and_gradient(rt.function(fn), x)  # the tape around the call
    np.testing.assert_allclose([float(v) for v in staged], want, rtol=1e-12)
    np.testing.assert_allclose([float(v) for v in around], want, rtol=1e-12)

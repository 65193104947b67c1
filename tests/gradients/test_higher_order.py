"""Nested tapes: the inner gradient computation is recorded by the outer tape."""

from __future__ import annotations

import numpy as np

import runtime as rt


def _second_derivative(fn, x0):
    return _derivatives(fn, rt.constant(x0))


def _derivatives(fn, x):
    """The first and second derivatives of `fn` at the tensor `x`, by nested tapes (eagerly,
    or staged when called in a compiled function)."""
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        dy = inner.gradient(y, x)
    return dy, outer.gradient(dy, x)


def test_second_derivative_eagerly():
    dy, d2y = _second_derivative(lambda x: x * x * x, 2.0)
    assert float(dy) == 12.0
    assert float(d2y) == 12.0


def test_second_derivative_of_transcendental_functions():
    x0 = 0.7
    dy, d2y = _second_derivative(lambda x: rt.sin(x) * rt.exp(x), x0)
    np.testing.assert_allclose(float(dy), np.exp(x0) * (np.sin(x0) + np.cos(x0)), rtol=1e-6)
    np.testing.assert_allclose(float(d2y), 2 * np.exp(x0) * np.cos(x0), rtol=1e-6)


def test_third_derivative_with_three_tapes():
    x = rt.constant(1.5)
    with rt.GradientTape() as t3:
        t3.watch(x)
        with rt.GradientTape() as t2:
            t2.watch(x)
            with rt.GradientTape() as t1:
                t1.watch(x)
                y = x ** 4.0
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    np.testing.assert_allclose([float(d1), float(d2), float(d3)],
                               [4 * 1.5 ** 3, 12 * 1.5 ** 2, 24 * 1.5], rtol=1e-6)


def test_hessian_vector_product_of_a_softmax_loss():
    logits = rt.constant(np.array([[0.3, -1.2, 2.0]]))
    labels = rt.constant(np.array([[0.0, 1.0, 0.0]]))
    v = rt.constant(np.array([[1.0, 0.5, -0.25]]))
    with rt.GradientTape() as outer:
        outer.watch(logits)
        with rt.GradientTape() as inner:
            inner.watch(logits)
            loss = rt.reduce_sum(rt.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        g = inner.gradient(loss, logits)
        gv = rt.reduce_sum(g * v)
    hv = np.asarray(outer.gradient(gv, logits))
    p = np.asarray(rt.nn.softmax(logits))[0]
    hessian = np.diag(p) - np.outer(p, p)
    np.testing.assert_allclose(hv[0], hessian @ np.asarray(v)[0], rtol=1e-6, atol=1e-9)


def test_second_derivative_with_a_variable():
    w = rt.Variable(3.0)
    with rt.GradientTape() as outer:
        with rt.GradientTape() as inner:
            y = w * w * w
        g = inner.gradient(y, w)
    assert float(g) == 27.0
    assert float(outer.gradient(g, w)) == 18.0


def test_persistent_tape_differentiates_its_own_gradient():
    x = rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        g = tape.gradient(y, x)
    assert float(tape.gradient(g, x)) == 12.0


def test_second_derivative_staged_in_a_compiled_function():
    @rt.function(autograph=False)
    def hessian_diag(x):
        return _derivatives(lambda x: rt.reduce_sum(rt.tanh(x) * x), x)[1]
    x0 = np.array([0.1, -0.4, 1.3])
    t = np.tanh(x0)
    expected = 2 * (1 - t ** 2) - 2 * x0 * t * (1 - t ** 2)
    np.testing.assert_allclose(hessian_diag(rt.constant(x0)), expected, rtol=1e-6)


def test_second_derivative_through_a_compiled_call():
    @rt.function(autograph=False)
    def f(x):
        return rt.reduce_sum(rt.sin(x) * x)
    x0 = np.array([0.3, 1.1])
    g, gg = _second_derivative(f, x0)
    np.testing.assert_allclose(g, np.sin(x0) + x0 * np.cos(x0), rtol=1e-6)
    np.testing.assert_allclose(gg, 2 * np.cos(x0) - x0 * np.sin(x0), rtol=1e-6)


def test_second_derivative_through_a_staged_cond():
    @rt.function(autograph=False)
    def f(x):
        return _derivatives(lambda x: rt.cond(x > 0, lambda: x * x * x, lambda: rt.sin(x)), x)
    assert [float(v) for v in f(rt.constant(2.0))] == [12.0, 12.0]
    np.testing.assert_allclose([float(v) for v in f(rt.constant(-1.0))],
                               [np.cos(-1.0), -np.sin(-1.0)], rtol=1e-6)


def test_second_derivative_through_a_staged_loop():
    def cube(x):
        return rt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), (0, x))[1]

    @rt.function(autograph=False)
    def f(x):
        return _derivatives(cube, x)
    for x0 in (2.0, -0.5):  # d/dx x**3 = 3x**2, d2/dx2 = 6x
        assert [float(v) for v in f(rt.constant(x0))] == [3 * x0 ** 2, 6 * x0]


def test_second_derivative_through_a_compiled_call_with_control_flow():
    @rt.function(autograph=False)
    def f(x):
        y = rt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), (0, x))[1]  # x ** 3
        return rt.cond(x > 0, lambda: y, lambda: -y)
    g, gg = _second_derivative(f, 2.0)
    assert float(g) == 12.0
    assert float(gg) == 12.0


def test_second_derivative_through_a_staged_tensor_array():
    def stacked(x):
        ta = rt.TensorArray(rt.float64, size=3).write(0, x * x).write(1, x).write(2, rt.sin(x))
        return rt.reduce_sum(ta.stack()) + ta.read(0) * x  # x**2 + x + sin x + x**3

    @rt.function(autograph=False)
    def f(x):
        return _derivatives(stacked, x)
    for x0 in (2.0, -0.5):
        got = [float(v) for v in f(rt.constant(np.float64(x0)))]
        np.testing.assert_allclose(got, [2 * x0 + 1 + np.cos(x0) + 3 * x0 ** 2,
                                         2 - np.sin(x0) + 6 * x0], rtol=1e-12)

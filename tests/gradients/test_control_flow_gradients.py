"""Gradients through cond, while_loop (data-dependent trip counts) and TensorArray.

Each function is checked against central differences eagerly (Python control flow), with
the tape inside a compiled function (staged If/While ops), and through a compiled call.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

from .fd import check_gradients

R = np.random.default_rng(7)


# -- cond -----------------------------------------------------------------------------------------

def branchy(x, y):
    return rt.cond(rt.reduce_sum(x) > 0,
                   lambda: rt.sin(x) * y,
                   lambda: rt.exp(x) + y * y)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_takes_the_gradient_of_the_branch_that_ran(sign):
    check_gradients(branchy, sign * R.uniform(0.1, 1.0, 3), R.uniform(-1, 1, 3))


def test_cond_with_an_unconnected_branch_and_nested_cond():
    def f(x, y):
        inner = lambda: rt.cond(x[0] > 0.5, lambda: x * 3.0, lambda: rt.square(x))  # noqa: E731
        return rt.cond(y[0] > 0, inner, lambda: y * 2.0)
    check_gradients(f, np.array([0.7, 0.2]), np.array([1.0, 2.0]), none_is_zero=True)
    check_gradients(f, np.array([0.3, 0.2]), np.array([1.0, 2.0]), none_is_zero=True)
    check_gradients(f, np.array([0.3, 0.2]), np.array([-1.0, 2.0]), none_is_zero=True)


def test_cond_on_a_variable_in_a_compiled_train_step():
    v = rt.Variable([1.0, -2.0])

    @rt.function(autograph=False)
    def step(flag):
        with rt.GradientTape() as tape:
            loss = rt.cond(flag, lambda: rt.reduce_sum(v * v), lambda: rt.reduce_sum(v * 3.0))
        return tape.gradient(loss, v)
    np.testing.assert_allclose(step(rt.constant(True)), [2.0, -4.0])
    np.testing.assert_allclose(step(rt.constant(False)), [3.0, 3.0])
    assert step.experimental_get_tracing_count() == 1


# -- while_loop -------------------------------------------------------------------------------------

def doubling(x):
    """Multiplies by 1.5 until the sum exceeds 10: the trip count depends on x."""
    def body(i, y):
        return i + 1, y * 1.5 + rt.sin(y)
    _, y = rt.while_loop(lambda i, y: rt.reduce_sum(y) < 10.0, body, (0, x))
    return y


@pytest.mark.parametrize("scale", [0.5, 2.0, 20.0])
def test_while_with_a_data_dependent_trip_count(scale):
    check_gradients(doubling, scale * np.array([0.3, 0.4, 0.2]))


def test_while_with_captured_tensors_and_a_counter():
    def f(x, w):
        def body(i, acc):
            return i + 1, acc * w + x
        _, out = rt.while_loop(lambda i, acc: i < 4, body, (0, x))
        return out
    check_gradients(f, R.uniform(-1, 1, 3), R.uniform(0.5, 1.0, 3))


def test_while_with_maximum_iterations():
    def f(x):
        return rt.while_loop(lambda y: rt.reduce_sum(y) < 1e6, lambda y: y * rt.cos(y) + y,
                             [x], maximum_iterations=3)[0]
    check_gradients(f, R.uniform(0.1, 0.5, 2))


def test_nested_while_loops():
    def f(x):
        def outer(i, y):
            inner = rt.while_loop(lambda j, z: j < i, lambda j, z: (j + 1, rt.sin(z) + z), (0, y))[1]
            return i + 1, inner * 0.9
        return rt.while_loop(lambda i, y: i < 3, outer, (0, x))[1]
    check_gradients(f, R.uniform(-1, 1, 2))


def test_cond_inside_while():
    def f(x):
        def body(i, y):
            y = rt.cond(rt.reduce_sum(y) > 1.0, lambda: y * 0.5, lambda: rt.exp(y))
            return i + 1, y
        return rt.while_loop(lambda i, y: i < 5, body, (0, x))[1]
    check_gradients(f, R.uniform(-0.5, 0.5, 3))


def test_while_inside_cond():
    def f(x):
        loop = lambda: rt.while_loop(lambda y: rt.reduce_max(y) < 3.0,  # noqa: E731
                                     lambda y: y * 1.7 + 0.1, [x])[0]
        return rt.cond(rt.reduce_sum(x) > 0, loop, lambda: x * 2.0)
    check_gradients(f, R.uniform(0.2, 0.5, 2))
    check_gradients(f, -R.uniform(0.2, 0.5, 2))


def test_staged_loop_saves_per_iteration_not_per_graph():
    @rt.function(autograph=False)
    def f(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, rt.sin(y)), (0, x))[1]
        return tape.gradient(y, x)
    for n in (0, 1, 5, 50):
        expected, y = 1.0, 0.4
        for _ in range(n):
            expected *= np.cos(y)
            y = np.sin(y)
        np.testing.assert_allclose(f(rt.constant(0.4), rt.constant(n)), expected, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
    graph = f.get_concrete_function(rt.constant(0.4), rt.constant(1)).graph
    assert [op.type for op in graph.operations].count("While") == 2


def test_loop_variable_gradient_with_a_variable_in_the_body():
    v = rt.Variable(0.9)

    @rt.function(autograph=False)
    def step(x):
        with rt.GradientTape() as tape:
            y = rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * v), (0, x))[1]
        return tape.gradient(y, v)
    np.testing.assert_allclose(step(rt.constant(2.0)), 2.0 * 3 * 0.9 ** 2, rtol=1e-6)


# -- TensorArray --------------------------------------------------------------------------------------

def running_sums(x):
    """Writes x[0], x[0]+x[1], ... into a TensorArray inside a loop over x, then stacks."""
    n = x.shape[0]
    ta = rt.TensorArray(rt.float64, size=n)

    def body(i, total, ta):
        total = total + x[i] * x[i]
        return i + 1, total, ta.write(i, total)
    _, _, ta = rt.while_loop(lambda i, t, ta: i < n, body, (0, rt.constant(0.0, rt.float64), ta))
    return ta.stack()


def test_tensor_array_written_in_a_loop_then_stacked():
    check_gradients(running_sums, R.uniform(-1, 1, 4))


def test_tensor_array_unstack_read_and_gather():
    def f(x):
        ta = rt.TensorArray(rt.float64, size=3).unstack(x)

        def body(i, acc):
            return i + 1, acc + rt.sin(ta.read(i))
        _, acc = rt.while_loop(lambda i, acc: i < 3, body, (0, rt.zeros([2], rt.float64)))
        return acc * ta.gather([2, 0, 2]) + ta.read(1)
    check_gradients(f, R.uniform(-1, 1, (3, 2)))


def test_for_over_a_tensor_through_a_tensor_array():
    """What autograph makes of `for row in x: acc = acc * row + 1`."""
    def f(x):
        rows = rt.TensorArray(rt.float64, size=x.shape[0]).unstack(x)

        def body(i, acc):
            return i + 1, acc * rows.read(i) + 1.0
        return rt.while_loop(lambda i, acc: i < x.shape[0], body,
                             (0, rt.ones([3], rt.float64)))[1]
    check_gradients(f, R.uniform(-1, 1, (4, 3)))


def test_loop_variable_whose_shape_grows():
    def f(x):
        def body(i, y):
            return i + 1, rt.concat([y, rt.sin(y) * 2.0], axis=0)
        _, y = rt.while_loop(lambda i, y: i < 3, body, (0, x),
                             shape_invariants=(rt.TensorShape([]), rt.TensorShape([None])))
        return rt.reduce_sum(y * y)
    check_gradients(f, np.array([0.3, -0.2]))


def test_the_backward_loop_reads_one_saved_value_per_iteration():
    @rt.function(autograph=False)
    def f(x, w):
        with rt.GradientTape() as tape:
            tape.watch([x, w])
            y = rt.while_loop(lambda i, y: rt.reduce_sum(y) < 100.0,
                              lambda i, y: (i + 1, rt.tanh(y) * w + y), (0, x))[1]
            loss = rt.reduce_sum(y)
        return tape.gradient(loss, [x, w])
    x, w = rt.constant([1.0, 2.0]), rt.constant([1.5, 1.5])
    gx, gw = f(x, w)
    source = f.get_concrete_function(x, w).generated_source
    assert source.count(".append(") == 1
    assert ".append((t" in source and source.count("np.tanh(") == 1  # saved, not recomputed
    # check against an eager run of the same loop
    with rt.GradientTape() as tape:
        tape.watch([x, w])
        y = rt.while_loop(lambda i, y: rt.reduce_sum(y) < 100.0,
                          lambda i, y: (i + 1, rt.tanh(y) * w + y), (0, x))[1]
        loss = rt.reduce_sum(y)
    ex, ew = tape.gradient(loss, [x, w])
    np.testing.assert_allclose(gx, ex, rtol=1e-5)
    np.testing.assert_allclose(gw, ew, rtol=1e-5)


def test_a_tape_inside_a_loop_body_and_inside_a_branch():
    @rt.function(autograph=False)
    def descend(x):
        def body(i, x):
            with rt.GradientTape() as tape:
                tape.watch(x)
                loss = rt.reduce_sum(rt.square(x - 3.0))
            return i + 1, x - 0.1 * tape.gradient(loss, x)
        return rt.while_loop(lambda i, x: i < 50, body, (0, x))[1]
    np.testing.assert_allclose(descend(rt.constant([0.0, 10.0])), [3.0, 3.0], atol=1e-3)

    @rt.function(autograph=False)
    def g(x):
        def true_fn():
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = x * x * x
            return tape.gradient(y, x)
        return rt.cond(x > 0, true_fn, lambda: x)
    assert float(g(rt.constant(2.0))) == 12.0 and float(g(rt.constant(-2.0))) == -2.0

"""Gradients through autograph-converted `if`, `while` and `for` over tensors."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

from .fd import numeric_gradients

pytest.importorskip("runtime.autograph_backend")


def branch_loop_and_for(x):
    if rt.reduce_sum(x) > 0:
        y = rt.sin(x) * 2.0
    else:
        y = x * x
    while rt.reduce_sum(y) < 10.0:
        y = y * 1.5 + 0.1
    total = rt.zeros_like(x)
    for row in rt.stack([y, y * 0.5, rt.exp(y * 0.1)]):
        total = total + row * row
    return total


compiled = rt.function(branch_loop_and_for)


def _gradient(fn, x0, w):
    x = rt.constant(x0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return np.asarray(tape.gradient(y, x, output_gradients=rt.constant(w)))


@pytest.mark.parametrize("x0", [[0.3, 0.5], [-0.3, -0.2], [2.0, 3.0]])
def test_converted_control_flow_matches_finite_differences(x0):
    x0 = np.array(x0)
    w = np.array([1.0, 0.7])
    expected = numeric_gradients(
        lambda x: float(np.sum(np.asarray(branch_loop_and_for(rt.constant(x))) * w)), [x0])[0]
    np.testing.assert_allclose(_gradient(branch_loop_and_for, x0, w), expected, rtol=1e-5)
    np.testing.assert_allclose(_gradient(compiled, x0, w), expected, rtol=1e-5)


def test_converted_train_step_with_a_data_dependent_loop():
    v = rt.Variable(np.array([0.5, 0.25]))

    @rt.function
    def step(limit):
        with rt.GradientTape() as tape:
            y = v
            n = 0
            while rt.reduce_sum(y) < limit:
                y = y * 2.0
                n += 1
            loss = rt.reduce_sum(y * y)
        return tape.gradient(loss, v), n
    for limit, trips in ((0.5, 0), (10.0, 4), (100.0, 8)):
        g, n = step(rt.constant(limit, rt.float64))
        assert int(n) == trips
        np.testing.assert_allclose(g, 2 * np.array([0.5, 0.25]) * 4.0 ** trips)
    assert step.experimental_get_tracing_count() == 1

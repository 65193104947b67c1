"""What a loop gradient saves per iteration, and how the NumPy tier holds its stacks.

A value the same at every iteration (a read of a variable the loop does not write, a loop
variable passed on unchanged) is read once before the loop, never pushed per iteration; a
variable the loop writes is still saved per iteration. The NumPy tier keeps a stack as the
pushed values themselves (`Rows`) and makes an array of them only where one is needed.

Oracles: the same loops run eagerly (loops as Python, tapes recording primitive ops),
central finite differences, and np.stack for the array a stack becomes.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime import errors
from runtime.gradients.while_grad import (
    ACC_PUSH,
    STACK_PUSH,
    Rows,
    _stack_pop_kernel,
    saving_stacks,
)
from runtime.ops.variables import READ


def _pushed(concrete) -> list:
    """The ops whose outputs the graph's loops push on stacks or append to lists."""
    pushed = []
    for op in concrete.graph.all_operations():
        if op.opdef is STACK_PUSH:
            pushed.append(op.inputs[1].op)
        elif op.opdef is ACC_PUSH:
            pushed += [t.op for t in op.inputs[1:]]
    return pushed


def _recurrence(x, kernel, bias, steps=5):
    def body(i, h, c):
        z = rt.tanh(rt.matmul(h, kernel) + bias) * c
        return i + 1, z + x, c
    return rt.while_loop(lambda i, h, c: i < steps, body, (0, x, rt.ones_like(x)))[1]


def _staged(kernel, bias, stacks=True):
    """A tape inside a function differentiating the loop; its saves on stacks (the form
    nested tapes around a call build) or in lists (a single tape's)."""
    @rt.function(autograph=False)
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.sin(_recurrence(x, kernel, bias)))
        if not stacks:
            return tape.gradient(y, [x, kernel, bias])
        with saving_stacks():
            return tape.gradient(y, [x, kernel, bias])
    return f


FORMS = pytest.mark.parametrize("stacks", [True, False], ids=["stacks", "lists"])


@FORMS
def test_a_variable_read_in_the_loop_is_read_once_not_saved_per_iteration(stacks):
    rng = np.random.default_rng(3)
    kernel = rt.Variable(rng.uniform(-0.5, 0.5, (4, 4)))
    bias = rt.Variable(rng.uniform(-0.5, 0.5, (4,)))
    x = rt.constant(rng.uniform(-1, 1, (2, 4)))
    f = _staged(kernel, bias, stacks)
    got = f(x)
    pushed = _pushed(f.get_concrete_function(x))
    assert pushed and not [op for op in pushed if op.opdef is READ], pushed
    # of the loop variables, `h` is pushed; `c`, passed on unchanged, is not
    assert len([op for op in pushed if op.opdef.is_placeholder]) == 1, pushed
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.sin(_recurrence(x, kernel, bias)))
    want = tape.gradient(y, [x, kernel, bias])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10)


@FORMS
def test_the_read_once_kernel_gives_finite_difference_gradients(stacks):
    rng = np.random.default_rng(4)
    k0 = rng.uniform(-0.5, 0.5, (3, 3))
    x = rt.constant(rng.uniform(-1, 1, (1, 3)))
    kernel, bias = rt.Variable(k0), rt.Variable(np.zeros(3))
    got = _staged(kernel, bias, stacks)(x)[1].numpy()
    eps, want = 1e-6, np.zeros_like(k0)
    for idx in np.ndindex(k0.shape):
        values = []
        for s in (eps, -eps):
            k = k0.copy()
            k[idx] += s
            values.append(float(rt.reduce_sum(rt.sin(_recurrence(x, rt.constant(k), bias)))))
        want[idx] = (values[0] - values[1]) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def test_a_variable_the_loop_writes_is_saved_per_iteration():
    v = rt.Variable(np.float64(0.5))

    @rt.function(autograph=False)
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)

            def body(i, y):
                v.assign_add(0.25)
                return i + 1, y * v + x
            y = rt.while_loop(lambda i, y: i < 3, body, (0, x))[1]
        with saving_stacks():
            return tape.gradient(y, x)

    got = float(f(rt.constant(np.float64(0.3))))
    assert [op for op in _pushed(f.get_concrete_function(rt.constant(np.float64(0.3))))
            if op.opdef is READ]
    # y3 = ((x*.75 + x)*1 + x)*1.25 + x (v is 0.75, 1.0, 1.25 in the three iterations)
    assert got == pytest.approx(0.75 * 1.0 * 1.25 + 1.0 * 1.25 + 1.25 + 1.0)


def test_rows_become_the_stacked_array_only_when_read_as_one():
    base = np.zeros((1, 2))
    rows = [np.array([1.0, 2.0]), np.array([3.0, 4.0])]
    stack = base
    for r in rows:
        stack = Rows(stack, r)
    assert type(stack) is Rows and len(stack) == 3 and stack.shape == (3, 2)
    assert stack.size == 6 and stack.ndim == 2  # an array's size: elements, not rows
    assert stack.top is rows[1]  # pushed as is, not copied
    np.testing.assert_array_equal(np.asarray(stack), np.stack([base[0]] + rows))
    np.testing.assert_array_equal(stack + 1, np.stack([base[0]] + rows) + 1)
    assert stack.below.top is rows[0] and np.asarray(stack.below).shape == (2, 2)
    rest, top = _stack_pop_kernel(np.asarray(stack))  # an array pops as the kernel pops it
    np.testing.assert_array_equal(top, rows[1])
    ragged = Rows(Rows(np.zeros((0, 2)), np.ones(2)), np.ones(3))
    with pytest.raises(errors.InvalidArgumentError, match="changed shape between iterations"):
        np.asarray(ragged)

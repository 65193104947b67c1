"""tf.gradients and tf.hessians inside a function, tf.grad_pass_through, tf.RegisterGradient and
tf.no_gradient: against the derivatives worked by hand and TensorFlow's docstring examples."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.opdef import define
from runtime.ops.core import apply


def _stopped_docstring_example(a):
    # TensorFlow's docstring: with a and b stopped, d(a + b)/da is 1, not 3
    b = 2 * a
    return rt.gradients(a + b, [a, b], stop_gradients=[a, b])


def test_gradients_inside_a_function():
    v = rt.Variable([1.0, 1.0])

    @rt.function
    def f(x):
        y = x ** 3 + rt.reduce_sum(v * x)
        return (rt.gradients(y, [x, v]), rt.gradients(y, x, grad_ys=rt.constant([2.0, 1.0])),
                rt.gradients(x * rt.stop_gradient(x) + x, x),
                rt.gradients(y, rt.constant(1.0)),
                rt.gradients(y, rt.constant(1.0), unconnected_gradients="zero"),
                _stopped_docstring_example(x))

    x = np.array([1.0, 2.0], np.float32)
    (gx, gv), (weighted,), (stopped,), (none,), (zero,), cut = f(rt.constant(x))
    # y_i = x_i^3 + v . x: dy/dx summed over i = 3 x^2 + 2 v, dy/dv = 2 x
    np.testing.assert_allclose(gx.numpy(), 3 * x ** 2 + 2)
    np.testing.assert_allclose(gv.numpy(), 2 * x)
    np.testing.assert_allclose(weighted.numpy(), np.array([2.0, 1.0]) * 3 * x ** 2 + 3)
    np.testing.assert_allclose(stopped.numpy(), x + 1)
    assert none is None and float(zero) == 0.0
    np.testing.assert_allclose([g.numpy() for g in cut], [[1.0, 1.0], [1.0, 1.0]])


def test_hessians_and_eager_refusal():
    @rt.function
    def h(x):
        return rt.hessians(rt.reduce_sum(x ** 3) + x[0] * x[1], x)

    (hess,) = h(rt.constant([1.0, 2.0]))
    np.testing.assert_allclose(hess.numpy(), [[6.0, 1.0], [1.0, 12.0]])
    with pytest.raises(RuntimeError, match="GradientTape"):
        rt.gradients(rt.constant(1.0), rt.constant(1.0))
    assert rt.AggregationMethod.ADD_N == rt.AggregationMethod.DEFAULT == 0


def test_grad_pass_through_docstring_example():
    x = rt.Variable(1.0, name="x")
    z = rt.Variable(3.0, name="z")
    with rt.GradientTape() as tape:
        y = rt.grad_pass_through(x.assign)(z ** 2)
    assert float(y) == 9.0 and float(tape.gradient(y, z)) == 6.0


def test_register_gradient_and_no_gradient():
    square = define("TestSymbolicSquare", infer=lambda x: (x.shape, x.dtype), kernel=np.square,
                    template="np.square({0})")
    a = rt.constant([3.0])
    with pytest.raises(LookupError, match="No gradient"):
        with rt.GradientTape() as tape:
            tape.watch(a)
            b = apply(square, [a])
        tape.gradient(b, a)

    @rt.RegisterGradient("TestSymbolicSquare")
    def _grad(op, grad):
        return grad * 2 * op.inputs[0]

    with rt.GradientTape() as tape:
        tape.watch(a)
        b = apply(square, [a])
    np.testing.assert_allclose(tape.gradient(b, a).numpy(), [6.0])
    with pytest.raises(KeyError, match="two gradient"):
        rt.RegisterGradient("TestSymbolicSquare")
    rt.no_gradient("TestSymbolicSquare")
    with rt.GradientTape() as tape:
        tape.watch(a)
        b = apply(square, [a])
    assert tape.gradient(b, a) is None
    with pytest.raises(LookupError, match="no op named"):
        rt.no_gradient("NoSuchOpAnywhere")

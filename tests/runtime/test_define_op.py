"""A new op is one definition in one place; it then works eagerly, compiled and under a tape."""

import numpy as np
import pytest

import runtime as rt
from runtime.opdef import define
from runtime.ops.core import apply, convert_to_tensor

# -- the whole definition of a new op: softplus(x) = log(1 + exp(x)) ----------------------
SOFTPLUS = define(
    "ExampleSoftplus",
    infer=lambda x: (x.shape, x.dtype),         # output shape and dtype from the input's
    kernel=lambda x: np.logaddexp(0, x),        # NumPy kernel: eager runs
    template="np.logaddexp(0, {0})",            # what the executor writes in compiled code
)


@SOFTPLUS.def_grad
def _softplus_grad(op, g):                      # d softplus(x) / dx = sigmoid(x)
    return [g * rt.sigmoid(op.inputs[0])]


def softplus(x):
    return apply(SOFTPLUS, [convert_to_tensor(x)])
# ------------------------------------------------------------------------------------------


X = np.array([-2.0, 0.0, 0.5, 3.0], np.float64)


def test_new_op_runs_eagerly():
    np.testing.assert_allclose(softplus(X).numpy(), np.logaddexp(0, X))


def test_new_op_compiles_into_the_generated_source():
    f = rt.function(lambda x: softplus(x) * 2.0)
    np.testing.assert_allclose(f(X).numpy(), 2 * np.logaddexp(0, X))
    assert "np.logaddexp(0, " in f.get_concrete_function(X).generated_source


def _gradient(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(softplus(x))
    return tape.gradient(y, x)


@pytest.mark.parametrize("gradient", [_gradient, rt.function(_gradient)], ids=["eager", "compiled"])
def test_new_op_gradient_matches_finite_differences(gradient):
    eps = 1e-6
    numeric = (np.logaddexp(0, X + eps) - np.logaddexp(0, X - eps)) / (2 * eps)
    np.testing.assert_allclose(gradient(rt.constant(X)).numpy(), numeric, rtol=1e-6)

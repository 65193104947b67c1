"""A tape around a compiled function whose staged `if` did not take the branch that saves a
value for the backward pass (the branch that ran returns a filler for it)."""

import numpy as np
import pytest

import runtime as rt


def _gradient(f, values):
    x = rt.constant(values)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(f(x))
    return tape.gradient(y, x).numpy()


@pytest.mark.parametrize("jit", [False, True])
def test_the_untaken_branch_saved_a_scalar(jit):
    @rt.function(jit_compile=jit)
    def f(x):
        if x[0] > 0:
            r = x * x[1]
        else:
            r = x * 2
        return r

    np.testing.assert_array_equal(_gradient(f, [-1.0, 2.0]), [2.0, 2.0])
    # taken: d/dx sum(x * x1) = (x1, x1 + sum(x))
    np.testing.assert_array_equal(_gradient(f, [3.0, 2.0]), [2.0, 7.0])
    np.testing.assert_array_equal(_gradient(f, [-1.0, 2.0]), [2.0, 2.0])


@pytest.mark.parametrize("jit", [False, True])
def test_the_untaken_branch_saved_scalars_and_vectors(jit):
    @rt.function(jit_compile=jit)
    def f(x):
        s = rt.reduce_sum(x)
        if s > 0:
            r = x * x[1] * rt.sin(x) + s * s
        else:
            if x[0] > -5:
                r = rt.exp(x) * x[0]
            else:
                r = x * 3.0
        return r

    def numeric(values, eps=1e-6):
        values = np.asarray(values, np.float64)
        out = np.zeros_like(values)
        for i in range(len(values)):
            plus, minus = values.copy(), values.copy()
            plus[i] += eps
            minus[i] -= eps
            out[i] = (np.sum(f(plus).numpy()) - np.sum(f(minus).numpy())) / (2 * eps)
        return out

    for values in ([1.0, 2.0, 0.5], [-1.0, -2.0, 0.5], [-6.0, 1.0, 0.5]):
        np.testing.assert_allclose(_gradient(f, np.array(values)), numeric(values), rtol=1e-5)

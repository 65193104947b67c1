"""The gradient of a slice on the Numba tier: zeros with the slice written in, and a slice
gradient accumulated over a loop's steps (`acc + StridedSliceGrad`) as one add into a copy."""

import numpy as np

import runtime as rt
from runtime.function.recorded_call import gradient_of


def _steps(x):
    total = rt.zeros([3])
    for t in rt.range(4):
        total += rt.tanh(x[t]) * rt.cast(t + 1, rt.float32)
    return rt.reduce_sum(total * total) + rt.reduce_sum(x[1:3, 0] * 2.0)


def _gradient(fn, x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return y.numpy(), tape.gradient(y, x).numpy()


def test_slice_gradients_match_the_numpy_tier():
    x = rt.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    jit, plain = rt.function(_steps, jit_compile=True), rt.function(_steps)
    y_jit, g_jit = _gradient(jit, x)
    y_np, g_np = _gradient(plain, x)
    np.testing.assert_array_max_ulp(y_jit, y_np, maxulp=8)
    np.testing.assert_array_max_ulp(g_jit, g_np, maxulp=8)
    source = gradient_of(jit.get_concrete_function(x)).backward_compiled.source
    assert "StridedSliceGrad" not in source  # both forms native: no object-mode round trip
    assert "] += " in source  # the loop's accumulated slice gradient: an add into a copy


def _unrolled(x):
    total = rt.constant(0.0)
    for t in range(4):  # a Python loop: four slices of x, their gradients added up
        total += rt.reduce_sum(rt.tanh(x[t]) * float(t + 1))
    return total


def test_unrolled_slice_gradients_are_added_in_place_by_a_helper():
    x = rt.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 2, 3))
    jit = rt.function(_unrolled, jit_compile=True, autograph=False)
    y_jit, g_jit = _gradient(jit, x)
    y_np, g_np = _gradient(rt.function(_unrolled, autograph=False), x)
    np.testing.assert_array_max_ulp(y_jit, y_np, maxulp=8)
    np.testing.assert_array_max_ulp(g_jit, g_np, maxulp=8)
    expected = (1.0 - np.tanh(x.numpy()) ** 2) * np.arange(1, 5, dtype=np.float32)[:, None, None]
    np.testing.assert_allclose(g_jit, expected, rtol=1e-6)
    source = gradient_of(jit.get_concrete_function(x)).backward_compiled.source
    assert "_h.add_into(" in source and "_h.copy_into(" in source

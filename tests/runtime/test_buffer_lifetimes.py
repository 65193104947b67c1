"""Generated code frees temporaries after their last use and reuses dying buffers, and the
results still equal NumPy's: inputs, outputs, views and variables are never overwritten."""

from __future__ import annotations

import numpy as np

import runtime as rt


def _source(f, *args):
    return f.get_concrete_function(*args).generated_source


def test_elementwise_chain_reuses_dying_temporaries():
    def chain(x):
        y = rt.exp(x * 2.0 + 1.0) - 3.0
        return rt.sqrt(rt.abs(y * x)) / 2.0
    f = rt.function(chain, autograph=False)
    xv = np.linspace(-1, 1, 2048, dtype=np.float32).reshape(32, 64)
    before = xv.copy()
    x = rt.constant(xv)
    expected = np.sqrt(np.abs((np.exp(xv * 2 + 1) - 3) * xv)) / 2
    np.testing.assert_allclose(f(x).numpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(x.numpy(), before)  # the input is never an out= target
    source = _source(f, x)
    assert "out=" in source and "del " in source


def test_outputs_are_distinct_buffers():
    f = rt.function(lambda x: (x * 2.0, x * 2.0 + 1.0), autograph=False)
    x = rt.constant(np.ones(2048, np.float32))
    a, b = f(x)
    np.testing.assert_array_equal(a.numpy(), np.full(2048, 2, np.float32))
    np.testing.assert_array_equal(b.numpy(), np.full(2048, 3, np.float32))


def test_a_viewed_temporary_is_not_overwritten():
    def g(x):
        t = x * 2.0
        v = rt.reshape(t, [32, 64])
        u = t + 1.0
        return v, u
    f = rt.function(g, autograph=False)
    v, u = f(rt.constant(np.arange(2048, dtype=np.float32)))
    np.testing.assert_array_equal(v.numpy(), np.arange(2048).reshape(32, 64) * 2)
    np.testing.assert_array_equal(u.numpy(), np.arange(2048) * 2 + 1)


def test_broadcasting_and_scalars_keep_their_shapes():
    def g(x, row, s):
        a = x * 2.0 + row          # (64, 32)
        b = row * 3.0 + s          # (32,), not written into a (64, 32) buffer
        c = s * 2.0 + 1.0          # a NumPy scalar
        return a - b, c
    f = rt.function(g, autograph=False)
    xv = np.ones((64, 32), np.float32)
    rv = np.arange(32, dtype=np.float32)
    a, c = f(rt.constant(xv), rt.constant(rv), rt.constant(np.float32(2)))
    np.testing.assert_allclose(a.numpy(), xv * 2 + rv - (rv * 3 + 2))
    assert float(c) == 5.0


def test_variable_values_are_not_overwritten():
    v = rt.Variable(np.ones(2048, np.float32))
    f = rt.function(lambda: (v * 2.0 + 1.0, v.read_value()), autograph=False)
    a, b = f()
    np.testing.assert_array_equal(a.numpy(), np.full(2048, 3, np.float32))
    np.testing.assert_array_equal(v.numpy(), np.ones(2048, np.float32))
    np.testing.assert_array_equal(b.numpy(), np.ones(2048, np.float32))


def test_variable_updates_write_into_their_dying_operand():
    n = 2048
    v = rt.Variable(np.ones(n, np.float32))

    def step(x):
        before = v.read_value()
        v.assign_sub(x * 2.0 + 1.0)
        v.assign_add(x * 0.5 + 0.0)
        return before
    f = rt.function(step, autograph=False)
    x = rt.constant(np.arange(n, dtype=np.float32))
    held = v.numpy()
    before = f(x)
    expected = np.ones(n, np.float32) - (np.arange(n) * 2 + 1) + np.arange(n) * 0.5
    np.testing.assert_allclose(v.numpy(), expected)
    np.testing.assert_array_equal(before.numpy(), np.ones(n, np.float32))
    np.testing.assert_array_equal(held, np.ones(n, np.float32))  # the old buffer is untouched
    source = f.get_concrete_function(x).generated_source
    assert "np.subtract(v" in source and "np.add(v" in source


def test_small_values_keep_plain_operators():
    f = rt.function(lambda x: (x * 2.0 + 1.0) * x, autograph=False)
    source = f.get_concrete_function(rt.constant(np.ones(8, np.float32))).generated_source
    assert "out=" not in source and "del " not in source

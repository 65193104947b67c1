"""TensorArrays, lists grown in staged loops and while-loop gradients on the XLA tier:
preallocated buffers, compared with the NumPy tier."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import runtime as rt  # noqa: E402
from runtime.backends.base import JitCompileError  # noqa: E402


def _both(fn, *args):
    xla = rt.function(fn, jit_compile="xla", autograph=True)
    return xla(*args), rt.function(fn, autograph=True)(*args)


def _same(a, b, rtol=1e-12):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, rtol)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=rtol)


def test_a_tensor_array_of_static_size_is_a_buffer():
    def f(x):
        ta = rt.TensorArray(rt.float64, size=4)
        for i in rt.range(4):
            ta = ta.write(i, x * rt.cast(i, rt.float64))
        return ta.stack(), ta.read(2), ta.size()
    _same(*_both(f, np.arange(3.0)))


def test_a_list_appended_in_a_range_loop():
    def f(x, n):
        out = []
        for i in rt.range(n):
            out.append(rt.sin(x) * rt.cast(i, x.dtype))
        return rt.stack(out)
    a, b = _both(f, np.linspace(0, 1, 5), 7)
    _same(a, b)
    assert a.shape == (7, 5)


def test_greedy_decoding_stops_at_a_data_dependent_token():
    def decode(start):
        i = 0
        tok = start
        toks = []
        while i < 50 and tok != 0:
            tok = (tok * 7 + 3) % 13
            toks.append(tok)
            i += 1
        return rt.stack(toks), i
    f = rt.function(decode, jit_compile="xla", autograph=True)
    g = rt.function(decode, autograph=True)
    lengths = set()
    for start in range(1, 13):
        (a, ai), (b, bi) = f(np.int32(start)), g(np.int32(start))
        _same(a, b)
        assert int(ai) == int(bi) == len(a.numpy())
        lengths.add(len(a.numpy()))
    assert len(lengths) > 2  # the length depends on the data


def test_maximum_iterations_bounds_a_growing_list():
    def f(x):
        ta = rt.TensorArray(rt.float64, size=0, dynamic_size=True, element_shape=[2])

        def body(v, ta):
            return v * 1.5, ta.write(ta.size(), v)
        v, ta = rt.while_loop(lambda v, ta: rt.reduce_sum(v) < 1e9, body, [x, ta],
                              maximum_iterations=9)
        return ta.stack()
    a, b = _both(f, np.array([1.0, 2.0]))
    _same(a, b)
    assert a.shape == (9, 2)


def test_a_list_grown_without_a_visible_bound_is_refused_naming_the_loop():
    def f(x):
        out = []
        s = rt.reduce_sum(x)
        while s < 100.0:
            s = s * 2.0
            out.append(s)
        return rt.stack(out)
    with pytest.raises(JitCompileError, match=r"(?s)While.*test_xla_arrays.py.*no bound.*NumPy"):
        rt.function(f, jit_compile="xla", autograph=True)(np.ones(3))


def test_a_stack_of_run_time_length_used_by_another_op_is_refused():
    def f(n):
        i = 0
        out = []
        while i < 10 and i * i < n:
            out.append(rt.cast(i, rt.float64))
            i += 1
        return rt.reduce_sum(rt.stack(out))
    with pytest.raises(JitCompileError, match="known only at run time"):
        rt.function(f, jit_compile="xla", autograph=True)(np.int32(20))


def test_while_loop_gradients_inside_the_function():
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(6):
                y = rt.sin(y) * x + 0.1
            s = rt.reduce_sum(y * y)
        return s, tape.gradient(s, x)
    x = np.linspace(0.2, 1.2, 4)
    a, b = _both(f, x)
    _same(a, b, rtol=1e-10)
    # finite differences
    h = 1e-6
    plain = rt.function(f)
    fd = [(plain(x + h * e)[0].numpy() - plain(x - h * e)[0].numpy()) / (2 * h)
          for e in np.eye(4)]
    np.testing.assert_allclose(a[1].numpy(), fd, rtol=1e-5)


def test_while_loop_gradients_with_a_tape_outside_and_a_data_dependent_exit():
    w = rt.Variable(np.array([[0.5, -0.2], [0.1, 0.4]]))

    def f(x):
        i = 0
        h = x
        while i < 30 and rt.reduce_max(rt.abs(h)) < 5.0:
            h = rt.tanh(rt.matmul(h, w)) * 3.0 + x
            i += 1
        return rt.reduce_sum(h * h)
    xla = rt.function(f, jit_compile="xla", autograph=True)
    ref = rt.function(f, autograph=True)
    x = rt.constant(np.array([[0.3, -0.7]]))
    with rt.GradientTape() as t1:
        t1.watch(x)
        a = xla(x)
    ga = t1.gradient(a, [x, w])
    with rt.GradientTape() as t2:
        t2.watch(x)
        b = ref(x)
    gb = t2.gradient(b, [x, w])
    _same(a, b, rtol=1e-10)
    for p, q in zip(ga, gb):
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-9)


def test_the_gradient_of_an_unbounded_loop_is_refused_in_the_function():
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            while rt.reduce_sum(y) < 100.0:
                y = y * 1.7
        return tape.gradient(y, x)
    with pytest.raises(JitCompileError, match="no bound visible"):
        rt.function(f, jit_compile="xla", autograph=True)(np.ones(2))


def test_the_backward_loop_of_a_tape_outside_runs_on_xla(caplog):
    def f(x):
        y = x
        for _ in rt.range(5):
            y = rt.tanh(y) * 1.3
        return rt.reduce_sum(y)
    xla = rt.function(f, jit_compile="xla", autograph=True)
    x = rt.constant(np.linspace(-1, 1, 3))
    with caplog.at_level("WARNING", logger="runtime.function"):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = xla(x)
        g = tape.gradient(y, x)
    assert not [r for r in caplog.records if "NumPy tier" in r.getMessage()]
    with rt.GradientTape() as tape:
        tape.watch(x)
        z = rt.function(f, autograph=True)(x)
    np.testing.assert_allclose(g.numpy(), tape.gradient(z, x).numpy(), rtol=1e-12)

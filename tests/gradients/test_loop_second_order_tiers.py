"""Second derivatives through staged loops compile on every tier.

Nested tapes inside one compiled function differentiate a staged loop twice: the outer
gradient flows back through the values the loop saved for the inner gradient. On the
compiler tiers that gradient is held as one stack per saved value (rows = iterations).

Oracles: the same function run eagerly (`rt.run_functions_eagerly(True)`: loops run as
Python), plain-Python derivatives of x ** 3, and central finite differences of the first
derivative. Each function must be compiled by the tier asked for (the kernel's type) with no
warning of a fallback to the NumPy tier.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import runtime as rt
from runtime.backends import JitCompileError

TIERS = [False, True, "xla"]
_MODULE = {True: "runtime.backends.numba", "xla": "runtime.backends.xla"}


def _tier(jit_compile):
    if jit_compile is True:
        pytest.importorskip("numba")
    if jit_compile == "xla":
        pytest.importorskip("jax")
    return jit_compile


def _while_cube(x):
    return rt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), (0, x))[1]


def _autograph_for(x):
    y = x
    for _ in rt.range(3):
        y = rt.sin(y) * x
    return y


def _cond_in_loop(x):
    def body(i, y):
        return i + 1, rt.cond(rt.reduce_sum(y) > 1.0, lambda: rt.sqrt(y) * x,
                              lambda: y * x * x)
    return rt.while_loop(lambda i, y: i < 3, body, (0, x))[1]


def _vector_loop(x):
    """A loop over vectors whose body saves several values (rank 1 and a scalar)."""
    def body(i, h):
        s = rt.reduce_sum(h * x)
        return i + 1, rt.tanh(h * x[::-1] + 0.1 * s)
    return rt.reduce_sum(rt.while_loop(lambda i, h: i < 4, body, (0, x))[1] ** 2)


def _maximum_iterations(x):
    """A loop whose trip count depends on the data, bounded by maximum_iterations."""
    return rt.while_loop(lambda y: rt.reduce_sum(y) < 50.0, lambda y: (y * x + 1.0,), (x,),
                         maximum_iterations=6)[0]


def _derivatives(fn):
    def both(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = rt.reduce_sum(fn(x))
            g = inner.gradient(y, x)
            z = rt.reduce_sum(g * g) if g.shape.rank else g
        return g, outer.gradient(z, x)
    return both


def _first(fn):
    def first(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(fn(x))
        return tape.gradient(y, x)
    return first


def _eager(fn, x):
    rt.run_functions_eagerly(True)
    try:
        return [np.asarray(v) for v in rt.function(fn)(x)]
    finally:
        rt.run_functions_eagerly(False)


def _compiled_on(f, x, jit_compile, caplog):
    """f(x) as NumPy values, checking that the tier asked for compiled it, silently."""
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        values = [np.asarray(v) for v in f(x)]
    fallbacks = [m for m in (r.getMessage() for r in caplog.records) if "NumPy tier" in m]
    assert not fallbacks
    compiled = f.get_concrete_function(x).compiled
    if jit_compile:
        assert type(compiled).__module__.startswith(_MODULE[jit_compile]), type(compiled)
    return values


CASES = {
    "while_loop": (_while_cube, [2.0, -0.75]),
    "autograph_for": (_autograph_for, [0.3, 1.1]),
    "cond_in_loop": (_cond_in_loop, [0.5, 1.5]),
    "vector_loop": (_vector_loop, [[0.3, -0.8, 1.2]]),
    "maximum_iterations": (_maximum_iterations, [1.5, 2.5]),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("jit_compile", TIERS)
def test_second_derivative_equals_the_eager_one(case, jit_compile, caplog):
    fn, points = CASES[case]
    f = rt.function(_derivatives(fn), jit_compile=_tier(jit_compile))
    for x0 in points:
        x = rt.constant(x0, rt.float64)
        got = _compiled_on(f, x, jit_compile, caplog)
        for value, expected in zip(got, _eager(_derivatives(fn), x)):
            np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("jit_compile", TIERS)
def test_second_derivative_of_x_cubed_is_exact(jit_compile, caplog):
    f = rt.function(_derivatives(_while_cube), jit_compile=_tier(jit_compile), autograph=False)
    for x0 in (2.0, -0.75, 3.0):
        dy, d2y = _compiled_on(f, rt.constant(x0, rt.float64), jit_compile, caplog)
        assert (float(dy), float(d2y)) == (3 * x0 ** 2, 6 * x0)


@pytest.mark.parametrize("case", ["autograph_for", "cond_in_loop", "vector_loop"])
@pytest.mark.parametrize("jit_compile", [True, "xla"])
def test_second_derivative_equals_finite_differences(case, jit_compile, caplog):
    """The outer gradient (of sum(g * g), or of g for a scalar) against central differences
    of the first derivative, which the NumPy tier computes."""
    fn, points = CASES[case]
    f = rt.function(_derivatives(fn), jit_compile=_tier(jit_compile))
    first = rt.function(_first(fn))
    eps = 1e-6
    for x0 in points:
        x0 = np.asarray(x0, np.float64)
        _, second = _compiled_on(f, rt.constant(x0), jit_compile, caplog)
        numeric = np.zeros_like(x0)
        for k in np.ndindex(x0.shape):
            step = np.zeros_like(x0)
            step[k] = eps

            def objective(v):
                g = np.asarray(first(rt.constant(v)))
                return float(np.sum(g * g)) if g.ndim else float(g)
            numeric[k] = (objective(x0 + step) - objective(x0 - step)) / (2 * eps)
        np.testing.assert_allclose(second, numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("jit_compile", [True, "xla"])
def test_float32_loops_compile_and_agree_with_the_numpy_tier(jit_compile, caplog):
    f = rt.function(_derivatives(_autograph_for), jit_compile=_tier(jit_compile))
    reference = rt.function(_derivatives(_autograph_for))
    x = rt.constant(0.7, rt.float32)
    got = _compiled_on(f, x, jit_compile, caplog)
    for value, expected in zip(got, reference(x)):
        assert value.dtype == np.float32
        np.testing.assert_allclose(value, np.asarray(expected), rtol=1e-5)


def _nested_loops(x):
    def outer(i, y):
        inner = rt.while_loop(lambda j, z: j < 2, lambda j, z: (j + 1, rt.sin(z) * x), (0, y))[1]
        return i + 1, inner + y
    return rt.while_loop(lambda i, y: i < 2, outer, (0, x))[1]


@pytest.mark.parametrize("jit_compile", [True, "xla"])
def test_nested_loops_are_refused_naming_the_op_and_run_on_the_numpy_tier(jit_compile):
    """A loop nested in a staged loop saves an accumulator per outer iteration, which the
    compiler tiers do not hold (docs/limitations.md); the NumPy tier gives the eager values."""
    x = rt.constant(0.4, rt.float64)
    with pytest.raises(JitCompileError, match="cannot compile op"):
        rt.function(_derivatives(_nested_loops), jit_compile=_tier(jit_compile),
                    autograph=False)(x)
    got = rt.function(_derivatives(_nested_loops), autograph=False)(x)
    for value, expected in zip(got, _eager(_derivatives(_nested_loops), x)):
        np.testing.assert_allclose(np.asarray(value), expected, rtol=1e-12)


@pytest.mark.parametrize("jit_compile", TIERS)
def test_a_third_derivative_through_a_staged_loop_is_refused_by_name(jit_compile):
    def third(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            _, d2y = _derivatives(_while_cube)(x)
        return tape.gradient(d2y, x)

    with pytest.raises(NotImplementedError, match="three times"):
        rt.function(third, autograph=False, jit_compile=_tier(jit_compile))(rt.constant(2.0))


@pytest.mark.parametrize("jit_compile", TIERS)
def test_two_second_order_gradients_of_one_loop(jit_compile, caplog):
    """A persistent outer tape differentiates the first derivative twice: two gradients of
    the same saves, each from its own zeros (a stack updated in place is never shared)."""
    def both(x):
        with rt.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = rt.reduce_sum(_vector_loop(x))
            g = inner.gradient(y, x)
            s, q = rt.reduce_sum(g), rt.reduce_sum(g * g * g)
        return outer.gradient(s, x), outer.gradient(q, x), outer.gradient([s, q], x)

    f = rt.function(both, jit_compile=_tier(jit_compile), autograph=False)
    x = rt.constant([0.3, -0.8, 1.2], rt.float64)
    got = _compiled_on(f, x, jit_compile, caplog)
    expected = _eager(both, x)
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[2], got[0] + got[1], rtol=1e-12)

"""Any number of nested tapes around a compiled call holding a staged while_loop.

The gradient of such a call is a traced backward function whose loop pops the values the
forward loop pushed on stacks (tensors), so it is differentiable again by the same rule, to
any order, on the function's tier (the XLA tier has no stack lowering: it runs those
gradients on the NumPy tier and says so, naming the op).

Oracles: the same Python run eagerly (`rt.run_functions_eagerly(True)`: loops run as Python
and tapes record primitive ops), central finite differences of the order below (computed
eagerly), and closed forms where the program has one.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import runtime as rt
from runtime import backends

TIERS = [None, True, "xla"]


def _tier(jit):
    if jit is True:
        pytest.importorskip("numba")
    if jit == "xla":
        pytest.importorskip("jax")
    return jit


def _nested(fn, x, order: int, persistent: bool = False) -> list:
    """[f'(x), ..., f^(order)(x)] by `order` nested tapes around `fn(x)` (None counts as 0)."""
    tapes = [rt.GradientTape(persistent=persistent) for _ in range(order)]
    recording = []
    try:
        for tape in tapes:
            recording.append(tape.__enter__())
            tape.watch(x)
        value = fn(x)
        derivatives = []
        while recording:  # the innermost tape first, differentiated while the others record
            tape = recording.pop()
            tape.__exit__(None, None, None)
            value = tape.gradient(value, x)
            derivatives.append(0.0 if value is None else float(value))
            if value is None:
                value = rt.constant(np.float64(0.0))
        return derivatives
    finally:  # an error leaves no tape recording for later tests
        for tape in reversed(recording):
            tape.__exit__(None, None, None)


def _cube(x):
    return rt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), (0, x))[1]


_W = rt.Variable(np.float64(0.8))


def _reads_a_variable(x):
    def body(i, y):
        return i + 1, rt.sin(y * _W) + x * _W
    return rt.while_loop(lambda i, y: i < 3, body, (0, x))[1]


def _loop_in_a_cond(x):
    return rt.cond(x > 0, lambda: _cube(x) + rt.exp(x),
                   lambda: rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, rt.sin(y) * x),
                                         (0, x))[1])


def _cond_in_a_loop(x):
    def body(i, y):
        return i + 1, rt.cond(y > 1.0, lambda: rt.sqrt(y) * x, lambda: y * x + 0.5)
    return rt.while_loop(lambda i, y: i < 3, body, (0, x))[1]


def _nested_loops(x):
    def outer(i, y):
        inner = rt.while_loop(lambda j, z: j < 2, lambda j, z: (j + 1, rt.sin(z) * x), (0, y))[1]
        return i + 1, inner + y * x
    return rt.while_loop(lambda i, y: i < 2, outer, (0, x))[1]


def _data_dependent_trips(x):
    """The trip count depends on x (bounded by maximum_iterations)."""
    return rt.while_loop(lambda y: y < 20.0, lambda y: (y * x + 1.0,), (x,),
                         maximum_iterations=6)[0]


PROGRAMS = {
    "while_loop": (_cube, (1.5, -0.75)),
    "reads_a_variable": (_reads_a_variable, (0.4, -1.1)),
    "loop_in_a_cond": (_loop_in_a_cond, (0.6, -0.5)),
    "cond_in_a_loop": (_cond_in_a_loop, (0.9, 1.7)),
    "nested_loops": (_nested_loops, (0.3, -0.6)),
    "data_dependent_trips": (_data_dependent_trips, (1.5, 2.5)),
}


def _eager(fn, x0: float, order: int) -> list:
    rt.run_functions_eagerly(True)
    try:
        return _nested(rt.function(fn, autograph=False), rt.constant(np.float64(x0)), order)
    finally:
        rt.run_functions_eagerly(False)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_four_nested_tapes_give_the_eager_derivatives(program):
    fn, points = PROGRAMS[program]
    f = rt.function(fn, autograph=False)
    for x0 in points:
        got = _nested(f, rt.constant(np.float64(x0)), 4)
        np.testing.assert_allclose(got, _eager(fn, x0, 4), rtol=1e-9, atol=1e-12)


# Orders on the Numba tier: each order compiles a backward kernel about twice the size of the
# one below (the fourth-order kernels of reads_a_variable or nested_loops take tens of seconds
# of compile each). The third order already differentiates every op of the rule again (pops of the
# first backward, pushes of their gradients, pops of those): the fourth applies the same rule
# to a larger graph. So two programs stop at the third order there, while the fourth order on
# the Numba tier stays checked by data_dependent_trips here and by cond_in_a_loop in
# test_every_order_compiles_on_the_numba_tier, and every program's fourth order by the NumPy
# and XLA tiers.
NUMBA_ORDERS = {"reads_a_variable": 3, "nested_loops": 3, "data_dependent_trips": 4}


@pytest.mark.parametrize("jit", [True, "xla"])
@pytest.mark.parametrize("program", ["reads_a_variable", "nested_loops", "data_dependent_trips"])
def test_four_nested_tapes_on_the_compiler_tiers(program, jit):
    """The same on the Numba and XLA tiers (one point each: every order compiles)."""
    fn, points = PROGRAMS[program]
    order = NUMBA_ORDERS[program] if jit is True else 4
    f = rt.function(fn, autograph=False, jit_compile=_tier(jit))
    got = _nested(f, rt.constant(np.float64(points[0])), order)
    np.testing.assert_allclose(got, _eager(fn, points[0], order), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_each_order_matches_finite_differences_of_the_order_below(program):
    """Order k (k = 1..3, compiled) against central differences of order k - 1 (eager)."""
    fn, points = PROGRAMS[program]
    f = rt.function(fn, autograph=False)
    eps = 1e-5
    for x0 in points:
        got = _nested(f, rt.constant(np.float64(x0)), 3)
        below = [float(fn(rt.constant(np.float64(x0 + s * eps)))) for s in (1, -1)]
        numeric = [(below[0] - below[1]) / (2 * eps)]
        for k in (1, 2):
            up, down = (_eager(fn, x0 + s * eps, k)[k - 1] for s in (1, -1))
            numeric.append((up - down) / (2 * eps))
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6)


def test_x_cubed_to_the_fifth_order_is_exact():
    f = rt.function(_cube, autograph=False)
    for x0 in (1.5, -2.0):
        got = _nested(f, rt.constant(np.float64(x0)), 5)
        assert got == [3 * x0 ** 2, 6 * x0, 6.0, 0.0, 0.0]


@pytest.mark.parametrize("jit", TIERS)
def test_a_variable_source_inside_the_loop_at_every_order(jit):
    """d^k/dw^k of a loop reading the variable w: the variable itself is the source."""
    w = rt.Variable(np.float64(0.7))
    f = rt.function(lambda x: rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * w),
                                            (0, x))[1], autograph=False, jit_compile=_tier(jit))
    x = rt.constant(np.float64(1.3))
    with rt.GradientTape() as t3:
        with rt.GradientTape() as t2:
            with rt.GradientTape() as t1:
                y = f(x)  # x w**3
            g1 = t1.gradient(y, w)
        g2 = t2.gradient(g1, w)
    g3 = t3.gradient(g2, w)
    np.testing.assert_allclose([float(g1), float(g2), float(g3)],
                               [3 * 1.3 * 0.49, 6 * 1.3 * 0.7, 6 * 1.3], rtol=1e-12)


@pytest.mark.parametrize("jit", TIERS)
def test_a_persistent_tape_differentiates_the_loop_again(jit):
    f = rt.function(_cond_in_a_loop, autograph=False, jit_compile=_tier(jit))
    x0 = 0.9
    got = _nested(f, rt.constant(np.float64(x0)), 3, persistent=True)
    np.testing.assert_allclose(got, _eager(_cond_in_a_loop, x0, 3), rtol=1e-9)


def test_every_order_compiles_on_the_numba_tier(monkeypatch, caplog):
    """jit_compile=True is honoured at every order: each forward and backward graph built
    for four nested tapes is compiled by the Numba tier, without a fallback warning."""
    _tier(True)
    f = rt.function(_cond_in_a_loop, autograph=False, jit_compile=True)
    x = rt.constant(np.float64(0.9))
    f(x)
    seen = []
    original = backends.compile

    def spy(graph, backend, name="graph_fn", log=None):
        seen.append((name, backend.name))
        return original(graph, backend, name, log)

    monkeypatch.setattr(backends, "compile", spy)
    with caplog.at_level(logging.WARNING):
        got = _nested(f, x, 4)
    np.testing.assert_allclose(got, _eager(_cond_in_a_loop, 0.9, 4), rtol=1e-9)
    assert sum(name.endswith("_backward") for name, _ in seen) >= 3, seen
    assert {tier for _, tier in seen} == {backends.resolve(True).name}, seen
    assert not [r for r in caplog.records if "NumPy tier" in r.getMessage()]


def test_the_xla_tier_says_which_op_it_leaves_to_the_numpy_tier(caplog):
    """The XLA tier has no lowering of a loop's save stacks: the gradient runs on the NumPy
    tier with a warning naming the op (never a wrong number)."""
    _tier("xla")
    f = rt.function(_cube, autograph=False, jit_compile="xla")
    with caplog.at_level(logging.WARNING):
        got = _nested(f, rt.constant(np.float64(1.5)), 3)
    assert got == [3 * 1.5 ** 2, 9.0, 6.0]
    assert any("NumPy tier" in r.getMessage() and "Stack" in r.getMessage()
               for r in caplog.records)


def test_a_saved_value_changing_shape_is_refused_by_name():
    """A stack holds one shape: a value saved with a new shape at each iteration (a growing
    loop variable) raises InvalidArgumentError naming StackPush when differentiated again."""
    def grow(x):
        return rt.reduce_sum(rt.while_loop(
            lambda i, y: i < 3, lambda i, y: (i + 1, rt.concat([y, y * x], 0)),
            (0, rt.reshape(x, [1])),
            shape_invariants=(rt.TensorShape([]), rt.TensorShape([None])))[1] ** 2)
    f = rt.function(grow, autograph=False)
    with pytest.raises(rt.errors.InvalidArgumentError, match="StackPush"):
        _nested(f, rt.constant(np.float64(0.5)), 2)

"""One differentiation path: the gradient of a recorded call of a compiled function is a
traced backward function, itself recorded and differentiable again, on the function's tier.

Oracles: the same Python run eagerly (`rt.run_functions_eagerly(True)`, where tapes record
primitive ops), and closed forms of the derivatives written out in NumPy. A derivative that
does not depend on x is None eagerly and zeros from a compiled call (its backward is connected
by structure): both count as zero.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime import backends

TIERS = [None, True, "xla"]
ORDER = 3


def _tier(jit):
    if jit == "xla":
        pytest.importorskip("jax")
    return jit


def _nested(fn, x, order: int = ORDER, persistent: bool = False) -> list:
    """[f'(x), f''(x), ...] by `order` nested tapes around `fn(x)` (None counts as 0)."""
    tapes = [rt.GradientTape(persistent=persistent) for _ in range(order)]
    for tape in tapes:
        tape.__enter__()
        tape.watch(x)
    open_tapes = list(tapes)
    try:
        value = fn(x)
        derivatives = []
        for tape in reversed(tapes):  # the innermost tape first
            tape.__exit__(None, None, None)
            open_tapes.remove(tape)
            value = tape.gradient(value, x)
            derivatives.append(0.0 if value is None else float(value))
            if value is None:
                value = rt.constant(np.float64(0.0))
        return derivatives
    finally:  # a gradient that raises leaves no tape recording for the next test
        for tape in reversed(open_tapes):
            tape.__exit__(None, None, None)


def _make(kind: str, x0: float):
    return rt.constant(np.float64(x0)) if kind == "tensor" else rt.Variable(np.float64(x0))


# -- programs, each with its first three derivatives in closed form ---------------------------

def _ta_unrolled(x):
    ta = rt.TensorArray(rt.float64, size=3)
    for i in range(3):
        ta = ta.write(i, x * float(i + 1))
    return rt.reduce_sum(ta.stack() * x)  # 6 x**2


def _ta_unrolled_d(x):
    return [12 * x, 12.0, 0.0]


def _ta_gather_concat(x):
    ta = rt.TensorArray(rt.float64, size=2)
    ta = ta.write(0, rt.reshape(x * x, [1])).write(1, rt.reshape(rt.sin(x), [1]))
    # concat: [x**2, sin x]; gather: [sin x, sin x, x**2]
    return rt.reduce_sum(ta.concat()) * x + rt.reduce_sum(ta.gather([1, 1, 0]))


def _ta_gather_concat_d(x):
    s, c = np.sin(x), np.cos(x)
    return [3 * x * x + s + x * c + 2 * c + 2 * x,
            6 * x + 2 * c - x * s - 2 * s + 2,
            6 - 3 * s - x * c - 2 * c]


def _ta_unstack_read(x):
    ta = rt.TensorArray(rt.float64, size=2).unstack(rt.stack([x, x * x]))
    return ta.read(1) * x + rt.reduce_sum(ta.stack())  # x**3 + x + x**2


def _ta_unstack_read_d(x):
    return [3 * x * x + 1 + 2 * x, 6 * x + 2, 6.0]


def _ta_loop(x):
    def body(i, arr):
        return i + 1, arr.write(i, x * rt.cast(i + 1, rt.float64))
    _, arr = rt.while_loop(lambda i, arr: i < 3, body, (0, rt.TensorArray(rt.float64, size=3)))
    return rt.reduce_sum(arr.stack() * x)  # 6 x**2, the array written by a staged loop


_W = rt.Variable(np.float64(1.3))


def _loop_reading_a_variable(x):
    return rt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x * _W), (0, x))[1]


def _loop_reading_a_variable_d(x):
    w2 = 1.3 ** 2  # x**3 w**2
    return [3 * x * x * w2, 6 * x * w2, 6 * w2]


@rt.custom_gradient
def _square(x):
    return x * x, lambda dy: dy * 2.0 * x


def _custom(x):
    return _square(x) * rt.sin(x)  # x**2 sin x


def _custom_d(x):
    s, c = np.sin(x), np.cos(x)
    return [2 * x * s + x * x * c, 2 * s + 4 * x * c - x * x * s,
            6 * c - 6 * x * s - x * x * c]


def _branches(x):
    return rt.cond(x > 0, lambda: rt.exp(x) * x, lambda: x * x * x)


def _branches_d(x):
    if x > 0:
        e = np.exp(x)
        return [e * (1 + x), e * (2 + x), e * (3 + x)]
    return [3 * x * x, 6 * x, 6.0]


PROGRAMS = {
    "tensor_array_unrolled": (_ta_unrolled, _ta_unrolled_d),
    "tensor_array_gather_concat": (_ta_gather_concat, _ta_gather_concat_d),
    "tensor_array_unstack_read": (_ta_unstack_read, _ta_unstack_read_d),
    "tensor_array_in_a_loop": (_ta_loop, _ta_unrolled_d),
    "loop_reading_a_variable": (_loop_reading_a_variable, _loop_reading_a_variable_d),
    "custom_gradient": (_custom, _custom_d),
    "cond": (_branches, _branches_d),
}


def _eager_oracle(fn, kind, x0):
    rt.run_functions_eagerly(True)
    try:
        return _nested(rt.function(fn, autograph=False), _make(kind, x0))
    finally:
        rt.run_functions_eagerly(False)


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("kind", ["tensor", "variable"])
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_three_nested_tapes_give_the_eager_derivatives(program, kind, jit):
    fn, closed_form = PROGRAMS[program]
    f = rt.function(fn, autograph=False, jit_compile=_tier(jit))
    if program == "custom_gradient" and jit == "xla":
        pytest.skip("the XLA tier has no CustomGradient lowering (refused by name)")
    for x0 in (0.7, -0.4):
        got = _nested(f, _make(kind, x0))
        np.testing.assert_allclose(got, closed_form(x0), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got, _eager_oracle(fn, kind, x0), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("jit", TIERS)
def test_persistent_tape_through_a_tensor_array(jit):
    f = rt.function(_ta_gather_concat, autograph=False, jit_compile=_tier(jit))
    got = _nested(f, _make("variable", 0.3), order=2, persistent=True)
    np.testing.assert_allclose(got, _ta_gather_concat_d(0.3)[:2], rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
def test_a_variable_argument_and_captured_variables_at_every_order(jit):
    w = rt.Variable(np.float64(1.3))
    b = rt.Variable(np.float64(0.2))
    f = rt.function(lambda v: rt.sin(v * w) + b * v * v, autograph=False, jit_compile=_tier(jit))
    x = rt.Variable(np.float64(0.4))
    with rt.GradientTape() as t3:
        with rt.GradientTape() as t2:
            with rt.GradientTape() as t1:
                y = f(x)
            gx, gw, gb = t1.gradient(y, [x, w, b])
            first = gx + gw + gb
        hx, hw, hb = t2.gradient(first, [x, w, b])
        second = hx + hw + hb
    third = t3.gradient(second, [x, w, b])
    x0, w0, b0 = 0.4, 1.3, 0.2
    s, c = np.sin(x0 * w0), np.cos(x0 * w0)
    # closed forms of the partials of f = sin(x w) + b x**2 and of the sums above
    np.testing.assert_allclose([float(gx), float(gw), float(gb)],
                               [w0 * c + 2 * b0 * x0, x0 * c, x0 * x0], rtol=1e-9)
    np.testing.assert_allclose(
        [float(hx), float(hw), float(hb)],
        [-w0 * w0 * s + 2 * b0 + c - x0 * w0 * s + 2 * x0,
         c - w0 * x0 * s - x0 * x0 * s, 2 * x0],
        rtol=1e-9)
    rt.run_functions_eagerly(True)
    try:
        eager = rt.function(lambda v: rt.sin(v * w) + b * v * v, autograph=False)
        with rt.GradientTape() as e3:
            with rt.GradientTape() as e2:
                with rt.GradientTape() as e1:
                    ye = eager(x)
                e_first = sum(e1.gradient(ye, [x, w, b]))
            e_second = sum(g for g in e2.gradient(e_first, [x, w, b]) if g is not None)
        expected = e3.gradient(e_second, [x, w, b])
    finally:
        rt.run_functions_eagerly(False)
    for got, want in zip(third, expected):
        np.testing.assert_allclose(0.0 if got is None else float(got),
                                   0.0 if want is None else float(want), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("jit", [True, "xla"])
def test_every_order_compiles_on_the_functions_tier(jit, monkeypatch):
    """jit_compile is honoured at every order: each forward and backward graph built for the
    three nested tapes is compiled by the function's backend (a refusal would compile it on
    the NumPy tier, and show here)."""
    f = rt.function(lambda x: rt.exp(x) * x * x, autograph=False, jit_compile=_tier(jit))
    x = rt.Variable(np.float64(0.5))
    f(x)  # traced and compiled before the tapes
    seen = []
    original = backends.compile

    def spy(graph, backend, name="graph_fn", log=None):
        seen.append((name, backend.name))
        return original(graph, backend, name, log)

    monkeypatch.setattr(backends, "compile", spy)
    got = _nested(f, x, order=3)
    e, x0 = np.exp(0.5), 0.5
    np.testing.assert_allclose(got, [e * (x0 * x0 + 2 * x0), e * (x0 * x0 + 4 * x0 + 2),
                                     e * (x0 * x0 + 6 * x0 + 6)], rtol=1e-9)
    backward_names = [name for name, _ in seen if name.endswith("_backward")]
    assert len(backward_names) >= 2, seen  # the gradient, and the gradient of the gradient
    expected = backends.resolve(jit).name
    assert {tier for _, tier in seen} == {expected}, seen


@pytest.fixture
def op_without_gradient():
    """A differentiable op with no gradient rule, removed from the registry afterwards."""
    from runtime.opdef import REGISTRY, define

    op = define("TestOpWithoutGradient", lambda x: (x.shape, x.dtype), lambda x: x + 1.0)
    yield op
    REGISTRY.pop(op.name)


@pytest.mark.parametrize("n_tapes", [1, 2])
def test_a_missing_gradient_is_raised_by_gradient_not_by_the_call(op_without_gradient, n_tapes):
    """As in TensorFlow, a compiled function using an op without a gradient runs under
    tapes; `gradient` raises LookupError naming the op."""
    from runtime.ops.core import apply

    f = rt.function(lambda x: apply(op_without_gradient, [x * x]), autograph=False)
    x = rt.constant(np.float64(2.0))
    tapes = [rt.GradientTape() for _ in range(n_tapes)]
    for tape in tapes:
        tape.__enter__()
        tape.watch(x)
    y = f(x)
    for tape in reversed(tapes):
        tape.__exit__(None, None, None)
    assert float(y) == 5.0  # the call ran
    with pytest.raises(LookupError, match="TestOpWithoutGradient"):
        tapes[-1].gradient(y, x)


def _cube_or_sine(x):
    cube = rt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), (0, x))[1]
    return rt.cond(x > 0, lambda: cube, lambda: rt.sin(x))


def _staged_first_derivative(x):
    """d/dx of x**3 (x > 0) or sin x, by a tape inside the function: the traced graph holds
    the loop's saves and the backward loop reading them."""
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = _cube_or_sine(x)
    return tape.gradient(y, x)


@pytest.mark.parametrize("jit", TIERS)
def test_outer_tapes_around_a_gradient_staged_in_the_function(jit):
    f = rt.function(_staged_first_derivative, autograph=False, jit_compile=_tier(jit))
    for x0, closed_form in ((1.5, [6 * 1.5, 6.0, 0.0]),
                            (-0.7, [-np.sin(-0.7), -np.cos(-0.7), np.sin(-0.7)])):
        got = _nested(f, _make("variable", x0))
        np.testing.assert_allclose(got, closed_form, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got, _eager_oracle(_staged_first_derivative, "variable", x0),
                                   rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("jit", [None, True])  # the XLA tier has no CustomGradient lowering
def test_a_staged_loop_gradient_beside_a_custom_gradient_at_every_order(jit):
    """A graph holding a staged loop gradient (saves in a list) and a custom gradient: under
    nested tapes the function is traced again with the loop's saves on stacks, and every
    order gives the closed form and the eager answer (4 x**2: 8x, 8, 0), for a variable and
    for a tensor, on the function's tier."""
    fn = lambda x: _staged_first_derivative(x) + _square(x)  # noqa: E731
    f = rt.function(fn, autograph=False, jit_compile=_tier(jit))
    for kind in ("variable", "tensor"):
        for x0 in (1.5, 0.25):
            got = _nested(f, _make(kind, x0), order=3)
            np.testing.assert_allclose(got, [8 * x0, 8.0, 0.0], rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(got, _eager_oracle(fn, kind, x0), rtol=1e-9, atol=1e-12)


def test_the_differentiable_again_trace_binds_each_calls_variable():
    """The trace made again for nested tapes reads the variable each call passes, not the one
    the first call passed (three variables, one graph)."""
    f = rt.function(_staged_first_derivative, autograph=False)
    for x0 in (1.5, 2.0, 0.5):
        assert _nested(f, _make("variable", x0), order=2) == pytest.approx([6 * x0, 6.0])
    assert f.experimental_get_tracing_count() == 1


def test_a_loaded_function_whose_inner_loop_gradient_saves_in_a_list_refuses_by_name():
    """A graph that cannot be traced again (no Python function: a concrete function made
    from the graph alone) keeps its inner loop gradient's list: the order that would
    differentiate those saves raises naming the function and how to compute it."""
    traced = rt.function(_staged_first_derivative, autograph=False)
    x = _make("variable", 1.5)
    concrete = traced.get_concrete_function(x)
    bare = type(concrete)(concrete.graph, name="bare")
    assert bare.stacked_form is None
    assert _nested(bare, x, order=1) == [6 * 1.5]
    with pytest.raises(NotImplementedError, match=r"(?s)bare.*run_functions_eagerly"):
        _nested(bare, x, order=3)


@pytest.mark.parametrize("jit", [True, "xla"])
def test_a_loop_under_nested_tapes_runs_on_the_tier_or_says_which_op_it_cannot(jit, caplog):
    """A backward reading a loop's saves pops them from stacks (tensors): the Numba tier
    compiles every order; the XLA tier, which has no stack lowering, runs those gradients on
    the NumPy tier with a warning naming the op. Nothing runs op by op."""
    f = rt.function(_loop_reading_a_variable, autograph=False, jit_compile=_tier(jit))
    with caplog.at_level("WARNING"):
        got = _nested(f, _make("tensor", 0.7), order=3)
    np.testing.assert_allclose(got, _loop_reading_a_variable_d(0.7), rtol=1e-9)
    messages = [r.getMessage() for r in caplog.records]
    assert not any("op by op" in m for m in messages), messages
    fallbacks = [m for m in messages if "NumPy tier" in m]
    if jit is True:
        assert not fallbacks, fallbacks
    else:
        assert fallbacks and all("Stack" in m for m in fallbacks), fallbacks

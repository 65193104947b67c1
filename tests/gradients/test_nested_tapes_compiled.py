"""Higher-order gradients through calls of compiled functions, with two and three tapes.

Oracles: closed forms (d/dx exp = exp, d2/dx2 x**3 = 6x, d2/dx2 sin = -sin, ...) and central
differences in NumPy of hand-written first derivatives; never the runtime itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

TIERS = [None, True, "xla"]


def _tier(jit):
    if jit == "xla":
        pytest.importorskip("jax")
    return jit


def _compiled(fn, jit):
    return rt.function(fn, jit_compile=_tier(jit), autograph=False)


def _nested(fn, x, order: int, persistent: bool = False):
    """[f'(x), f''(x), ...] up to `order`, by `order` nested tapes around `fn(x)`.

    `x` is a tensor or a variable; each tape watches it explicitly."""
    tapes = [rt.GradientTape(persistent=persistent) for _ in range(order)]
    for tape in tapes:
        tape.__enter__()
        tape.watch(x)
    value = fn(x)
    derivatives = []
    for tape in reversed(tapes):  # the innermost tape first
        tape.__exit__(None, None, None)
        value = tape.gradient(value, x)
        assert value is not None, f"derivative {len(derivatives) + 1} is None"
        derivatives.append(float(value))
    return derivatives


@pytest.mark.parametrize("jit", TIERS)
def test_exp_of_a_variable_argument_with_two_tapes(jit):
    f = _compiled(rt.exp, jit)
    x = rt.Variable(1.0)
    with rt.GradientTape() as outer:
        with rt.GradientTape() as inner:
            y = f(x)
        g = inner.gradient(y, x)
    assert g is not None
    np.testing.assert_allclose(float(g), np.e, rtol=1e-6)
    np.testing.assert_allclose(float(outer.gradient(g, x)), np.e, rtol=1e-6)


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("make", [rt.constant, rt.Variable], ids=["tensor", "variable"])
def test_cube_with_three_tapes(jit, make):
    f = _compiled(lambda x: x * x * x, jit)
    x0 = 1.5
    got = _nested(f, make(np.float64(x0)), 3)
    np.testing.assert_allclose(got, [3 * x0 ** 2, 6 * x0, 6.0], rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("make", [rt.constant, rt.Variable], ids=["tensor", "variable"])
def test_sin_with_three_tapes(jit, make):
    f = _compiled(rt.sin, jit)
    x0 = 0.7
    got = _nested(f, make(np.float64(x0)), 3)
    np.testing.assert_allclose(got, [np.cos(x0), -np.sin(x0), -np.cos(x0)], rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
def test_four_tapes_around_exp_of_a_product(jit):
    f = _compiled(lambda x: rt.exp(2.0 * x), jit)
    x0 = 0.3
    got = _nested(f, rt.Variable(np.float64(x0)), 4)
    np.testing.assert_allclose(got, [2 ** k * np.exp(2 * x0) for k in (1, 2, 3, 4)], rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("make", [rt.constant, rt.Variable], ids=["tensor", "variable"])
def test_persistent_tapes(jit, make):
    f = _compiled(lambda x: x * x * x, jit)
    x0 = 2.0
    got = _nested(f, make(np.float64(x0)), 2, persistent=True)
    np.testing.assert_allclose(got, [12.0, 12.0], rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
def test_one_persistent_tape_differentiates_its_own_gradient_of_a_call(jit):
    f = _compiled(lambda x: x * x * x, jit)
    x = rt.Variable(np.float64(2.0))
    with rt.GradientTape(persistent=True) as tape:
        y = f(x)
        g = tape.gradient(y, x)
    assert float(g) == 12.0
    assert float(tape.gradient(g, x)) == 12.0


def _mixed_partials(x0, w0):
    """f = sin(x * w): the first partials and the derivatives of their sum, by hand."""
    c, s = np.cos(x0 * w0), np.sin(x0 * w0)
    first = [w0 * c, x0 * c]
    # d/dx (w c + x c) and d/dw (w c + x c)
    second = [-w0 * w0 * s + c - x0 * w0 * s, c - w0 * x0 * s - x0 * x0 * s]
    return first, second


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("argument", ["tensor", "variable"])
def test_an_argument_and_a_captured_variable(jit, argument):
    w = rt.Variable(np.float64(1.3))
    f = _compiled(lambda v: rt.sin(v * w), jit)
    x = rt.constant(np.float64(0.4)) if argument == "tensor" else rt.Variable(np.float64(0.4))
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        gx, gw = inner.gradient(y, [x, w])
        total = gx + gw
    hx, hw = outer.gradient(total, [x, w])
    first, second = _mixed_partials(0.4, 1.3)
    np.testing.assert_allclose([float(gx), float(gw)], first, rtol=1e-9)
    np.testing.assert_allclose([float(hx), float(hw)], second, rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
def test_outer_target_reads_the_value_and_the_gradient(jit):
    f = _compiled(rt.exp, jit)
    x = rt.Variable(np.float64(0.5))
    with rt.GradientTape() as outer:
        with rt.GradientTape() as inner:
            y = f(x)
        target = y * inner.gradient(y, x)  # exp(2x)
    np.testing.assert_allclose(float(outer.gradient(target, x)), 2 * np.exp(1.0), rtol=1e-9)


def _loop_cube_or_sine(x):
    """x**3 by a while loop when x > 0, else sin(x) (a cond)."""
    cube = rt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), (0, x))[1]
    return rt.cond(x > 0, lambda: cube, lambda: rt.sin(x))


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("make", [rt.constant, rt.Variable], ids=["tensor", "variable"])
def test_control_flow_inside_the_function(jit, make):
    f = _compiled(_loop_cube_or_sine, jit)
    np.testing.assert_allclose(_nested(f, make(np.float64(2.0)), 3), [12.0, 12.0, 6.0], rtol=1e-9)
    x0 = -0.8
    np.testing.assert_allclose(_nested(f, make(np.float64(x0)), 3),
                               [np.cos(x0), -np.sin(x0), -np.cos(x0)], rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
def test_autograph_control_flow_inside_the_function(jit):
    def f(x):
        y = x
        for _ in rt.range(3):
            y = y * x
        if x < 0:
            y = -y
        return y
    g = rt.function(f, jit_compile=_tier(jit))
    got = _nested(g, rt.Variable(np.float64(1.5)), 2)
    np.testing.assert_allclose(got, [4 * 1.5 ** 3, 12 * 1.5 ** 2], rtol=1e-9)


def _quadratic_form_gradient(a, x):
    """The gradient of x.A.x + sum(sin x), by hand (NumPy)."""
    return (a + a.T) @ x + np.cos(x)


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("make", [rt.constant, rt.Variable], ids=["tensor", "variable"])
def test_hessian_by_jacobian_of_a_gradient(jit, make):
    rng = np.random.default_rng(7)
    a = rng.normal(size=(3, 3))
    x0 = rng.normal(size=3)
    f = _compiled(lambda x: rt.reduce_sum(x * rt.reshape(rt.matmul(a, rt.reshape(x, [3, 1])), [3]))
                  + rt.reduce_sum(rt.sin(x)), jit)
    x = make(x0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    hessian = np.asarray(outer.jacobian(g, x))
    eps = 1e-6
    expected = np.stack([(_quadratic_form_gradient(a, x0 + eps * e) -
                          _quadratic_form_gradient(a, x0 - eps * e)) / (2 * eps)
                         for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(np.asarray(g), _quadratic_form_gradient(a, x0), rtol=1e-9)
    np.testing.assert_allclose(hessian, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("jit", TIERS)
def test_compiled_function_calling_a_compiled_function(jit):
    inner_f = _compiled(lambda x: rt.exp(x) * x, jit)
    outer_f = _compiled(lambda x: inner_f(x) + x * x, jit)
    x0 = 0.6
    got = _nested(outer_f, rt.Variable(np.float64(x0)), 3)
    e = np.exp(x0)
    np.testing.assert_allclose(got, [e * (1 + x0) + 2 * x0, e * (2 + x0) + 2, e * (3 + x0)],
                               rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
def test_gradient_staged_in_a_function_differentiated_by_an_outer_tape(jit):
    def first_derivative(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        return tape.gradient(y, x)
    f = _compiled(first_derivative, jit)
    x = rt.Variable(np.float64(1.5))
    with rt.GradientTape() as outer:
        d = f(x)
    np.testing.assert_allclose(float(d), 3 * 1.5 ** 2, rtol=1e-9)
    np.testing.assert_allclose(float(outer.gradient(d, x)), 6 * 1.5, rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
def test_side_effects_run_once_under_nested_tapes(jit):
    counter = rt.Variable(0.0, trainable=False)
    f = _compiled(lambda x: (counter.assign_add(1.0), x * x * x)[1], jit)
    got = _nested(f, rt.Variable(np.float64(2.0)), 3)
    np.testing.assert_allclose(got, [12.0, 12.0, 6.0], rtol=1e-9)
    assert float(counter) == 1.0


@pytest.mark.parametrize("jit", [None, True])  # the XLA tier has no CustomGradient lowering
def test_custom_gradient_closing_over_a_traced_tensor(jit):
    @rt.custom_gradient
    def square(x):
        return x * x, lambda dy: dy * 2.0 * x

    f = _compiled(lambda x: square(x) * x, jit)  # x**3
    np.testing.assert_allclose(_nested(f, rt.constant(np.float64(2.0)), 1), [12.0], rtol=1e-9)
    np.testing.assert_allclose(_nested(f, rt.constant(np.float64(2.0)), 3), [12.0, 12.0, 6.0],
                               rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
def test_a_random_draw_is_made_once(jit):
    f = _compiled(lambda x: rt.nn.dropout(x, 0.5) * x, jit)  # mask * x**2 / 0.5
    x0 = np.arange(1.0, 9.0)
    x = rt.constant(x0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    hessian_diag = outer.gradient(g, x)
    y0 = np.asarray(y)
    np.testing.assert_allclose(np.asarray(g), 2 * y0 / x0, rtol=1e-9)  # the same mask
    np.testing.assert_allclose(np.asarray(hessian_diag), 2 * y0 / x0 ** 2, rtol=1e-9)


@pytest.mark.parametrize("jit", TIERS)
def test_structured_outputs_with_an_integer_and_an_input_returned(jit):
    f = _compiled(lambda x: {"same": x, "square": x * x, "n": rt.constant(3)}, jit)

    def combined(x):
        d = f(x)
        return d["same"] + d["square"] * rt.cast(d["n"], rt.float64)  # x + 3x**2
    np.testing.assert_allclose(_nested(combined, rt.Variable(np.float64(2.0)), 3),
                               [13.0, 6.0, 0.0], rtol=1e-9)


@pytest.mark.parametrize("jit", [True, "xla"])
def test_the_differentiable_gradient_runs_on_the_functions_tier(jit):
    from runtime.function.recorded_call import higher_gradient_of

    f = _compiled(lambda x: rt.exp(x) * x, jit)
    x = rt.Variable(np.float64(0.5))
    _nested(f, x, 2)
    grad = higher_gradient_of(f.get_concrete_function(x))
    assert grad is not None
    tier = f.get_concrete_function(x).backend
    assert grad.backward_function.backend is tier
    assert type(grad.forward_compiled) is type(f.get_concrete_function(x).compiled)
    assert type(grad.backward_function.compiled) is type(f.get_concrete_function(x).compiled)


def _branches(x):
    """sin(x) * x when x > 0 (a nested cond: x**3 beyond 2), else exp(2x)."""
    def positive():
        return rt.cond(x > 2.0, lambda: x * x * x, lambda: rt.sin(x) * x)
    return rt.cond(x > 0, positive, lambda: rt.exp(2.0 * x))


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("make", [rt.constant, rt.Variable], ids=["tensor", "variable"])
def test_branch_values_read_by_the_gradient(jit, make):
    f = _compiled(_branches, jit)
    x0 = 0.9
    s, c = np.sin(x0), np.cos(x0)
    np.testing.assert_allclose(_nested(f, make(np.float64(x0)), 3),
                               [s + x0 * c, 2 * c - x0 * s, -3 * s - x0 * c], rtol=1e-9)
    np.testing.assert_allclose(_nested(f, make(np.float64(3.0)), 3), [27.0, 18.0, 6.0], rtol=1e-9)
    x0 = -0.4
    np.testing.assert_allclose(_nested(f, make(np.float64(x0)), 3),
                               [2 ** k * np.exp(2 * x0) for k in (1, 2, 3)], rtol=1e-9)

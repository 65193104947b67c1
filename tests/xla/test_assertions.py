"""Staged assertions and staged raises on the XLA tier: `rt.debugging.assert_*`, `rt.Assert`,
converted `assert` statements and a `raise` under a staged `if` compile, and a call whose
condition fails raises what the NumPy tier raises (type and message), with that tier's
effects on variables; a call whose conditions hold returns the NumPy tier's values without
running that tier. Printing stays refused.

Oracles: the NumPy tier (jit_compile=None) on the same program, plain Python on the
unconverted function (a converted `assert` raises where Python raises AssertionError, with
its message; a staged ValueError comes as rt.errors.InvalidArgumentError, a ValueError, as
docs/limitations.md says), TensorFlow's documented InvalidArgumentError for failed staged
assertions, and gradients computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import runtime as rt  # noqa: E402
from runtime.backends.base import JitCompileError  # noqa: E402
from runtime.backends.xla import compiler  # noqa: E402
from runtime.passes import run_passes  # noqa: E402

InvalidArgumentError = rt.errors.InvalidArgumentError
F = np.float32


def _outcome(fn, *args, jit_compile=None):
    """("value", [arrays]) or ("error", exception type, message) of one call on a tier."""
    try:
        out = rt.function(fn, jit_compile=jit_compile)(*args)
    except Exception as exc:  # the outcome compared, whatever it is
        return ("error", type(exc), str(exc))
    leaves = out if isinstance(out, (tuple, list)) else [out]
    return ("value", [np.asarray(t) for t in leaves])


def _same_outcome(fn, *args, rtol=0.0):
    """The XLA tier's outcome of `fn(*args)`, checked equal to the NumPy tier's (values
    within `rtol`: XLA's transcendental functions are its own, docs/xla.md)."""
    got, want = _outcome(fn, *args, jit_compile="xla"), _outcome(fn, *args)
    assert got[0] == want[0], (got, want)
    if got[0] == "error":
        assert got[1:] == want[1:]
        assert got[1] is not JitCompileError
    else:
        assert len(got[1]) == len(want[1])
        for a, b in zip(got[1], want[1]):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=rtol, atol=0)
    return got


def _code(fn, *args) -> int:
    """The validity code the XLA function of `fn` computes for `args` (0: every check held,
    so the call returns XLA's values and the NumPy tier does not run)."""
    concrete = rt.function(fn).get_concrete_function(*args)
    compiled = compiler.compile_graph(run_passes(concrete.graph), "f")
    assert isinstance(compiled, compiler.XlaCompiled)
    _, _, err = compiled.jitted(*args)
    return int(err)


def _python(fn, *args):
    """("value", result) or ("error", exception) of the unconverted function on NumPy values."""
    try:
        return ("value", fn(*args))
    except Exception as exc:  # the outcome compared
        return ("error", exc)


def _said(exc: BaseException) -> str:
    """The message a plain-Python exception was raised with (pytest adds lines to an
    AssertionError's after the first)."""
    return str(exc).splitlines()[0]


# -- the runtime's assertions ----------------------------------------------------------------

_ASSERTIONS = {
    "assert_equal": (lambda x, y: rt.debugging.assert_equal(x, y, message="not equal"),
                     (F([1, 2]), F([1, 2])), (F([1, 2]), F([1, 3]))),
    "assert_less": (lambda x, y: rt.debugging.assert_less(x, y), (F([1, 2]), F([2, 3])),
                    (F([1, 4]), F([2, 3]))),
    "assert_greater": (lambda x, y: rt.debugging.assert_greater(x, y, message="order"),
                       (F([3, 4]), F([2, 3])), (F([3, 3]), F([2, 3]))),
    "assert_positive": (lambda x, y: rt.debugging.assert_positive(x - y),
                        (F([3, 4]), F([2, 3])), (F([3, 0]), F([2, 3]))),
    "Assert_with_data": (lambda x, y: rt.Assert(rt.reduce_all(x < y), ["x:", x, "y:", y]),
                         (F([1, 2]), F([2, 3])), (F([1, 5]), F([2, 3]))),
}


@pytest.mark.parametrize("case", sorted(_ASSERTIONS))
def test_a_runtime_assertion_passes_or_fails_as_on_the_numpy_tier(case):
    check, passing, failing = _ASSERTIONS[case]

    def fn(x, y):
        check(x, y)
        return x * 2.0 + y

    got = _same_outcome(fn, *passing)
    np.testing.assert_array_equal(got[1][0], passing[0] * 2 + passing[1])  # NumPy's value
    assert _code(fn, *passing) == 0
    got = _same_outcome(fn, *failing)
    assert got[1] is InvalidArgumentError  # TensorFlow: a failed assertion when the graph runs
    assert "Assert" in got[2]  # the NumPy tier's message names the op and the user's line
    assert _code(fn, *failing) != 0


def test_the_failed_assertion_shows_the_data_as_the_numpy_tier_does():
    def fn(x):
        rt.Assert(rt.reduce_all(x > 0.0), ["x was", x])
        return x

    got = _same_outcome(fn, F([1.0, -2.0]))
    assert got[2].startswith("x was [ 1. -2.]")  # str() of the NumPy value, as the kernel shows


def test_an_assertion_known_while_compiling_raises_when_called():
    def fn(x):
        rt.debugging.assert_equal(rt.shape(x)[0], 3, message="three rows")
        return rt.reduce_sum(x)

    assert _same_outcome(fn, F([1, 2, 3]))[1][0] == 6.0
    f = rt.function(fn, jit_compile="xla")
    concrete = f.get_concrete_function(rt.TensorSpec([2], rt.float32))  # compiles, no error
    assert concrete is not None
    got = _same_outcome(fn, F([1, 2]))
    assert got[1] is InvalidArgumentError and "three rows" in got[2]


# -- converted `assert` statements, against plain Python -------------------------------------

def _checked_sqrt(x):
    assert rt.reduce_min(x) >= 0.0, "negative input"
    return rt.sqrt(x)


def _plain_sqrt(x):
    assert np.min(x) >= 0.0, "negative input"
    return np.sqrt(x)


@pytest.mark.parametrize("x", [F([4.0, 9.0]), F([4.0, -9.0])])
def test_a_converted_assert_statement_matches_plain_python(x):
    got = _same_outcome(_checked_sqrt, x)
    python = _python(_plain_sqrt, x)
    assert got[0] == python[0]
    if got[0] == "value":
        np.testing.assert_array_equal(got[1][0], python[1])
    else:
        assert isinstance(python[1], AssertionError)
        assert got[1] is InvalidArgumentError and _said(python[1]) in got[2]


def _branches(x, flag):
    if flag > 0:
        assert rt.reduce_sum(x) > 0.0, "sum must be positive"
        y = x + 1.0
    else:
        assert rt.reduce_sum(x) < 0.0, "sum must be negative"
        y = x - 1.0
    return y


def _plain_branches(x, flag):
    if flag > 0:
        assert np.sum(x) > 0.0, "sum must be positive"
        return x + 1.0
    assert np.sum(x) < 0.0, "sum must be negative"
    return x - 1.0


@pytest.mark.parametrize("x, flag", [(F([1, 2]), 1), (F([-1, -2]), 1), (F([-1, -2]), 0),
                                     (F([1, 2]), 0)])
def test_an_assert_in_a_staged_branch_counts_only_when_the_branch_runs(x, flag):
    got = _same_outcome(_branches, x, np.int32(flag))
    python = _python(_plain_branches, x, flag)
    assert got[0] == python[0]
    if got[0] == "value":
        np.testing.assert_array_equal(got[1][0], python[1])
    else:
        assert got[1] is InvalidArgumentError and _said(python[1]) in got[2]


def _running_sum(x, n):
    i = 0
    s = rt.constant(0.0)
    while i < n:
        assert x[i] > 0.0, "elements must be positive"
        s += x[i]
        i += 1
    return s


def _plain_running_sum(x, n):
    i, s = 0, F(0)
    while i < n:
        assert x[i] > 0.0, "elements must be positive"
        s += x[i]
        i += 1
    return s


@pytest.mark.parametrize("x", [F([1, 2, 3, 4]), F([1, 2, -3, 4]), F([-1, 2, 3, 4])])
def test_an_assert_in_a_staged_loop_matches_plain_python(x):
    got = _same_outcome(_running_sum, x, np.int32(4))
    python = _python(_plain_running_sum, x, 4)
    assert got[0] == python[0]
    if got[0] == "value":
        assert got[1][0] == python[1]
    else:
        assert got[1] is InvalidArgumentError and _said(python[1]) in got[2]


def test_a_failed_assert_ends_a_loop_that_would_not_end():
    def fn(x):
        while x > 0.0:
            assert x < 10.0, "too large"
            x = x + 1.0
        return x

    got = _same_outcome(fn, F(1.0))  # XLA's loop stops at the failed check: no hang
    assert got[1] is InvalidArgumentError and "too large" in got[2]
    assert _same_outcome(fn, F(-1.0))[1][0] == -1.0


def test_a_checked_op_in_a_loop_condition_keeps_its_check():
    def fn(x):
        i = rt.constant(0)
        while x[i] > 0.0:  # reads past the end unless a zero stops the loop
            i += 1
        return i

    assert _same_outcome(fn, F([1, 2, 0]))[1][0] == 2
    got = _same_outcome(fn, F([1, 2, 3]))  # XLA would clamp x[3] to x[2] and never stop
    assert got[1] is InvalidArgumentError
    with pytest.raises(IndexError):  # plain Python on the same values
        i = 0
        while F([1, 2, 3])[i] > 0.0:
            i += 1


def test_a_loop_condition_past_maximum_iterations_is_not_checked():
    def fn(x):  # the NumPy tier stops at the limit before it reads x[3]
        return rt.while_loop(lambda i: x[i] > 0.0, lambda i: i + 1, [rt.constant(0)],
                             maximum_iterations=3)

    x = F([1, 2, 3])
    assert _same_outcome(fn, x)[1][0] == 3
    assert _code(fn, x) == 0  # XLA's own result, not the NumPy tier's run again


# -- variables -------------------------------------------------------------------------------

def _assign_then_check(tier) -> tuple:
    """(the variable's value, the error) after a call whose assertion fails after an assign."""
    v = rt.Variable(1.0)

    def fn(x):
        v.assign(x)
        rt.debugging.assert_less(x, 5.0, message="x too large")
        v.assign_add(1.0)
        return v.read_value()

    f = rt.function(fn, jit_compile=tier)
    assert f(F(2.0)) == 3.0 and v.numpy() == 3.0  # both assignments
    with pytest.raises(InvalidArgumentError) as info:
        f(F(7.0))
    return float(v.numpy()), str(info.value)


def test_a_failed_assert_after_an_assign_leaves_the_numpy_tiers_value():
    got, want = _assign_then_check("xla"), _assign_then_check(None)
    assert got == want
    # TensorFlow runs the assign before the failing assertion (program order): x is stored
    assert got[0] == 7.0


# -- a raise under a staged if ---------------------------------------------------------------

def _guarded(x):
    if rt.reduce_sum(x) < 0.0:
        raise ValueError("the sum is negative")
    if rt.reduce_max(x) > 100.0:
        raise TypeError("values too large")
    return x * 3.0


def _plain_guarded(x):
    if np.sum(x) < 0.0:
        raise ValueError("the sum is negative")
    if np.max(x) > 100.0:
        raise TypeError("values too large")
    return x * 3.0


@pytest.mark.parametrize("x", [F([1, 2]), F([-5, 2]), F([1, 200])])
def test_a_raise_under_a_staged_if_matches_plain_python(x):
    got = _same_outcome(_guarded, x)
    python = _python(_plain_guarded, x)
    assert got[0] == python[0]
    if got[0] == "value":
        np.testing.assert_array_equal(got[1][0], python[1])
        assert _code(_guarded, x) == 0
    else:
        assert issubclass(got[1], type(python[1]))  # a ValueError comes as InvalidArgumentError
        assert _said(python[1]) in got[2]


# -- programs that are not run again ---------------------------------------------------------

def test_a_program_with_random_draws_raises_the_assertions_error_without_running_again():
    def fn(x):
        noise = rt.random.uniform(()) * 0.0
        if x > 10.0:
            raise TypeError("x above ten")
        rt.Assert(x < 5.0, ["x must be below five"])
        return x + noise

    f = rt.function(fn, jit_compile="xla")
    assert f(F(1.0)) == 1.0
    with pytest.raises(TypeError, match="x above ten"):  # the user's type, unchanged
        f(F(20.0))
    with pytest.raises(InvalidArgumentError, match="x must be below five") as info:
        f(F(7.0))
    assert "Assert" in str(info.value)  # names the op


# -- gradients -------------------------------------------------------------------------------

def test_a_gradient_through_a_function_with_a_passing_assert(caplog):
    def fn(x):
        rt.debugging.assert_positive(x, message="x must be positive")
        return rt.reduce_sum(x * x * x)

    f = rt.function(fn, jit_compile="xla")
    x = rt.constant(F([1.0, 2.0, 3.0]))
    with caplog.at_level("WARNING", logger="runtime.function"):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        grad = tape.gradient(y, x)
    np.testing.assert_allclose(grad.numpy(), 3 * F([1.0, 2.0, 3.0]) ** 2)  # d/dx x^3
    assert not [r for r in caplog.records if "NumPy tier" in r.getMessage()]  # ran on XLA
    with pytest.raises(InvalidArgumentError, match="x must be positive"):
        with rt.GradientTape() as tape:
            tape.watch(x)
            f(-x)


def test_a_tape_inside_the_function_with_an_assert():
    def fn(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            rt.debugging.assert_positive(x)
            y = rt.reduce_sum(rt.exp(x))
        return tape.gradient(y, x)

    got = _same_outcome(fn, F([0.5, 1.0]), rtol=1e-6)
    np.testing.assert_allclose(got[1][0], np.exp(F([0.5, 1.0])), rtol=1e-6)
    assert _same_outcome(fn, F([0.5, -1.0]))[1] is InvalidArgumentError


# -- printing stays refused ------------------------------------------------------------------

def test_printing_is_still_refused():
    def fn(x):
        rt.print("x =", x)
        return x

    with pytest.raises(JitCompileError, match="PrintV2") as info:
        rt.function(fn, jit_compile="xla")(F(1.0))
    assert "cannot print" in str(info.value) and "NumPy tier" in str(info.value)

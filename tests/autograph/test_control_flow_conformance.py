"""Control flow that must mean what plain Python means, or fail with a clear error: jumps
out of `with`/`try`, `raise` under a staged condition, globals, walrus tests, and the
exception types staging errors use. Each test compares with the native run."""

from __future__ import annotations

import pytest

import autograph as ag
import runtime as rt

from .helpers import assert_same, run

G = 0


def assign_global_under_tensor_if(x):
    global G
    if x > 0:
        G = x
    return x


def test_global_assigned_under_staged_if_is_an_error_naming_it():
    with pytest.raises(ag.StagingError, match=r"'G' is declared `global`.*conformance.py:\d+"):
        rt.function(assign_global_under_tensor_if)(rt.constant(1))
    assert G == 0
    assert ag.to_graph(assign_global_under_tensor_if)(1) == 1


def assign_global_in_tensor_loop(n):
    global G
    i = 0
    while i < n:
        G = i
        i += 1
    return i


def test_global_assigned_in_staged_loop_is_an_error():
    with pytest.raises(ag.StagingError, match="'G'.*a loop"):
        rt.function(assign_global_in_tensor_loop)(rt.constant(3))


def test_staging_errors_are_value_errors():
    def one_branch(x):
        if x > 0:
            y = 1
        return y

    with pytest.raises(ValueError, match="'y' is assigned in only one branch"):
        rt.function(one_branch)(rt.constant(1))
    assert issubclass(ag.StagingError, TypeError)


def test_walrus_in_staged_while_test_is_a_loop_variable():
    def f(x):
        n = 0
        while (x := x * 2.0) < 100.0:
            n += 1
        return n

    compiled = rt.function(f)
    for x in (1.0, 3.0, 200.0):
        assert_same(run(f, (x,)), run(compiled, (rt.constant(x),)))


def test_composite_read_from_an_undefined_key_is_a_key_error():
    def f(x):
        d = {}
        if x > 0:
            d["a"]["b"] = 1
        return x

    assert run(f, (1,)).error is KeyError
    assert run(rt.function(f), (rt.constant(1),)).error is KeyError


def test_variable_first_read_in_staged_loop_names_it():
    def f(x):
        while x > 0:
            x -= 1
            a = a + 1  # noqa: F821, F841 - read before assignment, as the test wants
        return x

    assert issubclass(run(f, (1,)).error, NameError)
    with pytest.raises(UnboundLocalError, match="'a' is read before it is assigned"):
        rt.function(f)(rt.constant(1))


def test_methods_of_a_class_defined_in_converted_code_are_converted():
    def f(x):
        class Sign:
            def of(self, v):
                if v > 0:
                    return v
                return -v
        return Sign().of(x)

    compiled = rt.function(f)
    for x in (3, -2):
        assert_same(run(f, (x,)), run(compiled, (rt.constant(x),)))


def match_on_tensor(x):
    match x:
        case 1:
            return 1
        case _:
            return 2


def sorted_tensor(x):
    return sorted(x)


def contains_in_tensor(x):
    return 1 in x


@pytest.mark.parametrize("fn, hint", [(match_on_tensor, "`match` statement"),
                                      (sorted_tensor, "`sorted`"),
                                      (contains_in_tensor, "`in` on a tensor")])
def test_unconverted_constructs_do_not_advise_converting(fn, hint):
    arg = rt.constant(1) if fn is match_on_tensor else rt.constant([3, 1])
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        rt.function(fn)(arg)
    message = str(info.value)
    assert hint in message and "autograph=True" not in message

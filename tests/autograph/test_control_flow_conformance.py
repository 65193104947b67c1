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

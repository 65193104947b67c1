"""Operators with Python values (exact Python semantics) and with a fake staged backend."""

from __future__ import annotations

import pytest

import autograph as ag
from autograph import operators as ops
from autograph.operators import dispatch

from .fake_backend import FakeBackend, Sym, value


@pytest.fixture
def fake():
    backend = ag.register_backend(FakeBackend())
    yield backend
    ag.unregister_backend(backend)


# -- Python values ----------------------------------------------------------------------------------

def test_if_stmt_with_python_values():
    assert ops.if_stmt(True, lambda: 1, lambda: 2) == 1
    assert ops.if_stmt(0, lambda: 1, lambda: 2) == 2
    assert ops.if_stmt([], lambda: 1) is None
    with pytest.raises(ZeroDivisionError):
        ops.if_stmt(1, lambda: 1 // 0)


def test_logical_operators_are_lazy_like_python():
    calls = []

    def rhs(v):
        def fn():
            calls.append(v)
            return v
        return fn

    assert ops.and_(0, rhs(1)) == 0 and calls == []
    assert ops.and_(1, rhs(2), rhs(3)) == 3 and calls == [2, 3]
    assert ops.or_("", rhs(0), rhs("x")) == "x"
    assert ops.or_(5, rhs(9)) == 5 and calls == [2, 3, 0, "x"]
    assert ops.not_([]) is True
    assert ops.eq(1, 1.0) is True and ops.ne("a", "b") is True


def test_loops_with_python_values():
    state = {"i": 0}

    def body():
        state["i"] += 1
        return ops.BREAK if state["i"] == 3 else None

    assert ops.while_stmt(lambda: True, body) is None and state["i"] == 3
    seen = []
    assert ops.for_stmt([1, 2, 3], lambda x: seen.append(x), orelse=lambda: "done") == "done"
    assert seen == [1, 2, 3]
    assert ops.for_stmt(range(5), lambda x: ops.Return(x * 10) if x == 2 else None) == 20
    assert ops.for_stmt(range(5), lambda x: ops.Return(x, 2) if x == 1 else None).depth == 1
    assert ops.for_stmt([1], lambda x: ops.BREAK, orelse=lambda: 1, on_break=lambda: 2) == 2


def test_builtins_with_python_values():
    assert ops.len_([1, 2]) == 2 and ops.range_(3) == range(3)
    assert list(ops.enumerate_("ab", 1)) == [(1, "a"), (2, "b")]
    assert list(ops.zip_([1], [2])) == [(1, 2)]
    assert ops.abs_(-2) == 2 and ops.int_("7") == 7 and ops.int_("ff", 16) == 255
    assert ops.float_(2) == 2.0 and ops.min_(3, 1, 2) == 1 and ops.max_([4, 5]) == 5
    assert ops.sum_([1, 2], 10) == 13 and ops.any_([0, 1]) and not ops.all_([0, 1])
    with pytest.raises(TypeError):
        ops.len_(5)


def test_print_and_assert_with_python_values(capsys):
    ops.print_("a", 1, sep="-", end="!")
    assert capsys.readouterr().out == "a-1!"
    ops.assert_stmt(True)
    with pytest.raises(AssertionError, match="bad"):
        ops.assert_stmt(False, lambda: "bad")
    with pytest.raises(AssertionError):
        ops.assert_stmt(0)


def test_list_operations_with_python_values():
    xs = [1]
    alias = xs
    assert ops.list_append(xs, 2) is xs and alias == [1, 2]
    assert ops.list_pop(xs) == (xs, 2) and ops.list_pop([1, 2, 3], 0) == ([2, 3], 1)


def test_dispatch_ignores_plain_values(fake):
    assert dispatch.staged_backend(3) is None and dispatch.staged_backend([Sym(1)]) is None
    assert dispatch.staged_backend(Sym(1)) is fake
    assert dispatch.backend_of(Sym(1)) is fake


# -- staged values (fake backend) ------------------------------------------------------------------

def test_staged_if_merges_variables(fake):
    def f(x):
        if x > 0:
            y = x * 2
        else:
            y = -x
        return y

    g = ag.to_graph(f)
    assert value(g(Sym(3))) == 6 and value(g(Sym(-4))) == 4
    assert fake.log.count("cond") == 2


def test_staged_if_undefined_in_one_branch_is_an_error(fake):
    def f(x):
        if x > 0:
            y = 1
        return y

    with pytest.raises(ag.StagingError, match="'y'"):
        ag.to_graph(f)(Sym(1))


def test_staged_while_and_break(fake):
    def f(n):
        i = 0
        s = 0
        while i < n:
            if s > 10:
                break
            s += i
            i += 1
        return s

    assert value(ag.to_graph(f)(Sym(100))) == f(100)
    assert "while" in fake.log


def test_python_loop_switches_to_staged_on_staged_break(fake):
    def f(x):
        count = 0
        for i in range(10):
            if x < i:
                break
            count += 1
        return count

    assert value(ag.to_graph(f)(Sym(4))) == 5
    assert "while" in fake.log


def test_staged_return_inside_loop(fake):
    def f(n):
        i = 0
        while i < n:
            if i * i > 20:
                return i
            i += 1
        return -1

    assert value(ag.to_graph(f)(Sym(100))) == 5
    assert value(ag.to_graph(f)(Sym(3))) == -1


def test_staged_logic_print_and_builtins(fake):
    def f(x, y):
        print("sum", x + y)
        assert x > 0, "positive"
        a = x > 0 and y > 0
        b = not x > 5
        return a, b, abs(-x), max(x, y), len([1, 2])

    staged_print = ag.experimental.Feature.STAGED_PRINT
    out = ag.to_graph(f, experimental_optional_features=staged_print)(Sym(2), Sym(3))
    assert [value(v) for v in out] == [True, True, 2, 3, 2]
    assert fake.printed == ["sum 5\n"]
    assert ("assert", "assertion failed (at %s:%d): positive" % (
        __file__, f.__code__.co_firstlineno + 2)) in fake.log


def test_print_runs_as_python_without_the_staged_print_feature(fake, capsys):
    def f(x, y):
        print("sum", x + y)
        return x

    ag.to_graph(f)(Sym(2), Sym(3))
    assert fake.printed == []
    assert capsys.readouterr().out.startswith("sum ")


def test_for_over_staged_range_and_enumerate(fake):
    def f(n):
        s = 0
        for i in range(n):
            s += i
        return s

    assert value(ag.to_graph(f)(Sym(5))) == 10

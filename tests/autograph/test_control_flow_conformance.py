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

    assert run(f, (1,)).error is UnboundLocalError
    assert_same(run(f, (1,)), run(ag.to_graph(f), (1,)))
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


def raise_when_positive(x, error):
    if x > 0:
        raise error("positive input")
    return x / 2


@pytest.mark.parametrize("error", [ValueError, RuntimeError, KeyError])
def test_raise_under_staged_if_raises_when_the_graph_runs(error):
    compiled = rt.function(raise_when_positive)
    assert float(compiled(rt.constant(-4.0), error)) == -2.0
    with pytest.raises(error, match="positive input"):
        compiled(rt.constant(3.0), error)
    assert compiled.experimental_get_tracing_count() == 1


def test_raise_in_else_branch_and_in_both_branches():
    def f(x):
        if x > 0:
            y = x * 2
        else:
            raise ValueError("not positive")
        return y

    def both(x):
        if x > 0:
            raise KeyError("positive")
        else:
            raise RuntimeError("not positive")

    compiled, compiled_both = rt.function(f), rt.function(both)
    assert float(compiled(rt.constant(2.0))) == 4.0
    with pytest.raises(ValueError, match="not positive"):
        compiled(rt.constant(-1.0))
    with pytest.raises(KeyError):
        compiled_both(rt.constant(1.0))
    with pytest.raises(RuntimeError):
        compiled_both(rt.constant(-1.0))


def except_catching_staged_raise(x):
    try:
        if x > 0:
            raise KeyError("positive")
        y = x / 2
    except KeyError:
        y = x * 100.0
    return y


def except_value_error_catching_staged_raise(x):
    try:
        if x > 0:
            raise ValueError("positive")
        y = x / 2
    except ValueError:
        y = x * 100.0
    return y


def test_except_that_would_catch_a_staged_raise_is_refused():
    assert except_catching_staged_raise(3.0) == 300.0
    assert ag.to_graph(except_catching_staged_raise)(3.0) == 300.0
    with pytest.raises(ag.StagingError, match="KeyError is raised under a condition.*`except`"):
        rt.function(except_catching_staged_raise)(rt.constant(-1.0))
    # a StagingError would be caught by `except ValueError` itself: the refusal escapes it
    with pytest.raises(BaseException, match="ValueError is raised under a condition") as info:
        rt.function(except_value_error_catching_staged_raise)(rt.constant(-1.0))
    assert not isinstance(info.value, Exception)


def test_except_that_cannot_catch_the_staged_raise_is_fine():
    def f(x):
        try:
            if x > 0:
                raise ValueError("positive")
            y = x / 2
        except ZeroDivisionError:
            y = x
        return y

    compiled = rt.function(f)
    assert float(compiled(rt.constant(-2.0))) == -1.0
    with pytest.raises(ValueError, match="positive"):
        compiled(rt.constant(2.0))


class Recorder:
    """A context manager that records how often it is entered and left."""

    def __init__(self):
        self.events = []

    def __enter__(self):
        self.events.append("enter")
        return self

    def __exit__(self, *exc_info):
        self.events.append("exit")
        return False


def with_and_finally_around_staged_returns(x, rec):
    with rec:
        try:
            if x > 0:
                return x
            with rec:
                if x < -5:
                    return -x
                x = x * 3
        finally:
            rec.events.append("finally")
    return x


@pytest.mark.parametrize("x", [2, -7, -1])
def test_exit_and_finally_run_once_on_every_path(x):
    native_rec, converted_rec, staged_rec = Recorder(), Recorder(), Recorder()
    expected = with_and_finally_around_staged_returns(x, native_rec)
    assert ag.to_graph(with_and_finally_around_staged_returns)(x, converted_rec) == expected
    assert converted_rec.events == native_rec.events
    staged = rt.function(with_and_finally_around_staged_returns)(rt.constant(x), staged_rec)
    assert int(staged) == expected
    # traced once: the outer `with` and `finally` once, the inner `with` once
    assert staged_rec.events == ["enter", "enter", "exit", "finally", "exit"]


def test_empty_name_scope_is_legal():
    def f(x):
        with rt.name_scope("outer"):
            with rt.name_scope(""):
                y = x + 1
            return y * 2

    assert int(rt.function(f)(rt.constant(1))) == 4


def test_staged_loop_whose_outputs_nobody_uses_still_runs(capsys):
    def prints(n):
        i = 0
        while i < n:
            rt.print(i)
            i += 1
        return n

    def pure(n):
        i = 0
        while i < n:
            i += 1
        return n

    assert int(rt.function(prints)(rt.constant(3))) == 3
    assert capsys.readouterr().out == "0\n1\n2\n"
    # a pure loop whose results nobody uses is not run: TensorFlow prunes it too (there a
    # tf.while_loop of 2e9 steps whose results are unused returns at once)
    from runtime.passes import live_operations
    graph = rt.function(pure).get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    assert "While" in [op.type for op in graph.operations]
    assert "While" not in [op.type for op in live_operations(graph, graph.outputs)]


def test_raise_in_staged_loop_and_elif():
    def in_loop(n):
        i = 0
        while i < n:
            if i == 3:
                raise ValueError("three")
            i += 1
        return i

    def in_elif(x):
        if x > 10:
            y = 1
        elif x > 5:
            raise KeyError("middle")
        else:
            y = 2
        return y

    loop, elif_ = rt.function(in_loop), rt.function(in_elif)
    assert int(loop(rt.constant(2))) == 2
    with pytest.raises(ValueError, match="three"):
        loop(rt.constant(5))
    assert int(elif_(rt.constant(11))) == 1 and int(elif_(rt.constant(1))) == 2
    with pytest.raises(KeyError, match="middle"):
        elif_(rt.constant(7))


@ag.do_not_convert
def not_converted_sign(x):
    if x > 0:
        return 1
    return -1


def calls_not_converted(x):
    return not_converted_sign(x)


def test_tensor_bool_in_unconverted_callee_keeps_the_advice_to_convert():
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="autograph=True"):
        rt.function(calls_not_converted)(rt.constant(1))


def assigned_before_an_exception_leaves_through_finally(a, y):
    try:
        k = 0
        while k < 0:
            k += 1
        else:
            if a > 5:
                y = 1.0
            elif a > 0:
                y = 6.0
            try:
                assert a > 3, "small"
                y = -1.0
            finally:
                a = a + 0
    finally:
        print("y is", y)
    return a, y


@pytest.mark.parametrize("a", [-1, 2, 4, 7])
def test_value_assigned_before_an_exception_reaches_the_finally(a):
    f = assigned_before_an_exception_leaves_through_finally
    assert_same(run(f, (a, 0.5)), run(ag.to_graph(f), (a, 0.5)))
    if a > 3:       # staged, a failing assert raises when the graph runs, after the finally
        assert_same(run(f, (a, 0.5)), run(rt.function(f), (rt.constant(a), rt.constant(0.5))))


def return_in_except_under_staged_if(a, x):
    with Tracked():
        if x > 0:
            x = x * 2.0
            try:
                x = x + 1.0
            except ValueError:
                if a > 1:
                    return x
    a -= 1
    return x


class Tracked:
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False


@pytest.mark.parametrize("a, x", [(0, 1.0), (2, 1.0), (2, -1.0)])
def test_return_in_an_except_that_cannot_run_staged(a, x):
    f = return_in_except_under_staged_if
    assert_same(run(f, (a, x)), run(rt.function(f), (rt.constant(a), rt.constant(x))))


def returns_in_loop_with_other_lengths(x, n):
    i = 0
    while i < n:
        if x > 1.0:
            return rt.stack([x, x])
        x = x * 2.0
        i += 1
    return rt.stack([x])


@pytest.mark.parametrize("x, n", [(0.5, 3), (3.0, 2), (0.1, 1)])
def test_staged_if_gives_a_value_other_dims_of_the_same_rank(x, n):
    f = returns_in_loop_with_other_lengths
    assert_same(run(f, (x, n)), run(rt.function(f), (rt.constant(x), rt.constant(n))))


def test_staged_if_still_needs_the_same_rank():
    def f(x):
        if x > 0:
            y = rt.stack([x])
        else:
            y = x
        return y

    with pytest.raises(ValueError, match="'y' has shape.*same rank"):
        rt.function(f)(rt.constant(1.0))


def refused_in_a_loop_inside_try_finally(x, n):
    try:
        i = 0
        while i < n:
            x = x * 2.0
            try:
                if x > 4.0:
                    raise KeyError("big")
            except KeyError:
                x = 0.0
            i += 1
    finally:
        y = x + 1.0
    return y


def test_a_finally_after_a_refused_loop_sees_the_values_from_before_it():
    with pytest.raises(ag.StagingError, match="`except`"):
        rt.function(refused_in_a_loop_inside_try_finally)(rt.constant(1.0), rt.constant(3))


def header_reads_a_name_only_a_nested_branch_assigns(a, x):
    for _ in range(2 if x > 0.5 else 1):
        if a > 1:
            a = a - 1
        else:
            x = float(a)
            a = a + int(x)
    x = float(a) * 2.0
    return a, x


@pytest.mark.parametrize("a, x", [(0, 1.0), (3, 0.0), (5, 2.0)])
def test_a_name_the_header_reads_and_a_nested_branch_assigns_is_not_carried(a, x):
    f = header_reads_a_name_only_a_nested_branch_assigns
    assert_same(run(f, (a, x)), run(ag.to_graph(f), (a, x)))
    assert_same(run(f, (a, x)), run(rt.function(f), (rt.constant(a), rt.constant(x))))


def break_in_try_and_return_in_except_in_a_loop(a, v):
    for _ in range(3):
        v = v + 1.0
        try:
            try:
                if a == 2:
                    break
            except ValueError:
                if v < 0.0:
                    return a, v
        except ValueError:
            a -= 1
    return a, v


@pytest.mark.parametrize("a", [0, 2])
def test_a_loop_whose_return_sits_in_an_except_stages(a):
    f = break_in_try_and_return_in_except_in_a_loop
    assert_same(run(f, (a, 0.5)), run(rt.function(f), (rt.constant(a), rt.constant(0.5))))

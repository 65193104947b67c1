"""Errors raised from converted code name the user's original file and line."""

from __future__ import annotations

import sys
import traceback

import pytest

import autograph as ag
import runtime as rt

THIS_FILE = __file__


def _line_of(fn, text: str) -> int:
    import inspect
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


def divide(x):
    y = x + 1
    if y > 0:
        z = 10 // (y - 2)
    else:
        z = 0
    return z


def test_python_error_names_file_and_line_in_message_and_traceback():
    with pytest.raises(ZeroDivisionError) as info:
        ag.to_graph(divide)(1)
    line = _line_of(divide, "z = 10 // (y - 2)")
    message = str(info.value)
    assert THIS_FILE in message and f"line {line}" in message
    assert message.splitlines()[0] == "in user code:"
    formatted = "".join(traceback.format_exception(info.value))
    assert f'File "{THIS_FILE}", line {line}, in' in formatted
    assert "z = 10 // (y - 2)" in formatted


def test_traceback_hides_autograph_internals():
    with pytest.raises(ZeroDivisionError) as info:
        ag.to_graph(divide)(1)
    formatted = "".join(traceback.format_exception(info.value))
    assert "autograph/operators" not in formatted


def branch_only(x):
    if x > 0:
        y = 1
    return y


def test_unbound_local_error_with_python_values():
    assert ag.to_graph(branch_only)(1) == 1
    with pytest.raises(UnboundLocalError) as info:
        ag.to_graph(branch_only)(-1)
    assert "'y'" in str(info.value)
    assert f"line {_line_of(branch_only, 'return y')}" in str(info.value)


def test_unbound_local_error_in_loop_with_python_values():
    def first_loop(n):
        for i in range(n):
            last = i
        return last
    assert ag.to_graph(first_loop)(3) == 2
    with pytest.raises(UnboundLocalError):
        ag.to_graph(first_loop)(0)


def test_staged_variable_in_one_branch_names_variable_and_line():
    with pytest.raises(ag.StagingError) as info:
        rt.function(branch_only)(rt.constant(1))
    message = str(info.value)
    assert "'y'" in message
    assert f"{THIS_FILE}:{_line_of(branch_only, 'if x > 0')}" in message


def first_assigned_in_loop(n):
    for i in range(n):
        y = i * 2
    return y


def test_variable_first_assigned_in_staged_loop():
    f = rt.function(first_assigned_in_loop)
    assert f(rt.constant(3)).numpy() == 4
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        f(rt.constant(0))
    assert "'y'" in str(info.value) and "zero times" in str(info.value)
    assert THIS_FILE in str(info.value)
    assert f.experimental_get_tracing_count() == 1


def doubling(n):
    x = rt.constant([1.0])
    i = 0
    while i < n:
        x = rt.concat([x, x], axis=0)
        i += 1
    return x


def doubling_with_invariant(n):
    x = rt.constant([1.0])
    i = 0
    while i < n:
        ag.experimental.set_loop_options(shape_invariants=[(x, rt.TensorShape([None]))])
        x = rt.concat([x, x], axis=0)
        i += 1
    return x


def test_loop_variable_changing_shape_names_it_and_suggests_the_fix():
    with pytest.raises((ValueError, TypeError)) as info:
        rt.function(doubling)(rt.constant(3))
    message = str(info.value)
    assert "'x'" in message
    assert "(1,)" in message and "(2,)" in message
    assert "ag.experimental.set_loop_options(shape_invariants=[(x, rt.TensorShape([None]))])" in message
    assert f"line {_line_of(doubling, 'while i < n')}" in message
    out = rt.function(doubling_with_invariant)(rt.constant(3))
    assert out.numpy().tolist() == [1.0] * 8


def changes_dtype(n):
    x = 0
    i = 0
    while i < n:
        x = rt.cast(x, rt.float32) + 0.5
        i += 1
    return x


def test_loop_variable_changing_dtype_names_it():
    with pytest.raises(TypeError) as info:
        rt.function(changes_dtype)(rt.constant(3))
    assert "'x'" in str(info.value) and "int32" in str(info.value) and "float32" in str(info.value)


def test_error_inside_called_function_points_at_its_line():
    def outer(x):
        return inner(x) + 1

    with pytest.raises(ZeroDivisionError) as info:
        ag.to_graph(outer)(0)
    assert f"line {_line_of(inner, 'return 1 // x')}" in str(info.value)
    formatted = "".join(traceback.format_exception(info.value))
    assert "return inner(x) + 1" in formatted and "return 1 // x" in formatted


def inner(x):
    if x >= 0:
        return 1 // x
    return 0


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are new in Python 3.11")
def test_key_error_keeps_its_message_and_gets_a_note():
    def lookup(d):
        if len(d) > 0:
            return d["missing"]
        return None

    with pytest.raises(KeyError) as info:
        ag.to_graph(lookup)({"a": 1})
    assert info.value.args == ("missing",)
    formatted = "".join(traceback.format_exception(info.value))
    assert "in user code" in formatted and THIS_FILE in formatted


def test_user_code_catching_an_error_sees_the_plain_message():
    def catches(x):
        try:
            return 1 // x
        except ZeroDivisionError as e:
            return str(e)

    assert ag.to_graph(catches)(0) == "integer division or modulo by zero"


def test_generator_functions_are_refused():
    def gen(n):
        for i in range(n):
            yield i

    with pytest.raises(TypeError, match="generator"):
        ag.to_graph(gen)
    with pytest.raises(TypeError, match="generator"):
        ag.to_code(gen)
    with pytest.raises(TypeError, match="generator"):
        rt.function(gen)(rt.constant(3))


def test_generator_called_from_converted_code_runs_unconverted(caplog):
    def gen(n):
        for i in range(n):
            yield i * 2

    def total(n):
        s = 0
        for v in gen(n):
            s += v
        return s

    assert ag.to_graph(total)(4) == 12


def test_staged_assert_failure_is_raised_when_the_graph_runs():
    def checked(x):
        assert x > 0, "x must be positive"
        return x

    f = rt.function(checked)
    assert f(rt.constant(2)).numpy() == 2
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        f(rt.constant(-2))
    assert "x must be positive" in str(info.value)
    assert THIS_FILE in str(info.value)


def test_python_assert_failure_with_python_values():
    def checked(x):
        assert x > 0, "x must be positive"
        return x

    with pytest.raises(AssertionError, match="x must be positive"):
        ag.to_graph(checked)(-1)


def test_bad_directive_is_a_conversion_error_with_location():
    def bad(n):
        i = 0
        while i < n:
            ag.experimental.set_loop_options(shape_invariants=[(i + 1, None)])
            i += 1
        return i

    with pytest.raises(ag.ConversionError) as info:
        ag.to_graph(bad)
    assert THIS_FILE in str(info.value)


def structure_changing_loop(n):
    x = (rt.constant(0.0),)
    i = 0
    while i < n:
        x = [x[0], x[0]]
        i += 1
    return x


def test_loop_variable_changing_structure_names_both_structures():
    with pytest.raises(ag.StagingError) as info:
        rt.function(structure_changing_loop)(rt.constant(3))
    message = str(info.value)
    assert "'x'" in message
    assert "a tuple of 1 items to a list of 2 items" in message

"""Builtins over tensors: `any`/`all`/`sum`/`min`/`max` of generator expressions are staged,
Python's meaning (iterating the first axis) is kept, and the error for a tensor used as a
Python bool gives advice that fits the function."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph.operators.py_builtins import all_, any_


def _three_ways(fn, python_args, tensor_args):
    """(native result, converted result on Python values, compiled result on tensors)."""
    return fn(*python_args), ag.to_graph(fn)(*python_args), rt.function(fn)(*tensor_args)


@pytest.mark.parametrize("xs", [[1.0, 2.0, 3.0], [0.0, -2.0, 5.0], [-1.0, -2.0, -3.0]])
def test_generator_expressions_are_staged(xs):
    def f(xs):
        return (any(x > 2 for x in xs), all(x > -2 for x in xs), sum(x for x in xs),
                min(2 * x for x in xs), max(x for x in xs))

    native, converted, compiled = _three_ways(f, (xs,), (rt.constant(xs),))
    assert converted == native
    assert [v.numpy().item() for v in compiled] == pytest.approx(list(native))


def test_any_short_circuits_like_python():
    seen = []

    def items(xs):
        for x in xs:
            seen.append(x)
            yield x

    assert any_(items([0, 1, 2])) is True and seen == [0, 1]
    seen.clear()
    assert all_(items([1, 0, 2])) is False and seen == [1, 0]
    assert any_([]) is False and all_([]) is True


def test_python_items_decide_before_staged_ones():
    def f(x):
        return any([x > 0, True]), all([x > 0, False])

    assert rt.function(f)(rt.constant(-1.0)) == (True, False)


def test_sum_of_a_matrix_adds_rows():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])

    def f(x):
        return sum(x)

    native, converted, compiled = _three_ways(f, (x,), (rt.constant(x),))
    np.testing.assert_allclose(converted, native)
    np.testing.assert_allclose(compiled.numpy(), native)


@pytest.mark.parametrize("builtin", [max, min, any, all])
def test_comparing_rows_of_a_matrix_is_ambiguous(builtin):
    x = np.array([[1.0, 2.0], [3.0, 4.0]])

    def f(x):
        return builtin(x)

    with pytest.raises(ValueError):
        f(x)
    with pytest.raises(ValueError, match="ambiguous"):
        rt.function(f)(rt.constant(x))


def test_bool_error_in_converted_code_does_not_advise_autograph():
    def f(xs):
        return [x for x in xs if x > 1]

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        rt.function(f)(rt.constant([1.0, 2.0]))
    message = str(info.value)
    assert "autograph=True" not in message and "tf.Tensor" not in message
    assert "comprehension" in message
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="autograph=True") as info:
        rt.function(f, autograph=False)(rt.constant([1.0, 2.0]))
    assert "tf.Tensor" not in str(info.value)

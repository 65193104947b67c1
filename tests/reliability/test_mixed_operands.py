"""Operands that used to give silent wrong values now raise TypeError."""

import numpy as np
import pytest

import runtime as rt


def both_ways(fn, *args):
    """Runs fn eagerly and compiled; yields each way's callable."""
    yield lambda: fn(*args)
    yield lambda: rt.function(fn, autograph=False)(*args)


@pytest.mark.parametrize("fn", [lambda x: x + None, lambda x: x * [None, 1.0],
                                lambda x: None - x, lambda x: rt.add(x, None)],
                         ids=["add-none", "mul-list-with-none", "rsub-none", "rt.add-none"])
def test_none_operands_raise(fn):
    for run in both_ways(fn, rt.constant([1.0, 2.0])):
        with pytest.raises(TypeError, match="None"):
            run()


@pytest.mark.parametrize("fn", [lambda b: b + 1, lambda b: b + b, lambda b: b * 2, lambda b: b - True])
def test_arithmetic_on_bools_raises_as_in_tensorflow(fn):
    for run in both_ways(fn, rt.constant([True, False])):
        with pytest.raises(TypeError, match="bool"):
            run()


def test_logical_ops_on_bools_still_work():
    b = rt.constant([True, False])
    np.testing.assert_array_equal(rt.logical_or(b, True).numpy(), [True, True])
    np.testing.assert_array_equal(rt.logical_and(b, b).numpy(), [True, False])


@pytest.mark.parametrize("dtype", [rt.int8, rt.int16, rt.uint8, rt.uint16])
def test_small_integer_true_division_is_float32_everywhere(dtype):
    x = rt.constant(np.array([1, 2, 7], dtype.as_numpy_dtype))
    y = rt.constant(np.array([3, 3, 2], dtype.as_numpy_dtype))
    eager = (x / y).numpy()
    compiled_fn = rt.function(lambda a, b: a / b)
    compiled = compiled_fn(x, y).numpy()
    static = compiled_fn.get_concrete_function(x, y).structured_outputs.dtype
    assert eager.dtype == compiled.dtype == np.float32 and static is rt.float32
    np.testing.assert_array_equal(eager, compiled)
    np.testing.assert_array_equal(eager, (np.array([1, 2, 7]) / np.array([3, 3, 2])).astype(np.float32))

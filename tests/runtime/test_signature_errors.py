"""input_signature violations raise TypeError as TensorFlow 2 does (wrong dtype, shape, rank,
count, structure), with a message naming the argument, the expected and the received spec;
the error is also a ValueError, as this runtime raised before (API.md allows either)."""

import numpy as np
import pytest

import runtime as rt


@rt.function(input_signature=[rt.TensorSpec([3], rt.float32)])
def scale(x):
    return x * 2.0


@pytest.mark.parametrize("value, received", [
    (np.ones(3, np.int32), "int32"),
    (np.ones(4, np.float32), "(4,)"),
    (np.ones((3, 1), np.float32), "(3, 1)"),
    (rt.constant([1, 2, 3]), "int32"),
], ids=["dtype", "shape", "rank", "eager-dtype"])
def test_a_mismatching_argument_is_a_type_error_naming_it(value, received):
    with pytest.raises(TypeError) as info:
        scale(value)
    message = str(info.value)
    assert "'x'" in message and "TensorSpec(shape=(3,), dtype=rt.float32" in message
    assert received in message
    assert isinstance(info.value, ValueError)


def test_a_mismatching_spec_for_a_concrete_function_is_a_type_error():
    with pytest.raises(TypeError, match=r"received TensorSpec\(shape=\(4,\)"):
        scale.get_concrete_function(rt.TensorSpec([4], rt.float32))
    concrete = scale.get_concrete_function()
    with pytest.raises(TypeError, match="int32"):
        concrete(np.ones(3, np.int32))


@pytest.mark.parametrize("args", [(), (np.ones(3, np.float32), np.ones(3, np.float32))],
                         ids=["too-few", "too-many"])
def test_a_wrong_argument_count_is_a_type_error(args):
    with pytest.raises(TypeError):
        scale(*args)


def test_a_matching_call_still_runs():
    np.testing.assert_array_equal(scale(np.arange(3, dtype=np.float32)).numpy(), [0.0, 2.0, 4.0])

"""Variables: run-time shape checks of compiled assignments and lossless conversion."""

import numpy as np
import pytest

import runtime as rt


@pytest.mark.parametrize("spec", [rt.TensorSpec([None], rt.float32), rt.TensorSpec(None, rt.float32)],
                         ids=["relaxed-dim", "unknown-rank"])
@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_compiled_assign_checks_the_shape_at_run_time(spec, method):
    v = rt.Variable([1.0, 2.0], name="weights")

    @rt.function(input_signature=[spec])
    def write(x):
        getattr(v, method)(x)
        return v.read_value()
    np.testing.assert_array_equal(write(rt.constant([0.0, 0.0])).numpy(), v.numpy())
    before = v.numpy()
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        write(rt.constant([1.0, 2.0, 3.0]))
    message = str(info.value)
    assert "weights" in message and "(3,)" in message and "(2,)" in message
    assert "test_variables.py" in message
    np.testing.assert_array_equal(v.numpy(), before)  # nothing written
    assert v.numpy().shape == (2,)


def test_a_static_shape_needs_no_run_time_check():
    v = rt.Variable([1.0, 2.0])
    concrete = rt.function(lambda x: v.assign(x), autograph=False).get_concrete_function(
        rt.TensorSpec([2], rt.float32))
    assert "(v0, a0, 'assign')" not in concrete.generated_source


@pytest.mark.parametrize("make", [
    lambda: rt.Variable([1, 2]).assign(np.array([1.5, 2.0])),
    lambda: rt.Variable([1, 2]).assign(1.5 * np.ones(2)),
    lambda: rt.Variable([1, 2]).assign([1.5, 2.0]),
], ids=["ndarray", "ndarray-expr", "list"])
def test_fractional_values_never_truncate_into_an_int_variable(make):
    # TypeError, the type TensorFlow raises when a float value meets an int variable
    with pytest.raises(TypeError, match="fractional|Python float"):
        make()


@pytest.mark.parametrize("make", [
    lambda: rt.Variable(3).assign(2.0),
    lambda: rt.Variable(3).assign_add(1.0),
    lambda: rt.Variable(3, dtype=rt.int64).assign(2.0),
    lambda: rt.Variable(True).assign(1.0),
    lambda: rt.constant(2.0, dtype=rt.int32),
    lambda: rt.convert_to_tensor([1.0, 2.0], dtype=rt.int32),
], ids=["assign", "assign_add", "int64", "bool", "constant", "list"])
def test_python_floats_never_become_ints(make):
    # TensorFlow 2.21 raises TypeError ("Cannot convert 2.0 to EagerTensor of dtype int32")
    # for a Python float given to an integer or bool tensor, even a whole one
    with pytest.raises(TypeError, match="Python float"):
        make()


def test_whole_float_arrays_convert_to_ints():
    v = rt.Variable([1, 2])
    v.assign(np.array([3.0, 4.0]))
    np.testing.assert_array_equal(v.numpy(), [3, 4])
    assert rt.constant(np.array([1.0]), dtype=rt.int32).numpy().tolist() == [1]


@pytest.mark.parametrize("value", [np.array([1.5]), np.float64(0.5), 1.5])
def test_constant_of_fractional_values_as_int_raises_type_error(value):
    with pytest.raises(TypeError, match="fractional"):
        rt.constant(value, dtype=rt.int32)

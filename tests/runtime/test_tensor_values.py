"""Values and errors of tensors, with Python and NumPy as the oracles."""

import numpy as np
import pytest

import runtime as rt


def test_numpy_of_a_symbolic_tensor_is_also_an_attribute_error():
    seen = []

    @rt.function
    def f(x):
        try:
            x.numpy()
        except AttributeError as exc:  # as for a TF symbolic tensor, which has no .numpy
            seen.append(exc)
        return x + 1

    np.testing.assert_array_equal(f(rt.ones([2])).numpy(), [2.0, 2.0])
    assert len(seen) == 1
    assert isinstance(seen[0], NotImplementedError)  # what this runtime raised before
    assert "Cannot call numpy() on the symbolic tensor" in str(seen[0])

    @rt.function
    def g(x):
        return x.numpy()

    with pytest.raises(AttributeError, match="symbolic tensor"):
        g(rt.ones([2]))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.float32])
def test_relu_takes_integer_tensors_and_keeps_their_dtype(dtype):
    values = np.array([[-3, 0], [5, 7]]).astype(dtype)
    expected = np.maximum(values, 0)
    eager = rt.nn.relu(rt.constant(values))
    staged = rt.function(lambda x: rt.nn.relu(x * 1 + 0))(values)
    for result in (eager, staged):
        assert result.dtype.as_numpy_dtype == dtype
        np.testing.assert_array_equal(result.numpy(), expected)


def test_relu_refuses_bool_and_complex():
    for value in ([True, False], [1 + 2j]):
        with pytest.raises(TypeError, match="Relu"):
            rt.nn.relu(rt.constant(value))

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


def _as_int(x):
    return int(x)


def _as_float(x):
    return float(x)


@pytest.mark.parametrize("mode", ["eager", "converted", "staged"])
def test_int_and_float_of_64_bit_tensors_keep_64_bits(mode):
    import autograph as ag

    run = {"eager": lambda f: f, "converted": ag.to_graph, "staged": rt.function}[mode]
    big = rt.constant(2 ** 33 + 1, rt.int64)
    huge = rt.constant(1e300, rt.float64)
    assert int(run(_as_int)(big)) == 2 ** 33 + 1
    assert float(run(_as_float)(huge)) == 1e300
    assert float(run(_as_float)(rt.constant(0.1, rt.float64))) == 0.1  # not float32's 0.1
    if mode == "staged":
        assert run(_as_int)(big).dtype == rt.int64
        assert run(_as_float)(huge).dtype == rt.float64
        assert run(_as_int)(rt.constant(7)).dtype == rt.int32  # narrower ones: as TF
        assert run(_as_float)(rt.constant(7.5)).dtype == rt.float32


@pytest.mark.parametrize("np_dtype", [">f4", ">f8", ">i8", ">i2", ">u2"])
def test_big_endian_arrays_are_accepted_as_native_values(np_dtype):
    data = np.arange(5).astype(np_dtype)
    native = data.astype(np.dtype(np_dtype).newbyteorder("="))
    for tensor in (rt.constant(data), rt.convert_to_tensor(data)):
        assert tensor.dtype.as_numpy_dtype == native.dtype
        assert tensor.numpy().dtype.isnative
        np.testing.assert_array_equal(tensor.numpy(), native)
    identity = rt.function(lambda x: x)
    double = rt.function(lambda x: x * 2)
    for _ in range(2):  # the first call traces, the second reuses the trace
        out = identity(data)
        assert out.numpy().dtype.isnative and out.numpy().dtype == native.dtype
        np.testing.assert_array_equal(out.numpy(), native)
        np.testing.assert_array_equal(double(data).numpy(), native * 2)
    assert identity.experimental_get_tracing_count() == 1
    identity(native)
    assert identity.experimental_get_tracing_count() == 1  # the same key as native data
    signed = rt.function(lambda x: x + 1, input_signature=[rt.TensorSpec([None], rt.as_dtype(native.dtype))])
    np.testing.assert_array_equal(signed(data).numpy(), native + 1)

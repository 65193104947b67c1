"""TensorFlow's "all" and "safe" promotion modes (`experimental_enable_numpy_behavior(
dtype_conversion_mode=...)`): Python numbers and constants made of them are weakly typed,
and a variable's dtype never changes. The expected dtypes and errors are what TensorFlow
2.21 gives for the same calls (its table of a tensor and a Python number, its variable
writes)."""

import numpy as np
import pytest

import runtime as rt
import runtime.experimental.numpy as tnp


@pytest.fixture(autouse=True)
def _restore():
    yield
    tnp._disable_numpy_behavior()


# TensorFlow 2.21, "all" mode: dtype of `rt.constant(1, dtype) + value` for value 1, 1.0, 1j
TABLE = {
    "bool": ("int32", "float32", "complex128"),
    "uint8": ("uint8", "float64", "complex128"),
    "uint32": ("uint32", "float64", "complex128"),
    "int8": ("int8", "float64", "complex128"),
    "int32": ("int32", "float64", "complex128"),
    "int64": ("int64", "float64", "complex128"),
    "float16": ("float16", "float16", "complex64"),
    "float32": ("float32", "float32", "complex64"),
    "float64": ("float64", "float64", "complex128"),
    "complex64": ("complex64", "complex64", "complex64"),
    "complex128": ("complex128", "complex128", "complex128"),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_a_tensor_and_a_python_number_promote_as_tensorflow(name):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    x = rt.constant(np.array(True if name == "bool" else 1, dtype=name))
    got = tuple((x + value).dtype.name for value in (1, 1.0, 1j))
    assert got == TABLE[name]
    assert float(np.real(np.asarray(x + 1.5))) == pytest.approx(2.5, abs=0.01)


def test_constants_of_python_numbers_are_weak():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    assert (rt.constant(1) * 2.5).dtype == rt.float32          # weak i32 * weak float
    assert (rt.constant([1, 2]) + 2.0).dtype == rt.float32
    assert (rt.constant(np.int32(1)) + 1.0).dtype == rt.float64  # a NumPy value is strong
    assert rt.add(1, 2.0).dtype == rt.float32
    assert (rt.constant(1, rt.int8) + 2).dtype == rt.int8
    assert (rt.constant(1.0, rt.float16) + rt.constant(2.0)).dtype == rt.float16
    assert (rt.constant(1) + rt.constant(1, rt.int64)).dtype == rt.int64
    # TensorFlow's reprs (tf_numpy_type_promotion guide)
    assert repr(rt.constant(5)) == "<rt.Tensor: shape=(), dtype=int32, numpy=5, weak=True>"
    assert repr(rt.constant(5, rt.int32)) == "<rt.Tensor: shape=(), dtype=int32, numpy=5>"
    assert repr(tnp.array(1)) == "<rt.Tensor: shape=(), dtype=int32, numpy=1, weak=True>"
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
    assert "weak" not in repr(rt.constant(5))


def test_tnp_infers_32_bit_dtypes_in_the_all_mode():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    assert tnp.asarray(1.0).dtype == rt.float32
    assert tnp.asarray([1, 2]).dtype == rt.int32
    assert tnp.ones([2]).dtype == tnp.arange(3.0).dtype == rt.float32
    assert tnp.arange(3).dtype == rt.int32
    assert tnp.asarray(np.array([1.0])).dtype == rt.float64
    assert (tnp.array(1) + 1.0).dtype == rt.float32
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
    assert tnp.asarray(1.0).dtype == rt.float64 and tnp.arange(3).dtype == rt.int64


@pytest.mark.parametrize("mode", ["all", "safe"])
def test_variable_writes_keep_the_variable_dtype(mode):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    v = rt.Variable(1.0)
    assert float(v.assign_add(1)) == 2.0 and v.dtype == rt.float32
    assert float(v.assign_sub(0.5)) == 1.5
    assert float(v.assign(3)) == 3.0
    assert float(v.assign_add(rt.constant(2))) == 5.0        # a weak int
    half = rt.Variable(1.0, dtype=rt.float16)
    assert float(half.assign_add(rt.constant(2.0))) == 3.0    # a weak float
    for value in (rt.constant(1.0, rt.float64), np.float64(1.0)):
        with pytest.raises(TypeError, match="Variable dtype is immutable. Calling assign_add"):
            v.assign_add(value)
    refusal = "immutable" if mode == "all" else "PromoMode.SAFE"
    with pytest.raises(TypeError, match=refusal):
        v.assign(1j)
    i = rt.Variable(1)
    with pytest.raises(TypeError, match="Variable dtype is immutable"):
        i.assign_add(rt.constant(2, rt.int64))
    for write in (i.assign_add, i.assign_sub, i.assign):
        with pytest.raises(TypeError, match=refusal):
            write(2.5)
    assert int(i.assign_add(2)) == 3 and i.dtype == rt.int32


def test_without_the_modes_variable_writes_are_unchanged():
    v = rt.Variable(1.0)
    assert float(v.assign_add(np.float64(2.0))) == 3.0   # NumPy values convert, as TensorFlow
    with pytest.raises(ValueError):
        v.assign_add(rt.constant(1.0, rt.float64))


def test_numpy_values_on_the_left_promote_by_tensorflows_rule():
    # TensorFlow's tensors take `ndarray + tensor` over (tf_numpy_type_promotion guide:
    # np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50) is float16)
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    total = np.array(3.2, np.float16) + rt.constant(1, rt.int8) + rt.constant(50)
    assert total.dtype == rt.float16
    assert float(total) == float(np.float16(np.float16(3.2) + np.float16(1)) + np.float16(50))
    assert (np.float32(2.0) + rt.constant(1, rt.int32)).dtype == rt.float32
    assert (np.array([1.5]) * rt.constant([2], rt.int32)).dtype == rt.float64
    assert tnp.add(1, 2.0).dtype == rt.float64   # tnp's own functions: NumPy's rule, as TF

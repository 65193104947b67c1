"""keras.ops arithmetic types a Python number weakly, as Keras 3 does.

Oracle: Keras 3's dtype rules (keras.backend.result_type, documented in its dtype-promotion
tests): a Python int takes the tensor's dtype (int32 beside a bool), a Python float takes a
floating tensor's dtype and makes integers float32 (floatx), on either side; a true division of
integers is float32. NumPy's rules would make the first operand an int64/float64 array.
"""

from __future__ import annotations

import numpy as np
import pytest

from runtime.keras import ops

ARITHMETIC = ["add", "subtract", "multiply", "power", "maximum", "minimum", "floor_divide"]
DIVISION = ["divide", "true_divide"]
DTYPES = ["float16", "float32", "float64", "int8", "uint8", "int32", "int64", "bool"]


def _expected(number, dtype: str, division: bool) -> str:
    if isinstance(number, bool):
        kind = dtype
    elif isinstance(number, int):
        kind = "int32" if dtype == "bool" else dtype
    else:
        kind = dtype if dtype.startswith("float") else "float32"
    if division and not kind.startswith("float"):
        return "float32"
    return kind


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("number", [127, 2.0, True])
@pytest.mark.parametrize("name", ARITHMETIC + DIVISION)
def test_a_python_number_takes_the_tensors_dtype_on_either_side(name, number, dtype):
    if isinstance(number, bool) and dtype == "bool" and name not in DIVISION:
        pytest.skip("Keras's TensorFlow backend refuses bool arithmetic on two bools")
    x = ops.convert_to_tensor(np.array([1, 2], dtype))
    fn = getattr(ops, name)
    want = _expected(number, dtype, name in DIVISION)
    left, right = fn(number, x), fn(x, number)
    assert (left.dtype.name, right.dtype.name) == (want, want)
    with np.errstate(all="ignore"):
        np_left = getattr(np, name)(np.array(number, want), np.array([1, 2], dtype).astype(want))
        np_right = getattr(np, name)(np.array([1, 2], dtype).astype(want), np.array(number, want))
    np.testing.assert_array_equal(np.asarray(left), np_left.astype(want))
    np.testing.assert_array_equal(np.asarray(right), np_right.astype(want))


def test_integer_tensors_divide_to_float32_and_other_pairs_promote_as_numpy():
    a = ops.convert_to_tensor(np.array([1, 2], "int32"))
    b = ops.convert_to_tensor(np.array([3, 4], "int32"))
    got = ops.divide(a, b)
    assert got.dtype.name == "float32"
    np.testing.assert_allclose(np.asarray(got), [1 / 3, 0.5], rtol=1e-7)
    c = ops.convert_to_tensor(np.array([1.5, 2.5], "float64"))
    assert ops.add(ops.convert_to_tensor(np.array([1.0, 2.0], "float32")), c).dtype.name == "float64"
    assert ops.multiply(2, 3) == 6  # two Python numbers: NumPy's answer

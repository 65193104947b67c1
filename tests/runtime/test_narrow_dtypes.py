"""bfloat16, the float8 / float4 formats and the 2- and 4-bit integers (over ml_dtypes, loaded
on first use), TensorFlow's quantized dtypes and resource. Expected values are TensorFlow
2.21's for the same calls (printed in /tmp/tf)."""

import subprocess
import sys

import numpy as np
import pytest

import runtime as rt

pytest.importorskip("ml_dtypes")

E = rt.dtypes.experimental


def test_bfloat16_values_as_tensorflow():
    # tf.constant(1.1, tf.bfloat16) -> 1.10156; [1.5, 2.25] * 3 -> [4.5, 6.75]
    assert rt.constant(1.1, rt.bfloat16).dtype == rt.bfloat16
    assert float(rt.constant(1.1, rt.bfloat16)) == 1.1015625
    np.testing.assert_array_equal(
        (rt.constant([1.5, 2.25], rt.bfloat16) * 3).numpy().astype(np.float32), [4.5, 6.75])
    assert float(rt.reduce_sum(rt.constant([1.5, 2.25], rt.bfloat16))) == 3.75
    product = rt.matmul(rt.ones([2, 2], rt.bfloat16), rt.ones([2, 2], rt.bfloat16))
    assert product.dtype == rt.bfloat16 and product.numpy().astype(np.float32).tolist() == \
        [[2, 2], [2, 2]]
    assert rt.cast(rt.constant([1.5], rt.bfloat16), rt.float32).numpy().tolist() == [1.5]
    assert str(rt.bfloat16) == "<dtype: 'bfloat16'>"
    assert rt.as_dtype("bfloat16") is rt.bfloat16 and rt.as_dtype(14) is rt.bfloat16
    assert rt.bfloat16.is_floating and not rt.bfloat16.is_integer
    assert rt.bfloat16.min == pytest.approx(-3.38953e38, rel=1e-5)


def test_narrow_formats_round_as_tensorflow():
    # tf.cast([1.1, 2.7], float8_e4m3fn) -> [1.125, 2.75]; int4 of [1, 7, 9] -> [1, 7, -7]
    eight = rt.cast([1.1, 2.7], E.float8_e4m3fn)
    assert eight.dtype == E.float8_e4m3fn
    assert eight.numpy().astype(np.float32).tolist() == [1.125, 2.75]
    four = rt.cast(rt.constant([1, 7, 9]), E.int4)
    assert four.numpy().astype(np.int32).tolist() == [1, 7, -7]
    assert E.int4.is_integer and E.int4.min == -8 and E.uint4.is_unsigned
    assert E.float8_e4m3fn.max == 448
    assert rt.experimental.float8_e5m2 is E.float8_e5m2
    assert sorted(vars(E)) == ["float4_e2m1fn", "float8_e4m3b11fnuz", "float8_e4m3fn",
                               "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "int2",
                               "int4", "uint2", "uint4"]


def test_bfloat16_differentiates_and_stages():
    x = rt.Variable(rt.constant([1.5, 2.0], rt.bfloat16))
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(x * x)
    grad = tape.gradient(y, x)  # TensorFlow: [3, 4] in bfloat16
    assert grad.dtype == rt.bfloat16 and grad.numpy().astype(np.float32).tolist() == [3.0, 4.0]
    staged = rt.function(lambda v: v * 2 + 1)
    assert staged(rt.constant([1.5], rt.bfloat16)).numpy().astype(np.float32).tolist() == [4.0]


def test_quantized_and_resource_dtypes():
    # TensorFlow: qint8.as_numpy_dtype is dtype([('qint8', 'i1')]); is_quantized, not integer
    assert rt.qint8.as_numpy_dtype == np.dtype([("qint8", np.int8)])
    assert rt.qint8.is_quantized and not rt.qint8.is_integer and not rt.float32.is_quantized
    assert rt.dtypes.QUANTIZED_DTYPES == {rt.qint8, rt.quint8, rt.qint16, rt.quint16, rt.qint32}
    assert rt.as_dtype("quint16") is rt.quint16 and rt.dtypes.resource is rt.resource
    assert repr(rt.resource) == "rt.resource"


def test_import_runtime_does_not_load_ml_dtypes():
    code = "import sys, runtime; print('ml_dtypes' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr

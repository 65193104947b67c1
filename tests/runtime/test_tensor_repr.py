"""repr() of eager tensors and variables shows the value as TensorFlow's reprs do (recorded
from TensorFlow 2.21 with NumPy 2): NumPy's repr of arrays, scalars as Python writes them, a
value of several lines on a new line. Only the `tf.` prefix is `rt.`."""

import numpy as np
import pytest

import runtime as rt

CASES = [
    (lambda: rt.constant([1., 2.]),
     "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"),
    (lambda: rt.constant(5.0), "<tf.Tensor: shape=(), dtype=float32, numpy=5.0>"),
    (lambda: rt.constant(3), "<tf.Tensor: shape=(), dtype=int32, numpy=3>"),
    (lambda: rt.constant("ab"), "<tf.Tensor: shape=(), dtype=string, numpy=b'ab'>"),
    (lambda: rt.constant(True), "<tf.Tensor: shape=(), dtype=bool, numpy=True>"),
    (lambda: rt.constant([[1, 2], [3, 4]]),
     "<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [3, 4]], "
     "dtype=int32)>"),
    (lambda: rt.constant([1.5], rt.float64),
     "<tf.Tensor: shape=(1,), dtype=float64, numpy=array([1.5])>"),
    (lambda: rt.constant([], rt.float32),
     "<tf.Tensor: shape=(0,), dtype=float32, numpy=array([], dtype=float32)>"),
    (lambda: rt.constant(np.arange(12.).reshape(3, 4)),
     "<tf.Tensor: shape=(3, 4), dtype=float64, numpy=\narray([[ 0.,  1.,  2.,  3.],\n"
     "       [ 4.,  5.,  6.,  7.],\n       [ 8.,  9., 10., 11.]])>"),
    (lambda: rt.Variable([[1., 2.]]),
     "<tf.Variable 'Variable:0' shape=(1, 2) dtype=float32, numpy=array([[1., 2.]], "
     "dtype=float32)>"),
    (lambda: rt.Variable(2.0), "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=2.0>"),
    # a scalar is its item as Python writes it, so a float32 shows its float64 digits
    (lambda: rt.constant(8.3), "<tf.Tensor: shape=(), dtype=float32, numpy=8.300000190734863>"),
    (lambda: rt.constant(8.3, rt.float16), "<tf.Tensor: shape=(), dtype=float16, numpy=8.296875>"),
    (lambda: rt.constant(8.3, rt.float64), "<tf.Tensor: shape=(), dtype=float64, numpy=8.3>"),
    (lambda: rt.constant(1e20), "<tf.Tensor: shape=(), dtype=float32, numpy=1.0000000200408773e+20>"),
    (lambda: rt.constant(-0.0), "<tf.Tensor: shape=(), dtype=float32, numpy=-0.0>"),
    (lambda: rt.constant(float("inf")), "<tf.Tensor: shape=(), dtype=float32, numpy=inf>"),
    (lambda: rt.constant(1 + 2j, rt.complex64), "<tf.Tensor: shape=(), dtype=complex64, numpy=(1+2j)>"),
    (lambda: rt.constant(7, rt.uint8), "<tf.Tensor: shape=(), dtype=uint8, numpy=7>"),
]


@pytest.mark.parametrize("make, tensorflow", CASES)
def test_repr_shows_the_value_as_tensorflow(make, tensorflow):
    assert repr(make()) == tensorflow.replace("<tf.", "<rt.")


STR_CASES = [   # print(tensor) under TensorFlow 2.21 (TF's customization/basics tutorial)
    (lambda: rt.constant(3), "tf.Tensor(3, shape=(), dtype=int32)"),
    (lambda: rt.constant([4, 6]), "tf.Tensor([4 6], shape=(2,), dtype=int32)"),
    (lambda: rt.constant([[1, 2], [3, 4]]),
     "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"),
    (lambda: rt.constant([b"Line 3", b" "]),
     "tf.Tensor([b'Line 3' b' '], shape=(2,), dtype=string)"),
    (lambda: rt.constant(2.5), "tf.Tensor(2.5, shape=(), dtype=float32)"),
]


@pytest.mark.parametrize("make, tensorflow", STR_CASES)
def test_str_is_tensorflows(make, tensorflow):
    assert str(make()) == tensorflow.replace("tf.", "rt.", 1)
    assert f"{make():}" == str(make().numpy())   # format() still formats the values


def test_a_traced_tensor_prints_as_tensorflows():
    shown = []

    def f(x):
        shown.append((str(x), repr(x)))
        return x

    rt.function(f, autograph=False).get_concrete_function(
        rt.TensorSpec([None, 3], rt.float32, name="inp"))
    # TensorFlow 2.21: print(x) -> Tensor("inp:0", shape=(None, 3), dtype=float32)
    assert shown == [('Tensor("inp:0", shape=(None, 3), dtype=float32)',
                      "<rt.Tensor 'inp:0' shape=(None, 3) dtype=float32>")]
    shown.clear()
    rt.function(f, autograph=False).get_concrete_function(rt.TensorSpec(None, rt.float32, "x"))
    # TensorFlow 2.21 leaves out the shape when the rank is unknown
    assert shown[0][0] == 'Tensor("x:0", dtype=float32)'

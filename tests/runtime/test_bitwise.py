"""tf.bitwise and tnp's bitwise functions, gcd and lcm: against NumPy and TensorFlow's
documented values (its shifts clamp the amount to [0, bits - 1])."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

INTEGERS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
tnp = rt.experimental.numpy


@pytest.mark.parametrize("dtype", INTEGERS)
def test_and_or_xor_invert_match_numpy(dtype):
    rng = np.random.default_rng(0)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=(3, 4), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, size=(4,), dtype=dtype, endpoint=True)
    for fn, ref in ((rt.bitwise.bitwise_and, np.bitwise_and), (rt.bitwise.bitwise_or, np.bitwise_or),
                    (rt.bitwise.bitwise_xor, np.bitwise_xor)):
        got = fn(rt.constant(a), rt.constant(b))
        assert got.dtype == rt.as_dtype(dtype)
        np.testing.assert_array_equal(got.numpy(), ref(a, b))
        np.testing.assert_array_equal(rt.function(fn)(rt.constant(a), rt.constant(b)).numpy(),
                                      ref(a, b))
    np.testing.assert_array_equal(rt.bitwise.invert(a).numpy(), np.invert(a))


def test_documented_values():
    # TensorFlow's docstring of tf.bitwise.invert: 0 -> all bits set, per dtype
    np.testing.assert_array_equal(rt.bitwise.invert(rt.constant([0, 5], rt.uint8)).numpy(),
                                  [255, 250])
    np.testing.assert_array_equal(rt.bitwise.invert(rt.constant([0, 5], rt.int8)).numpy(),
                                  [-1, -6])
    # the bitwise_and docstring: 5 & 3 for each integer dtype
    for dtype in INTEGERS:
        lhs = rt.constant([0, 5, 3, 14], rt.as_dtype(dtype))
        rhs = rt.constant([5, 0, 7, 11], rt.as_dtype(dtype))
        np.testing.assert_array_equal(rt.bitwise.bitwise_and(lhs, rhs).numpy(), [0, 0, 3, 10])
        np.testing.assert_array_equal(rt.bitwise.bitwise_or(lhs, rhs).numpy(), [5, 5, 7, 15])
        np.testing.assert_array_equal(rt.bitwise.bitwise_xor(lhs, rhs).numpy(), [5, 5, 4, 5])
    assert rt.bitwise.bitwise_and([5, 6], 3).numpy().tolist() == [1, 2]


def test_shifts_clamp_the_amount_as_tensorflow():
    x = rt.constant([1, -8, 5, 127], rt.int8)
    y = rt.constant([0, 1, 7, 9], rt.int8)
    # in-range amounts are NumPy's shifts; 9 is clamped to 7
    np.testing.assert_array_equal(rt.bitwise.left_shift(x, y).numpy(), [1, -16, -128, -128])
    np.testing.assert_array_equal(rt.bitwise.right_shift(x, y).numpy(), [1, -4, 0, 0])
    # negative amounts shift by 0, large ones by 7 (TensorFlow 2.21's results)
    far = rt.constant([-1, -3, 8, 100], rt.int8)
    np.testing.assert_array_equal(rt.bitwise.left_shift(x, far).numpy(), [1, -8, -128, -128])
    np.testing.assert_array_equal(rt.bitwise.right_shift(x, far).numpy(), [1, -8, 0, 0])
    u = np.array([1, 2, 2**31], np.uint32)
    np.testing.assert_array_equal(rt.bitwise.right_shift(u, np.uint32(3)).numpy(), u >> 3)
    staged = rt.function(lambda a, b: rt.bitwise.left_shift(a, b))
    np.testing.assert_array_equal(staged(x, far).numpy(), [1, -8, -128, -128])


def test_bad_dtypes_raise():
    with pytest.raises(TypeError, match="integer"):
        rt.bitwise.bitwise_and(rt.constant([1.0]), rt.constant([1.0]))
    with pytest.raises(TypeError, match="integer"):
        rt.bitwise.left_shift(rt.constant([1.0]), 1.0)
    with pytest.raises(TypeError, match="int32 and int64"):
        rt.bitwise.bitwise_or(rt.constant([1]), rt.constant([1], rt.int64))
    with pytest.raises(TypeError, match="did you mean"):
        rt.bitwise.invert(rt.constant([1]), nme="x")


def test_no_gradient():
    x = rt.constant([3, 5])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.bitwise.bitwise_and(x, 1)
    assert tape.gradient(y, x) is None


def test_tnp_bitwise_gcd_lcm_match_numpy():
    np.testing.assert_array_equal(tnp.bitwise_and([True, False], [True, True]).numpy(),
                                  [True, False])
    assert int(tnp.bitwise_and(12, 10)) == 8
    got = tnp.bitwise_or(tnp.asarray([1, 2], np.int8), 4)
    assert got.dtype == rt.int8 and got.numpy().tolist() == [5, 6]
    np.testing.assert_array_equal(tnp.bitwise_xor([6, 5], [3, 3]).numpy(), [5, 6])
    np.testing.assert_array_equal(tnp.bitwise_not([True, False]).numpy(), [False, True])
    assert int(tnp.bitwise_not(np.int16(5))) == -6
    a = np.array([12, -20, 0, 0, 7, 2**20 * 3], np.int64)
    b = np.array([18, 8, 5, 0, -21, 2**18 * 9], np.int64)
    np.testing.assert_array_equal(tnp.gcd(a, b).numpy(), np.gcd(a, b))
    np.testing.assert_array_equal(tnp.lcm(a, b).numpy(), np.lcm(a, b))
    np.testing.assert_array_equal(tnp.gcd([[12], [9]], [4, 6]).numpy(),
                                  np.gcd([[12], [9]], [4, 6]))
    assert tnp.gcd(np.int8(12), 18).dtype == rt.int8
    staged = rt.function(lambda x, y: tnp.lcm(x, y))
    np.testing.assert_array_equal(staged(rt.constant(a), rt.constant(b)).numpy(), np.lcm(a, b))
    with pytest.raises(ValueError, match="integers"):
        tnp.gcd(1.5, 2)


def test_operators_and_numpy_ufuncs_on_integer_tensors():
    # TensorFlow's Tensor.__and__ / __or__ / __xor__ / __invert__ are bitwise on integers
    x = rt.constant([5, 6])
    assert (x & 3).numpy().tolist() == [1, 2]
    assert (x | 1).numpy().tolist() == [5, 7]
    assert (x ^ 1).numpy().tolist() == [4, 7]
    assert (~x).numpy().tolist() == [-6, -7]
    assert (3 & x).numpy().tolist() == [1, 2]
    assert (True & rt.constant([True, False])).numpy().tolist() == [True, False]
    assert (~rt.constant([True, False])).numpy().tolist() == [False, True]
    with pytest.raises(TypeError):
        rt.constant([1.0]) & 1.0
    a = np.array([12, -3, 7], np.int32)
    for ufunc in (np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift, np.right_shift):
        np.testing.assert_array_equal(ufunc(rt.constant(a), 2).numpy(), ufunc(a, 2))
    np.testing.assert_array_equal(np.invert(rt.constant(a)).numpy(), np.invert(a))
    flags = np.array([True, False])
    np.testing.assert_array_equal(np.bitwise_xor(rt.constant(flags), True).numpy(), flags ^ True)

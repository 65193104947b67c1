"""The tf.debugging additions: eager, staged and their error types."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


def test_check_numerics_eager_and_staged():
    x = rt.constant([1.0, 2.0])
    np.testing.assert_array_equal(rt.debugging.check_numerics(x, "ok").numpy(), [1.0, 2.0])
    with pytest.raises(rt.errors.InvalidArgumentError, match="bad input"):
        rt.debugging.check_numerics(rt.constant([1.0, np.nan]), "bad input")
    with pytest.raises(rt.errors.InvalidArgumentError, match="inf here"):
        rt.debugging.assert_all_finite(rt.constant([np.inf]), "inf here")
    f = rt.function(lambda t: rt.debugging.check_numerics(t * 2.0, "staged"))
    np.testing.assert_array_equal(f(rt.constant([1.0])).numpy(), [2.0])
    with pytest.raises(rt.errors.InvalidArgumentError, match="staged"):
        f(rt.constant([np.inf]))
    with pytest.raises(TypeError, match="floating"):
        rt.debugging.check_numerics(rt.constant([1]), "ints")


def test_assert_near():
    x = np.array([1.0, 2.0])
    rt.debugging.assert_near(x, x + 1e-15)
    rt.debugging.assert_near(x, x + 0.01, atol=0.02)
    with pytest.raises(rt.errors.InvalidArgumentError, match="tolerance"):
        rt.debugging.assert_near(x, x + 0.01, message="near")
    f = rt.function(lambda a, b: rt.debugging.assert_near(a, b, rtol=0.1))
    f(rt.constant([1.0]), rt.constant([1.05]))
    with pytest.raises(rt.errors.InvalidArgumentError):
        f(rt.constant([1.0]), rt.constant([2.0]))


def test_type_rank_and_scalar_assertions():
    rt.debugging.assert_type(rt.constant([1.0]), rt.float32)
    with pytest.raises(TypeError, match="float64"):
        rt.debugging.assert_type(rt.constant([1.0]), rt.float64)
    rt.debugging.assert_integer(rt.constant([1]))
    with pytest.raises(TypeError, match="integer"):
        rt.debugging.assert_integer(rt.constant([1.0]))
    assert rt.debugging.assert_scalar(rt.constant(3.0)).numpy() == 3.0
    with pytest.raises(ValueError, match="scalar"):
        rt.debugging.assert_scalar(rt.constant([3.0]))
    rt.debugging.assert_rank_at_least(rt.zeros([2, 3]), 2)
    with pytest.raises(ValueError, match="at least 3"):
        rt.debugging.assert_rank_at_least(rt.zeros([2, 3]), 3)
    rt.debugging.assert_rank_in(rt.zeros([2]), [0, 1])
    with pytest.raises(ValueError, match=r"\[0, 2\]"):
        rt.debugging.assert_rank_in(rt.zeros([2]), [0, 2])
    assert rt.debugging.is_numeric_tensor(rt.constant([1.0]))
    assert not rt.debugging.is_numeric_tensor(rt.constant([True]))
    assert not rt.debugging.is_numeric_tensor([1.0])
    rt.debugging.assert_proper_iterable([1, 2])
    with pytest.raises(TypeError, match="proper iterable"):
        rt.debugging.assert_proper_iterable("abc")
    assert rt.debugging.enable_check_numerics() is None
    assert rt.debugging.disable_check_numerics() is None
    with pytest.raises(TypeError):
        rt.debugging.assert_near(1.0, 1.0, rtl=0.1)


def test_assert_shapes_static():
    a, b, c = rt.zeros([2, 3]), rt.zeros([2]), rt.zeros([5, 2, 3])
    rt.debugging.assert_shapes([(a, ("N", "D")), (b, ("N",)), (c, ("...", "N", 3)), (a, (2, None))])
    with pytest.raises(ValueError, match="symbol 'N'"):
        rt.debugging.assert_shapes([(a, ("N", "D")), (rt.zeros([3]), ("N",))])
    with pytest.raises(ValueError, match="rank 1"):
        rt.debugging.assert_shapes([(a, ("N",))])
    with pytest.raises(ValueError, match="size 4"):
        rt.debugging.assert_shapes([(a, (2, 4))])


def test_assert_shapes_staged_with_unknown_dims():
    @rt.function(input_signature=[rt.TensorSpec([None, 2]), rt.TensorSpec([None])])
    def f(x, y):
        rt.debugging.assert_shapes([(x, ("N", 2)), (y, ("N",))])
        return x

    f(rt.zeros([3, 2]), rt.zeros([3]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="symbol 'N'"):
        f(rt.zeros([3, 2]), rt.zeros([4]))

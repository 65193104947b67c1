"""Values created inside staged loops: shapes mixing ints and scalar tensors, random draws
with tensor bounds, and variables first assigned in the loop whose shape varies."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt


def _loop_local_range(n):
    i = 0
    total = 0
    while i < n:
        v = rt.range(i)
        total += rt.reduce_sum(v)
        i += 1
    return total


def _range_used_after(n):
    i = 0
    while i < n:
        v = rt.range(i)
        i += 1
    return v


def test_loop_local_value_of_varying_shape():
    expected = sum(sum(range(i)) for i in range(5))
    assert _loop_local_range(5).numpy() == expected
    assert ag.to_graph(_loop_local_range)(5).numpy() == expected
    assert rt.function(_loop_local_range)(rt.constant(5)).numpy() == expected


def test_first_assigned_value_of_varying_shape_used_after_the_loop():
    compiled = rt.function(_range_used_after)
    for n in (1, 4):
        assert compiled(rt.constant(n)).numpy().tolist() == list(range(n - 1))
        assert ag.to_graph(_range_used_after)(n).numpy().tolist() == list(range(n - 1))


def test_zeros_with_a_scalar_tensor_dimension():
    def f(n):
        out = []
        i = 0
        while i < 2:
            out.append(rt.reduce_sum(rt.zeros([1, n, 2]) + rt.ones((n,), dtype=rt.float32)[0]))
            i += 1
        return rt.zeros([1, n, 2]), out

    z, _ = f(3)
    zc, sums = rt.function(f)(rt.constant(3))
    assert zc.numpy().shape == z.numpy().shape == (1, 3, 2)
    assert rt.stack(sums).numpy().tolist() == [6.0, 6.0]


def test_uniform_with_tensor_bounds():
    def f(lo, hi):
        return rt.random.uniform([1000], minval=lo, maxval=hi)

    draws = rt.function(f)(rt.constant(2.0), rt.constant(3.0)).numpy()
    assert draws.shape == (1000,) and draws.min() >= 2.0 and draws.max() < 3.0
    assert np.std(draws) > 0.1


def test_shape_lists_with_tensors_where_only_static_values_work_are_refused():
    x = rt.constant([[1.0, 2.0]])
    with pytest.raises(TypeError, match="perm must be a list of ints"):
        rt.function(lambda x, n: rt.transpose(x, [n, 0]))(x, rt.constant(1))
    reshaped = rt.function(lambda x, n: rt.reshape(x, [n, -1]))(x, rt.constant(2))
    assert reshaped.numpy().tolist() == [[1.0], [2.0]]

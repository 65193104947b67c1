"""Builtin `max`/`min` on staged tensors follow Python's comparison order with NaN (an item
replaces the current one only when it compares greater/less), as the unconverted function
gives; `rt.maximum`/`rt.minimum` keep NumPy's NaN propagation."""

from __future__ import annotations

import math

import numpy as np
import pytest

import runtime as rt

NAN = float("nan")


def pair(a, b):
    return max(a, b), min(a, b)


def items(t):
    return max(t), min(t)


def _same(x, y):
    return (math.isnan(x) and math.isnan(y)) or x == y


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("a, b", [(1.0, NAN), (NAN, 1.0), (NAN, NAN), (2.0, 3.0), (-0.5, -1.0)])
def test_two_arguments(a, b, jit):
    got = rt.function(pair, jit_compile=jit)(rt.constant(a), rt.constant(b))
    assert all(_same(float(g), e) for g, e in zip(got, pair(a, b)))


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("values", [[1.0, NAN, 3.0], [NAN, 1.0, 3.0], [2.0, 5.0, NAN, -1.0],
                                    [4.0], [3, 1, 2]])
def test_items_of_a_vector(values, jit):
    got = rt.function(items, jit_compile=jit)(rt.constant(values))
    assert all(_same(float(g), float(e)) for g, e in zip(got, items(values)))


def test_elementwise_with_broadcasting_matches_python_per_element():
    a, b = [1.0, NAN, 5.0, 2.0], [2.0, 2.0, NAN, NAN]
    hi, lo = rt.function(pair)(rt.constant(a), rt.constant(b))
    expected = [pair(x, y) for x, y in zip(a, b)]
    np.testing.assert_array_equal(hi.numpy(), np.float32([e[0] for e in expected]))
    np.testing.assert_array_equal(lo.numpy(), np.float32([e[1] for e in expected]))
    np.testing.assert_array_equal(
        rt.function(pair)(rt.constant([1.0, NAN]), 0.5)[0].numpy(), np.float32([1.0, NAN]))


def test_rt_maximum_still_propagates_nan():
    assert math.isnan(float(rt.maximum(1.0, NAN)))

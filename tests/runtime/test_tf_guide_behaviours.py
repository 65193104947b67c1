"""Behaviours TensorFlow 2 programs rely on: the exception classes they catch and the
names they reach for, each checked the way such a program uses it."""

from __future__ import annotations

import pytest

import autograph as ag
import runtime as rt


def test_a_signature_dtype_mismatch_is_an_invalid_argument_error_and_a_type_error():
    @rt.function(input_signature=[rt.TensorSpec([], rt.string)])
    def double(a):
        return a + a

    with pytest.raises(rt.errors.InvalidArgumentError):
        double(rt.constant(1))
    with pytest.raises(TypeError):
        double(rt.constant(1))


def test_a_tensor_leaked_from_another_graph_is_a_type_error():
    leaked = []

    @rt.function
    def leaky(a):
        leaked.append(a + 1)
        return a + 2

    @rt.function
    def captures(b):
        return b + leaked[0]

    assert int(leaky(rt.constant(1))) == 3
    with pytest.raises(TypeError, match="another graph"):
        captures(rt.constant(2))
    with pytest.raises(ValueError):
        captures(rt.constant(3))


def test_tf_autograph_is_the_converter():
    def f(x):
        if x > 0:
            x = x * 2
        return x

    assert rt.autograph is ag
    assert "ag__.if_stmt" in rt.autograph.to_code(f)

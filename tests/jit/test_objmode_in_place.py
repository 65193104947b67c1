"""An op the Numba tier hands to NumPy writes into a dying operand's array, as the NumPy tier
does: only an array the kernel allocated for that operand alone (a fused loop's result), read
by that op only, in the same graph. Results equal the NumPy tier's bit for bit, and the
function's argument and any value read again are left as they were."""

from __future__ import annotations

import re

import numpy as np

import runtime as rt

X = np.linspace(-3.0, 3.0, 4096, dtype=np.float32).reshape(64, 64)


def _source(fn, x):
    source = fn.get_concrete_function(x).generated_source
    return source() if callable(source) else source


def _check(fn):
    jit, numpy_tier = rt.function(fn, jit_compile=True), rt.function(fn, jit_compile=False)
    x = rt.constant(X)
    np.testing.assert_array_equal(jit(x).numpy(), numpy_tier(x).numpy())
    np.testing.assert_array_equal(jit(x).numpy(), numpy_tier(x).numpy())  # a second call too
    np.testing.assert_array_equal(x.numpy(), X)
    return _source(jit, x)


def test_a_dying_fused_result_takes_the_result():
    def f(x):
        return rt.exp(x * 0.5 - 1.0)
    assert "out=" in _check(f)


def test_an_argument_is_never_written():
    def f(x):
        return rt.exp(x)
    assert "out=" not in _check(f)


def test_a_value_read_again_is_not_written():
    def f(x):
        y = x * 0.5 - 1.0
        return rt.exp(y) + y
    assert "out=" not in _check(f)


def test_a_value_read_by_a_loop_body_is_not_written():
    def f(x):
        y = x * 0.5 - 1.0
        total = rt.zeros_like(x)
        for _ in rt.range(3):
            total = total + rt.exp(y)
        return total
    _check(f)


# a fused loop stores its result in a dying operand's array the same way
_REUSED = re.compile(r"^\s+f\d+_ = f\d+_$", re.MULTILINE)
IMAGES = np.linspace(-3.0, 3.0, 2 * 8 * 8 * 6, dtype=np.float32).reshape(2, 8, 8, 6)


def _check_images(fn):
    jit, numpy_tier = rt.function(fn, jit_compile=True), rt.function(fn, jit_compile=False)
    x = rt.constant(IMAGES)
    for _ in range(2):
        for mine, theirs in zip(rt.nest.flatten(jit(x)), rt.nest.flatten(numpy_tier(x))):
            assert mine.numpy().tobytes() == theirs.numpy().tobytes()
    np.testing.assert_array_equal(x.numpy(), IMAGES)
    return _source(jit, x)


def test_a_fused_loop_stores_into_a_dying_result():
    def f(x):
        return rt.nn.relu(rt.nn.max_pool2d(x * 3.0, 2, 2, "VALID") - 0.5)
    assert len(_REUSED.findall(_check_images(f))) == 1  # the pool's array (x * 3 reads x)


def test_a_fused_loop_leaves_a_result_read_again():
    def f(x):
        y = rt.nn.max_pool2d(x, 2, 2, "VALID")
        return rt.nn.relu(y - 0.5), y
    assert not _REUSED.findall(_check_images(f))


def test_a_fused_loop_leaves_an_argument():
    def f(x):
        return rt.nn.relu(x - 0.5)
    assert not _REUSED.findall(_check_images(f))

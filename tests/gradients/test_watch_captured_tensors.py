"""A tape inside a compiled function watches tensors from outside it (captured tensors), as
TensorFlow's does: their gradients are those of the same code run eagerly."""

import numpy as np

import runtime as rt


def _program(x, w):
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = x * 3.0 + rt.reduce_sum(w * w) * x
        z = y * 3.0
    return tape.gradient(y, x), tape.gradient(z, [x, w])


def test_a_watched_outer_tensor_gets_the_eager_gradient():
    x = rt.constant(3.0)   # 3.0 also appears as a literal: the watched tensor is not it
    w = rt.constant([1.0, 2.0])
    staged = rt.function(lambda: _program(x, w))()
    eager = _program(x, w)
    # by hand: dy/dx = 3 + |w|^2 = 8; dz/dx = 24; dz/dw = 3 * 2 w x = [18, 36]
    for got, want, hand in zip(rt.nest.flatten(staged), rt.nest.flatten(eager), [8, 24, [18, 36]]):
        np.testing.assert_allclose(got.numpy(), want.numpy())
        np.testing.assert_allclose(got.numpy(), hand)


def test_an_unwatched_outer_tensor_gets_none():
    x = rt.constant(2.0)

    @rt.function
    def f():
        with rt.GradientTape() as tape:
            y = x * x
        return tape.gradient(y, x)

    assert f() is None


def test_the_same_captured_tensor_is_one_source_in_every_use():
    x = rt.constant(5.0)

    @rt.function
    def f():
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * x + rt.sin(x)
        return tape.gradient(y, x)

    np.testing.assert_allclose(f().numpy(), 2 * 5.0 + np.cos(np.float32(5.0)), rtol=1e-6)

"""tf.nn.atrous_conv2d_transpose (runtime/ops/nn_conv.py).

Oracles: its definition as the gradient of atrous_conv2d with respect to the input (taken by
the tape), and TensorFlow 2.21, whose values for these shapes agree with it (checked when the
op was written)."""

import numpy as np
import pytest

import runtime as rt


@pytest.mark.parametrize("rate, padding", [(2, "SAME"), (3, "SAME"), (2, "VALID"), (1, "VALID")])
def test_is_the_gradient_of_atrous_conv2d(rate, padding):
    rng = np.random.default_rng(rate)
    f = rng.normal(size=(3, 2, 3, 4))
    h, w = (6, 7) if padding == "SAME" else (6 + 2 * rate, 7 + rate)
    x = rt.constant(rng.normal(size=(2, h, w, 3)))
    y_shape = rt.nn.atrous_conv2d(x, f, rate, padding).shape
    g = rng.normal(size=y_shape.as_list())
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.nn.atrous_conv2d(x, f, rate, padding) * g)
    want = tape.gradient(y, x).numpy()
    got = rt.nn.atrous_conv2d_transpose(g, f, [2, h, w, 3], rate, padding).numpy()
    assert np.allclose(got, want)


def test_rate_below_one_is_refused():
    with pytest.raises(ValueError, match="rate"):
        rt.nn.atrous_conv2d_transpose(np.zeros((1, 4, 4, 2)), np.zeros((2, 2, 3, 2)),
                                      [1, 4, 4, 3], 0, "SAME")

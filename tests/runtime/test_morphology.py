"""tf.nn.dilation2d and erosion2d (runtime/ops/nn_more.py).

Oracles: a small case printed by TensorFlow 2.21, a plain-Python loop over the windows of the
definition (max of input + filter over the dilated window, 'SAME' padding as TensorFlow places
it), erosion as TensorFlow documents it (-dilation2d(-x, reflected filter)), and finite
differences of the values away from ties."""

import numpy as np
import pytest

import runtime as rt


def test_small_case_matches_tensorflow():
    x = np.array([[1, 3, 2], [0, 5, 4], [2, 2, 7]], np.float32).reshape(1, 3, 3, 1)
    f = np.array([[0, 1], [2, 0]], np.float32).reshape(2, 2, 1)
    got = rt.nn.dilation2d(x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1])
    assert got.numpy().ravel().tolist() == [5.0, 7.0, 6.0, 6.0, 7.0, 9.0, 3.0, 8.0, 7.0]
    got = rt.nn.erosion2d(x, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1])
    assert got.numpy().ravel().tolist() == [-1.0, 0.0, 0.0, 1.0]   # printed by TensorFlow 2.21


def _loop(x, f, s, r, padding):
    n, h, w, c = x.shape
    kh, kw, _ = f.shape
    eh, ew = (kh - 1) * r[0] + 1, (kw - 1) * r[1] + 1
    if padding == "VALID":
        oh, ow, top, left = (h - eh) // s[0] + 1, (w - ew) // s[1] + 1, 0, 0
    else:
        oh, ow = -(-h // s[0]), -(-w // s[1])
        top, left = max((oh - 1) * s[0] + eh - h, 0) // 2, max((ow - 1) * s[1] + ew - w, 0) // 2
    out = np.full((n, oh, ow, c), -np.inf)
    for b, i, j, k, dy, dx in np.ndindex(n, oh, ow, c, kh, kw):
        y, xx = i * s[0] + dy * r[0] - top, j * s[1] + dx * r[1] - left
        if 0 <= y < h and 0 <= xx < w:
            out[b, i, j, k] = max(out[b, i, j, k], x[b, y, xx, k] + f[dy, dx, k])
    return out


@pytest.mark.parametrize("s, r, padding", [((1, 1), (1, 1), "VALID"), ((2, 2), (1, 1), "SAME"),
                                           ((1, 2), (2, 1), "SAME"), ((2, 1), (1, 2), "VALID")])
def test_matches_the_definition(s, r, padding):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 6, 7, 3))
    f = rng.normal(size=(2, 3, 3))
    got = rt.nn.dilation2d(x, f, [1, *s, 1], padding, "NHWC", [1, *r, 1]).numpy()
    assert np.allclose(got, _loop(x, f, s, r, padding))
    eroded = rt.nn.erosion2d(x, f, [1, *s, 1], padding, "NHWC", [1, *r, 1]).numpy()
    assert np.allclose(eroded, -_loop(-x, f[::-1, ::-1], s, r, padding))


def test_gradients_match_finite_differences_and_stage():
    rng = np.random.default_rng(1)
    x, f = rt.constant(rng.normal(size=(1, 4, 5, 2))), rt.constant(rng.normal(size=(2, 2, 2)))

    def loss(x, f):
        return (rt.reduce_sum(rt.nn.dilation2d(x, f, [1, 1, 2, 1], "SAME", "NHWC",
                                               [1, 2, 1, 1]) ** 2) +
                rt.reduce_sum(rt.nn.erosion2d(x, f, [1, 1, 1, 1], "VALID", "NHWC",
                                              [1, 1, 1, 1]) ** 2))

    def grads(x, f):
        with rt.GradientTape() as tape:
            tape.watch([x, f])
            y = loss(x, f)
        return tape.gradient(y, [x, f])
    gx, gf = grads(x, f)
    for arg, g, k in ((x, gx, 0), (f, gf, 1)):
        value = arg.numpy()
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            step = np.zeros_like(value)
            step[index] = 1e-6
            args = [x, f]
            args[k] = rt.constant(value + step)
            up = loss(*args).numpy()
            args[k] = rt.constant(value - step)
            numeric[index] = (up - loss(*args).numpy()) / 2e-6
        assert np.allclose(g.numpy(), numeric, atol=1e-5)
    sx, sf = rt.function(grads)(x, f)
    assert np.allclose(sx.numpy(), gx.numpy()) and np.allclose(sf.numpy(), gf.numpy())


def test_errors():
    x, f = np.zeros((1, 4, 4, 1), np.float32), np.zeros((2, 2, 1), np.float32)
    with pytest.raises(ValueError, match="NHWC"):
        rt.nn.dilation2d(x, f, [1, 1, 1, 1], "SAME", "NCHW", [1, 1, 1, 1])
    with pytest.raises(ValueError, match="strides"):
        rt.nn.dilation2d(x, f, [2, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1])
    with pytest.raises(ValueError, match="larger"):
        rt.nn.dilation2d(x, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 4, 4, 1])

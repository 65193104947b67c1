"""tf.nn.conv3d, conv3d_transpose, max_pool3d and avg_pool3d (runtime/ops/nn_conv3d.py).

Oracles: results recorded from TensorFlow 2.21 on the small integer-valued inputs X, F and Y
below (exact in float32; printed with `.tolist()`), a plain NumPy loop over the definition, and
central finite differences for the gradients (first and second order).
"""

import numpy as np
import pytest

import runtime as rt
from tests.gradients.fd import check_gradients

X = (np.arange(2 * 3 * 4 * 3 * 2) % 7 - 3).reshape(2, 3, 4, 3, 2).astype(np.float32)
F = (np.arange(2 * 2 * 2 * 2 * 3) % 5 - 2).reshape(2, 2, 2, 2, 3).astype(np.float32)
Y = (np.arange(2 * 2 * 2 * 2 * 3) % 3 - 1).reshape(2, 2, 2, 2, 3).astype(np.float32)

# recorded from TensorFlow 2.21: tf.nn.conv3d(X, F, [1, 1, 2, 1, 1], "SAME"),
# tf.nn.conv3d(X, F, [1, 2, 1, 1, 1], "VALID"),
# tf.nn.conv3d_transpose(Y, F, [2, 3, 4, 3, 2], [1, 2, 2, 2, 1], "SAME"),
# tf.nn.max_pool3d(X, [2, 2, 2], [1, 2, 1], "SAME"), tf.nn.avg_pool3d(X, [2, 3, 2], [2, 1, 2],
# "SAME") flattened, and the gradient of sum(max_pool3d(X, 2, 1, "VALID") * (1, 2, 3, ...)).
CONV_SAME = (
    [[[[[6, 5, 9], [23, -4, 9], [-17, 12, 1]], [[-4, 21, -19], [6, 5, 9], [11, -5, -1]]], [[[21,
    -19, -19], [-4, 21, -19], [11, 6, 11]], [[-3, -17, 9], [21, -19, -19], [-10, 10, -5]]],
    [[[-16, -14, 13], [8, -5, -3], [1, 1, -4]], [[-12, 12, 1], [-16, -14, 13], [7, -1, -4]]]],
    [[[[23, -4, 9], [-23, 22, 2], [-17, -6, 10]], [[6, 5, 9], [23, -4, 9], [-17, 12, 1]]], [[[-4,
    21, -19], [6, 5, 9], [11, -5, -1]], [[21, -19, -19], [-4, 21, -19], [11, 6, 11]]], [[[8, -5,
    -3], [4, -3, -5], [-5, 3, -4]], [[-16, -14, 13], [8, -5, -3], [1, 1, -4]]]]])
CONV_VALID = (
    [[[[[6, 5, 9], [23, -4, 9]], [[-20, -8, 9], [-3, -17, 9]], [[-4, 21, -19], [6, 5, 9]]]],
    [[[[23, -4, 9], [-23, 22, 2]], [[-3, -17, 9], [21, -19, -19]], [[6, 5, 9], [23, -4, 9]]]]])
TRANSPOSE = (
    [[[[[2, -3], [2, -3], [2, -3]], [[2, 2], [-3, 2], [2, 2]], [[2, -3], [2, -3], [2, -3]], [[2,
    2], [-3, 2], [2, 2]]], [[[-3, 2], [2, -3], [-3, 2]], [[2, -3], [2, 2], [2, -3]], [[-3, 2], [2,
    -3], [-3, 2]], [[2, -3], [2, 2], [2, -3]]], [[[2, -3], [2, -3], [2, -3]], [[2, 2], [-3, 2],
    [2, 2]], [[2, -3], [2, -3], [2, -3]], [[2, 2], [-3, 2], [2, 2]]]], [[[[2, -3], [2, -3], [2,
    -3]], [[2, 2], [-3, 2], [2, 2]], [[2, -3], [2, -3], [2, -3]], [[2, 2], [-3, 2], [2, 2]]],
    [[[-3, 2], [2, -3], [-3, 2]], [[2, -3], [2, 2], [2, -3]], [[-3, 2], [2, -3], [-3, 2]], [[2,
    -3], [2, 2], [2, -3]]], [[[2, -3], [2, -3], [2, -3]], [[2, 2], [-3, 2], [2, 2]], [[2, -3], [2,
    -3], [2, -3]], [[2, 2], [-3, 2], [2, 2]]]]])
MAX_POOL = (
    [[[[[3, 3], [3, 3], [3, 2]], [[3, 3], [3, 3], [2, 3]]], [[[3, 3], [3, 3], [3, 1]], [[3, 3],
    [3, 3], [2, 3]]], [[[3, 3], [0, 1], [0, 1]], [[3, 3], [3, 3], [-2, -1]]]], [[[[3, 3], [3, 3],
    [3, 3]], [[3, 3], [3, 3], [3, 2]]], [[[3, 3], [3, 3], [2, 3]], [[3, 3], [3, 3], [3, 1]]],
    [[[0, 1], [2, 3], [2, 3]], [[3, 3], [0, 1], [0, 1]]]]])
AVG_POOL = (
    [-0.125, 0.0, 0.25, -0.5, -0.3333333432674408, 0.0833333358168602, 0.3333333432674408,
    0.1666666716337204, -0.1666666716337204, -0.3333333432674408, 0.5, 0.3333333432674408, -0.375,
    -0.25, 0.0, 1.0, 0.0, -0.75, -0.5, 0.5, 0.6666666865348816, -0.6666666865348816, -1.0, 0.0,
    0.8333333134651184, 0.6666666865348816, -2.0, -1.0, 1.5, 0.75, -2.5, -1.5, 0.125, 0.25, 0.5,
    -0.25, -0.0833333358168602, 0.3333333432674408, 0.0, -0.1666666716337204, 0.0833333358168602,
    -0.0833333358168602, 0.1666666716337204, 0.0, -0.125, 0.0, 0.25, -0.5, -1.5, -0.5, 1.5, 2.5,
    -0.8333333134651184, -1.0, 1.0, 2.0, -0.6666666865348816, -0.8333333134651184, 0.0, 1.0, 0.0,
    -0.75, -0.5, 0.5])
MAX_POOL_GRAD = (
    [[[[[0, 0], [0, 0], [0, 0]], [[6, 0], [0, 0], [0, 0]], [[0, 16], [0, 0], [0, 0]], [[0, 0],
    [20, 0], [0, 0]]], [[[0, 0], [0, 36], [0, 0]], [[0, 0], [0, 0], [44, 0]], [[0, 0], [0, 0], [0,
    64]], [[0, 0], [0, 0], [0, 0]]], [[[13, 0], [0, 0], [0, 0]], [[0, 32], [0, 0], [0, 0]], [[0,
    0], [80, 0], [0, 0]], [[0, 0], [0, 46], [0, 0]]]], [[[[0, 0], [0, 0], [27, 0]], [[0, 0], [0,
    0], [0, 60]], [[0, 0], [0, 0], [0, 0]], [[33, 0], [0, 0], [0, 0]]], [[[0, 64], [0, 0], [0,
    0]], [[0, 0], [272, 0], [0, 0]], [[0, 0], [0, 312], [0, 0]], [[0, 0], [0, 0], [82, 0]]], [[[0,
    0], [0, 0], [0, 40]], [[0, 0], [0, 0], [0, 0]], [[86, 0], [0, 0], [0, 0]], [[0, 46], [0, 0],
    [0, 0]]]]])


def test_values_match_tensorflow():
    np.testing.assert_array_equal(rt.nn.conv3d(X, F, [1, 1, 2, 1, 1], "SAME"), CONV_SAME)
    np.testing.assert_array_equal(rt.nn.conv3d(X, F, [1, 2, 1, 1, 1], "VALID"), CONV_VALID)
    np.testing.assert_array_equal(
        rt.nn.conv3d_transpose(Y, F, [2, 3, 4, 3, 2], [1, 2, 2, 2, 1], "SAME"), TRANSPOSE)
    np.testing.assert_array_equal(rt.nn.max_pool3d(X, [2, 2, 2], [1, 2, 1], "SAME"), MAX_POOL)
    np.testing.assert_allclose(
        rt.nn.avg_pool3d(X, [2, 3, 2], [2, 1, 2], "SAME").numpy().reshape(-1), AVG_POOL,
        rtol=1e-6)
    x = rt.constant(X)
    weights = np.arange(1, 1 + 2 * 2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 2, 3, 2, 2)
    with rt.GradientTape() as tape:
        tape.watch(x)
        s = rt.reduce_sum(rt.nn.max_pool3d(x, [2, 2, 2], [1, 1, 1], "VALID") * weights)
    np.testing.assert_array_equal(tape.gradient(s, x), MAX_POOL_GRAD)  # ties: every max


def _windows(size, span, strides, padding):
    """(output sizes, padding before) per axis, by TensorFlow's 'SAME' and 'VALID' rules."""
    if padding == "VALID":
        return [(s - e) // st + 1 for s, e, st in zip(size, span, strides)], [0, 0, 0]
    out = [-(-s // st) for s, st in zip(size, strides)]
    return out, [max((o - 1) * st + e - s, 0) // 2 for o, st, e, s in zip(out, strides, span, size)]


def _plain_conv3d(x, f, strides, padding, dilations):
    n, size = x.shape[0], x.shape[1:4]
    k = f.shape[:3]
    span = [(kk - 1) * d + 1 for kk, d in zip(k, dilations)]
    out, before = _windows(size, span, strides, padding)
    y = np.zeros((n, *out, f.shape[4]))
    for index in np.ndindex(*out):
        for tap in np.ndindex(*k):
            pos = [o * st - b + t * d for o, st, b, t, d in
                   zip(index, strides, before, tap, dilations)]
            if all(0 <= p < s for p, s in zip(pos, size)):
                y[(slice(None), *index)] += x[(slice(None), *pos)] @ f[tap]
    return y


@pytest.mark.parametrize("strides,padding,dilations", [
    ((1, 1, 1), "SAME", (1, 1, 1)), ((2, 1, 3), "VALID", (1, 1, 1)), ((1, 2, 2), "SAME", (1, 1, 1)),
    ((1, 1, 1), "SAME", (2, 1, 2)), ((2, 2, 1), "VALID", (1, 2, 1))])
def test_conv3d_is_the_plain_definition(strides, padding, dilations):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 6, 4, 3))
    f = rng.standard_normal((3, 2, 2, 3, 4))
    want = _plain_conv3d(x, f, strides, padding, dilations)
    got = rt.nn.conv3d(x, f, strides, padding, dilations=dilations)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    staged = rt.function(lambda a, b: rt.nn.conv3d(a, b, strides, padding, dilations=dilations))
    np.testing.assert_allclose(staged(x, f).numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("strides,padding,dilations", [
    ((1, 1, 1), "SAME", (1, 1, 1)), ((2, 1, 2), "VALID", (1, 1, 1)), ((1, 2, 1), "SAME", (2, 1, 1))])
def test_conv3d_gradients_first_and_second_order(strides, padding, dilations):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 4, 3, 4, 2))
    f = rng.standard_normal((2, 2, 2, 2, 3))
    check_gradients(lambda a, b: rt.nn.conv3d(a, b, strides, padding, dilations=dilations), x, f)

    def input_gradient(a, b):
        with rt.GradientTape() as tape:
            tape.watch(a)
            y = rt.nn.conv3d(a, b, strides, padding, dilations=dilations)
            s = rt.reduce_sum(y * y)
        return tape.gradient(s, a)
    check_gradients(input_gradient, x, f)


@pytest.mark.parametrize("pool", ["max_pool3d", "avg_pool3d"])
@pytest.mark.parametrize("ksize,strides,padding", [
    ((2, 2, 2), (2, 2, 2), "VALID"), ((3, 2, 3), (1, 2, 2), "SAME"), ((2, 3, 1), (2, 1, 3), "SAME")])
def test_pools_and_their_gradients(pool, ksize, strides, padding):
    rng = np.random.default_rng(6)
    x = rng.permutation(2 * 4 * 5 * 4 * 2).reshape(2, 4, 5, 4, 2) / 7.0  # distinct: no ties
    fn = getattr(rt.nn, pool)
    got = fn(x, ksize, strides, padding).numpy()
    reduce = np.max if pool == "max_pool3d" else np.mean
    pad = -np.inf if pool == "max_pool3d" else np.nan
    out, before = _windows(x.shape[1:4], ksize, strides, padding)
    padded = np.pad(x, [(0, 0)] + [(b, k + st * o) for b, k, st, o in
                                   zip(before, ksize, strides, out)] + [(0, 0)],
                    constant_values=pad)
    for index in np.ndindex(*out):
        lo = [o * st for o, st in zip(index, strides)]
        window = padded[:, lo[0]:lo[0] + ksize[0], lo[1]:lo[1] + ksize[1], lo[2]:lo[2] + ksize[2]]
        want = (np.nanmean if pool == "avg_pool3d" else reduce)(window, axis=(1, 2, 3))
        np.testing.assert_allclose(got[(slice(None), *index)], want, rtol=1e-12)
    check_gradients(lambda a: fn(a, ksize, strides, padding), x)

    def gradient(a):
        with rt.GradientTape() as tape:
            tape.watch(a)
            s = rt.reduce_sum(rt.sin(fn(a, ksize, strides, padding)))
        return tape.gradient(s, a)
    if pool == "avg_pool3d":  # linear: its gradient's gradient is exact; max pool's is piecewise
        check_gradients(gradient, x)


def test_arguments_are_checked():
    x = np.zeros((1, 3, 3, 3, 2), np.float32)
    with pytest.raises(ValueError, match="rank 5"):
        rt.nn.conv3d(np.zeros((1, 3, 3, 2), np.float32), np.zeros((1, 1, 1, 2, 1), np.float32),
                     1, "SAME")
    with pytest.raises(ValueError, match="input channels"):
        rt.nn.conv3d(x, np.zeros((1, 1, 1, 3, 1), np.float32), 1, "SAME")
    with pytest.raises(ValueError, match="padding"):
        rt.nn.max_pool3d(x, 2, 2, "FULL")
    with pytest.raises(NotImplementedError, match="NCDHW"):
        rt.nn.avg_pool3d(x, 2, 2, "SAME", data_format="NCDHW")
    with pytest.raises(ValueError, match="does not fit"):
        rt.nn.conv3d_transpose(np.zeros((1, 2, 2, 2, 1), np.float32),
                               np.zeros((2, 2, 2, 2, 1), np.float32), [1, 9, 4, 4, 2], 2)
    spec = rt.function(lambda a: rt.nn.max_pool3d(a, 2, 2, "SAME")).get_concrete_function(
        rt.TensorSpec([None, 5, 4, 3, 2]))
    assert spec.outputs[0].shape.as_list() == [None, 3, 2, 2, 2]

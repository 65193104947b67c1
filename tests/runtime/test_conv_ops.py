"""Convolution, pooling and normalisation ops against naive NumPy loops, gradients against
central finite differences, and the staged and jit-compiled tiers against eager."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import runtime as rt

RNG = np.random.default_rng(0)


# -- naive references ----------------------------------------------------------------------------

def _out_and_pad(size, k, s, d, padding):
    ek = (k - 1) * d + 1
    if padding == "VALID":
        return (size - ek) // s + 1, 0
    out = math.ceil(size / s)
    return out, max((out - 1) * s + ek - size, 0) // 2


def naive_conv2d(x, w, strides, padding, dilations=(1, 1)):
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    oh, pt = _out_and_pad(h, kh, strides[0], dilations[0], padding)
    ow, pl = _out_and_pad(wd, kw, strides[1], dilations[1], padding)
    y = np.zeros((n, oh, ow, o))
    for b, i, j, q in itertools.product(range(n), range(oh), range(ow), range(o)):
        total = 0.0
        for a, e, ch in itertools.product(range(kh), range(kw), range(c)):
            r = i * strides[0] + a * dilations[0] - pt
            col = j * strides[1] + e * dilations[1] - pl
            if 0 <= r < h and 0 <= col < wd:
                total += x[b, r, col, ch] * w[a, e, ch, q]
        y[b, i, j, q] = total
    return y


def naive_pool(x, k, s, padding, kind):
    n, h, wd, c = x.shape
    oh, pt = _out_and_pad(h, k[0], s[0], 1, padding)
    ow, pl = _out_and_pad(wd, k[1], s[1], 1, padding)
    y = np.zeros((n, oh, ow, c))
    for b, i, j, ch in itertools.product(range(n), range(oh), range(ow), range(c)):
        vals = [x[b, r, col, ch]
                for r in range(i * s[0] - pt, i * s[0] - pt + k[0])
                for col in range(j * s[1] - pl, j * s[1] - pl + k[1])
                if 0 <= r < h and 0 <= col < wd]
        y[b, i, j, ch] = max(vals) if kind == "max" else sum(vals) / len(vals)
    return y


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + eps
        up = f(x)
        x[idx] = old - eps
        down = f(x)
        x[idx] = old
        g[idx] = (up - down) / (2 * eps)
    return g


CASES = [((1, 1), "VALID", (1, 1)), ((1, 1), "SAME", (1, 1)), ((2, 2), "VALID", (1, 1)),
         ((2, 2), "SAME", (1, 1)), ((2, 1), "SAME", (1, 1)), ((1, 3), "VALID", (1, 1)),
         ((1, 1), "SAME", (2, 2)), ((1, 1), "VALID", (2, 1))]


@pytest.mark.parametrize("strides,padding,dilations", CASES)
def test_conv2d_matches_a_naive_loop(strides, padding, dilations):
    x = RNG.standard_normal((2, 7, 6, 3))
    w = RNG.standard_normal((3, 2, 3, 4))
    y = rt.nn.conv2d(x, w, strides, padding, dilations=dilations)
    expected = naive_conv2d(x, w, strides, padding, dilations)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("strides,padding,dilations", CASES)
def test_conv2d_gradients_match_finite_differences(strides, padding, dilations):
    x = RNG.standard_normal((2, 5, 6, 2))
    w = RNG.standard_normal((2, 3, 2, 3))
    probe = RNG.standard_normal(naive_conv2d(x, w, strides, padding, dilations).shape)

    def loss(a, b):
        return float(np.sum(naive_conv2d(a, b, strides, padding, dilations) * probe))

    xt, wt = rt.constant(x), rt.constant(w)
    with rt.GradientTape() as tape:
        tape.watch([xt, wt])
        y = rt.reduce_sum(rt.nn.conv2d(xt, wt, strides, padding, dilations=dilations) * probe)
    gx, gw = tape.gradient(y, [xt, wt])
    np.testing.assert_allclose(gx.numpy(), numeric_grad(lambda a: loss(a, w), x.copy()),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gw.numpy(), numeric_grad(lambda b: loss(x, b), w.copy()),
                               rtol=1e-6, atol=1e-7)


def test_conv2d_second_order_gradients():
    x = rt.constant(RNG.standard_normal((1, 4, 4, 2)))
    w = rt.constant(RNG.standard_normal((2, 2, 2, 2)))

    def first(xv):
        xt = rt.constant(xv)
        with rt.GradientTape() as tape:
            tape.watch(xt)
            y = rt.reduce_sum(rt.nn.conv2d(xt, w, 2, "SAME") ** 2)
        return tape.gradient(y, xt)

    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(rt.nn.conv2d(x, w, 2, "SAME") ** 2)
        g = inner.gradient(y, x)
        z = rt.reduce_sum(g * g)
    gg = outer.gradient(z, x)
    numeric = numeric_grad(lambda v: float(np.sum(first(v).numpy() ** 2)), x.numpy().copy())
    np.testing.assert_allclose(gg.numpy(), numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("stride", [1, 2, 3])
def test_conv1d_matches_conv2d_on_a_height_of_one(padding, stride):
    x = RNG.standard_normal((2, 9, 3))
    w = RNG.standard_normal((3, 3, 2))
    y = rt.nn.conv1d(x, w, stride, padding)
    expected = naive_conv2d(x[:, None], w[None], (1, stride), padding)[:, 0]
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10, atol=1e-12)
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        s = rt.reduce_sum(rt.nn.conv1d(xt, w, stride, padding) ** 2)
    numeric = numeric_grad(
        lambda a: float(np.sum(naive_conv2d(a[:, None], w[None], (1, stride), padding) ** 2)),
        x.copy())
    np.testing.assert_allclose(tape.gradient(s, xt).numpy(), numeric, rtol=1e-6, atol=1e-6)


POOLS = [((2, 2), (2, 2), "VALID"), ((2, 2), (2, 2), "SAME"), ((3, 3), (1, 1), "SAME"),
         ((3, 2), (2, 1), "VALID"), ((3, 3), (2, 2), "SAME"), ((2, 2), (1, 1), "VALID")]


@pytest.mark.parametrize("ksize,strides,padding", POOLS)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pooling_matches_a_naive_loop_and_finite_differences(kind, ksize, strides, padding):
    x = RNG.standard_normal((2, 5, 7, 3))  # distinct values: the max is unique in each window
    fn = rt.nn.max_pool2d if kind == "max" else rt.nn.avg_pool2d
    y = fn(x, ksize, strides, padding)
    expected = naive_pool(x, ksize, strides, padding, kind)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)
    probe = RNG.standard_normal(expected.shape)
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        s = rt.reduce_sum(fn(xt, ksize, strides, padding) * probe)
    numeric = numeric_grad(
        lambda a: float(np.sum(naive_pool(a, ksize, strides, padding, kind) * probe)), x.copy())
    np.testing.assert_allclose(tape.gradient(s, xt).numpy(), numeric, rtol=1e-6, atol=1e-7)


def test_max_pool_gradient_goes_to_the_first_maximum_only():
    x = np.zeros((1, 2, 2, 1))
    x[0, 1, 0, 0] = 5.0
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        y = rt.reduce_sum(rt.nn.max_pool2d(xt, 2, 2, "VALID"))
    np.testing.assert_array_equal(tape.gradient(y, xt).numpy()[0, :, :, 0], [[0, 0], [1, 0]])


def test_avg_pool_second_order_gradient_is_linear():
    x = rt.constant(RNG.standard_normal((1, 4, 5, 2)))
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(rt.nn.avg_pool2d(x, 3, 2, "SAME") ** 2)
        g = inner.gradient(y, x)
        z = rt.reduce_sum(g)
    assert outer.gradient(z, x).shape == x.shape


def test_pool_aliases_and_1d_pools():
    x = RNG.standard_normal((2, 6, 5, 3))
    np.testing.assert_array_equal(rt.nn.max_pool(x, 2, 2, "SAME").numpy(),
                                  rt.nn.max_pool2d(x, 2, 2, "SAME").numpy())
    np.testing.assert_array_equal(rt.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID").numpy(),
                                  rt.nn.avg_pool2d(x, 2, 2, "VALID").numpy())
    x1 = RNG.standard_normal((2, 7, 3))
    np.testing.assert_allclose(rt.nn.max_pool1d(x1, 3, 2, "SAME").numpy(),
                               naive_pool(x1[:, None], (1, 3), (1, 2), "SAME", "max")[:, 0])
    np.testing.assert_allclose(rt.nn.avg_pool(x1, 2, 1, "VALID").numpy(),
                               naive_pool(x1[:, None], (1, 2), (1, 1), "VALID", "avg")[:, 0])


def _model(x, w):
    h = rt.nn.relu(rt.nn.conv2d(x, w, 1, "SAME"))
    p = rt.nn.max_pool2d(h, 2, 2, "VALID") + rt.nn.avg_pool2d(h, 2, 2, "VALID")
    return rt.reduce_sum(p * p)


@pytest.mark.parametrize("jit", [False, True])
def test_staged_and_jit_agree_with_eager(jit):
    x = RNG.standard_normal((2, 6, 6, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)

    def step(x, w):
        with rt.GradientTape() as tape:
            tape.watch([x, w])
            loss = _model(x, w)
        return (loss, *tape.gradient(loss, [x, w]))

    eager = step(rt.constant(x), rt.constant(w))
    staged = rt.function(step, jit_compile=jit)(rt.constant(x), rt.constant(w))
    for a, b in zip(eager, staged):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


def test_unknown_batch_dimension_when_staged():
    f = rt.function(lambda x: rt.nn.max_pool2d(rt.nn.conv2d(x, np.ones((2, 2, 1, 2)), 1, "VALID"),
                                               2, 2, "SAME"),
                    input_signature=[rt.TensorSpec([None, 5, 5, 1], rt.float64)])
    x = RNG.standard_normal((3, 5, 5, 1))
    np.testing.assert_allclose(f(x).numpy(),
                               naive_pool(naive_conv2d(x, np.ones((2, 2, 1, 2)), (1, 1), "VALID"),
                                          (2, 2), (2, 2), "SAME", "max"))


def test_bad_arguments_are_refused_clearly():
    x = np.zeros((1, 4, 4, 2), np.float32)
    w = np.zeros((2, 2, 2, 3), np.float32)
    with pytest.raises(NotImplementedError, match="NCHW"):
        rt.nn.conv2d(x, w, 1, "SAME", data_format="NCHW")
    with pytest.raises(ValueError, match="padding"):
        rt.nn.conv2d(x, w, 1, "FULL")
    with pytest.raises(ValueError, match="strides"):
        rt.nn.conv2d(x, w, [1, 2, 2, 2], "SAME")
    with pytest.raises(ValueError, match="strides"):
        rt.nn.max_pool2d(x, 2, 0, "SAME")
    with pytest.raises(ValueError, match="channels"):
        rt.nn.conv2d(x, np.zeros((2, 2, 3, 3), np.float32), 1, "SAME")
    with pytest.raises(ValueError, match="rank 4"):
        rt.nn.conv2d(x[0], w, 1, "SAME")
    with pytest.raises(TypeError, match="floating"):
        rt.nn.conv2d(x.astype(np.int32), w.astype(np.int32), 1, "SAME")
    with pytest.raises(ValueError, match="larger than the input"):
        rt.nn.max_pool2d(x, 5, 1, "VALID")
    with pytest.raises(TypeError):
        rt.nn.conv2d(x, w, 1, "SAME", dilation=2)


def test_moments_and_batch_normalization():
    x = RNG.standard_normal((4, 3, 5))
    mean, var = rt.nn.moments(x, [0, 1])
    np.testing.assert_allclose(mean.numpy(), x.mean(axis=(0, 1)))
    np.testing.assert_allclose(var.numpy(), x.var(axis=(0, 1)))
    mean_k, var_k = rt.nn.moments(x, axes=[2], keepdims=True)
    assert mean_k.shape == (4, 3, 1) and var_k.shape == (4, 3, 1)
    offset, scale = RNG.standard_normal(5), RNG.standard_normal(5)
    y = rt.nn.batch_normalization(x, mean, var, offset, scale, 1e-3)
    expected = (x - x.mean(axis=(0, 1))) / np.sqrt(x.var(axis=(0, 1)) + 1e-3) * scale + offset
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10)
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        m, v = rt.nn.moments(xt, [0, 1])
        s = rt.reduce_sum(rt.nn.batch_normalization(xt, m, v, None, scale, 1e-3) ** 3)

    def f(a):
        z = (a - a.mean(axis=(0, 1))) / np.sqrt(a.var(axis=(0, 1)) + 1e-3) * scale
        return float(np.sum(z ** 3))
    np.testing.assert_allclose(tape.gradient(s, xt).numpy(), numeric_grad(f, x.copy()),
                               rtol=1e-5, atol=1e-6)


def test_embedding_lookup_gathers_rows():
    params = RNG.standard_normal((6, 3))
    ids = np.array([[0, 5], [2, 2]])
    np.testing.assert_array_equal(rt.nn.embedding_lookup(params, ids).numpy(), params[ids])
    with pytest.raises(TypeError, match="ids"):
        rt.nn.embedding_lookup(params, np.array([0.5]))

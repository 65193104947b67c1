"""Conv2D's kernels build their im2col columns tap-major for one input channel and
window-major for more: both layouts against a loop-by-loop NumPy convolution, and the backward
kernels against the adjoint identities <conv(x, f), g> = <x, dx(g)> = <f, df(x, g)>."""

import itertools

import numpy as np
import pytest

import runtime as rt


def naive_conv(x, f, strides, padding, dilations):
    (sh, sw), (dh, dw) = strides, dilations
    kh, kw = f.shape[:2]
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    n, h, w, _ = x.shape
    if padding == "SAME":
        oh, ow = -(-h // sh), -(-w // sw)
        th, tw = max((oh - 1) * sh + ekh - h, 0), max((ow - 1) * sw + ekw - w, 0)
        x = np.pad(x, ((0, 0), (th // 2, th - th // 2), (tw // 2, tw - tw // 2), (0, 0)))
    else:
        oh, ow = (h - ekh) // sh + 1, (w - ekw) // sw + 1
    out = np.zeros((n, oh, ow, f.shape[3]))
    for a, b, i, j in itertools.product(range(oh), range(ow), range(kh), range(kw)):
        out[:, a, b] += x[:, a * sh + i * dh, b * sw + j * dw] @ f[i, j]
    return out


CASES = [(cin, cout, strides, padding, dilations)
         for cin in (1, 3, 12) for cout in (1, 5)
         for strides, padding, dilations in [((1, 1), "SAME", (1, 1)), ((2, 2), "SAME", (1, 1)),
                                             ((2, 1), "VALID", (1, 1)), ((1, 1), "SAME", (2, 2)),
                                             ((1, 1), "VALID", (1, 2))]]


@pytest.mark.parametrize("cin,cout,strides,padding,dilations", CASES)
def test_conv2d_and_its_backward_kernels_match_numpy(cin, cout, strides, padding, dilations):
    rng = np.random.default_rng(cin * 100 + cout)
    x = rng.standard_normal((2, 9, 8, cin))
    f = rng.standard_normal((3, 2, cin, cout))
    expected = naive_conv(x, f, strides, padding, dilations)
    xt, ft = rt.constant(x), rt.constant(f)
    g = rng.standard_normal(expected.shape)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([xt, ft])
        y = rt.nn.conv2d(xt, ft, strides, padding, dilations=dilations)
        inner = rt.reduce_sum(y * g)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10, atol=1e-10)
    dx, df = tape.gradient(inner, [xt, ft])
    total = float(np.sum(expected * g))
    assert np.isclose(float(np.sum(x * dx.numpy())), total, rtol=1e-10)
    assert np.isclose(float(np.sum(f * df.numpy())), total, rtol=1e-10)
    # each input (filter) entry's gradient is the convolution's change in it: a basis check
    basis = np.zeros_like(x)
    basis[1, 4, 3, cin - 1] = 1.0
    np.testing.assert_allclose(dx.numpy()[1, 4, 3, cin - 1],
                               np.sum(naive_conv(basis, f, strides, padding, dilations) * g),
                               rtol=1e-10, atol=1e-12)
    basis = np.zeros_like(f)
    basis[2, 1, cin - 1, cout - 1] = 1.0
    np.testing.assert_allclose(df.numpy()[2, 1, cin - 1, cout - 1],
                               np.sum(naive_conv(x, basis, strides, padding, dilations) * g),
                               rtol=1e-10, atol=1e-12)


def test_conv2d_transpose_is_the_adjoint_of_conv2d_on_many_channels():
    rng = np.random.default_rng(7)
    f = rng.standard_normal((3, 3, 16, 8))  # [KH, KW, out channels, in channels]
    g = rng.standard_normal((2, 7, 7, 8))
    x = rng.standard_normal((2, 14, 14, 16))
    up = rt.nn.conv2d_transpose(rt.constant(g), rt.constant(f), [2, 14, 14, 16], 2, "SAME")
    down = naive_conv(x, f, (2, 2), "SAME", (1, 1))
    assert np.isclose(float(np.sum(up.numpy() * x)), float(np.sum(down * g)), rtol=1e-10)

"""The im2col convolution and strided pool kernels: max-pool gradients with ties and
non-finite values against a first-maximum loop (TensorFlow's rule), scratch arrays reused
across calls and threads without aliasing a result, empty batches, and results written in
place by the ops that follow them in a compiled function."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest

import runtime as rt
from runtime.ops import conv_kernels

from .test_conv_ops import naive_conv2d, naive_pool


def _windows(h, w, k, s, padding):
    """(top, left, out height, out width) of TF's pooling windows, in input coordinates."""
    if padding == "VALID":
        oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
        return 0, 0, oh, ow
    oh, ow = -(-h // s[0]), -(-w // s[1])
    top = max((oh - 1) * s[0] + k[0] - h, 0) // 2
    left = max((ow - 1) * s[1] + k[1] - w, 0) // 2
    return top, left, oh, ow


def first_max_pool_grad(x, g, k, s, padding):
    """Each window's gradient added to its first maximum in row-major order (a NaN counts
    as the maximum): TensorFlow's tie rule for max-pool gradients."""
    n, h, w, c = x.shape
    top, left, oh, ow = _windows(h, w, k, s, padding)
    out = np.zeros(x.shape, g.dtype)
    for b, i, j, ch in itertools.product(range(n), range(oh), range(ow), range(c)):
        best = None
        for r, q in itertools.product(range(i * s[0] - top, i * s[0] - top + k[0]),
                                      range(j * s[1] - left, j * s[1] - left + k[1])):
            if 0 <= r < h and 0 <= q < w:
                v = x[b, r, q, ch]
                if best is None or (not np.isnan(x[best]) and (np.isnan(v) or v > x[best])):
                    best = (b, r, q, ch)
        out[best] += g[b, i, j, ch]
    return out


def _max_pool_grad(x, g, k, s, padding):
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        y = rt.nn.max_pool2d(xt, k, s, padding)
    return y, tape.gradient(y, xt, output_gradients=rt.constant(g))


POOLS = [((2, 2), (2, 2), "VALID"), ((2, 2), (2, 2), "SAME"), ((3, 3), (1, 1), "SAME"),
         ((3, 2), (2, 1), "VALID"), ((2, 3), (3, 2), "SAME")]


@pytest.mark.parametrize("k,s,padding", POOLS)
def test_max_pool_gradient_with_ties_goes_to_the_first_maximum(k, s, padding):
    rng = np.random.default_rng(1)
    # after a relu most windows tie at 0, and small integers tie often
    x = np.maximum(rng.integers(-3, 3, (2, 7, 6, 3)), 0).astype(np.float32)
    g = rng.standard_normal(rt.nn.max_pool2d(x, k, s, padding).shape).astype(np.float32)
    _, dx = _max_pool_grad(x, g, k, s, padding)
    np.testing.assert_allclose(dx.numpy(), first_max_pool_grad(x, g, k, s, padding),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("k,s,padding", POOLS)
def test_pools_over_several_blocks_of_images(k, s, padding, monkeypatch):
    # blocks of one or two images: each block's maxima and gradients from its own images
    monkeypatch.setattr(conv_kernels, "_BLOCK_BYTES", 200)
    rng = np.random.default_rng(9)
    x = np.maximum(rng.integers(-3, 3, (5, 7, 6, 3)), 0).astype(np.float32)
    g = rng.standard_normal(rt.nn.max_pool2d(x, k, s, padding).shape).astype(np.float32)
    y, dx = _max_pool_grad(x, g, k, s, padding)
    np.testing.assert_array_equal(y.numpy(), naive_pool(x, k, s, padding, "max"))
    np.testing.assert_allclose(dx.numpy(), first_max_pool_grad(x, g, k, s, padding),
                               rtol=1e-6, atol=1e-6)


def test_max_pool_gradient_matches_tensorflow_on_its_tie_example():
    # TF 2.21's values for this input: [[0, 1, 1, 0], [0, 0, 0, 0], [1, 0, 1, 0], [0, 0, 0, 0]]
    x = np.array([[1, 3, 3, 0], [3, 2, 0, 0], [5, 5, 1, 1], [5, 5, 1, 1]], np.float32)
    _, dx = _max_pool_grad(x.reshape(1, 4, 4, 1), np.ones((1, 2, 2, 1), np.float32), 2, 2,
                           "VALID")
    expected = first_max_pool_grad(x.reshape(1, 4, 4, 1), np.ones((1, 2, 2, 1), np.float32),
                                   (2, 2), (2, 2), "VALID")
    np.testing.assert_array_equal(dx.numpy(), expected)
    assert dx.numpy()[0, :, :, 0].tolist() == [[0, 1, 1, 0], [0, 0, 0, 0], [1, 0, 1, 0],
                                               [0, 0, 0, 0]]


@pytest.mark.parametrize("k,s,padding", [((2, 2), (2, 2), "VALID"), ((3, 3), (1, 1), "SAME")])
def test_max_pool_gradient_keeps_non_finite_values_at_the_maximum(k, s, padding):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 6, 6, 2))
    x[0, 1, 1, 0] = np.nan  # its windows' maximum is NaN, and the gradient goes there
    g = rng.standard_normal(rt.nn.max_pool2d(x, k, s, padding).shape)
    g[0, 0, 0, 1], g[0, 1, 2, 0], g[0, 2, 0, 1] = np.inf, np.nan, -np.inf
    _, dx = _max_pool_grad(x, g, k, s, padding)
    expected = first_max_pool_grad(x, g, k, s, padding)
    np.testing.assert_array_equal(np.isnan(dx.numpy()), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(dx.numpy()[finite], expected[finite], rtol=1e-12)
    assert not np.signbit(dx.numpy()[expected == 0]).any()  # +0, not -0, off the maxima


def test_max_pool_second_order_reads_the_maxima():
    rng = np.random.default_rng(3)
    x = rt.constant(np.maximum(rng.integers(-2, 3, (1, 5, 5, 2)), 0).astype(np.float64))
    gg = rng.standard_normal((1, 5, 5, 2))
    with rt.GradientTape() as tape:
        g = rt.constant(np.zeros((1, 3, 3, 2)))
        tape.watch(g)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.nn.max_pool2d(x, 3, 2, "SAME")
        dx = inner.gradient(y, x, output_gradients=g)
        z = rt.reduce_sum(dx * gg)
    # z is linear in g: its gradient at each window is gg at that window's first maximum
    got = tape.gradient(z, g).numpy()
    basis = np.zeros((1, 3, 3, 2))
    for idx in np.ndindex(basis.shape):
        basis[...] = 0
        basis[idx] = 1
        expected = np.sum(first_max_pool_grad(x.numpy(), basis, (3, 3), (2, 2), "SAME") * gg)
        assert np.isclose(got[idx], expected, rtol=1e-12)


def test_scratch_arrays_never_alias_results_and_are_per_thread():
    rng = np.random.default_rng(4)
    small = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    large = rng.standard_normal((3, 9, 7, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    first = rt.nn.conv2d(small, w, 1, "SAME").numpy()
    before = first.copy()
    rt.nn.conv2d(large, w, 1, "SAME")  # same scratch tags, another shape
    rt.nn.conv2d(small * 2, w, 1, "SAME")  # the same scratch arrays, other values
    np.testing.assert_array_equal(first, before)
    expected = {id(a): naive_conv2d(a, w, (1, 1), "SAME") for a in (small, large)}
    errors = []

    def work(a):
        try:
            for _ in range(20):
                got = conv_kernels.conv2d(a, w, (1, 1), ((1, 1), (1, 1)), (1, 1), a.shape[1:3])
                np.testing.assert_allclose(got, expected[id(a)], rtol=1e-4, atol=1e-4)
        except AssertionError as e:  # pragma: no cover - only on failure
            errors.append(e)

    threads = [threading.Thread(target=work, args=(a,)) for a in (small, large, small)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_scratch_cache_is_bounded():
    for size in range(conv_kernels._CACHED_COUNT + 5):
        conv_kernels.scratch("test", (size + 1,), np.float32)
    assert len(conv_kernels._local.buffers) <= conv_kernels._CACHED_COUNT
    half = (conv_kernels._CACHED_BYTES // 4 // 2,)
    for tag in ("a", "b", "c", "d", "e"):
        conv_kernels.scratch(tag, half, np.float32)
    kept = sum(b.nbytes for b in conv_kernels._local.buffers.values())
    assert kept <= conv_kernels._CACHED_TOTAL
    assert conv_kernels.scratch("e", half, np.float32) is conv_kernels.scratch("e", half,
                                                                                np.float32)
    big = (conv_kernels._CACHED_BYTES // 4 + 1,)
    assert conv_kernels.scratch("test", big, np.float32) is not \
        conv_kernels.scratch("test", big, np.float32)


def test_empty_batch_gives_empty_results_and_gradients():
    x = rt.constant(np.zeros((0, 6, 5, 2), np.float32))
    w = rt.constant(np.ones((3, 3, 2, 4), np.float32))
    with rt.GradientTape() as tape:
        tape.watch([x, w])
        y = rt.nn.max_pool2d(rt.nn.conv2d(x, w, 1, "SAME"), 2, 2, "SAME")
        y = y + rt.nn.avg_pool2d(rt.nn.conv2d(x, w, 1, "SAME"), 2, 2, "SAME")
    dx, dw = tape.gradient(y, [x, w])
    assert y.shape == (0, 3, 3, 4)
    assert dx.shape == (0, 6, 5, 2)
    np.testing.assert_array_equal(dw.numpy(), np.zeros((3, 3, 2, 4), np.float32))


def test_results_written_in_place_by_later_ops_stay_correct():
    # bias add and relu write into the convolution's and the pool's results; a result that
    # is also returned must not be overwritten
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 8, 8, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)

    def f(x):
        y = rt.nn.conv2d(x, w, 1, "VALID")
        h = rt.nn.relu(y + b)
        p = rt.nn.max_pool2d(h, 2, 2, "VALID")
        return y, p, rt.nn.relu(p - 1.0)

    expected_y = naive_conv2d(x, w, (1, 1), "VALID")
    for jit in (False, True):
        y, p, q = rt.function(f, jit_compile=jit)(rt.constant(x))
        np.testing.assert_allclose(y.numpy(), expected_y, rtol=1e-4, atol=1e-4)
        h = np.maximum(expected_y + b, 0)
        pooled = h.reshape(2, 3, 2, 3, 2, 4).max(axis=(2, 4))
        np.testing.assert_allclose(p.numpy(), pooled, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(q.numpy(), np.maximum(pooled - 1, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("strides,padding", [((1, 1), "SAME"), ((1, 1), "VALID"),
                                             ((2, 2), "SAME"), ((2, 1), "VALID")])
def test_one_by_one_convolution_is_a_matrix_product_over_the_strided_pixels(strides, padding):
    # a 1x1 stride-1 convolution reads the input itself as its im2col matrix, no copy
    rng = np.random.default_rng(6)
    wide, w = rng.standard_normal((2, 5, 8, 3)), rng.standard_normal((1, 1, 3, 4))
    x = wide[:, :, 1:7]
    wide_t, wt = rt.constant(wide), rt.constant(w)
    with rt.GradientTape() as tape:
        tape.watch([wide_t, wt])
        # a slice of a wider input: its rows are not contiguous
        y = rt.nn.conv2d(wide_t[:, :, 1:7], wt, strides, padding)
        s = rt.reduce_sum(y * y)
    dx, dw = tape.gradient(s, [wide_t, wt])
    dx = dx.numpy()[:, :, 1:7]
    pixels = x[:, ::strides[0], ::strides[1]]
    expected = pixels @ w[0, 0]
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(dw.numpy()[0, 0],
                               pixels.reshape(-1, 3).T @ (2 * expected).reshape(-1, 4),
                               rtol=1e-10)
    expected_dx = np.zeros_like(x)
    expected_dx[:, ::strides[0], ::strides[1]] = (2 * expected) @ w[0, 0].T
    np.testing.assert_allclose(dx, expected_dx, rtol=1e-10, atol=1e-12)


def _tap_by_tap(x, w, g, strides, padding, dilations):
    """(conv2d, its filter gradient, its input gradient) for output gradient `g`, one
    einsum per filter tap over the zero-padded input (the definitions, not the kernels)."""
    from runtime.ops.nn_conv import conv_geometry
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    oh, ow, ph, pw = conv_geometry(h, wd, (kh, kw), strides, padding, dilations, "test")
    xp = np.pad(x, ((0, 0), ph, pw, (0, 0)))
    y, dw, dxp = np.zeros((n, oh, ow, o)), np.zeros(w.shape), np.zeros(xp.shape)
    for i, j in itertools.product(range(kh), range(kw)):
        at = (slice(None), slice(i * dilations[0], i * dilations[0] + (oh - 1) * strides[0] + 1,
                                 strides[0]),
              slice(j * dilations[1], j * dilations[1] + (ow - 1) * strides[1] + 1, strides[1]))
        y += np.einsum("nhwc,co->nhwo", xp[at], w[i, j])
        dw[i, j] = np.einsum("nhwc,nhwo->co", xp[at], g)
        dxp[at] += np.einsum("nhwo,co->nhwc", g, w[i, j])
    return y, dw, dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd]


@pytest.mark.parametrize("shape,kernel,strides,padding,dilations", [
    ((3, 9, 8, 1, 4), (3, 3), (1, 1), "SAME", (1, 1)),     # one channel, plane by plane
    ((2, 7, 9, 3, 5), (3, 2), (2, 1), "VALID", (1, 1)),    # few channels, strided
    ((2, 9, 10, 6, 3), (4, 2), (1, 1), "SAME", (2, 3)),    # input gradient as a correlation
    ((2, 30, 30, 8, 4), (3, 3), (1, 1), "VALID", (1, 1)),  # the same, 'VALID'
    ((2, 9, 9, 6, 5), (3, 3), (1, 2), "SAME", (1, 2)),     # strided: col2im
    ((2, 6, 6, 7, 3), (5, 5), (1, 1), "VALID", (1, 1)),    # input much larger than output
    ((2, 24, 300, 20, 3), (3, 3), (1, 1), "SAME", (1, 1)),  # a few rows of an image a block
    ((1, 20, 200, 2, 3), (3, 3), (1, 1), "SAME", (1, 1)),  # the same, plane by plane
])
@pytest.mark.parametrize("block_bytes", [None, 300])
def test_kernels_match_the_convolution_tap_by_tap(shape, kernel, strides, padding, dilations,
                                                  block_bytes, monkeypatch):
    from runtime.ops.nn_conv import conv_geometry
    if block_bytes:  # a row of an image a block
        monkeypatch.setattr(conv_kernels, "_BLOCK_BYTES", block_bytes)
        monkeypatch.setattr(conv_kernels, "_PLANAR_BLOCK_BYTES", block_bytes)
    n, h, w, c, o = shape
    rng = np.random.default_rng(8)
    x, f = rng.standard_normal((n, h, w, c)), rng.standard_normal((*kernel, c, o))
    oh, ow, ph, pw = conv_geometry(h, w, kernel, strides, padding, dilations, "test")
    g = rng.standard_normal((n, oh, ow, o))
    y, dw, dx = _tap_by_tap(x, f, g, strides, padding, dilations)
    np.testing.assert_allclose(
        conv_kernels.conv2d(x, f, strides, (ph, pw), dilations, (oh, ow)), y, rtol=1e-10,
        atol=1e-10)
    np.testing.assert_allclose(
        conv_kernels.conv2d_backprop_filter(x, g, kernel, strides, (ph, pw), dilations), dw,
        rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(
        conv_kernels.conv2d_backprop_input(g, f, (h, w), strides, (ph, pw), dilations), dx,
        rtol=1e-10, atol=1e-10)


def test_every_kernel_returns_a_new_contiguous_array():
    # the ops declare fresh_output: later elementwise ops may write into their results
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    g = rng.standard_normal((2, 4, 4, 4)).astype(np.float32)
    p = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    none = ((0, 0), (0, 0))
    results = {
        "conv2d": (conv_kernels.conv2d(x, f, (1, 1), none, (1, 1), (4, 4)), [x, f]),
        "conv2d 1x1": (conv_kernels.conv2d(x, f[:1, :1], (1, 1), none, (1, 1), (6, 6)),
                       [x, f]),
        "filter grad": (conv_kernels.conv2d_backprop_filter(x, g, (3, 3), (1, 1), none,
                                                            (1, 1)), [x, g]),
        "input grad": (conv_kernels.conv2d_backprop_input(g, f, (6, 6), (1, 1), none, (1, 1)),
                       [g, f]),
        "max pool": (conv_kernels.max_pool(x, (2, 2), (2, 2), none, (3, 3)), [x]),
        "max pool grad": (conv_kernels.max_pool_grad(x, p, (2, 2), (2, 2), none, (3, 3)),
                          [x, p]),
        "avg pool": (conv_kernels.avg_pool(x, (2, 2), (2, 2), none, (3, 3)), [x]),
        "avg pool grad": (conv_kernels.avg_pool_grad(p, (6, 6), (2, 2), (2, 2), none), [p]),
    }
    for name, (result, inputs) in results.items():
        assert result.flags["C_CONTIGUOUS"] and result.flags["WRITEABLE"], name
        assert not any(np.shares_memory(result, a) for a in inputs), name
        assert not any(np.shares_memory(result, b)
                       for b in conv_kernels._local.buffers.values()), name

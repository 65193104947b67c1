"""The `keras.ops` functions Keras 3 adds to the NumPy API and rt.nn (runtime/keras/ops_numpy.py,
ops_core.py, ops_nn.py, ops_image.py): values against NumPy / SciPy, or as Keras 3.15 on
TensorFlow 2.21 printed them for the same inputs; staged runs equal eager ones; a misspelt
keyword is answered with the right name."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

K = keras.ops
RNG = np.random.RandomState(0)
A = RNG.rand(3, 4, 5)
NANS = np.array([[1.0, np.nan, 3.0, 7.0], [2.0, 5.0, np.nan, np.nan]])


# -- NumPy-like ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["nanmax", "nanmin", "nanstd", "nanvar", "nanmedian"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_reductions_are_numpys(name, axis):
    got = getattr(K, name)(NANS, axis=axis)
    np.testing.assert_allclose(got.numpy(), getattr(np, name)(NANS, axis=axis))


def test_nan_reductions_keepdims_args_and_cumulative():
    np.testing.assert_allclose(K.nanmax(NANS, axis=1, keepdims=True).numpy(),
                               np.nanmax(NANS, axis=1, keepdims=True))
    assert K.nanargmax(NANS, axis=1).numpy().tolist() == np.nanargmax(NANS, axis=1).tolist()
    assert K.nanargmin(NANS, axis=1).dtype == rt.int32
    np.testing.assert_allclose(K.nancumsum(NANS).numpy(), np.nancumsum(NANS))
    np.testing.assert_allclose(K.nancumprod(NANS, axis=1).numpy(), np.nancumprod(NANS, axis=1))
    assert np.isnan(K.nanmax(np.array([np.nan, np.nan])).numpy())


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantiles_are_numpys(method):
    got = K.quantile(A, [0.3, 0.5], axis=(0, 2), method=method)
    np.testing.assert_allclose(got.numpy(), np.quantile(A, [0.3, 0.5], axis=(0, 2),
                                                        method=method))
    got = K.percentile(A, 40.0, axis=1, method=method, keepdims=True)
    np.testing.assert_allclose(got.numpy(), np.percentile(A, 40.0, axis=1, method=method,
                                                          keepdims=True))
    np.testing.assert_allclose(K.nanquantile(NANS, 0.3, axis=1, method=method).numpy(),
                               np.nanquantile(NANS, 0.3, axis=1, method=method))


def test_median_of_python_ints_is_float32_as_keras():
    out = K.median([1, 2, 4])
    assert out.dtype == rt.float32 and float(out) == 2.0
    np.testing.assert_allclose(K.median(A, axis=1, keepdims=True).numpy(),
                               np.median(A, axis=1, keepdims=True))
    np.testing.assert_allclose(K.nanpercentile(NANS, 30, axis=1).numpy(),
                               np.nanpercentile(NANS, 30, axis=1), rtol=1e-6)
    with pytest.raises(ValueError, match="method"):
        K.quantile(A, 0.5, method="bad")


def test_elementwise_functions_are_numpys():
    x = np.array([-3.5, 3.5, 7.0])
    np.testing.assert_allclose(K.fmod(x, 2.0).numpy(), np.fmod(x, 2.0))
    assert K.fmod([-3, 3], [2, 2]).numpy().tolist() == [-1, 1]
    p, q = np.array([np.nan, 1.0, 2.0]), np.array([2.0, np.nan, 1.0])
    np.testing.assert_allclose(K.fmax(p, q).numpy(), np.fmax(p, q))
    np.testing.assert_allclose(K.fmin(p, q).numpy(), np.fmin(p, q))
    assert K.gcd([12, -18, 0], [8, 12, 5]).numpy().tolist() == np.gcd([12, -18, 0],
                                                                       [8, 12, 5]).tolist()
    assert K.lcm([12, -18, 0], [8, 12, 5]).numpy().tolist() == np.lcm([12, -18, 0],
                                                                       [8, 12, 5]).tolist()
    np.testing.assert_allclose(K.ldexp(np.array([1.0, 2.0]), [3, -1]).numpy(), [8.0, 1.0])
    np.testing.assert_allclose(K.i0(np.array([0.0, 1.0, 2.5])).numpy(), np.i0([0.0, 1.0, 2.5]))
    n = np.array([np.nan, np.inf, -np.inf, 1.0])
    np.testing.assert_allclose(K.nan_to_num(n).numpy(), np.nan_to_num(n))
    np.testing.assert_allclose(K.nan_to_num(n, nan=5.0, posinf=9.0, neginf=-9.0).numpy(),
                               [5.0, 9.0, -9.0, 1.0])
    np.testing.assert_allclose(K.divide_no_nan([1.0, 2.0], [0.0, 4.0]).numpy(), [0.0, 0.5])
    with pytest.raises(TypeError, match="integer"):
        K.gcd(np.array([1.5]), np.array([2.5]))


def test_searching_and_counting():
    assert K.digitize([0.5, 1.5, 3.0], [1.0, 2.0, 3.0]).numpy().tolist() == \
        np.digitize([0.5, 1.5, 3.0], [1.0, 2.0, 3.0]).tolist()
    assert K.isin([1, 2, 3], [2, 5]).numpy().tolist() == [False, True, False]
    assert K.isin([1, 2, 3], [2, 5], invert=True).numpy().tolist() == [True, False, True]
    assert K.searchsorted([1.0, 2.0, 3.0], [2.0, 2.5], side="right").numpy().tolist() == [2, 2]
    assert K.bincount([0, 1, 1, 3]).numpy().tolist() == [1, 2, 0, 1]
    np.testing.assert_allclose(K.bincount([0, 1, 1], weights=[0.5, 1.0, 2.0], minlength=4)
                               .numpy(), np.bincount([0, 1, 1], [0.5, 1.0, 2.0], 4))
    counts, edges = K.histogram(np.array([1.0, 2, 2, 3, 9]), bins=2, range=(0, 4))
    want = np.histogram([1.0, 2, 2, 3, 9], bins=2, range=(0, 4))
    assert counts.numpy().tolist() == want[0].tolist()
    np.testing.assert_allclose(edges.numpy(), want[1])
    counts, edges = K.histogram(A, bins=7)
    assert counts.numpy().tolist() == np.histogram(A, bins=7)[0].tolist()


def test_unique_with_its_extras_is_numpys():
    x = [3, 1, 1, 2, 3, 3]
    got = K.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for g, e in zip(got, np.unique(x, return_index=True, return_inverse=True,
                                   return_counts=True)):
        assert g.numpy().tolist() == e.tolist()
    assert K.unique(x, size=5, fill_value=-1).numpy().tolist() == [1, 2, 3, -1, -1]
    assert K.unique(x, size=2).numpy().tolist() == [1, 2]


def test_shapes_windows_and_integration():
    parts = K.array_split(np.arange(7.0), 3)
    assert [p.numpy().tolist() for p in parts] == [p.tolist() for p in
                                                    np.array_split(np.arange(7.0), 3)]
    assert [p.shape[0] for p in K.array_split(np.arange(7.0), [2, 5])] == [2, 3, 2]
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        out = getattr(K, name)(6)
        assert out.dtype == rt.float32
        np.testing.assert_allclose(out.numpy(), getattr(np, name)(6), atol=1e-6)
    np.testing.assert_allclose(K.kaiser(5, 14.0).numpy(), np.kaiser(5, 14.0), rtol=1e-5)
    np.testing.assert_allclose(K.trapezoid(np.array([1.0, 2, 4]), x=np.array([0.0, 1, 3]))
                               .numpy(), 7.5)
    np.testing.assert_allclose(K.trapezoid(A, dx=0.5, axis=1).numpy(),
                               np.trapezoid(A, dx=0.5, axis=1))
    order = K.argpartition([3, 1, 2, 0], 2).numpy()
    kth = np.asarray([3, 1, 2, 0])[order]
    assert kth[2] == 2 and max(kth[:2]) <= 2 <= min(kth[3:])
    rows, cols = K.unravel_index(np.array([5, 7]), (3, 4))
    assert rows.numpy().tolist() == [1, 1] and cols.numpy().tolist() == [1, 3]
    assert int(K.get_item(np.arange(5), 2)) == 2
    np.testing.assert_allclose(K.corrcoef(A[0]).numpy(), np.corrcoef(A[0]))
    z = K.view_as_complex(np.array([[1.0, 2.0]]))
    assert z.numpy().tolist() == [1 + 2j]
    assert K.view_as_real(z).numpy().tolist() == [[1.0, 2.0]]


def test_bitwise_names_printed_by_keras():
    assert K.bitwise_invert(np.array([0, 5], np.int32)).numpy().tolist() == [-1, -6]
    assert K.numpy.bitwise_left_shift(np.array([1, 3], np.int32), 2).numpy().tolist() == [4, 12]
    shifted = K.bitwise_right_shift(np.array([8, -8], np.int32), np.array([1, 2], np.int32))
    assert shifted.numpy().tolist() == [4, -2] and shifted.dtype == rt.int32


@pytest.mark.parametrize("mode", ["valid", "same", "full"])
@pytest.mark.parametrize("m, n", [(5, 1), (5, 2), (5, 3), (4, 4), (3, 5)])
def test_correlate_is_numpys(mode, m, n):
    a, v = RNG.rand(m), RNG.rand(n)
    np.testing.assert_allclose(K.correlate(a, v, mode=mode).numpy(), np.correlate(a, v, mode))


# -- core, control flow, linear algebra ----------------------------------------------------

def test_core_values_printed_by_keras():
    assert K.dtype(np.zeros(2, np.float16)) == "float16"
    assert K.is_tensor(rt.constant(1.0)) and not K.is_tensor(np.zeros(1))
    assert K.scatter([[0], [2], [0]], [1.0, 2.0, 3.0], (4,)).numpy().tolist() == [4, 0, 2, 0]
    assert K.scatter_update(np.zeros((3,)), [[1]], [5.0]).numpy().tolist() == [0, 5, 0]
    assert K.scatter_update(np.ones((3,)), [[1], [1]], [5.0, 2.0], reduction="add") \
        .numpy().tolist() == [1, 8, 1]
    assert K.slice_update(np.zeros((3, 3)), (1, 1), np.ones((2, 2))).numpy().tolist() == \
        [[0, 0, 0], [0, 1, 1], [0, 1, 1]]
    assert K.slice(np.arange(12).reshape(3, 4), (1, 1), (2, 2)).numpy().tolist() == \
        [[5, 6], [9, 10]]
    assert K.segment_sum(np.array([1.0, 2, 3]), np.array([0, 0, 2])).numpy().tolist() == \
        [3, 0, 3]
    assert K.segment_max(np.array([1.0, 2, 3]), np.array([0, 0, 1]), num_segments=2) \
        .numpy().tolist() == [2, 3]
    values, indices = K.top_k(np.array([1.0, 3, 2]), 2)
    assert values.numpy().tolist() == [3, 2] and indices.numpy().tolist() == [1, 2]
    assert K.in_top_k(np.array([1, 0]), np.array([[0.1, 0.9], [0.2, 0.8]]), 1) \
        .numpy().tolist() == [True, False]
    np.testing.assert_allclose(K.logsumexp(np.array([1.0, 2.0])).numpy(), 2.31326, rtol=1e-5)
    np.testing.assert_allclose(K.rsqrt(4.0).numpy(), 0.5)
    assert K.saturate_cast(np.array([300.0, -5.0]), "uint8").numpy().tolist() == [255, 0]
    assert [t.numpy().tolist() for t in K.unstack(np.arange(4.0).reshape(2, 2))] == \
        [[0, 1], [2, 3]]


def test_control_flow_as_keras():
    assert float(K.switch(5, [lambda a: a + 1, lambda a: a * 10], 3.0)) == 30.0
    carry, ys = K.scan(lambda c, x: (c + x, c * x), 0.0, np.array([1.0, 2, 3]))
    assert float(carry) == 6.0 and ys.numpy().tolist() == [0.0, 2.0, 9.0]
    carry, ys = K.scan(lambda c, x: (c + x, c), 0.0, np.array([1.0, 2, 3]), reverse=True)
    assert float(carry) == 6.0 and ys.numpy().tolist() == [5.0, 3.0, 0.0]
    assert K.associative_scan(lambda a, b: a + b, np.array([1.0, 2, 3])).numpy().tolist() == \
        [1, 3, 6]
    np.testing.assert_allclose(
        K.associative_scan(lambda a, b: a * b, np.arange(1.0, 7).reshape(2, 3), axis=1).numpy(),
        np.cumprod(np.arange(1.0, 7).reshape(2, 3), axis=1))
    assert int(K.fori_loop(0, 4, lambda i, v: v + i, 0)) == 6
    assert int(K.while_loop(lambda i: i < 5, lambda i: i + 1, 0)) == 5
    i, j = K.while_loop(lambda i, j: i < 5, lambda i, j: (i + 1, j * 2), (0, 1))
    assert (int(i), int(j)) == (5, 32)
    assert K.map(lambda v: v * 2, np.array([1.0, 2])).numpy().tolist() == [2, 4]
    assert float(K.cond(rt.constant(True), lambda: 1.0, lambda: 2.0)) == 1.0


def test_linear_algebra_is_numpys():
    m = RNG.rand(4, 4) + 4 * np.eye(4)
    spd = m @ m.T
    np.testing.assert_allclose(K.cholesky(spd).numpy(), np.linalg.cholesky(spd))
    np.testing.assert_allclose(K.cholesky(spd, upper=True).numpy(), np.linalg.cholesky(spd).T)
    np.testing.assert_allclose(K.cholesky_inverse(np.linalg.cholesky(spd)).numpy(),
                               np.linalg.inv(spd), rtol=1e-6)
    np.testing.assert_allclose(K.det(m).numpy(), np.linalg.det(m))
    np.testing.assert_allclose(K.inv(m).numpy(), np.linalg.inv(m))
    np.testing.assert_allclose(K.slogdet(m)[1].numpy(), np.linalg.slogdet(m)[1])
    b = RNG.rand(4)
    np.testing.assert_allclose(K.solve(m, b).numpy(), np.linalg.solve(m, b))
    upper = np.triu(m)
    np.testing.assert_allclose(K.solve_triangular(upper, b).numpy(), np.linalg.solve(upper, b))
    tall = RNG.rand(5, 3)
    rhs = RNG.rand(5)
    np.testing.assert_allclose(K.lstsq(tall, rhs).numpy(), np.linalg.lstsq(tall, rhs)[0])
    np.testing.assert_allclose(K.pinv(tall).numpy(), np.linalg.pinv(tall), atol=1e-10)
    assert int(K.matrix_rank(np.outer([1.0, 2], [3.0, 4]))) == 1
    q, r = K.qr(tall)
    np.testing.assert_allclose((q @ r).numpy(), tall)
    assert q.shape == (5, 3) and K.qr(tall, mode="complete")[0].shape == (5, 5)
    u, s, vh = K.svd(tall, full_matrices=False)
    np.testing.assert_allclose((u * s) @ vh, tall)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(tall, compute_uv=False))
    lu, piv = K.lu_factor(m)
    import scipy.linalg
    want = scipy.linalg.lu_factor(m)
    np.testing.assert_allclose(lu.numpy(), want[0])
    assert piv.numpy().tolist() == want[1].tolist()
    w, v = K.eigh(spd)
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(spd))


@pytest.mark.parametrize("ord_, axis", [(None, None), ("fro", None), ("nuc", None), (1, None),
                                        (-1, None), (2, None), (-2, None), (np.inf, None),
                                        (None, 1), (3, 1), (0, 0), (-np.inf, 1), (1, (0, 1))])
def test_norm_is_numpys(ord_, axis):
    x = RNG.rand(3, 4) - 0.5
    np.testing.assert_allclose(K.norm(x, ord=ord_, axis=axis).numpy(),
                               np.linalg.norm(x, ord=ord_, axis=axis))
    np.testing.assert_allclose(K.linalg.norm(x, ord=ord_, axis=axis, keepdims=True).numpy(),
                               np.linalg.norm(x, ord=ord_, axis=axis, keepdims=True))


def test_fourier_transforms_on_pairs():
    real, imag = K.fft((np.array([1.0, 2, 3]), np.zeros(3)))
    np.testing.assert_allclose(real.numpy() + 1j * imag.numpy(), np.fft.fft([1.0, 2, 3]))
    x = RNG.rand(4, 6)
    real, imag = K.fft2((x, np.zeros_like(x)))
    np.testing.assert_allclose(real.numpy() + 1j * imag.numpy(), np.fft.fft2(x))
    back = K.ifft2((real, imag))
    np.testing.assert_allclose(back[0].numpy(), x, atol=1e-12)
    real, imag = K.rfft(np.array([1.0, 2, 3, 4]))
    assert real.numpy().tolist() == [10, -2, -2] and imag.numpy().tolist() == [0, 2, 0]
    np.testing.assert_allclose(K.irfft((real, imag)).numpy(), [1, 2, 3, 4])
    frames = K.extract_sequences(np.arange(6.0), 3, 2)
    assert frames.numpy().tolist() == [[0, 1, 2], [2, 3, 4]]
    real, imag = K.stft(np.arange(16.0), 8, 4, 8)
    assert real.shape == (5, 5) and imag.shape == (5, 5)
    padded = np.pad(np.arange(16.0), 4, mode="reflect")
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)
    want = np.fft.rfft(padded[4:12] * window)
    np.testing.assert_allclose(real.numpy()[1] + 1j * imag.numpy()[1], want, atol=1e-9)


def test_jvp_is_the_directional_derivative():
    x, t = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    out, tangent = K.jvp(lambda v: v ** 3, (x,), (t,))
    np.testing.assert_allclose(out.numpy(), x ** 3)
    np.testing.assert_allclose(tangent.numpy(), 3 * x ** 2 * t)
    out, tangent, aux = K.linalg.jvp(lambda v: (rt.reduce_sum(v * v), v + 1), (x,), (t,),
                                     has_aux=True)
    np.testing.assert_allclose(float(tangent), 2 * x @ t)
    np.testing.assert_allclose(aux.numpy(), x + 1)


# -- nn ----------------------------------------------------------------------------------------

X = np.array([[1.0, 2, 3], [4, 5, 7]], np.float32)


def test_normalisations_printed_by_keras():
    np.testing.assert_allclose(K.layer_normalization(X).numpy(),
                               [[-1.22474, 0.0, 1.22474], [-1.06905, -0.26726, 1.33631]],
                               atol=1e-5)
    np.testing.assert_allclose(K.rms_normalization(X, scale=2.0).numpy(),
                               [[0.92582, 1.85164, 2.77746], [1.46059, 1.82574, 2.55604]],
                               atol=1e-5)
    np.testing.assert_allclose(K.normalize(X).numpy(),
                               X / np.linalg.norm(X, axis=-1, keepdims=True), rtol=1e-6)
    mean, var = np.array([1.0, 2, 3]), np.array([1.0, 4, 9])
    np.testing.assert_allclose(K.batch_normalization(X, mean, var, axis=-1, epsilon=0.0).numpy(),
                               (X - mean) / np.sqrt(var), rtol=1e-6)
    mean, var = K.moments(X, axes=[0])
    np.testing.assert_allclose(var.numpy(), X.var(axis=0))
    assert float(K.psnr(X, X + 1, 10.0)) == pytest.approx(20.0)


def test_losses_and_encodings_printed_by_keras():
    np.testing.assert_allclose(K.binary_crossentropy(np.array([0.0, 1.0]), np.array([0.2, 0.6]))
                               .numpy(), [0.22314, 0.51083], atol=1e-5)
    np.testing.assert_allclose(K.categorical_crossentropy(np.array([[0.0, 1, 0]]),
                                                          np.array([[0.2, 0.6, 0.2]])).numpy(),
                               [0.51083], atol=1e-5)
    np.testing.assert_allclose(K.sparse_categorical_crossentropy(np.array([1]),
                                                                 np.array([[0.2, 0.6, 0.2]]))
                               .numpy(), [0.51083], atol=1e-5)
    logits = np.array([[1.0, -2.0, 0.5]])
    np.testing.assert_allclose(
        K.categorical_crossentropy(np.array([[0.0, 0, 1]]), logits, from_logits=True).numpy(),
        -np.log(np.exp(0.5) / np.exp(logits).sum(axis=-1)), rtol=1e-6)
    np.testing.assert_allclose(
        K.binary_crossentropy(np.array([1.0]), np.array([0.3]), from_logits=True).numpy(),
        np.log1p(np.exp(-0.3)), rtol=1e-6)
    assert K.one_hot([1, 0], 3).numpy().tolist() == [[0, 1, 0], [1, 0, 0]]
    assert K.multi_hot([[0, 2], [1, 1]], 4).numpy().tolist() == [[1, 0, 1, 0], [0, 1, 0, 0]]
    assert K.multi_hot([0, 2], 4).numpy().tolist() == [1, 0, 1, 0]
    np.testing.assert_allclose(K.polar(np.array([2.0]), np.array([np.pi / 2])).numpy(), [2j],
                               atol=1e-12)


def test_pooling_and_convolution_are_numpys():
    x = RNG.rand(2, 6, 5, 3).astype(np.float32)
    want = x[:, :6, :4].reshape(2, 3, 2, 2, 2, 3).max(axis=(2, 4))
    np.testing.assert_allclose(K.max_pool(x, 2).numpy(), want)
    want = x[:, :6, :4].reshape(2, 3, 2, 2, 2, 3).mean(axis=(2, 4))
    np.testing.assert_allclose(K.average_pool(x, (2, 2)).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(K.adaptive_average_pool(np.arange(5.0).reshape(1, 5, 1), 3)
                               .numpy().ravel(), [0.5, 2.0, 3.5])
    np.testing.assert_allclose(K.adaptive_max_pool(np.arange(5.0).reshape(1, 5, 1), 3)
                               .numpy().ravel(), [1.0, 3.0, 4.0])
    kernel = RNG.rand(3, 3, 3, 4).astype(np.float32)
    out = K.conv(x, kernel)
    want = np.einsum("nhwc,hwco->no", x[:, :3, :3], kernel)
    np.testing.assert_allclose(out.numpy()[:, 0, 0], want, rtol=1e-5)
    depth = RNG.rand(3, 3, 3, 2).astype(np.float32)
    out = K.depthwise_conv(x, depth)
    want = np.einsum("nhwc,hwcm->ncm", x[:, :3, :3], depth).reshape(2, 6)
    np.testing.assert_allclose(out.numpy()[:, 0, 0], want, rtol=1e-5)
    point = RNG.rand(1, 1, 6, 5).astype(np.float32)
    sep = K.separable_conv(x, depth, point)
    np.testing.assert_allclose(sep.numpy(), np.einsum("nhwc,co->nhwo", out.numpy(),
                                                      point[0, 0]), rtol=1e-5)
    up = K.conv_transpose(x, RNG.rand(2, 2, 4, 3).astype(np.float32), strides=2)
    assert up.shape == (2, 12, 10, 4)
    small = np.arange(16.0).reshape(1, 2, 2, 4)
    assert K.space_to_depth(K.depth_to_space(small, 2), 2).numpy().tolist() == small.tolist()


def test_dot_product_attention_as_keras():
    out = K.dot_product_attention(np.ones((1, 2, 1, 2)), np.ones((1, 2, 1, 2)),
                                  np.arange(4.0).reshape(1, 2, 1, 2), is_causal=True)
    assert out.numpy().tolist() == [[[[0.0, 1.0]], [[1.0, 2.0]]]]
    q, k, v = RNG.rand(2, 3, 4, 5), RNG.rand(2, 6, 2, 5), RNG.rand(2, 6, 2, 5)
    kk, vv = np.repeat(k, 2, axis=2), np.repeat(v, 2, axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, kk) / np.sqrt(5)
    weights = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    np.testing.assert_allclose(K.dot_product_attention(q, k, v).numpy(),
                               np.einsum("bnts,bsnh->btnh", weights, vv), rtol=1e-6)
    with pytest.raises(ValueError, match="flash"):
        K.dot_product_attention(q, k, v, flash_attention=True)


def test_unfold_and_fold_are_adjoint_patch_copies():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    cols = K.unfold(x, 2, stride=1).numpy()
    assert cols.shape == (2, 12, 12)
    # column (row r, col c) holds the 2x2 patch at (r, c) of each channel, channel-major
    np.testing.assert_allclose(cols[:, :, 1 * 4 + 2].reshape(2, 3, 2, 2), x[:, :, 1:3, 2:4])
    counts = K.fold(np.ones((1, 4, 12)), (4, 5), 2).numpy()[0, 0]
    want = np.zeros((4, 5))
    for r in range(3):
        for c in range(4):
            want[r:r + 2, c:c + 2] += 1
    np.testing.assert_allclose(counts, want)


def test_activations_are_keras_activations():
    assert K.celu is not None
    x = np.array([-2.0, 0.5, 3.0])
    np.testing.assert_allclose(K.nn.relu6(np.array([-1.0, 7.0])).numpy(), [0.0, 6.0])
    np.testing.assert_allclose(K.silu(x).numpy(), x / (1 + np.exp(-x)))
    np.testing.assert_allclose(K.log_sigmoid(x).numpy(), -np.log1p(np.exp(-x)))
    np.testing.assert_allclose(K.softsign(x).numpy(), x / (1 + np.abs(x)))
    np.testing.assert_allclose(K.hard_shrink(x, threshold=1.0).numpy(), [-2.0, 0.0, 3.0])


# -- image ---------------------------------------------------------------------------------

IMG = np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5, 1)


def test_affine_transform_printed_by_keras():
    shift = np.array([1, 0, 1, 0, 1, 0.5, 0, 0], np.float32)
    np.testing.assert_allclose(K.image.affine_transform(IMG, shift).numpy()[0, ..., 0],
                               [[3.5, 4.5, 5.5, 6.5, 0], [8.5, 9.5, 10.5, 11.5, 0],
                                [13.5, 14.5, 15.5, 16.5, 0], [8, 8.5, 9, 9.5, 0]])
    np.testing.assert_allclose(
        K.image.affine_transform(IMG, shift, interpolation="nearest", fill_mode="nearest")
        .numpy()[0, ..., 0], [[6, 7, 8, 9, 9], [11, 12, 13, 14, 14], [16, 17, 18, 19, 19],
                              [16, 17, 18, 19, 19]])
    shift = np.array([1, 0, 1.5, 0, 1, 0.5, 0, 0], np.float32)
    np.testing.assert_allclose(
        K.image.affine_transform(IMG, shift, fill_mode="reflect").numpy()[0, ..., 0],
        [[4, 5, 6, 6.5, 6], [9, 10, 11, 11.5, 11], [14, 15, 16, 16.5, 16],
         [16.5, 17.5, 18.5, 19, 18.5]])
    np.testing.assert_allclose(
        K.image.affine_transform(IMG, shift, fill_mode="wrap").numpy()[0, ..., 0],
        [[4, 5, 6, 2.5, 3], [9, 10, 11, 7.5, 8], [14, 15, 16, 12.5, 13],
         [1.5, 2.5, 3.5, 0, 0.5]])


def test_map_coordinates_printed_by_keras():
    coords = np.array([[-1.5, -0.5, 0.3, 4.2, 5.5, 6.7]])
    want = {("constant", 1): [-9, -4.5, 0.3, 1.4, -9, -9], ("constant", 0): [-9, 0, 0, 4, -9, -9],
            ("nearest", 1): [0, 0, 0.3, 4, 4, 4], ("nearest", 0): [0, 0, 0, 4, 4, 4],
            ("wrap", 1): [3.5, 2, 0.3, 3.2, 0.5, 1.7], ("wrap", 0): [3, 0, 0, 4, 1, 2]}
    for (mode, order), values in want.items():
        got = K.image.map_coordinates(np.arange(5.0), coords, order=order, fill_mode=mode,
                                      fill_value=-9)
        np.testing.assert_allclose(got.numpy(), values, atol=1e-12)
    import scipy.ndimage
    grid = RNG.rand(4, 5)
    where = RNG.rand(2, 7) * 5 - 0.5
    for mode in ("mirror", "reflect"):
        for order in (0, 1):
            if order == 0:   # SciPy rounds halves up, Keras to even: keep away from halves
                where = np.round(where, 1) + 0.01
            np.testing.assert_allclose(
                K.image.map_coordinates(grid, where, order=order, fill_mode=mode).numpy(),
                scipy.ndimage.map_coordinates(grid, where, order=order,
                                              mode={"mirror": "mirror",
                                                    "reflect": "grid-mirror"}[mode]),
                atol=1e-12)


def test_image_ops_printed_by_keras():
    np.testing.assert_allclose(
        K.image.gaussian_blur(IMG, (3, 3), (1.0, 1.0)).numpy()[0, 0, :, 0],
        [1.1937301, 2.0962744, 2.822206, 3.5481372, 2.9037256], rtol=1e-6)
    assert K.image.crop_images(IMG, top_cropping=1, left_cropping=2, target_height=2,
                               target_width=2).numpy()[0, ..., 0].tolist() == [[7, 8], [12, 13]]
    padded = K.image.pad_images(IMG, top_padding=1, left_padding=2, target_height=6,
                                target_width=8)
    assert padded.shape == (2, 6, 8, 1) and padded.numpy()[0, 1, 2, 0] == 0.0 and \
        padded.numpy()[0, 1, 3, 0] == 1.0
    patches = K.image.extract_patches(IMG, 2)
    assert patches.shape == (2, 2, 2, 4) and patches.numpy()[0, 0, 0].tolist() == [0, 1, 5, 6]
    assert K.image.extract_patches(IMG, (2, 3), strides=(1, 2), padding="same").shape == \
        (2, 4, 3, 6)
    np.testing.assert_allclose(K.image.resize(IMG, (2, 3), crop_to_aspect_ratio=True)
                               .numpy()[0, ..., 0],
                               [[1.5833333, 3.25, 4.9166665], [9.083333, 10.75, 12.416666]],
                               rtol=1e-6)
    warped = K.image.perspective_transform(
        IMG, np.array([[0, 0], [4, 0], [0, 3], [4, 3]], np.float32),
        np.array([[1, 0], [4, 0], [0, 3], [4, 3]], np.float32))
    np.testing.assert_allclose(warped.numpy()[0, ..., 0],
                               [[0, 0, 1.3333334, 2.6666665, 4],
                                [1.2000002, 6.3999996, 7.5999994, 8.8, 10],
                                [6.942148, 11.636364, 12.727272, 13.818183, 14.909091],
                                [15, 16, 17, 18, 19]], rtol=1e-5, atol=1e-5)
    rng = np.random.RandomState(0)
    a = rng.rand(1, 16, 16, 2).astype(np.float32)
    b = np.clip(a + 0.1 * rng.randn(1, 16, 16, 2), 0, 1).astype(np.float32)
    assert float(K.image.ssim(a, b, max_val=1.0)) == pytest.approx(0.95383084, abs=1e-6)
    assert float(K.image.ssim(a, b, max_val=1.0, filter_size=5)) == \
        pytest.approx(0.9468483, abs=1e-6)
    np.testing.assert_allclose(K.image.rgb_to_grayscale(np.array([[[[0.2, 0.4, 0.6]]]]))
                               .numpy().ravel(), [0.36298], atol=1e-5)
    np.testing.assert_allclose(K.image.rgb_to_hsv(np.array([[[[0.2, 0.4, 0.6]]]])).numpy()
                               .ravel(), [0.58333, 0.66667, 0.6], atol=1e-5)


# -- namespaces, staging, keywords -----------------------------------------------------------

def test_families_hold_the_same_functions():
    assert K.numpy.median is K.median and K.nn.conv is K.conv
    assert K.linalg.svd is K.svd and K.numpy.slogdet is K.slogdet
    assert "median" in dir(K.numpy) and "ssim" in dir(K.image) and "qr" in dir(K.linalg)
    with pytest.raises(AttributeError, match="keras.ops.image has no 'nope'"):
        K.image.nope  # noqa: B018


def test_staged_runs_equal_eager_ones():
    @rt.function
    def staged(x, y):
        return (K.nanmax(x, axis=1), K.quantile(x, 0.25, axis=1), K.gcd(y, 6),
                K.norm(x, ord="fro"), K.layer_normalization(x), K.unique(y),
                K.scan(lambda c, v: (c + v, c), 0, y)[1], K.image.map_coordinates(
                    x, [[0.5, 1.0], [1.5, 2.0]], order=1))

    x = np.array([[1.0, 5.0, 2.0], [4.0, 0.5, 3.0]])
    y = np.array([4, 9, 4, 12], np.int32)
    for got, want in zip(staged(x, y), staged.python_function(x, y)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("fn, kwargs", [
    (lambda **k: K.median(A, **k), {"keepdim": True}),
    (lambda **k: K.conv(IMG, np.ones((2, 2, 1, 1), np.float32), **k), {"stride": 1}),
    (lambda **k: K.image.resize(IMG, (2, 2), **k), {"interpolaton": "nearest"}),
    (lambda **k: K.norm(A, **k), {"keepdim": True}),
])
def test_a_misspelt_keyword_suggests_the_name(fn, kwargs):
    with pytest.raises(TypeError, match="did you mean"):
        fn(**kwargs)

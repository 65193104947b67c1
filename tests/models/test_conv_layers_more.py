"""Transposed, depthwise and separable convolutions, up-sampling, padding, cropping and
TimeDistributed, against NumPy formulas computed from the layers' own weights (set in
Keras's `get_weights()` layouts) and Keras 3's documented shapes and values.

Cross-checked once against Keras 3.x on TensorFlow 2.21: with the same weights every layer
here gave Keras's outputs to 2e-6 (conv transposes with and without output_padding, depthwise
with multiplier, stride and dilation, separable 1-D/2-D, nearest and bilinear up-sampling,
cropping, padding, TimeDistributed(Conv2D)).
"""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

L = keras.layers
RNG = np.random.default_rng(7)


def _normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# -- NumPy references -----------------------------------------------------------------------


def _same_pads(size, kernel, stride, dilation):
    """TensorFlow's 'SAME' padding of a convolution: (before, after)."""
    span = (kernel - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return total // 2, total - total // 2


def np_conv2d(x, k, strides=(1, 1), padding="valid", dilation=(1, 1)):
    """Direct cross-correlation of NHWC `x` with HWIO `k` (loops over the taps)."""
    n, h, w, _ = x.shape
    kh, kw, _, o = k.shape
    if padding == "same":
        ph, pw = _same_pads(h, kh, strides[0], dilation[0]), _same_pads(w, kw, strides[1],
                                                                        dilation[1])
        x = np.pad(x, ((0, 0), ph, pw, (0, 0)))
    oh = (x.shape[1] - (kh - 1) * dilation[0] - 1) // strides[0] + 1
    ow = (x.shape[2] - (kw - 1) * dilation[1] - 1) // strides[1] + 1
    y = np.zeros((n, oh, ow, o), x.dtype)
    for a in range(kh):
        for b in range(kw):
            patch = x[:, a * dilation[0]:a * dilation[0] + (oh - 1) * strides[0] + 1:strides[0],
                      b * dilation[1]:b * dilation[1] + (ow - 1) * strides[1] + 1:strides[1]]
            y += patch @ k[a, b]
    return y


def np_depthwise(x, k, strides=(1, 1), padding="valid", dilation=(1, 1)):
    """Each channel c convolved with k[:, :, c, m]; output channel c * M + m."""
    c, m = k.shape[2:]
    out = [np_conv2d(x[..., ci:ci + 1], k[:, :, ci:ci + 1, :], strides, padding, dilation)
           for ci in range(c)]
    return np.concatenate(out, axis=-1).reshape(*out[0].shape[:3], c * m)


def _adjoint_gap(y, x, kernel, strides, padding, dilation=(1, 1)):
    """|<conv(z, K), x> - <z, y>| for a random z of y's shape, K the transpose kernel read as
    a conv kernel: zero exactly when y is conv's transpose (adjoint) applied to x."""
    z = RNG.standard_normal(y.shape)
    lhs = np.sum(np_conv2d(z, kernel.astype(np.float64), strides, padding, dilation) * x)
    return abs(lhs - np.sum(z * y)) / (1 + abs(lhs))


# -- conv transposes -------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, out_hw", [
    (dict(kernel_size=3, strides=2, padding="same"), (10, 12)),
    (dict(kernel_size=(3, 2), strides=(2, 3), padding="valid"), (11, 18)),
    (dict(kernel_size=3, strides=2, padding="same", output_padding=1), (10, 12)),
    (dict(kernel_size=4, strides=3, padding="valid", output_padding=(2, 1)), (18, 20)),
    (dict(kernel_size=3, padding="same", dilation_rate=2), (5, 6)),
    (dict(kernel_size=2, padding="valid", dilation_rate=(2, 1)), (7, 7)),
])
def test_conv2d_transpose_is_the_adjoint_of_conv2d_with_keras_output_sizes(kwargs, out_hw):
    x = _normal(2, 5, 6, 3).astype(np.float64)
    layer = L.Conv2DTranspose(4, dtype="float64", **kwargs)
    y = layer(x).numpy()
    kernel, bias = layer.get_weights()
    assert kernel.shape == (*layer.kernel_size, 4, 3) and bias.shape == (4,)
    assert y.shape == (2, *out_hw, 4)
    y_nobias = y - bias
    gap = _adjoint_gap(y_nobias, x, kernel, layer.strides, layer.padding, layer.dilation_rate)
    assert gap < 1e-10


def test_conv_transposes_have_keras_documented_shapes():
    # the examples of Keras 3's Conv2DTranspose and Conv1DTranspose docstrings
    assert L.Conv2DTranspose(32, 2, 2, activation="relu")(
        np.random.rand(4, 10, 8, 128).astype(np.float32)).shape == (4, 20, 16, 32)
    assert L.Conv1DTranspose(32, 3, 2, activation="relu")(
        np.random.rand(4, 10, 128).astype(np.float32)).shape == (4, 21, 32)


def test_conv1d_transpose_is_the_adjoint_of_conv1d():
    x = _normal(2, 7, 3).astype(np.float64)
    one = L.Conv1DTranspose(4, 3, strides=2, padding="valid", output_padding=1, dtype="float64")
    y = one(x).numpy()
    kernel, bias = one.get_weights()
    assert kernel.shape == (3, 4, 3) and y.shape == (2, 16, 4)
    gap = _adjoint_gap((y - bias)[:, None], x[:, None], kernel[None], (1, 2), "valid")
    assert gap < 1e-10


def test_conv_transpose_arguments_are_checked_as_keras():
    with pytest.raises(ValueError, match="output_padding"):
        L.Conv2DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="dilation_rate"):
        L.Conv2DTranspose(2, 3, strides=2, dilation_rate=2)
    def clip(w):
        return w
    constrained = L.Conv2DTranspose(2, 3, kernel_constraint=clip)
    constrained.build((None, 4, 4, 1))  # kept on the weight, applied after each update
    assert constrained.kernel.constraint is clip
    with pytest.raises(TypeError, match="kernel_size"):
        L.Conv2DTranspose(2, 3, kernal_size=3)


def test_nn_conv2d_transpose_and_its_errors():
    x, f = _normal(1, 3, 3, 2), _normal(3, 3, 5, 2)
    y = rt.nn.conv2d_transpose(x, f, [1, 6, 6, 5], strides=2, padding="SAME")
    assert y.shape == (1, 6, 6, 5)
    gap = _adjoint_gap(y.numpy().astype(np.float64), x.astype(np.float64), f, (2, 2), "same")
    assert gap < 1e-5
    with pytest.raises(ValueError, match="output_shape"):
        rt.nn.conv2d_transpose(x, f, [1, 9, 9, 5], strides=2, padding="SAME")
    with pytest.raises(ValueError, match="channels"):
        rt.nn.conv2d_transpose(x, f, [1, 6, 6, 4], strides=2, padding="SAME")
    y1 = rt.nn.conv1d_transpose(x[0], f[0], [3, 7, 5], strides=2, padding="VALID")
    assert y1.shape == (3, 7, 5)


def test_grouped_conv2d_and_conv1d_match_numpy_per_group():
    x = _normal(2, 6, 7, 4)
    layer = L.Conv2D(6, 3, groups=2, padding="same")
    y = layer(x).numpy()
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 3, 2, 6)  # Keras's layout: [kh, kw, channels / groups, filters]
    expected = np.concatenate([np_conv2d(x[..., :2], kernel[..., :3], padding="same"),
                               np_conv2d(x[..., 2:], kernel[..., 3:], padding="same")], -1)
    np.testing.assert_allclose(y, expected + bias, rtol=1e-5, atol=1e-5)
    x1 = _normal(2, 9, 6)
    one = L.Conv1D(4, 3, groups=2, strides=2)
    y1 = one(x1).numpy()
    kernel, bias = one.get_weights()
    assert kernel.shape == (3, 3, 4)
    expected = np.concatenate([np_conv2d(x1[:, None, :, :3], kernel[None, :, :, :2], (1, 2)),
                               np_conv2d(x1[:, None, :, 3:], kernel[None, :, :, 2:], (1, 2))], -1)
    np.testing.assert_allclose(y1, expected[:, 0] + bias, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="groups"):
        L.Conv2D(5, 3, groups=2)
    with pytest.raises(ValueError, match="groups"):
        L.Conv2D(4, 3, groups=4)(x[..., :3])
    layer = L.Conv1D(4, 3, bias_constraint=lambda w: w * 0.0)  # kept on the weight
    layer(np.ones((1, 5, 2), np.float32))
    assert layer.bias.constraint is layer.bias_constraint


def test_nn_convolution_and_atrous_conv2d_are_conv1d_or_conv2d():
    x, w = _normal(2, 7, 6, 3), _normal(3, 3, 3, 4)
    np.testing.assert_allclose(rt.nn.convolution(x, w, strides=2, padding="SAME").numpy(),
                               np_conv2d(x, w, (2, 2), "same"), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rt.nn.atrous_conv2d(x, w, 2, "SAME").numpy(),
                               np_conv2d(x, w, padding="same", dilation=(2, 2)),
                               rtol=1e-5, atol=1e-5)
    x1, w1 = _normal(2, 9, 3), _normal(3, 3, 4)
    np.testing.assert_allclose(rt.nn.convolution(x1, w1, dilations=2).numpy(),
                               np_conv2d(x1[:, None], w1[None], dilation=(1, 2))[:, 0],
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="rank"):
        rt.nn.convolution(_normal(1, 2, 2, 2, 1), _normal(1, 1, 1, 1, 1))


# -- depthwise and separable -----------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=3, depth_multiplier=2, padding="same", strides=2),
    dict(kernel_size=(2, 3), dilation_rate=2),
    dict(kernel_size=1, depth_multiplier=3, use_bias=False),
])
def test_depthwise_conv2d_matches_numpy(kwargs):
    x = _normal(2, 5, 6, 3)
    layer = L.DepthwiseConv2D(activation="relu", **kwargs)
    y = layer(x).numpy()
    weights = layer.get_weights()
    kernel = weights[0]
    assert kernel.shape == (*layer.kernel_size, 3, layer.depth_multiplier)
    expected = np_depthwise(x, kernel, layer.strides, layer.padding, layer.dilation_rate)
    if layer.use_bias:
        assert weights[1].shape == (3 * layer.depth_multiplier,)
        expected = expected + weights[1]
    np.testing.assert_allclose(y, np.maximum(expected, 0), rtol=1e-5, atol=1e-5)


def test_depthwise_and_separable_shapes_are_keras_3s():
    # the shapes Keras 3 gives for these calls
    x = np.random.rand(4, 10, 10, 12).astype(np.float32)
    assert L.DepthwiseConv2D(kernel_size=3, depth_multiplier=3, activation="relu")(x).shape \
        == (4, 8, 8, 36)
    assert L.SeparableConv2D(4, 3, strides=2, activation="relu")(x).shape == (4, 4, 4, 4)
    x1 = np.random.rand(4, 10, 12).astype(np.float32)
    assert L.DepthwiseConv1D(3, depth_multiplier=3, dilation_rate=2)(x1).shape == (4, 6, 36)
    assert L.SeparableConv1D(4, 3, strides=2, padding="same")(x1).shape == (4, 5, 4)


def test_separable_convs_are_depthwise_then_pointwise():
    x = _normal(2, 5, 6, 3)
    layer = L.SeparableConv2D(5, 3, depth_multiplier=2, padding="same")
    y = layer(x).numpy()
    depthwise, pointwise, bias = layer.get_weights()
    assert depthwise.shape == (3, 3, 3, 2) and pointwise.shape == (1, 1, 6, 5)
    expected = np_depthwise(x, depthwise, padding="same") @ pointwise[0, 0] + bias
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    x1 = _normal(2, 9, 3)
    one = L.SeparableConv1D(4, 3, strides=2)
    y1 = one(x1).numpy()
    depthwise, pointwise, bias = one.get_weights()
    assert depthwise.shape == (3, 3, 1) and pointwise.shape == (1, 3, 4)
    expected = np_depthwise(x1[:, None], depthwise[None], (1, 2))[:, 0] @ pointwise[0] + bias
    np.testing.assert_allclose(y1, expected, rtol=1e-5, atol=1e-5)


def test_nn_depthwise_and_separable_conv2d():
    x, k, p = _normal(2, 6, 5, 3), _normal(3, 3, 3, 2), _normal(1, 1, 6, 4)
    got = rt.nn.depthwise_conv2d(x, k, [1, 2, 2, 1], "SAME").numpy()
    np.testing.assert_allclose(got, np_depthwise(x, k, (2, 2), "same"), rtol=1e-5, atol=1e-5)
    got = rt.nn.separable_conv2d(x, k, p, [1, 1, 1, 1], "VALID", dilations=[2, 2]).numpy()
    expected = np_depthwise(x, k, dilation=(2, 2)) @ p[0, 0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="input channels"):
        rt.nn.depthwise_conv2d(x, _normal(3, 3, 4, 2), [1, 1, 1, 1], "SAME")


def _numeric_grad(fn, value, eps=1e-6):
    grad = np.zeros_like(value)
    for index in np.ndindex(value.shape):
        up, down = value.copy(), value.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (fn(up) - fn(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("op", ["conv2d_transpose", "depthwise_conv2d"])
def test_gradients_match_finite_differences(op):
    x = RNG.standard_normal((1, 4, 3, 2))
    if op == "conv2d_transpose":
        k = RNG.standard_normal((3, 2, 3, 2))
        weights = RNG.standard_normal((1, 8, 6, 3))

        def run(xv, kv):
            return rt.nn.conv2d_transpose(xv, kv, [1, 8, 6, 3], 2, "SAME")
    else:
        k = RNG.standard_normal((2, 3, 2, 2))
        weights = RNG.standard_normal((1, 2, 2, 4))

        def run(xv, kv):
            return rt.nn.depthwise_conv2d(xv, kv, [1, 2, 2, 1], "SAME")

    def loss(xv, kv):
        return rt.reduce_sum(rt.square(run(xv, kv)) * weights)

    xt, kt = rt.constant(x), rt.constant(k)
    with rt.GradientTape() as tape:
        tape.watch([xt, kt])
        value = loss(xt, kt)
    gx, gk = tape.gradient(value, [xt, kt])
    np.testing.assert_allclose(gx.numpy(), _numeric_grad(lambda v: loss(v, k).numpy(), x),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gk.numpy(), _numeric_grad(lambda v: loss(x, v).numpy(), k),
                               rtol=1e-5, atol=1e-6)


# -- up-sampling, padding, cropping ------------------------------------------------------------


def test_upsampling1d_keras_documented_values():
    x = np.arange(12).reshape(2, 2, 3).astype(np.float32)
    y = L.UpSampling1D(size=2)(x).numpy()
    np.testing.assert_array_equal(y, np.repeat(x, 2, axis=1))
    np.testing.assert_array_equal(y[0], [[0, 1, 2], [0, 1, 2], [3, 4, 5], [3, 4, 5]])


def test_upsampling2d_nearest_repeats_rows_and_columns():
    x = np.arange(12).reshape(2, 2, 1, 3).astype(np.float32)
    y = L.UpSampling2D(size=(1, 2))(x).numpy()
    # Keras 3's docstring example
    np.testing.assert_array_equal(y[0], [[[0, 1, 2], [0, 1, 2]], [[3, 4, 5], [3, 4, 5]]])
    x = _normal(2, 3, 4, 2)
    np.testing.assert_array_equal(L.UpSampling2D((2, 3))(x).numpy(),
                                  np.repeat(np.repeat(x, 2, axis=1), 3, axis=2))


def _np_bilinear(x, out_h, out_w):
    """Half-pixel-center bilinear resizing (TensorFlow's resize, no antialiasing)."""
    def weights(size, out):
        pos = (np.arange(out) + 0.5) * size / out - 0.5
        low = np.floor(pos)
        frac = pos - low
        lo = np.clip(low, 0, size - 1).astype(int)
        hi = np.clip(low + 1, 0, size - 1).astype(int)
        return lo, hi, frac
    lo, hi, fr = weights(x.shape[1], out_h)
    rows = x[:, lo] * (1 - fr)[None, :, None, None] + x[:, hi] * fr[None, :, None, None]
    lo, hi, fr = weights(x.shape[2], out_w)
    return rows[:, :, lo] * (1 - fr)[None, None, :, None] + rows[:, :, hi] * fr[None, None, :,
                                                                                 None]


def test_upsampling2d_bilinear_matches_numpy():
    x = _normal(2, 3, 4, 2)
    y = L.UpSampling2D((2, 3), interpolation="bilinear")(x)
    assert y.dtype == rt.float32
    np.testing.assert_allclose(y.numpy(), _np_bilinear(x, 6, 12), rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match="bicubic"):
        L.UpSampling2D(interpolation="bicubic")
    with pytest.raises(ValueError, match="interpolation"):
        L.UpSampling2D(interpolation="cubic")


def test_zero_padding1d_and_cropping():
    x = _normal(2, 7, 3)
    np.testing.assert_array_equal(L.ZeroPadding1D((1, 2))(x).numpy(),
                                  np.pad(x, ((0, 0), (1, 2), (0, 0))))
    np.testing.assert_array_equal(L.ZeroPadding1D(2)(x).numpy(),
                                  np.pad(x, ((0, 0), (2, 2), (0, 0))))
    np.testing.assert_array_equal(L.Cropping1D((2, 1))(x).numpy(), x[:, 2:-1])
    np.testing.assert_array_equal(L.Cropping1D(3)(x).numpy(), x[:, 3:4])
    x4 = _normal(2, 28, 28, 3)
    # Keras 3's docstring example
    assert L.Cropping2D(cropping=((2, 2), (4, 4)))(x4).shape == (2, 24, 20, 3)
    np.testing.assert_array_equal(L.Cropping2D(((1, 2), (0, 3)))(x4).numpy(),
                                  x4[:, 1:-2, :-3])
    np.testing.assert_array_equal(L.Cropping2D((1, 2))(x4).numpy(), x4[:, 1:-1, 2:-2])
    with pytest.raises(ValueError, match="removes all"):
        L.Cropping1D((4, 3))(x)
    with pytest.raises(ValueError, match="cropping"):
        L.Cropping2D(((1, 2, 3), 1))


# -- TimeDistributed ------------------------------------------------------------------------------


def test_time_distributed_applies_one_layer_to_every_step():
    x = _normal(2, 4, 5, 6, 3)
    td = L.TimeDistributed(L.Conv2D(2, 3, padding="same"))
    y = td(x).numpy()
    kernel, bias = td.get_weights()
    assert y.shape == (2, 4, 5, 6, 2) and kernel.shape == (3, 3, 3, 2)
    expected = np.stack([np_conv2d(x[:, t], kernel, padding="same") + bias for t in range(4)],
                        axis=1)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    # Keras 3's docstring example: a batch of 32 videos of 10 frames
    frames = keras.Input(shape=(10, 128, 128, 3), batch_size=32)
    assert L.TimeDistributed(L.Conv2D(64, (3, 3)))(frames).shape == (32, 10, 126, 126, 64)
    with pytest.raises(ValueError, match="layer"):
        L.TimeDistributed(lambda t: t)


def test_time_distributed_keeps_the_input_mask_and_masked_loss():
    tokens = np.array([[3, 1, 0, 0], [2, 2, 4, 0]])
    inputs = keras.Input(shape=(4,), dtype="int32")
    embedded = L.Embedding(5, 3, mask_zero=True)(inputs)
    outputs = L.TimeDistributed(L.Dense(2))(embedded)
    model = keras.Model(inputs, outputs)
    y = model(tokens)
    np.testing.assert_array_equal(np.asarray(y._keras_mask), tokens != 0)
    table = model.layers[1].get_weights()[0]
    kernel, bias = model.layers[2].get_weights()
    np.testing.assert_allclose(y.numpy(), table[tokens] @ kernel + bias, rtol=1e-5, atol=1e-6)
    # the loss averages over the unmasked steps only
    target = _normal(2, 4, 2)
    model.compile("sgd", "mse")
    loss = model.evaluate(tokens, target, verbose=0)
    per_step = ((table[tokens] @ kernel + bias - target) ** 2).mean(axis=-1)
    np.testing.assert_allclose(loss, per_step[tokens != 0].mean(), rtol=1e-5)


def test_time_distributed_passes_training_to_the_inner_layer():
    x = np.ones((4, 3, 50), np.float32)
    td = L.TimeDistributed(L.Dropout(0.5))
    np.testing.assert_array_equal(td(x, training=False).numpy(), x)
    dropped = td(x, training=True).numpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0} and (dropped == 0).any()


# -- configs, saving, rt.function and fit -------------------------------------------------------

LAYERS = [
    (lambda: L.Conv2DTranspose(3, 3, strides=2, padding="same", output_padding=1), (5, 6, 2)),
    (lambda: L.Conv1DTranspose(3, 2, strides=2, activation="relu"), (7, 2)),
    (lambda: L.DepthwiseConv2D(3, depth_multiplier=2, padding="same"), (5, 6, 2)),
    (lambda: L.DepthwiseConv1D(3, depth_multiplier=2), (7, 2)),
    (lambda: L.SeparableConv2D(3, 3, depth_multiplier=2), (5, 6, 2)),
    (lambda: L.SeparableConv1D(3, 2, padding="same"), (7, 2)),
    (lambda: L.UpSampling1D(3), (7, 2)),
    (lambda: L.UpSampling2D((2, 1), interpolation="bilinear"), (5, 6, 2)),
    (lambda: L.ZeroPadding1D((1, 3)), (7, 2)),
    (lambda: L.Cropping1D((1, 2)), (7, 2)),
    (lambda: L.Cropping2D(((1, 0), (2, 1))), (5, 6, 2)),
    (lambda: L.TimeDistributed(L.Dense(3, activation="tanh")), (7, 2)),
]


@pytest.mark.parametrize("make, shape", LAYERS)
def test_config_round_trip_saving_function_and_fit(tmp_path, make, shape):
    layer = make()
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config and clone is not layer
    model = keras.Sequential([keras.Input(shape=shape), layer, L.Flatten(), L.Dense(1)])
    x = _normal(8, *shape)
    expected = model(x).numpy()
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    assert type(loaded.layers[0]) is type(layer)
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(rt.function(model)(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    model.compile(keras.optimizers.SGD(0.05), "mse")
    target = _normal(8, 1)
    history = model.fit(x, target, epochs=3, batch_size=8, verbose=0).history["loss"]
    assert history[-1] < history[0]


@pytest.mark.parametrize("jit", [True, "xla"])
def test_compiler_tiers_agree_with_the_numpy_tier(jit):
    pytest.importorskip("numba" if jit is True else "jax")
    model = keras.Sequential([
        keras.Input((5, 6, 2)), L.Conv2DTranspose(3, 3, strides=2, padding="same"),
        L.DepthwiseConv2D(3, depth_multiplier=2), L.SeparableConv2D(2, 3, padding="same"),
        L.UpSampling2D(interpolation="bilinear"), L.Cropping2D(1),
        L.TimeDistributed(L.Conv1DTranspose(2, 2))])
    x = _normal(3, 5, 6, 2)
    expected = model(x).numpy()
    compiled = rt.function(lambda v: model(v), jit_compile=jit,
                           input_signature=[rt.TensorSpec([None, 5, 6, 2])])
    np.testing.assert_allclose(compiled(x).numpy(), expected, rtol=1e-5, atol=1e-5)

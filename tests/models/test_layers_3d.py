"""The 3-D layers: Conv3D, MaxPooling3D, AveragePooling3D, the global 3-D poolings,
UpSampling3D, ZeroPadding3D and Cropping3D, against NumPy loops over TensorFlow's conv3d and
pool3d definitions ('same' windows centred, padding left out of maxima and means), from the
layers' own weights. (Keras 3.15 under TensorFlow 2.21 gave the same values and configs for
these calls.)"""

import itertools

import numpy as np
import pytest

import runtime as rt
from runtime import keras

L = keras.layers
X = np.random.default_rng(0).normal(size=(2, 5, 6, 7, 3)).astype(np.float32)


def _windows(size, kernel, stride, padding, dilation=1):
    span = (kernel - 1) * dilation + 1
    if padding == "valid":
        count, before = (size - span) // stride + 1, 0
    else:
        count = -(-size // stride)
        before = max((count - 1) * stride + span - size, 0) // 2
    return [[o * stride - before + k * dilation for k in range(kernel)] for o in range(count)]


def _conv3d(x, kernel, bias, strides, padding, dilation, groups=1):
    wins = [_windows(x.shape[1 + a], kernel.shape[a], strides[a], padding, dilation[a])
            for a in range(3)]
    per_group_in, filters = kernel.shape[3], kernel.shape[4]
    per_group_out = filters // groups
    out = np.zeros((x.shape[0], *map(len, wins), filters), np.float64)
    for (i, wd), (j, wh), (k, ww) in itertools.product(*map(enumerate, wins)):
        for a, b, c in itertools.product(*map(range, kernel.shape[:3])):
            d, h, w = wd[a], wh[b], ww[c]
            if not (0 <= d < x.shape[1] and 0 <= h < x.shape[2] and 0 <= w < x.shape[3]):
                continue
            for g in range(groups):
                xs = x[:, d, h, w, g * per_group_in:(g + 1) * per_group_in]
                ks = kernel[a, b, c, :, g * per_group_out:(g + 1) * per_group_out]
                out[:, i, j, k, g * per_group_out:(g + 1) * per_group_out] += xs @ ks
    return out + bias


def _pool3d(x, size, strides, padding, reduce):
    wins = [_windows(x.shape[1 + a], size[a], strides[a], padding) for a in range(3)]
    out = np.zeros((x.shape[0], *map(len, wins), x.shape[-1]))
    for (i, wd), (j, wh), (k, ww) in itertools.product(*map(enumerate, wins)):
        block = x[:, [d for d in wd if 0 <= d < x.shape[1]]]
        block = block[:, :, [h for h in wh if 0 <= h < x.shape[2]]]
        block = block[:, :, :, [w for w in ww if 0 <= w < x.shape[3]]]
        out[:, i, j, k] = reduce(block.reshape(x.shape[0], -1, x.shape[-1]), axis=1)
    return out


@pytest.mark.parametrize("kwargs", [
    dict(filters=4, kernel_size=2),
    dict(filters=4, kernel_size=3, padding="same", strides=2),
    dict(filters=4, kernel_size=(2, 3, 2), dilation_rate=(2, 1, 2), padding="same"),
    dict(filters=6, kernel_size=2, groups=3),
], ids=["valid", "same-strided", "dilated", "grouped"])
def test_conv3d_matches_numpy(kwargs):
    layer = L.Conv3D(**kwargs)
    layer.build(X.shape)
    kernel, bias = layer.get_weights()
    bias = np.random.default_rng(1).normal(size=bias.shape).astype(np.float32)
    layer.set_weights([kernel, bias])
    got = layer(X).numpy()
    expected = _conv3d(X, kernel, bias, layer.strides, layer.padding, layer.dilation_rate,
                       layer.groups)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert tuple(layer.compute_output_shape(X.shape)) == expected.shape
    assert kernel.shape == (*layer.kernel_size, 3 // layer.groups, layer.filters)


def test_conv3d_trains_and_its_gradient_matches_finite_differences():
    layer = L.Conv3D(2, 2, padding="same")
    x = X[:1, :3, :3, :3]
    layer(x)
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(layer(x) ** 2)
    grad = tape.gradient(loss, layer.kernel).numpy()
    kernel, bias = layer.get_weights()
    eps, index = 1e-2, (1, 0, 1, 2, 1)

    def value(k):
        out = _conv3d(x.astype(np.float64), k, bias, (1, 1, 1), "same", (1, 1, 1))
        return (out ** 2).sum()
    up, down = kernel.astype(np.float64).copy(), kernel.astype(np.float64).copy()
    up[index] += eps
    down[index] -= eps
    np.testing.assert_allclose(grad[index], (value(up) - value(down)) / (2 * eps), rtol=1e-3)


@pytest.mark.parametrize("cls, reduce", [(L.MaxPooling3D, np.max),
                                         (L.AveragePooling3D, np.mean)])
@pytest.mark.parametrize("args", [dict(pool_size=2), dict(pool_size=3, strides=2, padding="same"),
                                  dict(pool_size=(3, 2, 2), strides=(1, 2, 3), padding="same"),
                                  dict(pool_size=(2, 3, 2), strides=(2, 1, 2))])
def test_pooling3d_matches_numpy(cls, reduce, args):
    layer = cls(**args)
    expected = _pool3d(X, layer.pool_size, layer.strides, layer.padding, reduce)
    np.testing.assert_allclose(layer(X).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_global_pooling_upsampling_padding_and_cropping_3d():
    np.testing.assert_allclose(L.GlobalAveragePooling3D()(X).numpy(), X.mean(axis=(1, 2, 3)),
                               rtol=1e-5)
    np.testing.assert_allclose(L.GlobalMaxPooling3D(keepdims=True)(X).numpy(),
                               X.max(axis=(1, 2, 3), keepdims=True))
    up = L.UpSampling3D((1, 2, 3))(X).numpy()
    np.testing.assert_array_equal(up, X.repeat(2, axis=2).repeat(3, axis=3))
    pads = ((1, 0), (0, 2), (1, 1))
    np.testing.assert_array_equal(L.ZeroPadding3D(pads)(X).numpy(),
                                  np.pad(X, ((0, 0), *pads, (0, 0))))
    np.testing.assert_array_equal(L.Cropping3D(pads)(X).numpy(), X[:, 1:, :-2, 1:-1])
    np.testing.assert_array_equal(L.ZeroPadding3D(1)(X).numpy(),
                                  np.pad(X, ((0, 0), (1, 1), (1, 1), (1, 1), (0, 0))))


def test_3d_configs_are_keras_3s():
    # printed by Keras 3.15 (json) for the same layers
    assert L.Conv3D(2, 2).get_config()["kernel_size"] == (2, 2, 2)
    assert L.Conv3D(2, 2).get_config()["strides"] == (1, 1, 1)
    pool = L.MaxPooling3D().get_config()
    assert (pool["pool_size"], pool["strides"], pool["padding"]) == ((2, 2, 2), (2, 2, 2),
                                                                      "valid")
    assert L.ZeroPadding3D().get_config()["padding"] == ((1, 1), (1, 1), (1, 1))
    assert L.Cropping3D().get_config()["cropping"] == ((1, 1), (1, 1), (1, 1))
    assert L.UpSampling3D().get_config()["size"] == (2, 2, 2)
    assert L.GlobalAveragePooling3D().get_config()["keepdims"] is False
    for layer in (L.Conv3D(2, 2), L.MaxPooling3D(), L.ZeroPadding3D(), L.UpSampling3D()):
        assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
    with pytest.raises(ValueError, match="padding"):
        L.ZeroPadding3D((1, 2))

"""Conv, pooling, reshaping and merging layers: values against NumPy, shapes for every
padding and stride, training a small convolutional model with fit, tiers agreeing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import runtime as rt
from tests.runtime.test_conv_ops import naive_conv2d, naive_pool

L = rt.layers
RNG = np.random.default_rng(1)


@pytest.mark.parametrize("padding,strides", itertools.product(["valid", "same"],
                                                              [1, 2, (2, 1)]))
def test_conv2d_layer_matches_numpy(padding, strides):
    x = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32)
    layer = L.Conv2D(4, (3, 2), strides=strides, padding=padding, activation="relu")
    y = layer(x)
    s = (strides, strides) if isinstance(strides, int) else strides
    expected = np.maximum(naive_conv2d(x.astype(np.float64), layer.kernel.numpy(), s,
                                       padding.upper()) + layer.bias.numpy(), 0)
    assert layer.kernel.shape == (3, 2, 3, 4) and layer.bias.shape == (4,)
    assert y.dtype == rt.float32 and y.shape == expected.shape
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
def test_conv1d_layer(padding):
    x = RNG.standard_normal((2, 9, 3))
    layer = L.Conv1D(2, 3, padding=padding, dilation_rate=2, dtype="float64")
    y = layer(x)
    xp = np.pad(x, ((0, 0), (4, 0), (0, 0))) if padding == "causal" else x
    expected = naive_conv2d(xp[:, None], layer.kernel.numpy()[None], (1, 1),
                            "VALID" if padding == "causal" else padding.upper(),
                            (1, 2))[:, 0] + layer.bias.numpy()
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10)
    if padding != "valid":
        assert y.shape == (2, 9, 2)


@pytest.mark.parametrize("cls,kind", [(L.MaxPooling2D, "max"), (L.AveragePooling2D, "avg")])
@pytest.mark.parametrize("pool,strides,padding", [((2, 2), None, "valid"), (3, 2, "same"),
                                                  ((2, 3), (1, 2), "same"), (2, 1, "valid")])
def test_pooling_layers(cls, kind, pool, strides, padding):
    x = RNG.standard_normal((2, 7, 8, 3))
    y = cls(pool, strides, padding, dtype="float64")(x)  # float64 layers keep the precision
    p = (pool, pool) if isinstance(pool, int) else pool
    s = p if strides is None else ((strides, strides) if isinstance(strides, int) else strides)
    np.testing.assert_allclose(y.numpy(), naive_pool(x, p, s, padding.upper(), kind),
                               rtol=1e-6)


def test_global_pooling_and_1d_pooling():
    x = RNG.standard_normal((2, 4, 5, 3)).astype(np.float32)
    np.testing.assert_allclose(L.GlobalAveragePooling2D()(x).numpy(), x.mean(axis=(1, 2)),
                               rtol=1e-5)
    np.testing.assert_allclose(L.GlobalMaxPooling2D()(x).numpy(), x.max(axis=(1, 2)))
    assert L.GlobalMaxPooling2D(keepdims=True)(x).shape == (2, 1, 1, 3)
    s = x[:, 0]
    np.testing.assert_allclose(L.GlobalAveragePooling1D()(s).numpy(), s.mean(axis=1), rtol=1e-5)
    np.testing.assert_allclose(L.MaxPooling1D(2)(s).numpy(),
                               np.maximum(s[:, 0:4:2], s[:, 1:5:2]))
    assert L.AveragePooling1D(2, padding="same")(s).shape == (2, 3, 3)


def test_reshaping_and_merging_layers():
    x = RNG.standard_normal((3, 4, 2)).astype(np.float32)  # (layers cast float64 to float32)
    np.testing.assert_array_equal(L.Reshape((2, 4))(x).numpy(), x.reshape(3, 2, 4))
    np.testing.assert_array_equal(L.Reshape((-1, 2))(x).numpy(), x.reshape(3, 4, 2))
    np.testing.assert_array_equal(L.Permute((2, 1))(x).numpy(), x.transpose(0, 2, 1))
    np.testing.assert_array_equal(L.RepeatVector(3)(x[:, 0]).numpy(),
                                  np.repeat(x[:, None, 0], 3, axis=1))
    np.testing.assert_allclose(L.Lambda(lambda v, k: v * k, arguments={"k": 3.0})(x).numpy(),
                               x * 3)
    y = x[::-1].copy()
    np.testing.assert_array_equal(L.Concatenate(axis=1)([x, y]).numpy(),
                                  np.concatenate([x, y], 1))
    np.testing.assert_allclose(L.Add()([x, y, x]).numpy(), x + y + x)
    np.testing.assert_allclose(L.Subtract()([x, y]).numpy(), x - y)
    np.testing.assert_allclose(L.Multiply()([x, y]).numpy(), x * y)
    np.testing.assert_allclose(L.Average()([x, y]).numpy(), (x + y) / 2)
    np.testing.assert_allclose(L.Maximum()([x, y]).numpy(), np.maximum(x, y))
    np.testing.assert_allclose(L.Minimum()([x, y]).numpy(), np.minimum(x, y))
    np.testing.assert_allclose(L.Dot(axes=1)([x[:, 0], y[:, 0]]).numpy(),
                               np.sum(x[:, 0] * y[:, 0], axis=1, keepdims=True))
    np.testing.assert_allclose(L.Dot(axes=(2, 2))([x, y]).numpy(),
                               np.einsum("bik,bjk->bij", x, y))
    np.testing.assert_allclose(L.ZeroPadding2D(((1, 0), (0, 2)))(x[..., None]).numpy(),
                               np.pad(x[..., None], ((0, 0), (1, 0), (0, 2), (0, 0))))
    with pytest.raises(ValueError, match="list"):
        L.Add()(x)


def test_embedding_layer():
    layer = L.Embedding(10, 4, input_length=3)
    ids = np.array([[1, 2, 9], [0, 0, 3]])
    y = layer(ids)
    assert y.shape == (2, 3, 4)
    np.testing.assert_array_equal(y.numpy(), layer.embeddings.numpy()[ids])
    assert np.abs(layer.embeddings.numpy()).max() <= 0.05
    np.testing.assert_array_equal(
        L.Embedding(10, 2, mask_zero=True).compute_mask(ids).numpy(), ids != 0)
    w = rt.Variable(np.zeros(1, np.float32))
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(layer(ids) ** 2) + w
    g = tape.gradient(loss, layer.embeddings)
    dense = rt.convert_to_tensor(g).numpy() if not hasattr(g, "values") else None
    if dense is not None:
        np.testing.assert_allclose(dense[5], 0)
        np.testing.assert_allclose(dense[0], 2 * 2 * layer.embeddings.numpy()[0], rtol=1e-6)


def test_keywords_are_strict_and_arguments_checked():
    with pytest.raises(TypeError, match="kernel_size|kernel_sizes"):
        L.Conv2D(4, kernel_sizes=3)
    with pytest.raises(ValueError, match="padding"):
        L.Conv2D(4, 3, padding="full")
    with pytest.raises(NotImplementedError, match="channels_first"):
        L.Conv2D(4, 3, data_format="channels_first")
    with pytest.raises(ValueError, match="kernel_size"):
        L.Conv2D(4, (3, 3, 3))
    with pytest.raises(TypeError):
        L.MaxPooling2D(pool=2)
    with pytest.raises(ValueError, match="rank 4"):
        L.Conv2D(2, 2)(np.zeros((2, 3, 3), np.float32))


def _conv_model():
    rt.random.set_seed(3)
    return L.Sequential([
        L.Conv2D(4, 3, padding="same", activation="relu", input_shape=(8, 8, 1)),
        L.MaxPooling2D(),
        L.Conv2D(4, 3, activation="relu"),
        L.Flatten(),
        L.Dense(2)])


def test_a_small_convnet_trains_with_fit():
    rt.keras.utils.set_random_seed(0)  # a fixed initialisation, so the check is reproducible
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 8, 8, 1)).astype(np.float32)
    y = (x[:, :4].mean(axis=(1, 2, 3)) > x[:, 4:].mean(axis=(1, 2, 3))).astype(np.int32)
    model = _conv_model()
    model.compile(rt.optimizers.Adam(0.01),
                  lambda t, p: rt.layers.losses.sparse_categorical_crossentropy(
                      t, p, from_logits=True))
    history = model.fit(x, y, batch_size=16, epochs=8, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0] * 0.8, losses


@pytest.mark.parametrize("jit", [False, True])
def test_layers_compiled_agree_with_eager(jit):
    model = L.Sequential([L.Conv2D(3, 3, padding="same"), L.AveragePooling2D(2),
                          L.BatchNormalization(), L.Conv2D(2, 2), L.GlobalMaxPooling2D()])
    x = RNG.standard_normal((2, 6, 6, 2)).astype(np.float32)

    def step(x):
        with rt.GradientTape() as tape:
            out = model(x, training=False)
            loss = rt.reduce_sum(out * out)
        return out, tape.gradient(loss, model.trainable_variables)

    eager = rt.nest.flatten(step(x))
    compiled = rt.nest.flatten(rt.function(step, jit_compile=jit)(x))
    for a, b in zip(eager, compiled):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)

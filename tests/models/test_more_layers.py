"""Keras 3's small layers: GroupNormalization, UnitNormalization, Identity, the spatial and noise
dropouts, ActivityRegularization, the merge layers and their functional forms, and the
activation and reshaping layers' keywords, against NumPy formulas from the layers' own weights
(and, where stated, numbers printed by Keras 3 for the same program)."""

import json
import math
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import keras

L = keras.layers
RNG = np.random.default_rng(7)


def _data(*shape):
    return RNG.normal(size=shape).astype(np.float32)


# -- normalization -----------------------------------------------------------------------------

def _group_norm(x, gamma, beta, groups, axis, eps=1e-3):
    """NumPy group normalization: channels on `axis` split into `groups` groups."""
    moved = np.moveaxis(x, axis, -1)
    shape = moved.shape
    grouped = moved.reshape(shape[0], -1, groups, shape[-1] // groups)
    mean = grouped.mean(axis=(1, 3), keepdims=True)
    var = grouped.var(axis=(1, 3), keepdims=True)
    normed = ((grouped - mean) / np.sqrt(var + eps)).reshape(shape) * gamma + beta
    return np.moveaxis(normed, -1, axis)


@pytest.mark.parametrize("groups,axis,shape", [(2, -1, (3, 4, 5, 6)), (3, -1, (2, 7, 6)),
                                               (-1, -1, (2, 5, 4)), (2, 1, (2, 4, 3, 3))])
def test_group_normalization_matches_numpy(groups, axis, shape):
    x = _data(*shape)
    layer = L.GroupNormalization(groups=groups, axis=axis)
    layer.build(shape)
    channels = shape[axis]
    gamma, beta = _data(channels), _data(channels)
    layer.set_weights([gamma, beta])  # Keras's order: gamma, then beta
    assert [w.shape for w in layer.get_weights()] == [(channels,), (channels,)]
    n_groups = channels if groups == -1 else groups
    np.testing.assert_allclose(layer(x).numpy(), _group_norm(x, gamma, beta, n_groups, axis),
                               rtol=1e-4, atol=1e-4)


def test_group_normalization_without_center_and_scale_and_in_a_function():
    x = _data(4, 6, 8)
    layer = L.GroupNormalization(groups=4, center=False, scale=False, epsilon=1e-5)
    f = rt.function(lambda t: layer(t), input_signature=[rt.TensorSpec([None, 6, 8])])
    assert layer.get_weights() == [] or not layer.built
    expected = _group_norm(x, np.ones(8), np.zeros(8), 4, -1, eps=1e-5)
    np.testing.assert_allclose(f(x).numpy(), expected, rtol=1e-4, atol=1e-4)
    assert layer.get_weights() == []


def test_group_normalization_refuses_bad_groups():
    with pytest.raises(ValueError, match="groups"):
        L.GroupNormalization(groups=0)
    with pytest.raises(ValueError, match="groups"):
        L.GroupNormalization(groups=4)(_data(2, 6))  # 4 does not divide 6
    with pytest.raises(ValueError, match="groups"):
        L.GroupNormalization()(_data(2, 6))  # the default 32 groups exceed 6 channels


@pytest.mark.parametrize("cls", [L.BatchNormalization, L.LayerNormalization,
                                 lambda **kw: L.GroupNormalization(groups=2, **kw)])
def test_normalization_regularizers_put_penalties_into_losses(cls):
    layer = cls(gamma_regularizer=keras.regularizers.L2(0.1), beta_regularizer="l1")
    layer.build((None, 4))
    gamma, beta = _data(4), _data(4)
    layer.set_weights([gamma, beta, *layer.get_weights()[2:]])
    expected = sorted([0.1 * (gamma ** 2).sum(), 0.01 * np.abs(beta).sum()])  # "l1": 0.01
    np.testing.assert_allclose(sorted(float(v.numpy()) for v in layer.losses), expected,
                               rtol=1e-5)
    constrained = cls(gamma_constraint="non_neg", beta_constraint=keras.constraints.MaxNorm(1))
    constrained.build((None, 4))  # kept on the weights (tests/models/test_layer_constraints.py)
    assert isinstance(constrained.gamma.constraint, keras.constraints.NonNeg)
    assert isinstance(constrained.beta.constraint, keras.constraints.MaxNorm)


def test_batch_normalization_keras_keywords():
    with pytest.raises(NotImplementedError, match="renorm"):
        L.BatchNormalization(renorm=True)
    x = _data(8, 3)
    synced = L.BatchNormalization(synchronized=True)  # one device: the same computation
    np.testing.assert_allclose(synced(x, training=True).numpy(),
                               (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("axis", [-1, 1, [1, 2]])
def test_unit_normalization_matches_numpy(axis):
    x = _data(3, 4, 5)
    axes = tuple(axis) if isinstance(axis, list) else axis
    expected = x / np.sqrt((x ** 2).sum(axis=axes, keepdims=True))
    np.testing.assert_allclose(L.UnitNormalization(axis=axis)(x).numpy(), expected, rtol=1e-5)


def test_unit_normalization_of_zeros_is_zero_and_refuses_bad_axis():
    np.testing.assert_array_equal(L.UnitNormalization()(np.zeros((2, 3), np.float32)).numpy(),
                                  np.zeros((2, 3)))
    with pytest.raises(TypeError, match="axis"):
        L.UnitNormalization(axis="last")


@pytest.mark.parametrize("axis", [-1, [1, 2]])
def test_rms_normalization_matches_numpy(axis):
    x = _data(2, 3, 4)
    layer = L.RMSNormalization(axis=axis)
    layer.build(x.shape)
    axes = (2,) if axis == -1 else (1, 2)
    scale = _data(*(x.shape[a] for a in axes))
    layer.set_weights([scale])
    expected = x / np.sqrt((x ** 2).mean(axis=axes, keepdims=True) + 1e-6) * scale
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    # Keras 3 prints [0, 0.15399793, 0.30799586, 0.46199378] for its first row of this input
    ramp = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    np.testing.assert_allclose(L.RMSNormalization(axis=[1, 2])(ramp).numpy()[0, 0],
                               [0, 0.15399793, 0.30799586, 0.46199378], rtol=1e-6)


def test_normalization_adapt_learns_the_data_statistics():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    layer = L.Normalization(axis=-1)
    layer.adapt(x)
    # Keras 3 prints mean [[4.5 5.5 6.5]], variance [[11.25 ...]] and these outputs
    np.testing.assert_allclose(layer.mean.numpy(), [[4.5, 5.5, 6.5]])
    np.testing.assert_allclose(layer.variance.numpy(), [[11.25] * 3])
    np.testing.assert_allclose(layer(x[:2]).numpy(),
                               (x[:2] - x.mean(0)) / x.std(0), rtol=1e-6)
    assert [(w.shape, w.dtype) for w in layer.get_weights()] == \
        [((3,), np.float32), ((3,), np.float32), ((), np.int64)]  # Keras's weights


def test_normalization_adapt_over_batches_axes_and_datasets():
    x = _data(50, 3, 4)
    batched = L.Normalization(axis=(1, 2))
    batched.adapt([x[:20], x[20:35], x[35:]])  # Keras's running combination of batches
    np.testing.assert_allclose(batched.mean.numpy()[0], x.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(batched.variance.numpy()[0], x.var(0), rtol=1e-4)
    flat = x[:, 0]
    from_dataset = L.Normalization()
    from_dataset.adapt(rt.data.Dataset.from_tensor_slices(flat))  # unbatched: by 128
    np.testing.assert_allclose(from_dataset.mean.numpy()[0], flat.mean(0), rtol=1e-5)
    scalar = L.Normalization(axis=None)
    scalar.adapt(flat[:, 0])
    np.testing.assert_allclose(scalar(flat[:2, :1]).numpy(),
                               (flat[:2, :1] - flat[:, 0].mean()) / flat[:, 0].std(), rtol=1e-5)


def test_normalization_with_given_statistics_and_invert():
    layer = L.Normalization(mean=2.0, variance=4.0)
    np.testing.assert_allclose(layer(np.array([[0.0, 2.0, 6.0]])).numpy(), [[-1, 0, 2]])
    assert layer.get_weights() == []
    inverse = L.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 9.0], invert=True)
    np.testing.assert_allclose(inverse(np.ones((1, 3))).numpy(), [[2, 4, 6]])
    with pytest.raises(ValueError, match="variance"):
        L.Normalization(mean=1.0)


def test_normalization_in_a_model_fits_and_saves(tmp_path):
    x = _data(40, 3) * 10 + 5
    y = (x - x.mean(0)) / x.std(0) @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 1
    norm = L.Normalization()
    norm.adapt(x)
    model = keras.Sequential([keras.Input((3,)), norm, L.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    losses = model.fit(x, y, epochs=30, verbose=0).history["loss"]
    assert losses[-1] < losses[0] / 100  # on standardized features, a linear fit is quick
    np.testing.assert_allclose(norm.mean.numpy()[0], x.mean(0), rtol=1e-5)  # not trained
    path = str(tmp_path / "norm.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x[:4], verbose=0), model.predict(x[:4], verbose=0),
                               rtol=1e-5)


def test_models_declared_for_one_feature_take_vectors_as_keras():
    # Keras 3: predict(x) of an [n] array for a model of Input((1,)) returns [n, 1] (the
    # regression tutorial's one-feature model); a Dense without a declared shape refuses it
    h = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    norm = L.Normalization(input_shape=[1], axis=None)
    norm.adapt(h)
    model = keras.Sequential([norm, L.Dense(1, kernel_initializer="ones")])
    row = [line for line in model.summary(print_fn=None).splitlines() if norm.name in line]
    assert "(None, 1)" in row[0] and row[0].rstrip(" │").endswith("3")  # as Keras's table
    np.testing.assert_allclose(model.predict(h[:2], verbose=0),
                               ((h[:2] - h.mean()) / h.std())[:, None], rtol=1e-5)
    inputs = keras.Input((1,))
    functional = keras.Model(inputs, L.Dense(2)(inputs))
    assert functional.predict(h, verbose=0).shape == (4, 2)
    with pytest.raises(ValueError, match="rank"):
        L.Dense(1)(h)


def test_rescaling_casts_and_scales():
    pixels = np.array([[0, 128, 255]], np.uint8)
    np.testing.assert_allclose(L.Rescaling(1 / 255)(pixels).numpy(), pixels / 255, rtol=1e-6)
    np.testing.assert_allclose(L.Rescaling(1 / 127.5, offset=-1)(pixels).numpy(),
                               pixels / 127.5 - 1, atol=1e-6)  # float32 rounding
    per_channel = L.Rescaling([1.0, 2.0, 3.0])(np.ones((1, 2, 2, 3), np.float32)).numpy()
    np.testing.assert_array_equal(per_channel[0, 0, 0], [1, 2, 3])
    assert L.Rescaling.from_config(L.Rescaling(2.0).get_config()).scale == 2.0


def test_keras_other_names_are_the_same_classes():
    assert L.MaxPool2D is L.MaxPooling2D and L.AvgPool1D is L.AveragePooling1D
    assert L.GlobalAvgPool1D is L.GlobalAveragePooling1D and L.GlobalMaxPool2D is \
        L.GlobalMaxPooling2D
    assert L.Convolution2D is L.Conv2D and L.Convolution1DTranspose is L.Conv1DTranspose
    assert L.SeparableConvolution2D is L.SeparableConv2D


# -- dropouts and noise --------------------------------------------------------------------------

def test_spatial_dropout_1d_drops_whole_channels_with_the_rate():
    rt.random.set_seed(1)
    x = np.ones((400, 7, 25), np.float32)
    out = L.SpatialDropout1D(0.3, seed=5)(x, training=True).numpy()
    # one draw per example and channel: equal over the steps, 0 or 1 / (1 - rate)
    np.testing.assert_array_equal(out, np.broadcast_to(out[:, :1, :], out.shape))
    assert np.all(np.isclose(out, 0) | np.isclose(out, 1 / 0.7))
    kept = (out[:, 0, :] > 0).mean()
    assert abs(kept - 0.7) < 0.03  # 10000 draws: the standard error is 0.005
    np.testing.assert_array_equal(L.SpatialDropout1D(0.3)(x).numpy(), x)  # inference


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_spatial_dropout_2d_drops_whole_feature_maps(data_format):
    rt.random.set_seed(2)
    shape = (300, 4, 5, 30) if data_format == "channels_last" else (300, 30, 4, 5)
    x = np.ones(shape, np.float32)
    out = L.SpatialDropout2D(0.5, data_format=data_format, seed=3)(x, training=True).numpy()
    maps = out if data_format == "channels_last" else np.moveaxis(out, 1, -1)
    np.testing.assert_array_equal(maps, np.broadcast_to(maps[:, :1, :1, :], maps.shape))
    assert abs((maps[:, 0, 0, :] > 0).mean() - 0.5) < 0.03
    np.testing.assert_allclose(maps.max(), 2.0)


def test_dropout_noise_shape_with_none_takes_the_input_sizes():
    rt.random.set_seed(6)
    x = np.ones((300, 4, 20), np.float32)
    layer = L.Dropout(0.4, noise_shape=(None, 1, None), seed=2)
    out = layer(x, training=True).numpy()
    np.testing.assert_array_equal(out, np.broadcast_to(out[:, :1], out.shape))  # shared steps
    assert abs((out[:, 0] > 0).mean() - 0.6) < 0.03
    np.testing.assert_allclose(out.max(), 1 / 0.6, rtol=1e-6)
    f = rt.function(lambda t: layer(t, training=True),
                    input_signature=[rt.TensorSpec([None, 4, 20])])  # batch known when run
    staged = f(x).numpy()
    np.testing.assert_array_equal(staged, np.broadcast_to(staged[:, :1], staged.shape))


def test_spatial_dropout_keeps_keras_constructor_and_is_staged_with_a_tensor_flag():
    with pytest.raises(TypeError):
        L.SpatialDropout1D(0.2, trainable=False)  # Keras's takes rate, seed, name, dtype
    layer = L.SpatialDropout1D(0.5, seed=1)
    f = rt.function(lambda x, t: layer(x, training=t))
    x = np.ones((50, 3, 20), np.float32)
    np.testing.assert_array_equal(f(x, rt.constant(False)).numpy(), x)
    dropped = f(x, rt.constant(True)).numpy()
    assert 0.3 < (dropped == 0).mean() < 0.7


def test_gaussian_noise_adds_noise_of_stddev_only_when_training():
    rt.random.set_seed(3)
    x = _data(200, 100)
    out = L.GaussianNoise(0.4, seed=1)(x, training=True).numpy()
    noise = out - x
    assert abs(noise.mean()) < 0.01 and abs(noise.std() - 0.4) < 0.01
    np.testing.assert_array_equal(L.GaussianNoise(0.4)(x, training=False).numpy(), x)
    with pytest.raises(ValueError, match="stddev"):
        L.GaussianNoise(1.5)


def test_gaussian_dropout_multiplies_by_noise_of_mean_one():
    rt.random.set_seed(4)
    x = np.full((200, 100), 2.0, np.float32)
    ratio = L.GaussianDropout(0.2, seed=1)(x, training=True).numpy() / x
    assert abs(ratio.mean() - 1) < 0.01
    assert abs(ratio.std() - math.sqrt(0.2 / 0.8)) < 0.01
    np.testing.assert_array_equal(L.GaussianDropout(0.2)(x).numpy(), x)


def test_alpha_dropout_keeps_selu_mean_and_variance():
    rt.random.set_seed(5)
    rate = 0.2
    x = _data(400, 250)
    out = L.AlphaDropout(rate, seed=2)(x, training=True).numpy()
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * rate
    dropped = np.isclose(out, a * alpha_p + b)
    np.testing.assert_allclose(out[~dropped], a * x[~dropped] + b, rtol=1e-5, atol=1e-6)
    assert abs(dropped.mean() - rate) < 0.01
    assert abs(out.mean()) < 0.01 and abs(out.var() - 1) < 0.02  # the point of the formula
    np.testing.assert_array_equal(L.AlphaDropout(rate)(x).numpy(), x)


def test_activity_regularization_adds_the_penalty_divided_by_the_batch():
    x = _data(4, 3)
    layer = L.ActivityRegularization(l1=0.01, l2=0.1)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    expected = (0.01 * np.abs(x).sum() + 0.1 * (x ** 2).sum()) / 4
    [loss] = layer.losses
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-5)
    assert layer.get_config()["l1"] == 0.01 and "activity_regularizer" not in layer.get_config()


def test_noise_layers_pass_masks_on():
    ids = np.array([[3, 0, 2]])
    embedded = L.Embedding(5, 4, mask_zero=True)(ids)
    for layer in [L.SpatialDropout1D(0.5), L.GaussianNoise(0.1), L.GaussianDropout(0.1),
                  L.AlphaDropout(0.1), L.ActivityRegularization(), L.Identity(),
                  L.GroupNormalization(groups=2), L.UnitNormalization()]:
        out = layer(embedded, training=True)
        np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False, True]])


def test_supports_masking_as_keras():
    # Keras 3.13: layer.supports_masking for each layer
    expected = {L.Reshape((3,)): False, L.Permute((2, 1)): False, L.RepeatVector(3): False,
                L.Flatten(): False, L.Activation("relu"): True, L.ReLU(): True,
                L.LeakyReLU(): True, L.PReLU(): True, L.ELU(): True, L.Softmax(): True,
                L.Identity(): True, L.GroupNormalization(): True, L.UnitNormalization(): True,
                L.SpatialDropout1D(0.1): True, L.SpatialDropout2D(0.1): True,
                L.GaussianNoise(0.1): True, L.GaussianDropout(0.1): True,
                L.AlphaDropout(0.1): True, L.ActivityRegularization(): True, L.Add(): True,
                L.Concatenate(): True, L.Dot(1): True, L.Dropout(0.1): True,
                L.RMSNormalization(): False, L.Normalization(): True, L.Rescaling(2.0): True}
    assert {type(k).__name__: k.supports_masking for k in expected} == \
        {type(k).__name__: v for k, v in expected.items()}


# -- merging ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("fn,cls,ref", [
    (L.add, L.Add, lambda xs: sum(xs)),
    (L.multiply, L.Multiply, lambda xs: np.prod(xs, axis=0)),
    (L.average, L.Average, lambda xs: sum(xs) / len(xs)),
    (L.maximum, L.Maximum, lambda xs: np.max(xs, axis=0)),
    (L.minimum, L.Minimum, lambda xs: np.min(xs, axis=0)),
])
def test_functional_merges_build_the_layer(fn, cls, ref):
    xs = [_data(2, 3, 4) for _ in range(3)]
    np.testing.assert_allclose(fn(xs).numpy(), ref(xs), rtol=1e-6)
    a, b = keras.Input((4,)), keras.Input((4,))
    model = keras.Model([a, b], fn([a, b], name="merged"))
    assert isinstance(model.get_layer("merged"), cls)
    pair = [xs[0][:, 0], xs[1][:, 0]]
    np.testing.assert_allclose(model.predict(pair, verbose=0), ref(pair), rtol=1e-6)


def test_subtract_concatenate_and_dot_functions():
    a, b = _data(2, 3, 4), _data(2, 3, 4)
    np.testing.assert_allclose(L.subtract([a, b]).numpy(), a - b)
    np.testing.assert_allclose(L.concatenate([a, b], axis=1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_allclose(L.dot([a, b], axes=2).numpy(), np.einsum("bik,bjk->bij", a, b),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="2"):
        L.subtract([a, b, a])


def test_merges_broadcast_lower_rank_inputs_after_the_batch_axis():
    a, b = _data(2, 3), _data(2, 4, 3)
    # Keras inserts axes of size 1 after the batch axis: [2, 3] -> [2, 1, 3]
    np.testing.assert_allclose(L.Add()([a, b]).numpy(), a[:, None, :] + b)
    np.testing.assert_allclose(L.Maximum()([b, a]).numpy(), np.maximum(b, a[:, None, :]))
    np.testing.assert_allclose(L.Multiply()([_data(2, 1), b]).shape, (2, 4, 3))
    np.testing.assert_allclose(L.Add()([a]).numpy(), a)  # one input, as Keras allows


@pytest.mark.parametrize("axes,xs,ys,spec", [
    (-1, (2, 3, 4), (2, 5, 4), "bik,bjk->bij"),
    ((1, 2), (2, 4), (2, 5, 4), "bk,bjk->bj"),
    ((2, 1), (2, 3, 4), (2, 4, 6, 2), "bik,bkjl->bijl"),
    (1, (2, 4), (2, 4), "bk,bk->b"),
])
def test_dot_is_keras_batch_dot(axes, xs, ys, spec):
    x, y = _data(*xs), _data(*ys)
    expected = np.einsum(spec, x, y)
    if expected.ndim == 1:
        expected = expected[:, None]  # Keras's [batch, 1] for two vectors
    np.testing.assert_allclose(L.Dot(axes=axes)([x, y]).numpy(), expected, rtol=1e-5,
                               atol=1e-6)


def test_dot_normalize_gives_cosine_similarity_and_keeps_axes_in_config():
    x, y = _data(3, 5), _data(3, 5)
    cos = (x * y).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)
    np.testing.assert_allclose(L.Dot(axes=1, normalize=True)([x, y]).numpy()[:, 0], cos,
                               rtol=1e-5)
    assert L.Dot(axes=-1).get_config()["axes"] == -1  # as Keras's config
    with pytest.raises(ValueError, match="axes"):
        L.Dot(axes=(1, 2, 3))
    with pytest.raises(ValueError, match="incompatible"):
        L.Dot(axes=1)([_data(2, 3), _data(2, 4)])


def _masked_pair(cls, both: bool):
    a_in, b_in = keras.Input((3, 2)), keras.Input((3, 2))
    b = L.Masking(0.0)(b_in) if both else b_in
    out = cls()([L.Masking(0.0)(a_in), b])
    return keras.Model([a_in, b_in], out)


A = np.array([[[1., 5.], [0., 0.], [3., 0.]]], np.float32)
B = np.array([[[4., 1.], [9., 9.], [1., 7.]]], np.float32)
B_MASKED = np.array([[[4., 1.], [9., 9.], [0., 0.]]], np.float32)


@pytest.mark.parametrize("cls,one,both", [
    # Keras 3 printed these for the same model (step 1 of A and step 2 of B_MASKED masked)
    (L.Maximum, [[4, 5], [9, 9], [3, 7]], [[4, 5], [9, 9], [3, 0]]),
    (L.Minimum, [[1, 1], [9, 9], [1, 0]], [[1, 1], [9, 9], [3, 0]]),
    (L.Multiply, [[4, 5], [9, 9], [3, 0]], [[4, 5], [9, 9], [3, 0]]),
    (L.Add, [[5, 6], [9, 9], [4, 7]], [[5, 6], [9, 9], [3, 0]]),
])
def test_masked_merges_as_keras(cls, one, both):
    np.testing.assert_array_equal(_masked_pair(cls, False).predict([A, B], verbose=0), [one])
    np.testing.assert_array_equal(_masked_pair(cls, True).predict([A, B_MASKED], verbose=0),
                                  [both])


def test_masked_maximum_takes_the_other_input_at_masked_steps():
    # max(-a, -b) = -min(a, b): Keras's Minimum numbers above, negated
    np.testing.assert_array_equal(_masked_pair(L.Maximum, False).predict([-A, -B], verbose=0),
                                  [[[-1, -1], [-9, -9], [-1, 0]]])
    np.testing.assert_array_equal(
        _masked_pair(L.Maximum, True).predict([-A, -B_MASKED], verbose=0),
        [[[-1, -1], [-9, -9], [-3, 0]]])


def test_merge_output_masks():
    a = L.Embedding(5, 2, mask_zero=True)(np.array([[1, 0, 2]]))
    b = L.Embedding(5, 2, mask_zero=True)(np.array([[0, 0, 3]]))
    plain = rt.constant(_data(1, 3, 2))
    np.testing.assert_array_equal(L.add([a, b])._keras_mask.numpy(), [[True, False, True]])
    assert getattr(L.add([a, plain]), "_keras_mask", None) is None  # an input without one
    np.testing.assert_array_equal(L.concatenate([a, plain], axis=1)._keras_mask.numpy(),
                                  [[True, False, True, True, True, True]])
    assert getattr(L.dot([a, b], axes=2), "_keras_mask", None) is None


# -- activation and reshaping layers ---------------------------------------------------------------

def test_activation_layers_defaults_and_keywords_as_keras():
    x = np.linspace(-3, 3, 13).astype(np.float32)[None]
    np.testing.assert_allclose(L.LeakyReLU()(x).numpy(), np.where(x > 0, x, 0.3 * x), rtol=1e-6)
    with pytest.warns(UserWarning, match="negative_slope"):
        old = L.LeakyReLU(alpha=0.1)
    assert old.get_config()["negative_slope"] == 0.1 and "alpha" not in old.get_config()
    relu = L.ReLU(max_value=2.0, negative_slope=0.5, threshold=1.0)
    expected = np.where(x >= 2.0, 2.0, np.where(x > 1.0, x, 0.5 * (x - 1.0)))
    np.testing.assert_allclose(relu(x).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(L.ELU(alpha=0.5)(x).numpy(),
                               np.where(x > 0, x, 0.5 * np.expm1(x)), rtol=1e-6)
    with pytest.raises(ValueError, match="max_value"):
        L.ReLU(max_value=-1)
    for layer in (L.ReLU(), L.LeakyReLU(), L.ELU(), L.Softmax()):
        clone = type(layer).from_config(layer.get_config())
        np.testing.assert_allclose(clone(x).numpy(), layer(x).numpy())


def test_prelu_with_shared_axes_matches_numpy():
    x = _data(2, 3, 4)
    layer = L.PReLU(shared_axes=[1])
    layer.build(x.shape)
    alpha = _data(1, 4)
    layer.set_weights([alpha])
    np.testing.assert_allclose(layer(x).numpy(), np.where(x > 0, x, alpha * x), rtol=1e-6)


def test_softmax_with_a_mask_zeroes_masked_entries():
    x = _data(2, 4)
    mask = np.array([[1, 1, 0, 0], [0, 0, 0, 0]], bool)
    out = L.Softmax()(x, mask=mask).numpy()
    e = np.exp(x[0, :2] - x[0, :2].max())
    np.testing.assert_allclose(out[0], np.r_[e / e.sum(), 0, 0], rtol=1e-5)
    np.testing.assert_array_equal(out[1], np.zeros(4))  # Keras: all masked gives zeros


def test_flatten_channels_first_and_unknown_sizes():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)
    np.testing.assert_array_equal(L.Flatten(data_format="channels_first")(x).numpy(),
                                  np.moveaxis(x, 1, -1).reshape(2, -1))
    np.testing.assert_array_equal(L.Flatten()(x).numpy(), x.reshape(2, -1))
    np.testing.assert_array_equal(L.Flatten()(np.arange(3.0)).numpy(), [[0.0], [1.0], [2.0]])
    f = rt.function(lambda t: L.Flatten()(t), input_signature=[rt.TensorSpec([None, None, 2])])
    np.testing.assert_array_equal(f(x[:, 0]).numpy(), x[:, 0].reshape(2, -1))


def test_reshape_permute_and_repeat_vector_match_numpy():
    x = _data(2, 3, 4)
    np.testing.assert_array_equal(L.Reshape((4, -1))(x).numpy(), x.reshape(2, 4, 3))
    np.testing.assert_array_equal(L.Permute((2, 1))(x).numpy(), x.transpose(0, 2, 1))
    np.testing.assert_array_equal(L.RepeatVector(3)(x[:, 0]).numpy(),
                                  np.repeat(x[:, None, 0], 3, axis=1))
    with pytest.raises(TypeError, match="`n`"):
        L.RepeatVector(2.5)  # Keras refuses a float
    with pytest.raises(ValueError, match="dims"):
        L.Permute((1, 3))


@pytest.mark.parametrize("make,shape,expected", [
    # Keras 3's layer.compute_output_shape(shape) for each layer
    (lambda: L.Dense(4), (None, 3, 5), (None, 3, 4)),
    (lambda: L.Flatten(), (None, 3, 5), (None, 15)),
    (lambda: L.Flatten(), (None, None, 5), (None, None)),
    (lambda: L.ReLU(), (None, 3), (None, 3)),
    (lambda: L.Softmax(), (2, 3), (2, 3)),
    (lambda: L.Reshape((5, -1)), (None, 3, 5), (None, 5, 3)),
    (lambda: L.Reshape((5, 3)), (None, 3, 5), (None, 5, 3)),
    (lambda: L.Permute((2, 1)), (None, 3, 5), (None, 5, 3)),
    (lambda: L.RepeatVector(4), (None, 3), (None, 4, 3)),
    (lambda: L.GroupNormalization(groups=1), (None, 3, 5), (None, 3, 5)),
    (lambda: L.UnitNormalization(), (None, 3, 5), (None, 3, 5)),
    (lambda: L.LayerNormalization(), (None, 3, 5), (None, 3, 5)),
    (lambda: L.BatchNormalization(), (None, 3, 5), (None, 3, 5)),
    (lambda: L.GaussianNoise(0.1), (None, 3, 5), (None, 3, 5)),
    (lambda: L.Add(), [(None, 3), (None, 4, 3)], (None, 4, 3)),
    (lambda: L.Maximum(), [(2, 1, 3), (None, 4, 1)], (2, 4, 3)),
    (lambda: L.Concatenate(), [(None, 3, 2), (None, 3, 5)], (None, 3, 7)),
    (lambda: L.Concatenate(axis=1), [(None, 3, 2), (None, None, 2)], (None, None, 2)),
    (lambda: L.Dot(axes=-1), [(None, 3, 4), (None, 5, 4)], (None, 3, 5)),
    (lambda: L.Dot(axes=1), [(None, 4), (None, 4)], (None, 1)),
    (lambda: L.Dot(axes=(1, 2)), [(None, 4), (None, 5, 4)], (None, 5)),
])
def test_compute_output_shape_as_keras(make, shape, expected):
    assert tuple(make().compute_output_shape(shape)) == expected


def test_identity_returns_its_inputs():
    x = _data(2, 3)
    assert L.Identity()(rt.constant(x)).numpy().tolist() == x.tolist()
    pair = L.Identity()([rt.constant(x), rt.constant(x)])
    assert len(pair) == 2


@pytest.mark.parametrize("jit", [True, "xla"])
def test_the_new_layers_compile_on_the_other_tiers(jit):
    pytest.importorskip("numba" if jit is True else "jax")
    x = _data(4, 6, 4)
    norm, unit = L.GroupNormalization(groups=2), L.UnitNormalization()
    drop = L.SpatialDropout1D(0.5, seed=1)

    def f(t):
        return L.Dot(axes=2)([norm(t), unit(t)]), drop(t, training=True)

    dots, dropped = rt.function(f, jit_compile=jit)(x)
    np.testing.assert_allclose(dots.numpy(), f(x)[0].numpy(), rtol=1e-4, atol=1e-5)
    kept = dropped.numpy()
    zero = kept == 0
    np.testing.assert_array_equal(zero, np.broadcast_to(zero[:, :1], zero.shape))
    np.testing.assert_allclose(kept[~zero], 2 * x[~zero], rtol=1e-6)


# -- configs, saving and fit ----------------------------------------------------------------------

NEW_LAYERS = [
    lambda: L.GroupNormalization(groups=2, epsilon=1e-4, center=False),
    lambda: L.UnitNormalization(axis=[1, 2]),
    lambda: L.SpatialDropout1D(0.25, seed=3),
    lambda: L.SpatialDropout2D(0.25, data_format="channels_first"),
    lambda: L.GaussianNoise(0.2, seed=1),
    lambda: L.GaussianDropout(0.3),
    lambda: L.AlphaDropout(0.1, noise_shape=(None, 1, None)),
    lambda: L.ActivityRegularization(l1=0.1, l2=0.2),
    lambda: L.Identity(),
    lambda: L.Flatten(data_format="channels_first"),
    lambda: L.Dot(axes=[1, 2], normalize=True),
    lambda: L.Normalization(axis=None, mean=1.0, variance=2.0, invert=True),
    lambda: L.Rescaling([1.0, 0.5], offset=0.25),
    lambda: L.RMSNormalization(axis=[1, 2], epsilon=1e-5),
]


@pytest.mark.parametrize("make", NEW_LAYERS)
def test_configs_round_trip_through_json(make):
    layer = make()
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    assert json.loads(json.dumps(clone.get_config())) == config
    restored = keras.layers.deserialize(json.loads(json.dumps(keras.layers.serialize(layer))))
    assert type(restored) is type(layer)
    assert json.loads(json.dumps(restored.get_config())) == config


def _model():
    inputs = keras.Input((6, 4))
    x = L.GaussianNoise(0.1, seed=1)(inputs)
    x = L.SpatialDropout1D(0.2, seed=2)(x)
    x = L.GroupNormalization(groups=2)(x)
    x = L.Dense(4)(x)
    x = L.add([x, L.UnitNormalization()(inputs)])
    x = L.ActivityRegularization(l2=1e-3)(x)
    x = L.AlphaDropout(0.1, seed=3)(L.Identity()(x))
    return keras.Model(inputs, L.Dense(1)(L.Flatten()(x)))


def test_model_with_the_new_layers_fits_and_predicts_without_noise():
    rt.random.set_seed(0)
    x, y = _data(64, 6, 4), _data(64, 1)
    model = _model()
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    history = model.fit(x, y, epochs=8, batch_size=16, verbose=0)
    losses = history.history["loss"]
    assert all(np.isfinite(losses)) and losses[-1] < losses[0]
    assert not np.allclose(model(x, training=True).numpy(), model(x).numpy())
    # inference: the noise layers are identities, so predict is deterministic
    np.testing.assert_array_equal(model.predict(x, verbose=0), model.predict(x, verbose=0))


def test_training_with_the_new_layers_gives_keras_losses():
    # the same program under Keras 3 (weights from the same draws, in Keras's order) printed
    # losses [1.71149, 1.42749, 1.33119, 1.25506] and evaluate 1.1621367931365967
    rng = np.random.default_rng(1)
    x = rng.normal(size=(32, 6, 4)).astype(np.float32)
    y = rng.normal(size=(32, 1)).astype(np.float32)
    inputs = keras.Input((6, 4))
    h = L.Dense(3)(L.GroupNormalization(groups=2)(inputs))
    h = L.ActivityRegularization(l1=0.01, l2=0.1)(h)
    h = L.RMSNormalization()(L.add([h, L.UnitNormalization()(L.Dense(3)(inputs))]))
    model = keras.Model(inputs, L.Dense(1)(L.Flatten()(h)))
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) * 0.3
                       for w in model.get_weights()])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(x, y, epochs=4, batch_size=8, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [1.71149, 1.42749, 1.33119, 1.25506],
                               atol=2e-5)
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), 1.1621367931365967, rtol=1e-5)


def test_masked_merges_train_as_keras():
    # Keras 3 printed losses [2.37477, 1.22762, 1.04181] for this program: every merge of
    # masked sequences, then masked average pooling
    rng = np.random.default_rng(2)
    ids = rng.integers(1, 9, size=(16, 5))
    ids[:, 3:] = 0
    ids[::3, 2:] = 0
    y = rng.normal(size=(16, 1)).astype(np.float32)
    inputs = keras.Input((5,), dtype="int32")
    embedded = L.Embedding(9, 4, mask_zero=True)(inputs)
    a, b = L.Dense(4)(embedded), L.Dense(4, activation="tanh")(embedded)
    pooled = [L.GlobalAveragePooling1D()(merge([a, b]))
              for merge in (L.maximum, L.minimum, L.multiply, L.average, L.subtract)]
    joined = L.concatenate(pooled + [L.GlobalAveragePooling1D()(L.concatenate([a, b]))])
    model = keras.Model(inputs, L.Dense(1)(L.Dropout(0.0)(L.GaussianNoise(0.0)(joined))))
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) * 0.5
                       for w in model.get_weights()])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(ids, y, epochs=3, batch_size=4, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [2.37477, 1.22762, 1.04181], atol=2e-5)


def test_model_with_the_new_layers_saves_and_loads(tmp_path):
    rt.random.set_seed(0)
    model = _model()
    x = _data(5, 6, 4)
    expected = model.predict(x, verbose=0)
    path = str(tmp_path / "model.keras")
    model.save(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no layer drops a mask or an argument on the way
        loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), expected, rtol=1e-6)
    assert [type(layer).__name__ for layer in loaded.layers] == \
        [type(layer).__name__ for layer in model.layers]

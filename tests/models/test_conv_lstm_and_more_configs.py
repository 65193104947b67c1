"""Conv3DTranspose and ConvLSTM1D/2D/3D against NumPy computations from the layers' own
weights (and sums Keras 3 printed for the same programs), and the configs of these and of
the layers whose configs were brought to Keras 3's, key by key against configs Keras 3.15.1
wrote (tests/models/keras3_more_layer_cases.py records data/keras3_more_layer_configs.json).
Also Keras 3's refusal of tf.keras 2's `add_weight("name", shape)`."""

import json
import pathlib

import numpy as np
import pytest

import runtime as rt
from runtime import keras
from tests.models.keras3_more_layer_cases import layer_cases

L = keras.layers
RECORDED = json.loads((pathlib.Path(__file__).parent / "data" /
                       "keras3_more_layer_configs.json").read_text())
CASES = layer_cases(L)


def _json(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("key", sorted(CASES))
def test_config_is_keras_3s(key):
    assert _json(CASES[key]().get_config()) == RECORDED[key]["config"]


@pytest.mark.parametrize("key", sorted(CASES))
def test_keras_3s_config_loads_and_gives_it_back(key):
    recorded = RECORDED[key]
    layer = L.deserialize({"module": "keras.layers", **recorded, "registered_name": None})
    assert type(layer).__name__ == recorded["class_name"]
    assert _json(layer.get_config()) == recorded["config"]


def test_average_pooling_needs_a_pool_size_as_in_keras():
    for cls in (L.AveragePooling1D, L.AveragePooling2D, L.AveragePooling3D):
        with pytest.raises(TypeError, match="pool_size"):
            cls()


def test_hashing_gives_int64_ids_under_an_int64_policy():
    layer = L.Hashing(4)
    assert layer.dtype == "int64" and layer(["a", "b"]).dtype == rt.int64
    assert L.Hashing(4, output_mode="one_hot").dtype == "float32"


def test_add_weight_with_a_leading_name_is_refused_as_keras_3_does():
    layer = L.Layer()
    # Keras 3.15's ValueError for the same call
    with pytest.raises(ValueError, match=r"`name` must be passed as a keyword argument. "
                                         r"Received: add_weight\('kernel', ...\)"):
        layer.add_weight("kernel", shape=(2, 3))
    assert layer.add_weight(shape=(2, 3), name="kernel").shape == (2, 3)


# -- Conv3DTranspose ---------------------------------------------------------------------------

def _transposed_numpy(x, kernel, bias, strides, padding, out_sizes, dilation=(1, 1, 1)):
    """Each input voxel times each kernel tap, added at `i * stride + k * dilation - before`
    (`before`: the 'same' padding's smaller half of the convolution transposed)."""
    batch, *sizes, _ = x.shape
    spans = [(k - 1) * r + 1 for k, r in zip(kernel.shape[:3], dilation)]
    before = [0 if padding == "valid" else max((n - 1) * s + span - o, 0) // 2
              for n, s, span, o in zip(sizes, strides, spans, out_sizes)]
    out = np.zeros((batch, *out_sizes, kernel.shape[3]))
    for idx in np.ndindex(*sizes):
        for tap in np.ndindex(*kernel.shape[:3]):
            pos = [i * s + k * r - b for i, s, k, r, b in zip(idx, strides, tap, dilation,
                                                               before)]
            if all(0 <= p < o for p, o in zip(pos, out_sizes)):
                out[(slice(None), *pos)] += x[(slice(None), *idx)] @ kernel[tap].T
    return out + bias


@pytest.mark.parametrize("kwargs, out_sizes", [
    # the output sizes Keras 3.15 printed for the same layers on (2, 3, 4, 5, 2) inputs
    (dict(kernel_size=2), (4, 5, 6)),
    (dict(kernel_size=3, strides=2, padding="same"), (6, 8, 10)),
    (dict(kernel_size=(3, 2, 2), strides=(2, 1, 2), output_padding=(1, 0, 1)), (8, 5, 11)),
    (dict(kernel_size=3, strides=2, padding="same", output_padding=0), (5, 7, 9)),
    (dict(kernel_size=(2, 3, 3), dilation_rate=2, padding="same"), (3, 4, 5)),
    (dict(kernel_size=3, strides=3), (9, 12, 15)),
])
def test_conv3d_transpose_matches_numpy(kwargs, out_sizes):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 2))
    layer = L.Conv3DTranspose(3, bias_initializer="random_normal", dtype="float64", **kwargs)
    y = layer(x).numpy()
    assert y.shape == (2, *out_sizes, 3)
    assert tuple(layer.compute_output_shape((None, 3, 4, 5, 2))) == (None, *out_sizes, 3)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (*layer.kernel_size, 3, 2)  # Keras's layout
    expected = _transposed_numpy(x, kernel, bias, layer.strides, layer.padding, out_sizes,
                                 layer.dilation_rate)
    np.testing.assert_allclose(y, expected, rtol=1e-10, atol=1e-12)


def test_conv3d_transpose_sums_printed_by_keras():
    # Keras 3.15 (TensorFlow and JAX backends) printed y.sum() = 655.167236328125 for this
    # program:
    # kernel arange(k.size) / k.size - 0.5, bias (0.1, 0.2, 0.3), x from default_rng(0)
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 2)).astype(np.float32)
    layer = L.Conv3DTranspose(3, 3, strides=2, padding="same")
    layer(x)
    size = 3 ** 3 * 3 * 2
    layer.set_weights([np.arange(size, dtype=np.float32).reshape(3, 3, 3, 3, 2) / size - 0.5,
                       np.array([0.1, 0.2, 0.3], np.float32)])
    np.testing.assert_allclose(float(layer(x).numpy().sum()), 655.167236328125, rtol=1e-5)


def test_conv3d_transpose_gradient_matches_finite_differences():
    x = np.random.default_rng(1).standard_normal((1, 2, 3, 3, 2))
    layer = L.Conv3DTranspose(2, 2, strides=2, padding="same", dtype="float64")
    layer(x)
    with rt.GradientTape() as tape:
        xt = rt.constant(x)
        tape.watch(xt)
        loss = rt.reduce_sum(rt.square(layer(xt)))
    grad_x, grad_k = tape.gradient(loss, [xt, layer.kernel])
    kernel = layer.kernel.numpy()

    def value(x_, k_):
        return (_transposed_numpy(x_, k_, layer.bias.numpy(), (2, 2, 2), "same",
                                  (4, 6, 6)) ** 2).sum()
    eps = 1e-6
    for index in [(0, 1, 2, 0, 1), (0, 0, 0, 2, 0)]:
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        numeric = (value(up, kernel) - value(down, kernel)) / (2 * eps)
        np.testing.assert_allclose(grad_x.numpy()[index], numeric, rtol=1e-5)
    index = (1, 0, 1, 1, 0)
    up, down = kernel.copy(), kernel.copy()
    up[index] += eps
    down[index] -= eps
    numeric = (value(x, up) - value(x, down)) / (2 * eps)
    np.testing.assert_allclose(grad_k.numpy()[index], numeric, rtol=1e-5)


def test_conv3d_transpose_keywords_and_aliases():
    assert L.Convolution3DTranspose is L.Conv3DTranspose
    with pytest.raises(TypeError, match="kernel_size"):
        L.Conv3DTranspose(2, 3, kernal_size=3)
    with pytest.raises(NotImplementedError, match="channels_first"):
        L.Conv3DTranspose(2, 3, data_format="channels_first")
    with pytest.raises(ValueError, match="output_padding"):
        L.Conv3DTranspose(2, 3, strides=2, output_padding=2)


# -- ConvLSTM ----------------------------------------------------------------------------------

def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _conv_numpy(x, kernel, strides, padding, dilation):
    """A channels-last convolution of `[batch, *spatial, channels]` (TensorFlow's windows)."""
    sizes = x.shape[1:-1]
    spans = [(k - 1) * r + 1 for k, r in zip(kernel.shape[:-2], dilation)]
    if padding == "same":
        outs = [-(-n // s) for n, s in zip(sizes, strides)]
        pads = [max((o - 1) * s + span - n, 0) for o, s, span, n in zip(outs, strides, spans,
                                                                           sizes)]
        x = np.pad(x, [(0, 0)] + [(p // 2, p - p // 2) for p in pads] + [(0, 0)])
    else:
        outs = [(n - span) // s + 1 for n, span, s in zip(sizes, spans, strides)]
    out = np.zeros((x.shape[0], *outs, kernel.shape[-1]))
    for idx in np.ndindex(*outs):
        for tap in np.ndindex(*kernel.shape[:-2]):
            pos = tuple(o * s + k * r for o, s, k, r in zip(idx, strides, tap, dilation))
            out[(slice(None), *idx)] += x[(slice(None), *pos)] @ kernel[tap]
    return out


def _conv_lstm_numpy(layer, x, mask=None):
    """Keras's ConvLSTM step by step from the layer's weights: gates i, f, c, o; masked
    steps keep the states and repeat the previous output."""
    kernel, recurrent, bias = layer.get_weights()
    ones = (1,) * len(layer.kernel_size)
    steps = range(x.shape[1])[::-1] if layer.go_backwards else range(x.shape[1])
    h = c = None
    outputs = []
    for t in steps:
        z = _conv_numpy(x[:, t], kernel, layer.strides, layer.padding, layer.dilation_rate)
        if h is None:
            h = c = np.zeros(z.shape[:-1] + (layer.filters,))
        z = z + _conv_numpy(h, recurrent, ones, "same", ones) + bias
        zi, zf, zc, zo = np.split(z, 4, axis=-1)
        new_c = _sigmoid(zf) * c + _sigmoid(zi) * np.tanh(zc)
        new_h = _sigmoid(zo) * np.tanh(new_c)
        if mask is not None:
            keep = mask[:, t].reshape((-1,) + (1,) * (h.ndim - 1))
            new_c, new_h = np.where(keep, new_c, c), np.where(keep, new_h, h)
            out = np.where(keep, new_h, outputs[-1] if outputs else 0 * new_h)
        else:
            out = new_h
        h, c = new_h, new_c
        outputs.append(out)
    return np.stack(outputs, 1), h, c


def _fill(layer):
    """Weights sin(0.7 n + i) * 0.3 (the program run under Keras 3 sets the same)."""
    layer.set_weights([(np.sin(np.arange(w.size) * 0.7 + i) * 0.3).reshape(w.shape)
                       .astype(w.dtype) for i, w in enumerate(layer.get_weights())])


def _cosines(shape):
    return np.cos(np.arange(np.prod(shape)) * 0.37).reshape(shape).astype(np.float32)


# the layers, inputs, and the output sums and sums of squares Keras 3.15 printed for them
# (weights from _fill, inputs from _cosines; the same on its TensorFlow and JAX backends)
KERAS_SUMS = [
    ("ConvLSTM1D", dict(filters=3, kernel_size=2), (2, 4, 6, 2), [2.11208], [0.2087]),
    ("ConvLSTM2D", dict(filters=2, kernel_size=3, padding="same", return_sequences=True),
     (2, 3, 5, 4, 2), [-26.42354], [8.24271]),
    ("ConvLSTM2D", dict(filters=2, kernel_size=(2, 3), strides=2, return_state=True),
     (2, 3, 5, 6, 2), [-2.35697, -2.35697, -6.13781], [0.64051, 0.64051, 3.85704]),
    ("ConvLSTM2D", dict(filters=2, kernel_size=3, dilation_rate=2, go_backwards=True,
                        unit_forget_bias=False), (1, 3, 6, 6, 1), [-1.08494], [0.38169]),
    ("ConvLSTM3D", dict(filters=2, kernel_size=2, padding="same", return_sequences=True),
     (1, 2, 3, 4, 3, 2), [-12.59169], [3.3187]),
]


@pytest.mark.parametrize("name, kwargs, shape, sums, squares", KERAS_SUMS)
def test_conv_lstm_matches_keras_and_numpy(name, kwargs, shape, sums, squares):
    x = _cosines(shape)
    layer = getattr(L, name)(**kwargs)
    layer(x)
    _fill(layer)
    got = layer(x)
    got = got if isinstance(got, list) else [got]
    np.testing.assert_allclose([float(t.numpy().sum()) for t in got], sums, rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose([float((t.numpy() ** 2).sum()) for t in got], squares,
                               rtol=1e-4, atol=1e-4)
    sequence, h, c = _conv_lstm_numpy(layer, x.astype(np.float64))
    expected = [sequence if layer.return_sequences else h] + ([h, c] if layer.return_state
                                                              else [])
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value.numpy(), want, rtol=1e-4, atol=1e-5)
    shapes = layer.compute_output_shape((None, *shape[1:]))
    shapes = shapes if isinstance(shapes, tuple) and not isinstance(shapes[0], (int, type(None))) \
        else [shapes]
    assert [list(s)[1:] for s in shapes] == [list(t.shape)[1:] for t in got]


def test_conv_lstm_weights_are_keras_layout():
    layer = L.ConvLSTM2D(4, (3, 2), name="conv_lstm2d")
    layer.build((None, 5, 7, 6, 3))
    # the paths and shapes Keras 3.15 lists for the same layer
    assert [(w.path, tuple(w.shape)) for w in layer.weights] == [
        ("conv_lstm2d/conv_lstm_cell/kernel", (3, 2, 3, 16)),
        ("conv_lstm2d/conv_lstm_cell/recurrent_kernel", (3, 2, 4, 16)),
        ("conv_lstm2d/conv_lstm_cell/bias", (16,))]
    np.testing.assert_array_equal(layer.weights[2].numpy(), [0] * 4 + [1] * 4 + [0] * 8)


def test_conv_lstm_skips_masked_steps():
    # Keras 3.15 (TensorFlow backend) printed these per-step sums for the same program
    x = _cosines((2, 4, 5, 2))
    layer = L.ConvLSTM1D(2, 2, return_sequences=True)
    layer(x)
    _fill(layer)
    mask = np.array([[1, 1, 0, 1], [1, 0, 0, 1]], bool)
    got = layer(x, mask=mask).numpy()
    np.testing.assert_allclose(got.sum(axis=(2, 3)), [
        [-0.87431, -0.43794, -0.43794, 0.05819], [-1.15387, -1.15387, -1.15387, -1.83226]],
        atol=1e-4)
    np.testing.assert_allclose(got, _conv_lstm_numpy(layer, x.astype(np.float64), mask)[0],
                               rtol=1e-4, atol=1e-5)


def test_conv_lstm_gradient_matches_finite_differences():
    x = _cosines((1, 3, 5, 2)).astype(np.float64)
    layer = L.ConvLSTM1D(2, 2, padding="same", dtype="float64")
    layer(x)
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(rt.square(layer(x)))
    grads = tape.gradient(loss, layer.trainable_weights)
    weights = layer.get_weights()
    eps = 1e-6
    for which, index in [(0, (1, 0, 3)), (1, (0, 1, 5)), (2, (2,))]:
        values = []
        for step in (eps, -eps):
            moved = [w.copy() for w in weights]
            moved[which][index] += step
            layer.set_weights(moved)
            values.append((_conv_lstm_numpy(layer, x)[1] ** 2).sum())
        layer.set_weights(weights)
        np.testing.assert_allclose(grads[which].numpy()[index],
                                   (values[0] - values[1]) / (2 * eps), rtol=1e-5)


def test_conv_lstm_in_a_compiled_model_and_its_options():
    model = keras.Sequential([keras.Input((3, 6, 6, 1)),
                              L.ConvLSTM2D(2, 3, padding="same", return_sequences=True),
                              L.ConvLSTM2D(1, 3, padding="same"), L.Flatten(), L.Dense(1)])
    x = _cosines((4, 3, 6, 6, 1))
    model.compile("adam", "mse")
    history = model.fit(x, np.ones((4, 1), np.float32), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()
    np.testing.assert_allclose(model.predict(x, verbose=0), model(x).numpy(), rtol=1e-5)
    with pytest.raises(TypeError, match="filters"):
        L.ConvLSTM2D(2, 3, filter=3)
    with pytest.raises(TypeError, match="recurrent_dropout"):
        L.ConvLSTM2D(2, 3, recurrent_dropout=None)
    with pytest.raises(NotImplementedError, match="channels_first"):
        L.ConvLSTM2D(2, 3, data_format="channels_first")
    with pytest.raises(ValueError, match="rank 5"):
        L.ConvLSTM2D(2, 3)(np.zeros((1, 2, 3, 3), np.float32))


def test_stateful_conv_lstm_keeps_its_states():
    x = _cosines((2, 2, 5, 1))
    layer = L.ConvLSTM1D(2, 3, padding="same", stateful=True)
    first = layer(x).numpy()
    second = layer(x).numpy()
    assert not np.allclose(first, second)
    layer.reset_state()
    np.testing.assert_allclose(layer(x).numpy(), first, rtol=1e-6)


# -- adaptive pooling and Pipeline -------------------------------------------------------------

def _adaptive_numpy(x, sizes, reduce):
    """Each output cell the reduction of its bin: [floor(i n / m), ceil((i + 1) n / m)) per
    axis (the bins Keras 3 documents; Keras 3.15 printed the same sums for these layers)."""
    spatial = x.shape[1:-1]
    out = np.zeros((x.shape[0], *sizes, x.shape[-1]))
    for idx in np.ndindex(*sizes):
        box = tuple(slice(int(np.floor(i * n / m)), int(np.ceil((i + 1) * n / m)))
                    for i, n, m in zip(idx, spatial, sizes))
        out[(slice(None), *idx)] = reduce(x[(slice(None), *box)],
                                          axis=tuple(range(1, 1 + len(sizes))))
    return out


@pytest.mark.parametrize("name, size, shape, total", [
    # the output sums Keras 3.15 printed for the same layers and inputs
    ("AdaptiveAveragePooling1D", 3, (2, 7, 3), -2.35378),
    ("AdaptiveMaxPooling1D", 4, (2, 10, 3), 11.76179),
    ("AdaptiveAveragePooling2D", (3, 2), (2, 7, 5, 3), 0.8553),
    ("AdaptiveMaxPooling2D", 4, (2, 7, 5, 3), 81.71908),
    ("AdaptiveAveragePooling3D", (2, 3, 3), (2, 7, 5, 4, 3), -2.21418),
    ("AdaptiveMaxPooling3D", 2, (2, 7, 5, 4, 3), 46.98755),
])
def test_adaptive_pooling_matches_numpy_and_keras(name, size, shape, total):
    x = np.cos(np.arange(np.prod(shape)) * 0.3).reshape(shape).astype(np.float32)
    layer = getattr(L, name)(size)
    got = layer(x).numpy()
    reduce = np.mean if "Average" in name else np.max
    expected = _adaptive_numpy(x.astype(np.float64), layer.output_size, reduce)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(got.sum()), total, atol=1e-4)
    assert tuple(layer.compute_output_shape((None, *shape[1:]))) == (None, *got.shape[1:])


def test_adaptive_pooling_channels_first_and_gradient():
    x = np.arange(2 * 3 * 5 * 4, dtype=np.float64).reshape(2, 3, 5, 4)
    layer = L.AdaptiveAveragePooling2D(2, data_format="channels_first", dtype="float64")
    expected = _adaptive_numpy(np.moveaxis(x, 1, -1), (2, 2), np.mean)
    np.testing.assert_allclose(layer(x).numpy(), np.moveaxis(expected, -1, 1))
    assert float(layer(x).numpy().sum()) == 1428.0  # Keras 3.15's sum
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        loss = rt.reduce_sum(layer(xt))
    # each input's gradient: the sum over the bins holding it of 1 / (bin size)
    grad = tape.gradient(loss, xt).numpy()
    ones = np.zeros_like(x)
    for i in range(2):
        for j in range(2):
            rows = slice(int(np.floor(i * 5 / 2)), int(np.ceil((i + 1) * 5 / 2)))
            cols = slice(j * 2, j * 2 + 2)
            ones[:, :, rows, cols] += 1 / ((rows.stop - rows.start) * 2)
    np.testing.assert_allclose(grad, ones)
    with pytest.raises(TypeError, match="output_size"):
        L.AdaptiveMaxPooling1D(2, output_sise=3)


def test_pipeline_applies_its_layers_in_training_mode_by_default():
    x = np.ones((4, 50), np.float32)
    pipeline = L.Pipeline([L.Rescaling(2.0), L.Dropout(0.5, seed=1)])
    dropped = pipeline(x).numpy()  # training=True by default: the dropout acts
    assert set(np.unique(dropped)) <= {0.0, 4.0} and (dropped == 0).any()
    np.testing.assert_array_equal(pipeline(x, training=False).numpy(), 2 * x)
    assert [type(layer).__name__ for layer in pipeline.layers] == ["Rescaling", "Dropout"]
    masked = L.Pipeline([L.Masking(0.0), L.LSTM(2, return_sequences=True)])
    out = masked(np.array([[[1.0], [0.0]]], np.float32))
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False]])
    with pytest.raises(TypeError, match="list of layers"):
        L.Pipeline([lambda v: v])


# -- StackedRNNCells ---------------------------------------------------------------------------

def test_stacked_cells_run_as_stacked_layers_and_give_keras_states():
    x = _cosines((2, 4, 5))
    rnn = L.RNN(L.StackedRNNCells([L.LSTMCell(2), L.GRUCell(3)]), return_state=True,
                return_sequences=True, name="rnn")
    rnn(x)
    _fill(rnn)
    sequence, (h1, c1), (h2,) = rnn(x)
    # Keras 3.15 printed these weight paths and sums for the same program
    assert [w.path for w in rnn.weights] == [
        f"rnn/stacked_rnn_cells/{cell}/{name}" for cell in ("lstm_cell", "gru_cell")
        for name in ("kernel", "recurrent_kernel", "bias")]
    np.testing.assert_allclose([float(t.numpy().sum()) for t in (sequence, h1, c1, h2)],
                               [-4.68714, -0.00186, -0.01102, -1.40603], atol=1e-4)
    # the oracle: two layers, each running one cell over the steps, with the same weights
    weights = rnn.get_weights()
    lower = L.LSTM(2, return_sequences=True, return_state=True)
    upper = L.GRU(3, return_sequences=True, return_state=True)
    low_seq, low_h, low_c = lower(x)
    lower.set_weights(weights[:3])
    upper(low_seq)
    upper.set_weights(weights[3:])
    low_seq, low_h, low_c = lower(x)
    up_seq, up_h = upper(low_seq)
    for got, want in ((sequence, up_seq), (h1, low_h), (c1, low_c), (h2, up_h)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_a_list_of_cells_makes_a_stack_with_masks_and_configs():
    x = _cosines((2, 4, 5))
    rnn = L.RNN([L.SimpleRNNCell(2), L.SimpleRNNCell(3)])
    rnn(x)
    _fill(rnn)
    assert type(rnn.cell).__name__ == "StackedRNNCells"
    mask = np.array([[1, 1, 0, 1], [1, 0, 0, 1]], bool)
    # Keras 3.15's sums for the same program, without and with the mask
    np.testing.assert_allclose(float(rnn(x).numpy().sum()), -1.15048, atol=1e-4)
    np.testing.assert_allclose(float(rnn(x, mask=mask).numpy().sum()), -1.31881, atol=1e-4)
    # the stack's config is compared with Keras's in test_config_is_keras_3s; loaded back:
    config = CASES["stacked_rnn_cells"]().get_config()
    again = L.StackedRNNCells.from_config(_json(config))
    assert [type(c).__name__ for c in again.cells] == ["LSTMCell", "SimpleRNNCell"]
    with pytest.raises(ValueError, match="state_size"):
        L.StackedRNNCells([L.Dense(2)])


# -- ReversibleEmbedding -----------------------------------------------------------------------

def test_reversible_embedding_maps_vectors_back_to_logits():
    table = np.arange(15, dtype=np.float32).reshape(5, 3) / 10
    own = np.arange(15, dtype=np.float32).reshape(3, 5) / 20
    untied = L.ReversibleEmbedding(5, 3, tie_weights=False, name="re")
    np.testing.assert_array_equal(untied(np.array([[1, 2]])).shape, (1, 2, 3))
    assert [(w.path, tuple(w.shape)) for w in untied.weights] == [
        ("re/embeddings", (5, 3)), ("re/reverse_embeddings", (3, 5))]  # as Keras 3.15's
    untied.set_weights([table, own])
    vectors = np.ones((1, 3), np.float32)
    # Keras 3.15 printed [[0.75, 0.9, 1.05, 1.2, 1.35]] for this call
    np.testing.assert_allclose(untied(vectors, reverse=True).numpy(), vectors @ own, rtol=1e-6)
    np.testing.assert_allclose(untied(np.array([[4]])).numpy()[0, 0], table[4])
    capped = L.ReversibleEmbedding(5, 3, logit_soft_cap=0.5)
    capped(np.array([1]))
    capped.set_weights([table])
    # Keras 3.15: [[0.26852, 0.49184, 0.49978, 0.49999, 0.5]]
    np.testing.assert_allclose(capped(vectors, reverse=True).numpy(),
                               0.5 * np.tanh(vectors @ table.T / 0.5), rtol=1e-6)
    assert capped.compute_output_shape((None, 3), reverse=True) == (None, 5)
    assert capped.compute_output_shape((None, 3)) == (None, 3, 3)
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(capped(vectors, reverse=True))
    grad = tape.gradient(loss, capped.embeddings).numpy()
    cosh = np.cosh(vectors @ table.T / 0.5)
    np.testing.assert_allclose(grad, (1 / cosh ** 2).T @ vectors, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="tie_weights"):
        L.ReversibleEmbedding(5, 3, tie_weight=False)

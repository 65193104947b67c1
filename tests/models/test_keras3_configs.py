"""Layer and model configs as Keras 3 writes them, compared key by key with configs Keras 3
produced.

data/keras3_configs.json was recorded with Keras 3.15.1 under TensorFlow 2.21 by running the
program in `RECORDED` (the layers' `get_config()`, the Sequential model's `get_config()` and
the functional model's `to_json()`), saved with `json.dump`. Here the same layers are built and
their configs compared with those; Keras's configs, read back from JSON, load here and give the
same config again."""

import json
import pathlib

import numpy as np
import pytest

from runtime import keras

L = keras.layers
RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "keras3_configs.json")
                      .read_text())

# the program run under Keras 3 to record data/keras3_configs.json (the same calls here)
LAYERS = {
    "dense": lambda: L.Dense(3, activation="relu", kernel_regularizer="l2",
                             kernel_constraint="non_neg", name="dense"),
    "conv2d": lambda: L.Conv2D(4, 3, strides=2, padding="same", name="conv2d"),
    "conv1d": lambda: L.Conv1D(2, 3, dilation_rate=2, name="conv1d"),
    "max_pooling2d": lambda: L.MaxPooling2D(name="max_pooling2d"),
    "average_pooling1d": lambda: L.AveragePooling1D(3, name="average_pooling1d"),
    "lstm": lambda: L.LSTM(3, return_sequences=True, name="lstm"),
    "gru": lambda: L.GRU(2, kernel_initializer="he_normal", name="gru"),
    "bidirectional": lambda: L.Bidirectional(L.LSTM(2, name="lstm_b"), name="bidirectional"),
    "embedding": lambda: L.Embedding(10, 4, mask_zero=True, name="embedding"),
    "batch_normalization": lambda: L.BatchNormalization(momentum=0.9,
                                                        name="batch_normalization"),
    "layer_normalization": lambda: L.LayerNormalization(name="layer_normalization"),
    "dropout": lambda: L.Dropout(0.25, name="dropout"),
    "conv2d_transpose": lambda: L.Conv2DTranspose(2, 3, strides=2, name="conv2d_transpose"),
    "separable_conv2d": lambda: L.SeparableConv2D(2, 3, name="separable_conv2d"),
    "depthwise_conv2d": lambda: L.DepthwiseConv2D(3, name="depthwise_conv2d"),
    "zero_padding2d": lambda: L.ZeroPadding2D(2, name="zero_padding2d"),
    "up_sampling2d": lambda: L.UpSampling2D(name="up_sampling2d"),
    "time_distributed": lambda: L.TimeDistributed(L.Dense(2, name="inner"),
                                                  name="time_distributed"),
    "multi_head_attention": lambda: L.MultiHeadAttention(2, 4, name="multi_head_attention"),
    "p_re_lu": lambda: L.PReLU(name="p_re_lu"),
    "flatten": lambda: L.Flatten(name="flatten"),
    "reshape": lambda: L.Reshape((2, 3), name="reshape"),
}


def _json(value):
    """`value` as JSON gives it back (tuples become lists), for comparing with the file."""
    return json.loads(json.dumps(value))


def _differences(expected, got, path=""):
    if isinstance(expected, dict) and isinstance(got, dict):
        found = []
        for key in sorted(set(expected) | set(got)):
            if key not in got:
                found.append(f"{path}{key}: missing (Keras {expected[key]!r:.80})")
            elif key not in expected:
                found.append(f"{path}{key}: extra ({got[key]!r:.80})")
            else:
                found += _differences(expected[key], got[key], f"{path}{key}.")
        return found
    return [] if expected == got else [f"{path[:-1]}: Keras {expected!r:.80}, here {got!r:.80}"]


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_a_layers_config_is_keras_3s_key_by_key(name):
    layer = LAYERS[name]()
    assert not _differences(RECORDED["layers"][name]["config"], _json(layer.get_config()))


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_a_config_written_by_keras_3_loads_and_gives_the_same_config(name):
    recorded = RECORDED["layers"][name]
    layer = keras.layers.deserialize({"module": "keras.layers", **recorded,
                                      "registered_name": None})
    assert type(layer).__name__ == recorded["class_name"]
    assert not _differences(recorded["config"], _json(layer.get_config()))


def test_sizes_and_strides_are_tuples_and_defaults_keras_values():
    config = L.Conv2D(4, 3, name="c").get_config()
    assert config["kernel_size"] == (3, 3) and config["strides"] == (1, 1)
    assert config["dilation_rate"] == (1, 1) and config["activation"] == "linear"
    assert config["data_format"] == "channels_last"
    pool = L.MaxPooling2D(3).get_config()
    assert pool["pool_size"] == (3, 3) and pool["strides"] == (3, 3)


def test_recurrent_cells_and_bidirectional_directions_are_named_as_keras():
    lstm = L.LSTM(2, name="enc")
    assert lstm.cell.name == "lstm_cell" and L.GRU(2).cell.name == "gru_cell"
    both = L.Bidirectional(L.LSTM(2, name="enc"))
    assert (both.forward_layer.name, both.backward_layer.name) == ("forward_enc",
                                                                    "backward_enc")
    assert both.backward_layer.go_backwards and not both.forward_layer.go_backwards
    again = L.Bidirectional.from_config(_json(both.get_config()))
    assert (again.forward_layer.name, again.backward_layer.name) == ("forward_enc",
                                                                     "backward_enc")


def test_keras_3s_sequential_config_loads_and_runs():
    model = keras.Sequential.from_config(RECORDED["sequential"])
    assert [layer.name for layer in model.layers] == ["d1", "dr", "d2"]
    assert model.layers[0].activation is keras.activations.relu
    out = model(np.ones((2, 5), np.float32))
    assert out.shape == (2, 2)
    weights = model.get_weights()
    x = np.random.default_rng(0).normal(size=(3, 5)).astype(np.float32)
    expected = np.maximum(x @ weights[0] + weights[1], 0) @ weights[2] + weights[3]
    np.testing.assert_allclose(model(x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_keras_3s_functional_json_loads_and_runs():
    model = keras.models.model_from_json(json.dumps(RECORDED["functional"]))
    assert model.name == "fm" and [t.shape.as_list() for t in model.outputs] == [[None, 1],
                                                                                 [None, 2]]
    x = np.random.default_rng(1).normal(size=(4, 6)).astype(np.float32)
    wh, bh, w1, b1, w2, b2 = (model.get_layer(n).get_weights()[i] for n in ("h", "o1", "o2")
                              for i in (0, 1))
    h = np.tanh(x @ wh + bh)
    logits = np.concatenate([h, x], -1) @ w2 + b2
    soft = np.exp(logits - logits.max(-1, keepdims=True))
    o1, o2 = model(x)
    np.testing.assert_allclose(o1.numpy(), h @ w1 + b1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o2.numpy(), soft / soft.sum(-1, keepdims=True), rtol=1e-5)


def test_a_sequential_models_config_is_keras_3s_key_by_key():
    keras.backend.clear_session()  # the Input's layer is named input_layer, as in Keras
    model = keras.Sequential([keras.Input((5,)), L.Dense(4, activation="relu", name="d1"),
                              L.Dropout(0.1, name="dr"), L.Dense(2, name="d2")], name="seq")
    assert not _differences(RECORDED["sequential"], _json(model.get_config()))
    again = keras.Sequential.from_config(_json(model.get_config()))
    assert not _differences(RECORDED["sequential"], _json(again.get_config()))
    unbuilt = keras.Sequential([L.Dense(4, name="e1")], name="s2").get_config()
    assert "build_input_shape" not in unbuilt and len(unbuilt["layers"]) == 1

"""`Model.summary()` prints Keras 3's table.

Each expected text is what Keras 3 (TensorFlow 2.21) prints for the same model, names and
terminal width (80 columns), captured through `print_fn`."""

from __future__ import annotations

import os
import re
import shutil

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
L = keras.layers

KERAS = {
    'conv': (
        "Model: \"sequential\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
        "│ conv2d (Conv2D)                 │ (None, 26, 26, 8)      │            80 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ max_pooling2d (MaxPooling2D)    │ (None, 13, 13, 8)      │             0 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ flatten (Flatten)               │ (None, 1352)           │             0 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ dropout (Dropout)               │ (None, 1352)           │             0 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ dense (Dense)                   │ (None, 10)             │        13,530 │\n"
        "└─────────────────────────────────┴────────────────────────┴───────────────┘\n"
        " Total params: 13,610 (53.16 KB)\n"
        " Trainable params: 13,610 (53.16 KB)\n"
        " Non-trainable params: 0 (0.00 B)\n"
    ),
    'unbuilt': (
        "Model: \"unbuilt\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
        "│ d1 (Dense)                      │ ?                      │   0 (unbuilt) │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ d2 (Dense)                      │ ?                      │   0 (unbuilt) │\n"
        "└─────────────────────────────────┴────────────────────────┴───────────────┘\n"
        " Total params: 0 (0.00 B)\n"
        " Trainable params: 0 (0.00 B)\n"
        " Non-trainable params: 0 (0.00 B)\n"
    ),
    'line60': (
        "Model: \"frozen\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┓\n"
        "┃ Layer (type)             ┃ Output Shape      ┃   Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━┩\n"
        "│ a (Dense)                │ (None, 4)         │        16 │\n"
        "├──────────────────────────┼───────────────────┼───────────┤\n"
        "│ b (Dense)                │ (None, 2)         │        10 │\n"
        "└──────────────────────────┴───────────────────┴───────────┘\n"
        " Total params: 26 (104.00 B)\n"
        " Trainable params: 10 (40.00 B)\n"
        " Non-trainable params: 16 (64.00 B)\n"
    ),
    'trainable': (
        "Model: \"frozen\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━┓\n"
        "┃ Layer (type)                ┃ Output Shape          ┃    Param # ┃ Trai… ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━┩\n"
        "│ a (Dense)                   │ (None, 4)             │         16 │   N   │\n"
        "├─────────────────────────────┼───────────────────────┼────────────┼───────┤\n"
        "│ b (Dense)                   │ (None, 2)             │         10 │   Y   │\n"
        "└─────────────────────────────┴───────────────────────┴────────────┴───────┘\n"
        " Total params: 26 (104.00 B)\n"
        " Trainable params: 10 (40.00 B)\n"
        " Non-trainable params: 16 (64.00 B)\n"
    ),
    'nested': (
        "Model: \"nested\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
        "│ x (InputLayer)                  │ (None, 5)              │             0 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ block (Sequential)              │ (None, 3)              │            30 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ head (Dense)                    │ (None, 1)              │             4 │\n"
        "└─────────────────────────────────┴────────────────────────┴───────────────┘\n"
        " Total params: 34 (136.00 B)\n"
        " Trainable params: 28 (112.00 B)\n"
        " Non-trainable params: 6 (24.00 B)\n"
    ),
    'expanded': (
        "Model: \"nested\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
        "│ x (InputLayer)                  │ (None, 5)              │             0 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ block (Sequential)              │ (None, 3)              │            30 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│    └ inner_dense (Dense)        │ (None, 3)              │            18 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│    └ batch_normalization        │ (None, 3)              │            12 │\n"
        "│ (BatchNormalization)            │                        │               │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ head (Dense)                    │ (None, 1)              │             4 │\n"
        "└─────────────────────────────────┴────────────────────────┴───────────────┘\n"
        " Total params: 34 (136.00 B)\n"
        " Trainable params: 28 (112.00 B)\n"
        " Non-trainable params: 6 (24.00 B)\n"
    ),
    'connected': (
        "Model: \"two_inputs\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩\n"
        "│ a (InputLayer)      │ (None, 4)         │          0 │ -                 │\n"
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n"
        "│ b (InputLayer)      │ (None, 4)         │          0 │ -                 │\n"
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n"
        "│ dense (Dense)       │ (None, 4)         │         20 │ a[0][0]           │\n"
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n"
        "│ add (Add)           │ (None, 4)         │          0 │ b[0][0],          │\n"
        "│                     │                   │            │ dense[0][0]       │\n"
        "└─────────────────────┴───────────────────┴────────────┴───────────────────┘\n"
        " Total params: 20 (80.00 B)\n"
        " Trainable params: 20 (80.00 B)\n"
        " Non-trainable params: 0 (0.00 B)\n"
    ),
    'sizes': (
        "Model: \"sizes\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
        "│ big (Dense)                     │ (None, 1000)           │     1,001,000 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ f64 (Dense)                     │ (None, 1)              │         1,001 │\n"
        "└─────────────────────────────────┴────────────────────────┴───────────────┘\n"
        " Total params: 1,002,001 (3.83 MB)\n"
        " Trainable params: 1,002,001 (3.83 MB)\n"
        " Non-trainable params: 0 (0.00 B)\n"
    ),
    'deep_first': (
        "Model: \"deep_first\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩\n"
        "│ a (InputLayer)      │ (None, 4)         │          0 │ -                 │\n"
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n"
        "│ dense (Dense)       │ (None, 4)         │         20 │ a[0][0]           │\n"
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n"
        "│ b (InputLayer)      │ (None, 4)         │          0 │ -                 │\n"
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n"
        "│ add (Add)           │ (None, 4)         │          0 │ dense[0][0],      │\n"
        "│                     │                   │            │ b[0][0]           │\n"
        "└─────────────────────┴───────────────────┴────────────┴───────────────────┘\n"
        " Total params: 20 (80.00 B)\n"
        " Trainable params: 20 (80.00 B)\n"
        " Non-trainable params: 0 (0.00 B)\n"
    ),
    'trained': (
        "Model: \"trained\"\n"
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
        "│ h (Dense)                       │ (None, 4)              │            16 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ o (Dense)                       │ (None, 2)              │            10 │\n"
        "└─────────────────────────────────┴────────────────────────┴───────────────┘\n"
        " Total params: 80 (324.00 B)\n"
        " Trainable params: 26 (104.00 B)\n"
        " Non-trainable params: 0 (0.00 B)\n"
        " Optimizer params: 54 (220.00 B)\n"
    ),
}


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch):
    monkeypatch.setattr(shutil, "get_terminal_size",
                        lambda fallback=(80, 24): os.terminal_size((80, 24)))


def _text(model, **options) -> str:
    printed = []
    assert model.summary(print_fn=printed.append, **options) is None
    assert len(printed) == 1
    return printed[0]


def _conv_model():
    return keras.Sequential([keras.Input((28, 28, 1)),
                             L.Conv2D(8, 3, activation="relu", name="conv2d"),
                             L.MaxPooling2D(name="max_pooling2d"), L.Flatten(name="flatten"),
                             L.Dropout(0.2, name="dropout"), L.Dense(10, name="dense")],
                            name="sequential")


def _frozen_model():
    model = keras.Sequential([L.Dense(4, name="a"), L.Dense(2, name="b")], name="frozen")
    model.build((None, 3))
    model.layers[0].trainable = False
    return model


def _nested_model():
    x = keras.Input((5,), name="x")
    inner = keras.Sequential([L.Dense(3, name="inner_dense"),
                              L.BatchNormalization(name="batch_normalization")], name="block")
    return keras.Model(x, L.Dense(1, name="head")(inner(x)), name="nested")


def test_a_sequential_model_prints_keras_table_with_output_shapes_and_sizes():
    assert _text(_conv_model()) == KERAS["conv"]


def test_an_unbuilt_model_shows_question_marks_and_unbuilt_counts():
    model = keras.Sequential([L.Dense(4, name="d1"), L.Dense(2, name="d2")], name="unbuilt")
    assert _text(model) == KERAS["unbuilt"]


def test_line_length_and_non_trainable_weights():
    assert _text(_frozen_model(), line_length=60) == KERAS["line60"]


def test_show_trainable_adds_a_centred_column():
    assert _text(_frozen_model(), show_trainable=True) == KERAS["trainable"]


def test_nested_models_and_expand_nested():
    model = _nested_model()
    assert _text(model) == KERAS["nested"]
    assert _text(model, expand_nested=True) == KERAS["expanded"]


def test_a_functional_model_that_is_not_a_chain_shows_connections():
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    out = L.Add(name="add")([b, L.Dense(4, name="dense")(a)])
    assert _text(keras.Model([a, b], out, name="two_inputs")) == KERAS["connected"]


def test_a_functional_model_lists_its_layers_deepest_first_as_keras():
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    out = L.Add(name="add")([L.Dense(4, name="dense")(a), b])
    assert _text(keras.Model([a, b], out, name="deep_first")) == KERAS["deep_first"]


def test_after_training_the_optimizer_state_is_counted():
    model = keras.Sequential([keras.Input((3,)), L.Dense(4, name="h"), L.Dense(2, name="o")],
                             name="trained")
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32), verbose=0)
    assert _text(model) == KERAS["trained"]   # Adam: iterations, learning rate, m and v


def test_parameter_counts_use_thousands_separators_and_sizes_follow_dtypes():
    model = keras.Sequential([keras.Input((1000,)), L.Dense(1000, name="big"),
                              L.Dense(1, dtype="float64", name="f64")], name="sizes")
    assert _text(model) == KERAS["sizes"]


def test_print_fn_none_returns_the_text_and_the_default_prints_it(capsys):
    model = _conv_model()
    assert model.summary(print_fn=None) == KERAS["conv"]
    assert model.summary() is None
    assert capsys.readouterr().out == KERAS["conv"]


def test_summary_keywords_are_checked():
    with pytest.raises(TypeError, match="line_lenght"):
        _conv_model().summary(line_lenght=80)
    with pytest.raises(ValueError, match="line_length"):
        _conv_model().summary(line_length=8)


# Keras 3's default layer names (keras.src.utils.naming.to_snake_case of the class name)
KERAS_NAMES = {
    "Conv1D": "conv1d", "Conv2D": "conv2d", "Conv1DTranspose": "conv1d_transpose",
    "Conv2DTranspose": "conv2d_transpose", "MaxPooling1D": "max_pooling1d",
    "MaxPooling2D": "max_pooling2d", "AveragePooling2D": "average_pooling2d",
    "GlobalAveragePooling1D": "global_average_pooling1d",
    "GlobalMaxPooling2D": "global_max_pooling2d", "SeparableConv2D": "separable_conv2d",
    "DepthwiseConv2D": "depthwise_conv2d", "UpSampling2D": "up_sampling2d",
    "ZeroPadding1D": "zero_padding1d", "Cropping2D": "cropping2d",
    "SpatialDropout1D": "spatial_dropout1d", "BatchNormalization": "batch_normalization",
    "LSTM": "lstm", "GRU": "gru", "SimpleRNN": "simple_rnn", "PReLU": "p_re_lu",
    "ReLU": "re_lu", "LeakyReLU": "leaky_re_lu", "ELU": "elu",
    "MultiHeadAttention": "multi_head_attention", "TimeDistributed": "time_distributed",
    "Dense": "dense", "InputLayer": "input_layer",
}


@pytest.mark.parametrize("cls,expected", sorted(KERAS_NAMES.items()))
def test_default_layer_names_are_keras(cls, expected):
    assert rt.module.keras_snake_case(cls) == expected
    layer_class = getattr(L, cls, None)
    if layer_class is None:
        pytest.skip(f"{cls} is not offered")
    assert layer_class.__name__ == cls


@pytest.mark.parametrize("make,expected", [
    (lambda: L.Conv2D(2, 3), "conv2d"), (lambda: L.Conv1D(2, 3), "conv1d"),
    (lambda: L.MaxPooling2D(), "max_pooling2d"), (lambda: L.MaxPool1D(), "max_pooling1d"),
    (lambda: L.GlobalAveragePooling1D(), "global_average_pooling1d"),
    (lambda: L.Conv2DTranspose(2, 3), "conv2d_transpose"),
    (lambda: L.UpSampling2D(), "up_sampling2d"), (lambda: L.ZeroPadding1D(), "zero_padding1d"),
    (lambda: L.SimpleRNN(2), "simple_rnn"), (lambda: L.Dense(1), "dense"),
])
def test_layers_get_keras_default_names(make, expected):
    name = make().name
    assert re.fullmatch(rf"{expected}(_\d+)?", name), name


def test_a_module_keeps_tf_module_naming():
    # tf.Module(name=None) of class Conv2D is named "conv2_d" (TensorFlow's camel_to_snake)
    class Conv2D(rt.Module):
        pass
    assert Conv2D().name == "conv2_d"
    assert rt.module.snake_case("MyDense2") == "my_dense2"


class _Wrapper(keras.Model):
    """A subclassed model whose Sequential is first called (so built) inside fit."""

    def __init__(self):
        super().__init__()
        self.inner = keras.Sequential([L.Dense(3), L.Dense(2)])

    def call(self, x):
        return self.inner(x)


def _output_shapes(model) -> list:
    return re.findall(r"\((?:None|\d+), \d+\)", _text(model))


def _fitted(model, data, **options):
    model.compile(optimizer="adam", loss="mse")
    model.fit(*data, epochs=1, verbose=0, **options)
    return model


@pytest.mark.parametrize("make", [keras.Sequential, None])
def test_layers_built_in_fit_record_the_batch_size_when_every_batch_is_full(make):
    # Keras 3.15 (TensorFlow 2.21) builds the layers from the data's spec, whose first axis
    # is the batch size when every batch is full (64 samples in batches of 32; a dataset
    # batched with drop_remainder) and None otherwise (40 samples): the summaries it printed
    def model():
        return _Wrapper() if make is None else make([L.Dense(3), L.Dense(2)])

    def inner(m):
        return m if make is not None else m.inner

    full = (np.ones((64, 4), np.float32), np.ones((64, 2), np.float32))
    assert _output_shapes(inner(_fitted(model(), full))) == ["(32, 3)", "(32, 2)"]
    part = (np.ones((40, 4), np.float32), np.ones((40, 2), np.float32))
    assert _output_shapes(inner(_fitted(model(), part))) == ["(None, 3)", "(None, 2)"]
    batches = rt.data.Dataset.from_tensor_slices(full).batch(16, drop_remainder=True)
    fitted = _fitted(model(), (batches,))
    assert _output_shapes(inner(fitted)) == ["(16, 3)", "(16, 2)"]
    assert fitted.predict(np.ones((5, 4), np.float32), verbose=0).shape == (5, 2)

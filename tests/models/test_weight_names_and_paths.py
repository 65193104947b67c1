"""Keras 3's weight names and paths, and `keras.Variable`.

The expected names and paths were printed by Keras 3.15.1 under TensorFlow 2.21 for the same
programs (`[(w.name, w.path) for w in model.weights]`); the layer names are made unique the
same way here, so each test starts from `clear_session()` as a fresh Keras process does."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

L = keras.layers


@pytest.fixture(autouse=True)
def _fresh_names():
    keras.backend.clear_session()


def _names(variables):
    return [(v.name, v.path) for v in variables]


def test_sequential_weights_are_named_kernel_with_the_models_path():
    model = keras.Sequential([keras.Input((3,)), L.Dense(2), L.BatchNormalization(),
                              L.Dense(1, name="out")])
    assert _names(model.weights) == [
        ("kernel", "sequential/dense/kernel"), ("bias", "sequential/dense/bias"),
        ("gamma", "sequential/batch_normalization/gamma"),
        ("beta", "sequential/batch_normalization/beta"),
        ("moving_mean", "sequential/batch_normalization/moving_mean"),
        ("moving_variance", "sequential/batch_normalization/moving_variance"),
        ("kernel", "sequential/out/kernel"), ("bias", "sequential/out/bias")]
    assert [v.name for v in model.trainable_variables] == ["kernel", "bias", "gamma", "beta",
                                                           "kernel", "bias"]
    assert [v.name for v in model.non_trainable_variables] == ["moving_mean",
                                                               "moving_variance"]


def test_paths_of_nested_layers_are_keras_3s():
    inputs = keras.Input((4, 3))
    model = keras.Model(inputs, L.LSTM(2)(inputs))
    assert _names(model.weights) == [("kernel", "lstm/lstm_cell/kernel"),
                                     ("recurrent_kernel", "lstm/lstm_cell/recurrent_kernel"),
                                     ("bias", "lstm/lstm_cell/bias")]
    both = L.Bidirectional(L.GRU(2))
    both(np.zeros((1, 3, 2), np.float32))
    assert [v.path for v in both.weights] == [
        f"bidirectional/{d}_gru/gru_cell/{w}" for d in ("forward", "backward")
        for w in ("kernel", "recurrent_kernel", "bias")]
    attention = L.MultiHeadAttention(2, 2)
    x = np.zeros((1, 3, 4), np.float32)
    attention(x, x)
    assert [v.path for v in attention.weights][:2] == ["multi_head_attention/query/kernel",
                                                       "multi_head_attention/query/bias"]
    normalization = L.Normalization()
    normalization.adapt(np.ones((4, 2), np.float32))
    assert _names(normalization.weights) == [("mean", "normalization/mean"),
                                             ("variance", "normalization/variance"),
                                             ("count", "normalization/count")]


def test_a_subclassed_models_layers_take_its_name_in_their_paths():
    class M(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(1)
            self.e = L.Dense(1)

        def call(self, x):
            return self.e(self.d(x))
    model = M()
    model(np.zeros((1, 2), np.float32))
    assert [v.path for v in model.weights] == ["m/dense/kernel", "m/dense/bias",
                                               "m/dense_1/kernel", "m/dense_1/bias"]


def test_built_directly_a_layer_and_its_cell_take_the_layers_path():
    rnn = L.RNN(L.LSTMCell(2))
    rnn.build((None, 3, 2))
    assert [v.path for v in rnn.weights] == ["rnn/lstm_cell/kernel",
                                             "rnn/lstm_cell/recurrent_kernel",
                                             "rnn/lstm_cell/bias"]

    class Custom(L.Layer):
        def build(self, shape):
            self.v = self.add_weight(shape=(2,), name="v")
    custom = Custom()
    custom.build(None)
    assert _names(custom.weights) == [("v", "custom/v")]


def test_keras_variable():
    v = keras.Variable(np.ones((2,)), name="v")
    assert (v.name, v.path, v.dtype.name, v.trainable) == ("v", "v", "float64", True)
    w = keras.Variable(keras.initializers.Ones(), shape=(2, 2), dtype="float32",
                       trainable=False, name="w")
    assert (w.name, w.path, tuple(w.shape), w.trainable) == ("w", "w", (2, 2), False)
    assert w.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    z = keras.Variable("zeros", shape=(3,), name="z")
    assert z.numpy().tolist() == [0.0, 0.0, 0.0] and z.dtype.name == "float32"
    assert repr(z) == "<Variable path=z, shape=(3,), dtype=float32, value=[0. 0. 0.]>"
    assert keras.Variable(np.float32(2.0)).name == "variable"
    # the weights layers make are Keras variables; a tf.Variable is not one (Keras prints
    # True and False for these)
    dense = L.Dense(1)
    dense.build((None, 2))
    assert isinstance(dense.kernel, keras.Variable)
    plain = rt.Variable(1.0, name="tv")
    assert plain.name == "tv:0" and not isinstance(plain, keras.Variable)
    z.assign([1.0, 2.0, 3.0])  # a variable like any other
    assert z.numpy().tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="shape"):
        keras.Variable("zeros")

"""Behaviours Keras's developer guides on callbacks, training steps and subclassing rely on,
each checked against Keras 3 (TensorFlow 2.21) as measured under it."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras


class _Recorder(keras.callbacks.Callback):
    """Records the `logs` each hook received."""

    def __init__(self):
        super().__init__()
        self.seen = {}

    def _keep(self, name, logs):
        self.seen.setdefault(name, logs)

    def on_train_begin(self, logs=None):
        self._keep("train_begin", logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._keep("epoch_begin", logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._keep("train_batch_begin", logs)

    def on_test_begin(self, logs=None):
        self._keep("test_begin", logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._keep("test_batch_begin", logs)

    def on_predict_begin(self, logs=None):
        self._keep("predict_begin", logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._keep("predict_batch_begin", logs)

    def on_predict_end(self, logs=None):
        self._keep("predict_end", logs)


def test_begin_hooks_get_an_empty_logs_dict():
    # Keras 3's CallbackList hands every hook a dict ({} when there is nothing to log), so
    # the callbacks guide's `list(logs.keys())` prints [] there
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.ones((8, 3), "float32"), np.ones((8, 1), "float32")
    recorder = _Recorder()
    model.fit(x, y, batch_size=4, verbose=0, validation_split=0.5, callbacks=[recorder])
    model.predict(x, verbose=0, callbacks=[recorder])
    assert recorder.seen == {name: {} for name in (
        "train_begin", "epoch_begin", "train_batch_begin", "test_begin", "test_batch_begin",
        "predict_begin", "predict_batch_begin", "predict_end")}


def test_backend_get_value_set_value_and_random_normal():
    # tf.keras.backend.get_value/set_value read and assign a variable; random_normal draws
    # floatx() values of the given shape (keras._tf_keras.keras.backend under Keras 3)
    v = rt.Variable(0.5)
    assert keras.backend.get_value(v) == np.float32(0.5)
    keras.backend.set_value(v, 2.0)
    assert v.numpy() == np.float32(2.0)
    draw = keras.backend.random_normal(shape=(200, 50), seed=1)
    assert draw.shape == (200, 50) and draw.dtype == rt.float32
    assert abs(float(np.mean(draw))) < 0.05 and abs(float(np.std(draw)) - 1.0) < 0.05


class _MeanActivity(keras.layers.Layer):
    def call(self, inputs):
        self.add_loss(0.01 * rt.reduce_mean(inputs))
        return inputs


def test_fit_a_model_without_trainable_weights():
    # the subclassing guide fits a model of one add_loss layer (no weights): Keras 3 trains
    # nothing and reports the loss, mse + 0.01 * mean(x) here
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, _MeanActivity()(inputs))
    model.compile(optimizer="adam", loss="mse")
    x = np.array([[0.2, 0.4, 0.6], [0.1, 0.3, 0.5]], "float32")
    y = np.zeros((2, 3), "float32")
    history = model.fit(x, y, verbose=0)
    expected = np.mean(x ** 2) + 0.01 * np.mean(x)
    np.testing.assert_allclose(history.history["loss"], [expected], rtol=1e-5)


def test_compile_without_a_loss_trains_on_add_loss_terms():
    # Keras 3: compile(optimizer) alone; fit minimizes and reports the add_loss terms
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, _MeanActivity()(inputs))
    model.compile(optimizer="adam")
    x = np.array([[0.2, 0.4, 0.6], [0.1, 0.3, 0.5]], "float32")
    history = model.fit(x, np.zeros((2, 3), "float32"), verbose=0)
    np.testing.assert_allclose(history.history["loss"], [0.01 * np.mean(x)], rtol=1e-5)
    assert abs(model.evaluate(x, np.zeros((2, 3), "float32"), verbose=0) - 0.0035) < 1e-6


def test_compile_without_a_loss_and_no_add_loss_refused_at_fit():
    # Keras 3 raises ValueError "No loss to compute. Provide a `loss` argument in `compile()`."
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="adam")
    with pytest.raises(ValueError, match="loss"):
        model.fit(np.ones((2, 3), "float32"), np.ones((2, 1), "float32"), verbose=0)

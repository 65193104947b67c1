"""Behaviours Keras's developer guides on callbacks, training steps and subclassing rely on,
each checked against Keras 3 (TensorFlow 2.21) as measured under it."""

import numpy as np

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

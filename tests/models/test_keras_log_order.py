"""Logs by name come sorted, as Keras 3 hands them to callbacks and returns them; lists of
values keep the metrics' order. The orders below were printed by Keras 3.15 for the same
model."""

import numpy as np

from runtime import keras


def _model():
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile("adam", "mse", metrics=["mae", "accuracy"])
    return model


def test_history_evaluate_and_train_on_batch_dicts_are_sorted():
    x, y = np.ones((4, 2)), np.ones((4, 1))
    model = _model()
    history = model.fit(x, y, verbose=0, validation_data=(x, y))
    assert list(history.history) == ["accuracy", "loss", "mae", "val_accuracy", "val_loss",
                                     "val_mae"]
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(logs) == ["accuracy", "loss", "mae"]
    values = model.evaluate(x, y, verbose=0)  # the list: loss, then the metrics in order
    assert values == [logs["loss"], logs["mae"], logs["accuracy"]]
    assert list(model.train_on_batch(x, y, return_dict=True)) == ["accuracy", "loss", "mae"]


def test_callbacks_see_sorted_logs():
    seen = []

    class Record(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(("batch", list(logs)))

        def on_epoch_end(self, epoch, logs=None):
            seen.append(("epoch", list(logs)))

        def on_test_end(self, logs=None):
            seen.append(("test", list(logs)))

    x, y = np.ones((4, 2)), np.ones((4, 1))
    _model().fit(x, y, batch_size=4, verbose=0, validation_data=(x, y), callbacks=[Record()])
    assert seen == [("batch", ["accuracy", "loss", "mae"]),
                    ("test", ["accuracy", "loss", "mae"]),
                    ("epoch", ["accuracy", "loss", "mae", "val_accuracy", "val_loss",
                               "val_mae"])]


def test_logged_means_are_float32_values_as_keras_gives_them():
    model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid",
                                                 kernel_initializer="zeros")])
    model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    x, y = np.ones((10, 2)), np.array([1, 0] * 5)[:, None]
    # Keras 3.15 prints {'accuracy': 0.5, 'loss': 0.6931471824645996}: float32 results
    assert model.evaluate(x, y, verbose=0, return_dict=True, batch_size=3) == \
        {"accuracy": 0.5, "loss": 0.6931471824645996}

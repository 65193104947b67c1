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


class _OwnSteps(keras.Model):
    """A train_step returning nested dicts, in an order that is not sorted."""

    def train_step(self, data):
        return {"b": {"z": 1.0}, "c": 2.0, "a": {"y": 3.0, "x": 4.0}}

    def test_step(self, data):
        return {"zeta": 1.0, "alpha": 2.0, "loss": 3.0}


def test_own_step_logs_come_in_keras_order(capsys):
    # Keras 3.15 (pythonify_logs): the step's top-level names sorted, a nested dict's
    # names (sorted) at its key's place: x, y (from "a"), z (from "b"), then c
    inputs = keras.Input((2,))
    model = _OwnSteps(inputs, keras.layers.Dense(1)(inputs))
    model.compile("sgd", "mse")
    seen = []

    class Record(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(list(logs))

    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    history = model.fit(x, y, verbose=2, callbacks=[Record()], validation_data=(x, y))
    assert seen[0] == ["x", "y", "z", "c"]
    assert list(history.history) == ["x", "y", "z", "c", "val_alpha", "val_loss", "val_zeta"]
    line = capsys.readouterr().out.splitlines()[-1]
    assert [part.split(":")[0] for part in line.split(" - ")[3:]] == list(history.history)
    assert model.evaluate(x, y, verbose=0) == [3.0, 2.0, 1.0]   # loss first, then sorted


def test_metrics_names_are_keras_3s():
    # Keras 3.15: [] before compile; "compile_metrics" stands for the compiled metrics
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    assert model.metrics_names == []
    model.compile("sgd", "mse")
    assert model.metrics_names == ["loss"]
    model.compile("sgd", "mse", metrics=["mae", "mse"])
    assert model.metrics_names == ["loss", "compile_metrics"]
    assert model.metrics_names == [m.name for m in model.metrics]
    model.compile("sgd", "mse", metrics=[])
    assert model.metrics_names == ["loss", "compile_metrics"]
    model.compile("sgd", "mse", weighted_metrics=["mae"])
    assert model.metrics_names == ["loss", "compile_metrics"]


def test_metrics_names_of_several_outputs_after_fit():
    inputs = keras.Input((2,))
    model = keras.Model(inputs, {"a": keras.layers.Dense(1, name="a")(inputs),
                                 "b": keras.layers.Dense(1, name="b")(inputs)})
    model.compile("sgd", loss={"a": "mse", "b": "mae"})
    assert model.metrics_names == ["loss"]
    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    history = model.fit(x, {"a": y, "b": y}, verbose=0)
    assert model.metrics_names == ["loss", "a_loss", "b_loss"]
    assert list(history.history) == ["a_loss", "b_loss", "loss"]


def test_metrics_names_list_layer_metrics_and_a_subclass_metrics_property():
    # Keras 3.15: metrics held by layers follow the compiled ones; a subclass's own
    # `metrics` property gives the names
    class Counting(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.seen = keras.metrics.Mean(name="mymean")

        def call(self, x):
            return x

    model = keras.Sequential([keras.Input((2,)), Counting(), keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    assert model.metrics_names == ["loss", "compile_metrics", "mymean"]

    class Own(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.tracker = keras.metrics.Mean(name="total")

        @property
        def metrics(self):
            return [self.tracker]

    inputs = keras.Input((2,))
    own = Own(inputs, keras.layers.Dense(1)(inputs))
    own.compile("sgd", "mse")
    assert own.metrics_names == ["total"]

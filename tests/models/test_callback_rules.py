"""Callbacks as Keras 3 defines them: strict keywords, EarlyStopping's patience, baseline and
start epoch, ReduceLROnPlateau's schedule, CSVLogger's file. The expected epochs and rates were
produced by TensorFlow 2.21 / Keras 3.15 driving its own callbacks with the same scripted logs
(recorded here as numbers: the test does not need TensorFlow)."""

import csv

import numpy as np
import pytest

import runtime as rt
from runtime import keras

LOSSES = [5, 4, 4.5, 4.2, 3.9, 4.0, 4.1, 4.1, 4.2, 3.0, 3.5, 3.6, 3.7]


class _Optimizer:
    learning_rate = 0.1


class _Model:
    """What a callback touches: the optimizer, stop_training and the weights."""

    def __init__(self):
        self.optimizer, self.stop_training, self.epoch, self.restored = _Optimizer(), False, 0, None

    def get_weights(self):
        return [self.epoch]

    def set_weights(self, weights):
        self.restored = weights


def _drive(callback, losses):
    """(last epoch run, learning rate after each epoch, restored weights)."""
    model = _Model()
    callback.set_model(model)
    callback.on_train_begin({})
    rates = []
    for epoch, loss in enumerate(losses):
        model.epoch = epoch
        callback.on_epoch_end(epoch, {"loss": loss})
        rates.append(round(float(model.optimizer.learning_rate), 6))
        if model.stop_training:
            break
    callback.on_train_end({})
    return epoch, rates, model.restored


@pytest.mark.parametrize("kwargs, losses, last_epoch, restored", [
    (dict(patience=2), LOSSES, 3, None),
    (dict(patience=2, restore_best_weights=True), LOSSES, 3, [1]),
    (dict(patience=1, min_delta=0.5), LOSSES, 2, None),
    (dict(patience=2, baseline=3.0), [5, 5, 5, 5], 1, None),
    (dict(patience=2, start_from_epoch=3), [5, 6, 7, 8, 8, 8, 8], 5, None),
    (dict(patience=0), [5, 5, 5], 1, None),
])
def test_early_stopping_stops_where_keras_does(kwargs, losses, last_epoch, restored):
    stop = keras.callbacks.EarlyStopping(monitor="loss", **kwargs)
    assert _drive(stop, losses)[0::2] == (last_epoch, restored)


def test_early_stopping_restores_the_best_weights_even_without_stopping():
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=5, restore_best_weights=True)
    assert _drive(stop, [3.0, 1.0, 2.0]) == (2, [0.1] * 3, [1])


def test_early_stopping_in_fit_runs_patience_epochs_without_improvement():
    x = np.ones((8, 2), np.float32)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.0), "mse")       # the loss never improves
    for patience, epochs in ((0, 2), (1, 2), (2, 3), (3, 4)):   # TensorFlow's counts
        stop = keras.callbacks.EarlyStopping(monitor="loss", patience=patience)
        history = model.fit(x, x[:, :1], epochs=10, verbose=0, callbacks=[stop])
        assert len(history.history["loss"]) == epochs, patience


@pytest.mark.parametrize("kwargs, rates", [
    (dict(patience=2, factor=0.5),
     [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.00625, 0.00625]),
    (dict(patience=1, factor=0.5, cooldown=2, min_lr=0.02),
     [0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02]),
    (dict(patience=1, factor=0.5, min_delta=0.5, mode="min"),
     [0.1, 0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125, 0.001563, 0.000781, 0.000781,
      0.000391, 0.000195, 9.8e-05]),
])
def test_reduce_lr_on_plateau_follows_keras_schedule(kwargs, rates):
    assert _drive(keras.callbacks.ReduceLROnPlateau(monitor="loss", **kwargs), LOSSES)[1] == rates


def test_reduce_lr_on_plateau_in_fit_sets_the_rate_and_logs_it():
    x = np.ones((8, 2), np.float32)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    optimizer = keras.optimizers.SGD(0.0)
    model.compile(optimizer, "mse")
    reduce = keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5)
    history = model.fit(x, x[:, :1], epochs=3, verbose=0, callbacks=[reduce])
    assert history.history["learning_rate"] == [0.0, 0.0, 0.0]  # 0 is at min_lr: unchanged
    optimizer.learning_rate = 1e-9                                # tiny: the loss stays put
    history = model.fit(x, x[:, :1], epochs=3, verbose=0, callbacks=[reduce])
    # logged before the epoch's reduction: reduced after epoch 1 (patience 1), then again
    assert history.history["learning_rate"] == pytest.approx([1e-9, 1e-9, 5e-10])
    assert float(optimizer.learning_rate) == pytest.approx(2.5e-10)
    with pytest.raises(ValueError, match="factor >= 1.0"):
        keras.callbacks.ReduceLROnPlateau(factor=2.0)


def test_csv_logger_writes_an_epoch_row_with_sorted_columns(tmp_path):
    x = np.random.default_rng(0).normal(size=(16, 2)).astype(np.float32)
    y = x.sum(1, keepdims=True)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    path = tmp_path / "log.csv"
    history = model.fit(x, y, epochs=2, verbose=0, validation_data=(x, y),
                        callbacks=[keras.callbacks.CSVLogger(path)])
    rows = list(csv.reader(path.open()))
    assert rows[0] == ["epoch", "loss", "mae", "val_loss", "val_mae"]
    for epoch, row in enumerate(rows[1:]):
        assert int(row[0]) == epoch
        for key, value in zip(rows[0][1:], row[1:]):
            assert float(value) == pytest.approx(history.history[key][epoch], rel=1e-6)
    model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.CSVLogger(path, append=True)])
    rows = list(csv.reader(path.open()))
    assert len(rows) == 4 and rows[0][0] == "epoch" and rows[3][0] == "0"  # no second header
    model.fit(x, y, epochs=1, verbose=0,
              callbacks=[keras.callbacks.CSVLogger(path, separator=";")])
    assert path.read_text().splitlines()[0] == "epoch;loss;mae;val_loss;val_mae"


@pytest.mark.parametrize("make, typo, meant", [
    (lambda **k: keras.callbacks.EarlyStopping(**k), "paitence", "patience"),
    (lambda **k: keras.callbacks.EarlyStopping(**k), "restore_best_weight", "restore_best_weights"),
    (lambda **k: keras.callbacks.ModelCheckpoint("m.keras", **k), "save_best_onl",
     "save_best_only"),
    (lambda **k: keras.callbacks.LearningRateScheduler(lambda e, r: r, **k), "verbos",
     "verbose"),
    (lambda **k: keras.callbacks.LambdaCallback(**k), "on_epoch_ends", "on_epoch_end"),
    (lambda **k: keras.callbacks.ReduceLROnPlateau(**k), "min_lr_", "min_lr"),
    (lambda **k: keras.callbacks.CSVLogger("log.csv", **k), "seperator", "separator"),
    (lambda **k: rt.callbacks.EarlyStopping(**k), "monitr", "monitor"),
])
def test_callbacks_reject_misspelt_keywords_with_a_suggestion(make, typo, meant):
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{typo}'; did you mean "
                                        f"'{meant}'"):
        make(**{typo: 1})


@pytest.mark.parametrize("make", [
    lambda: keras.callbacks.EarlyStopping(mode="maximum"),
    lambda: keras.callbacks.ModelCheckpoint("m.keras", mode="best"),
    lambda: keras.callbacks.ReduceLROnPlateau(mode="up"),
])
def test_an_unknown_mode_is_a_value_error_naming_the_modes(make):
    with pytest.raises(ValueError, match="'auto', 'min' or 'max'"):
        make()


def test_auto_mode_maximizes_accuracy_auc_precision_and_recall():
    for monitor, up in (("val_accuracy", True), ("auc", True), ("val_precision", True),
                        ("recall", True), ("val_loss", False), ("mae", False)):
        assert keras.callbacks.EarlyStopping(monitor=monitor).maximize is up, monitor


@pytest.mark.parametrize("schedule, rates", [
    (lambda epoch, rate: rate * 0.5, [0.05, 0.025, 0.0125]),          # from SGD's 0.1
    (lambda epoch: 0.1 / (epoch + 1), [0.1, 0.05, 0.1 / 3]),          # Keras's older form
])
def test_learning_rate_scheduler_sets_each_epochs_rate_and_logs_it(schedule, rates):
    x = np.ones((8, 2), np.float32)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    optimizer = keras.optimizers.SGD(0.1)
    model.compile(optimizer, "mse")
    history = model.fit(x, x[:, :1], epochs=3, verbose=0,
                        callbacks=[keras.callbacks.LearningRateScheduler(schedule)])
    assert history.history["learning_rate"] == pytest.approx(rates)
    assert float(optimizer.learning_rate) == pytest.approx(rates[-1])
    with pytest.raises(ValueError, match="must return a float"):
        model.fit(x, x[:, :1], epochs=1, verbose=0,
                  callbacks=[keras.callbacks.LearningRateScheduler(lambda e, r: "fast")])


class _Recorder(keras.callbacks.Callback):
    """Records the hooks Keras documents, in order (`on_batch_end` is the older name of
    `on_train_batch_end`: overriding it must be enough)."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_batch_begin(self, batch, logs=None):
        self.seen.append(("train_batch_begin", batch))

    def on_batch_end(self, batch, logs=None):
        self.seen.append(("batch_end", batch, sorted(logs)))

    def on_test_begin(self, logs=None):
        self.seen.append(("test_begin",))

    def on_test_batch_end(self, batch, logs=None):
        self.seen.append(("test_batch_end", batch))

    def on_test_end(self, logs=None):
        self.seen.append(("test_end", sorted(logs)))

    def on_predict_batch_end(self, batch, logs=None):
        self.seen.append(("predict_batch_end", batch, np.asarray(logs["outputs"]).shape))

    def on_predict_end(self, logs=None):
        self.seen.append(("predict_end",))


def test_fit_evaluate_and_predict_call_keras_hooks_in_order():
    x = np.ones((6, 2), np.float32)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    recorder = _Recorder()
    model.fit(x, x[:, :1], epochs=1, batch_size=4, verbose=0, validation_data=(x, x[:, :1]),
              callbacks=[recorder])
    assert recorder.params == {"verbose": 0, "epochs": 1, "steps": 2}
    assert recorder.seen == [("train_batch_begin", 0), ("batch_end", 0, ["loss", "mae"]),
                             ("train_batch_begin", 1), ("batch_end", 1, ["loss", "mae"]),
                             ("test_begin",), ("test_batch_end", 0), ("test_batch_end", 1),
                             ("test_end", ["loss", "mae"])]
    recorder.seen.clear()
    model.evaluate(x, x[:, :1], batch_size=6, callbacks=[recorder])
    assert recorder.seen == [("test_begin",), ("test_batch_end", 0), ("test_end", ["loss", "mae"])]
    recorder.seen.clear()
    model.predict(x, batch_size=4, callbacks=[recorder])
    assert recorder.seen == [("predict_batch_end", 0, (4, 1)), ("predict_batch_end", 1, (2, 1)),
                             ("predict_end",)]


def test_lambda_callback_takes_every_hook_by_name():
    seen = []
    callback = keras.callbacks.LambdaCallback(
        on_train_batch_begin=lambda batch, logs: seen.append(("batch", batch)),
        on_test_end=lambda logs: seen.append(("test_end", round(logs["loss"], 6))))
    x = np.zeros((4, 2), np.float32)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x, x[:, :1], epochs=1, batch_size=2, verbose=0, callbacks=[callback],
              validation_data=(x, x[:, :1]))
    assert seen[:2] == [("batch", 0), ("batch", 1)] and seen[2][0] == "test_end"
    with pytest.raises(TypeError, match="did you mean 'on_test_end'"):
        keras.callbacks.LambdaCallback(on_test_ends=print)

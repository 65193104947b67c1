"""keras.callbacks.CallbackList: Keras 3's container of callbacks for loops of your own."""

import numpy as np
import pytest

import runtime as rt

keras = rt.keras


class Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_begin(self, logs=None):
        self.seen.append(("train_begin", self.params))

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append(("epoch_end", epoch, dict(logs or {})))


def test_a_callback_list_calls_every_callback_in_order():
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    first, second = Recorder(), Recorder()
    callbacks = keras.callbacks.CallbackList([first, second], add_history=True, model=model,
                                             epochs=2, verbose=0)
    assert len(callbacks) == 3 and isinstance(list(callbacks)[-1], keras.callbacks.History)
    assert first.model is model and first.params == {"epochs": 2, "verbose": 0}
    callbacks.on_train_begin()
    for epoch in range(2):
        callbacks.on_epoch_begin(epoch)
        callbacks.on_epoch_end(epoch, {"loss": 1.0 / (epoch + 1)})
    callbacks.on_train_end()
    for recorder in (first, second):
        assert recorder.seen == [("train_begin", {"epochs": 2, "verbose": 0}),
                                 ("epoch_end", 0, {"loss": 1.0}), ("epoch_end", 1, {"loss": 0.5})]
    history = list(callbacks)[-1]
    assert history.history["loss"] == [1.0, 0.5]
    with pytest.raises(TypeError, match="Callback objects"):
        keras.callbacks.CallbackList([object()])


def test_fit_takes_a_callback_list():
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    recorder = Recorder()
    model.fit(np.ones((4, 1), "float32"), np.ones((4, 1), "float32"), epochs=2, verbose=0,
              callbacks=keras.callbacks.CallbackList([recorder]))
    assert [entry[0] for entry in recorder.seen] == ["train_begin", "epoch_end", "epoch_end"]

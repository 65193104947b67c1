"""Keras-style training: compile, fit, evaluate, predict, History and callbacks."""

import io

import numpy as np
import pytest

import runtime as rt
from runtime.layers.progress import EpochProgress


def _blobs(n=120, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    centers = np.array([[2.0, 0.0], [-2.0, 1.0], [0.0, -2.0]])
    x = centers[labels] + 0.5 * rng.normal(size=(n, 2))
    return x.astype(np.float32), labels.astype(np.int32)


def _classifier():
    rt.random.set_seed(0)
    return rt.layers.Sequential([rt.layers.Dense(16, activation="relu"),
                                 rt.layers.Dense(3, activation="softmax")])


def test_fit_lowers_the_loss_and_fills_the_history():
    x, y = _blobs()
    model = _classifier()
    model.compile(rt.optimizers.Adam(0.05), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, epochs=8, batch_size=32, validation_data=(x[:40], y[:40]),
                        verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert all(len(v) == 8 for v in history.history.values())
    assert history.epoch == list(range(8))
    losses = history.history["loss"]
    assert losses[-1] < losses[0] / 3, losses
    assert history.history["accuracy"][-1] > 0.9
    assert model._train_step.experimental_get_tracing_count() <= 2  # full and last batch


def test_evaluate_and_predict_agree_with_numpy():
    x, y = _blobs(50, seed=1)
    model = _classifier()
    def confidence(y_true, y_pred):
        return rt.reduce_mean(rt.reduce_max(y_pred, axis=-1))

    model.compile(rt.optimizers.SGD(0.1), "sparse_categorical_crossentropy",
                  metrics=["accuracy", confidence])
    assert model.metrics_names == ["loss", "compile_metrics"]   # Keras 3's
    model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    probabilities = model.predict(x, batch_size=16)
    kernel1, bias1, kernel2, bias2 = model.get_weights()
    hidden = np.maximum(x @ kernel1 + bias1, 0)
    logits = hidden @ kernel2 + bias2
    expected = np.exp(logits - logits.max(1, keepdims=True))
    expected /= expected.sum(1, keepdims=True)
    np.testing.assert_allclose(probabilities, expected, rtol=1e-4, atol=1e-6)
    loss, accuracy, mean_confidence = model.evaluate(x, y, batch_size=16)
    p = np.clip(expected, 1e-7, 1 - 1e-7)
    assert loss == pytest.approx(-np.mean(np.log(p[np.arange(len(y)), y])), rel=1e-4)
    assert accuracy == pytest.approx(np.mean(expected.argmax(1) == y))
    assert mean_confidence == pytest.approx(np.mean(expected.max(1)), rel=1e-4)
    assert model.evaluate(x, y, return_dict=True)["loss"] == pytest.approx(loss, rel=1e-5)


@pytest.mark.parametrize("loss, target, reference", [
    ("mse", lambda y: y, lambda p, y: np.mean((p - y) ** 2)),
    ("binary_crossentropy", lambda y: (y > 0).astype(np.float32),
     lambda p, y: -np.mean(y * np.log(np.clip(p, 1e-7, 1)) + (1 - y) * np.log(np.clip(1 - p, 1e-7, 1)))),
    ("categorical_crossentropy", lambda y: np.eye(3, dtype=np.float32)[(y > 0).ravel().astype(int)],
     lambda p, y: -np.mean(np.sum(y * np.log(np.clip(p, 1e-7, 1)), -1))),
])
def test_named_losses_match_numpy(loss, target, reference):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(20, 4)).astype(np.float32)
    y = target(x[:, :1])
    units, activation = (3, "softmax") if loss == "categorical_crossentropy" else \
        (1, "sigmoid" if loss == "binary_crossentropy" else None)
    model = rt.layers.Sequential([rt.layers.Dense(units, activation=activation)])
    model.compile(rt.optimizers.SGD(0.0), loss)
    assert model.evaluate(x, y, batch_size=20) == pytest.approx(
        reference(model.predict(x), y), rel=1e-4)


def test_regression_with_a_callable_loss_and_float64_data():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (64, 3))
    y = x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3
    model = rt.layers.Sequential([rt.layers.Dense(1)])
    model.compile(rt.optimizers.Adam(0.1), lambda t, p: rt.reduce_mean(rt.abs(t - p)),
                  metrics=["mae"])
    history = model.fit(x, y, epochs=20, batch_size=16, verbose=0, shuffle=False)
    assert history.history["loss"][-1] < history.history["loss"][0] / 4
    assert history.history["mae"] == pytest.approx(history.history["loss"])
    assert model.evaluate(x, y)[1] == pytest.approx(
        np.mean(np.abs(model.predict(x) - y)), rel=1e-4)


def test_early_stopping_and_callback_hooks():
    x, y = _blobs(60)
    model = _classifier()
    model.compile(rt.optimizers.SGD(0.0), "sparse_categorical_crossentropy")
    seen = []

    class Record(rt.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            seen.append(("begin", epoch))

        def on_train_batch_end(self, batch, logs=None):
            seen.append(("batch", batch, sorted(logs)))

        def on_epoch_end(self, epoch, logs=None):
            seen.append(("end", epoch))

    stop = rt.callbacks.EarlyStopping(monitor="loss", patience=1)
    history = model.fit(x, y, epochs=10, batch_size=30, callbacks=[Record(), stop], verbose=0,
                        shuffle=False)
    assert len(history.history["loss"]) == 2       # no improvement at learning rate 0
    assert stop.stopped_epoch == 1 and model.stop_training  # Keras: after `patience` epochs
    assert seen[:4] == [("begin", 0), ("batch", 0, ["loss"]), ("batch", 1, ["loss"]), ("end", 0)]


def test_uncompiled_model_and_unknown_names_are_explained():
    model = _classifier()
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(np.zeros((2, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="unknown loss 'msee'"):
        model.compile(rt.optimizers.SGD(), "msee")
    with pytest.raises(ValueError, match="unknown metric"):
        model.compile(rt.optimizers.SGD(), "mse", metrics=["nope"])


def test_progress_lines_without_a_terminal():
    out = io.StringIO()
    progress = EpochProgress(0, 3, 4, verbose=1, stream=out)
    progress.batch_done({"accuracy": 0.5, "loss": 1.0})   # fit's logs come sorted by name
    progress.epoch_done({"accuracy": 0.75, "loss": 0.5})
    # Keras 3: "Epoch 1/3" then "4/4 ━━━━━━━━━━━━━━━━━━━━ 0s 3ms/step - accuracy: ... - loss: ..."
    assert out.getvalue().startswith("Epoch 1/3\n4/4 " + "━" * 20 + " ")
    assert out.getvalue().endswith("/step - accuracy: 0.7500 - loss: 0.5000\n")
    silent = io.StringIO()
    EpochProgress(0, 3, 4, verbose=0, stream=silent).epoch_done({"loss": 0.5})
    assert silent.getvalue() == ""


def test_progress_bar_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    progress = EpochProgress(1, 2, 3, verbose=1, stream=out)
    for _ in range(3):
        progress.batch_done({"loss": 0.25})
    progress.epoch_done({"loss": 0.25})
    assert "Epoch 2/2" in out.getvalue() and "3/3" in out.getvalue()
    assert "loss: 0.2500" in out.getvalue()


def test_history_plot():
    history = rt.callbacks.History()
    history.on_epoch_end(0, {"loss": 1.0})
    history.on_epoch_end(1, {"loss": 0.5})
    try:
        import matplotlib
    except ImportError:
        with pytest.raises(ImportError, match="matplotlib"):
            history.plot()
        return
    matplotlib.use("Agg")
    (ax,) = history.plot()
    assert list(ax.lines[0].get_ydata()) == [1.0, 0.5]


def test_summary_prints_or_returns():
    model = _classifier()
    model(np.zeros((1, 2), np.float32))
    printed = []
    assert model.summary(print_fn=printed.append) is None
    assert printed == [model.summary(print_fn=None)]

"""`Model.compile` conveniences as Keras 3 has them: optimizer names, "accuracy" resolved from
the shapes of labels and predictions, metric names. Oracles: Keras 3's documented defaults and
rules, and the same numbers computed in NumPy from the model's weights."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

# Keras 3's documented constructor defaults (keras.io/api/optimizers).
KERAS_DEFAULTS = {
    "adam": ("Adam", {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}),
    "sgd": ("SGD", {"learning_rate": 0.01, "momentum": 0.0, "nesterov": False}),
    "rmsprop": ("RMSprop", {"learning_rate": 0.001, "rho": 0.9, "momentum": 0.0,
                            "epsilon": 1e-7}),
    "adamw": ("AdamW", {"learning_rate": 0.001, "weight_decay": 0.004}),
    "adagrad": ("Adagrad", {"learning_rate": 0.001, "initial_accumulator_value": 0.1,
                            "epsilon": 1e-7}),
}


def _dense(units, activation=None, input_shape=(4,)):
    rt.random.set_seed(0)
    return keras.Sequential([keras.Input(input_shape), keras.layers.Dense(units,
                                                                           activation=activation)])


@pytest.mark.parametrize("spelling", ["adam", "Adam", "ADAM", "sgd", "SGD", "rmsprop",
                                      "RMSprop", "adamw", "AdamW", "adagrad", "Adagrad"])
def test_optimizer_names_give_keras_default_optimizers(spelling):
    model = _dense(1)
    model.compile(optimizer=spelling, loss="mse")
    class_name, defaults = KERAS_DEFAULTS[spelling.lower()]
    assert type(model.optimizer).__name__ == class_name
    config = model.optimizer.get_config()
    for key, value in defaults.items():
        assert config[key] == pytest.approx(value), key
    assert type(keras.optimizers.get(spelling)).__name__ == class_name


def test_each_compile_gets_its_own_optimizer():
    first, second = _dense(1), _dense(1)
    first.compile("adam", "mse")
    second.compile("adam", "mse")
    assert first.optimizer is not second.optimizer


def test_fit_with_sgd_by_name_takes_the_numpy_sgd_step():
    x = np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)
    y = np.random.default_rng(1).normal(size=(8, 1)).astype(np.float32)
    model = _dense(1)
    kernel, bias = model.get_weights()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
    error = x @ kernel + bias - y                      # d mean(e^2) / d e = 2 e / n
    grad_kernel = x.T @ (2 * error / len(x))
    grad_bias = (2 * error / len(x)).sum(0)
    new_kernel, new_bias = model.get_weights()
    np.testing.assert_allclose(new_kernel, kernel - 0.01 * grad_kernel, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(new_bias, bias - 0.01 * grad_bias, rtol=1e-5, atol=1e-7)
    assert int(model.optimizer.iterations.numpy()) == 1


def test_fit_with_adam_by_name_trains():
    x = np.random.default_rng(0).normal(size=(64, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32)).astype(np.float32)
    model = _dense(1)
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert history.history["loss"][-1] < history.history["loss"][0]


@pytest.mark.parametrize("name", ["adamm", "sgdd", "gradient_descent"])
def test_an_unknown_optimizer_name_fails_at_compile_naming_it(name):
    model = _dense(1)
    with pytest.raises(ValueError, match=rf"'{name}'.*'adam'.*'sgd'"):
        model.compile(optimizer=name, loss="mse")
    with pytest.raises(ValueError, match=name):
        keras.optimizers.get(name)


@pytest.mark.parametrize("name", ["adadelta", "adafactor", "adagrad", "adam", "adamw", "adamax",
                                  "ftrl", "lion", "muon", "nadam", "rmsprop", "sgd"])
def test_every_optimizer_name_of_keras_3_gives_its_optimizer(name):
    model = _dense(1)
    model.compile(optimizer=name, loss="mse")
    assert type(model.optimizer).__name__.lower() == name


def test_optimizer_of_another_type_is_a_value_error_as_in_keras():
    with pytest.raises(ValueError, match="optimizer identifier 3"):
        _dense(1).compile(optimizer=3, loss="mse")
    with pytest.raises(ValueError, match=r"the class Adam; call it: Adam\(\)"):
        _dense(1).compile(optimizer=keras.optimizers.Adam, loss="mse")
    assert keras.optimizers.get(None) is None
    adam = keras.optimizers.Adam(0.5)
    assert keras.optimizers.get(adam) is adam
    restored = keras.optimizers.get({"class_name": "adam", "config": {"learning_rate": 0.25}})
    assert type(restored).__name__ == "Adam" and float(restored.learning_rate) == 0.25


# -- "accuracy" -------------------------------------------------------------------------------

def _keras_accuracy(y_true, y_pred):
    """Keras 3's rule (trainers/compile_utils.is_binary_or_sparse_categorical) in NumPy."""
    if y_pred.shape[-1] == 1:
        labels = y_true.reshape(y_pred.shape)
        return np.mean((y_pred > 0.5) == (labels > 0.5))
    if y_true.ndim < y_pred.ndim or (y_true.shape[-1] == 1 and y_pred.shape[-1] > 1):
        return np.mean(y_pred.argmax(-1) == y_true.reshape(y_pred.shape[:-1]))
    return np.mean(y_pred.argmax(-1) == y_true.argmax(-1))


_rng = np.random.default_rng(7)
X2 = _rng.normal(size=(50, 4)).astype(np.float32)
X3 = _rng.normal(size=(12, 5, 4)).astype(np.float32)
LABELS2 = _rng.integers(0, 3, 50).astype(np.int32)
LABELS3 = _rng.integers(0, 3, (12, 5)).astype(np.int32)
BINARY = (_rng.random(50) > 0.5).astype(np.float32)
MULTI = (_rng.random((50, 3)) > 0.5).astype(np.float32)

CASES = {
    "sparse string": (X2, LABELS2, 3, "softmax", lambda: "sparse_categorical_crossentropy"),
    "sparse object": (X2, LABELS2, 3, "softmax",
                      lambda: keras.losses.SparseCategoricalCrossentropy()),
    "sparse function": (X2, LABELS2, 3, "softmax",
                        lambda: keras.losses.sparse_categorical_crossentropy),
    "sparse labels (N, 1)": (X2, LABELS2[:, None], 3, "softmax",
                             lambda: keras.losses.SparseCategoricalCrossentropy()),
    "sparse logits": (X2, LABELS2, 3, None,
                      lambda: keras.losses.SparseCategoricalCrossentropy(from_logits=True)),
    "binary object": (X2, BINARY, 1, "sigmoid", lambda: keras.losses.BinaryCrossentropy()),
    "binary (N, 1) labels": (X2, BINARY[:, None], 1, "sigmoid",
                             lambda: keras.losses.binary_crossentropy),
    "categorical object": (X2, np.eye(3, dtype=np.float32)[LABELS2], 3, "softmax",
                           lambda: keras.losses.CategoricalCrossentropy()),
    "categorical custom loss": (X2, np.eye(3, dtype=np.float32)[LABELS2], 3, "softmax",
                                lambda: (lambda t, p: rt.reduce_mean(rt.square(t - p)))),
    "multi-label binary": (X2, MULTI, 3, "sigmoid", lambda: keras.losses.BinaryCrossentropy()),
    "per-timestep sparse": (X3, LABELS3, 3, "softmax",
                            lambda: keras.losses.SparseCategoricalCrossentropy()),
    "per-timestep sparse string": (X3, LABELS3, 3, "softmax",
                                   lambda: "sparse_categorical_crossentropy"),
    "per-timestep sparse function": (X3, LABELS3, 3, "softmax",
                                     lambda: keras.losses.sparse_categorical_crossentropy),
    "per-timestep one-hot": (X3, np.eye(3, dtype=np.float32)[LABELS3], 3, "softmax",
                             lambda: "categorical_crossentropy"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", ["accuracy", "acc"])
def test_accuracy_resolves_from_the_shapes_as_keras_3(case, name):
    x, y, units, activation, loss = CASES[case]
    model = _dense(units, activation, x.shape[1:])
    model.compile(optimizer="sgd", loss=loss(), metrics=[name])
    history = model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    assert set(history.history) == {"loss", name}       # Keras names it as it was given
    result = model.evaluate(x, y, batch_size=16, return_dict=True)
    expected = _keras_accuracy(y, model.predict(x, batch_size=16))
    assert result[name] == pytest.approx(expected, abs=1e-6)


def test_per_timestep_sparse_loss_by_name_matches_numpy():
    model = _dense(3, "softmax", X3.shape[1:])
    model.compile("adam", "sparse_categorical_crossentropy")
    p = model.predict(X3)
    expected = np.mean(-np.log(np.take_along_axis(p, LABELS3[..., None], -1)))
    assert model.evaluate(X3, LABELS3, batch_size=4) == pytest.approx(expected, rel=1e-5)


def test_keras_metric_names_in_compile_match_numpy():
    x, y = X2, BINARY[:, None]
    model = _dense(1, "sigmoid")
    model.compile(optimizer="sgd", loss="binary_crossentropy",
                  metrics=["mse", "mae", "bce", "root_mean_squared_error", "binary_accuracy",
                           "precision", "recall", "auc"])
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    result = model.evaluate(x, y, batch_size=16, return_dict=True)
    p = model.predict(x, batch_size=16)
    clipped = np.clip(p, 1e-7, 1 - 1e-7)
    positive = p > 0.5
    expected = {
        "mse": np.mean((p - y) ** 2), "mae": np.mean(np.abs(p - y)),
        "bce": np.mean(-(y * np.log(clipped) + (1 - y) * np.log(1 - clipped))),
        "root_mean_squared_error": np.sqrt(np.mean((p - y) ** 2)),
        "binary_accuracy": np.mean(positive == (y > 0.5)),
        "precision": np.sum(positive & (y > 0)) / max(np.sum(positive), 1),
        "recall": np.sum(positive & (y > 0)) / np.sum(y > 0),
    }
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, rel=1e-4, abs=1e-6), key
    assert 0.0 <= result["auc"] <= 1.0
    assert model.metrics_names == ["loss", "compile_metrics"]   # Keras 3's
    assert sorted(result) == sorted(["loss", "mse", "mae", "bce", "root_mean_squared_error",
                                     "binary_accuracy", "precision", "recall", "auc"])


def test_stateful_metrics_from_names_cover_the_whole_pass():
    # RMSE over several batches is sqrt(mean over all samples), not a mean of batch RMSEs.
    x = np.random.default_rng(2).normal(size=(40, 4)).astype(np.float32)
    y = np.random.default_rng(3).normal(size=(40, 1)).astype(np.float32) * 5
    model = _dense(1)
    model.compile(optimizer="sgd", loss="mse", metrics=["root_mean_squared_error"])
    result = model.evaluate(x, y, batch_size=7, return_dict=True)
    p = model.predict(x)
    assert result["root_mean_squared_error"] == pytest.approx(np.sqrt(np.mean((p - y) ** 2)),
                                                              rel=1e-5)


def test_unknown_metric_names_and_shapes_of_metrics_are_explained():
    model = _dense(1)
    with pytest.raises(ValueError, match="unknown metric 'accuracyy'.*'accuracy'"):
        model.compile("sgd", "mse", metrics=["accuracyy"])
    with pytest.raises(ValueError, match="list or tuple of metrics"):
        model.compile("sgd", "mse", metrics="accuracy")
    model.compile("sgd")  # Keras 3 compiles without a loss; fit has nothing to minimize
    with pytest.raises(ValueError, match="loss"):
        model.fit(np.ones((2, 4), np.float32), np.ones((2, 1), np.float32), verbose=0)


def test_metric_functions_and_classes_are_averaged_and_instantiated_as_in_keras():
    keras.backend.clear_session()  # metric names count from zero (Keras's auto_name)
    x, y = X2, BINARY[:, None]
    model = _dense(1, "sigmoid")
    model.compile("sgd", "mse", metrics=[keras.metrics.binary_accuracy,       # per sample
                                         keras.losses.binary_crossentropy,    # per sample
                                         keras.metrics.Precision])            # a class
    result = model.evaluate(x, y, batch_size=16, return_dict=True)
    # Keras 3 returns the logs sorted by name (its pythonify_logs)
    assert list(result) == ["binary_accuracy", "binary_crossentropy", "loss", "precision"]
    p = model.predict(x)
    clipped = np.clip(p, 1e-7, 1 - 1e-7)
    assert result["binary_accuracy"] == pytest.approx(np.mean((p > 0.5) == (y > 0.5)))
    assert result["binary_crossentropy"] == pytest.approx(
        np.mean(-(y * np.log(clipped) + (1 - y) * np.log(1 - clipped))), rel=1e-5)
    positive = p > 0.5
    assert result["precision"] == pytest.approx(
        np.sum(positive & (y > 0)) / max(np.sum(positive), 1), rel=1e-5)


def test_a_model_compiled_with_names_saves_and_loads_compiled(tmp_path):
    x, y = X2, BINARY[:, None]
    model = _dense(1, "sigmoid")
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["acc", "auc"])
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert type(loaded.optimizer).__name__ == "Adam"
    assert loaded.metrics_names == ["loss", "compile_metrics"]
    expected = model.evaluate(x, y, batch_size=16, return_dict=True)
    assert loaded.evaluate(x, y, batch_size=16, return_dict=True) == pytest.approx(expected)


@pytest.mark.parametrize("name", ["huber", "Huber", "log_cosh", "MeanSquaredError",
                                  "mean_squared_logarithmic_error"])
def test_keras_loss_names_compile_and_match_numpy(name):
    x = X2
    y = np.random.default_rng(4).normal(size=(50, 1)).astype(np.float32)
    model = _dense(1)
    model.compile("sgd", name)
    e = model.predict(x) - y
    expected = {
        "huber": np.mean(np.where(np.abs(e) <= 1, 0.5 * e ** 2, np.abs(e) - 0.5)),
        "log_cosh": np.mean(np.log(np.cosh(e))),
        "meansquarederror": np.mean(e ** 2),
        "mean_squared_logarithmic_error": np.mean(
            (np.log1p(np.maximum(model.predict(x), 1e-7)) - np.log1p(np.maximum(y, 1e-7))) ** 2),
    }[name.lower()]
    assert model.evaluate(x, y, batch_size=50) == pytest.approx(expected, rel=1e-4)
    with pytest.raises(ValueError, match="unknown loss 'hubber'"):
        model.compile("sgd", "hubber")


def test_validation_split_holds_out_the_last_samples_before_shuffling():
    x = np.random.default_rng(5).normal(size=(20, 4)).astype(np.float32)
    y = np.random.default_rng(6).normal(size=(20, 1)).astype(np.float32)
    model = _dense(1)
    model.compile(keras.optimizers.SGD(0.0), "mse", metrics=["mae"])   # weights stay put
    history = model.fit(x, y, epochs=2, batch_size=4, validation_split=0.25, verbose=0)
    p = model.predict(x)
    train, held = slice(0, 15), slice(15, None)          # floor(20 * 0.75) = 15, as Keras
    assert history.history["loss"][0] == pytest.approx(np.mean((p[train] - y[train]) ** 2),
                                                       rel=1e-5)
    assert history.history["val_loss"][1] == pytest.approx(np.mean((p[held] - y[held]) ** 2),
                                                           rel=1e-5)
    assert history.history["val_mae"][0] == pytest.approx(np.mean(np.abs(p[held] - y[held])),
                                                           rel=1e-5)
    for bad in (1.0, -0.1, 0.99, "0.2"):             # 0.99 of 20 leaves none to train
        with pytest.raises(ValueError, match="validation_split"):
            model.fit(x, y, validation_split=bad, verbose=0)


def test_initial_epoch_resumes_the_epoch_count():
    x = np.ones((8, 4), np.float32)
    model = _dense(1)
    model.compile("sgd", "mse")
    seen = []
    record = keras.callbacks.LambdaCallback(on_epoch_begin=lambda epoch, logs: seen.append(epoch))
    history = model.fit(x, x[:, :1], epochs=5, initial_epoch=2, verbose=0, callbacks=[record])
    assert history.epoch == [2, 3, 4] and seen == [2, 3, 4]
    assert len(history.history["loss"]) == 3
    with pytest.raises(ValueError, match="initial_epoch"):
        model.fit(x, x[:, :1], initial_epoch=-1, verbose=0)


def test_metrics_of_the_same_name_each_keep_their_own_entry():
    keras.backend.clear_session()  # metric names count from zero (Keras's auto_name)
    x, y = X2, BINARY[:, None]
    model = _dense(1, "sigmoid")
    model.compile("sgd", "mse", metrics=[keras.metrics.Precision(thresholds=0.3),
                                         keras.metrics.Precision(thresholds=0.7)])
    result = model.evaluate(x, y, return_dict=True)
    assert list(result) == ["loss", "precision", "precision_1"]
    p = model.predict(x)
    for key, threshold in (("precision", 0.3), ("precision_1", 0.7)):
        positive = p > threshold
        expected = np.sum(positive & (y > 0)) / max(np.sum(positive), 1)
        assert result[key] == pytest.approx(expected, rel=1e-5), key


# Recorded from TensorFlow 2.21 / Keras 3.15 running the same program (rounded to 4 places).
TF_HISTORIES = {
    "binary, rmsprop by name, validation_split": (
        "rmsprop", "binary_crossentropy", ["acc", "auc", "precision", "recall", "mse"], 0.3,
        {"acc": [0.6, 0.6, 0.6], "auc": [0.4833, 0.4767, 0.4767],
         "loss": [0.6969, 0.6957, 0.6951], "mse": [0.2494, 0.249, 0.2487],
         "precision": [0.6, 0.6, 0.6], "recall": [1.0, 1.0, 1.0],
         "val_acc": [0.3333, 0.3333, 0.3333], "val_auc": [0.3438, 0.3438, 0.3438],
         "val_loss": [0.9266, 0.9231, 0.92], "val_mse": [0.3589, 0.3574, 0.3562],
         "val_precision": [0.3333, 0.3333, 0.3333], "val_recall": [1.0, 1.0, 1.0]}),
    "sparse object, adam by name": (
        "adam", lambda: keras.losses.SparseCategoricalCrossentropy(),
        ["accuracy", "sparse_top_k_categorical_accuracy", "sparse_categorical_crossentropy"], 0.0,
        {"accuracy": [0.3784, 0.4054, 0.3784], "loss": [1.2151, 1.2105, 1.2061],
         "sparse_categorical_crossentropy": [1.2151, 1.2105, 1.2061],
         "sparse_top_k_categorical_accuracy": [1.0, 1.0, 1.0]}),
}


@pytest.mark.parametrize("case", sorted(TF_HISTORIES))
def test_histories_equal_tensorflows(case):
    optimizer, loss, metrics, split, expected = TF_HISTORIES[case]
    rs = np.random.RandomState(0)
    x = rs.rand(37, 4).astype("float32")
    kernel3, bias3 = rs.normal(size=(4, 3)).astype("float32"), rs.normal(size=3).astype("float32")
    kernel1, bias1 = rs.normal(size=(4, 1)).astype("float32"), np.zeros(1, "float32")
    labels, binary = rs.randint(0, 3, 37), (rs.rand(37, 1) > 0.5).astype("float32")
    sparse = "sparse" in case
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(
        3 if sparse else 1, activation="softmax" if sparse else "sigmoid")])
    model.set_weights([kernel3, bias3] if sparse else [kernel1, bias1])
    model.compile(optimizer=optimizer, loss=loss() if callable(loss) else loss, metrics=metrics)
    history = model.fit(x, labels if sparse else binary, epochs=3, batch_size=8, shuffle=False,
                        verbose=0, validation_split=split)
    assert sorted(history.history) == sorted(expected)
    for key, values in expected.items():
        np.testing.assert_allclose(history.history[key], values, atol=2e-4, err_msg=key)

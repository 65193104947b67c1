"""`rt.keras`: every listed name resolves; losses, metrics, optimizers and schedules against
NumPy formulas; callbacks; utils."""

import numpy as np
import pytest

import runtime as rt
import runtime as tf
from runtime import keras

NAMES = {
    "": ["Input", "Model", "Sequential", "layers", "losses", "metrics", "optimizers",
         "initializers", "activations", "callbacks", "models", "saving", "utils", "backend",
         "regularizers"],
    "layers": ["Dense", "Dropout", "Activation", "Flatten", "Layer", "Input", "InputLayer"],
    "losses": ["MeanSquaredError", "MeanAbsoluteError", "BinaryCrossentropy",
               "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "Huber", "MSE", "mse",
               "mean_squared_error", "MAE", "mae", "mean_absolute_error", "binary_crossentropy",
               "categorical_crossentropy", "sparse_categorical_crossentropy", "huber", "get"],
    "metrics": ["Mean", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy",
                "SparseCategoricalAccuracy", "MeanSquaredError", "AUC", "Metric"],
    "optimizers": ["SGD", "Adam", "RMSprop", "Adagrad", "AdamW", "schedules"],
    "callbacks": ["Callback", "EarlyStopping", "ModelCheckpoint", "History", "LambdaCallback"],
    "models": ["Model", "Sequential", "load_model", "clone_model"],
    "saving": ["save_model", "load_model", "register_keras_serializable"],
    "utils": ["to_categorical", "set_random_seed"],
    "backend": ["clear_session", "floatx"],
    "initializers": ["GlorotUniform", "Zeros", "Constant", "get"],
    "activations": ["relu", "sigmoid", "softmax", "get"],
}


@pytest.mark.parametrize("module", sorted(NAMES))
def test_every_listed_name_resolves(module):
    namespace = keras if not module else getattr(keras, module)
    missing = [name for name in NAMES[module] if not hasattr(namespace, name)]
    assert missing == []


def test_import_styles_and_the_layers_of_runtime_layers():
    assert tf.keras is keras and rt.keras.Model is rt.Model and keras.Sequential is rt.layers.Sequential
    assert keras.optimizers.schedules.ExponentialDecay is not None
    for name in rt.layers.__all__:
        assert getattr(keras.layers, name) is getattr(rt.layers, name)


Y_TRUE = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)
Y_PRED = np.array([[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]], np.float32)


def test_loss_functions_are_per_sample_like_keras():
    np.testing.assert_allclose(np.asarray(keras.losses.mse(Y_TRUE, Y_PRED)),
                               np.mean((Y_TRUE - Y_PRED) ** 2, axis=-1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(keras.losses.MAE(Y_TRUE, Y_PRED)),
                               np.mean(np.abs(Y_TRUE - Y_PRED), axis=-1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(keras.losses.categorical_crossentropy(Y_TRUE, Y_PRED)),
                               -np.sum(Y_TRUE * np.log(Y_PRED), axis=-1), rtol=1e-5)
    np.testing.assert_allclose(
        np.asarray(keras.losses.sparse_categorical_crossentropy(np.array([1, 0]), Y_PRED)),
        -np.log([0.7, 0.5]), rtol=1e-5)
    p = np.clip(Y_PRED, 1e-7, 1 - 1e-7)
    bce = -(Y_TRUE * np.log(p) + (1 - Y_TRUE) * np.log(1 - p))
    np.testing.assert_allclose(np.asarray(keras.losses.binary_crossentropy(Y_TRUE, Y_PRED)),
                               bce.mean(axis=-1), rtol=1e-5)


def test_loss_classes_reduce_and_weight():
    error = Y_PRED - Y_TRUE
    per_sample = np.mean(error ** 2, axis=-1)
    assert float(keras.losses.MeanSquaredError()(Y_TRUE, Y_PRED)) == pytest.approx(
        per_sample.mean(), rel=1e-6)
    assert float(keras.losses.MeanSquaredError(reduction="sum")(Y_TRUE, Y_PRED)) == \
        pytest.approx(per_sample.sum(), rel=1e-6)
    weighted = keras.losses.MeanSquaredError()(Y_TRUE, Y_PRED, sample_weight=np.array([1.0, 0.0]))
    assert float(weighted) == pytest.approx(per_sample[0] / 2, rel=1e-6)
    none = keras.losses.MeanAbsoluteError(reduction="none")(Y_TRUE, Y_PRED)
    np.testing.assert_allclose(np.asarray(none), np.abs(error).mean(axis=-1), rtol=1e-6)
    delta = 0.25
    a = np.abs(error)
    huber = np.where(a <= delta, 0.5 * a ** 2, delta * (a - 0.5 * delta)).mean(axis=-1).mean()
    assert float(keras.losses.Huber(delta=delta)(Y_TRUE, Y_PRED)) == pytest.approx(huber, rel=1e-5)
    logits = np.array([[2.0, -1.0], [0.5, 0.0]], np.float32)
    labels = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    expected = np.mean(np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits))))
    assert float(keras.losses.BinaryCrossentropy(from_logits=True)(labels, logits)) == \
        pytest.approx(expected, rel=1e-5)
    log_softmax = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    assert float(keras.losses.CategoricalCrossentropy(from_logits=True)(labels, logits)) == \
        pytest.approx(-(labels * log_softmax).sum(-1).mean(), rel=1e-5)
    assert float(keras.losses.SparseCategoricalCrossentropy(from_logits=True)(
        np.array([0, 1]), logits)) == pytest.approx(-(labels * log_softmax).sum(-1).mean(), rel=1e-5)
    with pytest.raises(TypeError, match="from_logit"):
        keras.losses.BinaryCrossentropy(from_logit=True)
    with pytest.raises(ValueError, match="reduction"):
        keras.losses.MeanSquaredError(reduction="average")
    config = keras.losses.Huber(delta=2.0).get_config()
    assert keras.losses.Huber.from_config(config).get_config() == config


def test_loss_gradient_matches_finite_differences():
    y = np.array([[0.3, -1.0]], np.float64)
    x = rt.Variable(np.array([[0.1, 0.4]], np.float64))
    loss = keras.losses.Huber(delta=0.5, dtype="float64")  # Keras 3 computes in float32 otherwise
    with rt.GradientTape() as tape:
        value = loss(y, x)
    grad = np.asarray(tape.gradient(value, x))
    eps = 1e-6
    numeric = []
    for i in range(2):
        shift = np.zeros((1, 2))
        shift[0, i] = eps
        numeric.append((float(loss(y, x.numpy() + shift)) - float(loss(y, x.numpy() - shift)))
                       / (2 * eps))
    np.testing.assert_allclose(grad[0], numeric, rtol=1e-5)


def test_stateful_metrics_accumulate_and_reset():
    mean = keras.metrics.Mean()
    mean.update_state([1.0, 2.0])
    mean.update_state([3.0], sample_weight=[2.0])
    assert float(mean.result()) == pytest.approx((1 + 2 + 6) / 4)
    mean.reset_state()
    assert float(mean.result()) == 0.0
    acc = keras.metrics.BinaryAccuracy()
    acc.update_state([[1.0], [0.0]], [[0.7], [0.6]])
    acc.update_state([[1.0]], [[0.9]])
    assert float(acc.result()) == pytest.approx(2 / 3)
    cat = keras.metrics.CategoricalAccuracy()
    assert float(cat(Y_TRUE, Y_PRED)) == 1.0
    sparse = keras.metrics.SparseCategoricalAccuracy()
    assert float(sparse(np.array([1, 2]), Y_PRED)) == 0.5
    exact = keras.metrics.Accuracy()
    assert float(exact([1, 2, 3, 4], [1, 2, 0, 4])) == 0.75
    mse = keras.metrics.MeanSquaredError()
    mse.update_state(Y_TRUE[:1], Y_PRED[:1])
    mse.update_state(Y_TRUE[1:], Y_PRED[1:])
    assert float(mse.result()) == pytest.approx(np.mean((Y_TRUE - Y_PRED) ** 2), rel=1e-6)


def test_auc_matches_the_rank_statistic():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 200).astype(np.float32)
    scores = np.clip(labels * 0.3 + rng.uniform(size=200) * 0.7, 0, 1).astype(np.float32)
    pos, neg = scores[labels == 1], scores[labels == 0]
    exact = np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :]))
    auc = keras.metrics.AUC(num_thresholds=1000)
    auc.update_state(labels, scores)
    assert float(auc.result()) == pytest.approx(exact, abs=5e-3)


def test_metric_update_inside_a_compiled_function():
    metric = keras.metrics.Mean()

    @rt.function
    def step(values):
        metric.update_state(values)
        return metric.result()
    step(np.array([1.0, 3.0], np.float32))
    assert float(step(np.array([5.0], np.float32))) == pytest.approx(3.0)


def _run(optimizer, grads, start):
    var = rt.Variable(np.array(start, np.float64))
    for grad in grads:
        optimizer.apply_gradients([(np.array(grad, np.float64), var)])
    return var.numpy()


GRADS = [[0.5, -1.0], [0.25, 2.0], [-1.0, 0.1]]


def test_rmsprop_against_numpy():
    for momentum, centered in ((0.0, False), (0.5, True)):
        got = _run(keras.optimizers.RMSprop(0.1, rho=0.8, momentum=momentum, centered=centered),
                   GRADS, [1.0, 2.0])
        var, v, avg, mom = np.array([1.0, 2.0]), np.zeros(2), np.zeros(2), np.zeros(2)
        for g in map(np.array, GRADS):
            v = 0.8 * v + 0.2 * g ** 2
            denom = v
            if centered:
                avg = 0.8 * avg + 0.2 * g
                denom = v - avg ** 2
            step = 0.1 * g / np.sqrt(denom + 1e-7)
            if momentum:
                mom = momentum * mom + step
                step = mom
            var = var - step
        np.testing.assert_allclose(got, var, rtol=1e-10)


def test_adagrad_against_numpy():
    got = _run(keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.2), GRADS, [1.0, 2.0])
    var, acc = np.array([1.0, 2.0]), np.full(2, 0.2)
    for g in map(np.array, GRADS):
        acc = acc + g ** 2
        var = var - 0.1 * g / np.sqrt(acc + 1e-7)
    np.testing.assert_allclose(got, var, rtol=1e-10)


def test_adamw_against_numpy():
    got = _run(keras.optimizers.AdamW(0.1, weight_decay=0.05), GRADS, [1.0, 2.0])
    var, m, v = np.array([1.0, 2.0]), np.zeros(2), np.zeros(2)
    for t, g in enumerate(map(np.array, GRADS), start=1):
        var = var - 0.1 * 0.05 * var
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g ** 2
        alpha = 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        var = var - alpha * m / (np.sqrt(v) + 1e-7)
    np.testing.assert_allclose(got, var, rtol=1e-10)


def test_sgd_nesterov_and_minimize():
    got = _run(keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True), GRADS, [1.0, 2.0])
    var, vel = np.array([1.0, 2.0]), np.zeros(2)
    for g in map(np.array, GRADS):
        vel = 0.9 * vel - 0.1 * g
        var = var + 0.9 * vel - 0.1 * g
    np.testing.assert_allclose(got, var, rtol=1e-10)
    x = rt.Variable(np.array([3.0], np.float64))
    opt = keras.optimizers.RMSprop(0.1)
    for _ in range(3):
        opt.minimize(lambda: rt.reduce_sum(x * x), [x])
    assert abs(float(x.numpy()[0])) < 3.0


def test_exponential_decay_schedule_drives_the_learning_rate():
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    assert float(schedule(3)) == pytest.approx(0.1 * 0.5 ** 1.5)
    stair = keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True)
    assert float(stair(3)) == pytest.approx(0.05)
    got = _run(keras.optimizers.SGD(schedule), GRADS, [1.0, 2.0])
    var = np.array([1.0, 2.0])
    for step, g in enumerate(map(np.array, GRADS)):
        var = var - 0.1 * 0.5 ** (step / 2) * g
    np.testing.assert_allclose(got, var, rtol=1e-6)


def test_optimizer_configs_round_trip():
    for opt in (keras.optimizers.RMSprop(0.2, rho=0.7, centered=True),
                keras.optimizers.Adagrad(0.3), keras.optimizers.AdamW(0.01, weight_decay=0.1),
                keras.optimizers.SGD(0.1, momentum=0.5, clipnorm=1.0)):
        clone = type(opt).from_config(opt.get_config())
        assert clone.get_config() == opt.get_config()
    with pytest.raises(TypeError, match="unexpected keyword"):
        keras.optimizers.RMSprop(learning_rat=0.1)


def test_callbacks_lambda_and_model_checkpoint(tmp_path):
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    model.compile(keras.optimizers.SGD(0.05), "mse")
    seen = []
    checkpoint = keras.callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch:02d}.keras"),
                                                 monitor="loss", save_best_only=True)
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[
        keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(epoch)),
        checkpoint])
    assert seen == [0, 1, 2] and isinstance(history, keras.callbacks.History)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-01.keras", "m-02.keras",
                                                          "m-03.keras"]
    loaded = keras.models.load_model(tmp_path / "m-03.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_utils_and_backend():
    np.testing.assert_array_equal(keras.utils.to_categorical([0, 2, 1]),
                                  np.eye(3, dtype=np.float32)[[0, 2, 1]])
    assert keras.utils.to_categorical([[1], [0]], num_classes=3).shape == (2, 3)
    with pytest.raises(ValueError, match="labels must be in"):
        keras.utils.to_categorical([3], num_classes=2)
    keras.utils.set_random_seed(7)
    first = keras.layers.Dense(3)
    first(np.ones((1, 2), np.float32))
    keras.utils.set_random_seed(7)
    second = keras.layers.Dense(3)
    second(np.ones((1, 2), np.float32))
    np.testing.assert_array_equal(first.kernel.numpy(), second.kernel.numpy())
    assert keras.backend.floatx() == "float32"
    keras.backend.clear_session()
    assert keras.layers.Dense(1).name == "dense"


def test_compile_accepts_keras_loss_objects_functions_and_metric_objects():
    keras.backend.clear_session()  # metric names count from zero (Keras's auto_name)
    x = np.random.default_rng(1).normal(size=(32, 2)).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32)
    inputs = keras.Input(shape=(2,))
    model = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(inputs))
    for loss, auc in ((keras.losses.BinaryCrossentropy(), "auc"),
                      (keras.losses.binary_crossentropy, "auc_1")):  # a second AUC(), as Keras
        model.compile(keras.optimizers.Adam(0.05), loss,
                      metrics=[keras.metrics.BinaryAccuracy(), keras.metrics.AUC()])
        history = model.fit(x, y, epochs=3, batch_size=8, verbose=0)
        assert set(history.history) == {"loss", "binary_accuracy", auc}
        assert 0.0 <= history.history[auc][-1] <= 1.0
    predictions = model.predict(x, verbose=0)
    accuracy = np.mean((predictions > 0.5) == (y > 0.5))
    logs = model.evaluate(x, y, return_dict=True)
    assert logs["binary_accuracy"] == pytest.approx(accuracy)

"""fit / evaluate with sample_weight and class_weight, as Keras 3 weighs them: the loss of a
batch is sum(w_i * loss_i) / batch size, the metrics are not weighted, class weights come from
the labels (a class missing from the dict weighs 1). Oracles: that formula in NumPy, and
histories TensorFlow 2.21 / Keras 3.15 recorded for the same programs."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

rs = np.random.RandomState(2)
X = rs.rand(21, 4).astype("float32")
LABELS = rs.randint(0, 3, 21)
TARGETS = rs.rand(21, 1).astype("float32")
KERNEL3, BIAS3 = rs.normal(size=(4, 3)).astype("float32"), rs.normal(size=3).astype("float32")
KERNEL1, BIAS1 = rs.normal(size=(4, 1)).astype("float32"), np.zeros(1, "float32")
WEIGHTS = rs.rand(21).astype("float32")


def _classifier():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
    model.set_weights([KERNEL3, BIAS3])
    return model


def _regressor():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.set_weights([KERNEL1, BIAS1])
    return model


def test_weighted_mse_step_matches_numpy():
    model = _regressor()
    model.compile("sgd", "mse", metrics=["mae"])
    error = X @ KERNEL1 + BIAS1 - TARGETS                                # (21, 1)
    w = WEIGHTS[:, None]
    expected_loss = np.sum(w * error ** 2) / len(X)
    assert model.evaluate(X, TARGETS, sample_weight=WEIGHTS, batch_size=21)[0] == \
        pytest.approx(expected_loss, rel=1e-5)
    assert model.evaluate(X, TARGETS, sample_weight=WEIGHTS, batch_size=21)[1] == \
        pytest.approx(np.mean(np.abs(error)), rel=1e-5)                  # not weighted
    model.fit(X, TARGETS, epochs=1, batch_size=21, shuffle=False, verbose=0,
              sample_weight=WEIGHTS)
    grad = X.T @ (2 * w * error / len(X))
    np.testing.assert_allclose(model.get_weights()[0], KERNEL1 - 0.01 * grad, rtol=1e-5)


def test_class_weights_weigh_each_sample_by_its_label():
    model = _classifier()
    model.compile("sgd", "sparse_categorical_crossentropy")
    p = model.predict(X)
    per_sample = -np.log(np.take_along_axis(p, LABELS[:, None], 1))[:, 0]
    w = np.array([{0: 1.0, 1: 3.0}.get(c, 1.0) for c in LABELS])         # 2 is missing: 1
    history = model.fit(X, LABELS, epochs=1, batch_size=21, shuffle=False, verbose=0,
                        class_weight={0: 1.0, 1: 3.0})
    assert history.history["loss"][0] == pytest.approx(np.sum(w * per_sample) / 21, rel=1e-5)
    one_hot = np.eye(3, dtype="float32")[LABELS]                         # argmax of one-hot
    model = _classifier()
    model.compile("sgd", "categorical_crossentropy")
    history = model.fit(X, one_hot, epochs=1, batch_size=21, verbose=0,
                        class_weight={0: 1.0, 1: 3.0})
    assert history.history["loss"][0] == pytest.approx(np.sum(w * per_sample) / 21, rel=1e-5)


TF_HISTORIES = {
    "class_weight": {"accuracy": [0.2381, 0.2381], "loss": [6.3393, 6.1878]},
    "sample_weight": {"loss": [0.0557, 0.0554], "mae": [0.3501, 0.3493],
                      "val_loss": [0.1706, 0.1712], "val_mae": [0.3982, 0.3999]},
    "loss_object": {"accuracy": [0.2381, 0.2381], "loss": [1.4757, 1.4707],
                    "val_accuracy": [0.2381, 0.2381], "val_loss": [1.4722, 1.4672]},
}


def test_weighted_histories_equal_tensorflows():
    model = _classifier()
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(X, LABELS, epochs=2, batch_size=8, shuffle=False, verbose=0,
                        class_weight={0: 1.0, 1: 3.0})
    for key, values in TF_HISTORIES["class_weight"].items():
        np.testing.assert_allclose(history.history[key], values, atol=2e-4, err_msg=key)
    model = _regressor()
    model.compile("sgd", "mse", metrics=["mae"])
    history = model.fit(X, TARGETS, epochs=2, batch_size=8, shuffle=False, verbose=0,
                        sample_weight=WEIGHTS, validation_split=0.3)  # weights split too
    for key, values in TF_HISTORIES["sample_weight"].items():
        np.testing.assert_allclose(history.history[key], values, atol=2e-4, err_msg=key)
    assert model.evaluate(X, TARGETS, sample_weight=WEIGHTS, batch_size=5)[0] == \
        pytest.approx(0.0939, abs=2e-4)
    model = _classifier()
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(), metrics=["accuracy"])
    history = model.fit(X, LABELS, epochs=2, batch_size=8, shuffle=False, verbose=0,
                        sample_weight=WEIGHTS, validation_data=(X, LABELS, WEIGHTS))
    for key, values in TF_HISTORIES["loss_object"].items():
        np.testing.assert_allclose(history.history[key], values, atol=2e-4, err_msg=key)


def test_a_dataset_may_yield_weights():
    model = _regressor()
    model.compile("sgd", "mse")
    data = rt.data.Dataset.from_tensor_slices((X, TARGETS, WEIGHTS)).batch(21)
    expected = np.sum(WEIGHTS[:, None] * (X @ KERNEL1 + BIAS1 - TARGETS) ** 2) / 21
    assert model.evaluate(data) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("kwargs, message", [
    (dict(sample_weight=WEIGHTS, class_weight={0: 2.0}), "not both"),
    (dict(sample_weight=WEIGHTS[:5]), "5 weights for 21 samples"),
    (dict(sample_weight=2.0), "one weight per sample"),
    (dict(class_weight=[1.0, 2.0]), "dict"),
])
def test_bad_weights_are_value_errors(kwargs, message):
    model = _classifier()
    model.compile("sgd", "sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match=message):
        model.fit(X, LABELS, verbose=0, **kwargs)


def test_train_and_test_on_batch_weigh_like_fit():
    model = _regressor()
    model.compile("sgd", "mse")
    expected = np.sum(WEIGHTS[:, None] * (X @ KERNEL1 + BIAS1 - TARGETS) ** 2) / 21
    assert model.test_on_batch(X, TARGETS, sample_weight=WEIGHTS) == pytest.approx(expected,
                                                                                   rel=1e-5)
    classifier = _classifier()
    classifier.compile("sgd", "sparse_categorical_crossentropy")
    by_class = classifier.test_on_batch(X, LABELS, sample_weight=np.where(LABELS == 1, 3.0, 1.0))
    assert classifier.train_on_batch(X, LABELS, class_weight={1: 3.0}) == pytest.approx(by_class,
                                                                                        rel=1e-5)

"""Keras 3's focal cross-entropies, categorical hinge and SparseCategoricalCrossentropy's
`ignore_class`, checked against NumPy computations of Keras's documented formulas."""

import numpy as np
import pytest

from runtime import keras

EPS = 1e-7
Y_TRUE = np.array([[0, 1, 0], [1, 0, 0]], np.float32)
LOGITS = np.array([[0.5, 2.0, -1.0], [0.1, 0.2, 0.3]], np.float32)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _binary_focal(t, p, gamma=2.0, alpha=0.25, balance=False, smoothing=0.0):
    t = t * (1 - smoothing) + 0.5 * smoothing
    c = np.clip(p, EPS, 1 - EPS)
    bce = -(t * np.log(c) + (1 - t) * np.log(1 - c))
    p_t = t * p + (1 - t) * (1 - p)
    values = (1 - p_t) ** gamma * bce
    if balance:
        values = (t * alpha + (1 - t) * (1 - alpha)) * values
    return values.mean(-1)


def _categorical_focal(t, p, gamma=2.0, alpha=0.25, smoothing=0.0):
    p = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    t = t * (1 - smoothing) + smoothing / t.shape[-1]
    return (alpha * (1 - p) ** gamma * -(t * np.log(p))).sum(-1)


@pytest.mark.parametrize("kwargs", [{}, {"apply_class_balancing": True, "label_smoothing": 0.1},
                                    {"gamma": 0.5, "alpha": 0.6, "apply_class_balancing": True}])
def test_binary_focal_crossentropy(kwargs):
    probs = _sigmoid(LOGITS)
    expected = _binary_focal(Y_TRUE, probs, kwargs.get("gamma", 2.0), kwargs.get("alpha", 0.25),
                             kwargs.get("apply_class_balancing", False),
                             kwargs.get("label_smoothing", 0.0))
    np.testing.assert_allclose(keras.losses.binary_focal_crossentropy(Y_TRUE, probs, **kwargs),
                               expected, rtol=1e-5)
    loss = keras.losses.BinaryFocalCrossentropy(from_logits=True, **kwargs)
    np.testing.assert_allclose(float(loss(Y_TRUE, LOGITS)), expected.mean(), rtol=1e-5)
    assert loss.name == "binary_focal_crossentropy"
    assert type(loss).from_config(loss.get_config()).get_config() == loss.get_config()
    assert keras.losses.get("binary_focal_crossentropy") is keras.losses.binary_focal_crossentropy


@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.2}, {"gamma": 1.0, "alpha": 0.5}])
def test_categorical_focal_crossentropy(kwargs):
    expected = _categorical_focal(Y_TRUE, _softmax(LOGITS), kwargs.get("gamma", 2.0),
                                  kwargs.get("alpha", 0.25), kwargs.get("label_smoothing", 0.0))
    loss = keras.losses.CategoricalFocalCrossentropy(from_logits=True, **kwargs)
    np.testing.assert_allclose(float(loss(Y_TRUE, LOGITS)), expected.mean(), rtol=1e-5)
    np.testing.assert_allclose(
        keras.losses.categorical_focal_crossentropy(Y_TRUE, _softmax(LOGITS), **kwargs),
        expected, rtol=1e-5)


def test_categorical_hinge():
    positive = (Y_TRUE * LOGITS).sum(-1)
    negative = ((1 - Y_TRUE) * LOGITS).max(-1)
    expected = np.maximum(negative - positive + 1, 0)
    np.testing.assert_allclose(keras.losses.categorical_hinge(Y_TRUE, LOGITS), expected,
                               rtol=1e-6)
    np.testing.assert_allclose(float(keras.losses.CategoricalHinge()(Y_TRUE, LOGITS)),
                               expected.mean(), rtol=1e-6)
    assert keras.losses.get("categorical_hinge") is keras.losses.categorical_hinge


def test_ignore_class_leaves_those_labels_out_of_the_mean():
    labels = np.array([1, 0, 2, 1])
    logits = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    per_sample = -np.log(_softmax(logits)[np.arange(4), labels])
    kept = labels != 1
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=1)
    np.testing.assert_allclose(float(loss(labels, logits)), per_sample[kept].mean(), rtol=1e-5)
    weights = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    # Keras's masked mean: the weighted values of the kept labels over their count
    np.testing.assert_allclose(float(loss(labels, logits, sample_weight=weights)),
                               (per_sample * weights)[kept].sum() / kept.sum(), rtol=1e-5)
    summed = keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=1,
                                                        reduction="sum")
    np.testing.assert_allclose(float(summed(labels, logits)), per_sample[kept].sum(), rtol=1e-5)
    assert loss.get_config()["ignore_class"] == 1
    model = keras.Sequential([keras.Input((3,)), keras.layers.Lambda(lambda x: x)])
    model.compile("sgd", loss)
    np.testing.assert_allclose(model.evaluate(logits, labels, verbose=0),
                               per_sample[kept].mean(), rtol=1e-5)


def test_huber_is_named_as_in_keras_3():
    assert keras.losses.Huber().name == "huber_loss"

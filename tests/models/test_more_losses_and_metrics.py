"""keras.losses Dice, Tversky, CategoricalGeneralizedCrossEntropy, Circle (classes and
functions) and keras.metrics SensitivityAtSpecificity, SpecificityAtSensitivity,
PrecisionAtRecall, RecallAtPrecision and the focal cross-entropy functions. Expected values
are Keras 3.15's (its documented Dice example, and values printed under TensorFlow 2.21)."""

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
Y_TRUE = [[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]]
Y_PRED = [[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]]


def test_dice_as_documented():
    np.testing.assert_allclose(keras.losses.dice(Y_TRUE, Y_PRED, axis=(1, 2, 3)),
                               [0.5, 0.75757575], rtol=1e-6)
    np.testing.assert_allclose(keras.losses.dice(Y_TRUE, Y_PRED), 0.6164384, rtol=1e-6)
    np.testing.assert_allclose(keras.losses.Dice()(Y_TRUE, Y_PRED), 0.6164384, rtol=1e-6)
    np.testing.assert_allclose(keras.losses.Dice(axis=(1, 2, 3), reduction=None)(Y_TRUE, Y_PRED),
                               [0.5, 0.75757575], rtol=1e-6)
    assert keras.losses.Dice().get_config() == {"name": "dice",
                                                "reduction": "sum_over_batch_size", "axis": None}


def test_tversky_and_generalized_cross_entropy():
    np.testing.assert_allclose(
        keras.losses.tversky(Y_TRUE, Y_PRED, alpha=0.3, beta=0.7, axis=(1, 2, 3)),
        [0.5, 0.7350993], rtol=1e-6)
    np.testing.assert_allclose(keras.losses.Tversky(0.3, 0.7)(Y_TRUE, Y_PRED), 0.6011396,
                               rtol=1e-6)
    # alpha = beta = 0.5 is the Dice loss
    np.testing.assert_allclose(keras.losses.tversky(Y_TRUE, Y_PRED),
                               keras.losses.dice(Y_TRUE, Y_PRED), rtol=1e-6)
    labels = np.array([0, 1, 2])
    probs = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], "float32")
    np.testing.assert_allclose(
        keras.losses.categorical_generalized_cross_entropy(labels, probs, q=0.5),
        [0.32667994, 0.58578646, 0.21114564], rtol=1e-6)
    np.testing.assert_allclose(keras.losses.CategoricalGeneralizedCrossEntropy(q=0.3)(
        labels, probs), 0.39330634, rtol=1e-6)
    assert keras.losses.CategoricalGeneralizedCrossEntropy().get_config()["q"] == 0.5


def test_circle():
    embeddings = np.array([[1, 0], [0.8, 0.6], [0, 1], [0.6, 0.8]], "float32")
    labels = np.array([0, 0, 1, 1])
    np.testing.assert_allclose(keras.losses.circle(labels, embeddings),
                               [6.40166, 51.32801, 6.40166, 51.32801], rtol=1e-5)
    np.testing.assert_allclose(keras.losses.Circle()(labels, embeddings), 28.864838, rtol=1e-5)
    np.testing.assert_allclose(keras.losses.Circle(gamma=10, margin=0.25, remove_diagonal=False)(
        labels, embeddings), 6.1046686, rtol=1e-5)
    assert keras.losses.Circle().get_config() == {
        "name": "circle", "reduction": "sum_over_batch_size", "gamma": 80.0, "margin": 0.4,
        "remove_diagonal": True}


def test_new_losses_serialize_and_train():
    again = keras.losses.deserialize(keras.losses.serialize(keras.losses.Tversky(0.2, 0.8)))
    assert isinstance(again, keras.losses.Tversky) and again.get_config()["alpha"] == 0.2
    assert keras.losses.get("dice") is keras.losses.dice
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile("sgd", keras.losses.Dice())
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)


Y, P = [0, 0, 0, 1, 1, 1, 0, 1], [0.0, 0.3, 0.8, 0.3, 0.6, 0.9, 0.1, 0.45]
WEIGHTS = [1, 2, 1, 1, 2, 1, 1, 1]


@pytest.mark.parametrize("cls, value, expected", [
    ("SensitivityAtSpecificity", 0.5, (1.0, 0.6, 1.0)),
    ("SpecificityAtSensitivity", 0.5, (0.75, 0.8, 0.75)),
    ("PrecisionAtRecall", 0.5, (0.75, 0.75, 0.75)),
    ("RecallAtPrecision", 0.8, (0.25, 0.0, 0.25)),
])
def test_rates_at_a_constraint_as_keras(cls, value, expected):
    metric_class = getattr(keras.metrics, cls)
    metric = metric_class(value)
    metric.update_state(Y, P)
    one = metric_class(value, num_thresholds=1)
    one.update_state(Y, P, sample_weight=WEIGHTS)
    per_class = metric_class(value, num_thresholds=7, class_id=1)
    per_class.update_state(np.eye(2)[Y], np.stack([1 - np.array(P), P], 1))
    np.testing.assert_allclose([float(metric.result()), float(one.result()),
                                float(per_class.result())], expected, atol=1e-6)
    config = metric.get_config()
    assert config["num_thresholds"] == 200 and config["class_id"] is None
    metric.reset_state()
    assert float(metric.result()) == 0.0
    with pytest.raises(ValueError, match="must be in the range"):
        metric_class(1.5)


def test_focal_metric_functions():
    np.testing.assert_allclose(keras.metrics.binary_focal_crossentropy([[1.0], [0.0]],
                                                                       [[0.7], [0.2]]),
                               [0.0321, 0.00893], atol=1e-5)  # Keras: rounded to 5 places
    assert keras.metrics.categorical_focal_crossentropy is \
        keras.losses.categorical_focal_crossentropy

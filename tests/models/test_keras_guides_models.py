"""Keras 3 behaviours the Keras developer guides (Sequential model, functional API, masking)
rely on, each checked against what Keras 3 on TensorFlow 2.21 does with the same program."""

import numpy as np
import pytest

from runtime import keras
from runtime.keras import layers


def _sequential_with_input():
    return keras.Sequential([
        keras.Input(shape=(9, 9, 3)),
        layers.Conv2D(4, 3, strides=2, activation="relu"),
        layers.Conv2D(5, 3, activation="relu", name="my_intermediate_layer"),
        layers.Conv2D(6, 1),
    ])


def test_sequential_inputs_outputs_and_layer_output_make_a_feature_extractor():
    # Keras 3: Sequential([Input((9, 9, 3)), ...]).inputs is [KerasTensor (None, 9, 9, 3)],
    # each layer's .output its Keras tensor; the extractor returns every layer's output.
    model = _sequential_with_input()
    assert [t.shape.as_list() for t in model.inputs] == [[None, 9, 9, 3]]
    assert [t.shape.as_list() for t in model.outputs] == [[None, 2, 2, 6]]
    extractor = keras.Model(inputs=model.inputs,
                            outputs=[layer.output for layer in model.layers])
    x = np.random.default_rng(0).random((1, 9, 9, 3)).astype("float32")
    features = extractor(x)
    assert [tuple(f.shape) for f in features] == [(1, 4, 4, 4), (1, 2, 2, 5), (1, 2, 2, 6)]
    # the shared layers give the same values as the Sequential itself (NumPy oracle: the
    # same weights, so the last feature equals the model's output)
    np.testing.assert_allclose(np.asarray(features[-1]), np.asarray(model(x)), rtol=1e-6)


def test_get_layer_output_of_a_sequential():
    model = _sequential_with_input()
    extractor = keras.Model(inputs=model.inputs,
                            outputs=model.get_layer(name="my_intermediate_layer").output)
    assert tuple(extractor(np.ones((1, 9, 9, 3), "float32")).shape) == (1, 2, 2, 5)
    assert model.get_layer(index=0) is model.layers[0]
    with pytest.raises(ValueError):
        model.get_layer(name="nope")


def test_unbuilt_sequential_and_uncalled_layer_raise_attribute_error():
    # Keras 3: AttributeError for both
    with pytest.raises(AttributeError, match="no defined inputs"):
        _ = keras.Sequential([layers.Dense(2)]).inputs
    with pytest.raises(AttributeError, match="never been called"):
        _ = layers.Dense(2).output


def test_keras_tensors_carry_masks_through_mask_propagating_layers():
    # Keras 3: Embedding(mask_zero=True)(Input) has `_keras_mask` (a bool KerasTensor of shape
    # (None, None)); a layer with supports_masking keeps it; an Input and a Flatten have none.
    class MyActivation(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs):
            return inputs * 2.0

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=10, output_dim=4, mask_zero=True)(inputs)
    assert x._keras_mask.shape.as_list() == [None, None]
    assert x._keras_mask.dtype.name == "bool"
    y = MyActivation()(x)
    assert y._keras_mask.shape.as_list() == [None, None]
    assert not hasattr(inputs, "_keras_mask")
    assert not hasattr(layers.Flatten()(keras.Input(shape=(3,))), "_keras_mask")
    out = layers.LSTM(3)(y)
    assert not hasattr(out, "_keras_mask")


def test_model_from_config_takes_custom_objects():
    # Keras 3: Model.from_config(config, custom_objects={"CustomDense": CustomDense}) rebuilds
    # a functional model holding a custom layer that is not registered.
    class CustomDense(layers.Layer):
        def __init__(self, units=32):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                     initializer="random_normal")

        def call(self, inputs):
            return inputs @ self.w

        def get_config(self):
            return {"units": self.units}

    inputs = keras.Input((4,))
    model = keras.Model(inputs, CustomDense(10)(inputs))
    new_model = keras.Model.from_config(model.get_config(),
                                        custom_objects={"CustomDense": CustomDense})
    assert isinstance(new_model.layers[-1], CustomDense)
    assert new_model.layers[-1].units == 10
    assert tuple(new_model(np.ones((2, 4), "float32")).shape) == (2, 10)


def _two_output_model():
    rng = np.random.default_rng(0)
    inputs = keras.Input((3,), name="x")
    model = keras.Model(inputs, [layers.Dense(1, name="priority")(inputs),
                                 layers.Dense(4, name="department")(inputs)])
    weights = [rng.normal(size=s).astype("float32") for s in [(3, 1), (1,), (3, 4), (4,)]]
    model.set_weights(weights)
    x = rng.normal(size=(6, 3)).astype("float32")
    y_priority = rng.random((6, 1)).astype("float32")
    y_department = np.eye(4, dtype="float32")[rng.integers(0, 4, 6)]
    return model, weights, x, y_priority, y_department


def _numpy_losses(weights, x, y_priority, y_department):
    """Keras's formulas: BCE from logits and CCE from logits, each the mean over samples."""
    logit = x @ weights[0] + weights[1]
    bce = np.mean(np.maximum(logit, 0) - logit * y_priority + np.log1p(np.exp(-abs(logit))))
    z = x @ weights[2] + weights[3]
    log_softmax = z - z.max(-1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(-1, keepdims=True))
    cce = np.mean(-(y_department * log_softmax).sum(-1))
    return bce, cce


def test_compile_takes_one_loss_per_output_with_loss_weights_as_a_dict():
    # Keras 3 (measured): evaluate gives loss 0.8973, department_loss 1.4001,
    # priority_loss 0.6173 for this program; here checked against the NumPy formulas.
    model, weights, x, y_priority, y_department = _two_output_model()
    model.compile(optimizer="sgd", loss={
        "priority": keras.losses.BinaryCrossentropy(from_logits=True),
        "department": keras.losses.CategoricalCrossentropy(from_logits=True)},
        loss_weights={"priority": 1.0, "department": 0.2})
    logs = model.evaluate(x, {"priority": y_priority, "department": y_department},
                          verbose=0, return_dict=True)
    bce, cce = _numpy_losses(weights, x, y_priority, y_department)
    assert sorted(logs) == ["department_loss", "loss", "priority_loss"]
    np.testing.assert_allclose(logs["priority_loss"], bce, rtol=1e-5)
    np.testing.assert_allclose(logs["department_loss"], cce, rtol=1e-5)
    np.testing.assert_allclose(logs["loss"], bce + 0.2 * cce, rtol=1e-5)


def test_compile_takes_a_list_of_losses_and_fit_trains_on_their_weighted_sum():
    model, weights, x, y_priority, y_department = _two_output_model()
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss=[
        keras.losses.BinaryCrossentropy(from_logits=True),
        keras.losses.CategoricalCrossentropy(from_logits=True)], loss_weights=[0.5, 2.0])
    bce, cce = _numpy_losses(weights, x, y_priority, y_department)
    history = model.fit(x, [y_priority, y_department], batch_size=6, epochs=1, verbose=0)
    np.testing.assert_allclose(history.history["loss"][0], 0.5 * bce + 2.0 * cce, rtol=1e-5)
    with pytest.raises(ValueError, match="one entry per output"):
        model.compile(optimizer="sgd", loss=["mse", "mse", "mse"])


def test_a_flat_metric_list_for_several_outputs_is_refused_at_compile():
    # Keras 3: ValueError "Invalid `metrics` ... a dict or a list matching the output names"
    model = _two_output_model()[0]
    with pytest.raises(ValueError, match="metrics"):
        model.compile("sgd", loss=["mse", "mse"], metrics=["mae"])


def _score_class_model():
    rng = np.random.default_rng(0)
    inputs = keras.Input((3,))
    model = keras.Model(inputs, [layers.Dense(1, name="score_output")(inputs),
                                 layers.Dense(5, name="class_output")(inputs)])
    weights = [rng.normal(size=s).astype("float32") for s in [(3, 1), (1,), (3, 5), (5,)]]
    model.set_weights(weights)
    x = rng.normal(size=(8, 3)).astype("float32")
    y_score = rng.random((8, 1)).astype("float32")
    y_class = np.eye(5, dtype="float32")[rng.integers(0, 5, 8)]
    return model, weights, x, y_score, y_class


@pytest.mark.parametrize("by_name", [False, True])
def test_metrics_by_output_are_logged_under_the_output_names(by_name):
    # Keras 3 (measured on this program): keys class_output_categorical_accuracy,
    # class_output_loss, loss, score_output_loss, score_output_mean_absolute_error (0.58739),
    # score_output_mean_absolute_percentage_error (461.947); values checked with NumPy here.
    model, weights, x, y_score, y_class = _score_class_model()
    losses = [keras.losses.MeanSquaredError(),
              keras.losses.CategoricalCrossentropy(from_logits=True)]
    metrics = [[keras.metrics.MeanAbsolutePercentageError(), keras.metrics.MeanAbsoluteError()],
               [keras.metrics.CategoricalAccuracy()]]
    names = ["score_output", "class_output"]
    if by_name:
        losses, metrics = dict(zip(names, losses)), dict(zip(names, metrics))
    model.compile(keras.optimizers.RMSprop(1e-3), loss=losses, metrics=metrics)
    logs = model.evaluate(x, [y_score, y_class], verbose=0, return_dict=True)
    assert sorted(logs) == ["class_output_categorical_accuracy", "class_output_loss", "loss",
                            "score_output_loss", "score_output_mean_absolute_error",
                            "score_output_mean_absolute_percentage_error"]
    score = x @ weights[0] + weights[1]
    logits = x @ weights[2] + weights[3]
    np.testing.assert_allclose(logs["score_output_mean_absolute_error"],
                               np.mean(abs(score - y_score)), rtol=1e-5)
    np.testing.assert_allclose(logs["score_output_mean_absolute_percentage_error"],
                               100 * np.mean(abs(score - y_score) / y_score), rtol=1e-4)
    np.testing.assert_allclose(logs["class_output_categorical_accuracy"],
                               np.mean(logits.argmax(-1) == y_class.argmax(-1)))
    np.testing.assert_allclose(logs["score_output_loss"], np.mean((score - y_score) ** 2),
                               rtol=1e-5)


def test_an_output_without_a_loss_and_an_incomplete_loss_dict():
    # Keras 3: loss=[None, cce] trains on the second output alone (no per-output loss logged:
    # only one is active); a loss dict missing an output name is a ValueError.
    model, weights, x, y_score, y_class = _score_class_model()
    model.compile("rmsprop", loss=[None, keras.losses.CategoricalCrossentropy(from_logits=True)])
    logs = model.evaluate(x, [y_score, y_class], verbose=0, return_dict=True)
    assert sorted(logs) == ["loss"]
    logits = x @ weights[2] + weights[3]
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    np.testing.assert_allclose(logs["loss"], np.mean(-(y_class * log_p).sum(-1)), rtol=1e-5)
    model.compile("rmsprop", loss={"class_output": "mse"})  # accepted by compile, as Keras
    with pytest.raises(ValueError, match="every output name"):
        model.evaluate(x, [y_score, y_class], verbose=0)


def test_setting_trainable_on_a_model_sets_it_on_every_nested_layer():
    # Keras 3 (transfer learning guide): model.trainable = False makes inner_model and its
    # layers report trainable == False; setting it back to True unfreezes them all.
    inner_model = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(3), layers.Dense(3)])
    model = keras.Sequential([keras.Input(shape=(3,)), inner_model, layers.Dense(3)])
    model.trainable = False
    assert inner_model.trainable is False
    assert all(layer.trainable is False for layer in inner_model.layers)
    assert model.trainable_weights == [] and len(model.non_trainable_weights) == 6
    model.trainable = True
    assert inner_model.layers[0].trainable is True
    assert len(model.trainable_weights) == 6


def test_add_metric_is_refused_as_in_keras_3():
    # Keras 3: Layer.add_metric raises NotImplementedError (deprecated, use compile metrics)
    with pytest.raises(NotImplementedError, match="compile"):
        layers.Dense(2).add_metric(1.0, name="x")

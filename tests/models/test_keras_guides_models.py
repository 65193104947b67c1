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

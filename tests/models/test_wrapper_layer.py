"""keras.layers.Wrapper: the base of layers that wrap another (built with it, kept in the
config), as Keras 3's."""

import numpy as np
import pytest

import runtime as rt

keras = rt.keras


@keras.saving.register_keras_serializable(package="tests")
class Doubled(keras.layers.Wrapper):
    def call(self, inputs):
        return 2.0 * self.layer(inputs)


def test_a_wrapper_subclass_builds_calls_and_serializes():
    wrapped = Doubled(keras.layers.Dense(2, kernel_initializer="ones"))
    out = wrapped(np.ones((1, 3), "float32"))
    np.testing.assert_allclose(out, [[6.0, 6.0]])
    assert wrapped.layer.built and len(wrapped.trainable_weights) == 2
    config = wrapped.get_config()
    assert set(config) >= {"name", "trainable", "dtype", "layer"}  # Keras 3's keys
    again = Doubled.from_config(config)
    assert isinstance(again.layer, keras.layers.Dense) and again.layer.units == 2


def test_a_wrapper_needs_a_layer_and_a_call():
    with pytest.raises(ValueError, match="isn't a supported layer"):
        keras.layers.Wrapper(3)
    with pytest.raises(NotImplementedError, match="defines call"):
        keras.layers.Wrapper(keras.layers.Dense(2))(np.ones((1, 3), "float32"))

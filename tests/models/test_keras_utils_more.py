"""keras.utils' smaller helpers: normalize, pack / unpack_x_y_sample_weight, Config,
get_custom_objects, the serialization functions and the backend names Keras re-exports
there; values as Keras 3's documentation gives them, or NumPy's."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

U = keras.utils


def test_normalize_is_numpys():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(U.normalize(x), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(U.normalize(x, axis=0, order=1), x / np.array([3.0, 4.0]))
    np.testing.assert_allclose(U.normalize(rt.constant([[3.0, 4.0]])).numpy(), [[0.6, 0.8]])


def test_pack_and_unpack():
    assert U.pack_x_y_sample_weight(1) == 1
    assert U.pack_x_y_sample_weight((1, 2)) == ((1, 2),)
    assert U.pack_x_y_sample_weight(1, 2) == (1, 2)
    assert U.pack_x_y_sample_weight(1, 2, 3) == (1, 2, 3)
    assert U.unpack_x_y_sample_weight(1) == (1, None, None)
    assert U.unpack_x_y_sample_weight((1, 2)) == (1, 2, None)
    assert U.unpack_x_y_sample_weight([1, 2, 3]) == (1, 2, 3)
    with pytest.raises(ValueError, match="format"):
        U.unpack_x_y_sample_weight((1, 2, 3, 4))


def test_config_is_a_dict_with_attributes_that_freezes():
    config = U.Config(learning_rate=0.1, layers=2)
    config.momentum = 0.9
    assert config.learning_rate == 0.1 and config["momentum"] == 0.9 and len(config) == 3
    assert config.as_dict() == {"learning_rate": 0.1, "layers": 2, "momentum": 0.9}
    config.freeze()
    with pytest.raises(ValueError, match="frozen"):
        config.layers = 3
    config.unfreeze()
    config.layers = 3
    assert config.to_json() == '{"learning_rate": 0.1, "layers": 3, "momentum": 0.9}'
    with pytest.raises(AttributeError, match="nope"):
        config.nope  # noqa: B018


def test_custom_objects_resolve_names_when_deserializing():
    class Doubling(keras.layers.Layer):
        def call(self, x):
            return x * 2

    U.get_custom_objects()["Doubling"] = Doubling
    try:
        made = U.deserialize_keras_object({"class_name": "Doubling", "config": {"name": "d"}})
        assert isinstance(made, Doubling)
        again = U.deserialize_keras_object(U.serialize_keras_object(made))
        assert isinstance(again, Doubling)
    finally:
        del U.get_custom_objects()["Doubling"]
    assert U.legacy.serialize_keras_object is U.serialize_keras_object


def test_backend_names_are_reexported():
    assert U.standardize_dtype("float64") == "float64"
    assert U.is_keras_tensor(keras.Input((2,))) and not U.is_keras_tensor(np.ones(2))
    keras.layers.Dense(1)
    U.clear_session()
    assert keras.layers.Dense(1).name == "dense"


def test_keras_device_and_legacy_saving():
    with keras.device("cpu:0"):
        out = rt.constant(1.0) + 1.0
    assert float(out) == 2.0
    assert keras.legacy.saving.serialize_keras_object is keras.saving.serialize_keras_object
    config = keras.legacy.saving.serialize_keras_object(keras.layers.Dense(2, name="d"))
    assert isinstance(keras.legacy.saving.deserialize_keras_object(config), keras.layers.Dense)

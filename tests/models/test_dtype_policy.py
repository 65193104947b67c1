"""A layer's dtype in its config is Keras 3's DTypePolicy config; from_config takes it and a
plain dtype name. The expected configs are what Keras 3.15 prints for the same layers."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras
from runtime.layers.dtype_policy import DTypePolicy


def _policy(name):
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": name},
            "registered_name": None}


def test_get_config_gives_the_dtype_policy_config():
    assert keras.layers.Dense(2).get_config()["dtype"] == _policy("float32")
    assert keras.layers.Dense(2, dtype="float64").get_config()["dtype"] == _policy("float64")
    layer = keras.layers.Dense(2, dtype="float64")
    assert repr(layer.dtype_policy) == '<DTypePolicy "float64">'
    assert layer.dtype_policy.compute_dtype == layer.dtype_policy.variable_dtype == "float64"


@pytest.mark.parametrize("given", ["float64", _policy("float64"), DTypePolicy("float64")])
def test_from_config_and_the_constructor_take_every_form(given):
    config = {**keras.layers.Dense(2).get_config(), "dtype": given}
    layer = keras.layers.Dense.from_config(config)
    assert layer.dtype == "float64"
    out = layer(np.ones((1, 3)))
    assert out.dtype.name == layer.kernel.dtype.name == "float64"
    assert keras.layers.Dense(2, dtype=given).dtype == "float64"


def test_a_saved_model_config_round_trips(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, dtype="float64")])
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert loaded.layers[-1].dtype == "float64"
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_mixed_precision_policies_are_refused_by_name():
    with pytest.raises(NotImplementedError, match="mixed_float16"):
        keras.layers.Dense(2, dtype="mixed_float16")


def test_layer_dtype_is_a_name_as_in_keras_3():
    # Keras 3: layer.dtype, compute_dtype and variable_dtype are strings ('float32'), and
    # TF's DType compares equal to its name
    layer = keras.layers.Dense(2)
    assert isinstance(layer.dtype, str) and layer.dtype == "float32"
    assert layer.compute_dtype == layer.variable_dtype == "float32"
    assert layer.dtype == rt.float32 and rt.float32 == layer.dtype and rt.float32 != "float64"
    wide = keras.layers.Dense(2, dtype="float64")
    assert (wide.dtype, wide.compute_dtype, wide.variable_dtype) == ("float64",) * 3
    out = wide(np.ones((1, 3), np.float32))
    assert out.dtype == wide.dtype and wide.kernel.dtype == rt.float64
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    assert model.dtype == "float32"

"""keras.dtype_policies and keras.mixed_precision, as Keras 3.15 prints them (TensorFlow 2.21):
float policies; mixed ones are refused by name."""

import pytest

import runtime as rt

keras = rt.keras


def test_get_serialize_and_deserialize():
    policy = keras.dtype_policies.get("float32")
    assert repr(policy) == '<DTypePolicy "float32">'
    assert keras.dtype_policies.serialize(policy) == {
        "module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
        "registered_name": None}
    assert keras.dtype_policies.deserialize(keras.dtype_policies.serialize(policy)) == policy
    assert keras.dtype_policies.get(None).name == "float32"  # the global policy
    as_config = {"class_name": "DTypePolicy", "config": {"name": "float64"}}
    assert keras.dtype_policies.get(as_config).name == "float64"
    assert keras.dtype_policies.get(policy) is policy
    with pytest.raises(ValueError):
        keras.dtype_policies.get(3)


def test_the_names_keras_exports():
    assert keras.DTypePolicy is keras.dtype_policies.DTypePolicy
    assert issubclass(keras.FloatDTypePolicy, keras.DTypePolicy)
    assert repr(keras.FloatDTypePolicy("float16")) == '<DTypePolicy "float16">'
    mp = keras.mixed_precision
    assert mp.Policy is mp.DTypePolicy is keras.DTypePolicy
    assert repr(mp.global_policy()) == '<DTypePolicy "float32">'
    assert mp.dtype_policy().name == "float32"
    mp.set_global_policy("float32")
    with pytest.raises(NotImplementedError, match="mixed_float16"):
        mp.set_global_policy("mixed_float16")
    with pytest.raises(NotImplementedError, match="mixed"):
        keras.DTypePolicy("mixed_bfloat16")
    assert keras.version() == keras.__version__


def test_a_layer_takes_a_policy_from_get():
    layer = keras.layers.Dense(2, dtype=keras.dtype_policies.get("float64"))
    layer.build((None, 3))
    assert layer.kernel.dtype == rt.float64

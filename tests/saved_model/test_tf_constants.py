"""rt.saved_model's TensorFlow constants, contains_saved_model and experimental.VariablePolicy."""

import pytest

import runtime as rt


def test_the_file_name_constants_are_tensorflows():
    # the values tf.saved_model has in TensorFlow 2.21
    sm = rt.saved_model
    assert (sm.SAVED_MODEL_FILENAME_PB, sm.SAVED_MODEL_FILENAME_PBTXT) == \
        ("saved_model.pb", "saved_model.pbtxt")
    assert sm.SAVED_MODEL_SCHEMA_VERSION == 1
    assert (sm.VARIABLES_DIRECTORY, sm.VARIABLES_FILENAME) == ("variables", "variables")
    assert (sm.ASSETS_DIRECTORY, sm.ASSETS_KEY) == ("assets", "saved_model_assets")
    assert (sm.DEBUG_DIRECTORY, sm.DEBUG_INFO_FILENAME_PB) == \
        ("debug", "saved_model_debug_info.pb")


def test_contains_saved_model(tmp_path):
    assert rt.saved_model.contains_saved_model(tmp_path) is False
    module = rt.Module()
    module.v = rt.Variable(1.0)
    module.f = rt.function(lambda x: x * module.v, input_signature=[rt.TensorSpec([], rt.float32)])
    rt.saved_model.save(module, str(tmp_path / "m"))
    assert rt.saved_model.contains_saved_model(str(tmp_path / "m")) is True
    assert rt.saved_model.contains_saved_model(tmp_path / "m") is True
    assert rt.saved_model.contains_saved_model(tmp_path / "missing") is False


def test_variable_policy():
    policy = rt.saved_model.experimental.VariablePolicy
    assert [p.value for p in policy] == [None, "save_variable_devices",
                                         "expand_distributed_variables"]
    assert policy.from_obj(None) is policy.NONE
    assert policy.from_obj("SAVE_VARIABLE_DEVICES") is policy.SAVE_VARIABLE_DEVICES
    assert policy.from_obj(policy.EXPAND_DISTRIBUTED_VARIABLES) is \
        policy.EXPAND_DISTRIBUTED_VARIABLES
    with pytest.raises(ValueError, match="VariablePolicy"):
        policy.from_obj("everything")
    options = rt.saved_model.SaveOptions(experimental_variable_policy=policy.SAVE_VARIABLE_DEVICES)
    assert options.experimental_variable_policy is policy.SAVE_VARIABLE_DEVICES

"""rt.saved_model.SaveOptions / LoadOptions and rt.config logical-device configuration:
accepted (TF code runs unchanged), validated, and without effect."""

import numpy as np
import pytest

import runtime as rt


def _saveable():
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def double(x):
        return x * 2.0

    return double


def test_save_and_load_accept_options(tmp_path):
    options = rt.saved_model.SaveOptions(namespace_whitelist=["Custom"], save_debug_info=True,
                                         experimental_io_device="/job:localhost")
    assert options.save_debug_info is True and options.function_aliases is None
    assert "save_debug_info=True" in repr(options)
    rt.saved_model.save(_saveable(), str(tmp_path / "m"), options=options)
    loaded = rt.saved_model.load(str(tmp_path / "m"), options=rt.saved_model.LoadOptions(
        experimental_io_device="/job:localhost", allow_partial_checkpoint=True))
    np.testing.assert_allclose(loaded(np.array([1.0, 2.0], np.float32)).numpy(), [2.0, 4.0])
    data = rt.saved_model.dumps(_saveable(), options=rt.saved_model.SaveOptions())
    assert rt.saved_model.loads(data)(np.ones(1, np.float32)).numpy().tolist() == [2.0]


def test_option_errors(tmp_path):
    with pytest.raises(TypeError, match="save_debug_inf"):
        rt.saved_model.SaveOptions(save_debug_inf=True)
    with pytest.raises(TypeError, match="SaveOptions"):
        rt.saved_model.save(_saveable(), str(tmp_path / "m"), options={"save_debug_info": True})
    with pytest.raises(TypeError, match="LoadOptions"):
        rt.saved_model.load(str(tmp_path / "m"), options=rt.saved_model.SaveOptions())
    with pytest.raises(TypeError):
        rt.saved_model.save(_saveable(), str(tmp_path / "m"), optons=None)


def test_logical_device_configuration():
    cpu = rt.config.list_physical_devices("CPU")[0]
    assert rt.config.experimental.VirtualDeviceConfiguration is rt.config.LogicalDeviceConfiguration
    try:
        rt.config.experimental.set_virtual_device_configuration(
            cpu, [rt.config.experimental.VirtualDeviceConfiguration(),
                  rt.config.LogicalDeviceConfiguration(memory_limit=1024)])
        got = rt.config.get_logical_device_configuration(cpu)
        assert len(got) == 2 and got[1].memory_limit == 1024
        assert rt.config.experimental.get_virtual_device_configuration(cpu) == got
        # the CPU is split in two logical devices (as TensorFlow's), and ops still run
        assert [d.name for d in rt.config.list_logical_devices()] == ["/device:CPU:0",
                                                                      "/device:CPU:1"]
        assert float(rt.add(1.0, 2.0)) == 3.0
    finally:
        rt.config.set_logical_device_configuration(cpu, None)
    assert rt.config.get_logical_device_configuration(cpu) is None
    assert [d.name for d in rt.config.list_logical_devices()] == ["/device:CPU:0"]


def test_logical_device_configuration_errors():
    cpu = rt.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="device"):
        rt.config.set_logical_device_configuration("CPU:0", [])
    with pytest.raises(TypeError, match="logical_devices"):
        rt.config.set_logical_device_configuration(cpu, [{"memory_limit": 1}])
    with pytest.raises(TypeError, match="memory_limit"):
        rt.config.LogicalDeviceConfiguration(memory_limit="1GB")

"""rt.config.PhysicalDevice / LogicalDevice, set_visible_devices and
experimental.get_device_details, as TensorFlow 2.21 answers on a CPU-only machine."""

import pytest

import runtime as rt


def test_visible_devices_and_details():
    cpu = rt.config.list_physical_devices("CPU")[0]
    assert isinstance(cpu, rt.config.PhysicalDevice)
    assert repr(cpu) == "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
    assert rt.config.get_visible_devices() == [cpu]
    assert rt.config.experimental.get_device_details(cpu) == {}  # TensorFlow: {} for a CPU
    rt.config.set_visible_devices(cpu)
    rt.config.set_visible_devices([], "GPU")  # no GPUs: an empty list is all there is
    rt.config.experimental.set_visible_devices([cpu], "CPU")
    assert rt.config.get_visible_devices("CPU") == [cpu]
    assert rt.config.get_visible_devices("GPU") == []
    with pytest.raises(ValueError, match="list_physical_devices"):
        rt.config.set_visible_devices([rt.config.PhysicalDevice("/physical_device:GPU:0", "GPU")])
    assert repr(rt.config.LogicalDevice("/device:CPU:0", "CPU")) == \
        "LogicalDevice(name='/device:CPU:0', device_type='CPU')"

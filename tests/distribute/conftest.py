"""Two logical CPUs for the distribution tests (as TensorFlow's guides split the CPU), restored
to one after each test."""

import pytest

import runtime as rt


@pytest.fixture
def two_cpus():
    cpu = rt.config.list_physical_devices("CPU")[0]
    rt.config.set_logical_device_configuration(
        cpu, [rt.config.LogicalDeviceConfiguration()] * 2)
    try:
        yield rt.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
    finally:
        rt.config.set_logical_device_configuration(cpu, None)


@pytest.fixture
def four_cpus():
    cpu = rt.config.list_physical_devices("CPU")[0]
    rt.config.set_logical_device_configuration(
        cpu, [rt.config.LogicalDeviceConfiguration()] * 4)
    try:
        yield rt.distribute.MirroredStrategy([f"CPU:{i}" for i in range(4)])
    finally:
        rt.config.set_logical_device_configuration(cpu, None)

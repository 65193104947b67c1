"""`rt.config` logical-device configuration: accepted and remembered, with no effect.

TensorFlow splits a physical device into several logical ones
(`set_logical_device_configuration(cpu, [LogicalDeviceConfiguration()] * 2)`), typically to
try distribution on one machine. This runtime computes with NumPy on the host: the
configuration is validated and returned by `get_logical_device_configuration`, but
`list_logical_devices` still lists the one CPU and nothing runs differently.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from ..exports import export
from .misc_ops import PhysicalDevice

_configured: dict[str, list] = {}


@export("config.LogicalDeviceConfiguration", "config.experimental.VirtualDeviceConfiguration")
@dataclasses.dataclass(frozen=True)
class LogicalDeviceConfiguration:
    """One logical device to make of a physical one (`memory_limit` in MB for GPUs; the
    fields are kept and have no effect here)."""

    memory_limit: Optional[int] = None
    experimental_priority: Optional[int] = None
    experimental_device_ordinal: Optional[int] = None

    def __post_init__(self) -> None:
        for name in ("memory_limit", "experimental_priority", "experimental_device_ordinal"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise TypeError(f"`{name}` must be an int or None, got {value!r}.")


VirtualDeviceConfiguration = LogicalDeviceConfiguration


def _check_device(device, what: str) -> PhysicalDevice:
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"{what}: `device` must be one of rt.config.list_physical_devices(), "
                         f"got {device!r}.")
    return device


@export("config.set_logical_device_configuration",
        "config.experimental.set_virtual_device_configuration")
def set_logical_device_configuration(device, logical_devices) -> None:
    """Remembers `logical_devices` (a list of LogicalDeviceConfiguration, or None to clear)
    for `device`; it changes nothing here (see the module doc)."""
    _check_device(device, "set_logical_device_configuration")
    if logical_devices is None:
        _configured.pop(device.name, None)
        return
    configs = list(logical_devices)
    for i, config in enumerate(configs):
        if not isinstance(config, LogicalDeviceConfiguration):
            raise TypeError(f"`logical_devices`[{i}] must be a LogicalDeviceConfiguration, "
                            f"got {config!r}.")
    _configured[device.name] = configs


@export("config.get_logical_device_configuration",
        "config.experimental.get_virtual_device_configuration")
def get_logical_device_configuration(device) -> Optional[list]:
    """The configuration set for `device`, or None."""
    _check_device(device, "get_logical_device_configuration")
    configs = _configured.get(device.name)
    return None if configs is None else list(configs)

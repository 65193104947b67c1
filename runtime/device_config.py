"""`rt.config`: the devices this runtime lists (one CPU) and the logical-device configuration.

TensorFlow splits a physical device into several logical ones
(`set_logical_device_configuration(cpu, [LogicalDeviceConfiguration()] * 2)`), typically to
try distribution on one machine. Here too: the CPU split into n logical devices lists
'/device:CPU:0' ... '/device:CPU:{n-1}' in `list_logical_devices`, and
`rt.distribute.MirroredStrategy` over them runs one replica per device, each in a thread.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Optional

from . import context
from .exports import export

# == devices ========================================================================================

# -- rt.config: devices ------------------------------------------------------------------------


@export("config.PhysicalDevice")
class PhysicalDevice(types.SimpleNamespace):
    """A device this runtime can use: `name` and `device_type` ('CPU' only)."""

    def __init__(self, name: str, device_type: str):
        super().__init__(name=name, device_type=device_type)

    def __repr__(self) -> str:
        return f"PhysicalDevice(name='{self.name}', device_type='{self.device_type}')"


@export("config.LogicalDevice")
class LogicalDevice(PhysicalDevice):
    def __repr__(self) -> str:
        return f"LogicalDevice(name='{self.name}', device_type='{self.device_type}')"


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_LOGICAL_CPU = LogicalDevice("/device:CPU:0", "CPU")
_growth: dict[str, bool] = {}


def _check_type(device_type, what: str):
    if device_type is not None and not isinstance(device_type, str):
        raise TypeError(f"{what}: device_type must be a str or None, got {device_type!r}.")
    return device_type is None or device_type.upper() == "CPU"


@export("config.list_physical_devices", "config.experimental.list_physical_devices")
def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The devices computations run on: one CPU (there are no GPUs here)."""
    return [_CPU] if _check_type(device_type, "list_physical_devices") else []


@export("config.list_logical_devices", "config.experimental.list_logical_devices")
def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The logical CPU devices: '/device:CPU:0', and more when the CPU was split with
    `set_logical_device_configuration`."""
    if not _check_type(device_type, "list_logical_devices"):
        return []
    configs = _configured.get(_CPU.name)
    if not configs:
        return [_LOGICAL_CPU]
    return [_LOGICAL_CPU] + [LogicalDevice(f"/device:CPU:{i}", "CPU")
                             for i in range(1, len(configs))]


@export("config.experimental.set_memory_growth")
def set_memory_growth(device, enable: bool) -> None:
    """Accepted and remembered for `get_memory_growth`; memory is NumPy's, so it changes
    nothing."""
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"set_memory_growth: device must be one of "
                         f"rt.config.list_physical_devices(), got {device!r}.")
    _growth[device.name] = bool(enable)


@export("config.experimental.get_memory_growth")
def get_memory_growth(device) -> bool:
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"get_memory_growth: device must be one of "
                         f"rt.config.list_physical_devices(), got {device!r}.")
    return _growth.get(device.name, False)


_visible: list = [_CPU]


@export("config.get_visible_devices", "config.experimental.get_visible_devices")
def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The physical devices left visible (`set_visible_devices`; the CPU by default)."""
    return [d for d in _visible if _check_type(device_type, "get_visible_devices")]


@export("config.set_visible_devices", "config.experimental.set_visible_devices")
def set_visible_devices(devices, device_type: str | None = None) -> None:
    """Records which physical devices of `device_type` stay visible (a device or a list of
    them, from `list_physical_devices`); everything still runs on the CPU. There are no GPUs
    or TPUs to list, so for those only an empty list is accepted."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for device in devices:
        if device is not _CPU and device != _CPU:
            raise ValueError(f"set_visible_devices: {device!r} is not a physical device of this "
                             "machine; pass devices from rt.config.list_physical_devices().")
    if _check_type(device_type, "set_visible_devices"):
        _visible[:] = devices


@export("config.experimental.get_device_details")
def get_device_details(device) -> dict:
    """Details TensorFlow reports for GPUs (`device_name`, `compute_capability`); a CPU has
    none: {}."""
    _check_device(device, "get_device_details")
    return {}


export("config.run_functions_eagerly")(context.run_functions_eagerly)
export("config.functions_run_eagerly")(context.functions_run_eagerly)


# == logical-device configuration ===================================================================

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
    """Splits `device` into the logical devices of `logical_devices` (a list of
    LogicalDeviceConfiguration; None clears the split), listed by `list_logical_devices`."""
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


# == device names ====================================================================================

@export("DeviceSpec")
class DeviceSpec:
    """A device name's parts, as TensorFlow's `tf.DeviceSpec`: `job`, `replica`, `task`,
    `device_type` (upper case: 'CPU', 'GPU') and `device_index`; `from_string` parses
    '/job:worker/replica:0/task:2/device:CPU:0' (or '/cpu:0'), `to_string` writes it back.
    Every op still runs on this machine's CPU (see `rt.device`)."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None,
                 device_index=None) -> None:
        self._job = None if job is None else str(job)
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        self._device_type = None if device_type is None else (
            str(device_type).upper() if str(device_type).lower() in ("cpu", "gpu", "tpu")
            else str(device_type))
        self._device_index = None if device_index is None else int(device_index)

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    @classmethod
    def from_string(cls, spec: str) -> "DeviceSpec":
        """The DeviceSpec of a device name; ValueError naming an unknown part."""
        parts: dict = {}
        for piece in str(spec).split("/"):
            if not piece:
                continue
            key, _, rest = piece.partition(":")
            lowered = key.lower()
            if lowered in ("job", "replica", "task") and rest:
                parts[lowered] = rest
            elif lowered == "device" and rest:
                kind, _, index = rest.partition(":")
                parts["device_type"] = kind
                if index and index != "*":
                    parts["device_index"] = index
            elif lowered in ("cpu", "gpu", "tpu") and rest:
                parts["device_type"] = lowered
                if rest != "*":
                    parts["device_index"] = rest
            else:
                raise ValueError(f"Unknown attribute '{key}' is encountered while parsing the "
                                 f"device spec: '{spec}'.")
        return cls(**parts)

    def to_string(self) -> str:
        """'/job:.../replica:.../task:.../device:TYPE:INDEX', with the parts that are set."""
        text = "".join(f"/{name}:{value}" for name, value in (
            ("job", self._job), ("replica", self._replica), ("task", self._task))
            if value is not None)
        if self._device_type is not None:
            index = "*" if self._device_index is None else self._device_index
            text += f"/device:{self._device_type}:{index}"
        return text

    def replace(self, **kwargs) -> "DeviceSpec":
        """A copy with the given parts changed."""
        fields = {name: getattr(self, name) for name in
                  ("job", "replica", "task", "device_type", "device_index")}
        unknown = set(kwargs) - set(fields)
        if unknown:
            raise TypeError(f"DeviceSpec.replace got unexpected keyword arguments "
                            f"{sorted(unknown)}; it takes {sorted(fields)}.")
        return DeviceSpec(**{**fields, **kwargs})

    def make_merged_spec(self, dev: "DeviceSpec") -> "DeviceSpec":
        """This spec with the parts `dev` sets taken from `dev`."""
        return self.replace(**{name: getattr(dev, name) for name in
                               ("job", "replica", "task", "device_type", "device_index")
                               if getattr(dev, name) is not None})

    def _key(self) -> tuple:
        return (self._job, self._replica, self._task, self._device_type, self._device_index)

    def __eq__(self, other) -> bool:
        return isinstance(other, DeviceSpec) and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"<DeviceSpec(job={self._job}, replica={self._replica}, task={self._task}, "
                f"device_type={self._device_type}, device_index={self._device_index})>")

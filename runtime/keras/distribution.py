"""`keras.distribution`: Keras 3's distribution API over this runtime's logical CPU devices.

    cpu = rt.config.list_physical_devices("CPU")[0]
    rt.config.set_logical_device_configuration(cpu, [rt.config.LogicalDeviceConfiguration()] * 2)
    mesh = keras.distribution.DeviceMesh((2,), ["batch"], keras.distribution.list_devices())
    keras.distribution.set_distribution(keras.distribution.DataParallel(device_mesh=mesh))
    model = make_model()          # its variables are mirrored on both devices
    model.compile(...); model.fit(x, y)    # each batch split between the two replicas

The devices are the logical CPU devices `rt.config.list_logical_devices()` reports, named as
Keras names them (`"cpu:0"`, `"cpu:1"`); there are no GPUs or TPUs. A distribution whose
mesh has more than one replica along its batch axis runs on an `rt.distribute.MirroredStrategy`
over those devices (one replica per device, run in threads): the variables of models made
while it is in force are mirrored, and `fit` splits each batch across the replicas and
all-reduces the gradients, so the weights equal those of single-device training on the whole
batch (as Keras promises). With one replica everything runs as usual on one device.

`set_distribution` enters the strategy's scope in the calling thread (as `strategy.scope()`
would) until another distribution (or None) is set; `Distribution.scope()` does so for a
`with` block. Layouts are recorded and checked, not applied: the host's one memory holds
every shard, so `ModelParallel` keeps whole variables on every replica and trains
data-parallel along its batch axis (the same weights as Keras's sharded training).

Keras's TensorFlow backend lacks `get_device_count`, `initialize` and `distribute_tensor`;
they work here as Keras's JAX backend documents them, for this single process.
"""

from __future__ import annotations

import collections.abc
import contextlib
import math
import os
import re
import warnings
from typing import Iterator

import numpy as np

from .. import distribute_context
from ..device_config import list_logical_devices
from ..distribute import MirroredStrategy
from ..layers.functional import KerasTensor
from ..ops.core import convert_to_tensor
from ..tensor import SymbolicTensor, Tensor

DEFAULT_BATCH_DIM_NAME = "batch"
_DEVICE_TYPES = ("cpu", "gpu", "tpu")
_DEVICE = re.compile(r"^(?:/job:[^/]+)?(?:/replica:\d+)?(?:/task:\d+)?/?(?:device:)?"
                     r"(cpu|gpu|tpu):(\d+)$", re.IGNORECASE)


def list_devices(device_type: str | None = None) -> list[str]:
    """The devices distributions run on, as Keras names them: `["cpu:0", "cpu:1", ...]`, one
    per logical CPU device of this runtime. `device_type` is "cpu", "gpu" or "tpu" (any
    case); there are no GPUs or TPUs here, so those give `[]`."""
    kind = _device_type(device_type, "list_devices")
    if kind not in (None, "cpu"):
        return []
    return [f"cpu:{d.name.rsplit(':', 1)[-1]}" for d in list_logical_devices("CPU")]


def get_device_count(device_type: str | None = None) -> int:
    """The number of devices `list_devices(device_type)` gives."""
    return len(list_devices(_device_type(device_type, "get_device_count")))


def initialize(job_addresses: str | None = None, num_processes: int | None = None,
               process_id: int | None = None) -> None:
    """Keras's set-up of a multi-process cluster. Arguments left out are read from the
    environment variables KERAS_DISTRIBUTION_JOB_ADDRESSES, KERAS_DISTRIBUTION_NUM_PROCESSES
    and KERAS_DISTRIBUTION_PROCESS_ID, as in Keras. This runtime is one process: one process
    (process 0) has nothing to prepare; several raise NotImplementedError (for several
    machines use `rt.distribute.MultiWorkerMirroredStrategy`)."""
    if job_addresses is None:
        job_addresses = os.environ.get("KERAS_DISTRIBUTION_JOB_ADDRESSES")
    if num_processes is None and "KERAS_DISTRIBUTION_NUM_PROCESSES" in os.environ:
        num_processes = int(os.environ["KERAS_DISTRIBUTION_NUM_PROCESSES"])
    if process_id is None and "KERAS_DISTRIBUTION_PROCESS_ID" in os.environ:
        process_id = int(os.environ["KERAS_DISTRIBUTION_PROCESS_ID"])
    if num_processes not in (None, 1) or process_id not in (None, 0):
        raise NotImplementedError(
            f"keras.distribution.initialize(num_processes={num_processes!r}, process_id="
            f"{process_id!r}): this runtime runs in one process, so only num_processes=1 "
            "(process_id=0) is supported; for a cluster use "
            "rt.distribute.MultiWorkerMirroredStrategy.")
    if job_addresses is not None and len(str(job_addresses).split(",")) > 1:
        raise NotImplementedError(
            f"keras.distribution.initialize(job_addresses={job_addresses!r}): this runtime "
            "runs in one process; several job addresses need "
            "rt.distribute.MultiWorkerMirroredStrategy.")


class DeviceMesh:
    """Devices arranged in a grid with named axes (Keras 3's `DeviceMesh(shape, axis_names,
    devices=None)`): `devices` (default `list_devices()`) reshaped to `shape`, e.g. `(8,)`
    for data parallelism or `(2, 4)` with `("batch", "model")`."""

    def __init__(self, shape, axis_names, devices=None) -> None:
        if not shape or not axis_names:
            raise ValueError("Shape and axis_names cannot be empty. Received: "
                             f"shape={shape}, axis_names={axis_names}")
        if len(shape) != len(axis_names):
            raise ValueError("Shape and axis_names should have same size. "
                             f"Received: shape={shape}, axis_names={axis_names}")
        if devices is None:
            devices = list_devices()
        devices = np.array(devices)
        if math.prod(shape) != math.prod(devices.shape):
            raise ValueError("Shape does not match the number of devices. "
                             f"Received: shape={shape}; devices.shape={devices.shape}")
        self._shape = shape
        self._axis_names = axis_names
        self._devices = np.reshape(devices, shape)

    @property
    def shape(self):
        return self._shape

    @property
    def axis_names(self):
        return self._axis_names

    @property
    def devices(self) -> np.ndarray:
        """The device names, an array of the mesh's shape."""
        return self._devices

    def __repr__(self) -> str:
        return f"<{type(self).__name__} shape={self.shape}, axis_names={self.axis_names}>"

    __str__ = __repr__


class TensorLayout:
    """How a tensor's axes map to a mesh's axes (Keras 3's `TensorLayout(axes,
    device_mesh=None)`): one mesh axis name, or None (not sharded), per tensor axis. The mesh
    may be set once later (a `LayoutMap` sets its own)."""

    def __init__(self, axes, device_mesh: DeviceMesh | None = None) -> None:
        self._axes = tuple(axes)
        self._device_mesh = device_mesh
        self._validate_axes()

    @property
    def axes(self) -> tuple:
        return self._axes

    @property
    def device_mesh(self) -> DeviceMesh | None:
        return self._device_mesh

    @device_mesh.setter
    def device_mesh(self, device_mesh: DeviceMesh) -> None:
        if self._device_mesh is not None:
            raise ValueError("Cannot override device mesh value. Existing value is "
                             f"{self._device_mesh}")
        self._device_mesh = device_mesh
        self._validate_axes()

    def _validate_axes(self) -> None:
        if self._device_mesh:
            valid = set(self._device_mesh.axis_names)
            names = set(self._axes) - {None}
            if names - valid:
                raise ValueError(f"Invalid axis names for Layout. Valid axis names: {valid}, "
                                 f"Got {names}")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} axes={self.axes}, device_mesh={self.device_mesh}>"

    __str__ = __repr__


class Distribution:
    """What every distribution has: its `device_mesh`, `batch_dim_name` (the mesh axis the
    data is split along), `scope()`, and the layouts of data, variables and tensors. One
    process here: `num_processes` is 1 and `distribute_dataset` returns the dataset as it is
    (each batch is split across the replicas by `fit`)."""

    def __init__(self, device_mesh: DeviceMesh, batch_dim_name: str | None = None,
                 auto_shard_dataset: bool = True) -> None:
        self._device_mesh = device_mesh
        self._batch_dim_name = batch_dim_name
        self._auto_shard_dataset = auto_shard_dataset
        self._num_processes = 1
        self._process_id = 0
        self._is_multi_process = False
        self._strategy = _strategy_for(self._replica_devices())

    # -- facts ----------------------------------------------------------------------------
    @property
    def device_mesh(self) -> DeviceMesh:
        return self._device_mesh

    @property
    def batch_dim_name(self) -> str | None:
        return self._batch_dim_name

    @property
    def auto_shard_dataset(self) -> bool:
        return self._auto_shard_dataset

    @auto_shard_dataset.setter
    def auto_shard_dataset(self, value: bool) -> None:
        self._auto_shard_dataset = value

    @property
    def num_processes(self) -> int:
        """The processes of the cluster: 1."""
        return self._num_processes

    @property
    def num_model_replicas(self) -> int:
        raise NotImplementedError(f"{type(self).__name__}.num_model_replicas")

    @property
    def data_shard_id(self) -> int:
        """The data shard this process reads: 0."""
        return self._process_id

    @property
    def distribute_strategy(self):
        """The `rt.distribute.MirroredStrategy` the replicas run on (None for one replica)."""
        return self._strategy

    def _replica_devices(self) -> list:
        """The device of each model replica: the first device of each index of the mesh's
        batch axis."""
        devices = self._device_mesh.devices
        names = list(self._device_mesh.axis_names)
        axis = names.index(self._batch_dim_name) if self._batch_dim_name in names else 0
        return [str(d) for d in np.moveaxis(devices, axis, 0).reshape(devices.shape[axis], -1)[:, 0]]

    # -- layouts ----------------------------------------------------------------------------
    def get_data_layout(self, data_shape) -> TensorLayout:
        """Input data is split along its first axis over the mesh's batch axis."""
        spec = [None] * len(data_shape)
        spec[0] = self.batch_dim_name
        return TensorLayout(spec, self.device_mesh)

    def get_variable_layout(self, variable) -> TensorLayout:
        raise NotImplementedError(f"{type(self).__name__}.get_variable_layout")

    def get_tensor_layout(self, path: str):
        raise NotImplementedError(f"{type(self).__name__}.get_tensor_layout")

    # -- in force ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def scope(self) -> Iterator[None]:
        """This distribution is the current one inside the block (models made there are
        distributed), the previous one again after it."""
        original = distribution()
        set_distribution(self)
        try:
            yield
        finally:
            set_distribution(original)

    def distribute_dataset(self, dataset):
        """The dataset each process reads: with one process, `dataset` itself."""
        return dataset

    def __repr__(self) -> str:
        return f"<{type(self).__name__} device_mesh={self.device_mesh}>"

    __str__ = __repr__


class DataParallel(Distribution):
    """Data parallelism (Keras 3's `DataParallel(device_mesh=None, devices=None,
    auto_shard_dataset=True)`): variables replicated on every device of a 1-D mesh, each
    batch split across them. Given neither `device_mesh` nor `devices`, every device of
    `list_devices()`. With more than one device, `fit` runs one replica per device on an
    `rt.distribute.MirroredStrategy` (see the module doc) and gives the weights of
    single-device training."""

    def __init__(self, device_mesh: DeviceMesh | None = None, devices=None,
                 auto_shard_dataset: bool = True) -> None:
        if device_mesh:
            if not isinstance(device_mesh, DeviceMesh):
                raise ValueError("Expect `mesh` to be an instance of `DeviceMesh`. "
                                 f"Received: mesh={device_mesh} (of type {type(device_mesh)})")
            if device_mesh.devices.ndim != 1:
                warnings.warn(f"Expect the input mesh to be 1D, but received "
                              f"mesh.devices.ndim={device_mesh.devices.ndim}. The first axis "
                              "will be used for data-parallel sharding.", stacklevel=2)
            super().__init__(device_mesh, device_mesh.axis_names[0], auto_shard_dataset)
            return
        devices = np.array(devices if devices else list_devices())
        mesh = DeviceMesh(shape=devices.shape, axis_names=[DEFAULT_BATCH_DIM_NAME],
                          devices=devices)
        super().__init__(mesh, DEFAULT_BATCH_DIM_NAME, auto_shard_dataset)

    @property
    def num_model_replicas(self) -> int:
        return int(self.device_mesh.devices.size)

    def _replica_devices(self) -> list:
        return [str(d) for d in self._device_mesh.devices.reshape(-1)]  # one per device

    def get_variable_layout(self, variable) -> TensorLayout:
        """The variable's own `_layout` if it has one, else replicated (no axis sharded)."""
        layout = getattr(variable, "_layout", None)
        if layout is not None:
            return layout
        return TensorLayout([None] * len(variable.shape), self.device_mesh)

    def get_tensor_layout(self, path: str) -> None:
        """Intermediate tensors keep their layout: None."""
        return None


class ModelParallel(Distribution):
    """Variables laid out by a `LayoutMap` (Keras 3's `ModelParallel(*, layout_map,
    batch_dim_name=None, auto_shard_dataset=True)`), data split along `batch_dim_name` (the
    mesh's first axis by default).

    The layouts are recorded, not applied (one memory holds every shard here): each replica
    along the batch axis keeps whole variables, and `fit` trains data-parallel over those
    replicas (a MirroredStrategy when there are several), which gives the weights Keras's
    sharded training gives. `device_mesh=` (Keras's deprecated keyword) must be the layout
    map's mesh if given."""

    def __init__(self, *, layout_map: "LayoutMap | None" = None, batch_dim_name: str | None = None,
                 auto_shard_dataset: bool = True, device_mesh: DeviceMesh | None = None) -> None:
        if layout_map is None:
            raise ValueError("You must specify a layout_map argument.")
        if not isinstance(layout_map, LayoutMap):
            raise ValueError("Argument `layout_map` must be a `LayoutMap` instance. "
                             f"Received: layout_map={layout_map}")
        mesh = layout_map.device_mesh
        if device_mesh is not None and device_mesh is not mesh:
            raise ValueError("ModelParallel: `device_mesh` is taken from `layout_map`; pass "
                             "no device_mesh (or the layout map's own).")
        batch_dim_name = batch_dim_name or mesh.axis_names[0]
        if batch_dim_name not in mesh.axis_names:
            raise ValueError(f"ModelParallel: batch_dim_name={batch_dim_name!r} is not an axis "
                             f"of the device mesh {mesh.axis_names}.")
        self._layout_map = layout_map
        super().__init__(mesh, batch_dim_name, auto_shard_dataset)

    @property
    def num_model_replicas(self) -> int:
        names = list(self.device_mesh.axis_names)
        return int(self.device_mesh.shape[names.index(self.batch_dim_name)])

    def get_variable_layout(self, variable) -> TensorLayout:
        """The variable's own `_layout`, else the layout map's entry for `variable.path`,
        else replicated."""
        layout = getattr(variable, "_layout", None)
        if layout is not None:
            return layout
        layout = self._layout_map[variable.path]
        if layout is not None:
            return layout
        return TensorLayout([None] * len(variable.shape), self.device_mesh)

    def get_tensor_layout(self, path: str):
        """The layout map's entry for `path`, or None."""
        return self._layout_map[path]


class LayoutMap(collections.abc.MutableMapping):
    """A dict from variable paths to `TensorLayout`s whose keys are regular expressions
    (Keras 3's `LayoutMap(device_mesh)`): `layout_map[path]` is the exact key's layout, else
    that of the one key that fully matches `path` (ValueError when several do), else None.
    A tuple of axis names given as a value becomes a TensorLayout on the map's mesh."""

    def __init__(self, device_mesh: DeviceMesh) -> None:
        self._layout_map: collections.OrderedDict = collections.OrderedDict()
        self._device_mesh = device_mesh

    def __getitem__(self, key: str):
        if key in self._layout_map:
            return self._layout_map[key]
        matching = [pattern for pattern in self._layout_map if re.fullmatch(pattern, key)]
        if len(matching) > 1:
            raise ValueError(f"Path '{key}' matches multiple layout specification keys: "
                             f"{matching}. Please make sure each tensor/variable path only "
                             "matches at most one layout specification key in the LayoutMap.")
        return self._layout_map[matching[0]] if matching else None

    def __setitem__(self, key: str, layout) -> None:
        if key in self._layout_map:
            raise ValueError(f"{key} already exist in the LayoutMap with value "
                             f"{self._layout_map[key]}. Please make sure to not use "
                             "duplicated keys.")
        if isinstance(layout, tuple):
            layout = TensorLayout(axes=layout, device_mesh=None)
        if not isinstance(layout, TensorLayout):
            raise ValueError(f"{layout} should be a TensorLayout type, got {type(layout)}")
        if layout.device_mesh is None and self._device_mesh is not None:
            layout.device_mesh = self._device_mesh
        self._layout_map[key] = layout

    def __delitem__(self, key: str):
        return self._layout_map.pop(key)

    def __len__(self) -> int:
        return len(self._layout_map)

    def __iter__(self):
        return iter(self._layout_map)

    @property
    def device_mesh(self) -> DeviceMesh:
        return self._device_mesh


LayoutMap.get.__doc__ = LayoutMap.__getitem__.__doc__


def distribute_tensor(tensor, layout: TensorLayout):
    """`tensor` laid out by `layout` (Keras 3's). The layout is checked (one mesh axis or
    None per tensor axis, each sharded axis divisible by its mesh axis's size, a mesh set)
    and the tensor returned as it is: the host's one memory holds every shard. A Keras
    tensor (a functional model being defined) or a symbolic tensor is returned unchecked."""
    if isinstance(tensor, KerasTensor):
        return tensor
    if not isinstance(layout, TensorLayout):
        raise TypeError(f"distribute_tensor: `layout` must be a keras.distribution."
                        f"TensorLayout, got {layout!r}.")
    if isinstance(tensor, SymbolicTensor):
        return tensor  # while a function traces
    mesh = layout.device_mesh
    if mesh is None:
        raise ValueError("Cannot create sharding when device mesh is not set for "
                         "TensorLayout.")
    value = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    shape = value.shape.as_list()
    if len(layout.axes) != len(shape):
        raise ValueError(f"distribute_tensor: the layout has {len(layout.axes)} axes "
                         f"{layout.axes} for a tensor of rank {len(shape)} (shape {shape}).")
    sizes = dict(zip(mesh.axis_names, mesh.shape))
    for dim, (size, axis) in enumerate(zip(shape, layout.axes)):
        if axis is not None and size is not None and size % sizes[axis]:
            raise ValueError(f"distribute_tensor: axis {dim} of size {size} cannot be split "
                             f"into {sizes[axis]} shards along the mesh axis {axis!r}.")
    return value


_current: list = [None]     # the global distribution
_entered: list = [None]     # (the thread's strategy stack, the strategy set_distribution entered)


def distribution() -> Distribution | None:
    """The distribution in force (set by `set_distribution` or a `scope()`), or None."""
    return _current[0]


def set_distribution(value: Distribution | None) -> None:
    """Makes `value` (a Distribution, or None for none) the distribution in force: models
    made afterwards are distributed by it. A distribution with several replicas enters its
    MirroredStrategy's scope in this thread until another one is set; inside another
    strategy's scope this raises ValueError, as mixing strategies does."""
    if value is not None and not isinstance(value, Distribution):
        raise TypeError(f"set_distribution: expected a keras.distribution.Distribution "
                        f"(DataParallel, ModelParallel) or None, got {value!r}.")
    strategy = None if value is None else value._strategy
    entered = _entered[0]
    current = distribute_context.current_strategy()
    if strategy is not None and current is not None and current is not strategy and \
            (entered is None or current is not entered[1]):
        raise ValueError(f"set_distribution: {value!r} runs on {strategy!r}, but the scope of "
                         f"{current!r} is entered; leave that scope first.")
    _leave()
    if strategy is not None:
        stack = distribute_context.state.strategies
        stack.append(strategy)
        _entered[0] = (stack, strategy)
    _current[0] = value


def _leave() -> None:
    entered, _entered[0] = _entered[0], None
    if entered is None:
        return
    stack, strategy = entered
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is strategy:
            del stack[i]
            return


def _device_type(device_type, caller: str) -> str | None:
    if device_type is None:
        return None
    if not isinstance(device_type, str) or device_type.lower() not in _DEVICE_TYPES:
        raise ValueError(f"{caller}: device_type must be one of {list(_DEVICE_TYPES)} or "
                         f"None, got {device_type!r}.")
    return device_type.lower()


def _strategy_for(devices: list):
    """A MirroredStrategy over `devices` (Keras's names, such as "cpu:1") when there are
    several, else None; a name that is not a logical device of this runtime is a
    ValueError."""
    known = {d.name for d in list_logical_devices()}
    names = []
    for device in devices:
        match = _DEVICE.match(str(device).strip())
        if match is None or f"/device:{match.group(1).upper()}:{int(match.group(2))}" \
                not in known:
            raise ValueError(f"keras.distribution: {device!r} is not a device of this runtime "
                             f"(keras.distribution.list_devices() gives {list_devices()}); "
                             "split the CPU with rt.config.set_logical_device_configuration "
                             "for more.")
        names.append(f"{match.group(1).upper()}:{int(match.group(2))}")
    if len(set(names)) != len(names):
        raise ValueError(f"keras.distribution: a device is listed twice in {devices}.")
    return MirroredStrategy(names) if len(names) > 1 else None


__all__ = ["DataParallel", "DeviceMesh", "LayoutMap", "ModelParallel", "TensorLayout",
           "distribute_tensor", "distribution", "get_device_count", "initialize",
           "list_devices", "set_distribution"]

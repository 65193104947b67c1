"""Small TensorFlow names: `newaxis`, `control_dependencies`, `ensure_shape`, `identity_n`,
`no_op`, `group`, `tuple`, `get_static_value`, and the `rt.config` device queries.

Ordering: a graph runs its operations in the order they were created (program order), and
ops with effects (prints, assertions, variable writes, py_function) are never dropped or
moved. So `control_dependencies` needs to add nothing: the ops created inside its block
already run after the control inputs, which were created before it. `group` and `no_op` give
None (there is no operation object to wait on; nothing needs one).
"""

from __future__ import annotations

import contextlib
import types
from typing import Any, Iterator

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..shapes import TensorShape
from ..tensor import EagerTensor, SymbolicTensor, Tensor
from . import array_ops, debug_ops, math_ops, reduce_ops
from .core import convert_to_tensor

newaxis = None  # rt.newaxis (runtime/__init__.py): `x[:, rt.newaxis]` adds an axis


@export("control_dependencies")
@contextlib.contextmanager
def control_dependencies(control_inputs) -> Iterator[None]:
    """Ops created in the block run after `control_inputs` (tensors, ops, or None).

    Eagerly there is nothing to order. Staged, graphs run in program order and never drop an
    op with an effect, so the inputs (made before the block) already run first."""
    if control_inputs is not None and not isinstance(control_inputs, (list, tuple)):
        raise TypeError(f"control_dependencies: control_inputs must be a list of tensors or "
                        f"operations (or None), got {type(control_inputs).__name__}.")
    yield None


@export("no_op")
def no_op(name: str | None = None) -> None:
    """Does nothing (TensorFlow's placeholder for control dependencies); returns None."""
    return None


@export("group")
def group(*inputs: Any, name: str | None = None) -> None:
    """Waits for `inputs`: in program order they have already run. Returns None."""
    return None


@export("identity_n")
def identity_n(input, name: str | None = None) -> list[Tensor]:  # noqa: A002 - TensorFlow's name
    """`[identity(t) for t in input]`."""
    if not isinstance(input, (list, tuple)):
        raise TypeError(f"identity_n: input must be a list of tensors, got "
                        f"{type(input).__name__}.")
    return [array_ops.identity(t) for t in input]


@export("tuple")
def tuple_(tensors, control_inputs=None, name: str | None = None) -> list[Tensor | None]:
    """The tensors, each passed through `identity` (they are ready together)."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"tuple: tensors must be a list of tensors, got "
                        f"{type(tensors).__name__}.")
    return [None if t is None else array_ops.identity(t) for t in tensors]


@export("get_static_value")
def get_static_value(tensor, partial: bool = False) -> np.ndarray | None:
    """The NumPy value of `tensor` if it is known without running a graph (an eager tensor,
    a constant, a Python or NumPy value, a static shape), else None."""
    if isinstance(tensor, TensorShape):
        return np.array(tensor.as_list(), dtype=np.int32) if tensor.is_fully_defined() else None
    if hasattr(tensor, "_as_tensor") and not isinstance(tensor, (EagerTensor, SymbolicTensor)):
        return None  # a variable: its value may change
    value = constant_value(tensor)
    if value is None and type(tensor) is SymbolicTensor:
        op = tensor.op
        if op.opdef is array_ops.SHAPE and op.inputs[0].shape.is_fully_defined():
            return np.array(op.inputs[0].shape.as_list(), dtype=tensor.dtype.as_numpy_dtype)
    return None if value is None else np.asarray(value)


@export("ensure_shape")
def ensure_shape(x, shape, name: str | None = None) -> Tensor:
    """`x`, checked to have `shape` (None for an unknown dim). Eagerly a mismatch raises
    rt.errors.InvalidArgumentError; while tracing, a static mismatch is a ValueError and a dim
    known only at run time is checked then (InvalidArgumentError). The result carries the merged static shape."""
    x = convert_to_tensor(x)
    want = TensorShape(shape)
    if isinstance(x, EagerTensor):
        if not want.is_compatible_with(TensorShape(x.shape.as_list())):
            raise InvalidArgumentError(f"ensure_shape: shape of tensor {x.shape} is not "
                                       f"compatible with expected shape {want}.")
        return x
    if not x.shape.is_compatible_with(want):
        raise ValueError(f"ensure_shape: the tensor {_label(x)} has shape {x.shape}, which is "
                         f"not compatible with the expected shape {want}.")
    if want.rank is None or x.shape.is_subtype_of(want):
        return array_ops.identity(x)
    actual = array_ops.shape(x)
    checks = []
    if x.shape.rank is None:
        checks.append(math_ops.equal(array_ops.size(actual), want.rank))
        padded = array_ops.concat([actual, array_ops.zeros([want.rank], _dtypes.int32)], 0)
        actual = padded[:want.rank]
    for i, d in enumerate(want.as_list()):
        if d is not None and (x.shape.rank is None or x.shape.as_list()[i] is None):
            checks.append(math_ops.equal(actual[i], d))
    if checks:
        ok = reduce_ops.reduce_all(array_ops.stack(checks))
        debug_ops.Assert(ok, [f"ensure_shape: shape of tensor {_label(x)} is not compatible "
                              f"with expected shape {want}; it is", actual])
    y = array_ops.identity(x)
    y.set_shape(y.shape.merge_with(want) if y.shape.rank is not None else want)
    return y


def _label(x) -> str:
    return getattr(x, "name", None) or "x"


# -- rt.config: devices ------------------------------------------------------------------------


class PhysicalDevice(types.SimpleNamespace):
    """A device this runtime can use: `name` and `device_type` ('CPU' only)."""

    def __init__(self, name: str, device_type: str):
        super().__init__(name=name, device_type=device_type)

    def __repr__(self) -> str:
        return f"PhysicalDevice(name='{self.name}', device_type='{self.device_type}')"


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
    """One logical CPU device, '/device:CPU:0'."""
    return [_LOGICAL_CPU] if _check_type(device_type, "list_logical_devices") else []


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


@export("config.get_visible_devices", "config.experimental.get_visible_devices")
def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    return list_physical_devices(device_type)


export("config.run_functions_eagerly")(context.run_functions_eagerly)
export("config.functions_run_eagerly")(context.functions_run_eagerly)

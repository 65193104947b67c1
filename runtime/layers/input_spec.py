"""`keras.InputSpec` (also `keras.layers.InputSpec`): what a layer accepts (dtype, shape,
rank bounds, sizes of given axes). A layer whose `input_spec` is set has its inputs checked
against it on every call, before it is built, with Keras 3's ValueError messages."""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dtypes
from .. import nest as _nest


def _dtype_name(dtype) -> str:
    return _dtypes.as_dtype(dtype).name


def _shape_tuple(shape) -> tuple:
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    return tuple(None if d is None else int(d) for d in shape)


class InputSpec:
    """`InputSpec(dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
    allow_last_axis_squeeze=False, name=None, optional=False)`: `shape` also fixes `ndim`;
    `axes` maps axis indices to their required sizes."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze: bool = False, name=None,
                 optional: bool = False) -> None:
        self.dtype = _dtype_name(dtype) if dtype is not None else None
        if shape is not None:
            self.shape = _shape_tuple(shape)
            self.ndim = len(self.shape)
        else:
            self.shape, self.ndim = None, ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.name, self.optional = name, optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError("Argument `axes` must be a dict with integer keys. "
                            f"Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            highest = (self.ndim if self.ndim else self.max_ndim) - 1
            if max(self.axes) > highest:
                raise ValueError(f"Axis {max(self.axes)} is greater than the maximum allowed "
                                 f"value: {highest}")

    def __repr__(self) -> str:
        parts = [f"{key}={value}" for key, value in (
            ("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim),
            ("max_ndim", self.max_ndim), ("min_ndim", self.min_ndim), ("axes", self.axes))
            if value]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self) -> dict:
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes,
                "optional": self.optional}

    @classmethod
    def from_config(cls, config: dict) -> "InputSpec":
        return cls(**config)


def assert_input_compatibility(input_spec: Any, inputs: Any, layer_name: str) -> None:
    """ValueError when `inputs` do not meet `input_spec` (one spec, or a nest of them)."""
    if not input_spec:
        return
    specs = _nest.flatten(input_spec)
    if isinstance(inputs, dict):
        names = [spec.name for spec in specs]
        if all(names):
            for name in names:
                if name not in inputs:
                    raise ValueError(f'Missing data for input "{name}". You passed a data '
                                     f"dictionary with keys {list(inputs)}. Expected the "
                                     f"following keys: {names}")
            inputs = [inputs[name] for name in names]
    flat = _nest.flatten(inputs)
    if len(flat) != len(specs):
        raise ValueError(f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
                         f"{len(flat)} input tensors. Inputs received: {flat}")
    for index, (x, spec) in enumerate(zip(flat, specs)):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise ValueError(f"Inputs to a layer should be tensors. Got '{x}' (of type "
                             f"{type(x)}) as input for layer '{layer_name}'.")
        _check_one(spec, x, index, layer_name)


def _check_one(spec: InputSpec, x, index: int, layer_name: str) -> None:
    shape = _shape_tuple(x.shape)
    ndim = len(shape)
    where = (f"Input {index} with name '{spec.name}' of layer '{layer_name}' is incompatible "
             "with the layer:")
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        raise ValueError(f"{where} expected ndim={spec.ndim}, found ndim={ndim}. Full shape "
                         f"received: {shape}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(f"{where} expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(f"{where} expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full "
                         f"shape received: {shape}")
    if spec.dtype is not None and _dtype_name(x.dtype) != spec.dtype:
        raise ValueError(f"{where} expected dtype={spec.dtype}, found "
                         f"dtype={_dtype_name(x.dtype)}")
    for axis, value in spec.axes.items():
        if value is not None and shape[axis] not in (value, None):
            raise ValueError(f"{where} expected axis {axis} of input shape to have value "
                             f"{value}, but received input with shape {shape}")
    if spec.shape is not None:
        expected, got = spec.shape, shape
        if spec.allow_last_axis_squeeze:
            got = got[:-1] if got and got[-1] == 1 else got
            expected = expected[:-1] if expected and expected[-1] == 1 else expected
        for want, dim in zip(expected, got):
            if want is not None and dim is not None and want != dim:
                raise ValueError(f"{where} expected shape={spec.shape}, found shape={shape}")

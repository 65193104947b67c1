"""More top-level `tf` functions composed of existing ops or reading the runtime's state:
`strided_slice`, `dynamic_partition`, `histogram_fixed_width_bins`, `parallel_stack`,
`get_logger`, `inside_function`, `get_current_name_scope`, the `tf.debugging` checks
`assert_non_positive` and `assert_same_float_dtype`; and the op `tf.bitcast`."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..attr_kinds import DTYPE
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math as _a
from . import debugging as _debugging
from .core import apply, convert_to_tensor

if TYPE_CHECKING:
    import logging


def _mask_bits(mask: int, rank: int) -> list[bool]:
    return [bool(mask >> i & 1) for i in range(rank)]


@export("strided_slice")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None) -> Tensor:
    """`input_[begin:end:strides]` per axis with TensorFlow's bit masks: bit i of `begin_mask`
    / `end_mask` ignores begin[i] / end[i], of `shrink_axis_mask` takes index begin[i] (dropping
    the axis), of `new_axis_mask` inserts an axis, of `ellipsis_mask` stands for `...`."""
    if var is not None:
        raise NotImplementedError("strided_slice: `var` is not supported; slice the variable's "
                                  "value instead.")
    x = convert_to_tensor(input_)
    b = _a.static_ints(begin, "strided_slice: begin")
    e = _a.static_ints(end, "strided_slice: end")
    s = (1,) * len(b) if strides is None else _a.static_ints(strides, "strided_slice: strides")
    if b is None or e is None or s is None:
        raise ValueError("strided_slice needs `begin`, `end` and `strides` known when tracing.")
    if not len(b) == len(e) == len(s):
        raise ValueError(f"strided_slice: `begin`, `end` and `strides` must have one length, got "
                         f"{len(b)}, {len(e)} and {len(s)}.")
    n = len(b)
    keys: list = []
    masks = [_mask_bits(m, n) for m in (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                                         shrink_axis_mask)]
    for i in range(n):
        no_begin, no_end, ellipsis, new_axis, shrink = (m[i] for m in masks)
        if ellipsis:
            keys.append(Ellipsis)
        elif new_axis:
            keys.append(None)
        elif shrink:
            keys.append(b[i])
        else:
            if s[i] == 0:
                raise ValueError("strided_slice: a stride of 0 is not allowed.")
            keys.append(slice(None if no_begin else b[i], None if no_end else e[i], s[i]))
    return _a.identity(x[tuple(keys)], name=name)


@export("dynamic_partition")
def dynamic_partition(data, partitions, num_partitions: int, name=None) -> list[Tensor]:
    """`num_partitions` tensors: the slices of `data` whose `partitions` entry is i, in order."""
    data, partitions = convert_to_tensor(data), convert_to_tensor(partitions)
    if not isinstance(num_partitions, numbers.Integral) or num_partitions < 1:
        raise ValueError(f"dynamic_partition: `num_partitions` must be a positive int, got "
                         f"{num_partitions!r}.")
    if not partitions.dtype.is_integer:
        raise TypeError(f"dynamic_partition: `partitions` must be int32, got "
                        f"{partitions.dtype.name}.")
    _debugging.assert_less(partitions, _a.cast(num_partitions, partitions.dtype),
                           message="dynamic_partition: partitions must be < num_partitions")
    return [_a.boolean_mask(data, _a.equal(partitions, _a.cast(i, partitions.dtype)))
            for i in range(int(num_partitions))]


@export("histogram_fixed_width_bins")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=_dtypes.int32,
                               name=None) -> Tensor:
    """The bin index of each value in `nbins` equal bins over `value_range` (values outside
    go to the first or last bin)."""
    values = convert_to_tensor(values)
    if not (values.dtype.is_floating or values.dtype.is_integer):
        raise TypeError(f"histogram_fixed_width_bins needs numbers, got {values.dtype.name}.")
    x = _a.cast(values, _dtypes.float64)
    bounds = _a.cast(convert_to_tensor(value_range), _dtypes.float64)
    scaled = _a.divide(_a.subtract(x, bounds[0]), _a.subtract(bounds[1], bounds[0]))
    nb = _a.cast(nbins, _dtypes.float64)
    index = _a.floor(_a.multiply(scaled, nb))
    index = _a.clip_by_value(index, 0.0, _a.subtract(nb, 1.0))
    return _a.cast(index, _dtypes.as_dtype(dtype), name=name)


@export("parallel_stack")
def parallel_stack(values: Sequence, name="parallel_stack") -> Tensor:
    """`stack(values)` inside a compiled function; eagerly, RuntimeError as in TensorFlow."""
    if context.executing_eagerly():
        raise RuntimeError("rt.parallel_stack() is not compatible with eager execution: use "
                           "rt.stack, or call it inside an rt.function.")
    return _a.stack(list(values), name=name)


@export("get_logger")
def get_logger() -> logging.Logger:
    """The 'tensorflow' logger of Python's logging module."""
    import logging  # when asked for: `import runtime` does not import logging

    return logging.getLogger("tensorflow")


@export("inside_function")
def inside_function() -> bool:
    """True while an `rt.function` is being traced (ops go into a graph)."""
    return context.current_graph() is not None


@export("get_current_name_scope")
def get_current_name_scope() -> str:
    """The current name scope, 'outer/inner' ('' at the top)."""
    return context.scope_prefix().rstrip("/")


@export("debugging.assert_non_positive")
def assert_non_positive(x, message=None, summarize=None, name=None) -> None:
    """Checks `x <= 0` for every element; raises rt.errors.InvalidArgumentError otherwise."""
    return _debugging.assert_less_equal(x, None, message=message, name=name)


@export("debugging.assert_same_float_dtype")
def assert_same_float_dtype(tensors=None, dtype=None) -> _dtypes.DType:
    """The floating dtype all `tensors` (and `dtype`, if given) share; ValueError when they
    differ or are not floating (float32 when there is nothing to check)."""
    found = _dtypes.as_dtype(dtype) if dtype is not None else None
    for t in tensors or []:
        t_dtype = t.dtype if isinstance(t, Tensor) else convert_to_tensor(t).dtype
        if found is None:
            found = t_dtype
        elif t_dtype is not found:
            raise ValueError(f"assert_same_float_dtype: dtypes differ: {found.name} and "
                             f"{t_dtype.name}.")
    if found is None:
        return _dtypes.float32
    if not found.is_floating:
        raise ValueError(f"assert_same_float_dtype: expected a floating dtype, got {found.name}.")
    return found


# -- bitcast -------------------------------------------------------------------------------------

def _bitcast_types(x_dtype, out_type):
    for what, dtype in (("input", x_dtype), ("type", out_type)):
        if not dtype.is_numeric or dtype.is_bool or dtype.is_quantized:
            raise TypeError(f"bitcast: `{what}` must be a numeric type (no bool or string), got "
                            f"{dtype.name}.")
    return np.dtype(x_dtype.as_numpy_dtype).itemsize, np.dtype(out_type.as_numpy_dtype).itemsize


def _bitcast_infer(x, type):  # noqa: A002 - TensorFlow's attribute name
    size_in, size_out = _bitcast_types(x.dtype, type)
    dims = x.shape.as_tuple()
    if size_in == size_out or dims is None:
        return (x.shape if size_in == size_out else TensorShape(None)), type
    if size_in > size_out:
        return TensorShape(list(dims) + [size_in // size_out]), type
    if not dims or dims[-1] not in (None, size_out // size_in):
        raise InvalidArgumentError(f"bitcast: a {x.dtype.name} tensor becomes {type.name} along "
                                   f"its last axis, which must have {size_out // size_in} "
                                   f"elements; `input` has shape {x.shape}.")
    return TensorShape(list(dims[:-1])), type


def _bitcast_kernel(x, type):  # noqa: A002
    x = np.asarray(x, order="C")  # (ascontiguousarray would make a scalar a vector)
    out = np.dtype(type.as_numpy_dtype)
    if out.itemsize > x.itemsize and (x.ndim == 0 or x.shape[-1] * x.itemsize != out.itemsize):
        raise InvalidArgumentError(f"bitcast: the last axis of `input` must hold one "
                                   f"{np.dtype(out).name} ({out.itemsize // x.itemsize} "
                                   f"elements), got shape {list(x.shape)}.")
    if out.itemsize < x.itemsize:
        return x.reshape(x.shape + (1,)).view(out)
    viewed = x.view(out)
    return viewed.reshape(x.shape[:-1]) if out.itemsize > x.itemsize else viewed


BITCAST = define("Bitcast", _bitcast_infer, _bitcast_kernel, attrs={"type": DTYPE})


@export("bitcast")
def bitcast(input, type, name=None) -> Tensor:  # noqa: A002 - TensorFlow's names
    """The bytes of `input` read as `type`, copying nothing that is not needed: the same shape
    for types of the same size; a new last axis of size(input's type) / size(type) elements for
    a smaller type; the last axis (of size(type) / size(input's type) elements) dropped for a
    larger one. Bool and string tensors have no bitcast; nothing is differentiable through it
    (op `Bitcast`)."""
    x = convert_to_tensor(input)
    return apply(BITCAST, [x], {"type": _dtypes.as_dtype(type)}, name=name)

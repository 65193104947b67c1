"""`TensorArray`: a list of same-shaped tensors that staged loops grow and stack.

Eagerly it is a Python list of values; while tracing it is a handle tensor (dtype variant)
whose value is such a list when the graph runs. The ops and their gradients are defined
here. The gradient of a handle is a dict {index: gradient of that element} (missing entries
are zero): reads and stacks create such dicts; a write takes its element's gradient out of
the dict it receives and passes the rest on, the way the value it wrote replaced the old one.
"""

from __future__ import annotations

import numpy as np

from .. import context, errors
from .. import dtypes as _dtypes
from ..attr_kinds import BOOL, DTYPE, OPT_DIMS, OPT_INT, PARTIAL_DIMS, SHAPE
from ..exports import export
from ..opdef import Effect, define
from ..shapes import TensorShape, as_shape
from ..tensor import EagerTensor, SymbolicTensor, Tensor
from . import array_math
from .core import apply, convert_to_tensor


def _define(name, infer, kernel=None, **kwargs):
    """Defines a TensorArray op (its staged handle holds a Python list of arrays)."""
    return define(name, infer, kernel, **kwargs)


def _define_carrier(name, infer, kernel=None, **kwargs):
    """Defines a TensorArray op that makes, grows or reads the array (`carrier` trait)."""
    return _define(name, infer, kernel, carrier="tensor_array", **kwargs)


def _ta_new(size, dtype, element_shape, dynamic_size):
    return [None] * int(size)


def _ta_write(handle, index, value, dynamic_size):
    i = int(index)
    if i < 0:
        raise errors.InvalidArgumentError(f"TensorArray write: index {i} is negative.")
    if i >= len(handle):
        if not dynamic_size:
            raise errors.InvalidArgumentError(
                f"TensorArray write: index {i} is out of range for a TensorArray of size "
                f"{len(handle)}; create it with dynamic_size=True to let it grow.")
        handle.extend([None] * (i + 1 - len(handle)))
    handle[i] = value
    return handle


def _ta_read(handle, index):
    i = int(index)
    if not 0 <= i < len(handle) or handle[i] is None:
        raise errors.InvalidArgumentError(
            f"TensorArray read: index {i} has not been written (size {len(handle)}).")
    return handle[i]


def _element_dims(element_shape):
    """The element shape (a TensorShape attribute, or its tuple) as a tuple, or None."""
    return element_shape.as_tuple() if isinstance(element_shape, TensorShape) else element_shape


def _ta_stack(handle, dtype, element_shape):
    element_shape = _element_dims(element_shape)
    if any(v is None for v in handle):
        missing = [i for i, v in enumerate(handle) if v is None]
        if len(missing) != len(handle) or element_shape is None or None in element_shape:
            raise errors.InvalidArgumentError(
                f"TensorArray stack: elements {missing[:5]} have not been written (and the "
                f"element shape {TensorShape(element_shape)} is not fully known).")
        return np.zeros((len(handle),) + tuple(element_shape), dtype.as_numpy_dtype)
    if not handle:
        shape = tuple(d or 0 for d in element_shape) if element_shape is not None else ()
        return np.zeros((0,) + shape, dtype.as_numpy_dtype)
    return np.stack(handle)


def _ta_gather(handle, indices, dtype, element_shape):
    element_shape = _element_dims(element_shape)
    return np.stack([_ta_read(handle, i) for i in np.ravel(indices)]) if np.size(indices) else \
        np.zeros((0,) + tuple(d or 0 for d in (element_shape or ())), dtype.as_numpy_dtype)


def _ta_concat(handle, dtype, element_shape):
    parts = [_ta_read(handle, i) for i in range(len(handle))]
    return np.concatenate(parts) if parts else np.zeros((0,), dtype.as_numpy_dtype)


def _ta_unstack(handle, value):
    value = np.asarray(value)
    handle[:] = list(value)
    return handle


_ELEMENT = {"dtype": DTYPE, "element_shape": SHAPE}  # the attrs of the ops that read elements

TA_NEW = _define_carrier("TensorArrayV3", lambda size, **a: (TensorShape([]), _dtypes.variant), _ta_new,
                effects=Effect.WRITE, differentiable=False,
                attrs={"dtype": DTYPE, "element_shape": PARTIAL_DIMS, "dynamic_size": BOOL})


def _emit_write(em, op):
    """Appending (index == size) to a growable array is a list append; other writes call the
    kernel, which checks the index."""
    handle, index, value = em.ins(op)
    out = em.outs(op)[0]
    kernel = em.bind(_ta_write)
    if not op.attrs["dynamic_size"]:
        em.line(f"{out} = {kernel}({handle}, {index}, {value}, False)")
        return
    em.line(f"if {index} == len({handle}):")
    with em.indented():
        em.line(f"{handle}.append({value})")
        em.line(f"{out} = {handle}")
    em.line("else:")
    with em.indented():
        em.line(f"{out} = {kernel}({handle}, {index}, {value}, True)")


TA_WRITE = _define_carrier("TensorArrayWriteV3", lambda h, i, v, **a: (TensorShape([]), _dtypes.variant),
                  _ta_write, emit=_emit_write, effects=Effect.WRITE, attrs={"dynamic_size": BOOL})


@TA_WRITE.def_grad
def _write_grad(op, grad):
    value = op.forward_inputs[2]
    dims = _static(value)
    like = [] if dims is not None else [op.inputs[2]]
    rest, g = apply(TA_GRAD_WRITE, [grad, op.inputs[1], *like],
                    {"shape": dims, "dtype": value.dtype})
    return [rest, None, g]


TA_READ = _define_carrier("TensorArrayReadV3", lambda h, i, dtype, element_shape: (element_shape, dtype),
                 lambda h, i, dtype, element_shape: _ta_read(h, i), effects=Effect.READ, attrs=_ELEMENT)


@TA_READ.def_grad
def _read_grad(op, g):
    return [apply(TA_GRAD_READ, [g, op.inputs[1]]), None]


TA_STACK = _define_carrier("TensorArrayStack", lambda h, dtype, element_shape: (
    TensorShape([None]).concatenate(element_shape), dtype), _ta_stack, effects=Effect.READ,
    attrs=_ELEMENT)


@TA_STACK.def_grad
def _stack_grad(op, g):
    return [apply(TA_GRAD_STACK, [g])]


def _emit_size(em, op):
    """The size as an int32, or as a Python int when it is only ever the index of a write to
    the same array (an append), which needs no NumPy scalar."""
    size, handle = op.outputs[0], op.inputs[0]
    only_index = all(c is not None and c.opdef is TA_WRITE and c.inputs[0] is handle
                     and c.inputs[1] is size and c.inputs[2] is not size
                     for c in em.consumers(size))
    value = f"len({em.ins(op)[0]})"
    em.line(f"{em.outs(op)[0]} = {value if only_index else f'np.int32({value})'}")


TA_SIZE = _define_carrier("TensorArraySizeV3", lambda h: (TensorShape([]), _dtypes.int32),
                  lambda h: np.int32(len(h)), effects=Effect.READ, differentiable=False,
                  emit=_emit_size)


TA_GATHER = _define_carrier("TensorArrayGatherV3", lambda h, i, dtype, element_shape: (
    TensorShape([i.shape[0] if i.shape.rank == 1 else None]).concatenate(element_shape), dtype),
    _ta_gather, effects=Effect.READ, attrs=_ELEMENT)


@TA_GATHER.def_grad
def _gather_grad(op, g):
    return [apply(TA_GRAD_GATHER, [g, op.inputs[1]]), None]


TA_CONCAT = _define_carrier("TensorArrayConcatV3", lambda h, dtype, element_shape: (
    TensorShape([None]).concatenate(element_shape[1:] if element_shape.rank else TensorShape(None)),
    dtype), _ta_concat, effects=Effect.READ, attrs=_ELEMENT)


@TA_CONCAT.def_grad
def _concat_grad(op, g):
    return [apply(TA_GRAD_CONCAT, [g, op.inputs[0]])]


TA_UNSTACK = _define_carrier("TensorArrayScatterV3", lambda h, v: (TensorShape([]), _dtypes.variant),
                    _ta_unstack, effects=Effect.WRITE)


@TA_UNSTACK.def_grad
def _scatter_grad(op, grad):
    value = op.forward_inputs[1]
    dims = _static(value)
    attrs = {"count": dims[0] if dims else None, "shape": dims[1:] if dims else None,
             "dtype": value.dtype}
    rest, g = apply(TA_GRAD_SCATTER, [grad, *([] if dims else [op.inputs[1]])], attrs)
    return [rest, g]


@export("TensorArray")
class TensorArray:
    """A list of same-shaped tensors that staged loops can grow (`write`) and `stack`.

    Eagerly it is a Python list of values; while tracing it is a handle tensor whose value
    is such a list when the graph runs. `write` returns the TensorArray to keep using.
    """

    def __init__(self, dtype, size=0, dynamic_size=False, clear_after_read=None,
                 tensor_array_name=None, element_shape=None, infer_shape=True, name=None,
                 _handle=None, _eager_values=None):
        self.dtype = _dtypes.as_dtype(dtype)
        self.dynamic_size = bool(dynamic_size)
        self._element_shape = TensorShape(None) if element_shape is None else as_shape(element_shape)
        self._tensors = {}  # eagerly: the tensor written at each index, for gradient tapes
        if _handle is not None or _eager_values is not None:
            self._handle = _handle
            self._values = _eager_values
            return
        if context.current_graph() is None and not isinstance(size, SymbolicTensor):
            self._handle = None
            self._values = [None] * int(size)
        else:
            self._values = None
            size_t = convert_to_tensor(size, dtype_hint=_dtypes.int32)
            self._handle = apply(TA_NEW, [size_t], {"dtype": self.dtype,
                                                    "element_shape": self._element_shape.as_tuple(),
                                                    "dynamic_size": self.dynamic_size})

    # -- composite protocol --------------------------------------------------------------
    def _with_handle(self, handle):
        ta = TensorArray(self.dtype, dynamic_size=self.dynamic_size,
                         element_shape=self._element_shape, _handle=handle)
        return ta

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    @property
    def handle(self):
        return self._handle

    def _eager(self) -> bool:
        return self._values is not None

    def _check_value(self, value):
        value = convert_to_tensor(value, dtype=self.dtype) if not isinstance(value, Tensor) \
            else convert_to_tensor(value)
        if value.dtype is not self.dtype:
            raise TypeError(f"TensorArray of dtype {self.dtype.name} cannot hold a value of dtype "
                            f"{value.dtype.name}.")
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(f"TensorArray of element shape {self._element_shape} cannot hold a "
                             f"value of shape {value.shape}; its elements must share one shape.")
        self._element_shape = self._element_shape.merge_with(value.shape) \
            if self._element_shape.rank is not None else value.shape
        return value

    # -- operations --------------------------------------------------------------------------
    def write(self, index, value, name=None) -> "TensorArray":
        value = self._check_value(value)
        if self._eager():
            _ta_write(self._values, int(index), value._value, self.dynamic_size)
            self._tensors[int(index)] = value
            return self
        handle = apply(TA_WRITE, [self._handle, convert_to_tensor(index, dtype_hint=_dtypes.int32),
                                  value], {"dynamic_size": self.dynamic_size})
        return self._with_handle_shape(handle)

    def _with_handle_shape(self, handle):
        ta = self._with_handle(handle)
        ta._element_shape = self._element_shape
        return ta

    def read(self, index, name=None) -> Tensor:
        if self._eager():
            if context.state.tapes and int(index) in self._tensors:
                _ta_read(self._values, int(index))
                return self._tensors[int(index)]
            return EagerTensor(_ta_read(self._values, int(index)))
        return apply(TA_READ, [self._handle, convert_to_tensor(index, dtype_hint=_dtypes.int32)],
                     {"dtype": self.dtype, "element_shape": self._element_shape})

    def _as_function_output(self) -> Tensor:
        """What a compiled function returning this array returns: its stacked elements."""
        return self.stack()

    def __getitem__(self, index):
        """`ta[i]`, for the Python lists autograph stages as TensorArrays (`lst[1]` after a
        staged loop appended to `lst`): `read(i)` for an integer or scalar integer tensor,
        counting from the end when negative as Python does; other indices (slices, ...) index
        the stacked elements."""
        if isinstance(index, (bool, np.bool_)) or not (
                isinstance(index, (int, np.integer))
                or (isinstance(index, Tensor) and index.dtype.is_integer and index.shape.rank == 0)):
            return self.stack()[index]
        if isinstance(index, Tensor):
            index = array_math.where(index < 0, index + array_math.cast(self.size(), index.dtype), index)
        elif index < 0:
            index = (len(self._values) if self._eager() else self.size()) + index
        return self.read(index)

    def stack(self, name=None) -> Tensor:
        if self._eager():
            if context.state.tapes and self._values and all(v is not None for v in self._values):
                return array_math.stack(self._recorded(range(len(self._values))))
            return EagerTensor(_ta_stack(self._values, self.dtype, self._element_shape.as_tuple()))
        return apply(TA_STACK, [self._handle], {"dtype": self.dtype,
                                                "element_shape": self._element_shape})

    def gather(self, indices, name=None) -> Tensor:
        if self._eager():
            if context.state.tapes and np.size(indices):
                for i in np.ravel(indices):
                    _ta_read(self._values, int(i))
                return array_math.stack(self._recorded(np.ravel(indices)))
            return EagerTensor(_ta_gather(self._values, np.asarray(indices), self.dtype,
                                          self._element_shape.as_tuple()))
        return apply(TA_GATHER, [self._handle, convert_to_tensor(indices, dtype_hint=_dtypes.int32)],
                     {"dtype": self.dtype, "element_shape": self._element_shape})

    def concat(self, name=None) -> Tensor:
        if self._eager():
            if context.state.tapes and self._values and all(v is not None for v in self._values):
                return array_math.concat(self._recorded(range(len(self._values))), 0)
            return EagerTensor(_ta_concat(self._values, self.dtype, self._element_shape.as_tuple()))
        return apply(TA_CONCAT, [self._handle], {"dtype": self.dtype,
                                                 "element_shape": self._element_shape})

    def unstack(self, value, name=None) -> "TensorArray":
        value = convert_to_tensor(value)
        if value.dtype is not self.dtype:
            raise TypeError(f"TensorArray of dtype {self.dtype.name} cannot unstack a "
                            f"{value.dtype.name} tensor.")
        if value.shape.rank:
            self._element_shape = value.shape[1:]
        if self._eager():
            self._values[:] = list(np.asarray(value._value))
            self._tensors = dict(enumerate(array_math.unstack(value))) \
                if context.state.tapes and value.shape.rank else {}
            return self
        return self._with_handle_shape(apply(TA_UNSTACK, [self._handle, value]))

    def _recorded(self, indices) -> list:
        """The eager elements at `indices` as the tensors written there (tapes see them)."""
        found = [self._tensors.get(int(i)) for i in indices]
        return [EagerTensor(self._values[int(i)]) if t is None else t for i, t in zip(indices, found)]

    def size(self, name=None) -> Tensor:
        if self._eager():
            return EagerTensor(np.int32(len(self._values)))
        return apply(TA_SIZE, [self._handle])

    def __repr__(self) -> str:
        return f"<rt.TensorArray dtype={self.dtype.name} element_shape={self._element_shape}>"


# -- gradients ------------------------------------------------------------------------------

_SCALAR = TensorShape([])


def _handle_infer(*_args, **_attrs):
    return _SCALAR, _dtypes.variant


def _add_kernel(*grads):
    total: dict = {}
    for grad in grads:
        for i, g in (grad or {}).items():
            total[i] = total[i] + g if i in total else g
    return total


def _from_gather_kernel(g, indices):
    out: dict = {}
    for row, i in enumerate(np.ravel(indices)):
        i = int(i)
        out[i] = out[i] + g[row] if i in out else g[row]
    return out


def _from_concat_kernel(g, handle):
    out, start = {}, 0
    for i, value in enumerate(handle):
        n = np.shape(value)[0]
        out[i] = g[start:start + n]
        start += n
    return out


def _element_zeros(shape, dtype, like):
    return np.zeros(np.shape(like[0]) if shape is None else shape, dtype.as_numpy_dtype)


def _write_grad_kernel(grad, index, *like, shape, dtype):
    grad = grad if grad is not None else {}
    g = grad.pop(int(index), None)
    return grad, (_element_zeros(shape, dtype, like) if g is None else g)


def _scatter_grad_kernel(grad, *like, count, shape, dtype):
    grad = grad if grad is not None else {}
    count = np.shape(like[0])[0] if count is None else count
    rows = []
    for i in range(count):
        g = grad.pop(i, None)
        rows.append(np.zeros(np.shape(like[0])[1:] if shape is None else shape, dtype.as_numpy_dtype)
                    if g is None else g)
    return grad, np.stack(rows) if rows else np.zeros((0,) + tuple(shape or ()), dtype.as_numpy_dtype)


TA_GRAD_ADD = _define("TensorArrayGradAdd", _handle_infer, _add_kernel)
TA_GRAD_STACK = _define("TensorArrayGradFromStack", _handle_infer, lambda g: dict(enumerate(g)),
                       template="dict(enumerate({0}))")


TA_GRAD_READ = _define("TensorArrayGradFromRead", _handle_infer, lambda g, i: {int(i): g},
                      template="{{int({1}): {0}}}")


TA_GRAD_GATHER = _define("TensorArrayGradFromGather", _handle_infer, _from_gather_kernel)
TA_GRAD_CONCAT = _define("TensorArrayGradFromConcat", _handle_infer, _from_concat_kernel)


def _write_grad_infer(grad, index, *like, shape, dtype):
    element = TensorShape(shape) if shape is not None else like[0].shape
    return [(_SCALAR, _dtypes.variant), (element, dtype)]


def _scatter_grad_infer(grad, *like, count, shape, dtype):
    value = TensorShape([count]).concatenate(shape) if shape is not None else like[0].shape
    return [(_SCALAR, _dtypes.variant), (value, dtype)]


TA_GRAD_WRITE = _define("TensorArrayWriteGrad", _write_grad_infer, _write_grad_kernel,
                       num_outputs=2, attrs={"dtype": DTYPE, "shape": OPT_DIMS})


TA_GRAD_SCATTER = _define("TensorArrayScatterGrad", _scatter_grad_infer, _scatter_grad_kernel,
                         num_outputs=2, attrs={"count": OPT_INT, "dtype": DTYPE, "shape": OPT_DIMS})


# The gradient ops' own gradients (higher orders): each `...GradFrom...` op, which makes a
# gradient dict from element gradients, has as adjoint an op taking element gradients out of
# a dict (missing entries are zero), and the other way round.

def _get_kernel(grad, index, like):
    g = (grad or {}).get(int(index))
    return np.zeros_like(like) if g is None else g


def _get_stacked_kernel(grad, like):
    grad = grad or {}
    return np.stack([grad.get(k, np.zeros_like(row)) for k, row in enumerate(like)]) \
        if len(like) else np.zeros_like(like)


def _get_gathered_kernel(grad, indices, like):
    grad, zero = grad or {}, np.zeros(np.shape(like)[1:], like.dtype)
    rows = [grad.get(int(i), zero) for i in np.ravel(indices)]
    return np.stack(rows) if rows else np.zeros_like(like)


def _get_concat_kernel(grad, handle, like):
    grad = grad or {}
    parts = [grad.get(i, np.zeros_like(value)) for i, value in enumerate(handle)]
    return np.concatenate(parts) if parts else np.zeros_like(like)


def _like_infer(*inputs):
    return inputs[-1].shape, inputs[-1].dtype


TA_GRAD_GET = _define("TensorArrayGradGet", _like_infer, _get_kernel)
TA_GRAD_GET_STACKED = _define("TensorArrayGradGetStacked", _like_infer, _get_stacked_kernel)
TA_GRAD_GET_GATHERED = _define("TensorArrayGradGetGathered", _like_infer, _get_gathered_kernel)
TA_GRAD_GET_CONCAT = _define("TensorArrayGradGetConcat", _like_infer, _get_concat_kernel)


@TA_GRAD_STACK.def_grad
def _grad_stack_grad(op, d):
    return [apply(TA_GRAD_GET_STACKED, [d, op.inputs[0]])]


@TA_GRAD_GET_STACKED.def_grad
def _get_stacked_grad(op, g):
    return [apply(TA_GRAD_STACK, [g]), None]


@TA_GRAD_READ.def_grad
def _grad_read_grad(op, d):
    return [apply(TA_GRAD_GET, [d, op.inputs[1], op.inputs[0]]), None]


@TA_GRAD_GET.def_grad
def _get_grad(op, g):
    return [apply(TA_GRAD_READ, [g, op.inputs[1]]), None, None]


@TA_GRAD_GATHER.def_grad
def _grad_gather_grad(op, d):
    return [apply(TA_GRAD_GET_GATHERED, [d, op.inputs[1], op.inputs[0]]), None]


@TA_GRAD_GET_GATHERED.def_grad
def _get_gathered_grad(op, g):
    return [apply(TA_GRAD_GATHER, [g, op.inputs[1]]), None, None]


@TA_GRAD_CONCAT.def_grad
def _grad_concat_grad(op, d):
    return [apply(TA_GRAD_GET_CONCAT, [d, op.inputs[1], op.inputs[0]]), None]


@TA_GRAD_GET_CONCAT.def_grad
def _get_concat_grad(op, g):
    return [apply(TA_GRAD_CONCAT, [g, op.inputs[1]]), None, None]


@TA_GRAD_ADD.def_grad
def _grad_add_grad(op, d):
    """Each part gets the sum's gradient; every part but the first a copy of it (the dicts
    are popped from by the write gradients)."""
    return [d] + [apply(TA_GRAD_ADD, [d]) for _ in op.forward_inputs[1:]]


@TA_GRAD_WRITE.def_grad
def _grad_write_grad(op, d_rest, d_element):
    """`rest` is the dict without the written index and `element` its entry: the dict's
    gradient is d_rest without that index, with d_element there."""
    index = op.inputs[1]
    if d_rest is not None:
        d_rest = apply(TA_GRAD_WRITE, [d_rest, index, *op.inputs[2:]], op.attrs)[0]
    parts = [p for p in (d_rest, None if d_element is None else
                         apply(TA_GRAD_READ, [d_element, index])) if p is not None]
    return [add_grads(parts) if len(parts) > 1 else parts[0]] + [None] * (len(op.inputs) - 1)


@TA_GRAD_SCATTER.def_grad
def _grad_scatter_grad(op, d_rest, d_rows):
    """As for a write, with the rows 0..count-1 in place of one index."""
    if d_rest is not None:
        d_rest = apply(TA_GRAD_SCATTER, [d_rest, *op.inputs[1:]], op.attrs)[0]
    parts = [p for p in (d_rest, None if d_rows is None else apply(TA_GRAD_STACK, [d_rows]))
             if p is not None]
    return [add_grads(parts) if len(parts) > 1 else parts[0]] + [None] * (len(op.inputs) - 1)


def add_grads(parts: list):
    """The sum of several TensorArray gradients."""
    return apply(TA_GRAD_ADD, list(parts))


def _static(tensor):
    return array_math.static_dims(tensor)

"""The one function that applies an op, eagerly or into a graph, and conversion to tensors.

Ops are defined in `runtime.opdef`; `define` and `OpDef` are re-exported here for op modules.
"""

from __future__ import annotations

import types

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError, ResourceExhaustedError
from ..exports import export
from ..opdef import OpDef, define
from ..shapes import TensorShape
from ..tensor import DeviceTensor, EagerTensor, SymbolicTensor, Tensor, to_numpy_value

# -- conversion --------------------------------------------------------------------------

@export("convert_to_tensor")
def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None) -> Tensor:
    """A tensor for `value` (tensors pass through; Python and NumPy values become constants).

    With `dtype`, a tensor of another dtype is refused with ValueError; Python and NumPy
    values are converted to `dtype` (a float that would lose its fraction raises TypeError).
    """
    tp = type(value)
    if tp is SymbolicTensor or tp is EagerTensor:   # the common case: nothing to convert
        if dtype is None or value.dtype is _dtypes.as_dtype(dtype):
            return value
    if isinstance(value, Tensor):
        if hasattr(value, "_as_tensor"):
            value = value._as_tensor()
        if dtype is not None:
            dtype = _dtypes.as_dtype(dtype)
            if value.dtype is not dtype:
                raise ValueError(f"Tensor conversion requested dtype {dtype.name} for a tensor "
                                 f"with dtype {value.dtype.name}: {value!r}. Use rt.cast.")
        return value
    if hasattr(value, "_as_tensor"):  # TensorArray-like composites
        return value._as_tensor()
    if _user_conversions:  # rt.register_tensor_conversion_function's
        converted = _user_conversion(value, dtype, name)
        if converted is not None:
            return converted
    if isinstance(value, _composites):  # a ragged one would pass as rows when they agree
        raise CompositeConversionError(
            f"Cannot convert a {type(value).__name__} to a tensor: this op takes tensors (a "
            "RaggedTensor converts with .to_tensor(), a SparseTensor with rt.sparse.to_dense).")
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
        if type(value) in _PY_SCALARS:
            graph = context.current_graph()
            if graph is not None:
                return _scalar_constant(graph, value, dtype)
    elif dtype_hint is not None and not isinstance(value, np.ndarray | np.generic):
        hint = _dtypes.as_dtype(dtype_hint)
        try:
            return _const(to_numpy_value(value, hint))
        except (TypeError, NotImplementedError):   # NotImplementedError: holds symbolic tensors
            pass
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in _flat(value)):
        return _conversions["pack"]([convert_to_tensor(v, dtype) for v in value])
    return _const(to_numpy_value(value, dtype))


_conversions = {}  # "pack": stack tensors, "cast": change dtype; see register_conversions
_user_conversions: list = []  # (priority, order, types, function), lowest priority first


def register_user_conversion(kinds: tuple, function, priority: int) -> None:
    """`rt.register_tensor_conversion_function`: `function(value, dtype=, name=, as_ref=)`
    converts values of the types `kinds` (it may return NotImplemented to pass)."""
    _user_conversions.append((priority, len(_user_conversions), kinds, function))
    _user_conversions.sort(key=lambda entry: entry[:2])


def _user_conversion(value, dtype, name):
    for _, _, kinds, function in _user_conversions:
        if isinstance(value, kinds):
            out = function(value, dtype=dtype, name=name, as_ref=False)
            if out is NotImplemented:
                continue
            if not isinstance(out, Tensor):
                raise RuntimeError(f"The conversion function registered for "
                                   f"{type(value).__name__} returned a {type(out).__name__}, "
                                   "not a tensor.")
            if dtype is not None and out.dtype is not _dtypes.as_dtype(dtype):
                raise RuntimeError(f"The conversion function registered for "
                                   f"{type(value).__name__} returned a {out.dtype.name} "
                                   f"tensor where {_dtypes.as_dtype(dtype).name} was asked for.")
            return out
    return None
_composites: tuple = ()  # CompositeTensor (defined above this module): never converted


def refuse_conversion(cls: type) -> None:
    """Makes `convert_to_tensor` refuse values of `cls` (composite values, which an API
    takes only through a dispatched handler: runtime.ops.dispatch) with TypeError."""
    global _composites
    _composites = (*_composites, cls)


class CompositeConversionError(TypeError, ValueError):
    """A composite value where an op takes tensors: a ValueError, as TensorFlow raises for it,
    and a TypeError, the refusal on which a published API looks for a dispatched handler
    (runtime.arguments.COMPOSITE_HANDLER)."""


def refuse_composite(value, what: str) -> None:
    """Refuses a composite value (a DynamicRaggedShape as a shape, ...): an API reads it only
    through a dispatched handler."""
    if isinstance(value, _composites):
        raise CompositeConversionError(f"{what} must be a list of ints or an int tensor, got a "
                                       f"{type(value).__name__}.")


def register_conversions(pack, cast) -> None:
    """The ops conversion needs (they are defined with the array ops, above this module):
    `pack(tensors)` stacks a list holding tensors, `cast(tensor, dtype)` changes a dtype."""
    _conversions.update(pack=pack, cast=cast)


_PY_SCALARS = (int, float, bool)


def _scalar_constant(graph, value, dtype) -> Tensor:
    """A graph constant for a Python scalar, shared per (value, dtype) without array work."""
    key = ("py", dtype.name, type(value), repr(value))  # repr tells -0.0 from 0.0
    return graph.shared_constant(key, lambda: graph.constant(to_numpy_value(value, dtype)))


def _flat(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _const(array) -> Tensor:
    graph = context.current_graph()
    if graph is None:
        return EagerTensor(array)
    return graph.constant(array)


@export("constant")
def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """A constant tensor; with `shape`, a scalar is broadcast and a same-size value reshaped."""
    if isinstance(value, Tensor):
        value = np.asarray(value) if isinstance(value, EagerTensor) else value
        if isinstance(value, Tensor):
            return _conversions["cast"](value, dtype) if dtype is not None else value
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
    array = to_numpy_value(value, dtype)
    if shape is not None:
        shape = tuple(TensorShape(shape).as_list())
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=array.dtype)
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise TypeError(f"Cannot make a constant of shape {list(shape)} from a value with "
                            f"{array.size} elements (shape {list(array.shape)}).")
    if weak_constant_hook is not None and dtype is None:
        return weak_constant_hook(_const(array), value)
    return _const(array)


# fn(tensor, value) -> tensor: rt.experimental.numpy's "all" and "safe" modes mark a constant
# of Python numbers weakly typed, as TensorFlow's WeakTensor
weak_constant_hook = None


promotion_hook = None  # set by rt.experimental.numpy.experimental_enable_numpy_behavior


def binary_operands(x, y):
    """Converts the operands of a binary op to tensors of one dtype.

    A non-tensor operand takes the tensor operand's dtype; two tensors of different dtypes
    raise TypeError naming both (unless NumPy behaviour is enabled: `promotion_hook`).
    """
    if hasattr(x, "_as_tensor"):  # variables: read their value
        x = x._as_tensor()
    if hasattr(y, "_as_tensor"):
        y = y._as_tensor()
    if promotion_hook is not None:
        promoted = promotion_hook(x, y)
        if promoted is not None:
            return promoted
    x_is = isinstance(x, Tensor)
    y_is = isinstance(y, Tensor)
    if x_is and y_is:
        if x.dtype is not y.dtype:
            raise TypeError(f"Operands have different dtypes: {x.dtype.name} and {y.dtype.name} "
                            f"({_describe(x)} and {_describe(y)}). Cast one with rt.cast.")
        return x, y
    if x_is:
        return x, convert_to_tensor(y, dtype=x.dtype)
    if y_is:
        return convert_to_tensor(x, dtype=y.dtype), y
    x = convert_to_tensor(x)
    return binary_operands(x, y)


def _describe(t) -> str:
    return f"shape {t.shape}"


# -- application ---------------------------------------------------------------------------

def apply(op: OpDef, inputs, attrs: dict | None = None, name: str | None = None,
          subgraphs: tuple = ()):
    """Runs `op` on tensors: eagerly now, or as a new operation in the graph being built.

    `subgraphs` (branches, loop bodies) are traced graphs the op runs; their op is staged
    only, and its shape rule receives them first: `infer(subgraphs, *inputs, **attrs)`.
    Returns one tensor, or a list of tensors for ops with several outputs.
    """
    attrs = attrs or {}
    graph = context.current_graph()
    if graph is None:
        return _apply_eager(op, inputs, attrs)
    ins = [graph.capture(t) for t in inputs]
    specs = op.infer(subgraphs, *ins, **attrs) if subgraphs else op.infer(*ins, **attrs)
    single = op.num_outputs == 1
    if single and ins:
        folded = _fold_constants(graph, op, ins, attrs, specs)
        if folded is not None:  # the same graph whether or not a tape records;
            if context.state.tapes:  # a tape still sees the op, with its value as output
                context.record_operation(op, ins, [folded], attrs, folded.op)
            return folded
    operation = graph.create_op(op, ins, attrs, [specs] if single else specs, name, subgraphs)
    outs = operation.outputs
    if context.state.tapes:
        context.record_operation(op, ins, outs, attrs, operation)
    return outs[0] if single else outs


_FOLD_LIMIT = 64  # constants up to this many elements are folded at trace time


def _fold_constants(graph, op, ins, attrs, specs):
    """A Const for an op whose inputs are all small constants, computed now; else None.
    (Small values only: their shapes and values are then known while tracing, as TensorFlow's
    shape inference evaluates constants; the compiler's folding pass, runtime.passes.folding,
    computes larger ones, with the same rule: `folded_value`.)"""
    values = []
    for t in ins:
        if not t.op.opdef.is_constant:
            return None
        value = t.op.attrs["value"]
        if value.size > _FOLD_LIMIT or value.dtype == object:
            return None
        values.append(value)
    result = folded_value(op, values, attrs, specs[1])
    if result is None or result.size > _FOLD_LIMIT:
        return None
    return graph.constant(result)


def folded_value(op: OpDef, values: list, attrs: dict, dtype: _dtypes.DType) -> np.ndarray | None:
    """The value `op` gives for constant inputs `values`, as a Const of `dtype`; None when it
    must run instead: it has an effect or no kernel, makes no array (variant, object), or
    raises (the error is left to run time, where it is reported with the op)."""
    if op.stateful or op.kernel is None or dtype is _dtypes.variant or dtype._np.kind == "O":
        return None
    try:
        with np.errstate(all="ignore"):
            result = np.asarray(op.kernel(*values, **attrs))
    except Exception:  # noqa: BLE001 - the op raises again, in context, when the graph runs
        return None
    return np.asarray(_fix_dtype(result, dtype))


def _apply_eager(op, inputs, attrs):
    values = []
    for t in inputs:
        if type(t) is not EagerTensor and type(t) is not DeviceTensor:
            raise TypeError(
                f"The symbolic tensor {t.name} is used outside the function that traced it. "
                "Return it from the compiled function to get its value."
                if type(t) is SymbolicTensor else f"{op.name} expects tensors, got {t!r}.")
        values.append(t._value)
    specs = op.infer(*inputs, **attrs)
    try:
        result = op.kernel(*values, **attrs)
    except (ValueError, IndexError, ZeroDivisionError, np.linalg.LinAlgError) as exc:
        if isinstance(exc, InvalidArgumentError):
            raise
        raise InvalidArgumentError(f"{op.name}: {exc}") from None
    except MemoryError as exc:
        if isinstance(exc, ResourceExhaustedError):
            raise
        raise ResourceExhaustedError(f"{op.name}: out of memory: {exc}") from None
    if op.num_outputs == 1:
        outs = [EagerTensor(_fix_dtype(result, specs[1]))]
    else:
        outs = [EagerTensor(_fix_dtype(r, s[1])) for r, s in zip(result, specs)]
    if context.state.tapes:
        context.record_operation(op, inputs, outs, attrs, None)
    return outs[0] if op.num_outputs == 1 else outs


def _fix_dtype(value, dtype):
    if not isinstance(value, (np.ndarray, np.generic)):
        value = np.asarray(value, dtype=dtype._np)
    elif value.dtype != dtype._np and dtype is not _dtypes.variant:
        value = value.astype(dtype._np)
    return value


# TensorFlow's dtypes beyond NumPy's, published with the conversions that take them:
# rt.bfloat16, the quantized ones and rt.resource, and rt.experimental.float8_e4m3fn, ...
for _dtype in (_dtypes.bfloat16, _dtypes.qint8, _dtypes.quint8, _dtypes.qint16, _dtypes.quint16,
               _dtypes.qint32, _dtypes.resource):
    export(_dtype.name)(_dtype)
for _dtype in vars(_dtypes.experimental).values():
    export(f"experimental.{_dtype.name}")(_dtype)

class _DLPackCapsule:
    """A DLPack capsule as NumPy's `from_dlpack` takes it (an object with `__dlpack__`)."""

    def __init__(self, capsule) -> None:
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0


def to_dlpack(tf_tensor):
    """A DLPack capsule (a PyCapsule named "dltensor") sharing an eager tensor's values, for
    another library's `from_dlpack`; it can be consumed once."""
    value = np.asarray(convert_to_tensor(tf_tensor).numpy())
    if value.dtype.kind not in "biufc":
        raise InvalidArgumentError(f"to_dlpack: {value.dtype} tensors have no DLPack form; "
                                   "numeric and bool tensors do.")
    return value.__dlpack__()


def from_dlpack(dlcapsule):
    """The tensor of a DLPack capsule (`to_dlpack`'s or another library's), or of an object
    with `__dlpack__` (a NumPy or JAX array on the CPU)."""
    source = dlcapsule if hasattr(dlcapsule, "__dlpack__") else _DLPackCapsule(dlcapsule)
    return convert_to_tensor(np.array(np.from_dlpack(source)))


dlpack = export("experimental.dlpack")(types.SimpleNamespace(to_dlpack=to_dlpack,
                                                            from_dlpack=from_dlpack))

__all__ = ["apply", "binary_operands", "constant", "convert_to_tensor", "define",
           "register_conversions"]  # define: also importable from here

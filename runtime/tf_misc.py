"""TensorFlow's less used top-level names: `tf.autodiff.ForwardAccumulator`, `tf.xla.experimental`,
`tf.conv`, `tf.IndexedSlices` and the specs `IndexedSlicesSpec`, `NoneTensorSpec`,
`TensorArraySpec`, `tf.make_tensor_proto` / `tf.make_ndarray`,
`tf.register_tensor_conversion_function`, `tf.variable_creator_scope`, `tf.approx_top_k`,
`tf.random_index_shuffle`, `tf.CriticalSection`, `tf.nondifferentiable_batch_function`,
`tf.ragged_fill_empty_rows` (and its gradient op) and `tf.check_pinned`.

They are composed of the runtime's ops (or run host-side in NumPy where TensorFlow's op has no
gradient); `import runtime` loads this module on the first use of one of these names.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import threading
from typing import Any, Callable, Iterator

import numpy as np

from . import context, nest
from . import dtypes as _dtypes
from .errors import InvalidArgumentError
from .exports import export
from .function import function
from .gradients import GradientTape, UnconnectedGradients, stop_gradient
from .ops import array_composed, array_scatter, nn_conv, nn_conv3d, nn_more, random_extras
from .ops import array_math as _am
from .ops import core as _core
from .ops import variables as _variables
from .ops.core import convert_to_tensor
from .ops.extension_type import TypeSpec
from .ops.tensor_array import TensorArray
from .shapes import TensorShape
from .tensor import EagerTensor, Tensor
from .train_example import DATA_TYPES, decode_tensor_proto, encode_tensor_proto

# -- tf.autodiff.ForwardAccumulator ----------------------------------------------------------


@export("autodiff.ForwardAccumulator")
class ForwardAccumulator:
    """Forward-mode differentiation: inside its `with` block, the ops on `primals` are
    recorded, and `jvp(target)` is the Jacobian-vector product of `target` with the
    `tangents` (the directional derivative of `target` along them).

        with rt.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
            y = x ** 2
        acc.jvp(y)  # 2 * x

    Each `jvp` is computed from two reverse passes over the recording (the transpose of the
    transposed product), so its values are TensorFlow's; what it costs differs.
    """

    def __init__(self, primals, tangents):
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)
        self._primals: list = []
        self._tangents: list = []
        self._add(primals, tangents)

    def _add(self, primals, tangents) -> None:
        nest.assert_same_structure(primals, tangents)
        for p, t in zip(nest.flatten(primals), nest.flatten(tangents)):
            p_dtype = p.dtype
            t = convert_to_tensor(t)
            if t.dtype is not p_dtype:
                raise ValueError(f"Tangent {t!r:.60} was a {t.dtype.name} but its primal was a "
                                 f"{p_dtype.name}.")
            if not TensorShape(t.shape).is_compatible_with(TensorShape(p.shape)):
                raise ValueError(f"Tangent shape {t.shape} does not match its primal's "
                                 f"{p.shape}.")
            self._primals.append(p)
            self._tangents.append(t)
            self._tape.watch(p)

    def __enter__(self) -> ForwardAccumulator:
        self._tape.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        self._tape.__exit__(*exc_info)

    def watch(self, primals, tangents) -> None:
        """Also differentiates along `tangents` for `primals` (recorded from now on)."""
        self._add(primals, tangents)

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE) -> Any:
        """The Jacobian-vector product of each tensor of the nest `primals` (None for one
        that does not depend on the watched primals, or zeros with
        `unconnected_gradients="zero"`)."""
        mode = UnconnectedGradients(unconnected_gradients)
        flat = nest.flatten(primals)
        with self._tape._paused_self():
            out = [self._one(t, mode) for t in flat]
        return nest.pack_sequence_as(primals, out)

    def _one(self, target, mode):
        target = target if isinstance(target, Tensor) else convert_to_tensor(target)
        zero = _am.zeros_like(target)
        if not target.dtype.is_floating and not target.dtype.is_complex:
            return zero if mode is UnconnectedGradients.ZERO else None
        for p, t in zip(self._primals, self._tangents):
            if p is target:  # the product of a primal is its tangent
                return t
        with GradientTape() as outer:
            probe = _am.zeros_like(target)
            outer.watch(probe)
            grads = self._tape.gradient(target, self._primals, output_gradients=probe)
            terms = [_am.reduce_sum(_am.multiply(g, _am.cast(v, g.dtype)))
                     for g, v in zip(grads, self._tangents) if g is not None]
            if not terms:
                return zero if mode is UnconnectedGradients.ZERO else None
            dot = terms[0]
            for term in terms[1:]:
                dot = _am.add(dot, term)
        result = outer.gradient(dot, probe)
        return zero if result is None else result

    def __repr__(self) -> str:
        return f"<ForwardAccumulator over {len(self._primals)} primal(s)>"


# -- tf.xla.experimental -----------------------------------------------------------------------


@export("xla.experimental.compile")
def compile(computation, inputs=None) -> list[Tensor]:  # noqa: A001 - TensorFlow's name
    """Runs `computation(*inputs)` as a compiled function (`rt.function(jit_compile=True)`),
    returning its outputs as a list (TensorFlow's deprecated API; use
    `rt.function(jit_compile=True)`)."""
    inputs = [] if inputs is None else list(inputs)
    result = function(computation, jit_compile=True)(*inputs)
    if result is None:
        return []
    return list(result) if isinstance(result, (list, tuple)) else [result]


@export("xla.experimental.jit_scope")
@contextlib.contextmanager
def jit_scope(compile_ops=True, separate_compiled_gradients=False) -> Iterator[None]:
    """TensorFlow 1's marking of ops to compile with XLA. Eagerly it raises RuntimeError, as
    TensorFlow's; inside a traced function it is accepted and has no effect on what runs
    (compile the function with `rt.function(jit_compile=True)` instead)."""
    if not callable(compile_ops) and not isinstance(compile_ops, bool):
        raise TypeError(f"compile_ops must be a bool or a callable, got {compile_ops!r}.")
    if context.current_graph() is None:
        raise RuntimeError("xla.experimental.jit_scope is not supported when eager execution "
                           "is enabled. Try use it inside tf.function.")
    yield


# -- tf.conv -----------------------------------------------------------------------------------


@export("conv")
def conv(input, filter, strides, padding, explicit_paddings=(),  # noqa: A002 - TF's names
         data_format="CHANNELS_LAST", dilations=(), batch_dims=1, groups=1,
         name=None) -> Tensor:
    """TensorFlow's generic convolution op: 2 or 3 spatial dimensions, `strides` and
    `dilations` of length rank(input), padding "SAME", "VALID" or "EXPLICIT" (with
    `explicit_paddings`, a (before, after) pair per dimension) and `batch_dims` leading batch
    axes. As TensorFlow's CPU kernel, only `data_format="CHANNELS_LAST"` and `groups=1` run."""
    x, w = convert_to_tensor(input), convert_to_tensor(filter)
    if data_format not in ("CHANNELS_LAST", "CHANNELS_FIRST"):
        raise ValueError(f"conv: data_format must be 'CHANNELS_LAST' or 'CHANNELS_FIRST', got "
                         f"{data_format!r}.")
    if data_format == "CHANNELS_FIRST":
        raise NotImplementedError("conv: data_format='CHANNELS_FIRST' is not implemented (as "
                                  "TensorFlow's CPU kernel, only CHANNELS_LAST runs).")
    if not isinstance(batch_dims, int) or batch_dims < 1:
        raise InvalidArgumentError(f"conv: batch_dims must be an int >= 1, got {batch_dims!r}.")
    rank = x.shape.rank
    spatial = (rank or 0) - batch_dims - 1
    if spatial not in (2, 3):
        raise InvalidArgumentError(f"The input must have 2 or 3 spatial dimensions but got "
                                   f"{spatial}")
    strides = list(strides)
    if len(strides) != rank:
        raise InvalidArgumentError(f"conv: strides must have {rank} entries (one per input "
                                   f"dimension), got {strides}.")
    dilations = list(dilations) or [1] * rank
    if len(dilations) != rank:
        raise InvalidArgumentError(f"conv: dilations must have {rank} entries, got {dilations}.")
    if any(s != 1 for s in strides[:batch_dims] + strides[-1:]) or \
            any(d != 1 for d in dilations[:batch_dims] + dilations[-1:]):
        raise InvalidArgumentError("conv: strides and dilations of the batch and channel "
                                   "dimensions must be 1.")
    if not isinstance(groups, int) or groups < 1:
        raise InvalidArgumentError(f"conv: groups must be an int >= 1, got {groups!r}.")
    if groups != 1:  # as TensorFlow's CPU kernel
        raise NotImplementedError("conv: Grouped/Depthwise Convolutions are not supported yet "
                                  "(groups must be 1).")
    explicit_paddings = list(explicit_paddings)
    if padding == "EXPLICIT":
        if len(explicit_paddings) != 2 * rank:
            raise InvalidArgumentError(f"conv: explicit_paddings must have {2 * rank} entries, "
                                       f"got {len(explicit_paddings)}.")
        pads = [explicit_paddings[2 * i:2 * i + 2] for i in range(rank)][batch_dims - 1:]
        pad = pads
    elif padding in ("SAME", "VALID"):
        if explicit_paddings:
            raise InvalidArgumentError("conv: explicit_paddings needs padding='EXPLICIT'.")
        pad = padding
    else:
        raise ValueError(f"conv: padding must be 'SAME', 'VALID' or 'EXPLICIT', got {padding!r}.")
    lead = None
    if batch_dims > 1:  # fold the batch axes into one
        lead = _am.shape(x)[:batch_dims]
        x = _am.reshape(x, _am.concat([[-1], _am.shape(x)[batch_dims:]], 0))
    st, dl = strides[batch_dims - 1:], dilations[batch_dims - 1:]
    if padding == "EXPLICIT":
        x = array_composed.pad(x, pad)
        pad = "VALID"
    if spatial == 2:
        out = nn_conv.conv2d(x, w, st, pad, dilations=dl)
    else:
        out = nn_conv3d.conv3d(x, w, st, pad, dilations=dl)
    if lead is not None:
        out = _am.reshape(out, _am.concat([lead, _am.shape(out)[1:]], 0))
    return out


# -- tf.IndexedSlices and the specs ------------------------------------------------------------


@export("IndexedSlices")
class IndexedSlices:
    """A sparse representation of rows of a dense tensor: `values[i]` is row `indices[i]` of
    a tensor of shape `dense_shape` whose other rows are zero (the rows of equal indices add
    up). `rt.convert_to_tensor` (and any op) densifies it; the gradients of `gather` here are
    dense tensors, not IndexedSlices."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        if not self._indices.dtype.is_integer:
            raise TypeError(f"IndexedSlices: indices must be integers, got "
                            f"{self._indices.dtype.name}.")
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    values = property(lambda self: self._values, doc="The rows: a tensor [N, ...].")
    indices = property(lambda self: self._indices, doc="The row of each value: [N].")
    dense_shape = property(lambda self: self._dense_shape, doc="The dense shape, or None.")
    dtype = property(lambda self: self._values.dtype, doc="The values' dtype.")
    device = property(lambda self: getattr(self._values, "device", ""),
                      doc="The values' device.")

    @property
    def shape(self) -> TensorShape:
        """The dense shape as a TensorShape (as known)."""
        if self._dense_shape is None:
            return TensorShape(None)
        if isinstance(self._dense_shape, EagerTensor):
            return TensorShape([int(d) for d in self._dense_shape.numpy()])
        return TensorShape([None] + list(self._values.shape.as_list()[1:]))

    @property
    def _type_spec(self) -> IndexedSlicesSpec:
        ds = self._dense_shape
        return IndexedSlicesSpec(self.shape, self.dtype, self._indices.dtype,
                                 None if ds is None else ds.dtype, self._indices.shape)

    def _as_tensor(self) -> Tensor:
        if self._dense_shape is None:
            raise ValueError("Tensor conversion requested for IndexedSlices without "
                             f"dense_shape: {self!r}")
        return array_scatter.scatter_nd(_am.expand_dims(self._indices, -1), self._values,
                                        self._dense_shape)

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(_am.negative(self._values), self._indices, self._dense_shape)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = np.asarray(self._as_tensor().numpy())
        return out if dtype is None else out.astype(dtype)

    def __repr__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!r}"
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}{shape})"


@export("IndexedSlicesSpec")
class IndexedSlicesSpec(TypeSpec):
    """The TypeSpec of an IndexedSlices: its dense shape and dtypes."""

    def __init__(self, shape=None, dtype=_dtypes.float32, indices_dtype=_dtypes.int64,
                 dense_shape_dtype=None, indices_shape=None):
        self._shape = TensorShape(shape)
        self._values_dtype = _dtypes.as_dtype(dtype)
        self._indices_dtype = _dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else \
            _dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = TensorShape(indices_shape).with_rank(1) \
            if indices_shape is not None else TensorShape([None])

    value_type = property(lambda self: IndexedSlices)

    def _key(self):
        return (self._shape.as_list() if self._shape.rank is not None else None,
                self._values_dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape.as_list())

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(repr(self))

    def is_compatible_with(self, spec_or_value) -> bool:
        other = getattr(spec_or_value, "_type_spec", spec_or_value)
        return (type(other) is IndexedSlicesSpec and
                self._shape.is_compatible_with(other._shape) and
                self._values_dtype is other._values_dtype and
                self._indices_dtype is other._indices_dtype)

    def __repr__(self) -> str:
        ds = None if self._dense_shape_dtype is None else f"rt.{self._dense_shape_dtype.name}"
        return (f"IndexedSlicesSpec({self._shape!r}, rt.{self._values_dtype.name}, "
                f"rt.{self._indices_dtype.name}, {ds}, {self._indices_shape!r})")


class NoneTensor:
    """The value a NoneTensorSpec describes: None as a composite value."""

    def __repr__(self) -> str:
        return "NoneTensor()"


@export("NoneTensorSpec")
class NoneTensorSpec(TypeSpec):
    """The TypeSpec of None (as a value of a structure of specs)."""

    value_type = property(lambda self: NoneTensor)

    def _to_template(self):
        return None

    def is_compatible_with(self, spec_or_value) -> bool:
        return spec_or_value is None or isinstance(spec_or_value, (NoneTensorSpec, NoneTensor))

    def __eq__(self, other) -> bool:
        return type(other) is NoneTensorSpec

    def __hash__(self) -> int:
        return hash(NoneTensorSpec)

    def __repr__(self) -> str:
        return "NoneTensorSpec()"


@export("TensorArraySpec")
class TensorArraySpec(TypeSpec):
    """The TypeSpec of a TensorArray: its element shape and dtype, whether it grows, and
    whether it infers the element shape from its first write."""

    def __init__(self, element_shape=None, dtype=_dtypes.float32, dynamic_size=False,
                 infer_shape=True):
        self._element_shape = TensorShape(element_shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = bool(infer_shape)

    @property
    def value_type(self) -> type:
        return TensorArray

    @staticmethod
    def from_value(value) -> TensorArraySpec:
        """The spec of the TensorArray `value`."""
        if not isinstance(value, TensorArray):
            raise ValueError(f"Expected value to be a TensorArray, but saw: {type(value)}")
        return TensorArraySpec(value.element_shape, value.dtype,
                               getattr(value, "dynamic_size", False),
                               getattr(value, "_infer_shape", True))

    def _key(self):
        shape = self._element_shape
        return (shape.as_list() if shape.rank is not None else None, self._dtype,
                self._dynamic_size, self._infer_shape)

    def __eq__(self, other) -> bool:
        return type(other) is TensorArraySpec and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(repr(self))

    def is_compatible_with(self, other) -> bool:
        if not isinstance(other, TensorArraySpec):
            try:
                other = TensorArraySpec.from_value(other)
            except ValueError:
                return False
        return (self._dtype is other._dtype and self._dynamic_size == other._dynamic_size and
                self._element_shape.is_compatible_with(other._element_shape))

    def __repr__(self) -> str:
        return (f"TensorArraySpec({self._element_shape!r}, rt.{self._dtype.name}, "
                f"{self._dynamic_size}, {self._infer_shape})")


# -- tf.make_tensor_proto / tf.make_ndarray ----------------------------------------------------

_TYPE_ENUM_NAMES = {1: "DT_FLOAT", 2: "DT_DOUBLE", 3: "DT_INT32", 4: "DT_UINT8", 5: "DT_INT16",
                    6: "DT_INT8", 7: "DT_STRING", 8: "DT_COMPLEX64", 9: "DT_INT64",
                    10: "DT_BOOL", 17: "DT_UINT16", 18: "DT_COMPLEX128", 19: "DT_HALF",
                    22: "DT_UINT32", 23: "DT_UINT64"}
_VAL_NAMES = {"float32": "float_val", "float64": "double_val", "int32": "int_val",
              "uint8": "int_val", "int16": "int_val", "int8": "int_val", "uint16": "int_val",
              "float16": "half_val", "int64": "int64_val", "bool": "bool_val",
              "complex64": "scomplex_val", "complex128": "dcomplex_val", "uint32": "uint32_val",
              "uint64": "uint64_val", "string": "string_val"}


class _Dim:
    __slots__ = ("size", "name")

    def __init__(self, size: int):
        self.size, self.name = int(size), ""

    def __repr__(self) -> str:
        return f"dim {{ size: {self.size} }}"


class _TensorShapeProto:
    __slots__ = ("dim", "unknown_rank")

    def __init__(self, dims):
        self.dim, self.unknown_rank = [_Dim(d) for d in dims], False


class TensorProto:
    """A TensorProto (TensorFlow's serialized tensor), as `make_tensor_proto` returns it:
    `dtype` (TensorFlow's DataType number), `tensor_shape.dim[i].size`, and the values in
    `tensor_content` (raw little-endian bytes) or, for scalars, strings and values shorter
    than the shape, a `*_val` list (`int_val`, `float_val`, `string_val`, ...; the last value
    fills the rest). `SerializeToString()` gives TensorFlow's bytes."""

    def __init__(self, dtype_name: str, shape, content: bytes = b"", vals: list | None = None):
        self._dtype_name = dtype_name
        self.dtype = DATA_TYPES[dtype_name]
        self.tensor_shape = _TensorShapeProto(shape)
        self.tensor_content = content
        self._vals = [] if vals is None else list(vals)
        self.version_number = 0

    def __getattr__(self, name: str):
        if name.endswith("_val") and name in _VAL_NAMES.values():
            return self._vals if _VAL_NAMES[self._dtype_name] == name else []
        raise AttributeError(f"'TensorProto' object has no attribute {name!r}")

    def _array(self) -> np.ndarray:
        shape = [d.size for d in self.tensor_shape.dim]
        name = self._dtype_name
        if name == "string":
            flat = np.empty(len(self._vals), dtype=object)
            flat[:] = list(self._vals)
        else:
            np_dtype = _dtypes.as_dtype(name).as_numpy_dtype
            if self.tensor_content:
                return np.frombuffer(self.tensor_content, np.dtype(np_dtype).newbyteorder("<")
                                     ).astype(np_dtype).reshape(shape)
            flat = np.asarray(self._vals, dtype=np_dtype)
        size = int(np.prod(shape))
        if flat.size == size:
            return flat.reshape(shape)
        out = np.empty(size, dtype=flat.dtype)
        if flat.size:
            out[:flat.size] = flat
            out[flat.size:] = flat[-1]
        else:
            out[:] = b"" if name == "string" else 0
        return out.reshape(shape)

    def SerializeToString(self) -> bytes:  # noqa: N802 - protobuf's name
        return encode_tensor_proto(self._array(), self._dtype_name)

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorProto) and \
            self.SerializeToString() == other.SerializeToString()

    __hash__ = None

    def __repr__(self) -> str:
        lines = [f"dtype: {_TYPE_ENUM_NAMES[self.dtype]}", "tensor_shape {"]
        for d in self.tensor_shape.dim:
            lines += ["  dim {", f"    size: {d.size}", "  }"]
        lines.append("}")
        if self.tensor_content:
            lines.append(f"tensor_content: {_c_escape(self.tensor_content)}")
        for v in self._vals:
            if isinstance(v, bytes):
                v = _c_escape(v)
            elif isinstance(v, (bool, np.bool_)):
                v = "true" if v else "false"
            lines.append(f"{_VAL_NAMES[self._dtype_name]}: {v}")
        return "\n".join(lines) + "\n"

    __str__ = __repr__


def _c_escape(data: bytes) -> str:
    out = []
    for b in data:
        ch = chr(b)
        if ch in "\"'\\":
            out.append("\\" + ch)
        elif 32 <= b < 127:
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


@export("make_tensor_proto")
def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False,
                      allow_broadcast=False) -> TensorProto:
    """A TensorProto of `values` (a tensor, an array or nested lists), of `dtype` and, with
    `shape`, that shape: a scalar fills it, a value of as many elements is reshaped to it, a
    shorter one is stored as is (the last value fills the rest, `make_ndarray` repeats it).
    `verify_shape=True` refuses a value of another shape, `allow_broadcast=True` broadcasts."""
    if verify_shape and allow_broadcast:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if isinstance(values, TensorProto):
        return values
    if isinstance(values, EagerTensor):
        array = np.asarray(values.numpy())
        if dtype is not None and _dtypes.as_dtype(dtype) is not values.dtype:
            raise TypeError(f"Expected {_dtypes.as_dtype(dtype).name}, but got a tensor of "
                            f"dtype {values.dtype.name}.")
        dt = values.dtype
    elif isinstance(values, Tensor):
        raise TypeError("make_tensor_proto needs a value known now; a symbolic tensor has none.")
    else:
        dt = None if dtype is None else _dtypes.as_dtype(dtype)
        try:
            t = convert_to_tensor(values, dt)
        except ValueError as e:
            raise TypeError(str(e)) from None
        array, dt = np.asarray(t.numpy()), t.dtype
    if dt.name not in DATA_TYPES:
        raise TypeError(f"make_tensor_proto: dtype {dt.name} has no TensorProto encoding here.")
    flat_values = None
    if shape is not None:
        shape = [int(d) for d in TensorShape(shape).as_list()]
        size = int(np.prod(shape))
        if verify_shape and list(array.shape) != shape:
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got "
                            f"{tuple(array.shape)}.")
        if allow_broadcast:
            try:
                array = np.broadcast_to(array, shape)
            except ValueError:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got "
                                f"{tuple(array.shape)}.") from None
        elif array.size == size:
            array = array.reshape(shape)
        elif array.size == 1:
            flat_values = array.reshape(-1)
        elif array.size < size:
            flat_values = array.reshape(-1)
        else:
            raise ValueError(f"Too many elements provided. Takes at most {size:d}, but got "
                             f"{array.size:d}.")
    else:
        shape = list(array.shape)
    name = dt.name
    if flat_values is None and (name == "string" or array.ndim == 0):
        flat_values = array.reshape(-1)
    if flat_values is not None:
        vals = [v if isinstance(v, bytes) else (v.encode() if isinstance(v, str) else v.item())
                for v in flat_values]
        return TensorProto(name, shape, vals=vals)
    content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    return TensorProto(name, shape, content=content)


@export("make_ndarray")
def make_ndarray(tensor) -> np.ndarray:
    """The NumPy array a TensorProto holds (this runtime's, or any object with TensorFlow's
    `SerializeToString()`, such as a protobuf TensorProto)."""
    if isinstance(tensor, TensorProto):
        return tensor._array().copy()
    serialize = getattr(tensor, "SerializeToString", None)
    if serialize is None:
        raise AttributeError(f"'{type(tensor).__name__}' object has no attribute "
                             "'tensor_shape'")
    name, dims, values = decode_tensor_proto(serialize())
    if name == "string":
        values = [v.encode() if isinstance(v, str) else bytes(v) for v in values]
        return TensorProto(name, dims, vals=values)._array()
    if isinstance(values, (bytes, bytearray)):
        return TensorProto(name, dims, content=bytes(values))._array()
    return TensorProto(name, dims, vals=list(np.asarray(values).reshape(-1)))._array()


# -- tf.register_tensor_conversion_function ------------------------------------------------


@export("register_tensor_conversion_function")
def register_tensor_conversion_function(base_type, conversion_func, priority=100) -> None:
    """Makes `rt.convert_to_tensor` (and so every op) convert values of `base_type` (a type
    or a tuple of types) with `conversion_func(value, dtype=None, name=None, as_ref=False)`,
    which returns a tensor (or NotImplemented to pass). Lower `priority` runs first."""
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if not all(isinstance(t, type) for t in types):
        raise TypeError(f"base_type must be a type or a tuple of types, got {base_type!r}.")
    if any(issubclass(t, (int, float, complex, bool, str, bytes, np.generic, np.ndarray,
                           list, tuple)) for t in types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy "
                        "scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable.")
    _core.register_user_conversion(types, conversion_func, int(priority))


# -- tf.variable_creator_scope -----------------------------------------------------------------


@export("variable_creator_scope")
@contextlib.contextmanager
def variable_creator_scope(variable_creator) -> Iterator[None]:
    """Inside, `rt.Variable(...)` calls `variable_creator(next_creator, **kwargs)`, which
    may change the keywords and must return `next_creator(**kwargs)` (or another variable).
    Scopes nest: the innermost creator runs first."""
    if not callable(variable_creator):
        raise TypeError("variable_creator must be callable.")
    with _variables.creator_scope(variable_creator):
        yield


# -- tf.approx_top_k, tf.random_index_shuffle, tf.check_pinned ---------------------------------


@export("approx_top_k")
def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95,  # noqa: A002
                 is_max_k=True, reduction_input_size_override=-1, aggregate_to_topk=True,
                 name=None) -> tuple[Tensor, Tensor]:
    """`rt.math.approx_max_k` (or `approx_min_k` with `is_max_k=False`) as TensorFlow's raw op:
    (values, indices). Exact here, which every recall target allows."""
    fn = nn_more.approx_max_k if is_max_k else nn_more.approx_min_k
    values, indices = fn(input, k, reduction_dimension=reduction_dimension,
                         recall_target=recall_target,
                         reduction_input_size_override=reduction_input_size_override,
                         aggregate_to_topk=aggregate_to_topk)
    return _ApproxTopK(values, indices)


_named_tuple = collections.namedtuple
_ApproxTopK = _named_tuple("ApproxTopK", "values indices")
_RaggedFillEmptyRows = _named_tuple(
    "RaggedFillEmptyRows", "output_value_rowids output_values empty_row_indicator "
    "reverse_index_map")
_RaggedFillEmptyRowsGrad = _named_tuple("RaggedFillEmptyRowsGrad", "d_values d_default_value")


@export("random_index_shuffle")
def random_index_shuffle(index, seed, max_index, rounds=4, name=None) -> Tensor:
    """The position of `index` in a random permutation of [0, max_index] fixed by `seed`
    (three ints): `rt.random.experimental.index_shuffle`'s op. The permutation is another
    than TensorFlow's (which its cipher rounds make); only `rounds=4` is accepted."""
    if rounds != 4:
        raise NotImplementedError(f"random_index_shuffle: rounds={rounds!r} is not "
                                  "implemented; the permutation here takes no rounds (use 4).")
    return random_extras.index_shuffle(index, seed, max_index)


@export("check_pinned")
def check_pinned(tensor, name=None) -> Tensor:
    """TensorFlow's check that `tensor` sits in GPU-pinned host memory: there is no such
    memory here, so it raises InvalidArgumentError ("not pinned"), as TensorFlow does for a
    tensor on the CPU."""
    convert_to_tensor(tensor)
    raise InvalidArgumentError("not pinned")


# -- tf.ragged_fill_empty_rows -----------------------------------------------------------------


def _host(value, what: str, dtype=None) -> np.ndarray:
    t = convert_to_tensor(value, dtype)
    if not isinstance(t, EagerTensor):
        raise NotImplementedError(f"{what} runs eagerly here (host-side); call it outside "
                                  "rt.function.")
    return np.asarray(t.numpy())


@export("ragged_fill_empty_rows")
def ragged_fill_empty_rows(value_rowids, values, nrows, default_value,
                           name=None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The ragged rows (`value_rowids` [N] sorted, `values` [N, ...], `nrows`) with one
    `default_value` put in each empty row: (output_value_rowids, output_values,
    empty_row_indicator, reverse_index_map), TensorFlow's raw op."""
    rowids = _host(value_rowids, "ragged_fill_empty_rows", _dtypes.int64)
    vals_t = convert_to_tensor(values)
    vals = _host(vals_t, "ragged_fill_empty_rows")
    n = int(_host(nrows, "ragged_fill_empty_rows", _dtypes.int64))
    default = _host(default_value, "ragged_fill_empty_rows", vals_t.dtype)
    if rowids.ndim != 1 or vals.shape[:1] != rowids.shape:
        raise InvalidArgumentError(f"ragged_fill_empty_rows: value_rowids {list(rowids.shape)} "
                                   f"and values {list(vals.shape)} must have one row each.")
    if rowids.size and (np.any(np.diff(rowids) < 0) or rowids[0] < 0 or rowids[-1] >= n):
        raise InvalidArgumentError("ragged_fill_empty_rows: value_rowids must be sorted and "
                                   f"in [0, {n}).")
    counts = np.bincount(rowids, minlength=n) if n else np.zeros(0, np.int64)
    empty = counts == 0
    out_ids = np.sort(np.concatenate([rowids, np.nonzero(empty)[0]]), kind="stable")
    # the output position of each input value: its position plus the empty rows before it
    empties_before = np.cumsum(empty) - empty
    reverse = np.arange(rowids.size, dtype=np.int64) + empties_before[rowids] \
        if rowids.size else np.zeros(0, np.int64)
    out_vals = np.empty((out_ids.size, *vals.shape[1:]), dtype=vals.dtype)
    filled = np.ones(out_ids.size, bool)
    filled[reverse] = False
    out_vals[filled] = default
    out_vals[reverse] = vals
    return _RaggedFillEmptyRows(convert_to_tensor(out_ids.astype(np.int64)),
                                convert_to_tensor(out_vals, vals_t.dtype),
                                convert_to_tensor(empty), convert_to_tensor(reverse))


@export("ragged_fill_empty_rows_grad")
def ragged_fill_empty_rows_grad(reverse_index_map, grad_values,
                                name=None) -> tuple[Tensor, Tensor]:
    """The gradient of `ragged_fill_empty_rows`: (d_values, d_default_value), the gradients
    at the kept positions and the sum of those at the filled ones."""
    grads_t = convert_to_tensor(grad_values)
    reverse = _host(reverse_index_map, "ragged_fill_empty_rows_grad", _dtypes.int64)
    grads = _host(grads_t, "ragged_fill_empty_rows_grad")
    if reverse.size and (reverse.min() < 0 or reverse.max() >= grads.shape[0]):
        raise InvalidArgumentError("ragged_fill_empty_rows_grad: reverse_index_map holds an "
                                   f"index outside [0, {grads.shape[0]}).")
    kept = np.zeros(grads.shape[0], bool)
    kept[reverse] = True
    d_default = grads[~kept].sum(dtype=grads.dtype)
    return _RaggedFillEmptyRowsGrad(convert_to_tensor(grads[reverse], grads_t.dtype),
                                    convert_to_tensor(np.asarray(d_default, grads.dtype)))


# -- tf.CriticalSection, tf.nondifferentiable_batch_function --------------------------------


def _as_output(value):
    """An output of `CriticalSection.execute`: tensors for values that convert, as
    TensorFlow returns them (None and other objects as they are)."""
    if value is None or isinstance(value, Tensor):
        return value
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError):
        return value


@export("CriticalSection")
class CriticalSection:
    """Runs functions one at a time: `execute(fn)` calls `fn()` holding the section's lock
    (threads wait for it) and returns its result (Python numbers as tensors). Calling `execute` of a section from inside
    a function it runs raises ValueError, as TensorFlow refuses that deadlock."""

    def __init__(self, name=None, shared_name=None, critical_section_def=None,
                 import_scope=None):
        if critical_section_def is not None or import_scope is not None:
            raise NotImplementedError("CriticalSection(critical_section_def=, import_scope=) "
                                      "are TensorFlow 1's graph import; not implemented.")
        if shared_name is not None:
            raise NotImplementedError("CriticalSection(shared_name=...): sections are not "
                                      "shared between sessions here; leave it None.")
        self._name = name or "critical_section"
        self._lock = threading.Lock()
        self._owner = None

    name = property(lambda self: self._name)

    def execute(self, fn, exclusive_resource_access=True, name=None) -> Any:
        """`fn()` with the section held; its result."""
        if not callable(fn):
            raise TypeError("CriticalSection.execute needs a callable taking no arguments.")
        me = threading.get_ident()
        if self._owner == me:
            raise ValueError("Attempting to lock a CriticalSection in which we are already "
                             "running. This is illegal and may cause deadlocks.")
        with self._lock:
            self._owner = me
            try:
                result = fn()
            finally:
                self._owner = None
        return nest.map_structure(_as_output, result)

    def __repr__(self) -> str:
        return f"<CriticalSection {self._name!r}>"


@export("nondifferentiable_batch_function")
def nondifferentiable_batch_function(num_batch_threads, max_batch_size, batch_timeout_micros,
                                     allowed_batch_sizes=None, max_enqueued_batches=10,
                                     autograph=True, enable_large_batch_splitting=True
                                     ) -> Callable[[Callable], Callable]:
    """A decorator: TensorFlow batches concurrent calls of the function into one call over
    their concatenated inputs (each a tensor with a batch axis) and splits the result; here
    each call runs on its own, which gives each caller the same values. The outputs carry no
    gradient."""
    for label, value in (("num_batch_threads", num_batch_threads),
                         ("max_batch_size", max_batch_size),
                         ("batch_timeout_micros", batch_timeout_micros),
                         ("max_enqueued_batches", max_enqueued_batches)):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"nondifferentiable_batch_function: {label} must be a "
                             f"non-negative int, got {value!r}.")
    if allowed_batch_sizes is not None:
        sizes = list(allowed_batch_sizes)
        if sizes != sorted(sizes) or (sizes and sizes[-1] != max_batch_size):
            raise InvalidArgumentError("allowed_batch_sizes must be increasing and end with "
                                       "max_batch_size.")

    def decorator(fn):
        compiled = function(fn, autograph=autograph)

        @functools.wraps(fn)
        def batched(*args):
            tensors = [convert_to_tensor(a) for a in args]
            for t in tensors:
                if t.shape.rank == 0:
                    raise InvalidArgumentError("nondifferentiable_batch_function: each input "
                                               "needs a batch axis (rank >= 1).")
            return nest.map_structure(stop_gradient, compiled(*tensors))
        return batched
    return decorator


__all__ = ["CriticalSection", "ForwardAccumulator", "IndexedSlices", "IndexedSlicesSpec",
           "NoneTensorSpec", "TensorArraySpec", "TensorProto", "approx_top_k", "check_pinned",
           "compile", "conv", "jit_scope", "make_ndarray", "make_tensor_proto",
           "nondifferentiable_batch_function", "ragged_fill_empty_rows",
           "ragged_fill_empty_rows_grad", "random_index_shuffle",
           "register_tensor_conversion_function", "variable_creator_scope"]

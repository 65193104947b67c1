"""Tensors: eager ones hold a NumPy value, symbolic ones stand for a value in a graph.

Operators (`+`, `[...]`, iteration, ...) are installed on `Tensor` by `runtime.tensor_overloads`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Union

import numpy as np

from . import dtypes as _dtypes
from . import errors, html_repr
from .shapes import TensorShape

TensorLike = Union["Tensor", float, int, bool, complex, np.ndarray, np.generic, list, tuple]
"""What the operators of `Tensor` take (for type checkers): a tensor, a Python number, a NumPy
array or scalar, or a nested list/tuple of them."""


class Tensor:
    """Base class of eager and symbolic tensors (and variables).

    `_keras_mask`, where a Keras layer set one, is the tensor's mask (Keras's name for it):
    True for the steps later layers, losses and metrics use."""

    __slots__ = ("__weakref__", "_keras_mask")
    __array_priority__ = 100
    __hash__ = None  # type: ignore[assignment]  # tensors are unhashable: `==` is elementwise

    if TYPE_CHECKING:  # every subclass defines these
        @property
        def shape(self) -> TensorShape: ...

        @property
        def name(self) -> str: ...

        @property
        def dtype(self) -> _dtypes.DType: ...

        @property
        def device(self) -> str: ...

        def numpy(self) -> Any:
            """The value as a NumPy array (a NumPy scalar for rank 0)."""

        # The operators, installed at import time by runtime/tensor_overloads.py, declared here
        # for type checkers: each takes a tensor or anything rt.convert_to_tensor takes.
        def __add__(self, other: TensorLike) -> Tensor: ...
        def __radd__(self, other: TensorLike) -> Tensor: ...
        def __sub__(self, other: TensorLike) -> Tensor: ...
        def __rsub__(self, other: TensorLike) -> Tensor: ...
        def __mul__(self, other: TensorLike) -> Tensor: ...
        def __rmul__(self, other: TensorLike) -> Tensor: ...
        def __truediv__(self, other: TensorLike) -> Tensor: ...
        def __rtruediv__(self, other: TensorLike) -> Tensor: ...
        def __floordiv__(self, other: TensorLike) -> Tensor: ...
        def __rfloordiv__(self, other: TensorLike) -> Tensor: ...
        def __mod__(self, other: TensorLike) -> Tensor: ...
        def __rmod__(self, other: TensorLike) -> Tensor: ...
        def __pow__(self, other: TensorLike) -> Tensor: ...
        def __rpow__(self, other: TensorLike) -> Tensor: ...
        def __matmul__(self, other: TensorLike) -> Tensor: ...
        def __rmatmul__(self, other: TensorLike) -> Tensor: ...
        def __and__(self, other: TensorLike) -> Tensor: ...
        def __rand__(self, other: TensorLike) -> Tensor: ...
        def __or__(self, other: TensorLike) -> Tensor: ...
        def __ror__(self, other: TensorLike) -> Tensor: ...
        def __xor__(self, other: TensorLike) -> Tensor: ...
        def __rxor__(self, other: TensorLike) -> Tensor: ...
        def __lt__(self, other: TensorLike) -> Tensor: ...
        def __le__(self, other: TensorLike) -> Tensor: ...
        def __gt__(self, other: TensorLike) -> Tensor: ...
        def __ge__(self, other: TensorLike) -> Tensor: ...
        def __eq__(self, other: object) -> Tensor: ...  # type: ignore[override]
        def __ne__(self, other: object) -> Tensor: ...  # type: ignore[override]
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __getitem__(self, key: Any) -> Tensor: ...
        def __iter__(self) -> Iterator[Tensor]: ...
        def __bool__(self) -> bool: ...
        def __len__(self) -> int: ...
        def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray: ...

    @property
    def ndim(self) -> int | None:
        return self.shape.rank

    def get_shape(self) -> TensorShape:
        return self.shape

    def set_shape(self, shape) -> None:
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor {self.name} of shape {self.shape} cannot take shape "
                             f"{TensorShape(shape)}.")


class EagerTensor(Tensor):
    """A concrete tensor: a NumPy array (or NumPy scalar) with a runtime dtype."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = value

    @property
    def dtype(self) -> _dtypes.DType:
        return _dtypes.from_numpy(self._value.dtype)

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._value.shape)

    @property
    def name(self) -> str:
        raise AttributeError("Tensor.name is undefined when executing eagerly.")

    @property
    def device(self) -> str:
        return EAGER_CPU  # the full name, as TensorFlow gives an eager tensor's device

    @property
    def _lazy_value(self):
        """The value as a compiler tier takes it: a DeviceTensor's buffer as it is, without
        reading it into NumPy; here the NumPy value."""
        return self._value

    def numpy(self):
        """The value as a NumPy array (a NumPy scalar for rank 0)."""
        value = self._value
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return value[()]
        return value

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self._value)
        if dtype is not None and value.dtype != dtype:
            return value.astype(dtype)
        return value

    def __bool__(self) -> bool:
        value = self._value
        if value.size != 1:
            raise ValueError(f"The truth value of a tensor of shape {self.shape} is ambiguous; "
                             "use rt.reduce_any or rt.reduce_all.")
        return bool(value)

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError(f"Only integer scalar tensors can be used as an index, got {self.dtype.name}.")
        return int(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __complex__(self) -> complex:
        return complex(self._value)

    def __len__(self) -> int:
        if np.ndim(self._value) == 0:
            raise TypeError("len() of a scalar tensor is undefined.")
        return len(self._value)

    def __str__(self) -> str:
        # what `print(tensor)` shows, as TensorFlow's `tf.Tensor(<values>, shape=..., dtype=...)`
        # (the values as NumPy prints them, on a new line when they take several), with `rt.`
        # for `tf.` as in the repr
        text = str(self.numpy())
        if "\n" in text:
            text = "\n" + text
        return f"rt.Tensor({text}, shape={self.shape}, dtype={self.dtype.name})"

    def __repr__(self) -> str:
        weak = ", weak=True" if weak_hook is not None and weak_hook(self) else ""
        return (f"<rt.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={numpy_text(self._value)}{weak}>")

    def _repr_html_(self) -> str:
        """Jupyter's view: shape, dtype and a table of the values (large tensors truncated)."""
        return html_repr.eager_tensor_html(self)

    def __format__(self, spec: str) -> str:
        return format(self.numpy(), spec)

    def __reduce__(self):
        return (EagerTensor, (np.asarray(self._value),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class DeviceValue:
    """A value a compiler tier left in its own buffer (a JAX array, on JAX's device), read as
    NumPy only when something asks: `host()` materialises it once (`to_host(buffer)` gives
    the NumPy value and whether it shares the buffer's memory). A NumPy value that is a copy
    becomes the only value (`buffer` is dropped), so writing into it never leaves two
    different values; one over the same memory keeps both."""

    __slots__ = ("buffer", "_host", "_to_host")  # set directly by the XLA tier's callers too

    def __init__(self, buffer, to_host):
        self.buffer = buffer
        self._host = None
        self._to_host = to_host

    def host(self):
        """The NumPy value (an ndarray, or a NumPy scalar for rank 0)."""
        value = self._host
        if value is None:
            buffer = self.buffer
            if buffer is None:  # another thread materialised it meanwhile
                return self._host
            value, shares = self._to_host(buffer)
            self._host = value
            if not shares:
                self.buffer = None
        return value

    @property
    def shape(self) -> tuple:
        buffer = self.buffer
        return tuple(buffer.shape) if buffer is not None else np.shape(self._host)

    @property
    def dtype(self) -> np.dtype:
        buffer = self.buffer
        return np.dtype(buffer.dtype) if buffer is not None else self._host.dtype


class DeviceTensor(EagerTensor):
    """An eager tensor whose value stays in a compiler tier's buffer (`DeviceValue`) until
    something reads it as NumPy: `_value`, `.numpy()`, printing, an op of another tier. The
    tier that made it passes the buffer on (`_lazy_value`) without reading it, so chained
    calls of that tier never go through NumPy. Everything else sees an eager tensor."""

    __slots__ = ("_box",)  # set directly by the XLA tier's callers too

    def __init__(self, box: DeviceValue):
        self._box = box

    @property
    def _value(self):
        return self._box.host()

    @property
    def _lazy_value(self):
        box = self._box
        buffer = box.buffer
        return buffer if buffer is not None else box.host()

    @property
    def dtype(self) -> _dtypes.DType:
        return _dtypes.from_numpy(self._box.dtype)

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._box.shape)

    @property
    def device(self) -> str:
        device = getattr(self._box.buffer, "device", None)  # a JAX array's Device
        if device is None or callable(device):
            return EAGER_CPU
        return f"/job:localhost/replica:0/task:0/device:{str(device.platform).upper()}:{device.id}"

    def __len__(self) -> int:
        shape = self._box.shape
        if not shape:
            raise TypeError("len() of a scalar tensor is undefined.")
        return shape[0]


class SymbolicTensor(Tensor):
    """An output of an operation in a graph that is being built."""

    __slots__ = ("op", "value_index", "_shape", "_dtype")

    def __init__(self, op, value_index: int, shape: TensorShape, dtype: _dtypes.DType):
        self.op = op
        self.value_index = value_index
        self._shape = shape
        self._dtype = dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def graph(self):
        return self.op.graph

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def device(self) -> str:
        return self.op.device

    def set_shape(self, shape) -> None:
        super().set_shape(shape)
        self._shape = self._shape.merge_with(shape)

    def numpy(self):
        raise errors.SymbolicValueError(
            f"Cannot call numpy() on the symbolic tensor {self.name}: its value exists only "
            "when the compiled function runs. Return it from the function instead.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert the symbolic tensor {self.name} to a NumPy array while tracing. "
            "Use runtime ops (rt.*) on it instead of NumPy functions.")

    def _not_allowed(self, what: str):
        graph = self.graph
        while graph is not None and not getattr(graph, "autograph", False):
            graph = graph.outer_graph
        if graph is None:
            advice = ("Write the function with rt.function(autograph=True) (the default), which "
                      "converts Python `if`/`while`/`for`/`and`/`or` over tensors into rt.cond and "
                      "rt.while_loop, or use those functions directly.")
        else:
            advice = ("Autograph stages `if`/`while`/`for`/`and`/`or` and builtins such as any() "
                      "in converted code, but not this use (in a comprehension's condition, in code "
                      "that is not converted, ...); use rt.cond, rt.where, rt.while_loop or an rt "
                      "reduction here.")
        raise errors.OperatorNotAllowedInGraphError(
            f"{what} on the symbolic tensor {self.name} is not allowed while tracing: its value "
            f"is unknown until the graph runs. {advice}")

    def __bool__(self):
        self._not_allowed("Using the tensor as a Python `bool`")

    def __index__(self):
        self._not_allowed("Using the tensor as a Python index (for a Python list, index "
                          "rt.stack(the_list) with rt.gather instead)")

    def __int__(self):
        self._not_allowed("Converting the tensor to a Python int")

    def __float__(self):
        self._not_allowed("Converting the tensor to a Python float")

    def __len__(self) -> int:
        dims = self._shape.as_tuple()
        if dims and dims[0] is not None:
            return dims[0]
        raise TypeError(f"len() of the symbolic tensor {self.name} with shape {self._shape} is "
                        "not known while tracing; use rt.shape(x)[0] or rt.size.")

    def __repr__(self) -> str:
        return f"<rt.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        # what `print(x)` shows while tracing, as TensorFlow writes it (no shape when its rank
        # is unknown)
        shape = "" if self._shape.rank is None else f", shape={self._shape}"
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name})'

    def _repr_html_(self) -> str:
        """Jupyter's view: name, shape, dtype and the op that makes the tensor."""
        return html_repr.symbolic_tensor_html(self)


# fn(tensor) -> bool, set by rt.experimental.numpy's "all" and "safe" modes: whether a tensor
# is weakly typed (its repr then ends with `weak=True`, as TensorFlow's WeakTensor)
weak_hook = None

# the device an eager value is on, named as TensorFlow names it (`tensor.device`)
EAGER_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def numpy_text(value) -> str:
    """A value as TensorFlow's reprs show it: NumPy's repr of the array (`array([1., 2.],
    dtype=float32)`), a scalar as `5.0`, `3`, `True` or `b'ab'`; on a new line when it takes
    several."""
    array = np.asarray(value)
    if array.ndim == 0:  # as Python writes the item: a float32 8.3 is 8.300000190734863
        return repr(array.item())
    if _NUMPY_2:
        with np.printoptions(legacy="1.25"):
            text = repr(array)
    else:
        text = repr(array)
    return "\n" + text if "\n" in text else text


_NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def is_tensor(value) -> bool:
    """True for eager tensors, symbolic tensors and variables."""
    return isinstance(value, Tensor)


def to_numpy_value(value, dtype: _dtypes.DType | None = None):
    """Converts a Python or NumPy value to an ndarray with the runtime's default dtypes.

    Python ints become int32 (int64 when too large), floats float32, bools bool.
    Raises TypeError when `value` cannot be represented as `dtype`.
    """
    if isinstance(value, np.ndarray | np.generic) and not value.dtype.isnative:
        value = np.asarray(value).astype(value.dtype.newbyteorder("="))  # big-endian data
    if dtype is not None:
        np_dtype = dtype._np
        if isinstance(value, np.ndarray | np.generic):
            if dtype.name == "string" and np.asarray(value).dtype.kind in "USO":
                return as_bytes_array(value)
            _check_lossless_array(np.asarray(value), dtype)
            return np.asarray(value).astype(np_dtype, copy=True)
        _check_lossless(value, dtype)
        if isinstance(value, (list, tuple)):
            if _holds_none(value):
                raise TypeError(f"Cannot convert {value!r:.80} to a tensor of dtype {dtype.name}: "
                                "None is not a number.")
            if dtype.is_integer or dtype.is_bool:
                try:
                    probe = np.array(value)
                except ValueError:  # ragged: reported by the conversion below
                    probe = None
                if probe is not None:
                    if probe.dtype.kind == "f" and _holds_float(value):
                        raise TypeError(f"Cannot convert {value!r:.80} to a tensor of dtype "
                                        f"{dtype.name}: {_FLOAT_TO_INT_REASON} Cast explicitly "
                                        "with rt.cast, or use a float tensor.")
                    _check_lossless_array(probe, dtype)
        elif value is None:
            raise TypeError(f"Cannot convert None to a tensor of dtype {dtype.name}: None is not "
                            "a number.")
        try:
            if dtype.name == "string":
                return as_bytes_array(np.array(value, dtype=object))
            return np.array(value, dtype=np_dtype)
        except OverflowError:
            raise TypeError(f"Cannot convert {value!r:.80} to a tensor of dtype {dtype.name}: "
                            "a value is out of range.") from None
        except (TypeError, ValueError) as exc:
            _raise_if_ragged(value, exc)
            raise TypeError(f"Cannot convert {value!r} to a tensor of dtype {dtype.name}: "
                            f"{exc}") from None
    tp = type(value)
    if tp is float:   # the common scalars, without NumPy's dtype inference or reductions
        return np.array(value, dtype=np.float32)
    if tp is int and -2**31 <= value < 2**31:
        return np.array(value, dtype=np.int32)
    if tp is bool:
        return np.array(value)
    if isinstance(value, np.ndarray):
        result = value.copy()
    elif isinstance(value, np.generic):
        result = np.asarray(value)
    elif hasattr(value, "__array__") and not isinstance(value, (list, tuple, Tensor)):
        result = _array_like(value)  # pandas objects, ...: their own dtype, as an ndarray's
    else:
        try:
            result = np.array(value)
        except (TypeError, ValueError) as exc:
            _raise_if_ragged(value, exc)
            raise TypeError(f"Cannot convert {value!r} to a tensor: {exc}") from None
        kind = result.dtype.kind
        if kind == "f" and result.dtype != np.float32:
            result = result.astype(np.float32)
        elif kind == "i":
            if result.size and (result.max() > 2**31 - 1 or result.min() < -2**31):
                result = result.astype(np.int64)
            else:
                result = result.astype(np.int32)
        elif kind == "c":
            result = result.astype(np.complex128)
        elif kind in "SU":  # NumPy's fixed-width strings drop trailing NULs: keep the items
            result = np.array(value, dtype=object)
        elif kind == "O":
            if any(type(v) is int for v in result.flat):
                raise TypeError(f"Cannot convert {value!r:.80} to a tensor: a Python int is out "
                                "of range of int64 (pass a float, or a NumPy array of uint64).")
            raise TypeError(f"Cannot convert {value!r:.80} to a tensor: its elements are not "
                            "numbers of one shape.")
    if result.dtype.kind in "USO":
        result = as_bytes_array(result)
    return result


def _array_like(value) -> np.ndarray:
    """The ndarray of an object with `__array__` (a pandas Series or DataFrame, ...), its dtype
    kept as TensorFlow keeps it; an object array must hold strings."""
    try:
        result = np.array(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"Cannot convert {value!r:.80} to a tensor: {exc}") from None
    if result.dtype.kind == "O" and not all(isinstance(v, (str, bytes)) for v in result.flat):
        raise TypeError(f"Cannot convert {value!r:.80} to a tensor: its elements are not "
                        "numbers of one shape, nor strings.")
    return result


class NonRectangularError(ValueError, TypeError):
    """A nested list whose rows differ in length: a ValueError as in TF (and a TypeError, the
    type conversion errors had before)."""


def _raise_if_ragged(value, exc: Exception) -> None:
    if isinstance(value, (list, tuple)) and "inhomogeneous" in str(exc):
        raise NonRectangularError(
            f"Cannot make a tensor of the non-rectangular nested list {value!r:.80}: its rows "
            "differ in length (use rt.ragged.constant for a ragged tensor).") from None


def as_bytes_array(value) -> np.ndarray:
    """A string tensor's value: an object array of `bytes`, as TensorFlow holds strings.

    `str` elements are encoded as UTF-8; `bytes` (and NumPy `bytes_`) are kept whole, any
    length, NUL bytes included. Other elements raise `TypeError`.
    """
    array = np.asarray(value)
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    for i, item in enumerate(array.reshape(-1).tolist()):
        if isinstance(item, str):
            flat[i] = item.encode("utf-8")
        elif isinstance(item, (bytes, bytearray, memoryview)):
            flat[i] = bytes(item)
        else:
            raise TypeError(f"Cannot convert {item!r:.80} to a string tensor element: strings "
                            "are str (encoded as UTF-8) or bytes.")
    return out


def _holds_float(values) -> bool:
    """Whether a nested list holds a Python float (which TensorFlow never makes an int)."""
    return any(type(v) is float or (isinstance(v, (list, tuple)) and _holds_float(v))
               for v in values)


def _holds_none(values) -> bool:
    return any(v is None or (isinstance(v, (list, tuple)) and _holds_none(v)) for v in values)


def _check_lossless_array(array, dtype):
    """The rule of `_check_lossless` for NumPy values: floats become integers only when they
    are whole numbers, never bools; complex values stay complex."""
    kind = array.dtype.kind
    if kind == "c" and not dtype.is_complex:
        raise TypeError(f"Cannot convert a {array.dtype} array to a tensor of dtype {dtype.name}; "
                        "use rt.math.real or rt.cast.")
    if kind == "f" and (dtype.is_integer or dtype.is_bool):
        if dtype.is_bool or not np.all(np.isfinite(array) & (array == np.round(array))):
            raise TypeError(f"Cannot convert a {array.dtype} array to a tensor of dtype "
                            f"{dtype.name}: the conversion would lose the fractional part. "
                            "Cast explicitly with rt.cast, or use a float tensor.")


_FRACTION = "the conversion would lose the fractional part."
_FLOAT_TO_INT_REASON = ("a Python float is not converted to an integer or bool dtype (as in "
                        "TensorFlow).")


def _check_lossless(value, dtype):
    """Refuses Python floats for integer tensors and the like (as TensorFlow does)."""
    if isinstance(value, bool):
        return
    if isinstance(value, float) and (dtype.is_integer or dtype.is_bool):
        raise TypeError(f"Cannot convert {value!r} to a tensor of dtype {dtype.name}: "
                        f"{_FLOAT_TO_INT_REASON if float(value).is_integer() else _FRACTION}"
                        " Cast explicitly with rt.cast, or use a float tensor.")
    if isinstance(value, complex) and not dtype.is_complex:
        raise TypeError(f"Cannot convert {value!r} to a tensor of dtype {dtype.name}.")
    if isinstance(value, int) and dtype.is_integer:
        info = np.iinfo(dtype._np)
        if not info.min <= value <= info.max:
            raise TypeError(f"Cannot convert {value} to a tensor of dtype {dtype.name}: out of range.")

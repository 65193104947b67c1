"""Data types: thin named wrappers over NumPy dtypes."""

from __future__ import annotations

import numpy as np


class DType:
    """A tensor element type (`rt.float32`, `rt.int32`, ...)."""

    __slots__ = ("name", "as_numpy_dtype", "_np")

    def __init__(self, name: str, np_type):
        self.name = name
        self.as_numpy_dtype = np_type  # the NumPy scalar type (np.float32), as TensorFlow's
        # the np.dtype instance: for comparisons with an array's dtype (`a.dtype == d._np` is a
        # dtype-to-dtype compare, faster than against the type) and dtype fields (.kind);
        # code that only passes a dtype to NumPy reads `as_numpy_dtype`
        self._np = np.dtype(np_type)

    @property
    def is_floating(self) -> bool:
        return self._np.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self._np.kind in "iu"

    @property
    def is_unsigned(self) -> bool:
        return self._np.kind == "u"

    @property
    def is_complex(self) -> bool:
        return self._np.kind == "c"

    @property
    def is_bool(self) -> bool:
        return self._np.kind == "b"

    @property
    def is_numeric(self) -> bool:
        return self._np.kind in "iufc"

    @property
    def base_dtype(self) -> "DType":
        return self

    @property
    def short_name(self) -> str:
        """Compact name used in graph listings (`f32`, `i64`, `bool`)."""
        return _SHORT[self.name]

    @property
    def min(self):
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def __eq__(self, other) -> bool:
        """As TensorFlow's: the same dtype, given as a DType, its name (`"float32"`, which
        Keras 3's `layer.dtype` is) or a NumPy dtype or type."""
        if other is self or isinstance(other, DType):
            return other is self
        if isinstance(other, (str, np.dtype, type)):
            try:
                return as_dtype(other) is self
            except (TypeError, ValueError, KeyError):
                return False
        return NotImplemented

    def __ne__(self, other) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"rt.{self.name}"

    def __str__(self) -> str:  # what print and "%s" show, as TensorFlow writes it
        return f"<dtype: '{self.name}'>"

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool_ = DType("bool", np.bool_)
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
string = DType("string", np.object_)
variant = DType("variant", np.object_)  # opaque runtime values (TensorArray handles)

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32,
       uint64, bool_, complex64, complex128, string)
_SHORT = {"float16": "f16", "float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16",
          "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
          "uint64": "u64", "bool": "bool", "complex64": "c64", "complex128": "c128",
          "string": "str", "variant": "var"}
_BY_NP = {d._np: d for d in ALL}  # object -> string (variant is only explicit)
_BY_NAME = {d.name: d for d in ALL + (variant,)}
_BY_NAME.update({"bool_": bool_, "half": float16, "float": float32, "double": float64})
_BY_NAME.update({d.short_name: d for d in ALL})
_BY_PY = {bool: bool_, int: int32, float: float32, complex: complex128, str: string}


def from_numpy(np_dtype) -> DType:
    """The DType of a NumPy dtype; TypeError for one the runtime does not support."""
    try:
        return _BY_NP[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        kind = np.dtype(np_dtype)
    except TypeError:
        raise TypeError(f"Cannot convert {np_dtype!r} to a runtime dtype.") from None
    if kind.kind in "US":
        return string
    if not kind.isnative:  # a big-endian array's dtype ('>f4'): its values convert to native
        kind = kind.newbyteorder("=")
    if kind in _BY_NP:
        return _BY_NP[kind]
    raise TypeError(f"NumPy dtype {kind} has no runtime dtype; use one of "
                    f"{', '.join(d.name for d in ALL)}.")


# TensorFlow's DataType enum values (types_pb2), which tf.as_dtype also takes: tf.zeros(1, 1)
_TF_ENUM = {1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8",
            7: "string", 8: "complex64", 9: "int64", 10: "bool", 14: "bfloat16",
            17: "uint16", 18: "complex128", 19: "float16", 22: "uint32", 23: "uint64"}


def as_dtype(value) -> DType:
    """Converts a DType, NumPy dtype or type, Python type or name to a DType.

    Raises TypeError naming the value when it is not a known dtype.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        found = _BY_NAME.get(value)
        if found is None:
            raise TypeError(f"Unknown dtype name {value!r}; expected one of "
                            f"{', '.join(d.name for d in ALL)}.")
        return found
    if value in _BY_PY:
        return _BY_PY[value]
    if type(value) is int and _TF_ENUM.get(value) in _BY_NAME:  # TensorFlow's DataType enum
        return _BY_NAME[_TF_ENUM[value]]
    try:
        return from_numpy(np.dtype(value))
    except TypeError:
        raise TypeError(f"Cannot interpret {value!r} as a dtype; pass an rt.DType such as "
                        "rt.float32, a NumPy dtype or a dtype name.") from None


def python_scalar_dtype(value) -> DType | None:
    """The default dtype of a Python scalar (int → int32, float → float32, bool → bool)."""
    return _BY_PY.get(type(value))

"""Data types: thin named wrappers over NumPy dtypes."""

from __future__ import annotations

import types

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
    def is_quantized(self) -> bool:
        """Whether this is one of TensorFlow's quantized dtypes (qint8, quint8, ...)."""
        return self.name in ("qint8", "quint8", "qint16", "quint16", "qint32")

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



class _ExtendedDType(DType):
    """A dtype whose NumPy type is ml_dtypes' (bfloat16, the float8 and float4 formats, the
    2- and 4-bit integers), imported on first use: `import runtime` does not load ml_dtypes,
    and without it (`pip install ml_dtypes`) using such a dtype raises ImportError."""

    __slots__ = ("_kind",)

    def __init__(self, name: str, kind: str) -> None:  # no NumPy type read yet
        self.name = name
        self._kind = kind  # "f", "i" or "u": what the dtype holds

    @property
    def as_numpy_dtype(self):
        return getattr(_ml_dtypes(self.name), self.name)

    @property
    def _np(self):
        return np.dtype(self.as_numpy_dtype)

    is_floating = property(lambda self: self._kind == "f")
    is_integer = property(lambda self: self._kind in "iu")
    is_unsigned = property(lambda self: self._kind == "u")
    is_numeric = property(lambda self: True)

    def _info(self):
        module = _ml_dtypes(self.name)
        return (module.finfo if self._kind == "f" else module.iinfo)(self.as_numpy_dtype)

    min = property(lambda self: self._info().min)
    max = property(lambda self: self._info().max)


def _ml_dtypes(name: str):
    try:
        import ml_dtypes
    except ImportError:
        raise ImportError(f"the {name} dtype needs the ml_dtypes package (pip install "
                          "ml_dtypes, or the extra autograph-rt[dtypes]).") from None
    return ml_dtypes


bfloat16 = _ExtendedDType("bfloat16", "f")
float8_e4m3fn = _ExtendedDType("float8_e4m3fn", "f")
float8_e4m3fnuz = _ExtendedDType("float8_e4m3fnuz", "f")
float8_e4m3b11fnuz = _ExtendedDType("float8_e4m3b11fnuz", "f")
float8_e5m2 = _ExtendedDType("float8_e5m2", "f")
float8_e5m2fnuz = _ExtendedDType("float8_e5m2fnuz", "f")
float4_e2m1fn = _ExtendedDType("float4_e2m1fn", "f")
int4 = _ExtendedDType("int4", "i")
uint4 = _ExtendedDType("uint4", "u")
int2 = _ExtendedDType("int2", "i")
uint2 = _ExtendedDType("uint2", "u")
EXTENDED = (bfloat16, float8_e4m3fn, float8_e4m3fnuz, float8_e4m3b11fnuz, float8_e5m2,
            float8_e5m2fnuz, float4_e2m1fn, int4, uint4, int2, uint2)

# TensorFlow's quantized dtypes, with TensorFlow's NumPy types (a structured dtype of one
# integer field: values to hold, not to compute with)
qint8 = DType("qint8", np.dtype([("qint8", np.int8)]))
quint8 = DType("quint8", np.dtype([("quint8", np.uint8)]))
qint16 = DType("qint16", np.dtype([("qint16", np.int16)]))
quint16 = DType("quint16", np.dtype([("quint16", np.uint16)]))
qint32 = DType("qint32", np.dtype([("qint32", np.int32)]))
QUANTIZED_DTYPES = frozenset({qint8, quint8, qint16, quint16, qint32})
resource = DType("resource", np.object_)  # handles of stateful objects (variables, tables)

#: tf.dtypes.experimental: the narrow float and integer formats
experimental = types.SimpleNamespace(**{d.name: d for d in EXTENDED if d is not bfloat16})

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32,
       uint64, bool_, complex64, complex128, string)
_SHORT = {"float16": "f16", "float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16",
          "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
          "uint64": "u64", "bool": "bool", "complex64": "c64", "complex128": "c128",
          "string": "str", "variant": "var", "bfloat16": "bf16", "float8_e4m3fn": "f8e4m3fn",
          "float8_e4m3fnuz": "f8e4m3fnuz", "float8_e4m3b11fnuz": "f8e4m3b11fnuz",
          "float8_e5m2": "f8e5m2", "float8_e5m2fnuz": "f8e5m2fnuz", "float4_e2m1fn": "f4e2m1fn",
          "int4": "i4", "uint4": "u4", "int2": "i2", "uint2": "u2", "qint8": "qi8",
          "quint8": "qu8", "qint16": "qi16", "quint16": "qu16", "qint32": "qi32",
          "resource": "res"}
_BY_NP = {d._np: d for d in ALL}  # object -> string (variant is only explicit)
_BY_NAME = {d.name: d for d in ALL + (variant, resource) + EXTENDED}
_BY_NAME.update({d.name: d for d in QUANTIZED_DTYPES})
_BY_NAME.update({"bool_": bool_, "half": float16, "float": float32, "double": float64})
_BY_NAME.update({d.short_name: d for d in ALL})
_NARROW = {d.name for d in EXTENDED + tuple(QUANTIZED_DTYPES)}
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
    if kind.kind == "V":  # ml_dtypes' types (by name), TensorFlow's quantized ones (by field)
        extended = _BY_NAME.get(kind.names[0] if kind.names else kind.name)
        if extended is not None and extended.name in _NARROW:
            return extended
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

"""`rt.io`: files as string tensors (scalar tensors holding the bytes) and tensors as bytes.

`decode_raw` reads the bytes of string tensors as numbers (an op: eager and staged);
`encode_base64` and `decode_base64` convert strings to and from web-safe base64.

`read_file` and `write_file` run eagerly and inside `rt.function` (where they run as
`rt.numpy_function` calls when the graph runs, in program order). `serialize_tensor` writes a
tensor as a TensorProto (TensorFlow's bytes); `parse_tensor` reads it back, or one TensorFlow
wrote.
"""

from __future__ import annotations

import base64
import os
import re

import numpy as np

from .. import dtypes as _dtypes
from .. import train_example as _example
from ..attr_kinds import BOOL, DTYPE, OPT_INT
from ..context import executing_eagerly
from ..errors import InvalidArgumentError, NotFoundError
from ..exports import export
from ..graph import constant_value
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor
from .core import apply, convert_to_tensor
from .py_function import numpy_function


def _path(value, what: str):
    """The path of a str / bytes / scalar string tensor, or None when known only later."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return os.fsdecode(value)
    t = convert_to_tensor(value)
    if t.dtype is not _dtypes.string or t.shape.rank not in (0, None):
        raise TypeError(f"`{what}` must be a string scalar (a path), got {value!r:.60}.")
    known = constant_value(t)
    return None if known is None else os.fsdecode(known.item() if hasattr(known, "item") else known)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise InvalidArgumentError(f"{path} is a directory, not a file.") from None


def _as_bytes(value) -> bytes:
    if isinstance(value, np.ndarray):
        value = value.item()
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def _write(path: str, contents: bytes) -> None:
    parent = os.path.dirname(path)
    if parent and not os.path.isdir(parent):
        raise NotFoundError(f"{path}: the directory {parent} does not exist")
    with open(path, "wb") as fh:
        fh.write(contents)


@export("io.read_file")
def read_file(filename, name=None) -> Tensor:
    """The whole content of the file `filename` as a scalar string tensor (bytes)."""
    path = _path(filename, "filename")
    if path is not None and not _staging(filename):
        return convert_to_tensor(np.array(_read(path), dtype=object), dtype=_dtypes.string)
    return numpy_function(lambda p: np.array(_read(os.fsdecode(_as_bytes(p))), dtype=object),
                          [convert_to_tensor(filename, dtype=_dtypes.string)], _dtypes.string)


@export("io.write_file")
def write_file(filename, contents, name=None) -> Tensor | None:
    """Writes the bytes of the scalar string tensor `contents` to the file `filename`
    (replacing it). Returns None eagerly, the write operation inside `rt.function`."""
    data = convert_to_tensor(contents, dtype=_dtypes.string) if not isinstance(contents, Tensor) \
        else contents
    if data.dtype is not _dtypes.string or data.shape.rank not in (0, None):
        raise TypeError(f"`contents` must be a string scalar, got {contents!r:.60}.")
    path = _path(filename, "filename")
    if path is not None and isinstance(data, EagerTensor) and not _staging(filename):
        _write(path, _as_bytes(data.numpy()))
        return None

    def run(p, c):
        _write(os.fsdecode(_as_bytes(p)), _as_bytes(c))
        return np.array(True)

    return numpy_function(run, [convert_to_tensor(filename, dtype=_dtypes.string), data],
                          _dtypes.bool_)


def _staging(value) -> bool:
    return not executing_eagerly()


@export("io.serialize_tensor")
def serialize_tensor(tensor, name=None) -> Tensor:
    """A scalar string tensor holding `tensor` as a TensorProto, the bytes
    `tf.io.serialize_tensor` writes (raw little-endian values; strings one by one)."""
    t = convert_to_tensor(tensor)
    if t.dtype.name not in _example.DATA_TYPES:
        raise TypeError(f"serialize_tensor: dtype {t.dtype.name} has no TensorProto encoding.")
    if executing_eagerly():
        return convert_to_tensor(_serialize(t.numpy(), t.dtype.name), dtype=_dtypes.string)
    out = numpy_function(lambda a: _serialize(a, t.dtype.name), [t], _dtypes.string,
                         stateful=False)
    out.set_shape([])
    return out


def _serialize(array, type_name: str) -> np.ndarray:
    return np.array(_example.encode_tensor_proto(np.asarray(array), type_name), dtype=object)


@export("io.parse_tensor")
def parse_tensor(serialized, out_type, name=None) -> Tensor:
    """The tensor in the serialized TensorProto `serialized` (what `serialize_tensor` or
    TensorFlow wrote); its dtype must be `out_type`."""
    out_type = _dtypes.as_dtype(out_type)
    t = convert_to_tensor(serialized, dtype=_dtypes.string) if not isinstance(serialized, Tensor) \
        else serialized
    if t.dtype is not _dtypes.string or t.shape.rank not in (0, None):
        raise TypeError("parse_tensor: `serialized` must be a scalar string tensor.")
    if executing_eagerly():
        return convert_to_tensor(_parse(t.numpy(), out_type), dtype=out_type)
    return numpy_function(lambda s: _parse(s, out_type), [t], out_type, stateful=False)


def _parse(serialized, out_type) -> np.ndarray:
    try:
        name, dims, values = _example.decode_tensor_proto(_as_bytes(np.asarray(serialized, dtype=object)))
    except (_example.DecodeError, ValueError) as exc:
        raise InvalidArgumentError(f"`serialized` does not hold a serialized tensor: {exc}") from None
    if name != out_type.name:
        raise InvalidArgumentError(f"Type mismatch between the parsed tensor ({name}) and "
                                   f"`out_type` ({out_type.name}).")
    count = int(np.prod(dims, dtype=np.int64))
    if name == "string":
        array = np.array(values, dtype=object).reshape(-1)
    elif isinstance(values, bytes):
        dtype = np.dtype(out_type.as_numpy_dtype).newbyteorder("<")
        if len(values) != count * dtype.itemsize:
            raise InvalidArgumentError(f"`serialized` holds {len(values)} bytes of content for "
                                       f"shape {dims} of {name}.")
        array = np.frombuffer(values, dtype).astype(out_type.as_numpy_dtype)
    else:
        array = _from_vals(values, out_type)
    if array.size != count:
        if array.size == 0 or array.size > count:
            raise InvalidArgumentError(f"`serialized` holds {array.size} values for shape {dims}.")
        array = np.concatenate([array, np.repeat(array[-1:], count - array.size)])
    return array.reshape(dims)


def _from_vals(values: np.ndarray, out_type) -> np.ndarray:
    """A TensorProto's *_val entries as `out_type` (halves are stored as their bits)."""
    if out_type.name == "float16":
        return values.astype(np.uint16).view(np.float16)
    if out_type.is_complex:
        return values.astype(np.float64).view(np.complex128).astype(out_type.as_numpy_dtype)
    return values.astype(out_type.as_numpy_dtype)


def _decode_raw_infer(x, out_type, little_endian, fixed_length):
    if x.dtype is not _dtypes.string:
        raise TypeError(f"decode_raw: `input_bytes` must be a string tensor, got {x.dtype.name}.")
    if x.shape.rank is None:
        return TensorShape(None), out_type
    n = None if fixed_length is None else fixed_length // out_type._np.itemsize
    return TensorShape(list(x.shape.as_tuple()) + [n]), out_type


def _decode_raw_kernel(x, out_type, little_endian, fixed_length):
    dtype = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    items = [_as_bytes(v) for v in np.asarray(x, dtype=object).reshape(-1)]
    if fixed_length is not None:
        items = [v[:fixed_length].ljust(fixed_length, b"\0") for v in items]
    lengths = {len(v) for v in items}
    if len(lengths) > 1:
        raise InvalidArgumentError(f"decode_raw: every string must have the same length, got "
                                   f"lengths {sorted(lengths)[:4]}; pass fixed_length.")
    width = lengths.pop() if lengths else (fixed_length or 0)
    if width % dtype.itemsize:
        raise InvalidArgumentError(f"decode_raw: a string of {width} bytes is not a whole number "
                                   f"of {out_type.name} values ({dtype.itemsize} bytes each).")
    values = np.frombuffer(b"".join(items), dtype=dtype).astype(out_type.as_numpy_dtype)
    return values.reshape(np.shape(x) + (width // dtype.itemsize,))


DECODE_RAW = define("DecodeRaw", _decode_raw_infer, _decode_raw_kernel, differentiable=False,
                    strings=True, attrs={"out_type": DTYPE, "little_endian": BOOL,
                                         "fixed_length": OPT_INT})


@export("io.decode_raw")
def decode_raw(input_bytes, out_type, little_endian: bool = True, fixed_length=None,
               name=None) -> Tensor:
    """The bytes of each string of `input_bytes` read as `out_type` numbers: a new last axis
    of `len / itemsize` values (every string the same length, or cut/padded with zeros to
    `fixed_length` bytes)."""
    x = convert_to_tensor(input_bytes, dtype=_dtypes.string) if not isinstance(input_bytes, Tensor) \
        else input_bytes
    out_type = _dtypes.as_dtype(out_type)
    if not (out_type.is_integer or out_type.is_floating or out_type.is_complex):
        raise TypeError(f"decode_raw: `out_type` must be numeric, got {out_type.name}.")
    return apply(DECODE_RAW, [x], {"out_type": out_type, "little_endian": bool(little_endian),
                                   "fixed_length": None if fixed_length is None else int(fixed_length)},
                 name=name)


# -- web-safe base64 -----------------------------------------------------------------------------

_BASE64 = re.compile(rb"[A-Za-z0-9_-]*")


def _string_infer(fn: str):
    def infer(x, **_attrs):
        if x.dtype is not _dtypes.string:
            raise TypeError(f"{fn}: `input` must be a string tensor, got {x.dtype.name}.")
        return x.shape, _dtypes.string
    return infer


def _per_string(fn, x) -> np.ndarray:
    x = np.asarray(x, dtype=object)
    out = np.empty(x.shape, dtype=object)
    for index, value in np.ndenumerate(x):
        out[index] = fn(_as_bytes(value))
    return out


def _encode_base64_kernel(x, pad):
    def encode(value: bytes) -> bytes:
        text = base64.urlsafe_b64encode(value)
        return text if pad else text.rstrip(b"=")
    return _per_string(encode, x)


def _decode_base64_one(text: bytes) -> bytes:
    body = text.rstrip(b"=")
    if len(text) - len(body) > 2 or not _BASE64.fullmatch(body):
        raise InvalidArgumentError("decode_base64: invalid character found in base64 (the "
                                   "web-safe alphabet is A-Z a-z 0-9 - _, with optional '=' "
                                   f"padding), in {text[:40]!r}.")
    if len(body) % 4 == 1:
        raise InvalidArgumentError(f"decode_base64: a base64 string's length cannot be 1 modulo "
                                   f"4, got {len(body)} characters in {text[:40]!r}.")
    return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))


def _decode_base64_kernel(x):
    return _per_string(_decode_base64_one, x)


ENCODE_BASE64 = define("EncodeBase64", _string_infer("encode_base64"), _encode_base64_kernel,
                       differentiable=False, strings=True, attrs={"pad": BOOL})
DECODE_BASE64 = define("DecodeBase64", _string_infer("decode_base64"), _decode_base64_kernel,
                       differentiable=False, strings=True)


def _string_input(value, fn: str) -> Tensor:
    x = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=_dtypes.string)
    if x.dtype is not _dtypes.string:
        raise TypeError(f"{fn}: `input` must be a string tensor, got {x.dtype.name}.")
    return x


@export("io.encode_base64")
def encode_base64(input, pad: bool = False, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Each string in web-safe base64 (`-` and `_` for `+` and `/`); without `=` padding
    unless `pad` (op `EncodeBase64`)."""
    return apply(ENCODE_BASE64, [_string_input(input, "encode_base64")], {"pad": bool(pad)},
                 name=name)


@export("io.decode_base64")
def decode_base64(input, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Each web-safe base64 string decoded, with or without its `=` padding; any other
    character is an InvalidArgumentError (op `DecodeBase64`)."""
    return apply(DECODE_BASE64, [_string_input(input, "decode_base64")], name=name)

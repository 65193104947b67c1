"""`rt.io`: files as string tensors (scalar tensors holding the bytes) and tensors as bytes.

`decode_raw` reads the bytes of string tensors as numbers (an op: eager and staged).

`read_file` and `write_file` run eagerly and inside `rt.function` (where they run as
`rt.numpy_function` calls when the graph runs, in program order). `serialize_tensor` writes a
numeric or bool tensor as NumPy `.npy` bytes (never pickled); `parse_tensor` reads them back.
"""

from __future__ import annotations

import io as _stdio
import os

import numpy as np

from .. import dtypes as _dtypes
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
    """A scalar string tensor holding `tensor` (numeric or bool) in NumPy's .npy format."""
    t = convert_to_tensor(tensor)
    if t.dtype is _dtypes.string:
        raise TypeError("serialize_tensor supports numeric and bool tensors, not strings.")
    value = constant_value(t)
    if value is None:
        raise TypeError("serialize_tensor needs an eager tensor.")
    buffer = _stdio.BytesIO()
    np.save(buffer, np.asarray(value), allow_pickle=False)
    return convert_to_tensor(np.array(buffer.getvalue(), dtype=object), dtype=_dtypes.string)


@export("io.parse_tensor")
def parse_tensor(serialized, out_type, name=None) -> Tensor:
    """The tensor `serialize_tensor` wrote; its dtype must be `out_type`."""
    out_type = _dtypes.as_dtype(out_type)
    t = convert_to_tensor(serialized, dtype=_dtypes.string) if not isinstance(serialized, Tensor) \
        else serialized
    value = constant_value(t)
    if value is None or t.dtype is not _dtypes.string or np.ndim(value) != 0:
        raise TypeError("`serialized` must be an eager scalar string tensor.")
    try:
        array = np.load(_stdio.BytesIO(_as_bytes(value)), allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise InvalidArgumentError(f"`serialized` does not hold a serialized tensor: {exc}") from None
    if array.dtype != out_type._np:
        raise InvalidArgumentError(f"Type mismatch between the parsed tensor ({array.dtype}) and "
                                   f"`out_type` ({out_type.name}).")
    return convert_to_tensor(array)


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

"""More of tf.io: `decode_compressed` (ZLIB, GZIP), `matching_files`, `decode_json_example`,
and the string forms of sparse tensors (`serialize_sparse`, `serialize_many_sparse`,
`deserialize_many_sparse`: TensorProtos of the indices, values and shape, TensorFlow's bytes).
They run in NumPy, staged as `numpy_function` calls as `tf.io.serialize_tensor` is.
"""

from __future__ import annotations

import base64
import glob as _glob
import json
import struct
import zlib

import numpy as np

from .. import dtypes as _dtypes
from .. import train_example as _example
from ..context import executing_eagerly
from ..errors import DataLossError, InvalidArgumentError
from ..exports import export
from ..tensor import Tensor
from .core import convert_to_tensor
from .py_function import numpy_function
from .sparse import SparseTensor


def _call(fn, inputs, dtypes, stateful=False):
    """fn of the inputs' arrays, now (eagerly) or when the graph runs."""
    if executing_eagerly():
        out = fn(*[t.numpy() for t in inputs])
        return tuple(convert_to_tensor(o, dtype=d) for o, d in zip(out, dtypes)) \
            if isinstance(dtypes, (list, tuple)) else convert_to_tensor(out, dtype=dtypes)
    return numpy_function(fn, list(inputs), dtypes, stateful=stateful)


def _strings_of(value, fn, arg) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=_dtypes.string)
    if t.dtype is not _dtypes.string:
        raise TypeError(f"{fn}: `{arg}` must be strings, got {t.dtype.name}.")
    return t


def _object_array(items, shape) -> np.ndarray:
    out = np.empty(len(items), object)
    out[:] = items
    return out.reshape(shape)


# -- decode_compressed --------------------------------------------------------------------------

def _decompress(data: bytes, compression_type: str) -> bytes:
    if not compression_type:
        return data
    wbits = 15 if compression_type == "ZLIB" else 31
    try:
        out = zlib.decompressobj(wbits)
        result = out.decompress(data)
        if not out.eof:
            raise zlib.error("truncated input")
        return result
    except zlib.error as exc:
        raise DataLossError(f"decode_compressed: the input is not valid {compression_type} "
                            f"data ({exc}).") from None


@export("io.decode_compressed")
def decode_compressed(bytes, compression_type="", name=None) -> Tensor:  # noqa: A002
    """Each string of `bytes` decompressed: `compression_type` 'ZLIB' or 'GZIP', or '' for
    none. Data that does not decompress raises DataLossError."""
    fn = "io.decode_compressed"
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise InvalidArgumentError(f"{fn}: compression_type must be '', 'ZLIB' or 'GZIP', got "
                                   f"{compression_type!r}.")
    x = _strings_of(bytes, fn, "bytes")

    def run(a):
        a = np.asarray(a, object)
        return _object_array([_decompress(v, compression_type) for v in a.reshape(-1)],
                             a.shape)
    out = _call(run, [x], _dtypes.string)
    out.set_shape(x.shape)
    return out


# -- matching_files ---------------------------------------------------------------------------

@export("io.matching_files")
def matching_files(pattern, name=None) -> Tensor:
    """The names of the files matching the glob `pattern` (a string or a vector of them:
    their matches together), sorted; an empty vector when none match."""
    fn = "io.matching_files"
    x = _strings_of(pattern, fn, "pattern")
    if x.shape.rank not in (None, 0, 1):
        raise InvalidArgumentError(f"{fn}: `pattern` must be a scalar or a vector, got shape "
                                   f"{x.shape}.")

    def run(a):
        names = set()
        for p in np.asarray(a, object).reshape(-1):
            text = p.decode("utf-8", "surrogateescape") if isinstance(p, (bytes, bytearray)) \
                else str(p)
            names.update(_glob.glob(text))
        return _object_array([n.encode("utf-8", "surrogateescape") for n in sorted(names)],
                             (len(names),))
    out = _call(run, [x], _dtypes.string, stateful=True)
    out.set_shape([None])
    return out


# -- decode_json_example --------------------------------------------------------------------------

def _tag(number, wire) -> bytes:
    return _example._tag(number, wire)


def _feature_bytes(feature: dict) -> bytes:
    if not isinstance(feature, dict) or len(feature) > 1:
        raise InvalidArgumentError(f"decode_json_example: a feature must hold one of bytesList, "
                                   f"floatList or int64List, got {feature!r:.80}.")
    if not feature:
        return b""
    (kind, body), = feature.items()
    values = body.get("value", []) if isinstance(body, dict) else None
    if not isinstance(values, list):
        raise InvalidArgumentError(f"decode_json_example: {kind} needs a list `value`.")
    if kind in ("bytesList", "bytes_list"):
        inner = b"".join(_example._delimited(1, base64.b64decode(v)) for v in values)
        return _example._delimited(1, inner)
    if kind in ("floatList", "float_list"):
        inner = b"".join(_tag(1, 5) + struct.pack("<f", float(v)) for v in values)
        return _example._delimited(2, inner)
    if kind in ("int64List", "int64_list"):
        inner = b"".join(_tag(1, 0) + _example._varint_bytes(int(v) & ((1 << 64) - 1))
                         for v in values)
        return _example._delimited(3, inner)
    raise InvalidArgumentError(f"decode_json_example: unknown feature kind {kind!r}.")


def _json_example(text: bytes) -> bytes:
    try:
        message = json.loads(text)
    except ValueError as exc:
        raise InvalidArgumentError(f"decode_json_example: not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise InvalidArgumentError("decode_json_example: an Example must be a JSON object.")
    features = message.get("features", {}).get("feature", {})
    entries = b"".join(
        _example._delimited(1, _example._delimited(1, key.encode()) +
                            _example._delimited(2, _feature_bytes(value)))
        for key, value in features.items())
    return _example._delimited(1, entries) if "features" in message else b""


@export("io.decode_json_example")
def decode_json_example(json_examples, name=None) -> Tensor:
    """Each string of `json_examples`, a tf.train.Example in protobuf's JSON mapping
    ({"features": {"feature": {"x": {"floatList": {"value": [1.5]}}}}}, bytes in base64,
    int64s as numbers or strings), as the Example's binary serialization."""
    x = _strings_of(json_examples, "io.decode_json_example", "json_examples")

    def run(a):
        a = np.asarray(a, object)
        return _object_array([_json_example(v) for v in a.reshape(-1)], a.shape)
    out = _call(run, [x], _dtypes.string)
    out.set_shape(x.shape)
    return out


# -- sparse tensors as strings -----------------------------------------------------------------------

def _proto(array, dtype) -> bytes:
    """A TensorProto with its values in tensor_content, as TensorFlow serializes a sparse
    tensor's parts (strings: every length as a varint, then the bytes)."""
    array = np.asarray(array)
    if dtype is not _dtypes.string:
        return _example.encode_tensor_proto(array, dtype.name)
    flat = [v if isinstance(v, bytes) else str(v).encode() for v in array.reshape(-1)]
    shape = b"".join(_example._delimited(2, _tag(1, 0) + _example._varint_bytes(int(d))
                                         if d else b"") for d in array.shape)
    out = _tag(1, 0) + _example._varint_bytes(_example.DATA_TYPES["string"]) + \
        _example._delimited(2, shape)
    if flat:
        out += _example._delimited(4, b"".join(_example._varint_bytes(len(v)) for v in flat) +
                                   b"".join(flat))
    return out


def _string_content(blob: bytes, count: int) -> list:
    """The strings of a string TensorProto's tensor_content (lengths, then bytes)."""
    for number, wire, value in _example.fields(blob, 0, len(blob)):
        if number == 4 and wire == 2:
            pos, end = value
            lengths = []
            for _ in range(count):
                length, pos = _example.read_varint(blob, pos, end)
                lengths.append(length)
            out = []
            for length in lengths:
                out.append(blob[pos:pos + length])
                pos += length
            return out
    return []


def _sparse_parts(sp_input, fn):
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"{fn}: `sp_input` must be a SparseTensor, got {type(sp_input).__name__}.")
    return sp_input.indices, sp_input.values, sp_input.dense_shape


def _out_type(out_type, fn):
    out_type = _dtypes.as_dtype(out_type)
    if out_type is not _dtypes.string:
        raise NotImplementedError(f"{fn}: out_type={out_type.name} is not implemented; this "
                                  "runtime serializes to strings (out_type=tf.string).")


@export("io.serialize_sparse")
def serialize_sparse(sp_input, out_type=_dtypes.string, name=None) -> Tensor:
    """A SparseTensor as a 3-vector of serialized TensorProtos: its indices, values and
    dense shape (TensorFlow's bytes)."""
    fn = "io.serialize_sparse"
    _out_type(out_type, fn)
    indices, values, shape = _sparse_parts(sp_input, fn)
    dtype = values.dtype

    def run(i, v, s):
        return _object_array([_proto(i, _dtypes.int64), _proto(v, dtype),
                              _proto(s, _dtypes.int64)], (3,))
    out = _call(run, [indices, values, shape], _dtypes.string)
    out.set_shape([3])
    return out


@export("io.serialize_many_sparse")
def serialize_many_sparse(sp_input, out_type=_dtypes.string, name=None) -> Tensor:
    """A SparseTensor of rank >= 2 as [batch, 3] strings: row i serializes (as
    `serialize_sparse`) its entries whose first index is i, that index dropped."""
    fn = "io.serialize_many_sparse"
    _out_type(out_type, fn)
    indices, values, shape = _sparse_parts(sp_input, fn)
    dtype = values.dtype

    def run(i, v, s):
        i, v, s = np.asarray(i, np.int64), np.asarray(v), np.asarray(s, np.int64)
        if s.size < 2:
            raise InvalidArgumentError(f"{fn}: `sp_input` must have rank 2 or more, got "
                                       f"{s.size}.")
        rows = []
        for b in range(int(s[0])):
            mine = i[:, 0] == b
            rows.append([_proto(i[mine, 1:], _dtypes.int64), _proto(v[mine], dtype),
                         _proto(s[1:], _dtypes.int64)])
        return _object_array([x for row in rows for x in row], (len(rows), 3))
    out = _call(run, [indices, values, shape], _dtypes.string)
    out.set_shape([None, 3])
    return out


@export("io.deserialize_many_sparse")
def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None) -> SparseTensor:
    """The SparseTensor of [batch, 3] serialized sparse tensors (as `serialize_many_sparse`
    writes): entry i's indices take i as their first index, and the dense shape is [batch] +
    the largest shape of each axis. The values must be of `dtype`."""
    fn = "io.deserialize_many_sparse"
    dtype = _dtypes.as_dtype(dtype)
    x = _strings_of(serialized_sparse, fn, "serialized_sparse")
    if x.shape.rank not in (None, 2) or x.shape.as_list()[-1] not in (None, 3):
        raise InvalidArgumentError(f"{fn}: `serialized_sparse` must be [batch, 3] strings, got "
                                   f"shape {x.shape}.")

    def parse(blob, want):
        try:
            name_, dims, content = _example.decode_tensor_proto(bytes(blob))
        except (_example.DecodeError, ValueError) as exc:
            raise InvalidArgumentError(f"{fn}: not a serialized tensor: {exc}") from None
        if name_ != want.name:
            raise InvalidArgumentError(f"{fn}: the serialized values are {name_}, not "
                                       f"{want.name} (`dtype`).")
        if name_ == "string":
            count = int(np.prod(dims, dtype=np.int64))
            strings = content if content else _string_content(bytes(blob), count)
            return _object_array(strings, dims)
        if isinstance(content, bytes):
            return np.frombuffer(content, np.dtype(want.as_numpy_dtype).newbyteorder("<")) \
                .astype(want.as_numpy_dtype).reshape(dims)
        return np.asarray(content).astype(want.as_numpy_dtype).reshape(dims)

    def run(a):
        a = np.asarray(a, object)
        all_i, all_v, shapes = [], [], []
        for b, (ib, vb, sb) in enumerate(a.tolist()):
            i, v, s = parse(ib, _dtypes.int64), parse(vb, dtype), parse(sb, _dtypes.int64)
            if rank is not None and s.size + 1 != int(rank):
                raise InvalidArgumentError(f"{fn}: entry {b} has rank {s.size + 1}, not "
                                           f"`rank` = {rank}.")
            if shapes and s.size != shapes[0].size:
                raise InvalidArgumentError(f"{fn}: entries of ranks {shapes[0].size} and "
                                           f"{s.size} cannot be batched.")
            shapes.append(s)
            all_i.append(np.concatenate([np.full((len(i), 1), b, np.int64),
                                         i.reshape(-1, s.size)], axis=1))
            all_v.append(v)
        width = 1 + (shapes[0].size if shapes else 0)
        indices = np.concatenate(all_i) if all_i else np.zeros((0, width), np.int64)
        values = np.concatenate(all_v) if all_v else np.zeros(0, dtype.as_numpy_dtype)
        dense = np.concatenate([[len(shapes)], np.max(shapes, axis=0)]) if shapes else \
            np.zeros(width, np.int64)
        return indices, values.astype(dtype.as_numpy_dtype), dense.astype(np.int64)
    indices, values, dense = _call(run, [x], [_dtypes.int64, dtype, _dtypes.int64])
    width = None if rank is None else int(rank)
    indices.set_shape([None, width])
    values.set_shape([None])
    dense.set_shape([width])
    return SparseTensor(indices, values, dense)


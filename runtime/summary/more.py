"""More of `rt.summary`: `audio` (WAV clips for TensorBoard's audio dashboard), `write` (any
tensor under a tag, with the caller's SummaryMetadata), `experimental.write_raw_pb`
(serialized `Summary` protocol buffers written as they are) and
`experimental.summary_scope` (the tag and name scope of a custom summary op).

Each writes, returns and stages inside `rt.function` as `rt.summary.scalar` does (see the
package's doc): True when written eagerly, False when no writer records, None when staged.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any, Iterator

import numpy as np

from .. import context as _context
from ..arguments import strict_keywords
from ..errors import InvalidArgumentError
from ..ops.io_audio import write_wav
from ..tensor import EagerTensor, Tensor
from . import _state, should_record_summaries
from . import _summary as _write_summary  # defined before the package imports this module
from ._state import _entry, _proto, _string_tensor

# -- encoders ------------------------------------------------------------------------------------

_WAV = 11  # TensorBoard's AudioPluginData.Encoding.WAV
_INT16_SCALE = 32768.0


def _wav(clip: np.ndarray, sample_rate: int) -> bytes:
    """`rt.audio.encode_wav` of one [frames, channels] clip of floats in [-1, 1]."""
    scaled = clip.astype(np.float64) * _INT16_SCALE
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)  # half away from zero
    return write_wav(np.clip(rounded, -_INT16_SCALE, _INT16_SCALE - 1).astype(np.int16),
                     sample_rate)


def encode_audio(tag: str, data: Any, options: dict) -> Any:
    """TensorBoard's audio summary: a string tensor [k, 2] of (WAV bytes, label "") for the
    first `max_outputs` clips, plugin "audio" (content: AudioPluginData, encoding WAV)."""
    clips = np.asarray(data)
    if clips.ndim != 3:
        raise ValueError(f"rt.summary.audio: data must be [k, frames, channels], got shape "
                         f"{clips.shape}.")
    if clips.dtype.kind != "f":
        raise TypeError(f"rt.summary.audio: data must be floats in [-1, 1], got dtype "
                        f"{clips.dtype}.")
    rate = options["sample_rate"]
    if rate != int(rate):
        raise ValueError(f"rt.summary.audio: sample_rate must be a whole number of Hz, got "
                         f"{rate!r}.")
    shown = clips[:int(options.get("max_outputs", 3))]
    strings = []
    for clip in shown:
        strings += [_wav(clip, int(rate)), b""]
    content = bytes([0x10, _WAV])  # AudioPluginData(version=0, encoding=WAV)
    return _entry(tag, _string_tensor(strings, (len(shown), 2)), "audio",
                  options.get("description"), content)


# DataType enum values of TensorFlow's TensorProto, by NumPy kind and size
_DTYPES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3,
           np.dtype(np.uint8): 4, np.dtype(np.int16): 5, np.dtype(np.int8): 6,
           np.dtype(np.complex64): 8, np.dtype(np.int64): 9, np.dtype(np.bool_): 10,
           np.dtype(np.uint16): 17, np.dtype(np.complex128): 18, np.dtype(np.float16): 19,
           np.dtype(np.uint32): 22, np.dtype(np.uint64): 23}


def tensor_proto(value: Any) -> Any:
    """A TensorProto of an array of any dtype this runtime has (strings as string_val)."""
    array = np.asarray(value)
    if array.dtype.kind in "OSU":
        items = [item.encode("utf-8") if isinstance(item, str) else bytes(item)
                 for item in array.reshape(-1).tolist()]
        return _string_tensor(items, array.shape)
    code = _DTYPES.get(array.dtype)
    if code is None:
        raise TypeError(f"rt.summary.write: cannot write a tensor of dtype {array.dtype}.")
    tensor_pb2, shape_pb2 = _proto("tensor_pb2"), _proto("tensor_shape_pb2")
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return tensor_pb2.TensorProto(
        dtype=code, tensor_content=np.ascontiguousarray(little).tobytes(),
        tensor_shape=shape_pb2.TensorShapeProto(
            dim=[shape_pb2.TensorShapeProto.Dim(size=n) for n in array.shape]))


def encode_tensor(tag: str, data: Any, options: dict) -> Any:
    """`rt.summary.write`: the tensor as it is, with the given SummaryMetadata bytes."""
    summary_pb2 = _proto("summary_pb2")
    metadata = summary_pb2.SummaryMetadata()
    metadata.ParseFromString(bytes.fromhex(options.get("metadata", "")))
    entry = summary_pb2.Summary.Value(tag=tag, tensor=tensor_proto(data), metadata=metadata)
    return summary_pb2.Summary(value=[entry])


def encode_raw(tag: str, data: Any, options: dict) -> Any:
    """`write_raw_pb`: the serialized Summary protos of a string tensor, merged into one."""
    summary_pb2 = _proto("summary_pb2")
    merged = summary_pb2.Summary()
    for item in np.asarray(data, dtype=object).reshape(-1).tolist():
        if isinstance(item, str):
            item = item.encode("latin-1")
        try:
            merged.MergeFromString(bytes(item))
        except Exception as exc:  # protobuf's DecodeError: the bytes are not a Summary
            raise InvalidArgumentError(f"rt.summary.experimental.write_raw_pb: failed to parse "
                                       f"a Summary protocol buffer ({exc}).") from None
    return merged


_state.EXTRA_ENCODERS.update(audio=encode_audio, tensor=encode_tensor, raw=encode_raw)


# -- the public functions --------------------------------------------------------------------------

def _summary(kind: str, name: str, data: Any, step: Any, options: dict) -> Any:
    return _write_summary(kind, name, data, step, options)


def _python_number(value: Any, what: str, caller: str) -> float:
    if isinstance(value, Tensor) and not isinstance(value, EagerTensor):
        raise NotImplementedError(f"rt.summary.{caller}: a {what} computed inside the "
                                  "compiled function is not supported; pass a number.")
    array = np.asarray(value)
    if array.size != 1 or array.dtype.kind not in "iuf":
        raise TypeError(f"rt.summary.{caller}: {what} must be a number, got {value!r}.")
    return float(array.reshape(()))


@strict_keywords("rt.summary.audio")
def audio(name: str, data: Any, sample_rate: Any, step: Any = None, max_outputs: int = 3,
          encoding: str | None = None, description: str | None = None) -> Any:
    """Writes up to `max_outputs` clips of `data` [k, frames, channels] (floats in [-1, 1])
    at `sample_rate` Hz, as 16-bit WAV, for TensorBoard's audio dashboard. `encoding` is
    None or "wav" (the only one TensorBoard has)."""
    if encoding not in (None, "wav"):
        raise ValueError(f"Unknown encoding: {encoding!r}")
    if isinstance(max_outputs, bool) or not isinstance(max_outputs, (int, np.integer)) \
            or max_outputs < 0:
        raise ValueError(f"rt.summary.audio: max_outputs must be an int >= 0, got "
                         f"{max_outputs!r}.")
    rate = _python_number(sample_rate, "sample_rate", "audio")
    if rate <= 0:
        raise ValueError(f"rt.summary.audio: sample_rate must be positive, got {rate!r}.")
    return _summary("audio", name, data, step,
                    {"sample_rate": rate, "max_outputs": int(max_outputs), "encoding": encoding,
                     "description": description})


def _metadata_bytes(metadata: Any) -> bytes:
    if metadata is None:
        return b""
    if isinstance(metadata, (bytes, bytearray)):
        return bytes(metadata)
    if callable(getattr(metadata, "SerializeToString", None)):
        return metadata.SerializeToString()
    raise TypeError(f"rt.summary.write: metadata must be a SummaryMetadata protocol buffer or "
                    f"its serialized bytes, got {type(metadata).__name__}.")


@strict_keywords("rt.summary.write")
def write(tag: str, tensor: Any, step: Any = None, metadata: Any = None,
          name: str | None = None) -> Any:
    """Writes `tensor` (any dtype and shape; a callable is called for it only when a writer
    records) under `tag` with `metadata` (a SummaryMetadata protocol buffer, or its bytes, at
    most 2048; none by default). The building block of custom summaries. `name` (the op's
    name in TensorFlow's graph) is accepted for compatibility."""
    if callable(tensor):
        if _context.current_graph() is None and not should_record_summaries():
            return False
        tensor = tensor()
    return _summary("tensor", tag, tensor, step, {"metadata": _metadata_bytes(metadata).hex()})


@strict_keywords("rt.summary.experimental.write_raw_pb")
def write_raw_pb(tensor: Any, step: Any = None, name: str | None = None) -> Any:
    """Writes serialized `Summary` protocol buffers (a string scalar or vector), merged into
    one event at `step`; a string that is not one raises rt.errors.InvalidArgumentError.
    `name` names the staged op."""
    return _summary("raw", name or "raw_summary", tensor, step, {})


_INVALID_SCOPE = re.compile(r"[^-_/.A-Za-z0-9]")


@strict_keywords("rt.summary.experimental.summary_scope")
@contextlib.contextmanager
def summary_scope(name: str | None, default_name: str = "summary",
                  values: Any = None) -> Iterator[tuple]:
    """A name scope for a custom summary op, yielding `(tag, scope)`: the tag is `name` (or
    `default_name`) under the enclosing name scopes, kept as written; the scope is the name
    scope entered, with characters not allowed in scope names removed."""
    name = name or default_name
    current = "/".join(_context.state.scopes)
    tag = f"{current}/{name}" if current else name
    scope_name = _INVALID_SCOPE.sub("", name) or default_name
    with _context.name_scope(scope_name) as scope:
        yield tag, scope


"""The writers, the default writer and step, and the encoding of each kind of summary."""

from __future__ import annotations

import contextlib
import importlib
import itertools
import os
import struct
import threading
import time
import weakref
import zlib
from typing import Any, Iterator

import numpy as np

from .. import context as _context
from ..arguments import strict_keywords

_INSTALL = "pip install 'autograph-rt[summary]'"


def tensorboardx():
    """The tensorboardX package, or an ImportError saying how to install it."""
    try:
        import tensorboardX
    except ImportError as exc:
        raise ImportError("rt.summary writes TensorBoard event files with tensorboardX, which "
                          f"is not installed: {_INSTALL}") from exc
    return tensorboardX


class SummaryWriter:
    """Writes summaries to the event files of one log directory (`create_file_writer`).

    `with writer.as_default(step=...):` makes it the writer of `rt.summary.scalar` and the
    others; `set_as_default()` does so for good. `flush()` writes pending events to disk,
    `close()` flushes and closes the file (the writer then writes nothing)."""

    def __init__(self, logdir: str | None, file_writer: Any) -> None:
        self.logdir = logdir
        self._file = file_writer
        self._closed = file_writer is None

    @strict_keywords()
    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator["SummaryWriter"]:
        """A context in which this writer (and `step`, when given) is the default."""
        previous = STATE.writer, STATE.writer_origin, STATE.step, STATE.step_origin
        STATE.set_writer(self)
        if step is not None:
            STATE.set_step(step)
        try:
            yield self
        finally:
            STATE.writer, STATE.writer_origin, STATE.step, STATE.step_origin = previous

    @strict_keywords()
    def set_as_default(self, step: Any = None) -> None:
        """Makes this writer (and `step`, when given) the default from now on."""
        STATE.set_writer(self)
        if step is not None:
            STATE.set_step(step)

    def flush(self) -> None:
        """Writes the pending events to the event file."""
        if not self._closed:
            self._file.flush()

    def close(self) -> None:
        """Flushes and closes the event file; later summaries through this writer are dropped."""
        if not self._closed:
            self._file.flush()
            self._file.close()
            self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def _add_summary(self, summary: Any, step: int) -> bool:
        if self._closed:
            return False
        self._file.add_summary(summary, int(step))
        return True

    def _add_graph(self, graph_def: Any) -> bool:
        if self._closed:
            return False
        event_pb2 = _proto("event_pb2")
        self._file.add_event(event_pb2.Event(graph_def=graph_def.SerializeToString()))
        self._file.flush()
        return True

    def __repr__(self) -> str:
        where = self.logdir if self.logdir is not None else "no-op"
        return f"<rt.summary.SummaryWriter {where}{' (closed)' if self._closed else ''}>"


class _State(threading.local):
    """What the module functions use: the default writer, the default step and the record_if
    conditions, each per thread as in TensorFlow (a writer made the default in one thread is
    not the default of another), and the trace_on recording, shared by all threads.

    Each setting keeps its origin: the graph being built when it was made (None: eagerly).
    A summary traced while that graph is still being built uses the setting as part of the
    graph; settings made outside the function are looked up at each call."""

    def __init__(self) -> None:
        self.writer: SummaryWriter | None = None
        self.writer_origin: Any = None
        self.step: Any = None
        self.step_origin: Any = None
        self.conditions: list[Any] = []
        self.condition_origins: list[Any] = []

    @property
    def tracing(self) -> list | None:
        return _TRACING.graphs

    @tracing.setter
    def tracing(self, graphs: list | None) -> None:
        _TRACING.graphs = graphs

    def set_writer(self, writer: SummaryWriter | None) -> None:
        self.writer, self.writer_origin = writer, _context.current_graph()

    def set_step(self, step: Any) -> None:
        self.step, self.step_origin = step, _context.current_graph()

    def push_condition(self, condition: Any) -> None:
        self.conditions.append(condition)
        self.condition_origins.append(_context.current_graph())

    def pop_condition(self) -> None:
        self.conditions.pop()
        self.condition_origins.pop()


class _Tracing:
    """The concrete functions recorded since `trace_on` (None: not recording), from any
    thread that traces."""
    graphs: list | None = None


_TRACING = _Tracing()
STATE = _State()


def made_in_trace(origin: Any) -> bool:
    """Whether a setting made while `origin` was being built belongs to the summary traced
    now: `origin` is a graph still being built (the traced body, or one enclosing it)."""
    return origin is not None and any(g is origin for g in _context.state.graphs)


class HostRef:
    """A Python object a staged summary needs at run time (a writer, record_if callables).

    It keeps the object alive with the graph; its repr names only a number, so a generated
    kernel's source does not depend on the object, and it pickles to a lookup of that number
    in this process (as Numba's cache pickles a kernel's host calls)."""

    _count = itertools.count()
    _live: "weakref.WeakValueDictionary[int, HostRef]" = weakref.WeakValueDictionary()

    def __init__(self, value: Any) -> None:
        self.value = value
        self.token = next(self._count)
        self._live[self.token] = self

    def __repr__(self) -> str:
        return f"HostRef({self.token})"

    def __reduce__(self):
        return _host_ref, (self.token,)


def _host_ref(token: int) -> HostRef | None:
    return HostRef._live.get(token)


class _EventFile:
    """One event file written synchronously with tensorboardX's record writer: events are
    buffered by the file and flushed after `max_queue` events or `flush_secs` seconds (and by
    `flush()`, which returns once they are on disk)."""

    _count = itertools.count()

    def __init__(self, logdir: str, max_queue: int, flush_secs: float, suffix: str) -> None:
        from tensorboardX.event_file_writer import EventsWriter  # optional extra: see tensorboardx()
        suffix = f".{os.getpid()}.{next(self._count)}{suffix}"
        self._events = EventsWriter(os.path.join(logdir, "events"), suffix)
        self._max_queue, self._flush_secs = max_queue, flush_secs
        self._pending, self._last_flush = 0, time.monotonic()
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, self._events.close)

    def add_event(self, event: Any) -> None:
        event.wall_time = time.time()
        with self._lock:
            self._events.write_event(event)
            self._pending += 1
            due = (self._pending >= self._max_queue
                   or time.monotonic() - self._last_flush >= self._flush_secs)
        if due:
            self.flush()

    def add_summary(self, summary: Any, step: int) -> None:
        event_pb2 = _proto("event_pb2")
        self.add_event(event_pb2.Event(summary=summary, step=int(step)))

    def flush(self) -> None:
        with self._lock:
            self._events.flush()
            self._pending, self._last_flush = 0, time.monotonic()

    def close(self) -> None:
        self._finalizer()


def create_file_writer(logdir: str, max_queue: int | None = None,
                       flush_millis: int | None = None, filename_suffix: str | None = None,
                       name: str | None = None) -> SummaryWriter:
    if not isinstance(logdir, (str, os.PathLike)):
        raise TypeError(f"create_file_writer: logdir must be a path (str), got "
                        f"{type(logdir).__name__}.")
    if max_queue is not None and int(max_queue) < 0:
        raise ValueError(f"create_file_writer: max_queue must be >= 0, got {max_queue!r}.")
    if flush_millis is not None and float(flush_millis) <= 0:
        raise ValueError(f"create_file_writer: flush_millis must be positive, got "
                         f"{flush_millis!r}.")
    tensorboardx()
    logdir = os.fspath(logdir)
    os.makedirs(logdir, exist_ok=True)
    file_writer = _EventFile(
        logdir, max_queue=10 if max_queue is None else int(max_queue),
        flush_secs=120.0 if flush_millis is None else float(flush_millis) / 1000.0,
        suffix=".v2" if filename_suffix is None else str(filename_suffix))
    return SummaryWriter(logdir, file_writer)


def _proto(module: str):
    return importlib_module(f"tensorboardX.proto.{module}")


def importlib_module(name: str):
    tensorboardx()
    return importlib.import_module(name)


# -- recording conditions and steps ----------------------------------------------------------

def condition_value(condition: Any) -> bool:
    """A record_if condition now: a bool, a callable returning one, or a tensor."""
    if callable(condition):
        condition = condition()
    return bool(np.asarray(getattr(condition, "_value", condition)))


def resolve_step(step: Any, caller: str) -> int:
    """The step as an int: `step`, else the default step (an int, tensor or variable)."""
    if step is None:
        step = STATE.step
    if step is None:
        raise ValueError(f"rt.summary.{caller}: no step: pass step= or set a default step with "
                         "rt.summary.experimental.set_step (or writer.as_default(step=...)).")
    if hasattr(step, "numpy"):
        step = step.numpy()
    value = np.asarray(step)
    if value.size != 1 or not (value.dtype.kind in "iu" or value.dtype.kind == "f"):
        raise TypeError(f"rt.summary.{caller}: step must be an integer scalar, got {step!r}.")
    return int(value.reshape(()))


# -- encoding ------------------------------------------------------------------------------------

_DATA_CLASS = {"scalars": 1, "histograms": 2, "text": 2, "images": 3,
               "audio": 3}  # TensorBoard's DataClass


def _metadata(plugin: str, description: str | None, content: bytes = b""):
    """TF 2's summary metadata: the plugin's name and data class (tensorboardX's proto has no
    `data_class` field, so it is added as its wire bytes, field 4, which protobuf keeps)."""
    summary_pb2 = _proto("summary_pb2")
    meta = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin, content=content))
    if description:
        meta.summary_description = description
    wire = meta.SerializeToString() + bytes([0x20, _DATA_CLASS[plugin]])
    meta = summary_pb2.SummaryMetadata()
    meta.ParseFromString(wire)
    return meta


def _tensor(array: np.ndarray, dtype: int) -> Any:
    """A TensorProto of a float32 (DT_FLOAT = 1) or float64 (DT_DOUBLE = 2) array."""
    tensor_pb2, shape_pb2 = _proto("tensor_pb2"), _proto("tensor_shape_pb2")
    kind = {1: "<f4", 2: "<f8"}[dtype]
    return tensor_pb2.TensorProto(
        dtype=dtype, tensor_content=np.ascontiguousarray(array, dtype=kind).tobytes(),
        tensor_shape=shape_pb2.TensorShapeProto(
            dim=[shape_pb2.TensorShapeProto.Dim(size=n) for n in array.shape]))


def _string_tensor(strings: list[bytes], shape: tuple) -> Any:
    tensor_pb2, shape_pb2 = _proto("tensor_pb2"), _proto("tensor_shape_pb2")
    return tensor_pb2.TensorProto(
        dtype=7,  # DT_STRING
        string_val=strings,
        tensor_shape=shape_pb2.TensorShapeProto(
            dim=[shape_pb2.TensorShapeProto.Dim(size=n) for n in shape]))


def _entry(tag: str, tensor: Any, plugin: str, description: str | None,
           content: bytes = b"") -> Any:
    summary_pb2 = _proto("summary_pb2")
    entry = summary_pb2.Summary.Value(tag=tag, tensor=tensor,
                                      metadata=_metadata(plugin, description, content))
    return summary_pb2.Summary(value=[entry])


def encode_scalar(tag: str, data: Any, description: str | None) -> Any:
    """TF 2's scalar: a float32 scalar tensor, plugin "scalars"."""
    value = np.asarray(data)
    if value.size != 1:
        raise ValueError(f"rt.summary.scalar: data must be a scalar, got shape {value.shape}.")
    if value.dtype.kind not in "biuf":
        raise TypeError(f"rt.summary.scalar: data must be a real number, got dtype "
                        f"{value.dtype}.")
    return _entry(tag, _tensor(value.reshape(()).astype(np.float32), 1), "scalars",
                  description)


def histogram_buckets(values: np.ndarray, count: int) -> np.ndarray:
    """TensorBoard's histogram: [count, 3] rows of (left edge, right edge, count) over equal
    widths from min to max (all zeros without data; one value: edges at it, all counted last)."""
    values = values.astype(np.float64).reshape(-1)
    buckets = np.zeros((count, 3))
    if not values.size or not count:
        return buckets
    low, high = float(values.min()), float(values.max())
    if low == high:
        buckets[:, :2] = high
        buckets[-1, 2] = values.size
        return buckets
    width = (high - low) / count
    index = np.minimum(np.floor((values - low) / width).astype(np.int64), count - 1)
    edges = np.linspace(low, high, count + 1)
    edges[-1] = high
    buckets[:, 0], buckets[:, 1] = edges[:-1], edges[1:]
    buckets[:, 2] = np.bincount(index, minlength=count)
    return buckets


def encode_histogram(tag: str, data: Any, buckets: int | None, description: str | None) -> Any:
    """TF 2's histogram: a float64 [buckets, 3] tensor, plugin "histograms"."""
    values = np.asarray(data)
    if values.dtype.kind not in "biuf":
        raise TypeError(f"rt.summary.histogram: data must be real numbers, got dtype "
                        f"{values.dtype}.")
    table = histogram_buckets(values, 30 if buckets is None else int(buckets))
    return _entry(tag, _tensor(table, 2), "histograms", description)


def _as_text(value: Any) -> str:
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def encode_text(tag: str, data: Any, description: str | None) -> Any:
    """TF 2's text: a string tensor of `data`'s shape, plugin "text"."""
    array = np.asarray(data, dtype=object)
    strings = [_as_text(v).encode("utf-8") for v in array.reshape(-1)]
    content = _proto("plugin_text_pb2").TextPluginData(version=0).SerializeToString()
    return _entry(tag, _string_tensor(strings, array.shape), "text", description, content)


def _png(image: np.ndarray) -> bytes:
    """PNG bytes of a uint8 HxWxC image (C = 1, 3 or 4)."""
    height, width, channels = image.shape
    color = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    rows = b"".join(b"\x00" + image[r].tobytes() for r in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def encode_image(tag: str, data: Any, max_outputs: int, description: str | None) -> Any:
    """TF 2's image: a string tensor [width, height, png...] of the first `max_outputs`
    images, plugin "images"; floats are scaled as TF's convert_image_dtype (x * 255.5,
    saturated, truncated)."""
    images = np.asarray(data)
    if images.ndim != 4 or images.shape[-1] not in (1, 2, 3, 4):
        raise ValueError("rt.summary.image: data must be a batch of images [k, height, width, "
                         f"channels] with 1, 2, 3 or 4 channels, got shape {images.shape}.")
    if images.dtype == np.uint8:
        pixels = images
    elif images.dtype.kind in "fiub":
        pixels = np.clip(images.astype(np.float64) * 255.5, 0.0, 255.0).astype(np.uint8)
    else:
        raise TypeError(f"rt.summary.image: data must be uint8 or floats in [0, 1], got dtype "
                        f"{images.dtype}.")
    shown = pixels[:max(int(max_outputs), 0)]
    strings = [str(images.shape[2]).encode(), str(images.shape[1]).encode()]
    strings += [_png(np.ascontiguousarray(image)) for image in shown]
    return _entry(tag, _string_tensor(strings, (len(strings),)), "images", description)


def encode(kind: str, tag: str, data: Any, options: dict) -> Any:
    description = options.get("description")
    if kind == "scalar":
        return encode_scalar(tag, data, description)
    if kind == "histogram":
        return encode_histogram(tag, data, options.get("buckets"), description)
    if kind == "text":
        return encode_text(tag, data, description)
    if kind == "image":
        return encode_image(tag, data, options.get("max_outputs", 3), description)
    if kind in EXTRA_ENCODERS:  # audio, tensor and raw summaries: runtime/summary/more.py
        return EXTRA_ENCODERS[kind](tag, data, options)
    raise ValueError(f"unknown summary kind {kind!r}")


EXTRA_ENCODERS: dict = {}  # kind -> encode(tag, data, options), registered by summary/more.py


def write_now(kind: str, tag: str, data: Any, step: Any, options: dict,
              writer: SummaryWriter | None = None) -> bool:
    """Writes one summary through `writer` (or the default one); False when none records."""
    writer = STATE.writer if writer is None else writer
    if writer is None or writer.closed:
        return False
    if not all(condition_value(c) for c in STATE.conditions):
        return False
    step_value = resolve_step(step, kind)
    return writer._add_summary(encode(kind, tag, data, options), step_value)


def write_staged(kind: str, tag: str, staged: dict, *, writer: HostRef | None, step: Any,
                 record: HostRef | None, options: dict) -> None:
    """The kernel of a staged summary op: `staged` holds the values fed as inputs
    ("data", "step", "cond"). `writer`, `step` and `record` were set inside the traced
    function (None: not set there); what they leave open is taken from the settings in
    effect when the op runs: the default writer and step, and the record_if conditions."""
    if "cond" in staged and not bool(np.all(staged["cond"])):
        return
    if record is not None and not all(condition_value(c) for c in record.value):
        return
    if _context.executing_eagerly() and not all(condition_value(c) for c in STATE.conditions):
        return
    target = writer.value if writer is not None else STATE.writer
    if target is None or target.closed:
        return
    data = staged["data"] if "data" in staged else options.get("constant")
    step = staged["step"] if "step" in staged else step
    target._add_summary(encode(kind, tag, data, options), resolve_step(step, kind))


_context.hooks.write_summary = write_staged  # the WriteSummary kernel (ops below) calls it here

"""`rt.train.Example` and its messages in protobuf's wire format, written here (no protobuf
dependency): `BytesList`, `FloatList`, `Int64List`, `Feature`, `Features`, `FeatureList`,
`FeatureLists`, `Example`, `SequenceExample`.

    ex = rt.train.Example(features=rt.train.Features(feature={
        "x": rt.train.Feature(float_list=rt.train.FloatList(value=[1.0, 2.0]))}))
    data = ex.SerializeToString()
    rt.train.Example.FromString(data).features.feature["x"].float_list.value   # [1.0, 2.0]

The decoding helpers (`read_varint`, `packed_int64`, `packed_float`, `example_features`) are
also what `rt.io.parse_example` reads records with; every length is checked against the
buffer before anything is sliced, so a malformed record is a `DecodeError` (a ValueError).
`example_batch` reads a batch of Examples in the usual encoding at once with NumPy, and
leaves anything else to those helpers.
"""

from __future__ import annotations

import math
import operator
import struct
from typing import Any, Iterable, Iterator

import numpy as np

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
           "FeatureLists", "Example", "SequenceExample", "DecodeError"]


class DecodeError(ValueError):
    """The bytes are not a valid encoding of the message."""


# ---------------------------------------------------------------------------- wire format

def _varint_bytes(value: int) -> bytes:
    value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """The unsigned varint at `pos` and the position after it."""
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise DecodeError("truncated or overlong varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & 0xFFFFFFFFFFFFFFFF, pos
        shift += 7


def fields(buf: bytes, pos: int = 0, end: int | None = None) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of each field of the message `buf[pos:end]`: an int
    for varints, (start, stop) for length-delimited fields, bytes for fixed32/fixed64."""
    end = len(buf) if end is None else end
    while pos < end:
        key, pos = read_varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(buf, pos, end)
        elif wire == 2:
            size, pos = read_varint(buf, pos, end)
            if size > end - pos:
                raise DecodeError(f"a field of {size} bytes overruns the message")
            value, pos = (pos, pos + size), pos + size
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if size > end - pos:
                raise DecodeError("truncated fixed-width field")
            value, pos = buf[pos:pos + size], pos + size
        else:
            raise DecodeError(f"unsupported wire type {wire}")
        yield number, wire, value


def packed_int64(buf: bytes, start: int, stop: int) -> np.ndarray:
    """The packed varints of `buf[start:stop]` as int64 (vectorised)."""
    b = np.frombuffer(buf, np.uint8, stop - start, start)
    if b.size == 0:
        return np.zeros(0, np.int64)
    last = b < 0x80
    if last.all():
        return b.astype(np.int64)
    if not last[-1]:
        raise DecodeError("truncated varint in a packed list")
    ends = np.flatnonzero(last)
    starts = np.concatenate(([0], ends[:-1] + 1))
    pos = np.arange(b.size) - np.repeat(starts, ends - starts + 1)
    if pos.max() > 9:
        raise DecodeError("overlong varint in a packed list")
    parts = (b & 0x7F).astype(np.uint64) << (7 * pos).astype(np.uint64)
    return np.add.reduceat(parts, starts).view(np.int64)


def packed_float(buf: bytes, start: int, stop: int) -> np.ndarray:
    """The packed little-endian float32 values of `buf[start:stop]`."""
    if (stop - start) % 4:
        raise DecodeError("a packed float list is not a whole number of floats")
    return np.frombuffer(buf, "<f4", (stop - start) // 4, start).astype(np.float32)


def _tag(number: int, wire: int) -> bytes:
    return _varint_bytes(number << 3 | wire)


def _delimited(number: int, payload: bytes) -> bytes:
    return _tag(number, 2) + _varint_bytes(len(payload)) + payload


# ---------------------------------------------------------------------------- messages

# -------------------------------------------------------------- protobuf's descriptors
# With the `protobuf` package installed, the messages below have protobuf's descriptor of
# their schema (`DESCRIPTOR`), which is what google.protobuf.text_format reads to parse text
# into them (`text_format.Merge(text, rt.train.Example())`, as TensorFlow's guides write
# Examples). Everything else stays this module's: its wire format and its checks.

_SCHEMA = {  # message -> fields (name, number, type, repeated, message type); TYPE_* numbers
    "BytesList": [("value", 1, 12, True, None)],
    "FloatList": [("value", 1, 2, True, None)],
    "Int64List": [("value", 1, 3, True, None)],
    "Feature": [("bytes_list", 1, 11, False, "BytesList"), ("float_list", 2, 11, False, "FloatList"),
                ("int64_list", 3, 11, False, "Int64List")],
    "Features": [("feature", 1, "map", True, "Feature")],
    "FeatureList": [("feature", 1, 11, True, "Feature")],
    "FeatureLists": [("feature_list", 1, "map", True, "FeatureList")],
    "Example": [("features", 1, 11, False, "Features")],
    "SequenceExample": [("context", 1, 11, False, "Features"),
                        ("feature_lists", 2, 11, False, "FeatureLists")],
}
_PROTOBUF: dict = {}


def protobuf_class(name: str):
    """protobuf's message class for `name` (built once from _SCHEMA in a private descriptor
    pool, so it never clashes with TensorFlow's), or None without the protobuf package."""
    if not _PROTOBUF:
        try:
            from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
        except ImportError:
            _PROTOBUF[None] = None
            return None
        proto = descriptor_pb2.FileDescriptorProto(name="rt_train_example.proto",
                                                   package="tensorflow", syntax="proto3")
        for message, entries in _SCHEMA.items():
            m = proto.message_type.add(name=message)
            if message == "Feature":
                m.oneof_decl.add(name="kind")
            for field, number, kind, repeated, type_name in entries:
                f = m.field.add(name=field, number=number, label=3 if repeated else 1)
                if kind == "map":  # map<string, type_name>: a repeated nested entry message
                    entry = m.nested_type.add(name=field.title().replace("_", "") + "Entry")
                    entry.options.map_entry = True
                    entry.field.add(name="key", number=1, label=1, type=9)
                    entry.field.add(name="value", number=2, label=1, type=11,
                                    type_name=f".tensorflow.{type_name}")
                    f.type, f.type_name = 11, f".tensorflow.{message}.{entry.name}"
                else:
                    f.type = kind
                    if type_name:
                        f.type_name = f".tensorflow.{type_name}"
                if message == "Feature":
                    f.oneof_index = 0
        pool = descriptor_pool.DescriptorPool()
        pool.Add(proto)
        for message in _SCHEMA:
            _PROTOBUF[message] = message_factory.GetMessageClass(
                pool.FindMessageTypeByName(f"tensorflow.{message}"))
    return _PROTOBUF.get(name)


def _descriptor(name: str):
    proto = protobuf_class(name)
    if proto is None:
        raise AttributeError(f"{name}.DESCRIPTOR needs the protobuf package "
                             "(pip install protobuf).")
    return proto.DESCRIPTOR


class _Message:
    """What TensorFlow's generated classes offer: keyword construction, SerializeToString,
    FromString / ParseFromString, ==, and a readable repr."""

    _FIELDS: tuple[str, ...] = ()

    @property
    def DESCRIPTOR(self):  # noqa: N802 - protobuf's name
        """protobuf's descriptor of this message's type (with the protobuf package)."""
        return _descriptor(type(self).__name__)

    def SetInParent(self) -> None:  # noqa: N802
        """protobuf's "mark as set" of a submessage: a message here is always present."""

    def SerializeToString(self, deterministic: bool = False) -> bytes:  # noqa: N802
        return self._encode()

    def ParseFromString(self, data: bytes) -> int:  # noqa: N802
        """Replaces the content with the message in `data`; returns its length."""
        data = bytes(data)
        fresh = type(self)._decode(data, 0, len(data))
        self.__dict__.update(fresh.__dict__)
        return len(data)

    def MergeFromString(self, data: bytes) -> int:  # noqa: N802
        return self.ParseFromString(self.SerializeToString() + bytes(data))

    @classmethod
    def FromString(cls, data: bytes):  # noqa: N802
        data = bytes(data)
        return cls._decode(data, 0, len(data))

    def CopyFrom(self, other) -> None:  # noqa: N802
        self.ParseFromString(other.SerializeToString())

    def ByteSize(self) -> int:  # noqa: N802
        return len(self._encode())

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and all(
            getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, as protobuf messages

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS)
        return f"{type(self).__name__}({inner})"

    def __str__(self) -> str:
        """Protocol buffers' text format, as `print(example)` shows it in TensorFlow: with
        the protobuf package, protobuf's own text of the same message (so a map's entries come
        in protobuf's order, as TensorFlow prints them), else the same format written here
        (map entries in insertion order)."""
        proto = protobuf_class(type(self).__name__)
        if proto is not None:
            message = proto()
            message.ParseFromString(self.SerializeToString())
            return str(message)
        return "".join(line + "\n" for line in self._text_lines(""))

    def _text_lines(self, pad: str) -> list[str]:
        """The text-format lines of the fields, indented by `pad`: maps as `name { key:
        value }` entries, repeated messages as one block each, set submessages as blocks."""
        lines: list[str] = []
        for name in self._FIELDS:
            value = getattr(self, name)
            if isinstance(value, dict):
                for key, item in value.items():
                    lines += [f"{pad}{name} {{", f'{pad}  key: "{_text_escape(key.encode())}"',
                              f"{pad}  value {{", *item._text_lines(pad + "    "),
                              f"{pad}  }}", f"{pad}}}"]
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, _Message):
                        lines += [f"{pad}{name} {{", *item._text_lines(pad + "  "), f"{pad}}}"]
                    else:
                        lines.append(f"{pad}{name}: {_text_scalar(item, type(self))}")
            elif isinstance(value, _Message):
                inner = value._text_lines(pad + "  ")
                if inner:
                    lines += [f"{pad}{name} {{", *inner, f"{pad}}}"]
        return lines

    def _encode(self) -> bytes:
        raise NotImplementedError

    @classmethod
    def _decode(cls, buf: bytes, start: int, stop: int):
        raise NotImplementedError


_TEXT_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
                 ord("'"): "\\'", ord("\\"): "\\\\"}


def _text_escape(data: bytes) -> str:
    """Bytes as the text format writes them: printable ASCII as is, C escapes, else octal."""
    return "".join(_TEXT_ESCAPES.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}")
                   for b in data)


def _text_scalar(value, owner: type) -> str:
    if isinstance(value, bytes):
        return f'"{_text_escape(value)}"'
    if owner is FloatList:  # float32: 6 digits when they read back the same, else 9
        if math.isnan(value) or math.isinf(value):
            return str(value)
        short = f"{value:.6g}"
        return short if np.float32(short) == np.float32(value) else f"{value:.9g}"
    return str(value)


def _int64_value(value) -> int:
    """An Int64List value as protobuf takes it: an integer (Python or NumPy), never a bool,
    a float or a string (TypeError, with protobuf's words)."""
    if isinstance(value, bool):
        raise TypeError("Field tensorflow.Int64List.value: Expected an int, got a boolean.")
    if isinstance(value, np.bool_):  # NumPy before 2.3 only warns in operator.index
        raise TypeError("'numpy.bool' object cannot be interpreted as an integer")
    return operator.index(value)


class BytesList(_Message):
    """`value`: a list of bytes."""

    _FIELDS = ("value",)

    def __init__(self, value: Iterable = ()):
        self.value = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in value]

    def _encode(self) -> bytes:
        return b"".join(_delimited(1, v) for v in self.value)

    @classmethod
    def _decode(cls, buf, start, stop):
        msg = cls()
        for number, wire, value in fields(buf, start, stop):
            if number == 1 and wire == 2:
                msg.value.append(buf[value[0]:value[1]])
        return msg


class FloatList(_Message):
    """`value`: a list of float32 numbers (packed on the wire)."""

    _FIELDS = ("value",)

    def __init__(self, value: Iterable = ()):
        value = list(value)
        for v in value:
            if isinstance(v, (str, bytes)):
                raise TypeError(f"must be real number, not {type(v).__name__}")
        self.value = [float(v) for v in np.asarray(value, np.float32)]

    def _encode(self) -> bytes:
        if not self.value:
            return b""
        return _delimited(1, np.asarray(self.value, "<f4").tobytes())

    @classmethod
    def _decode(cls, buf, start, stop):
        msg = cls()
        for number, wire, value in fields(buf, start, stop):
            if number == 1 and wire == 2:
                msg.value.extend(packed_float(buf, *value).tolist())
            elif number == 1 and wire == 5:
                msg.value.append(struct.unpack("<f", value)[0])
        return msg


class Int64List(_Message):
    """`value`: a list of int64 numbers (packed varints on the wire)."""

    _FIELDS = ("value",)

    def __init__(self, value: Iterable = ()):
        self.value = [_int64_value(v) for v in value]
        for v in self.value:
            if not -2**63 <= v < 2**63:
                raise ValueError(f"Int64List: {v} is out of the int64 range.")

    def _encode(self) -> bytes:
        if not self.value:
            return b""
        return _delimited(1, b"".join(_varint_bytes(v) for v in self.value))

    @classmethod
    def _decode(cls, buf, start, stop):
        msg = cls()
        for number, wire, value in fields(buf, start, stop):
            if number == 1 and wire == 2:
                msg.value.extend(packed_int64(buf, *value).tolist())
            elif number == 1 and wire == 0:
                msg.value.append(value - (1 << 64) if value >= 1 << 63 else value)
        return msg


class _AttachingList(list):
    """The value list of a Feature's unset kind: its first change sets that kind, as
    protobuf does when a submessage read from an unset field is modified."""

    def __init__(self, on_change):
        super().__init__()
        self._on_change = on_change

    def _changed(self):
        if self._on_change is not None:
            self._on_change()
            self._on_change = None

    def append(self, item):
        self._changed()
        super().append(item)

    def extend(self, items):
        self._changed()
        super().extend(items)

    def insert(self, index, item):
        self._changed()
        super().insert(index, item)

    def __setitem__(self, index, item):
        self._changed()
        super().__setitem__(index, item)

    def __iadd__(self, items):
        self._changed()
        return super().__iadd__(items)


_KINDS = ("bytes_list", "float_list", "int64_list")
_KIND_CLASSES = {"bytes_list": BytesList, "float_list": FloatList, "int64_list": Int64List}


class Feature(_Message):
    """One of `bytes_list`, `float_list`, `int64_list` (the oneof `kind`)."""

    _FIELDS = ("kind_name", "kind_value")

    def __init__(self, bytes_list: BytesList | None = None, float_list: FloatList | None = None,
                 int64_list: Int64List | None = None):
        given = [(k, v) for k, v in zip(_KINDS, (bytes_list, float_list, int64_list)) if v is not None]
        if len(given) > 1:
            raise ValueError("Feature: give only one of bytes_list, float_list, int64_list.")
        self.kind_name, self.kind_value = given[0] if given else (None, None)

    def _text_lines(self, pad: str) -> list[str]:
        if self.kind_name is None:
            return []
        return [f"{pad}{self.kind_name} {{", *self.kind_value._text_lines(pad + "  "),
                f"{pad}}}"]

    def __getattr__(self, name: str):
        if name in _KIND_CLASSES:  # reading an unset kind gives an empty list, as protobuf
            if self.__dict__.get("kind_name") == name:
                return self.__dict__["kind_value"]
            fresh = _KIND_CLASSES[name]()
            fresh.value = _AttachingList(lambda: setattr(self, name, fresh))
            return fresh
        raise AttributeError(f"'Feature' object has no attribute {name!r}")

    def __setattr__(self, name: str, value) -> None:
        if name in _KIND_CLASSES:
            object.__setattr__(self, "kind_name", name)
            object.__setattr__(self, "kind_value", value)
        else:
            object.__setattr__(self, name, value)

    def WhichOneof(self, group: str) -> str | None:  # noqa: N802
        if group != "kind":
            raise ValueError(f"Feature has no oneof group {group!r}; it has 'kind'.")
        return self.kind_name

    def HasField(self, name: str) -> bool:  # noqa: N802
        return self.kind_name == name

    def _encode(self) -> bytes:
        if self.kind_name is None:
            return b""
        return _delimited(_KINDS.index(self.kind_name) + 1, self.kind_value._encode())

    @classmethod
    def _decode(cls, buf, start, stop):
        msg = cls()
        for number, wire, value in fields(buf, start, stop):
            if 1 <= number <= 3 and wire == 2:
                kind = _KINDS[number - 1]
                setattr(msg, kind, _KIND_CLASSES[kind]._decode(buf, *value))
        return msg


class _MessageMap(dict):
    """A protobuf map field: reading a missing key adds an empty message, as protobuf does."""

    def __init__(self, value_class, items=None):
        super().__init__()
        self._value_class = value_class
        for k, v in (items or {}).items():
            if not isinstance(v, value_class):
                raise TypeError(f"a map of {value_class.__name__} got {type(v).__name__} for {k!r}.")
            self[k] = v

    def __missing__(self, key):
        value = self._value_class()
        self[key] = value
        return value

    def get_or_create(self, key):
        return self[key]

    def GetEntryClass(self):  # noqa: N802
        """protobuf's class of one map entry (text_format parses an entry into it, then copies
        its value here); with the protobuf package."""
        from google.protobuf import message_factory
        owner, field = _MAP_FIELDS[self._value_class.__name__]
        entry = protobuf_class(owner).DESCRIPTOR.fields_by_name[field].message_type
        # GetMessageClass, not the descriptor's _concrete_class: protobuf's upb backend may have
        # let the entry class go, and then that attribute fails with a SystemError
        return message_factory.GetMessageClass(entry)


_MAP_FIELDS = {"Feature": ("Features", "feature"), "FeatureList": ("FeatureLists", "feature_list")}


def _encode_map(number: int, entries: dict) -> bytes:
    out = []
    for key, value in entries.items():
        entry = _delimited(1, key.encode("utf-8")) + _delimited(2, value._encode())
        out.append(_delimited(number, entry))
    return b"".join(out)


def _decode_map_entry(buf, start, stop, value_class):
    key, value = "", None
    for number, wire, v in fields(buf, start, stop):
        if number == 1 and wire == 2:
            key = buf[v[0]:v[1]].decode("utf-8")
        elif number == 2 and wire == 2:
            value = value_class._decode(buf, *v)
    return key, value if value is not None else value_class()


class Features(_Message):
    """`feature`: a map from names to `Feature`s."""

    _FIELDS = ("feature",)

    def __init__(self, feature: dict | None = None):
        self.feature = _MessageMap(Feature, feature)

    def _encode(self) -> bytes:
        return _encode_map(1, self.feature)

    @classmethod
    def _decode(cls, buf, start, stop):
        msg = cls()
        for number, wire, value in fields(buf, start, stop):
            if number == 1 and wire == 2:
                key, feature = _decode_map_entry(buf, *value, Feature)
                msg.feature[key] = feature
        return msg


class FeatureList(_Message):
    """`feature`: a list of `Feature`s (one a time step)."""

    _FIELDS = ("feature",)

    def __init__(self, feature: Iterable[Feature] = ()):
        self.feature = list(feature)

    def _encode(self) -> bytes:
        return b"".join(_delimited(1, f._encode()) for f in self.feature)

    @classmethod
    def _decode(cls, buf, start, stop):
        msg = cls()
        for number, wire, value in fields(buf, start, stop):
            if number == 1 and wire == 2:
                msg.feature.append(Feature._decode(buf, *value))
        return msg


class FeatureLists(_Message):
    """`feature_list`: a map from names to `FeatureList`s."""

    _FIELDS = ("feature_list",)

    def __init__(self, feature_list: dict | None = None):
        self.feature_list = _MessageMap(FeatureList, feature_list)

    def _encode(self) -> bytes:
        return _encode_map(1, self.feature_list)

    @classmethod
    def _decode(cls, buf, start, stop):
        msg = cls()
        for number, wire, value in fields(buf, start, stop):
            if number == 1 and wire == 2:
                key, flist = _decode_map_entry(buf, *value, FeatureList)
                msg.feature_list[key] = flist
        return msg


class Example(_Message):
    """`features`: the `Features` of one record."""

    _FIELDS = ("features",)

    def __init__(self, features: Features | None = None):
        self.features = features if features is not None else Features()

    def _encode(self) -> bytes:
        body = self.features._encode()
        return _delimited(1, body) if body or self.features.feature else b""

    @classmethod
    def _decode(cls, buf, start, stop):
        msg = cls()
        for number, wire, value in fields(buf, start, stop):
            if number == 1 and wire == 2:
                msg.features = Features._decode(buf, *value)
        return msg


class SequenceExample(_Message):
    """`context` (`Features`) and `feature_lists` (`FeatureLists`)."""

    _FIELDS = ("context", "feature_lists")

    def __init__(self, context: Features | None = None, feature_lists: FeatureLists | None = None):
        self.context = context if context is not None else Features()
        self.feature_lists = feature_lists if feature_lists is not None else FeatureLists()

    def _encode(self) -> bytes:
        out = b""
        if self.context.feature:
            out += _delimited(1, self.context._encode())
        if self.feature_lists.feature_list:
            out += _delimited(2, self.feature_lists._encode())
        return out

    @classmethod
    def _decode(cls, buf, start, stop):
        msg = cls()
        for number, wire, value in fields(buf, start, stop):
            if number == 1 and wire == 2:
                msg.context = Features._decode(buf, *value)
            elif number == 2 and wire == 2:
                msg.feature_lists = FeatureLists._decode(buf, *value)
        return msg


# ---------------------------------------------------------------------------- fast reading

def feature_spans(buf: bytes, start: int, stop: int) -> dict[str, tuple[int, int, int]]:
    """The features of the `Features` message `buf[start:stop]`: name -> (kind number 1..3 or
    0 when unset, start, stop of the kind's list message)."""
    out = {}
    for number, wire, value in fields(buf, start, stop):
        if number != 1 or wire != 2:
            continue
        key, kind, span = "", 0, (0, 0)
        for n, w, v in fields(buf, *value):
            if n == 1 and w == 2:
                key = buf[v[0]:v[1]].decode("utf-8")
            elif n == 2 and w == 2:
                for kn, kw, kv in fields(buf, *v):
                    if 1 <= kn <= 3 and kw == 2:
                        kind, span = kn, kv
        out[key] = (kind, span[0], span[1])
    return out


def example_features(buf: bytes) -> dict[str, tuple[int, int, int]]:
    """`feature_spans` of the serialized Example `buf`."""
    out: dict = {}
    for number, wire, value in fields(buf, 0, len(buf)):
        if number == 1 and wire == 2:
            out.update(feature_spans(buf, *value))
    return out


def list_values(buf: bytes, kind: int, start: int, stop: int):
    """The values of a BytesList (1), FloatList (2) or Int64List (3) at `buf[start:stop]`:
    a list of bytes, or a float32 / int64 array."""
    if kind == 1:
        return [buf[v[0]:v[1]] for n, w, v in fields(buf, start, stop) if n == 1 and w == 2]
    parts = []
    for number, wire, value in fields(buf, start, stop):
        if number != 1:
            continue
        if wire == 2:
            parts.append(packed_float(buf, *value) if kind == 2 else packed_int64(buf, *value))
        elif kind == 2 and wire == 5:
            parts.append(np.frombuffer(value, "<f4").astype(np.float32))
        elif kind == 3 and wire == 0:
            parts.append(np.array([value], np.uint64).view(np.int64))
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, np.float32 if kind == 2 else np.int64)


def sequence_spans(buf: bytes):
    """(context feature spans, {name: [feature spans of each step]}) of a SequenceExample."""
    context: dict = {}
    lists: dict = {}
    for number, wire, value in fields(buf, 0, len(buf)):
        if number == 1 and wire == 2:
            context.update(feature_spans(buf, *value))
        elif number == 2 and wire == 2:
            for n, w, v in fields(buf, *value):
                if n != 1 or w != 2:
                    continue
                key, steps = "", []
                for en, ew, ev in fields(buf, *v):
                    if en == 1 and ew == 2:
                        key = buf[ev[0]:ev[1]].decode("utf-8")
                    elif en == 2 and ew == 2:
                        steps = [_step_span(buf, *fv) for fn, fw, fv in fields(buf, *ev)
                                 if fn == 1 and fw == 2]
                lists[key] = steps
    return context, lists


def _step_span(buf, start, stop):
    kind, span = 0, (0, 0)
    for n, w, v in fields(buf, start, stop):
        if 1 <= n <= 3 and w == 2:
            kind, span = n, v
    return kind, span[0], span[1]


# ---------------------------------------------------------------------------- TensorProto

# TensorFlow's DataType enum numbers of the dtypes a TensorProto can hold here
DATA_TYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
              "string": 7, "complex64": 8, "int64": 9, "bool": 10, "uint16": 17,
              "complex128": 18, "float16": 19, "uint32": 22, "uint64": 23}
_DATA_TYPE_NAMES = {v: k for k, v in DATA_TYPES.items()}
# the repeated *_val field holding each type's values when tensor_content is absent
_VAL_FIELDS = {1: 5, 2: 6, 3: 7, 4: 7, 5: 7, 6: 7, 17: 7, 19: 13, 9: 10, 10: 11, 8: 9,
               18: 12, 22: 16, 23: 17}


def encode_tensor_proto(array: np.ndarray, dtype_name: str) -> bytes:
    """A TensorProto of `array` as `tf.io.serialize_tensor` writes it: dtype, shape, and the
    raw little-endian bytes in tensor_content (strings in string_val)."""
    shape = b"".join(_delimited(2, _tag(1, 0) + _varint_bytes(int(d)) if d else b"")
                     for d in array.shape)
    out = _tag(1, 0) + _varint_bytes(DATA_TYPES[dtype_name]) + _delimited(2, shape)
    if dtype_name == "string":
        return out + b"".join(_delimited(8, v if isinstance(v, bytes) else str(v).encode())
                              for v in array.reshape(-1))
    if array.size:
        out += _delimited(4, np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"))
                          .tobytes())
    return out


def decode_tensor_proto(buf: bytes) -> tuple[str, list[int], Any]:
    """(dtype name, shape, values) of a serialized TensorProto: values are the raw bytes of
    tensor_content, or a list of the *_val entries ((start, stop) spans for strings)."""
    type_num, dims, content, vals, strings = 0, [], None, [], []
    for number, wire, value in fields(buf, 0, len(buf)):
        if number == 1 and wire == 0:
            type_num = value
        elif number == 2 and wire == 2:
            for n, w, v in fields(buf, *value):
                if n == 2 and w == 2:
                    size = 0
                    for dn, dw, dv in fields(buf, *v):
                        if dn == 1 and dw == 0:
                            size = dv - (1 << 64) if dv >= 1 << 63 else dv
                    dims.append(size)
                elif n == 3 and w == 0 and v:
                    raise DecodeError("the TensorProto has an unknown rank")
        elif number == 4 and wire == 2:
            content = buf[value[0]:value[1]]
        elif number == 8 and wire == 2:
            strings.append(buf[value[0]:value[1]])
        elif number == _VAL_FIELDS.get(type_num, -1):
            vals.append((wire, value))
    if type_num not in _DATA_TYPE_NAMES:
        raise DecodeError(f"unsupported or missing TensorProto dtype {type_num}")
    if any(d < 0 for d in dims):
        raise DecodeError("a negative dimension")
    name = _DATA_TYPE_NAMES[type_num]
    if name == "string":
        return name, dims, strings
    return name, dims, content if content is not None else _val_entries(buf, name, vals)


def _val_entries(buf, name, vals) -> np.ndarray:
    """The values of the repeated *_val fields (packed or not)."""
    parts = []
    for wire, value in vals:
        if wire == 2 and name in ("float32", "complex64"):
            parts.append(packed_float(buf, *value))
        elif wire == 2 and name in ("float64", "complex128"):
            if (value[1] - value[0]) % 8:
                raise DecodeError("a packed double list is not a whole number of doubles")
            parts.append(np.frombuffer(buf, "<f8", (value[1] - value[0]) // 8, value[0]))
        elif wire == 2:
            parts.append(packed_int64(buf, *value))
        elif wire == 5:
            parts.append(np.frombuffer(value, "<f4"))
        elif wire == 1:
            parts.append(np.frombuffer(value, "<f8"))
        else:
            parts.append(np.array([value], np.uint64).view(np.int64))
    return np.concatenate(parts) if parts else np.zeros(0)


# ---------------------------------------------------------------------------- batched reading

def _size_at(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """A length varint at `pos` (one byte inline), checked against `end`."""
    b = buf[pos] if pos < end else 0x80
    if b < 0x80:
        size, pos = b, pos + 1
    elif pos + 1 < end and buf[pos + 1] < 0x80:
        size, pos = (b & 0x7F) | buf[pos + 1] << 7, pos + 2
    else:
        size, pos = read_varint(buf, pos, end)
    if size > end - pos:
        raise DecodeError(f"a field of {size} bytes overruns the message")
    return size, pos


def fast_example_features(buf: bytes) -> dict[str, tuple[int, int, int]]:
    """`example_features` for the common encoding (one-byte tags, as every writer emits),
    falling back to the general reader for anything else."""
    try:
        return _fast_features(buf)
    except (_Unusual, IndexError):  # the general reader reports a malformed record
        return example_features(buf)


class _Unusual(Exception):
    """An encoding the fast reader leaves to the general one."""


def _fast_features(buf: bytes) -> dict:
    out: dict = {}
    end = len(buf)
    pos = 0
    while pos < end:
        if buf[pos] != 0x0A:
            raise _Unusual
        size, pos = _size_at(buf, pos + 1, end)
        fend = pos + size
        while pos < fend:  # map entries of Features: 0x0A len (0x0A len key) (0x12 len feature)
            if buf[pos] != 0x0A:
                raise _Unusual
            size = buf[pos + 1]
            if size < 0x80:
                pos += 2
            else:
                size, pos = _size_at(buf, pos + 1, fend)
            eend = pos + size
            if eend > fend or pos + 1 >= eend or buf[pos] != 0x0A or buf[pos + 1] >= 0x80:
                raise _Unusual
            size = buf[pos + 1]
            key_end = pos + 2 + size
            if key_end > eend:
                raise _Unusual
            key = buf[pos + 2:key_end].decode("utf-8")
            kind = start = stop = 0
            pos = key_end
            if pos < eend:
                if buf[pos] != 0x12:
                    raise _Unusual
                size = buf[pos + 1] if pos + 1 < eend else 0x80
                if size < 0x80:
                    pos += 2
                else:
                    size, pos = _size_at(buf, pos + 1, eend)
                if size:
                    tag = buf[pos]
                    kind = tag >> 3
                    if tag & 7 != 2 or not 1 <= kind <= 3:
                        raise _Unusual
                    n = buf[pos + 1] if size > 1 else 0x80
                    if n < 0x80:
                        start = pos + 2
                    else:
                        n, start = _size_at(buf, pos + 1, pos + size)
                    stop = start + n
                    if stop != pos + size:
                        raise _Unusual
                pos += size
            if pos != eend:
                raise _Unusual
            out[key] = (kind, start, stop)
        if pos != fend:
            raise _Unusual
    return out


def gather_values(records: list[bytes], spans: list[dict], key: str, kind: int):
    """The values of feature `key` (kind 1 bytes, 2 float, 3 int64) of every record at once:
    (values, counts per record, present per record); a record whose feature has another kind
    raises `KindMismatch`. `spans`: a list of `example_features` dicts or an ExampleBatch."""
    if isinstance(spans, ExampleBatch):
        return spans.gather(key, kind)
    n = len(records)
    counts = np.zeros(n, np.int64)
    present = np.zeros(n, bool)
    pieces: list = []
    if kind == 1:
        values: list = []
        for i, (buf, span) in enumerate(zip(records, spans)):
            got = span.get(key)
            if got is None:
                continue
            present[i] = True
            if got[0] != kind and got[0] != 0:
                raise KindMismatch(i, got[0])
            if got[0]:
                items = _bytes_items(buf, got[1], got[2])
                values.extend(items)
                counts[i] = len(items)
        array = np.empty(len(values), object)
        array[:] = values
        return array, counts, present
    irregular = False
    for i, (buf, span) in enumerate(zip(records, spans)):
        got = span.get(key)
        if got is None:
            continue
        present[i] = True
        k, start, stop = got
        if k not in (0, kind):
            raise KindMismatch(i, k)
        if k == 0 or start == stop:
            pieces.append(b"")
            continue
        if buf[start] == 0x0A:  # one packed field spanning the list
            size, p = _size_at(buf, start + 1, stop)
            if p + size == stop:
                pieces.append(buf[p:stop])
                continue
        irregular = True
        break
    if irregular:
        return _gather_slowly(records, spans, key, kind, counts, present)
    present_idx = np.flatnonzero(present)
    data = b"".join(pieces)
    if kind == 2:
        if any(len(p) % 4 for p in pieces):
            raise DecodeError("a packed float list is not a whole number of floats")
        counts[present_idx] = [len(p) // 4 for p in pieces]
        return np.frombuffer(data, "<f4").astype(np.float32), counts, present
    values = packed_int64(data, 0, len(data))
    lengths = np.fromiter((len(p) for p in pieces), np.int64, len(pieces))
    if values.size == len(data):  # every varint one byte
        counts[present_idx] = lengths
    else:
        ends = np.cumsum(lengths)
        terminators = np.concatenate(([0], np.cumsum(np.frombuffer(data, np.uint8) < 0x80)))
        counts[present_idx] = terminators[ends] - terminators[ends - lengths]
    return values, counts, present


def _bytes_items(buf: bytes, start: int, stop: int) -> list:
    """The values of the BytesList at buf[start:stop] (tags read inline)."""
    items, pos = [], start
    while pos < stop:
        if buf[pos] != 0x0A:
            return list_values(buf, 1, start, stop)
        size, pos = _size_at(buf, pos + 1, stop)
        items.append(buf[pos:pos + size])
        pos += size
    return items


def _gather_slowly(records, spans, key, kind, counts, present):
    parts = []
    for i, (buf, span) in enumerate(zip(records, spans)):
        got = span.get(key)
        if got is None:
            continue
        present[i] = True
        if got[0] not in (0, kind):
            raise KindMismatch(i, got[0])
        values = list_values(buf, kind, got[1], got[2]) if got[0] else np.zeros(0)
        parts.append(np.asarray(values))
        counts[i] = len(values)
    dtype = np.float32 if kind == 2 else np.int64
    return (np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)), counts, present


class KindMismatch(Exception):
    """A record's feature holds another kind of list than the one asked for."""

    def __init__(self, index: int, kind: int):
        super().__init__(index, kind)
        self.index, self.kind = index, kind


# ---------------------------------------------------------------------------- a batch at once

class _Irregular(Exception):
    """A layout the vectorised reader leaves to the record-by-record one."""


_any = np.count_nonzero  # the cheapest test of a boolean array
_KIND_OF_TAG = np.zeros(256, np.int64)  # a Feature's first tag byte -> its kind (0: other)
_KIND_OF_TAG[[0x0A, 0x12, 0x1A]] = [1, 2, 3]


def _varints_at(data: np.ndarray, at: np.ndarray):
    """(values, widths) of the varints of at most 4 bytes at the positions `at` of `data`
    (padded so reading 4 bytes past any position stays inside); widths is 1 when all are."""
    b0 = data[at]
    go = b0 >= 0x80
    if not _any(go):
        return b0, 1
    b1 = data[at + 1].astype(np.int64)
    if not _any(go & (b1 >= 0x80)):  # two bytes at most
        return np.where(go, (b0 & 0x7F) | (b1 << 7), b0), go + 1
    value, width = (b0 & 0x7F).astype(np.int64), np.ones(at.size, np.int64)
    for shift in (7, 14, 21):
        b = data[at + width].astype(np.int64)
        value |= np.where(go, (b & 0x7F) << shift, 0)
        width += go
        go &= b >= 0x80
        if not _any(go):
            return value, width
    raise _Irregular


def _delimited_at(data, at, tag, end):
    """(start, stop) of the length-delimited fields with tag byte `tag` at `at`, each
    required to end by `end`."""
    tags = data[at]
    size, width = _varints_at(data, at + 1)
    start = at + 1 + width
    stop = start + size
    if _any((tags != tag) | (stop > end)):
        raise _Irregular
    return start, stop


class ExampleBatch:
    """Where the wanted features sit in a batch of serialized Examples, found for all records
    at once: the records are joined and their map entries found in lockstep with NumPy (one
    step an entry of every record), then the keys and values of all entries are read at
    once, and each feature's values gathered for the batch in one pass.

    `example_batch` builds it, or returns None for an encoding other than the usual one
    (one `features` field, map entries of a key then a value, one list a Feature, a key at
    most once a record); a list with an unusual encoding is read record by record
    (`gather_values`) instead."""

    def __init__(self, records: list[bytes], keys: list[str]):
        self.records, self.keys = records, list(keys)
        n = len(records)
        self.joined = b"".join([*records, bytes(8)])  # 8 bytes after: reads past an end
        self.data = np.frombuffer(self.joined, np.uint8)
        ends = np.cumsum(np.fromiter(map(len, records), np.int64, n))
        shape = (len(self.keys), n)
        self.present = np.zeros(shape, bool)
        self.kind = np.zeros(shape, np.int64)
        self.start = np.zeros(shape, np.int64)
        self.stop = np.zeros(shape, np.int64)
        self._dicts: list[dict] | None = None
        starts = np.concatenate(([0], ends[:-1]))
        full = (ends > starts).nonzero()[0]
        if full.size:
            self._entries(*self._walk(starts[full], ends[full], full))

    def _walk(self, at, ends, records):
        """(record, start, stop) of every map entry of the records' Features."""
        begin, end = _delimited_at(self.data, at, 0x0A, ends)
        if _any(end != ends):  # one `features` field filling the record
            raise _Irregular
        owners, starts, stops = [], [], []
        cur, rec = begin, records
        while True:
            going = cur < end
            if _any(going) != cur.size:
                going = going.nonzero()[0]
                cur, end, rec = cur[going], end[going], rec[going]
            if not cur.size:
                break
            start, stop = _delimited_at(self.data, cur, 0x0A, end)
            owners.append(rec)
            starts.append(start)
            stops.append(stop)
            cur = stop
        if not owners:
            return records[:0], at[:0], at[:0]
        return np.concatenate(owners), np.concatenate(starts), np.concatenate(stops)

    def _entries(self, owner, entry, entry_end) -> None:
        """Reads the key and value of every entry and keeps those of the wanted keys."""
        key, key_end = _delimited_at(self.data, entry, 0x0A, entry_end)
        kind, start, stop = self._values(key_end, entry_end)
        which, hit = self._match(key, key_end)
        records = owner[hit]
        self.present[which, records] = True
        if _any(self.present) != hit.size:  # a key twice in a record: the last one counts
            raise _Irregular
        self.kind[which, records] = kind[hit]
        self.start[which, records] = start[hit]
        self.stop[which, records] = stop[hit]

    def _values(self, at, end):
        """(kind, start, stop) of the list of each Feature at `at` (ending at `end`)."""
        data = self.data
        n = at.size
        kind, start, stop = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
        has = (at < end).nonzero()[0]
        if not has.size:
            return kind, start, stop
        body, body_end = _delimited_at(data, at[has], 0x12, end[has])
        if _any(body_end != end[has]):
            raise _Irregular
        inside = (body < body_end).nonzero()[0]
        if inside.size:
            where, body_end = body[inside], body_end[inside]
            kinds = _KIND_OF_TAG[data[where]]
            if _any(kinds == 0):
                raise _Irregular
            size, width = _varints_at(data, where + 1)
            first = where + 1 + width
            if _any(first + size != body_end):  # one list filling the Feature
                raise _Irregular
            chosen = has[inside]
            kind[chosen], start[chosen], stop[chosen] = kinds, first, body_end
        return kind, start, stop

    def _match(self, key, key_end):
        """(index of the wanted key, entry) of the entries whose key is a wanted one."""
        names = np.array([k.encode("utf-8") for k in self.keys] or [b""])
        order = np.argsort(names, kind="stable")
        names = names[order]
        name_sizes = np.array([len(k) for k in self.keys] or [-1])[order]
        sizes = key_end - key
        longest = int(sizes.max())
        if longest == 0:
            text = np.zeros(key.size, "S1")
        else:
            offsets = np.arange(longest)
            block = self.data[np.minimum(key[:, None] + offsets, self.data.size - 1)]
            block[offsets >= sizes[:, None]] = 0
            if _any(block >= 0x80):  # keys other than ASCII: the general reader
                raise _Irregular
            text = block.view(f"S{longest}").ravel()
        slot = np.minimum(np.searchsorted(names, text), names.size - 1)
        hit = ((names[slot] == text) & (name_sizes[slot] == sizes)).nonzero()[0]
        return order[slot[hit]], hit

    def dicts(self) -> list[dict]:
        """The record-by-record spans (for lists of an unusual encoding)."""
        if self._dicts is None:
            self._dicts = [fast_example_features(buf) for buf in self.records]
        return self._dicts

    def gather(self, key: str, kind: int):
        """(values, counts, present) of feature `key` as `gather_values` gives them."""
        k = self.keys.index(key)
        present, kinds = self.present[k], self.kind[k]
        other = (present & (kinds != 0) & (kinds != kind)).nonzero()[0]
        if other.size:
            raise KindMismatch(int(other[0]), int(kinds[other[0]]))
        holding = ((kinds == kind) & (self.stop[k] > self.start[k])).nonzero()[0]
        try:
            if kind == 1:
                values, counts = self._bytes(holding, self.start[k], self.stop[k])
            else:
                values, counts = self._packed(holding, self.start[k], self.stop[k], kind)
        except _Irregular:
            return gather_values(self.records, self.dicts(), key, kind)
        return values, counts, present.copy()

    def _packed(self, holding, start, stop, kind):
        data = self.data
        counts = np.zeros(start.size, np.int64)
        if not holding.size:
            return np.zeros(0, np.float32 if kind == 2 else np.int64), counts
        first, last = _delimited_at(data, start[holding], 0x0A, stop[holding])
        if _any(last != stop[holding]):  # one packed field filling the list
            raise _Irregular
        sizes = last - first
        if _any(sizes != sizes[0]):
            raw = data[np.repeat(first - np.cumsum(sizes) + sizes, sizes)
                       + np.arange(int(sizes.sum()))]
        else:
            raw = data[first[:, None] + np.arange(sizes[0])].ravel()
        if kind == 2:
            if _any(sizes % 4):
                raise _Irregular
            counts[holding] = sizes >> 2
            return raw.view("<f4").astype(np.float32), counts
        ends = np.cumsum(sizes)
        if _any(raw[ends[sizes > 0] - 1] >= 0x80):  # a varint cut by the list's end
            raise _Irregular
        try:
            values = packed_int64(raw.tobytes(), 0, raw.size)
        except DecodeError:
            raise _Irregular from None
        if values.size == raw.size:
            counts[holding] = sizes
        else:
            terminators = np.concatenate(([0], np.cumsum(raw < 0x80)))
            counts[holding] = terminators[ends] - terminators[ends - sizes]
        return values, counts

    def _bytes(self, holding, start, stop):
        counts = np.zeros(start.size, np.int64)
        found_rec, found_start, found_stop = [], [], []
        cur, end, rec = start[holding], stop[holding], holding
        while cur.size:
            first, last = _delimited_at(self.data, cur, 0x0A, end)
            found_rec.append(rec)
            found_start.append(first)
            found_stop.append(last)
            going = (last < end).nonzero()[0]
            cur, end, rec = last[going], end[going], rec[going]
        if not found_rec:
            return np.empty(0, object), counts
        if len(found_rec) == 1:
            rec, firsts, lasts = found_rec[0], found_start[0], found_stop[0]
        else:
            rec = np.concatenate(found_rec)
            order = np.argsort(rec, kind="stable")
            firsts = np.concatenate(found_start)[order]
            lasts = np.concatenate(found_stop)[order]
        joined = self.joined
        values = np.empty(firsts.size, object)
        values[:] = [joined[a:b] for a, b in zip(firsts.tolist(), lasts.tolist())]
        counts += np.bincount(rec, minlength=start.size)
        return values, counts


def example_batch(records: list[bytes], keys: list[str]) -> ExampleBatch | None:
    """The `ExampleBatch` of `records` for the features `keys`, or None when their encoding
    is not the usual one (the record-by-record reader then reads them, errors included)."""
    keys = list(dict.fromkeys(keys))
    if any(not k.isascii() or "\0" in k for k in keys):
        return None  # the lockstep walk compares ASCII keys only
    try:
        return ExampleBatch(records, keys)
    except _Irregular:
        return None

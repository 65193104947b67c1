"""`Dataset.save` and `Dataset.load`: a dataset's elements in a directory.

The format is this runtime's own (TensorFlow's snapshot files are not read or written):

    PATH/dataset_spec.json      {"format": "runtime.data.save", "version": 1,
                                 "element_spec": ..., "compression": "" | "GZIP" | "ZLIB",
                                 "shards": [{"file": "shard-00000.tfrecord", "elements": n}, ...]}
    PATH/shard-NNNNN.tfrecord   TFRecord files (length and CRC framed, compressed as recorded),
                                one record per element

A record holds the element's components in `element_spec`'s flattened order, each as its rank
(uint32), its dimensions (int64 each), then its values: the raw little-endian bytes for
numbers and bools, or the byte lengths (int64 each) then the bytes for strings. Loading reads
JSON and these records only: it executes nothing from the files, and every size is checked
against the bytes of its record before anything is allocated. The spec is written last, so a
save cut short leaves no dataset to load.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import keyword
import os
import struct
from typing import Any, Callable, Optional

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..errors import DataLossError, InvalidArgumentError, NotFoundError
from ..ops.extension_type import ExtensionType, lookup_registered, registered_name
from ..ops.io_tfrecord import TFRecordWriter, _compression, read_records
from ..ops.ragged import RaggedTensor
from ..shapes import TensorShape, TensorSpec
from . import ragged_elements as _ragged
from . import structure as st
from .dataset import TRANSFORMS, Dataset, DatasetSpec, _Elements, _Traced, _Unary

FORMAT = "runtime.data.save"
VERSION = 1
SPEC_FILE = "dataset_spec.json"
_MAX_RANK = 64


# -- element specs as JSON --------------------------------------------------------------------

def _spec_to_json(spec: Any) -> Any:
    if isinstance(spec, dict):
        return {"kind": "dict", "keys": list(spec), "items": [_spec_to_json(spec[k]) for k in spec]}
    if isinstance(spec, tuple):
        entry = {"kind": "tuple", "items": [_spec_to_json(v) for v in spec]}
        if hasattr(spec, "_fields"):
            entry.update(kind="namedtuple", name=type(spec).__name__, fields=list(spec._fields))
        return entry
    if isinstance(spec, TensorSpec):
        entry = {"kind": "tensor", "dtype": spec.dtype.name, "shape": spec.shape.as_list()
                 if spec.shape.rank is not None else None}
        return {**entry, "ragged_row": True} if isinstance(spec, _ragged.RaggedRowSpec) else entry
    if isinstance(spec, RaggedTensor):
        return {"kind": "ragged", "items": [_spec_to_json(spec.values), _spec_to_json(spec.row_splits)]}
    if isinstance(spec, ExtensionType):
        return {"kind": "extension", "name": registered_name(type(spec)),
                "fields": [[f.name, _field_to_json(getattr(spec, f.name))] for f in dataclasses.fields(spec)]}
    raise TypeError(f"Dataset.save: elements of {type(spec).__name__} cannot be saved; only tensors "
                    "(in tuples, namedtuples, dicts, ragged tensors and extension types) can.")


def _field_to_json(value: Any) -> Any:
    """An extension type's field: its spec, or a Python value (str, number, bool, None, shape)."""
    if value is None or type(value) in (str, int, float, bool):
        return {"kind": "python", "value": value}
    if isinstance(value, TensorShape):
        return {"kind": "shape", "dims": value.as_list() if value.rank is not None else None}
    return _spec_to_json(value)


def _extension_from_json(entry: dict, depth: int) -> Any:
    """An extension type's template; its class looked up by registered name among the classes
    this program defined (never imported)."""
    cls = lookup_registered(str(entry.get("name")))
    names = [f.name for f in dataclasses.fields(cls)]
    pairs = entry.get("fields")
    if not isinstance(pairs, list) or [p[0] if isinstance(p, list) and len(p) == 2 else None
                                       for p in pairs] != names:
        raise ValueError(f"bad fields for extension type {entry.get('name')!r:.60}")
    fields = {}
    for name, value in pairs:
        kind = value.get("kind") if isinstance(value, dict) else None
        if kind == "python" and (value.get("value") is None or type(value.get("value")) in (str, int, float, bool)):
            fields[name] = value.get("value")
        elif kind == "shape":
            fields[name] = TensorShape(_checked_dims(value.get("dims")))
        else:
            fields[name] = _spec_from_json(value, depth + 1)
    return cls.__nest_from_fields__(fields)


def _checked_dims(dims: Any) -> Any:
    if dims is not None and (not isinstance(dims, list) or len(dims) > _MAX_RANK or not all(
            d is None or (isinstance(d, int) and d >= 0) for d in dims)):
        raise ValueError(f"bad shape {dims!r:.60}")
    return dims


def _identifier(name: Any) -> str:
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"not a namedtuple name: {name!r:.60}")
    return name


def _spec_from_json(entry: Any, depth: int = 0) -> Any:
    if depth > 64 or not isinstance(entry, dict):
        raise ValueError("bad element_spec entry")
    kind, items = entry.get("kind"), entry.get("items")
    if kind == "extension":
        return _extension_from_json(entry, depth)
    if kind == "tensor":
        shape = entry.get("shape")
        if shape is not None and (not isinstance(shape, list) or len(shape) > _MAX_RANK or not all(
                d is None or (isinstance(d, int) and d >= 0) for d in shape)):
            raise ValueError(f"bad shape {shape!r:.60}")
        spec_type = _ragged.RaggedRowSpec if entry.get("ragged_row") is True else TensorSpec
        return spec_type(TensorShape(shape), _dtypes.as_dtype(str(entry.get("dtype"))))
    if not isinstance(items, list):
        raise ValueError("bad element_spec entry")
    if kind == "ragged":
        if len(items) != 2:
            raise ValueError("a ragged entry holds its values and row splits")
        values, splits = (_spec_from_json(v, depth + 1) for v in items)
        if not isinstance(splits, TensorSpec) or not isinstance(values, (TensorSpec, RaggedTensor)):
            raise ValueError("bad ragged element_spec entry")
        return RaggedTensor.__nest_from_fields__({"values": values, "row_splits": splits})
    values = [_spec_from_json(v, depth + 1) for v in items]
    if kind == "tuple":
        return tuple(values)
    if kind == "namedtuple":
        fields = [_identifier(f) for f in entry.get("fields", [])]
        if len(fields) != len(values):
            raise ValueError("namedtuple fields and items differ")
        return collections.namedtuple(_identifier(entry.get("name")), fields)(*values)
    if kind == "dict":
        keys = entry.get("keys")
        if not isinstance(keys, list) or len(keys) != len(values):
            raise ValueError("dict keys and items differ")
        return dict(zip(keys, values))
    raise ValueError(f"unknown element_spec kind {kind!r:.40}")


# -- elements as records ----------------------------------------------------------------------

def _encode(flat: list) -> bytes:
    parts = []
    for a in flat:
        a = np.asarray(a)
        parts.append(struct.pack("<I", a.ndim))
        parts.append(np.asarray(a.shape, dtype="<i8").tobytes())
        if a.dtype.kind in "OSU":
            items = [x.encode() if isinstance(x, str) else bytes(x) for x in a.reshape(-1).tolist()]
            parts.append(np.asarray([len(x) for x in items], dtype="<i8").tobytes())
            parts.extend(items)
        else:
            parts.append(np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes())
    return b"".join(parts)


class _Reader:
    """Reads the components of one record, checking each size against the bytes left."""

    def __init__(self, record: bytes, where: str):
        self.data, self.at, self.where = memoryview(record), 0, where

    def fail(self, why: str) -> DataLossError:
        return DataLossError(f"Dataset.load: {self.where}: {why} at byte {self.at}.")

    def take(self, n: int) -> memoryview:
        if n < 0 or self.at + n > len(self.data):
            raise self.fail(f"the record is too short for {n} more bytes")
        out = self.data[self.at:self.at + n]
        self.at += n
        return out

    def component(self, spec: TensorSpec) -> np.ndarray:
        rank = struct.unpack("<I", self.take(4))[0]
        if rank > _MAX_RANK or (spec.shape.rank is not None and rank != spec.shape.rank):
            raise self.fail(f"a component of rank {rank} where {spec.shape} was saved")
        shape = np.frombuffer(self.take(8 * rank), dtype="<i8").tolist()
        if any(d < 0 for d in shape) or not spec.shape.is_compatible_with(shape):
            raise self.fail(f"a component of shape {shape} where {spec.shape} was saved")
        count = 1
        for d in shape:
            count *= d
            if count > len(self.data):
                raise self.fail(f"a component of shape {shape}, larger than its record")
        if spec.dtype is _dtypes.string:
            lengths = np.frombuffer(self.take(8 * count), dtype="<i8")
            if (lengths < 0).any() or int(lengths.sum()) > len(self.data) - self.at:
                raise self.fail("string lengths beyond the record")
            items = np.empty(count, dtype=object)
            items[:] = [bytes(self.take(n)) for n in lengths.tolist()]
            return items.reshape(shape)
        dtype = np.dtype(spec.dtype.as_numpy_dtype).newbyteorder("<")
        values = np.frombuffer(self.take(count * dtype.itemsize), dtype=dtype)
        return values.astype(dtype.newbyteorder("="), copy=True).reshape(shape)


def _decode(record: bytes, flat_spec: list, template: Any, where: str) -> Any:
    reader = _Reader(record, where)
    leaves = [reader.component(s) for s in flat_spec]
    if reader.at != len(reader.data):
        raise reader.fail("bytes left over after the last component")
    return st.pack(template, leaves)


# -- save -------------------------------------------------------------------------------------

def _save_compression(compression: Any) -> str:
    if isinstance(compression, str) and compression.upper() == "SNAPPY":
        raise ValueError("Dataset.save: compression 'SNAPPY' is not supported here; use 'GZIP', "
                         "'ZLIB' or None.")
    return _compression(compression, "compression")


def _shard_file(index: int) -> str:
    return f"shard-{index:05d}.tfrecord"


def save(dataset: Dataset, path: Any, compression: Any, shard_func: Optional[Callable],
         checkpoint_args: Any) -> None:
    """`Dataset.save` (see there)."""
    if checkpoint_args is not None:
        raise ValueError("Dataset.save: checkpoint_args is not supported here (a save is not "
                         "resumable); leave it None.")
    kind = _save_compression(compression)
    folder = os.fsdecode(path.numpy() if hasattr(path, "numpy") else path)
    spec_json = _spec_to_json(dataset._spec)
    shard = None
    if shard_func is not None:
        shard = _Traced(shard_func, dataset._spec, "Dataset.save")
        out = shard.output_spec
        if not isinstance(out, TensorSpec) or out.dtype is not _dtypes.int64 or out.shape.rank not in (0, None):
            raise InvalidArgumentError(f"`shard_func` must return a scalar int64, but it returns "
                                       f"{out!r:.200}.")
    os.makedirs(folder, exist_ok=True)
    spec_path = os.path.join(folder, SPEC_FILE)
    if os.path.exists(spec_path):
        os.remove(spec_path)          # until the new spec is written there is no dataset here
    writers: dict = {}
    counts: dict = {}
    try:
        for element in dataset._open():
            index = 0 if shard is None else int(shard(element))
            if index < 0:
                raise InvalidArgumentError(f"Dataset.save: `shard_func` returned {index}; shard "
                                           "indices must be >= 0.")
            if index not in writers:
                writers[index] = TFRecordWriter(os.path.join(folder, _shard_file(index)), kind)
                counts[index] = 0
            writers[index].write(_encode(st.flatten(element)))
            counts[index] += 1
    finally:
        for w in writers.values():
            w.close()
    shards = [{"file": _shard_file(i), "elements": counts[i]} for i in sorted(counts)]
    document = {"format": FORMAT, "version": VERSION, "element_spec": spec_json,
                "compression": kind, "shards": shards}
    temporary = spec_path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1)
    os.replace(temporary, spec_path)


# -- load -------------------------------------------------------------------------------------

class _Shard(Dataset):
    """The elements of one shard file."""

    def __init__(self, file: str, kind: str, spec: Any, count: int):
        self._file, self._kind, self._spec, self._card = file, kind, spec, count
        self._flat = st.flatten(spec)

    def _elements(self):
        for records in read_records(self._file, self._kind):
            for record in records:
                yield _decode(record, self._flat, self._spec, self._file)


class _Loaded(_Unary):
    """What the reader function made of the shards, with the saved count of elements as
    its cardinality (as tf.data's)."""

    def __init__(self, result: Dataset, count: int):
        super().__init__(result)
        self._card = count

    def _elements(self):
        return self._input._open()


def _read_document(folder: str) -> dict:
    spec_path = os.path.join(folder, SPEC_FILE)
    try:
        with open(spec_path, "rb") as f:
            text = f.read(1 << 24)
    except FileNotFoundError:
        raise NotFoundError(f"Dataset.load: no saved dataset at {folder}: the file {spec_path} "
                            "does not exist (Dataset.save writes it last).") from None
    try:
        document = json.loads(text.decode("utf-8"))
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ValueError(f"not written by Dataset.save (format {FORMAT!r})")
        if document.get("version") != VERSION:
            raise ValueError(f"format version {document.get('version')!r}; this runtime reads {VERSION}")
        shards = document.get("shards")
        if not isinstance(shards, list) or not all(
                isinstance(s, dict) and isinstance(s.get("file"), str)
                and os.path.basename(s["file"]) == s["file"] and s["file"] not in ("", ".", "..")
                and isinstance(s.get("elements"), int) and s["elements"] >= 0 for s in shards):
            raise ValueError("bad list of shards")
        document["spec"] = _spec_from_json(document.get("element_spec"))
        document["compression"] = _compression(document.get("compression"))
    except (UnicodeDecodeError, ValueError, TypeError) as exc:
        raise DataLossError(f"Dataset.load: {spec_path} cannot be read: {exc}.") from None
    return document


def _given_spec(saved: Any, given: Any) -> Any:
    a, b = st.flatten(saved), st.flatten(given)
    if len(a) != len(b) or not all(isinstance(s, TensorSpec) for s in b):
        raise InvalidArgumentError(f"Dataset.load: element_spec {given!r:.200} does not have the "
                                   f"structure of the saved elements, {saved!r:.200}.")
    for i, (x, y) in enumerate(zip(a, b)):
        if x.dtype != y.dtype:
            raise InvalidArgumentError(f"Data type mismatch at component {i}: expected "
                                       f"{y.dtype.name} but got {x.dtype.name}.")
        if not x.shape.is_compatible_with(y.shape):
            raise InvalidArgumentError(f"Dataset.load: component {i} was saved with shape "
                                       f"{x.shape}, not compatible with {y.shape}.")
    return given


def load(path: Any, element_spec: Any, compression: Any, reader_func: Optional[Callable],
         wait: bool) -> Dataset:
    """`Dataset.load` (see there)."""
    if wait:
        raise ValueError("Dataset.load: wait=True (reading a snapshot while it is written) is not "
                         "supported here.")
    folder = os.fsdecode(path.numpy() if hasattr(path, "numpy") else path)
    document = _read_document(folder)
    kind = document["compression"]
    if compression is not None and _compression(compression, "compression") != kind:
        raise InvalidArgumentError(f"Dataset.load: {folder} was saved with compression "
                                   f"{kind or None!r}, not {compression!r}.")
    spec = document["spec"]
    if element_spec is not None:
        spec = _given_spec(spec, element_spec)
    shards = [_Shard(os.path.join(folder, s["file"]), kind, spec, s["elements"])
              for s in document["shards"]]
    total = sum(s["elements"] for s in document["shards"])
    if not shards:
        return _Loaded(_Elements([], spec), 0)
    if len(shards) == 1 and reader_func is None:
        return shards[0]
    datasets = _Elements(shards, DatasetSpec(spec))
    if reader_func is None:
        return _Loaded(datasets.interleave(lambda x: x), total)
    result = reader_func(datasets)
    if not isinstance(result, Dataset):
        raise TypeError(f"Dataset.load: reader_func must return a Dataset, got "
                        f"{type(result).__name__}.")
    return _Loaded(result, total)     # tf.data: the saved count, whatever the reader


# -- snapshot ---------------------------------------------------------------------------------

class _Snapshot(_Unary):
    """`Dataset.snapshot` (see there): the elements of the first complete iteration are saved
    under `path`, and read back by the later ones."""

    def __init__(self, input_dataset: Dataset, path: Any, compression: Any,
                 reader_func: Optional[Callable], shard_func: Optional[Callable]):
        super().__init__(input_dataset)
        if isinstance(compression, str) and compression.upper() == "AUTO":
            compression = None
        self._kind = _save_compression(compression)
        self._folder = os.path.join(os.fsdecode(path.numpy() if hasattr(path, "numpy") else path),
                                    f"snapshot-{os.getpid()}-{id(self):x}")
        self._reader_func, self._shard_func = reader_func, shard_func
        self._written: Optional[Dataset] = None

    def _elements(self):
        if self._written is not None:
            yield from self._written._open()
            return
        seen = []
        for element in self._input._open():
            seen.append(element)
            yield element
        save(_Elements(seen, self._spec), self._folder, self._kind or None, self._shard_func, None)
        self._written = load(self._folder, None, None, self._reader_func, False)


TRANSFORMS["save"] = save
TRANSFORMS["load"] = load
TRANSFORMS["snapshot"] = _Snapshot


@strict_keywords("rt.data.experimental.save")
def experimental_save(dataset: Dataset, path: Any, compression: Optional[str] = None,
                      shard_func: Optional[Callable] = None, checkpoint_args: Any = None) -> None:
    """`dataset.save(path, ...)`."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"save: dataset must be a Dataset, got {type(dataset).__name__}.")
    dataset.save(path, compression, shard_func, checkpoint_args)


@strict_keywords("rt.data.experimental.load")
def experimental_load(path: Any, element_spec: Any = None, compression: Optional[str] = None,
                      reader_func: Optional[Callable] = None) -> Dataset:
    """`rt.data.Dataset.load(path, ...)`."""
    return Dataset.load(path, element_spec, compression, reader_func)

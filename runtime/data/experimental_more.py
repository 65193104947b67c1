"""More of `tf.data.experimental` (and `tf.data.ThreadingOptions`, `IteratorSpec`,
`NumpyIterator`, `FixedLengthRecordDataset`, `tf.experimental.Optional`): the transformations a
TF 2 program still applies with `Dataset.apply` (most are spelled as a `Dataset` method today),
the single-element readers, `Optional`, the option records and a few sources (fixed-length
records, SQLite queries, random numbers).
"""

from __future__ import annotations

import enum
import gzip
import os
import zlib
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..errors import (
    DataLossError,
    FailedPreconditionError,
    InvalidArgumentError,
    OutOfRangeError,
)
from ..ops.control_flow import ensure_shape
from ..ops.core import constant
from ..ops.io_example import parse_example
from ..ops.io_tfrecord import TFRecordWriter as _Writer
from ..shapes import TensorSpec, as_shape
from ..tensor import EagerTensor, Tensor
from . import dataset as _dataset_module
from . import structure as st
from .dataset import (
    AUTOTUNE,
    INFINITE,
    Dataset,
    Iterator,
    _Elements,
    _NumpyIterator,
    _positive_int,
    _Unary,
    element_groups,
)
from .sparse_elements import SparseElement
from .tfrecord import TFRecordDataset

SHARD_HINT = -1  # a placeholder for the number of shards, filled in by auto-sharding

NumpyIterator = _NumpyIterator  # the type of `Dataset.as_numpy_iterator()`


# -- transformations for Dataset.apply -----------------------------------------------------

class _AssertCardinality(_Unary):
    def __init__(self, input_dataset, expected):
        super().__init__(input_dataset)
        self._card = self._expected = int(expected)

    def _elements(self):
        expected, count = self._expected, 0
        for e in self._input._open():
            count += 1
            if 0 <= expected < count:
                raise FailedPreconditionError(
                    f"Input dataset was expected to contain {expected} elements but contained "
                    f"at least {count} elements.")
            yield e
        if expected == INFINITE:
            raise FailedPreconditionError(
                "Input dataset was expected to contain an infinite number of elements but "
                f"contained only {count} elements.")
        if count < expected:
            raise FailedPreconditionError(
                f"Input dataset was expected to contain {expected} elements but contained only "
                f"{count} elements.")


def _cardinality_arg(value) -> int:
    n = int(value.numpy() if isinstance(value, Tensor) else value)
    if n < 0 and n != INFINITE:
        raise ValueError(f"assert_cardinality: expected_cardinality must be >= 0 or "
                         f"rt.data.INFINITE_CARDINALITY, got {n}.")
    return n


@strict_keywords("rt.data.experimental.assert_cardinality")
def assert_cardinality(expected_cardinality) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: the same elements, reporting `expected_cardinality` as its
    cardinality; iterating raises FailedPreconditionError as soon as the count differs."""
    n = _cardinality_arg(expected_cardinality)
    return lambda dataset: _AssertCardinality(dataset, n)


@strict_keywords("rt.data.experimental.enumerate_dataset")
def enumerate_dataset(start=0) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: `dataset.enumerate(start)`."""
    return lambda dataset: dataset.enumerate(start)


@strict_keywords("rt.data.experimental.unbatch")
def unbatch() -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: `dataset.unbatch()`."""
    return lambda dataset: dataset.unbatch()


@strict_keywords("rt.data.experimental.map_and_batch")
def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: `dataset.map(map_func).batch(batch_size, drop_remainder)`."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("map_and_batch: give num_parallel_batches or num_parallel_calls, "
                         "not both.")
    return lambda dataset: dataset.map(map_func, num_parallel_calls).batch(
        batch_size, drop_remainder)


@strict_keywords("rt.data.experimental.shuffle_and_repeat")
def shuffle_and_repeat(buffer_size, count=None, seed=None) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: `dataset.shuffle(buffer_size, seed).repeat(count)` (each
    repetition shuffled anew)."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


@strict_keywords("rt.data.experimental.parallel_interleave")
def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None,
                        prefetch_input_elements=None) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: `dataset.interleave(map_func, cycle_length, block_length)`, in
    its deterministic order (which `sloppy=True` allows but does not require)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


@strict_keywords("rt.data.experimental.parse_example_dataset")
def parse_example_dataset(features, num_parallel_calls=1,
                          deterministic=None) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply` on a dataset of serialized `tf.train.Example` batches (string
    vectors): each parsed with `rt.io.parse_example(batch, features)`."""
    if not features:
        raise ValueError("parse_example_dataset: features must not be empty.")

    def parse(records):
        parsed = parse_example(records, features)
        batch = records.shape[0] if records.shape.rank == 1 else None
        if batch is None:
            return parsed
        # a batch of known size (drop_remainder) keeps it in the dense features' shapes
        return {key: ensure_shape(value, [batch] + value.shape.as_list()[1:])
                if isinstance(value, Tensor) and value.shape.rank else value
                for key, value in parsed.items()}
    return lambda dataset: dataset.map(parse)


def _cpu_device(device: str, fn: str) -> None:
    if not isinstance(device, str):
        raise TypeError(f"{fn}: the device must be a string such as '/cpu:0', got {device!r}.")
    if "gpu" in device.lower() or "tpu" in device.lower():
        raise InvalidArgumentError(f"{fn}: {device!r} is not a device of this runtime; "
                                   "it has one CPU device, '/cpu:0'.")


@strict_keywords("rt.data.experimental.copy_to_device")
def copy_to_device(target_device, source_device="/cpu:0") -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: the elements on `target_device`; with one CPU device they stay
    where they are (a GPU or TPU device name raises InvalidArgumentError)."""
    _cpu_device(target_device, "copy_to_device")
    _cpu_device(source_device, "copy_to_device")
    return lambda dataset: dataset


@strict_keywords("rt.data.experimental.prefetch_to_device")
def prefetch_to_device(device, buffer_size=None) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: `dataset.prefetch(buffer_size)` on the CPU device (a GPU or TPU
    device name raises InvalidArgumentError)."""
    _cpu_device(device, "prefetch_to_device")
    return lambda dataset: dataset.prefetch(-1 if buffer_size is None else buffer_size)


@strict_keywords("rt.data.experimental.pad_to_cardinality")
def pad_to_cardinality(cardinality, mask_key="valid") -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply` on a dataset of dicts of known cardinality: padded with all-zero
    elements to `cardinality` elements, each with a bool `mask_key` entry (False on padding)."""
    target = int(cardinality)

    def apply(dataset: Dataset) -> Dataset:
        spec = dataset.element_spec
        if not isinstance(spec, dict):
            raise ValueError("pad_to_cardinality: the elements must be dicts, got "
                             f"{st.describe(spec)}.")
        if mask_key in spec:
            raise ValueError(f"pad_to_cardinality: mask_key {mask_key!r} is already a key of "
                             "the elements.")
        have = int(dataset.cardinality().numpy())
        if have < 0:
            raise ValueError("pad_to_cardinality: the dataset's cardinality must be known, got "
                             f"{'infinite' if have == INFINITE else 'unknown'}; "
                             "use assert_cardinality first.")
        if have > target:
            raise ValueError("The dataset passed into `pad_to_cardinality` must have a "
                             f"cardinalty less than the target cardinality ({target}), but has "
                             f"cardinality {have}")
        for key, s in spec.items():
            if not s.shape.is_fully_defined():
                raise ValueError(f"pad_to_cardinality: component {key!r} has shape {s.shape}; "
                                 "every shape must be known to make the padding.")
        zeros = {k: np.zeros(s.shape.as_list(), s.dtype.as_numpy_dtype) if not s.dtype ==
                 _dtypes.string else np.full(s.shape.as_list(), b"", object)
                 for k, s in spec.items()}
        padding = _Elements([{**zeros, mask_key: np.bool_(False)}] * (target - have),
                            {**spec, mask_key: TensorSpec([], _dtypes.bool_)})
        return dataset.map(lambda e: {**e, mask_key: True}).concatenate(padding)
    return apply


# -- reading single elements ------------------------------------------------------------------

def _dataset_arg(dataset, fn: str) -> Dataset:
    if not isinstance(dataset, Dataset):
        raise TypeError(f"{fn}: expected a rt.data.Dataset, got {type(dataset).__name__}.")
    return dataset


@strict_keywords("rt.data.experimental.get_single_element")
def get_single_element(dataset) -> Any:
    """The one element of `dataset` (tensors); InvalidArgumentError when it has none or more
    than one."""
    source = _dataset_arg(dataset, "get_single_element")._open()
    missing = object()
    first = next(source, missing)
    if first is missing:
        raise InvalidArgumentError("Dataset was empty.")
    if next(source, missing) is not missing:
        raise InvalidArgumentError("Dataset had more than one element.")
    return st.to_tensors(first)


@strict_keywords("rt.data.experimental.at")
def at(dataset, index) -> Any:
    """The element at `index` (tensors); OutOfRangeError when the dataset is shorter."""
    i = int(index.numpy() if isinstance(index, Tensor) else index)
    _dataset_arg(dataset, "at")
    if i < 0:
        raise InvalidArgumentError(f"at: index must be >= 0, got {i}.")
    for k, element in enumerate(dataset._open()):
        if k == i:
            return st.to_tensors(element)
    card = int(dataset.cardinality().numpy())
    raise OutOfRangeError(f"Index out of range [0, {card if card >= 0 else k + 1}):{i}")


@strict_keywords("rt.data.experimental.get_structure")
def get_structure(dataset_or_iterator) -> Any:
    """The element spec of a dataset or an iterator."""
    if isinstance(dataset_or_iterator, (Dataset, Iterator)):
        return dataset_or_iterator.element_spec
    raise TypeError("get_structure: expected a rt.data.Dataset or Iterator, got "
                    f"{type(dataset_or_iterator).__name__}.")


@strict_keywords("rt.data.experimental.from_list")
def from_list(elements, name=None) -> Dataset:
    """A dataset of the given elements (nests of one structure and dtypes), in order; the
    element spec keeps the dimensions every element shares."""
    if not isinstance(elements, (list, tuple)) or not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty.")
    slices = [Dataset.from_tensors(e) for e in elements]
    first = slices[0].element_spec
    dtypes = st.map_structure(lambda spec: spec.dtype, first)
    for s in slices[1:]:
        if st.map_structure(lambda spec: spec.dtype, s.element_spec) != dtypes:
            raise TypeError("from_list: every element must have the same structure and dtypes; "
                            f"got {st.describe(first)} and {st.describe(s.element_spec)}.")
    arrays = [next(s._open()) for s in slices]
    spec = first
    for s in slices[1:]:
        spec = _common(spec, s.element_spec)
    return _Elements(arrays, spec)


def _common(a, b):
    flat = [st.common_spec(x, y) for x, y in zip(st.flatten(a), st.flatten(b))]
    return st.pack(a, flat)


# -- Optional ---------------------------------------------------------------------------------

class _ElementSpec:
    """The type spec of a value that holds elements of a spec (an Optional, an iterator)."""

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def element_spec(self):
        return self._element_spec

    @classmethod
    def from_value(cls, value):
        """The spec of `value`."""
        return cls(value.element_spec)

    def __eq__(self, other):
        return type(other) is type(self) and st.spec_key(self._element_spec) == \
            st.spec_key(other._element_spec)

    def __hash__(self):
        return hash((type(self).__name__, st.spec_key(self._element_spec)))

    def __repr__(self):
        return f"{type(self).__name__}({self._element_spec!r})"


class OptionalSpec(_ElementSpec):
    """The type spec of an `Optional`: the spec of the value it may hold."""

    @property
    def value_type(self):
        return Optional


class Optional:
    """A value that may be absent (tf.experimental.Optional): `Optional.from_value(v)`,
    `Optional.empty(spec)`; `has_value()` is a bool tensor and `get_value()` raises
    InvalidArgumentError on an empty one."""

    def __init__(self, value, element_spec, has):
        self._value, self._element_spec, self._has = value, element_spec, has

    @staticmethod
    def from_value(value) -> "Optional":
        """An Optional holding `value` (a nest of tensors)."""
        value = st.to_tensors(st.to_numpy(value)) if not isinstance(value, Tensor) else value
        spec = st.map_structure(lambda t: TensorSpec(t.shape, t.dtype), value)
        return Optional(value, spec, True)

    @staticmethod
    def empty(element_spec) -> "Optional":
        """An Optional with no value, of the given element spec."""
        return Optional(None, element_spec, False)

    @property
    def element_spec(self):
        return self._element_spec

    def has_value(self, name=None) -> Tensor:
        return constant(self._has)

    def get_value(self, name=None) -> Any:
        if not self._has:
            raise InvalidArgumentError("The given optional does not have a value.")
        return self._value

    def __repr__(self):
        return f"<Optional has_value={self._has} element_spec={self._element_spec!r}>"


def _next_as_optional(iterator) -> Optional:
    try:
        return Optional.from_value(next(iterator))
    except StopIteration:
        return Optional.empty(iterator.element_spec)


@strict_keywords("rt.data.experimental.get_next_as_optional")
def get_next_as_optional(iterator) -> Optional:
    """The iterator's next element as an Optional, empty at the end."""
    if not isinstance(iterator, Iterator):
        raise TypeError("get_next_as_optional: expected an iterator of a rt.data.Dataset, got "
                        f"{type(iterator).__name__}.")
    return _next_as_optional(iterator)


def _iterator_get_next_as_optional(self) -> Optional:
    """The next element as an `Optional`, empty at the end of the dataset."""
    return _next_as_optional(self)


class IteratorSpec(_ElementSpec):
    """The type spec of a dataset iterator: the spec of its elements."""

    @property
    def value_type(self):
        return Iterator

    def __repr__(self):
        return f"IteratorSpec({self._element_spec!r},)"


# -- group_by_reducer ---------------------------------------------------------------------------

class Reducer:
    """What `group_by_reducer` does per key: `init_func(key)` makes a state,
    `reduce_func(state, element)` folds each element in, `finalize_func(state)` gives the
    output."""

    def __init__(self, init_func, reduce_func, finalize_func):
        for what, fn in (("init_func", init_func), ("reduce_func", reduce_func),
                         ("finalize_func", finalize_func)):
            if not callable(fn):
                raise TypeError(f"Reducer: {what} must be callable, got {fn!r:.60}.")
        self.init_func, self.reduce_func, self.finalize_func = init_func, reduce_func, finalize_func


class _GroupByReducer(_Unary):
    def __init__(self, input_dataset, key_func, reducer):
        super().__init__(input_dataset)
        self._key_func, self._reducer = key_func, reducer
        self._card = -2  # unknown
        self._outputs = None
        self._spec = self._reduce_all_spec()

    def _run(self) -> list:
        states: dict = {}
        key_func, r = self._key_func, self._reducer
        for e in self._input._open():
            element = st.to_tensors(e)
            args = element if isinstance(element, tuple) else (element,)
            key = key_func(*args)
            if not (isinstance(key, Tensor) and key.dtype == _dtypes.int64 and key.shape.rank == 0):
                raise TypeError("group_by_reducer: key_func must return an int64 scalar tensor, "
                                f"got {key!r:.80}.")
            k = int(key.numpy())
            state = states[k] if k in states else r.init_func(key)
            states[k] = r.reduce_func(state, *args)
        return [st.to_numpy(r.finalize_func(s)) for s in states.values()]

    def _reduce_all_spec(self):
        outputs = self._run()
        self._outputs = outputs
        if not outputs:
            probe = self._reducer.finalize_func(self._reducer.init_func(constant(0, _dtypes.int64)))
            return st.map_structure(lambda t: TensorSpec(t.shape, t.dtype), probe)
        specs = [st.map_structure(lambda a: st.spec_of_array(np.asarray(a)), o) for o in outputs]
        spec = specs[0]
        for s in specs[1:]:
            spec = _common(spec, s)
        return spec

    def _elements(self):
        outputs, self._outputs = self._outputs, None
        return iter(outputs if outputs is not None else self._run())


@strict_keywords("rt.data.experimental.group_by_reducer")
def group_by_reducer(key_func, reducer) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: one element per key (the int64 `key_func(element)`), in the order
    keys first appear: the `reducer`'s finalized state of that key's elements."""
    if not isinstance(reducer, Reducer):
        raise TypeError(f"group_by_reducer: reducer must be a rt.data.experimental.Reducer, got "
                        f"{type(reducer).__name__}.")
    return lambda dataset: _GroupByReducer(dataset, key_func, reducer)


# -- sources ------------------------------------------------------------------------------------

@strict_keywords("rt.data.experimental.RandomDataset")
def RandomDataset(seed=None, name=None) -> Dataset:  # noqa: N802 - TensorFlow's class name
    """`rt.data.Dataset.random(seed)`: an infinite dataset of random int64 scalars in
    [0, 2**32), TensorFlow's numbers for the same seeds, the same on every iteration."""
    return Dataset.random(seed)


def _filenames(filenames, fn: str) -> list:
    if isinstance(filenames, Dataset):
        return [f.decode() if isinstance(f, bytes) else str(f)
                for f in filenames.as_numpy_iterator()]
    if isinstance(filenames, Tensor):
        filenames = filenames.numpy()
    flat = np.ravel(np.asarray(filenames, dtype=object)).tolist()
    if not flat:
        raise ValueError(f"{fn}: filenames must not be empty.")
    return [os.fsdecode(f) for f in flat]


class FixedLengthRecordDataset(Dataset):
    """The records of `record_bytes` bytes in binary files, after `header_bytes` and before
    `footer_bytes` of each file, as string scalars; `compression_type` '', 'GZIP' or 'ZLIB'."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None, name=None):
        self._files = _filenames(filenames, "FixedLengthRecordDataset")
        self._record = int(record_bytes)
        if self._record <= 0:
            raise InvalidArgumentError(f"FixedLengthRecordDataset: record_bytes must be > 0, got "
                                       f"{self._record}.")
        self._header, self._footer = int(header_bytes or 0), int(footer_bytes or 0)
        kind = (compression_type or "").upper()
        if kind not in ("", "GZIP", "ZLIB"):
            raise ValueError(f"FixedLengthRecordDataset: compression_type must be '', 'GZIP' or "
                             f"'ZLIB', got {compression_type!r}.")
        self._compression = kind
        self._spec, self._card = TensorSpec([], _dtypes.string), -2

    def _read(self, path: str) -> bytes:
        with open(path, "rb") as f:
            data = f.read()
        if self._compression == "GZIP":
            return gzip.decompress(data)
        if self._compression == "ZLIB":
            return zlib.decompress(data)
        return data

    def _elements(self):
        for path in self._files:
            data = self._read(path)
            body = data[self._header:len(data) - self._footer]
            if len(body) % self._record:
                raise InvalidArgumentError(
                    f"Excluding the header ({self._header} bytes) and footer ({self._footer} "
                    f"bytes), input file \"{path}\" has body length {len(body)} bytes, which is "
                    f"not an exact multiple of the record length ({self._record} bytes).")
            for i in range(0, len(body), self._record):
                yield np.asarray(body[i:i + self._record], dtype=object)


class SqlDataset(Dataset):
    """The rows of an SQL query on an SQLite database (`driver_name='sqlite'`), each a tuple of
    scalars of `output_types`."""

    def __init__(self, driver_name, data_source_name, query, output_types):
        if driver_name != "sqlite":
            raise InvalidArgumentError(f"SqlDataset: driver_name must be 'sqlite', got "
                                       f"{driver_name!r}.")
        self._source, self._query = os.fsdecode(data_source_name), str(query)
        single = not isinstance(output_types, (tuple, list))
        self._types = [_dtypes.as_dtype(t) for t in ([output_types] if single else output_types)]
        specs = [TensorSpec([], t) for t in self._types]
        self._single = single
        self._spec, self._card = (specs[0] if single else tuple(specs)), -2

    def _elements(self):
        import sqlite3
        connection = sqlite3.connect(self._source)
        try:
            for row in connection.execute(self._query):
                if len(row) != len(self._types):
                    raise InvalidArgumentError(
                        f"SqlDataset: the query returned {len(row)} columns, but "
                        f"{len(self._types)} output_types were given.")
                values = tuple(np.asarray(v.encode() if isinstance(v, str) else v, dtype=object)
                               if t == _dtypes.string else np.asarray(v, t.as_numpy_dtype)
                               for v, t in zip(row, self._types))
                yield values[0] if self._single else values
        finally:
            connection.close()


class TFRecordWriter:
    """Writes a dataset of string scalars to one TFRecord file: `write(dataset)`."""

    def __init__(self, filename, compression_type=None):
        self._filename, self._compression = filename, compression_type or ""

    def write(self, dataset) -> None:
        spec = _dataset_arg(dataset, "TFRecordWriter.write").element_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype == _dtypes.string and
                spec.shape.rank == 0):
            raise TypeError("TFRecordWriter.write: the dataset's elements must be string "
                            f"scalars, got {st.describe(spec)}.")
        with _Writer(self._filename, self._compression) as w:
            for record in dataset._open():
                w.write(np.asarray(record)[()])


# -- options -------------------------------------------------------------------------------------

class ExternalStatePolicy(enum.Enum):
    """What saving an iterator does about functions with external state."""
    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.Enum):
    """The algorithm tf.data's autotuning would use."""
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class _OptionRecord:
    """Options recorded and read back; a misspelt option raises AttributeError."""

    _FIELDS: tuple = ()

    def __init__(self):
        for field in self._FIELDS:
            object.__setattr__(self, field, None)

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            raise AttributeError(f"{type(self).__name__} has no option {name!r}; options: "
                                 f"{', '.join(self._FIELDS)}.")
        object.__setattr__(self, name, value)

    def __repr__(self):
        return f"{type(self).__name__}(" + ", ".join(
            f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"


class ThreadingOptions(_OptionRecord):
    """tf.data's thread-pool options: recorded, without effect (elements are made on the
    calling thread and its readers)."""
    _FIELDS = ("max_intra_op_parallelism", "private_threadpool_size")


class AutotuneOptions(_OptionRecord):
    """tf.data's autotuning options: recorded, without effect."""
    _FIELDS = ("autotune_algorithm", "cpu_budget", "enabled", "initial_parallelism",
               "min_parallelism", "ram_budget")


class OptimizationOptions(_OptionRecord):
    """tf.data's static optimization options: recorded, without effect."""
    _FIELDS = ("apply_default_optimizations", "filter_fusion", "filter_parallelization",
               "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
               "map_parallelization", "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
               "shuffle_and_repeat_fusion", "warm_start")



# -- batching into SparseTensors, snapshots, debug mode, variants ---------------------------

class _DenseToSparseBatch(_Unary):
    def __init__(self, input_dataset, batch_size, row_shape):
        super().__init__(input_dataset)
        spec = input_dataset._spec
        if not isinstance(spec, TensorSpec):
            raise TypeError("dense_to_sparse_batch: the dataset's elements must be single "
                            f"tensors, got {input_dataset.element_spec!r}.")
        self._size = _positive_int(batch_size, "batch_size", "dense_to_sparse_batch")
        if isinstance(row_shape, Tensor):
            row_shape = row_shape.numpy().tolist()
        dims = as_shape(row_shape).as_list() if not isinstance(row_shape, (list, tuple)) \
            else [None if d is None or int(d) < 0 else int(d) for d in row_shape]
        if spec.shape.rank is not None and spec.shape.rank != len(dims):
            raise ValueError(f"dense_to_sparse_batch: row_shape {dims} must have the rank of "
                             f"the elements ({spec.shape.rank}: {spec.shape}).")
        self._row = dims
        self._spec = SparseElement(TensorSpec([None] + dims, spec.dtype),
                                   TensorSpec([None] + dims, _dtypes.bool_))
        c = input_dataset._card
        if c >= 0:
            self._card = -(-c // self._size)

    def _batch(self, parts: list) -> SparseElement:
        parts = [np.asarray(p) for p in parts]
        for p in parts:
            if p.ndim != len(self._row):
                raise InvalidArgumentError(f"Input element had rank {p.ndim}, not the rank of "
                                           f"the row shape ({len(self._row)}).")
            if any(w is not None and n > w for n, w in zip(p.shape, self._row)):
                raise DataLossError(f"Input element had shape "
                                    f"([{','.join(map(str, p.shape))}]) that is larger "
                                    f"than the row shape ([{','.join(map(str, self._row))}]).")
        shape = [len(parts)] + [w if w is not None else max(p.shape[d] for p in parts)
                                for d, w in enumerate(self._row)]
        dense = np.full(shape, b"", object) if parts[0].dtype.kind in "OSU" else \
            np.zeros(shape, parts[0].dtype)
        present = np.zeros(shape, bool)
        for j, p in enumerate(parts):
            where = (j,) + tuple(slice(0, n) for n in p.shape)
            dense[where], present[where] = (p[()] if p.ndim == 0 else p), True
        return SparseElement(dense, present)

    def _elements(self):
        return map(self._batch, element_groups(self._input._open(), self._size, False))


@strict_keywords("rt.data.experimental.dense_to_sparse_batch")
def dense_to_sparse_batch(batch_size, row_shape) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: `batch_size` elements (tensors of `row_shape`'s rank, each no
    larger than it) at a time as one SparseTensor of dense shape `[n, *row_shape]` (an
    unknown dimension: the batch's largest), every entry of the elements set."""
    return lambda dataset: _DenseToSparseBatch(dataset, batch_size, row_shape)


@strict_keywords("rt.data.experimental.snapshot")
def snapshot(path, compression="AUTO", reader_func=None,
             shard_func=None) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: `dataset.snapshot(path, compression, reader_func, shard_func)`."""
    return lambda dataset: dataset.snapshot(path, compression, reader_func, shard_func)


def enable_debug_mode() -> None:
    """From now on the functions of `map` (and the other transformations) run eagerly, one
    element at a time in order on the calling thread, so that their Python code (print,
    breakpoints) runs for each element; `num_parallel_calls` is then not honoured."""
    _dataset_module.DEBUG_MODE[0] = True


class DatasetVariant(EagerTensor):
    """A scalar variant tensor holding a dataset (`to_variant`'s result)."""

    __slots__ = ()

    @property
    def dtype(self) -> _dtypes.DType:
        return _dtypes.variant

    def __repr__(self) -> str:
        return f"rt.Tensor(<{type(self._value[()]).__name__}>, shape=(), dtype=variant)"


@strict_keywords("rt.data.experimental.to_variant")
def to_variant(dataset) -> DatasetVariant:
    """`dataset` as a scalar tensor of dtype variant (read back by `from_variant`)."""
    holder = np.empty((), object)
    holder[()] = _dataset_arg(dataset, "to_variant")
    return DatasetVariant(holder)


@strict_keywords("rt.data.experimental.from_variant")
def from_variant(variant, structure) -> Dataset:
    """The dataset `to_variant` wrapped in `variant`; `structure` must be its element spec."""
    if not isinstance(variant, DatasetVariant):
        raise TypeError("from_variant: `variant` must be the variant tensor of "
                        f"rt.data.experimental.to_variant, got {type(variant).__name__}.")
    dataset = variant._value[()]
    if not st.is_structure(structure) and not isinstance(structure, TensorSpec) or \
            repr(structure) != repr(dataset.element_spec):
        raise ValueError(f"from_variant: `structure` {structure!r} is not the dataset's "
                         f"element spec {dataset.element_spec!r}.")
    return dataset


@strict_keywords("rt.data.experimental.make_batched_features_dataset")
def make_batched_features_dataset(file_pattern, batch_size, features, reader=None,
                                  label_key=None, reader_args=None, num_epochs=None,
                                  shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering=False,
                                  drop_final_batch=False) -> Dataset:
    """Batches of `tf.train.Example` records read from the files of `file_pattern` (with
    `reader`, TFRecordDataset by default), parsed with `features` (a dict for
    `rt.io.parse_example`): the files listed (shuffled with `shuffle`), read
    `reader_num_threads` at a time, records shuffled, repeated `num_epochs` times (None:
    forever, and only whole batches), batched and parsed; with `label_key` each element is
    (features, label)."""
    if not features:
        raise ValueError("make_batched_features_dataset: `features` must not be empty.")
    if label_key and label_key not in features:
        raise ValueError(f"The `label_key` provided ({label_key}) must be one of the "
                         f"`features` keys: {list(features)}.")
    reader = TFRecordDataset if reader is None else reader
    cycle = 1 if reader_num_threads is None else \
        _positive_int(reader_num_threads, "reader_num_threads",
                      "make_batched_features_dataset", allow=(AUTOTUNE,))
    args = list(reader_args or [])
    dataset = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    dataset = dataset.interleave(lambda filename: reader(filename, *args),
                                 cycle_length=None if cycle == AUTOTUNE else cycle,
                                 block_length=1)
    spec = dataset.element_spec
    if isinstance(spec, tuple) and len(spec) == 2 and \
            all(isinstance(s, TensorSpec) and s.dtype == _dtypes.string for s in spec):
        dataset = dataset.map(lambda _key, value: value)   # a (key, value) reader
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(parse_example_dataset(features))
    if label_key:
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


def install() -> None:
    """`Iterator.get_next_as_optional` (TensorFlow's method of iterators)."""
    Iterator.get_next_as_optional = _iterator_get_next_as_optional


__all__ = ["SHARD_HINT", "AutotuneAlgorithm", "AutotuneOptions", "ExternalStatePolicy",
           "FixedLengthRecordDataset", "IteratorSpec", "NumpyIterator", "OptimizationOptions",
           "Optional", "OptionalSpec", "RandomDataset", "Reducer", "SqlDataset", "TFRecordWriter",
           "ThreadingOptions", "assert_cardinality", "at", "copy_to_device",
           "dense_to_sparse_batch", "enable_debug_mode", "enumerate_dataset", "from_list",
           "from_variant", "get_next_as_optional", "get_single_element", "get_structure",
           "group_by_reducer", "make_batched_features_dataset", "map_and_batch",
           "pad_to_cardinality", "parallel_interleave", "parse_example_dataset",
           "prefetch_to_device", "shuffle_and_repeat", "snapshot", "to_variant", "unbatch"]


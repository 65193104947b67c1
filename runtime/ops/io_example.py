"""`rt.io.parse_example` and friends: serialized `rt.train.Example` / `SequenceExample`
records (string tensors) to tensors, by a dict of feature configurations (`FixedLenFeature`,
`VarLenFeature`, `RaggedFeature`, `FixedLenSequenceFeature`).

Eagerly the records are parsed at once; inside `rt.function` (and so in `Dataset.map`) the
parse is one `numpy_function` call when the graph runs, its outputs assembled into dense,
`SparseTensor` and `RaggedTensor` results. Only the NumPy tier runs it (string tensors).
"""

from __future__ import annotations

import collections

import numpy as np

from .. import dtypes as _dtypes
from .. import train_example as _wire
from ..context import executing_eagerly
from ..errors import InvalidArgumentError
from ..exports import export
from ..tensor import Tensor
from . import array_math
from . import sparse as _sparse_ops
from .core import convert_to_tensor
from .py_function import numpy_function
from .ragged import RaggedTensor
from .sparse import SparseTensor

_KIND_OF = {"string": 1, "float32": 2, "int64": 3}
_KIND_NAME = {0: "none", 1: "string", 2: "float", 3: "int64"}


def _feature_dtype(dtype, what: str) -> _dtypes.DType:
    dt = _dtypes.as_dtype(dtype)
    if dt.name not in _KIND_OF:
        raise ValueError(f"{what}: dtype must be rt.float32, rt.int64 or rt.string, got {dt.name}.")
    return dt


@export("io.FixedLenFeature")
class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of `shape` values of `dtype` in every record (`default_value` when absent)."""

    def __new__(cls, shape, dtype, default_value=None):
        shape = [] if shape is None else [int(d) if d is not None else None for d in
                                          (shape.as_list() if hasattr(shape, "as_list") else
                                           (shape if isinstance(shape, (list, tuple)) else [shape]))]
        return super().__new__(cls, shape, _feature_dtype(dtype, "FixedLenFeature"), default_value)


@export("io.FixedLenSequenceFeature")
class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature of `shape` values a step: the steps stacked on a first axis. In
    `parse_example`, `allow_missing=True` pads records to the longest with `default_value`."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        shape = list(FixedLenFeature(shape, dtype).shape)
        return super().__new__(cls, shape, _feature_dtype(dtype, "FixedLenSequenceFeature"),
                               bool(allow_missing), default_value)


@export("io.VarLenFeature")
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any number of values, parsed as a `SparseTensor`."""

    def __new__(cls, dtype):
        return super().__new__(cls, _feature_dtype(dtype, "VarLenFeature"))


@export("io.RaggedFeature")
class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A feature of any number of values, parsed as a `RaggedTensor` (in `parse_example`) or
    a 1-D tensor (`parse_single_example`). Only `partitions=()` is supported here."""

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dtypes.int64,
                validate=False):
        if tuple(partitions):
            raise ValueError("RaggedFeature: `partitions` is not supported here; parse the "
                             "values and build the RaggedTensor with rt.RaggedTensor.from_*.")
        return super().__new__(cls, _feature_dtype(dtype, "RaggedFeature"), value_key, (),
                               _dtypes.as_dtype(row_splits_dtype), bool(validate))


@export("io.SparseFeature")
class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A SparseTensor made of two features of an Example: the values (`value_key`) and, for
    each axis, their positions (`index_key`, one key or a list of them, int64 features),
    of dense shape `size` (an int or a list, one per index key). The entries are sorted
    unless `already_sorted`. Positions are not checked against `size`, as in TensorFlow."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        keys = [index_key] if isinstance(index_key, str) else list(index_key)
        sizes = [size] if np.ndim(size) == 0 else list(size)
        if len(keys) != len(sizes) or not keys:
            raise ValueError(f"SparseFeature: one size per index key, got {len(keys)} keys and "
                             f"{len(sizes)} sizes.")
        return super().__new__(cls, index_key, value_key,
                               _feature_dtype(dtype, "SparseFeature"), size,
                               bool(already_sorted))


def _split_sparse(features):
    """(features with each SparseFeature replaced by VarLenFeatures of its keys, the
    SparseFeatures by key)."""
    if not isinstance(features, dict):
        return features, {}
    sparse = {k: c for k, c in features.items() if isinstance(c, SparseFeature)}
    if not sparse:
        return features, {}
    plain = {k: c for k, c in features.items() if not isinstance(c, SparseFeature)}
    for config in sparse.values():
        keys = [config.index_key] if isinstance(config.index_key, str) else config.index_key
        for key in keys:
            plain.setdefault(key, VarLenFeature(_dtypes.int64))
        plain.setdefault(config.value_key, VarLenFeature(config.dtype))
    return plain, sparse


def _join_sparse(parsed: dict, requested: dict, sparse: dict, batched: bool) -> dict:
    """The SparseTensors of the SparseFeatures from their keys' VarLen parses."""
    out = {k: v for k, v in parsed.items() if k in requested}
    for name, config in sparse.items():
        keys = [config.index_key] if isinstance(config.index_key, str) else config.index_key
        sizes = [config.size] if np.ndim(config.size) == 0 else list(config.size)
        values = parsed[config.value_key]
        columns = [parsed[key].values for key in keys]
        dense = [int(v) for v in sizes]
        if batched:
            columns = [values.indices[:, 0]] + columns
            shape = array_math.concat([values.dense_shape[:1],
                                       convert_to_tensor(dense, dtype=_dtypes.int64)], 0)
        else:
            shape = convert_to_tensor(dense, dtype=_dtypes.int64)
        result = SparseTensor(array_math.stack(columns, axis=1), values.values, shape)
        out[name] = result if config.already_sorted else _sparse_ops.reorder(result)
    return out


_CONFIGS = (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, RaggedFeature)


def _check_features(features, what: str) -> dict:
    if features is None:
        return {}
    if not isinstance(features, dict):
        raise TypeError(f"`{what}` must be a dict of feature configurations, got "
                        f"{type(features).__name__}.")
    for key, config in features.items():
        if not isinstance(config, _CONFIGS):
            raise TypeError(f"`{what}[{key!r}]` must be FixedLenFeature, VarLenFeature, "
                            f"RaggedFeature or FixedLenSequenceFeature, got {config!r:.60}.")
    # TensorFlow's order of the parsed dict: the VarLenFeature keys, then the fixed-length
    # ones, then the RaggedFeature ones, each group sorted by key
    def group(key):
        config = features[key]
        return 0 if isinstance(config, VarLenFeature) else \
            2 if isinstance(config, RaggedFeature) else 1
    return {key: features[key] for key in sorted(features, key=lambda k: (group(k), k))}


# ---------------------------------------------------------------------------- NumPy parsing

def _values(buf, span, key: str, dtype: _dtypes.DType, record: int):
    kind, start, stop = span
    want = _KIND_OF[dtype.name]
    if kind == 0:
        return np.zeros(0, dtype.as_numpy_dtype) if want != 1 else np.zeros(0, object)
    if kind != want:
        raise InvalidArgumentError(
            f"Key: {key}, Index: {record}.  Data types don't match. Data type: "
            f"{_KIND_NAME[kind]} but expected type: {_KIND_NAME[want]}")
    try:
        values = _wire.list_values(buf, kind, start, stop)
    except _wire.DecodeError as exc:
        raise InvalidArgumentError(f"Could not parse example input (record {record}): {exc}") \
            from None
    return np.array(values, dtype=object) if kind == 1 else values


def _default(config, key: str) -> np.ndarray | None:
    if config.default_value is None:
        return None
    np_dtype = object if config.dtype is _dtypes.string else config.dtype.as_numpy_dtype
    value = np.asarray(config.default_value, dtype=np_dtype)
    if isinstance(config, FixedLenSequenceFeature):
        return value.reshape(-1)
    return np.broadcast_to(value, config.shape).reshape(-1)


def _gather(records, spans, key: str, dtype: _dtypes.DType):
    """(values, counts, present) of feature `key` in every record (see gather_values)."""
    want = _KIND_OF[dtype.name]
    try:
        values, counts, present = _wire.gather_values(records, spans, key, want)
    except _wire.KindMismatch as exc:
        raise InvalidArgumentError(
            f"Key: {key}, Index: {exc.index}.  Data types don't match. Data type: "
            f"{_KIND_NAME[exc.kind]} but expected type: {_KIND_NAME[want]}") from None
    except _wire.DecodeError as exc:
        raise InvalidArgumentError(f"Could not parse example input (feature {key}): {exc}") \
            from None
    if dtype is not _dtypes.string:
        values = values.astype(dtype.as_numpy_dtype, copy=False)
    return values, counts, present


def _dense(records, spans, key, config) -> np.ndarray:
    size = int(np.prod(config.shape, dtype=np.int64))
    values, counts, present = _gather(records, spans, key, config.dtype)
    shape = [len(records)] + list(config.shape)
    if present.all() and (counts == size).all():
        return values.reshape(shape)
    default = _default(config, key)
    out = np.empty((len(records), size), values.dtype)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    for i in range(len(records)):
        if not present[i]:
            if default is None:
                raise InvalidArgumentError(
                    f"Name: <unknown>, Feature: {key} (data type: {config.dtype.name}) is "
                    f"required but could not be found (record {i}).")
            out[i] = default
        elif counts[i] != size:
            raise InvalidArgumentError(
                f"Key: {key}, Index: {i}.  Number of {_KIND_NAME[_KIND_OF[config.dtype.name]]} "
                f"values != expected.  Values size: {counts[i]} but output shape: "
                f"{config.shape}")
        else:
            out[i] = values[starts[i]:starts[i] + size]
    return out.reshape(shape)


def _ragged_values(records, spans, key, dtype):
    values, counts, _ = _gather(records, spans, key, dtype)
    return values, counts


def _sparse(records, spans, key, config):
    values, lengths = _ragged_values(records, spans, key, config.dtype)
    rows = np.repeat(np.arange(len(records), dtype=np.int64), lengths)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    cols = np.arange(values.size, dtype=np.int64) - np.repeat(starts, lengths)
    shape = np.array([len(records), lengths.max() if lengths.size else 0], np.int64)
    return [np.stack([rows, cols], 1).reshape(-1, 2), values, shape]


def _padded_sequence(records, spans, key, config):
    """A FixedLenSequenceFeature in parse_example: each record's values, padded."""
    values, lengths, present = _gather(records, spans, key, config.dtype)
    step = int(np.prod(config.shape, dtype=np.int64))
    for i, n in enumerate(lengths):
        if not present[i] and not config.allow_missing:
            raise InvalidArgumentError(f"Feature: {key} is required but could not be found "
                                       f"(record {i}); pass allow_missing=True.")
        if step and n % step:
            raise InvalidArgumentError(f"Key: {key}: {n} values are not a whole number of steps "
                                       f"of shape {config.shape} (record {i}).")
    steps = lengths // max(step, 1)
    longest = int(steps.max()) if steps.size else 0
    default = _default(config, key)
    np_dtype = values.dtype
    out = np.empty((len(records), longest * step), np_dtype)
    if default is None:
        out[...] = b"" if np_dtype.kind == "O" else 0
    else:
        out[...] = default[0] if default.size else 0
    start = 0
    for i, n in enumerate(lengths):
        out[i, :n] = values[start:start + n]
        start += n
    return out.reshape([len(records), longest] + list(config.shape))


def _parse_features(records, spans, features) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for key, config in features.items():
        if isinstance(config, FixedLenFeature):
            out.append(_dense(records, spans, key, config))
        elif isinstance(config, VarLenFeature):
            out.extend(_sparse(records, spans, key, config))
        elif isinstance(config, RaggedFeature):
            values, lengths = _ragged_values(records, spans, config.value_key or key, config.dtype)
            splits = np.concatenate(([0], np.cumsum(lengths))).astype(config.row_splits_dtype.as_numpy_dtype)
            out.extend([values, splits])
        else:
            out.append(_padded_sequence(records, spans, key, config))
    return out


def _record_list(serialized: np.ndarray) -> list[bytes]:
    values = np.asarray(serialized, dtype=object).reshape(-1).tolist()
    if set(map(type, values)) <= {bytes}:
        return values
    return [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in values]


_BATCH_AT_ONCE = 48  # from this many records, a batch is read at once (faster from about there)


def _example_spans(records, features):
    """Where the `features` sit in each record: an ExampleBatch found for all records at
    once when there are many, in the usual encoding; else a dict a record."""
    if len(records) >= _BATCH_AT_ONCE:
        keys = [config.value_key or key if isinstance(config, RaggedFeature) else key
                for key, config in features.items()]
        batch = _wire.example_batch(records, keys)
        if batch is not None:
            return batch
    spans = []
    for i, buf in enumerate(records):
        try:
            spans.append(_wire.fast_example_features(buf))
        except (_wire.DecodeError, UnicodeDecodeError) as exc:
            raise InvalidArgumentError(f"Could not parse example input, value: {buf[:40]!r} "
                                       f"(record {i}): {exc}") from None
    return spans


def _example_parser(features):
    """records -> the flat arrays of `features` (see `_assemble`)."""
    return lambda records: _parse_features(records, _example_spans(records, features), features)


# ---------------------------------------------------------------------------- tensors

def _output_dtypes(features) -> list[_dtypes.DType]:
    out = []
    for config in features.values():
        if isinstance(config, VarLenFeature):
            out += [_dtypes.int64, config.dtype, _dtypes.int64]
        elif isinstance(config, RaggedFeature):
            out += [config.dtype, config.row_splits_dtype]
        else:
            out.append(config.dtype)
    return out


def _assemble(flat, features, batched: bool) -> dict:
    """The results of `features` from the flat list of arrays / tensors `flat`."""
    result, i = {}, 0
    for key, config in features.items():
        if isinstance(config, VarLenFeature):
            indices, values, shape = flat[i:i + 3]
            i += 3
            if not batched:
                indices, shape = indices[:, 1:], shape[1:]
            result[key] = SparseTensor(indices, values, shape)
        elif isinstance(config, RaggedFeature):
            values, splits = flat[i:i + 2]
            i += 2
            result[key] = RaggedTensor.from_row_splits(values, splits, validate=False) \
                if batched else convert_to_tensor(values)
        else:
            value = flat[i]
            i += 1
            if not isinstance(value, Tensor):
                value = convert_to_tensor(value, dtype=config.dtype)
            known = list(config.shape)
            if isinstance(config, FixedLenSequenceFeature):
                known = [None] + known
            if not batched:
                value = value[0]
            elif value.shape.rank is None:
                value = array_math.reshape(value, [-1] + [d if d is not None else -1 for d in known])
            if not executing_eagerly():
                value.set_shape(([None] if batched else []) + known)
            result[key] = value
    return result


def _run(serialized, parse, features, batched: bool, what: str):
    """`parse(records) -> flat arrays` eagerly, or as a numpy_function while tracing."""
    t = serialized if isinstance(serialized, Tensor) else \
        convert_to_tensor(np.asarray(serialized, dtype=object), dtype=_dtypes.string)
    if t.dtype is not _dtypes.string:
        raise TypeError(f"{what}: `serialized` must be a string tensor, got {t.dtype.name}.")
    rank = t.shape.rank
    if rank is not None and rank != (1 if batched else 0):
        raise ValueError(f"{what}: `serialized` must be a {'vector' if batched else 'scalar'} "
                         f"of records, got shape {t.shape}.")
    dtypes = _output_dtypes(features)
    if executing_eagerly():
        flat = parse(_record_list(t.numpy()))
        flat = [convert_to_tensor(a, dtype=d) for a, d in zip(flat, dtypes)]
    elif not dtypes:
        flat = []
    else:
        flat = numpy_function(lambda s: tuple(parse(_record_list(s))), [t], dtypes,
                              stateful=False)
        flat = list(flat) if isinstance(flat, (list, tuple)) else [flat]
        _set_shapes(flat, features, batched)
    return _assemble(flat, features, batched)


def _set_shapes(flat, features, batched: bool) -> None:
    """Static ranks of the numpy_function's outputs (sparse and ragged parts)."""
    i = 0
    for config in features.values():
        if isinstance(config, VarLenFeature):
            flat[i].set_shape([None, None])
            flat[i + 1].set_shape([None])
            flat[i + 2].set_shape([None])
            i += 3
        elif isinstance(config, RaggedFeature):
            flat[i].set_shape([None])
            flat[i + 1].set_shape([None])
            i += 2
        else:
            i += 1


@export("io.parse_example")
def parse_example(serialized, features, example_names=None,
                  name=None) -> dict[str, Tensor | SparseTensor | RaggedTensor]:
    """The `features` of each serialized Example of the vector `serialized`: a dict of
    tensors with a first batch axis (SparseTensor for VarLenFeature, RaggedTensor for
    RaggedFeature and SparseFeature)."""
    requested = features
    features, sparse = _split_sparse(features)
    features = _check_features(features, "features")
    parsed = _run(serialized, _example_parser(features), features, True, "parse_example")
    return _join_sparse(parsed, requested, sparse, True) if sparse else parsed


@export("io.parse_single_example")
def parse_single_example(serialized, features, example_names=None,
                         name=None) -> dict[str, Tensor | SparseTensor | RaggedTensor]:
    """The `features` of one serialized Example (a scalar string)."""
    requested = features
    features, sparse = _split_sparse(features)
    features = _check_features(features, "features")
    for key, config in features.items():
        if isinstance(config, FixedLenSequenceFeature):
            raise ValueError(f"parse_single_example: `features[{key!r}]` is a "
                             f"FixedLenSequenceFeature; use parse_single_sequence_example.")
    parsed = _run(serialized, _example_parser(features), features, False,
                  "parse_single_example")
    return _join_sparse(parsed, requested, sparse, False) if sparse else parsed


# ---------------------------------------------------------------------------- sequences

def _sequence_parse(records, context, sequence):
    ctx_spans, lists = [], []
    for i, buf in enumerate(records):
        try:
            c, s = _wire.sequence_spans(buf)
        except (_wire.DecodeError, UnicodeDecodeError) as exc:
            raise InvalidArgumentError(f"Could not parse sequence example (record {i}): {exc}") \
                from None
        ctx_spans.append(c)
        lists.append(s)
    out = _parse_features(records, ctx_spans, context)
    for key, config in sequence.items():
        out.extend(_sequence_feature(records, lists, key, config))
    out.append(np.array([[len(s.get(k, ())) for k in sequence] for s in lists],
                        np.int64).reshape(len(records), len(sequence)))
    return out


def _sequence_feature(records, lists, key, config):
    np_dtype = object if config.dtype is _dtypes.string else config.dtype.as_numpy_dtype
    per_record = []
    for i, (buf, steps_of) in enumerate(zip(records, lists)):
        if key not in steps_of and isinstance(config, FixedLenSequenceFeature) \
                and not config.allow_missing:
            raise InvalidArgumentError(f"Feature list: {key} is required but could not be found "
                                       f"(record {i}); pass allow_missing=True.")
        per_record.append([_values(buf, step, key, config.dtype, i) for step in steps_of.get(key, [])])
    if isinstance(config, FixedLenSequenceFeature):
        size = int(np.prod(config.shape, dtype=np.int64))
        longest = max((len(s) for s in per_record), default=0)
        out = np.zeros((len(records), longest, size), np_dtype)
        if np_dtype is object:
            out[...] = b""
        if config.default_value is not None:
            out[...] = _default(config, key)[0]
        for i, steps in enumerate(per_record):
            for j, v in enumerate(steps):
                if len(v) != size:
                    raise InvalidArgumentError(
                        f"Key: {key}, Index: {j}.  Number of values != expected.  values size: "
                        f"{len(v)} but output shape: {config.shape} (record {i}).")
                out[i, j] = v
        return [out.reshape([len(records), longest] + list(config.shape))]
    # VarLenFeature / RaggedFeature over steps: [batch, steps, values]
    rows, steps_idx, cols, vals = [], [], [], []
    for i, steps in enumerate(per_record):
        for j, v in enumerate(steps):
            rows += [i] * len(v)
            steps_idx += [j] * len(v)
            cols += list(range(len(v)))
            vals.extend(v)
    values = np.array(vals, dtype=np_dtype).reshape(-1)
    if isinstance(config, RaggedFeature):
        raise ValueError("parse_sequence_example: RaggedFeature sequence features are not "
                         "supported here; use VarLenFeature.")
    shape = np.array([len(records), max((len(s) for s in per_record), default=0),
                      max((len(v) for s in per_record for v in s), default=0)], np.int64)
    indices = np.stack([np.asarray(rows, np.int64), np.asarray(steps_idx, np.int64),
                        np.asarray(cols, np.int64)], 1).reshape(-1, 3)
    return [indices, values, shape]


def _check_sequence(sequence_features):
    sequence = _check_features(sequence_features, "sequence_features")
    for key, config in sequence.items():
        if isinstance(config, FixedLenFeature):
            raise ValueError(f"`sequence_features[{key!r}]` must be FixedLenSequenceFeature or "
                             f"VarLenFeature, got FixedLenFeature.")
    return sequence


def _run_sequence(serialized, context_features, sequence_features, batched, what):
    context = _check_features(context_features, "context_features")
    sequence = _check_sequence(sequence_features)
    merged = dict(context)
    seq_keys = {}
    for key, config in sequence.items():
        seq_keys[key] = "\0seq:" + key
        merged[seq_keys[key]] = config
    lengths_key = "\0lengths"
    merged[lengths_key] = FixedLenFeature([len(sequence)], _dtypes.int64)
    result = _run(serialized, lambda recs: _sequence_parse(recs, context, sequence), merged,
                  batched, what)
    ctx = {k: result[k] for k in context}
    seqs = {key: result[seq_keys[key]] for key in sequence}
    lengths = result[lengths_key]
    lens = {key: lengths[..., j] for j, key in enumerate(sequence)
            if isinstance(sequence[key], FixedLenSequenceFeature)}
    return ctx, seqs, lens


@export("io.parse_single_sequence_example")
def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None) -> tuple[dict, dict]:
    """(context, feature_lists) of one serialized SequenceExample: context features as
    `parse_single_example`; sequence features with a first axis of steps."""
    ctx, seqs, _ = _run_sequence(serialized, context_features, sequence_features, False,
                                 "parse_single_sequence_example")
    return ctx, seqs


@export("io.parse_sequence_example")
def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None) -> tuple[dict, dict, dict]:
    """(context, feature_lists, lengths) of a vector of serialized SequenceExamples; sequence
    features padded to the longest record; `lengths[key]` the number of steps of each."""
    return _run_sequence(serialized, context_features, sequence_features, True,
                         "parse_sequence_example")

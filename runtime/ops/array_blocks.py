"""`tf.space_to_batch` / `space_to_batch_nd` / `batch_to_space` and
`required_space_to_batch_paddings`, `tf.dynamic_stitch`, `tf.edit_distance`,
`tf.is_symbolic_tensor` and `tf.timestamp`, composed of other ops (pads, reshapes,
transposes, scatters; the edit distance and the clock through `py_function`).
"""

from __future__ import annotations

import time

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..tensor import SymbolicTensor, Tensor
from . import array_math as _math
from .array_composed import pad as _pad
from .array_scatter import tensor_scatter_nd_update as _scatter_update
from .core import convert_to_tensor
from .py_function import py_function
from .sparse import SparseTensor


def _ints(value, what: str, fn: str) -> np.ndarray:
    if isinstance(value, Tensor):
        value = constant_value(value)
        if value is None:
            raise ValueError(f"{fn}: {what} must be known while tracing (a constant).")
    return np.asarray(value, dtype=np.int64)


def _blocks(input, block_shape, pads, fn: str):  # noqa: A002 - TensorFlow's name
    x = convert_to_tensor(input)
    block = _ints(block_shape, "block_shape", fn).reshape(-1)
    m = len(block)
    pads = _ints(pads, "paddings" if "space" in fn else "crops", fn).reshape(m, 2)
    if (block < 1).any():
        raise InvalidArgumentError(f"{fn}: block_shape must be positive, got {block.tolist()}.")
    if (pads < 0).any():
        raise InvalidArgumentError(f"{fn}: paddings and crops must be non-negative, got "
                                   f"{pads.tolist()}.")
    dims = x.shape.as_list()
    if x.shape.rank is None or len(dims) < m + 1 or None in dims[1:m + 1]:
        raise ValueError(f"{fn}: input needs rank >= {m + 1} with known spatial dimensions, "
                         f"got shape {x.shape}.")
    return x, [int(b) for b in block], pads.tolist(), dims


@export("space_to_batch_nd", "space_to_batch", "nn.space_to_batch")
def space_to_batch_nd(input, block_shape, paddings, name=None) -> Tensor:  # noqa: A002
    """Zero-pads the M spatial dimensions after the batch by `paddings` (`[M, 2]`), then
    moves blocks of `block_shape` into the batch: `[batch * prod(block_shape),
    padded_1 / block_1, ..., rest]`."""
    x, block, pads, dims = _blocks(input, block_shape, paddings, "space_to_batch_nd")
    m = len(block)
    x = _pad(x, [[0, 0]] + pads + [[0, 0]] * (len(dims) - m - 1))
    padded = [dims[1 + i] + pads[i][0] + pads[i][1] for i in range(m)]
    for i in range(m):
        if padded[i] % block[i]:
            raise InvalidArgumentError(
                f"space_to_batch_nd: padded spatial dimension {i} ({padded[i]}) must be "
                f"divisible by block_shape[{i}] ({block[i]}).")
    batch = _math.shape(x)[:1]
    rest = dims[m + 1:]
    split = [s for i in range(m) for s in (padded[i] // block[i], block[i])]
    x = _math.reshape(x, _math.concat([batch, split + rest], 0))
    perm = ([2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] +
            list(range(1 + 2 * m, 1 + 2 * m + len(rest))))
    x = _math.transpose(x, perm)
    return _math.reshape(x, [-1] + [padded[i] // block[i] for i in range(m)] + rest)


@export("batch_to_space")
def batch_to_space(input, block_shape, crops, name=None) -> Tensor:  # noqa: A002
    """The inverse of `space_to_batch_nd`: blocks of the batch moved back into the M spatial
    dimensions, then `crops` (`[M, 2]`) cut from their starts and ends."""
    x, block, crops, dims = _blocks(input, block_shape, crops, "batch_to_space")
    m = len(block)
    if dims[0] is not None and dims[0] % int(np.prod(block)):
        raise InvalidArgumentError(f"batch_to_space: the batch ({dims[0]}) must be divisible "
                                   f"by the product of block_shape ({int(np.prod(block))}).")
    spatial, rest = dims[1:m + 1], dims[m + 1:]
    x = _math.reshape(x, block + [-1] + spatial + rest)
    perm = ([m] + [p for i in range(m) for p in (m + 1 + i, i)] +
            list(range(2 * m + 1, 2 * m + 1 + len(rest))))
    x = _math.transpose(x, perm)
    full = [spatial[i] * block[i] for i in range(m)]
    x = _math.reshape(x, [-1] + full + rest)
    for i in range(m):
        if crops[i][0] + crops[i][1] > full[i]:
            raise InvalidArgumentError(f"batch_to_space: crops {crops[i]} exceed spatial "
                                       f"dimension {i} ({full[i]}).")
    index = tuple([slice(None)] + [slice(c[0], full[i] - c[1]) for i, c in enumerate(crops)])
    return x[index]


@export("required_space_to_batch_paddings")
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None) -> tuple[Tensor, Tensor]:
    """`(paddings, crops)` (int32 `[M, 2]`) that make `input_shape` plus `base_paddings`
    divisible by `block_shape`: the extra padding goes at the ends, and `crops` removes it."""
    shape = _ints(input_shape, "input_shape", "required_space_to_batch_paddings").reshape(-1)
    block = _ints(block_shape, "block_shape", "required_space_to_batch_paddings").reshape(-1)
    base = (np.zeros((len(block), 2), np.int64) if base_paddings is None else
            _ints(base_paddings, "base_paddings", "required_space_to_batch_paddings")
            .reshape(len(block), 2))
    full = shape + base[:, 0] + base[:, 1]
    extra = (block - full % block) % block
    paddings = np.stack([base[:, 0], base[:, 1] + extra], 1).astype(np.int32)
    crops = np.stack([np.zeros_like(extra), extra], 1).astype(np.int32)
    return convert_to_tensor(paddings), convert_to_tensor(crops)


@export("dynamic_stitch")
def dynamic_stitch(indices, data, name=None) -> Tensor:
    """Interleaves `data` by `indices`: `merged[indices[m][i], ...] = data[m][i, ...]`, the
    later entry winning where an index repeats; merged has `max(indices) + 1` rows."""
    indices = [convert_to_tensor(i, _dtypes.int32) for i in indices]
    data = [convert_to_tensor(d) for d in data]
    if len(indices) != len(data) or not indices:
        raise ValueError(f"dynamic_stitch: give as many index tensors as data tensors (and "
                         f"at least one), got {len(indices)} and {len(data)}.")
    rank = indices[0].shape.rank
    rest = data[0].shape.as_list()[rank:]
    flat_index = _math.concat([_math.reshape(i, [-1]) for i in indices], 0)
    flat_data = _math.concat([_math.reshape(d, [-1] + rest) for d in data], 0)
    rows = _math.reduce_max(flat_index) + 1
    zeros = _math.zeros(_math.concat([_math.reshape(rows, [1]),
                                      convert_to_tensor(np.asarray(rest, np.int32))], 0),
                        flat_data.dtype)
    return _scatter_update(zeros, _math.expand_dims(flat_index, -1), flat_data)


def _levenshtein(a: list, b: list) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _sequences(indices, values, shape) -> dict:
    out: dict = {}
    for index, value in zip(np.asarray(indices).tolist(), np.asarray(values).tolist()):
        out.setdefault(tuple(index[:-1]), []).append((index[-1], value))
    return {k: [v for _, v in sorted(seq)] for k, seq in out.items()}


def _edit_distance_kernel(h_idx, h_val, h_shape, t_idx, t_val, t_shape, normalize):
    shape = np.maximum(np.asarray(h_shape)[:-1], np.asarray(t_shape)[:-1])
    out = np.zeros(shape, np.float32)
    hyps, truths = _sequences(h_idx, h_val, h_shape), _sequences(t_idx, t_val, t_shape)
    for key in set(hyps) | set(truths):
        hyp, truth = hyps.get(key, []), truths.get(key, [])
        distance = _levenshtein(hyp, truth)
        if normalize:
            out[key] = distance / len(truth) if truth else (np.inf if hyp else 0.0)
        else:
            out[key] = distance
    return out


@export("edit_distance")
def edit_distance(hypothesis, truth, normalize=True, name="edit_distance") -> Tensor:
    """The Levenshtein distance between the sequences of two SparseTensors (each sequence
    runs along the last dimension), divided by the truth's length with `normalize` (infinity
    where the truth is empty and the hypothesis is not): a float32 tensor of the larger of
    their outer dense shapes."""
    for what, value in (("hypothesis", hypothesis), ("truth", truth)):
        if not isinstance(value, SparseTensor):
            raise TypeError(f"edit_distance: {what} must be a SparseTensor, got "
                            f"{type(value).__name__}.")
    if hypothesis.values.dtype != truth.values.dtype:
        raise TypeError(f"edit_distance: hypothesis and truth must have one dtype, got "
                        f"{hypothesis.values.dtype.name} and {truth.values.dtype.name}.")
    result = py_function(
        lambda *parts: _edit_distance_kernel(*[p.numpy() for p in parts], bool(normalize)),
        [hypothesis.indices, hypothesis.values, hypothesis.dense_shape, truth.indices,
         truth.values, truth.dense_shape], _dtypes.float32)
    return result


@export("is_symbolic_tensor")
def is_symbolic_tensor(tensor) -> bool:
    """True for a tensor of a function being traced (a graph tensor), False for an eager one
    or any other value."""
    return isinstance(tensor, SymbolicTensor)


@export("timestamp")
def timestamp(name=None) -> Tensor:
    """The current time in seconds since the epoch, a float64 scalar (read when the op runs,
    also inside a function)."""
    return py_function(lambda: np.float64(time.time()), [], _dtypes.float64)

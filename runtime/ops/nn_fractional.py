"""More of `tf.nn`: `fractional_max_pool` / `fractional_avg_pool` (pooling by a non-integer
ratio over regions of random sizes) and `isotonic_regression` (the closest monotone sequence).

The pooling sequences are random draws composed of ops (a random permutation, or Graham's
pseudo-random construction); the segments of the isotonic fit (pool adjacent violators) are
one host-side NumPy call. The pooled values and the fitted values are then composed of gathers
and reductions, so gradients reach the input.

Difference from TensorFlow: the pooling sequences follow TensorFlow's rules (each region `k`
or `k + 1` long, `k` the integer part of the ratio; `pseudo_random` Graham's construction) but
not its Philox stream, so a given seed gives other regions than TensorFlow's (a seed other than
0 gives the same regions at every call, drawn statelessly). Given the sequences, the outputs
are TensorFlow's. The max pool's gradient is shared among equal maxima of a region (TensorFlow
gives it to the first).
"""

from __future__ import annotations

import collections

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..shapes import TensorSpec
from ..tensor import Tensor
from . import array_math
from . import array_scatter as _scatter
from . import array_sort as _sort
from . import random as _random
from . import random_stateless as _stateless
from .core import convert_to_tensor
from .py_function import numpy_function

# -- fractional pooling --------------------------------------------------------------------


def pooling_sequence(input_length: int, output_length: int, pseudo_random: bool, seed=None):
    """The `output_length + 1` boundaries (from 0 to `input_length`, an int64 tensor) of
    regions each `k = input_length // output_length` or `k + 1` long, in a random order, or
    with `pseudo_random` placed at `ceil(alpha * (i + u)) - 1` for one random `u` (alpha the
    ratio, Graham's construction). `seed`: a stateless seed pair, or None for a fresh draw."""
    def draw(shape):
        if seed is None:
            return _random.uniform(shape, dtype=_dtypes.float64)
        return _stateless.stateless_uniform(shape, seed, dtype=_dtypes.float64)

    k = input_length // output_length
    zero = array_math.zeros([1], _dtypes.int64)
    if pseudo_random:
        alpha = input_length / output_length
        # u is kept small enough that every region is k or k + 1 long at both ends
        u_max = min((k + 2) / alpha - 1, (input_length + 1 - k) / alpha - (output_length - 1))
        u = draw([]) * u_max
        steps = array_math.range(1, output_length, dtype=_dtypes.float64)
        inner = array_math.cast(array_math.ceil(alpha * (steps + u)), _dtypes.int64) - 1
        last = convert_to_tensor([input_length], _dtypes.int64)
        return array_math.concat([zero, inner, last], 0)
    # k + 1 at `input_length % output_length` places of a random permutation, k elsewhere
    rank = _sort.argsort(_sort.argsort(draw([output_length])))
    longer = array_math.less(rank, input_length % output_length)
    diff = k + array_math.cast(longer, _dtypes.int64)
    return array_math.concat([zero, array_math.cumsum(diff)], 0)


def _ratio(pooling_ratio, fn: str) -> list[float]:
    if isinstance(pooling_ratio, (int, float)):
        return [1.0, float(pooling_ratio), float(pooling_ratio), 1.0]
    ratio = [float(r) for r in pooling_ratio]
    if len(ratio) == 2:
        return [1.0, *ratio, 1.0]
    if len(ratio) != 4 or ratio[0] != 1.0 or ratio[3] != 1.0:
        raise ValueError("`pooling_ratio` should have first and last elements with value 1.0. "
                         f"Received: pooling_ratio={pooling_ratio}")
    for r in ratio:
        if r < 1.0:
            raise ValueError("`pooling_ratio` elements should be >= 1.0. Received: "
                             f"pooling_ratio={pooling_ratio}")
    return ratio


def _windows(sequence, length: int, out: int, overlapping: bool):
    """Per output position, the input positions of its region (`[out, width]`, the short
    regions padded by repeating their last position) and which of them are real."""
    k = length // out
    width = k + 1 + (1 if overlapping else 0)
    start = sequence[:-1]
    end = sequence[1:] + 1 if overlapping else sequence[1:]
    end = array_math.minimum(end, convert_to_tensor(length, _dtypes.int64))
    steps = array_math.range(width, dtype=_dtypes.int64)
    positions = array_math.expand_dims(start, 1) + array_math.expand_dims(steps, 0)
    last = array_math.expand_dims(end - 1, 1)
    real = array_math.less(positions, array_math.expand_dims(end, 1))
    return array_math.minimum(positions, last), real


def _pool_axis(x, positions, real, axis: int, average: bool):
    gathered = _scatter.gather(x, positions, axis=axis)  # the region as a new axis after `axis`
    if not average:
        return array_math.reduce_max(gathered, axis=axis + 1)
    shape = [1] * (x.shape.rank + 1)
    shape[axis], shape[axis + 1] = -1, int(positions.shape[1])
    weight = array_math.reshape(array_math.cast(real, x.dtype), shape)
    total = array_math.reduce_sum(gathered * weight, axis=axis + 1)
    count = array_math.reduce_sum(weight, axis=axis + 1)
    return total / count


def _fractional_pool(value, pooling_ratio, pseudo_random, overlapping, seed, fn: str,
                     average: bool):
    x = convert_to_tensor(value)
    allowed = (_dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64)
    if x.dtype not in allowed:
        raise TypeError(f"{fn}: `value` must be float32, float64, int32 or int64, got "
                        f"{x.dtype.name}.")
    if average and not x.dtype.is_floating:
        raise NotImplementedError(f"{fn} of integer tensors is not implemented here (float "
                                  "tensors only).")
    ratio = _ratio(pooling_ratio, fn)
    if x.shape.rank != 4:
        raise ValueError(f"{fn}: `value` must be 4-D [batch, height, width, channels], got "
                         f"shape {x.shape}.")
    _, height, width, _ = x.shape.as_list()
    if height is None or width is None:
        raise ValueError(f"{fn} needs the height and width of `value` known while tracing.")
    rows, cols = int(height // ratio[1]), int(width // ratio[2])
    if rows <= 0 or cols <= 0:
        raise InvalidArgumentError(f"{fn}: pooling_ratio is too large for the input: the "
                                   f"output would be {rows} x {cols}.")
    seeds = (None, None) if not int(seed) else ([int(seed), 0], [int(seed), 1])
    row_seq = pooling_sequence(height, rows, bool(pseudo_random), seeds[0])
    col_seq = pooling_sequence(width, cols, bool(pseudo_random), seeds[1])
    out = pool_with_sequences(x, row_seq, col_seq, overlapping, average)
    return out, row_seq, col_seq


def pool_with_sequences(value, row_pooling_sequence, col_pooling_sequence, overlapping=False,
                        average=False):
    """The fractional pool of `value` over the regions the two sequences bound: region
    `(i, j)` spans rows `[r[i], r[i+1])` and columns `[c[j], c[j+1])` (closed at the upper end
    too when `overlapping`); its maximum, or its mean when `average`."""
    x = convert_to_tensor(value)
    rows_seq = array_math.cast(convert_to_tensor(row_pooling_sequence), _dtypes.int64)
    cols_seq = array_math.cast(convert_to_tensor(col_pooling_sequence), _dtypes.int64)
    _, height, width, _ = x.shape.as_list()
    rows, cols = int(rows_seq.shape[0]) - 1, int(cols_seq.shape[0]) - 1
    positions, real = _windows(rows_seq, height, rows, overlapping)
    x = _pool_axis(x, positions, real, 1, average)
    positions, real = _windows(cols_seq, width, cols, overlapping)
    return _pool_axis(x, positions, real, 2, average)


@export("nn.fractional_max_pool")
def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0,
                        name=None) -> tuple[Tensor, Tensor, Tensor]:
    """Max pooling of `value` (`[batch, height, width, channels]`) by `pooling_ratio` (`[1,
    row ratio, col ratio, 1]`, or one or two ratios, each >= 1): the output is `floor(height
    / row ratio)` x `floor(width / col ratio)`, each value the maximum of a region `k` or `k
    + 1` rows (columns) long. Returns `(output, row_pooling_sequence,
    col_pooling_sequence)`: the regions' boundaries. `overlapping` regions also take their
    upper boundary; `seed` (not 0) makes the regions repeatable (but not TensorFlow's)."""
    return _fractional_pool(value, pooling_ratio, pseudo_random, overlapping, seed,
                            "fractional_max_pool", average=False)


@export("nn.fractional_avg_pool")
def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0,
                        name=None) -> tuple[Tensor, Tensor, Tensor]:
    """As `fractional_max_pool`, each output the mean of its region."""
    return _fractional_pool(value, pooling_ratio, pseudo_random, overlapping, seed,
                            "fractional_avg_pool", average=True)


# -- isotonic regression -------------------------------------------------------------------

IsotonicRegression = collections.namedtuple("IsotonicRegression", ["output", "segments"])

_PROMOTE = {_dtypes.int8: _dtypes.float32, _dtypes.int16: _dtypes.float32,
            _dtypes.uint8: _dtypes.float32, _dtypes.uint16: _dtypes.float32}


def isotonic_segments(row: np.ndarray) -> np.ndarray:
    """The blocks of the non-increasing least-squares fit of `row` (pool adjacent violators:
    a block merges into the one before while its mean is strictly larger)."""
    sums: list[float] = []
    counts: list[int] = []
    for value in row.tolist():
        sums.append(float(value))
        counts.append(1)
        while len(sums) > 1 and sums[-2] / counts[-2] < sums[-1] / counts[-1]:
            s, c = sums.pop(), counts.pop()
            sums[-1] += s
            counts[-1] += c
    return np.repeat(np.arange(len(counts), dtype=np.int32), counts)


def _segments_kernel(rows):
    rows = np.asarray(rows, np.float64)
    out = np.zeros(rows.shape, np.int32)
    for i, row in enumerate(rows):
        out[i] = isotonic_segments(row)
    return out


@export("nn.isotonic_regression")
def isotonic_regression(inputs, decreasing=True, axis=-1) -> IsotonicRegression:
    """The least-squares monotone fit of each vector of `inputs` along `axis`: non-increasing
    when `decreasing` (the default), non-decreasing otherwise. Returns `(output, segments)`:
    the fitted values (integers of 8 or 16 bits become float32, other integers float64) and,
    per element, the index of the block of equal fitted values it belongs to."""
    x = convert_to_tensor(inputs)
    if x.dtype.is_floating:
        out_dtype = x.dtype
    elif x.dtype.is_integer:
        out_dtype = _PROMOTE.get(x.dtype, _dtypes.float64)
    else:
        raise TypeError(f"isotonic_regression: `inputs` must be numbers, got {x.dtype.name}.")
    rank = x.shape.rank
    if rank is None:
        raise ValueError("isotonic_regression needs `inputs` of known rank.")
    if rank == 0:
        raise ValueError("isotonic_regression needs `inputs` of rank >= 1.")
    ax = axis % rank if -rank <= axis < rank else None
    if ax is None:
        raise ValueError(f"isotonic_regression: axis {axis} is out of bounds for rank {rank}.")
    y = array_math.cast(x, out_dtype)
    perm = [d for d in range(rank) if d != ax] + [ax]
    moved = array_math.transpose(y, perm) if ax != rank - 1 else y
    shape = array_math.shape(moved, out_type=_dtypes.int64)
    n = shape[-1]
    lead = array_math.reduce_prod(shape[:-1])  # not -1: a vector may be empty
    rows = array_math.reshape(moved, array_math.stack([lead, n]))
    signed = rows if decreasing else -rows
    segments = numpy_function(_segments_kernel, [signed], TensorSpec([None, None], _dtypes.int32),
                              stateful=False)
    # the fitted value of an element: the mean of its block, composed so gradients flow
    n_rows = lead
    ids = (array_math.cast(segments, _dtypes.int64)
           + array_math.expand_dims(array_math.range(n_rows, dtype=_dtypes.int64) * n, 1))
    flat_ids = array_math.reshape(ids, [-1])
    total = n_rows * n
    sums = _scatter.unsorted_segment_sum(array_math.reshape(rows, [-1]), flat_ids, total)
    counts = _scatter.unsorted_segment_sum(array_math.ones_like(flat_ids, dtype=out_dtype),
                                           flat_ids, total)
    means = sums / array_math.maximum(counts, array_math.ones_like(counts))
    fitted = array_math.reshape(_scatter.gather(means, flat_ids), shape)
    segments = array_math.reshape(segments, array_math.cast(shape, _dtypes.int32))
    if ax != rank - 1:
        inverse = list(np.argsort(perm))
        fitted = array_math.transpose(fitted, inverse)
        segments = array_math.transpose(segments, inverse)
    return IsotonicRegression(fitted, segments)

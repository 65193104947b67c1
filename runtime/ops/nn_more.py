"""More of `tf.nn`: `approx_max_k` / `approx_min_k` (exact here, which their recall target
allows), `batch_norm_with_global_normalization`, `pool`, `collapse_repeated`, `max_pool_with_argmax`,
`dilation2d` / `erosion2d` and `with_space_to_batch`, composed of other ops.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..exports import export
from ..tensor import Tensor
from . import array_composed as _composed
from . import array_math as _math
from . import array_sort as _sort
from . import nn_conv as _conv
from .array_blocks import batch_to_space as _batch_to_space
from .array_blocks import required_space_to_batch_paddings as _rt_paddings
from .array_blocks import space_to_batch_nd as _space_to_batch
from .array_composed import broadcast_to as _broadcast_to
from .array_scatter import gather as _gather
from .array_scatter import tensor_scatter_nd_update as _scatter_update
from .core import convert_to_tensor


def _approx_k(operand, k, reduction_dimension, largest: bool):
    x = convert_to_tensor(operand)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("approx_max_k / approx_min_k need the operand's rank known.")
    axis = reduction_dimension % rank
    perm = [d for d in range(rank) if d != axis] + [axis]
    moved = _math.transpose(x, perm) if axis != rank - 1 else x
    values, indices = _sort.top_k(moved if largest else -moved, k=int(k))
    if not largest:
        values = -values
    if axis != rank - 1:
        back = [0] * rank
        for i, d in enumerate(perm):
            back[d] = i
        values, indices = _math.transpose(values, back), _math.transpose(indices, back)
    return values, indices


@export("math.approx_max_k", "nn.approx_max_k")
def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True,
                 name=None) -> tuple[Tensor, Tensor]:
    """The `k` largest values along `reduction_dimension` and their indices, largest first.
    TensorFlow's TPU kernel may return approximate results within `recall_target`; these are
    exact."""
    return _approx_k(operand, k, reduction_dimension, True)


@export("math.approx_min_k", "nn.approx_min_k")
def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True,
                 name=None) -> tuple[Tensor, Tensor]:
    """The `k` smallest values along `reduction_dimension` and their indices, smallest first
    (exact)."""
    return _approx_k(operand, k, reduction_dimension, False)


@export("nn.batch_norm_with_global_normalization")
def batch_norm_with_global_normalization(input=None, mean=None, variance=None, beta=None,  # noqa: A002
                                         gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None,
                                         name=None) -> Tensor:
    """`(input - mean) / sqrt(variance + variance_epsilon)`, times `gamma` when
    `scale_after_normalization`, plus `beta`."""
    x = convert_to_tensor(input)
    scale = _math.rsqrt(convert_to_tensor(variance, x.dtype) + variance_epsilon)
    if scale_after_normalization:
        scale = scale * convert_to_tensor(gamma, x.dtype)
    return x * scale + (convert_to_tensor(beta, x.dtype) - convert_to_tensor(mean, x.dtype) * scale)


@export("nn.pool")
def pool(input, window_shape, pooling_type, strides=None, padding="VALID",  # noqa: A002
         data_format=None, dilations=None, name=None) -> Tensor:
    """Average (`pooling_type='AVG'`) or max (`'MAX'`) pooling over windows of
    `window_shape` (1-D or 2-D, channels last), moved by `strides` (default 1)."""
    if pooling_type not in ("AVG", "MAX"):
        raise ValueError(f"pool: pooling_type must be 'AVG' or 'MAX', got {pooling_type!r}.")
    window = [int(w) for w in window_shape]
    if dilations is not None and any(int(d) != 1 for d in dilations):
        raise NotImplementedError("pool: dilations other than 1 are not offered.")
    step = [1] * len(window) if strides is None else [int(s) for s in strides]
    fn = _conv.avg_pool if pooling_type == "AVG" else _conv.max_pool
    return fn(input, window, step, padding, data_format=data_format)


@export("nn.collapse_repeated")
def collapse_repeated(labels, seq_length, name=None) -> tuple[Tensor, Tensor]:
    """Merges runs of a repeated label in each row's first `seq_length` labels: `(collapsed,
    new_seq_length)`, the rows padded with 0 to the longest new length."""
    labels = convert_to_tensor(labels)
    seq_length = _math.cast(convert_to_tensor(seq_length), labels.dtype)
    width = _math.shape(labels)[1]
    position = _math.range(width)
    valid = _math.less(_math.cast(position, labels.dtype)[None, :], seq_length[:, None])
    changed = _math.not_equal(labels[:, 1:], labels[:, :-1])
    first = _math.fill(_math.stack([_math.shape(labels)[0], 1]), True)
    keep = _math.logical_and(_math.concat([first, changed], 1), valid)
    slot = _math.cumsum(_math.cast(keep, _dtypes.int64), axis=1) - 1
    new_length = _math.reduce_sum(_math.cast(keep, labels.dtype), axis=1)
    rows = _broadcast_to(_math.range(_math.shape(labels)[0], dtype=_dtypes.int64)[:, None],
                              _math.shape(slot))
    where = _math.boolean_mask(_math.stack([rows, slot], -1), keep)
    out = _math.zeros(_math.stack([_math.shape(labels)[0],
                                   _math.cast(_math.reduce_max(new_length), _dtypes.int32)]),
                      labels.dtype)
    return _scatter_update(out, where, _math.boolean_mask(labels, keep)), \
        _math.cast(new_length, seq_length.dtype)


def _geometry(fn, sizes, kernel, strides, rates, padding):
    """Per spatial axis (output size, padding before, padding after), as TensorFlow's
    'SAME' (output ceil(size / stride), the extra padding after) or 'VALID' computes them for
    a window of `kernel` taps `rates` apart."""
    out = []
    for size, k, s, r in zip(sizes, kernel, strides, rates):
        span = (k - 1) * r + 1
        if _conv._padding(padding, fn) == "VALID":
            n, total = (size - span) // s + 1, 0
        else:
            n = -(-size // s)
            total = max((n - 1) * s + span - size, 0)
        if n < 1:
            raise ValueError(f"{fn}: the window {list(kernel)} (dilated {span}) is larger than "
                             f"the input {list(sizes)}.")
        out.append((n, total // 2, total - total // 2))
    return out


def _taps(padded, outs, kernel, strides, rates):
    """The window taps of an NHWC tensor stacked on a last axis: [N, oh, ow, C, kh * kw], in
    row-major window order."""
    (oh, ow), (kh, kw), (sh, sw), (rh, rw) = outs, kernel, strides, rates
    return _math.stack([padded[:, dy * rh:dy * rh + (oh - 1) * sh + 1:sh,
                               dx * rw:dx * rw + (ow - 1) * sw + 1:sw, :]
                        for dy in range(kh) for dx in range(kw)], axis=-1)


@export("nn.max_pool_with_argmax")
def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         output_dtype=_dtypes.int64, include_batch_in_index=False,
                         name=None) -> tuple[Tensor, Tensor]:
    """`max_pool2d` of an NHWC `input` and where each maximum was: its flat index
    `(y * width + x) * channels + c` (plus `b * height * width * channels` with
    `include_batch_in_index`), the first of equal values in the window's row-major order.
    Differentiable in `input` (to the chosen element)."""
    fn = "max_pool_with_argmax"
    if data_format != "NHWC":
        raise ValueError(f"{fn}: only data_format='NHWC' is supported, got {data_format!r}.")
    x = convert_to_tensor(input)
    dims = x.shape.as_tuple()
    if dims is None or len(dims) != 4 or None in dims[1:]:
        raise ValueError(f"{fn}: `input` must be 4-D [batch, height, width, channels] with its "
                         f"height, width and channels known, got shape {x.shape}.")
    output_dtype = _dtypes.as_dtype(output_dtype)
    if output_dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"{fn}: `output_dtype` must be int32 or int64, got {output_dtype.name}.")
    (kh, kw), (sh, sw) = (_conv._pair(ksize, fn, "ksize"), _conv._pair(strides, fn, "strides"))
    _, h, w, c = dims
    (oh, top, bottom), (ow, left, right) = _geometry(fn, (h, w), (kh, kw), (sh, sw), (1, 1),
                                                     padding)
    spatial = [[0, 0], [top, bottom], [left, right], [0, 0]]
    low = float("-inf") if x.dtype.is_floating else int(x.dtype.min)
    padded = _composed.pad(x, spatial, constant_values=low)
    where = _math.reshape(_math.range(h * w * c, dtype=_dtypes.int64), [1, h, w, c])
    if include_batch_in_index:
        batch = _math.shape(x, out_type=_dtypes.int64)[0]
        where = where + _math.reshape(_math.range(batch, dtype=_dtypes.int64) * (h * w * c),
                                      [-1, 1, 1, 1])
    where = _composed.pad(where, spatial, constant_values=-1)

    values = _taps(padded, (oh, ow), (kh, kw), (sh, sw), (1, 1))
    best = _math.argmax(values, axis=-1)[..., None]
    indices = _taps(_broadcast_to(where, _math.shape(padded)), (oh, ow), (kh, kw), (sh, sw),
                    (1, 1))
    output = _gather(values, best, batch_dims=4)[..., 0]
    argmax = _gather(indices, best, batch_dims=4)[..., 0]
    return output, _math.cast(argmax, output_dtype)


def _four(value, fn, what):
    values = [int(v) for v in value]
    if len(values) != 4 or values[0] != 1 or values[3] != 1 or min(values) < 1:
        raise ValueError(f"{fn}: `{what}` must be 4 positive ints [1, h, w, 1], got {value!r}.")
    return values[1], values[2]


@export("nn.dilation2d")
def dilation2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
               name=None) -> Tensor:
    """Grayscale morphological dilation of an NHWC `input` by `filters` [kh, kw, channels]:
    the maximum over each window of input + filter, taps `dilations` apart, windows
    `strides` apart (both [1, h, w, 1]). Differentiable in both (at the maximum)."""
    fn = "dilation2d"
    if data_format != "NHWC":
        raise ValueError(f"{fn}: only data_format='NHWC' is supported, got {data_format!r}.")
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype=x.dtype)
    dims, fdims = x.shape.as_tuple(), f.shape.as_tuple()
    if dims is None or len(dims) != 4 or None in dims[1:3]:
        raise ValueError(f"{fn}: `input` must be 4-D NHWC with its height and width known, got "
                         f"shape {x.shape}.")
    if fdims is None or len(fdims) != 3 or None in fdims:
        raise ValueError(f"{fn}: `filters` must be 3-D [height, width, channels], got shape "
                         f"{f.shape}.")
    sh, sw = _four(strides, fn, "strides")
    rh, rw = _four([1, 1, 1, 1] if dilations is None else dilations, fn, "dilations")
    kh, kw = fdims[:2]
    (oh, top, bottom), (ow, left, right) = _geometry(fn, dims[1:3], (kh, kw), (sh, sw),
                                                     (rh, rw), padding)
    low = float("-inf") if x.dtype.is_floating else int(x.dtype.min)
    padded = _composed.pad(x, [[0, 0], [top, bottom], [left, right], [0, 0]],
                           constant_values=low)
    values = _taps(padded, (oh, ow), (kh, kw), (sh, sw), (rh, rw)) + \
        _math.transpose(_math.reshape(f, [kh * kw, -1]), [1, 0])
    best = _math.argmax(values, axis=-1)[..., None]
    return _gather(values, best, batch_dims=4)[..., 0]


@export("nn.erosion2d")
def erosion2d(value, filters, strides, padding, data_format="NHWC", dilations=None,
              name=None) -> Tensor:
    """Grayscale morphological erosion: the minimum over each window of value - filter (the
    filter reflected), `-dilation2d(-value, reverse(filters, [0, 1]))`."""
    f = convert_to_tensor(filters)
    return -dilation2d(-convert_to_tensor(value), _math.reverse(f, [0, 1]), strides, padding,
                       data_format, dilations)


@export("nn.with_space_to_batch")
def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None,  # noqa: A002
                        spatial_dims=None, data_format=None) -> Tensor:
    """`op(converted, num_spatial_dims, "VALID")` on `input` rearranged by
    `space_to_batch_nd` with block `dilation_rate` (padded for `padding`: "SAME" needs
    `filter_shape`), rearranged back by `batch_to_space_nd`: an `op` of stride 1 then runs
    with its taps `dilation_rate` apart (atrous). With every rate 1, `op(input,
    num_spatial_dims, padding)`. Channels-last layouts only."""
    fn = "with_space_to_batch"
    if data_format is not None and data_format.startswith("NC"):
        raise ValueError(f"{fn}: only channels-last data formats are supported, got "
                         f"{data_format!r}.")
    x = convert_to_tensor(input)
    rates = [int(r) for r in np.atleast_1d(np.asarray(dilation_rate))]
    n = len(rates)
    dims = list(range(1, n + 1)) if spatial_dims is None else [int(d) for d in spatial_dims]
    if dims != list(range(1, n + 1)):
        raise ValueError(f"{fn}: `spatial_dims` must be the axes right after the batch axis "
                         f"({list(range(1, n + 1))}), got {dims}.")
    if min(rates) < 1:
        raise ValueError(f"{fn}: `dilation_rate` must be positive, got {rates}.")
    mode = _conv._padding(padding, fn)
    if all(r == 1 for r in rates):
        return op(x, n, mode)
    if mode == "SAME":
        if filter_shape is None:
            raise ValueError(f"{fn}: `filter_shape` must be given with padding='SAME'.")
        spans = [(int(f) - 1) * r for f, r in zip(filter_shape, rates)]
        base = [[s // 2, s - s // 2] for s in spans]
    else:
        base = [[0, 0]] * n
    spatial = x.shape.as_tuple()
    if spatial is None or None in spatial[1:n + 1]:
        sizes = _math.shape(x)[1:n + 1]
    else:
        sizes = list(spatial[1:n + 1])
    paddings, crops = _rt_paddings(sizes, rates, base)
    converted = _space_to_batch(x, rates, paddings)
    return _batch_to_space(op(converted, n, "VALID"), rates, crops)

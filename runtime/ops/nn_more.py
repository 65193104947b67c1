"""More of `tf.nn`: `approx_max_k` / `approx_min_k` (exact here, which their recall target
allows), `batch_norm_with_global_normalization`, `pool` and `collapse_repeated`, composed of
other ops.
"""

from __future__ import annotations

from .. import dtypes as _dtypes
from ..exports import export
from ..tensor import Tensor
from . import array_math as _math
from . import array_sort as _sort
from . import nn_conv as _conv
from .array_composed import broadcast_to as _broadcast_to
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

"""The neural-network functions of `keras.ops` (and `keras.ops.nn`) with Keras 3's signatures:
activations (the same functions as `keras.activations`), pooling and convolutions on
channels-last data, normalisations, cross-entropies on probabilities or logits, one-hot and
multi-hot encodings, and dot-product attention.
"""

from __future__ import annotations

import math as _pymath

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import check_keywords
from ..ops import array_math as _am
from ..ops.sparse import SparseTensor
from ..tensor import Tensor
from . import activations as _act
from .ops_core import norm
from .ops_numpy import _float, _math, _rank, _rt, _Space, _t

_nn, _sparse = _Space("nn"), _Space("sparse")
_EPSILON = 1e-7

# -- activations: keras.activations' functions, and those whose argument rt.nn names
# `features` under Keras's name `x`

celu, glu, hard_shrink, hard_sigmoid = _act.celu, _act.glu, _act.hard_shrink, _act.hard_sigmoid
hard_silu, hard_swish, hard_tanh, silu = _act.hard_silu, _act.hard_swish, _act.hard_tanh, _act.silu
soft_shrink, sparse_plus, sparse_sigmoid = _act.soft_shrink, _act.sparse_plus, _act.sparse_sigmoid
sparsemax, squareplus, swish, tanh_shrink = _act.sparsemax, _act.squareplus, _act.swish, \
    _act.tanh_shrink
threshold = _act.threshold


def log_sigmoid(x):
    """log(sigmoid(x)), computed stably."""
    return _act.log_sigmoid(_float(x))


def relu6(x):
    """min(max(x, 0), 6)."""
    return _act.relu6(_float(x))


def selu(x):
    """The scaled exponential linear unit."""
    return _act.selu(_float(x))


def softsign(x):
    """x / (1 + |x|)."""
    return _act.softsign(_float(x))


# -- pooling and convolution (channels_last) ------------------------------------------------

def _channels_last(data_format, what: str) -> None:
    if data_format not in (None, "channels_last"):
        raise ValueError(f"keras.ops.{what}(data_format={data_format!r}): only channels_last "
                         "data is offered (the runtime's image_data_format).")


def _padding(padding, what: str) -> str:
    if str(padding).lower() not in ("valid", "same"):
        raise ValueError(f"keras.ops.{what}(padding={padding!r}): expected 'valid' or 'same'.")
    return str(padding).upper()


def _spatial(x: Tensor, what: str) -> int:
    rank = _rank(x, what)
    if rank not in (3, 4):
        raise ValueError(f"keras.ops.{what} takes 3-D [batch, length, channels] or 4-D "
                         f"[batch, height, width, channels] inputs here, got rank {rank}.")
    return rank - 2


def _tuple(value, n: int) -> list[int]:
    return [int(value)] * n if np.ndim(value) == 0 else [int(v) for v in value]


def _pool(kind, inputs, pool_size, strides, padding, data_format, what):
    _channels_last(data_format, what)
    x = _float(inputs)
    n = _spatial(x, what)
    size = _tuple(pool_size, n)
    step = size if strides is None else _tuple(strides, n)
    return kind(x, size, step, _padding(padding, what))


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """The maximum of each `pool_size` window, windows `strides` apart (pool_size by
    default)."""
    return _pool(_nn.max_pool, inputs, pool_size, strides, padding, data_format, "max_pool")


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """The mean of each `pool_size` window (with "same", of the window's elements inside
    the input)."""
    return _pool(_nn.avg_pool, inputs, pool_size, strides, padding, data_format,
                 "average_pool")


def _adaptive(inputs, output_size, data_format, reduce, what):
    _channels_last(data_format, what)
    x = _float(inputs)
    n = _spatial(x, what)
    out = _tuple(output_size, n)
    dims = x.shape.as_list()[1:1 + n]
    if None in dims:
        raise ValueError(f"keras.ops.{what} needs the spatial size known, got {x.shape}.")

    def bins(length, count):  # PyTorch's: [floor(i L / n), ceil((i + 1) L / n))
        return [(i * length // count, -(-(i + 1) * length // count)) for i in range(count)]

    result = x
    for axis, (length, count) in enumerate(zip(dims, out), start=1):
        parts = [reduce(_rt.gather(result, list(range(a, b)), axis=axis), axis=axis,
                        keepdims=True) for a, b in bins(length, count)]
        result = _rt.concat(parts, axis=axis)
    return result


def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling into `output_size` bins per spatial axis (bin i covers
    [floor(i L / n), ceil((i + 1) L / n)), as PyTorch's)."""
    return _adaptive(inputs, output_size, data_format, _am.reduce_mean, "adaptive_average_pool")


def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling into `output_size` bins per spatial axis (bins as adaptive_average_pool)."""
    return _adaptive(inputs, output_size, data_format, _am.reduce_max, "adaptive_max_pool")


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """The N-D convolution of channels-last `inputs` with `kernel` [spatial..., in, out]."""
    _channels_last(data_format, "conv")
    x = _float(inputs)
    n = _spatial(x, "conv")
    k = _am.cast(_t(kernel), x.dtype)
    return _nn.convolution(x, k, strides=_tuple(strides, n), padding=_padding(padding, "conv"),
                           dilations=_tuple(dilation_rate, n))


def _transpose_length(length, k, stride, padding, output_padding, dilation):
    k = (k - 1) * dilation + 1
    if output_padding is None:
        return length * stride + max(k - stride, 0) if padding == "VALID" else length * stride
    pad = 0 if padding == "VALID" else k // 2
    return (length - 1) * stride + k - 2 * pad + output_padding


def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    """The transposed convolution of channels-last `inputs` with `kernel`
    [spatial..., out, in]; the output length per axis is Keras's (`output_padding` adds to
    it)."""
    _channels_last(data_format, "conv_transpose")
    x = _float(inputs)
    n = _spatial(x, "conv_transpose")
    k = _am.cast(_t(kernel), x.dtype)
    pad = _padding(padding, "conv_transpose")
    step, rate = _tuple(strides, n), _tuple(dilation_rate, n)
    extra = [None] * n if output_padding is None else _tuple(output_padding, n)
    dims = x.shape.as_list()
    spatial = [_transpose_length(dims[1 + i], int(k.shape[i]), step[i], pad, extra[i], rate[i])
               for i in range(n)]
    shape = _rt.concat([_am.shape(x)[:1], np.array(spatial + [int(k.shape[-2])], np.int32)], 0)
    return _nn.conv_transpose(x, k, shape, step, padding=pad, dilations=rate)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    """Each input channel convolved with its own filters (`kernel` [spatial..., in,
    multiplier]); 1-D inputs run as 2-D of height 1."""
    _channels_last(data_format, "depthwise_conv")
    x = _float(inputs)
    n = _spatial(x, "depthwise_conv")
    k = _am.cast(_t(kernel), x.dtype)
    pad = _padding(padding, "depthwise_conv")
    if n == 1:
        out = _nn.depthwise_conv2d(_am.expand_dims(x, 1), _am.expand_dims(k, 0),
                                   [1, 1, int(_tuple(strides, 1)[0]), 1], pad,
                                   dilations=[1, _tuple(dilation_rate, 1)[0]])
        return _rt.squeeze(out, axis=1)
    s = _tuple(strides, 2)
    return _nn.depthwise_conv2d(x, k, [1, s[0], s[1], 1], pad,
                                dilations=_tuple(dilation_rate, 2))


def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    """depthwise_conv with `depthwise_kernel`, then a 1x1 conv with `pointwise_kernel`."""
    deep = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format,
                          dilation_rate)
    return conv(deep, pointwise_kernel, 1, "valid", data_format, 1)


def depth_to_space(x, block_size, data_format="channels_last"):
    """Channels moved into `block_size` x `block_size` spatial blocks (channels_last)."""
    _channels_last(data_format, "depth_to_space")
    return _nn.depth_to_space(_t(x), block_size)


def space_to_depth(x, block_size, data_format="channels_last"):
    """`block_size` x `block_size` spatial blocks moved into channels (channels_last)."""
    _channels_last(data_format, "space_to_depth")
    return _nn.space_to_depth(_t(x), block_size)


# -- normalisation ------------------------------------------------------------------------

def _along(v, axis: int, rank: int, dtype):
    shape = [1] * rank
    shape[axis] = -1
    return _am.reshape(_am.cast(_t(v), dtype), shape)


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, the statistics given along
    `axis`."""
    t = _float(x)
    rank = _rank(t, "batch_normalization")
    ax = int(axis) % rank
    out = _am.multiply(_am.subtract(t, _along(mean, ax, rank, t.dtype)),
                       _math.rsqrt(_am.add(_along(variance, ax, rank, t.dtype), epsilon)))
    if scale is not None:
        out = _am.multiply(out, _along(scale, ax, rank, t.dtype))
    if offset is not None:
        out = _am.add(out, _along(offset, ax, rank, t.dtype))
    return out


def moments(x, axes, keepdims=False, synchronized=False):
    """(mean, variance) of `x` over `axes` (one device: `synchronized` changes nothing)."""
    t = _float(x)
    mean, variance = _nn.moments(t, axes=list(axes) if np.ndim(axes) else [int(axes)],
                                 keepdims=keepdims)
    return mean, variance


def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, rms_scaling=False):
    """`x` normalised to zero mean and unit variance over `axis`, times `gamma` plus `beta`
    (epsilon 1e-7 by default)."""
    t = _float(x)
    eps = _EPSILON if epsilon is None else float(epsilon)
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    if rms_scaling:
        return rms_normalization(t, gamma, axes, eps)
    mean, variance = _nn.moments(t, axes=axes, keepdims=True)
    out = _am.multiply(_am.subtract(t, mean), _math.rsqrt(_am.add(variance, eps)))
    if gamma is not None:
        out = _am.multiply(out, _am.cast(_t(gamma), t.dtype))
    if beta is not None:
        out = _am.add(out, _am.cast(_t(beta), t.dtype))
    return out


def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """`x` divided by its root mean square over `axis` (plus epsilon, 1e-7 by default),
    times `scale`."""
    t = _float(x)
    eps = _EPSILON if epsilon is None else float(epsilon)
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    mean_square = _am.reduce_mean(_am.square(t), axis=axes, keepdims=True)
    out = _am.multiply(t, _math.rsqrt(_am.add(mean_square, eps)))
    return out if scale is None else _am.multiply(out, _am.cast(_t(scale), t.dtype))


def normalize(x, axis=-1, order=2, epsilon=None):
    """`x` divided by its `order`-norm over `axis` (at least epsilon, 1e-7 by default)."""
    t = _float(x)
    eps = _EPSILON if epsilon is None else float(epsilon)
    size = norm(t, ord=order, axis=axis, keepdims=True)
    return _am.divide(t, _am.maximum(size, _am.cast(eps, t.dtype)))


# -- losses as ops (one value per element / per sample) --------------------------------------

def _pair(target, output):
    out = _float(output)
    return _am.cast(_t(target), out.dtype), out


def binary_crossentropy(target, output, from_logits=False):
    """The elementwise binary cross-entropy of `target` and the probabilities `output`
    (clipped to [1e-7, 1 - 1e-7]) or logits."""
    y, p = _pair(target, output)
    if from_logits:
        return _nn.sigmoid_cross_entropy_with_logits(labels=y, logits=p)
    p = _am.clip_by_value(p, _EPSILON, 1.0 - _EPSILON)
    return _am.negative(_am.add(_am.multiply(y, _am.log(p)),
                                _am.multiply(_am.subtract(1.0, y), _am.log(_am.subtract(1.0, p)))))


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """The cross-entropy over `axis` of one-hot `target` and `output` (probabilities,
    rescaled to sum to 1 and clipped, or logits)."""
    y, p = _pair(target, output)
    if from_logits:
        log_p = _math.log_softmax(p, axis=axis)
    else:
        p = _am.divide(p, _am.reduce_sum(p, axis=axis, keepdims=True))
        log_p = _am.log(_am.clip_by_value(p, _EPSILON, 1.0 - _EPSILON))
    return _am.negative(_am.reduce_sum(_am.multiply(y, log_p), axis=axis))


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """categorical_crossentropy with integer class ids as `target`."""
    p = _float(output)
    depth = p.shape[axis]
    labels = _am.cast(_t(target), _dtypes.int32)
    rank = _rank(p, "sparse_categorical_crossentropy")
    if labels.shape.rank == rank:  # [..., 1] ids
        labels = _rt.squeeze(labels, axis=axis)
    hot = _rt.one_hot(labels, depth, axis=axis, dtype=p.dtype)
    return categorical_crossentropy(hot, p, from_logits=from_logits, axis=axis)


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """One-hot vectors of length `num_classes` (float32 by default) for the class ids `x`."""
    if sparse:
        raise ValueError("keras.ops.one_hot(sparse=True): sparse outputs are not offered.")
    return _rt.one_hot(_am.cast(_t(x), _dtypes.int32), int(num_classes), axis=axis,
                       dtype=dtype or _dtypes.float32)


def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """For each sample (row of `inputs`), 1 at each class id it holds; a 1-D input is one
    sample."""
    check_keywords("keras.ops.multi_hot", kwargs, {"num_tokens"})
    if num_classes is None:
        num_classes = kwargs.get("num_tokens")
    if num_classes is None:
        raise ValueError("keras.ops.multi_hot needs num_classes.")
    if sparse:
        raise ValueError("keras.ops.multi_hot(sparse=True): sparse outputs are not offered.")
    ids = _am.cast(_t(inputs), _dtypes.int32)
    hot = one_hot(ids, num_classes, axis=-1, dtype=dtype or _dtypes.float32)
    out = _am.reduce_max(hot, axis=-2)
    if axis != -1 and out.shape.rank:
        rank = out.shape.rank
        perm = list(range(rank - 1))
        perm.insert(axis % rank, rank - 1)
        out = _rt.transpose(out, perm)
    return out


def polar(abs_, angle):
    """The complex numbers abs_ * (cos(angle) + 1j sin(angle))."""
    r = _float(abs_)
    theta = _am.cast(_t(angle), r.dtype)
    return _rt.complex(_am.multiply(r, _am.cos(theta)), _am.multiply(r, _am.sin(theta)))


def psnr(x1, x2, max_val):
    """The peak signal-to-noise ratio of `x1` against `x2`: 20 log10(max_val) - 10
    log10(mean squared error), over all elements."""
    a = _float(x1)
    b = _am.cast(_t(x2), a.dtype)
    mse = _am.reduce_mean(_am.square(_am.subtract(a, b)))
    ln10 = _pymath.log(10.0)
    peak = _am.divide(_am.log(_am.cast(max_val, a.dtype)), ln10)
    return _am.subtract(_am.multiply(peak, 20.0), _am.multiply(_am.divide(_am.log(mse), ln10),
                                                               10.0))


def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    """softmax(query @ key^T * scale + bias, masked) @ value for [batch, length, heads,
    head_dim] tensors (scale: 1 / sqrt(head_dim)); key and value may have fewer heads that
    divide the query's (grouped-query attention). `mask` (broadcast to [batch, heads, T, S])
    keeps True positions; `is_causal` keeps each query's past."""
    if flash_attention:
        raise ValueError("keras.ops.dot_product_attention(flash_attention=True): flash "
                         "attention is a GPU kernel; pass None or False.")
    q = _float(query)
    k = _am.cast(_t(key), q.dtype)
    v = _am.cast(_t(value), q.dtype)
    heads, kv_heads = q.shape[2], k.shape[2]
    if heads is not None and kv_heads is not None and heads != kv_heads:
        if heads % kv_heads:
            raise ValueError(f"keras.ops.dot_product_attention: the query's {heads} heads are "
                             f"not a multiple of the key's {kv_heads}.")
        k = _rt.repeat(k, heads // kv_heads, axis=2)
        v = _rt.repeat(v, heads // kv_heads, axis=2)
    depth = q.shape[-1]
    factor = 1.0 / _pymath.sqrt(depth) if scale is None else float(scale)
    logits = _am.multiply(_rt.einsum("btnh,bsnh->bnts", q, k), factor)
    if attn_logits_soft_cap is not None:
        cap = float(attn_logits_soft_cap)
        logits = _am.multiply(_am.tanh(_am.divide(logits, cap)), cap)
    if bias is not None:
        logits = _am.add(logits, _am.cast(_t(bias), q.dtype))
    keep = None
    if mask is not None:
        keep = _am.cast(_t(mask), _dtypes.bool_)
    if is_causal:
        t_len, s_len = q.shape[1], k.shape[1]
        causal = np.tril(np.ones((t_len, s_len), bool))
        keep = causal if keep is None else _am.logical_and(keep, causal)
    if keep is not None:
        low = _am.fill(_am.shape(logits), _am.cast(np.finfo(np.float32).min, q.dtype))
        logits = _am.where(_am.logical_or(keep, _am.zeros_like(logits, dtype=_dtypes.bool_)),
                           logits, low)
    weights = _math.softmax(logits, axis=-1)
    return _rt.einsum("bnts,bsnh->btnh", weights, v)


def _window_index(size: int, kernel: int, dilation: int, padding: int, stride: int):
    out = (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1
    return out, (np.arange(out)[None, :] * stride + np.arange(kernel)[:, None] * dilation)


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """PyTorch's unfold of a channels-first [N, C, H, W] `x`: every `kernel_size` patch as a
    column, [N, C * kh * kw, L]."""
    t = _t(x)
    if _rank(t, "unfold") != 4:
        raise ValueError(f"keras.ops.unfold takes [N, C, H, W] inputs, got rank {t.shape.rank}.")
    kh, kw = _tuple(kernel_size, 2)
    dh, dw = _tuple(dilation, 2)
    ph, pw = _tuple(padding, 2)
    sh, sw = _tuple(stride, 2)
    _, c, h, w = t.shape.as_list()
    oh, rows = _window_index(h, kh, dh, ph, sh)          # [kh, oh]
    ow, cols = _window_index(w, kw, dw, pw, sw)          # [kw, ow]
    padded = _rt.pad(t, [[0, 0], [0, 0], [ph, ph], [pw, pw]])
    flat_index = (rows[:, None, :, None] * (w + 2 * pw) + cols[None, :, None, :])  # kh kw oh ow
    flat = _am.reshape(padded, _rt.concat([_am.shape(t)[:2], [-1]], 0))
    patches = _rt.gather(flat, flat_index.reshape(-1), axis=2)   # [N, C, kh*kw*oh*ow]
    return _am.reshape(patches, _rt.concat([_am.shape(t)[:1], [c * kh * kw, oh * ow]], 0))


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """PyTorch's fold, unfold's adjoint: the columns of [N, C * kh * kw, L] summed back into
    [N, C, H, W] (overlapping positions add)."""
    t = _t(x)
    h, w = _tuple(output_size, 2)
    kh, kw = _tuple(kernel_size, 2)
    dh, dw = _tuple(dilation, 2)
    ph, pw = _tuple(padding, 2)
    sh, sw = _tuple(stride, 2)
    oh, rows = _window_index(h, kh, dh, ph, sh)
    ow, cols = _window_index(w, kw, dw, pw, sw)
    c = int(t.shape[1]) // (kh * kw)
    pw_full = w + 2 * pw
    flat_index = (rows[:, None, :, None] * pw_full + cols[None, :, None, :]).reshape(-1)
    n = _am.shape(t)[0]
    values = _am.reshape(t, _rt.concat([[n, c], [-1]], 0))             # [N, C, kh*kw*oh*ow]
    moved = _rt.transpose(values, [2, 0, 1])                           # positions first
    total = (h + 2 * ph) * pw_full
    summed = _math.unsorted_segment_sum(moved, flat_index, total)      # [total, N, C]
    image = _am.reshape(_rt.transpose(summed, [1, 2, 0]),
                        _rt.concat([[n, c], [h + 2 * ph, pw_full]], 0))
    return image[:, :, ph:ph + h, pw:pw + w]


_nn, _sparse = _Space("nn"), _Space("sparse")


def _ctc_float(x, fn: str):
    """Keras's float type of `x` (float32 for integers) and the type computed in (float32
    for float64: TensorFlow's dense CTC loss computes in float32)."""
    x = _t(x)
    result = x.dtype if x.dtype.is_floating else _dtypes.float32
    return x, result, (_dtypes.float32 if result == _dtypes.float64 else result)


def ctc_loss(target, output, target_length, output_length, mask_index=0) -> Tensor:
    """The CTC loss of each sample, [batch]: integer labels `target` [batch, max_length] of
    `target_length`, logits `output` [batch, max_time, classes] over `output_length` frames,
    the blank class `mask_index`."""
    output, result, compute = _ctc_float(output, "ctc_loss")
    loss = _nn.ctc_loss(labels=_am.cast(_t(target), _dtypes.int32),
                        logits=_am.cast(output, compute), label_length=target_length,
                        logit_length=output_length, blank_index=mask_index,
                        logits_time_major=False)
    return _am.cast(loss, result)


def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0) -> tuple[Tensor, Tensor]:
    """Decodes logits `inputs` [batch, max_time, classes] (not softmax-normalized):
    `strategy="greedy"` (best path, repeats merged with `merge_repeated`) or `"beam_search"`
    (`beam_width`, the `top_paths` best). Returns (decoded [paths, batch, max_time] int32,
    -1 after each sequence, scores: [batch, 1] minus the summed best logits for greedy, [batch,
    top_paths] log probabilities for beam search); `mask_index` is the blank class."""
    x, result, _ = _ctc_float(inputs, "ctc_decode")
    x = _am.transpose(_am.cast(x, result), [1, 0, 2])
    lengths = _am.cast(_t(sequence_lengths), _dtypes.int32)
    if strategy == "greedy":
        decoded, scores = _nn.ctc_greedy_decoder(x, lengths, merge_repeated=merge_repeated,
                                                 blank_index=mask_index)
    elif strategy == "beam_search":
        classes = int(x.shape[2])
        if mask_index is not None:
            blank = int(mask_index) % classes
            x = _am.concat([x[..., :blank], x[..., blank + 1:], x[..., blank:blank + 1]], -1)
        decoded, scores = _nn.ctc_beam_search_decoder(x, lengths, beam_width=beam_width,
                                                      top_paths=top_paths)
    else:
        raise ValueError(f"Invalid strategy {strategy}. Supported values are 'greedy' and "
                         f"'beam_search'.")
    shape = _am.cast(_am.shape(x)[1::-1], _dtypes.int64)
    dense = _am.stack([_sparse.to_dense(SparseTensor(d.indices, d.values, shape),
                                        default_value=-1) for d in decoded], 0)
    dense = _am.cast(dense, _dtypes.int32)
    if strategy == "beam_search" and mask_index is not None:
        dense = _am.where(dense >= blank, dense + 1, dense)
    return dense, scores

__all__ = [
    "adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization",
    "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
    "ctc_decode", "ctc_loss",
    "depth_to_space", "depthwise_conv", "dot_product_attention", "fold", "glu", "hard_shrink",
    "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "layer_normalization",
    "log_sigmoid", "max_pool", "moments", "multi_hot", "normalize", "one_hot", "polar", "psnr",
    "relu6", "rms_normalization", "selu", "separable_conv", "silu", "soft_shrink", "softsign",
    "space_to_depth", "sparse_categorical_crossentropy", "sparse_plus", "sparse_sigmoid",
    "sparsemax", "squareplus", "swish", "tanh_shrink", "threshold", "unfold"]

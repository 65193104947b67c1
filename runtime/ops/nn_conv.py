"""Convolution and pooling ops (NHWC), and the normalisation helpers composed from other ops.

Ops: Conv2D with Conv2DBackpropInput / Conv2DBackpropFilter, MaxPool with MaxPoolGrad,
AvgPool with AvgPoolGrad. Their NumPy kernels are in `conv_kernels` (each convolution
matrix products over im2col blocks of the windows that stay in cache; pools over strided
views, one pass a window tap). conv1d, the 1-D pools, moments,
batch_normalization and embedding_lookup are composed from ops, so their gradients come with
the ops they use.
"""

from __future__ import annotations

import numpy as np

from ..attr_kinds import INTS, PADDING
from ..exports import export
from ..graph import constant_value
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math, conv_kernels
from .array_composed import clip_by_norm as _clip_by_norm
from .array_composed import pad as _composed_pad
from .core import apply, convert_to_tensor

# -- argument checking -----------------------------------------------------------------------


def _padding(padding, fn: str) -> str:
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"{fn}: `padding` must be 'SAME' or 'VALID', got {padding!r} "
                         "(explicit paddings: pad the input with rt.pad first).")
    return padding.upper()


def _data_format(data_format, fn: str, expected: str) -> None:
    if data_format is None or data_format == expected:
        return
    if data_format in ("NCHW", "NCW", "NCDHW"):
        raise NotImplementedError(
            f"{fn}: data_format={data_format!r} is not supported, only {expected!r} "
            "(channels last); transpose the input to channels last first.")
    raise ValueError(f"{fn}: `data_format` must be {expected!r}, got {data_format!r}.")


def _pair(value, fn: str, what: str, rank: int = 2) -> tuple[int, ...]:
    """An int, `rank` ints, or `rank + 2` ints with 1 for the batch and channel axes, as a
    tuple of `rank` positive ints."""
    if value is None:
        return (1,) * rank
    if isinstance(value, (int, np.integer)):
        items = (int(value),) * rank
    else:
        try:
            items = tuple(int(v) for v in value)
        except TypeError:
            raise TypeError(f"{fn}: `{what}` must be an int or a list of ints, got "
                            f"{value!r}.") from None
        if len(items) == 1:
            items = items * rank
        elif len(items) == rank + 2:
            if items[0] != 1 or items[-1] != 1:
                raise ValueError(f"{fn}: `{what}` over the batch and channel axes must be 1, "
                                 f"got {list(items)}.")
            items = items[1:-1]
        elif len(items) != rank:
            raise ValueError(f"{fn}: `{what}` must have 1, {rank} or {rank + 2} elements, got "
                             f"{list(items)}.")
    if any(v < 1 for v in items):
        raise ValueError(f"{fn}: `{what}` must be positive, got {list(items)}.")
    return items


def _out_size(size, k, s, d, padding, what):
    """(output size, (pad before, pad after)) along one spatial axis; size may be None."""
    ek = (k - 1) * d + 1
    if size is None:
        return None, None
    if padding == "VALID":
        if size < ek:
            raise ValueError(f"{what}: the window ({ek}) is larger than the input ({size}) "
                             "with padding='VALID'.")
        return (size - ek) // s + 1, (0, 0)
    out = -(-size // s)
    total = max((out - 1) * s + ek - size, 0)
    return out, (total // 2, total - total // 2)


def conv_geometry(h, w, ksize, strides, padding, dilations, what="conv2d"):
    """(out_h, out_w, pad_h, pad_w) of a 2-D window op over an input of height `h`, width `w`
    (each pad a (before, after) pair)."""
    oh, ph = _out_size(h, ksize[0], strides[0], dilations[0], padding, what)
    ow, pw = _out_size(w, ksize[1], strides[1], dilations[1], padding, what)
    return oh, ow, ph, pw



def _float_rank(x, what, arg, rank: int):
    """x's dims (None where unknown), after checking it is floating-point of rank `rank`."""
    if not x.dtype.is_floating:
        raise TypeError(f"{what}: `{arg}` must be a floating-point tensor, got {x.dtype.name}.")
    if x.shape.rank is not None and x.shape.rank != rank:
        raise ValueError(f"{what}: `{arg}` must have rank {rank}, got shape {x.shape}.")
    return x.shape.as_list() if x.shape.rank is not None else [None] * rank


def _float_rank4(x, what, arg):
    return _float_rank(x, what, arg, 4)


# -- Conv2D --------------------------------------------------------------------------------------


def conv_operand_dims(x, filters, fn: str, rank: int):
    """The dims of a convolution's `input` and `filters` (None where unknown), after checking
    both are floating-point of rank `rank`, of one dtype, with matching input channels."""
    xd = _float_rank(x, fn, "input", rank)
    fd = _float_rank(filters, fn, "filters", rank)
    if x.dtype is not filters.dtype:
        raise TypeError(f"{fn}: `input` and `filters` must have one dtype, got "
                        f"{x.dtype.name} and {filters.dtype.name}.")
    c, kc = xd[-1], fd[-2]
    if c is not None and kc is not None and c != kc:
        raise ValueError(f"{fn}: `filters` expect {kc} input channels, the input has {c} "
                         f"(input shape {x.shape}, filters shape {filters.shape}).")
    return xd, fd


def _conv_infer(x, filters, strides, padding, dilations):
    (n, h, w, _), (kh, kw, _, o) = conv_operand_dims(x, filters, "conv2d", 4)
    if kh is None or kw is None:
        oh = ow = None
    else:
        oh, ow, _, _ = conv_geometry(h, w, (kh, kw), strides, padding, dilations, "conv2d")
    return TensorShape([n, oh, ow, o]), x.dtype


def _conv_kernel(x, filters, strides, padding, dilations):
    kh, kw = filters.shape[:2]
    oh, ow, ph, pw = conv_geometry(x.shape[1], x.shape[2], (kh, kw), strides, padding, dilations,
                               "conv2d")
    return conv_kernels.conv2d(x, filters, strides, (ph, pw), dilations, (oh, ow))


_CONV = {"strides": INTS, "padding": PADDING, "dilations": INTS}
_POOL = {"ksize": INTS, "strides": INTS, "padding": PADDING}

CONV2D = define("Conv2D", _conv_infer, _conv_kernel, attrs=_CONV, fresh_output=True)


def _backprop_input_infer(g, filters, input_size, strides, padding, dilations):
    return TensorShape([g.shape[0], input_size[0], input_size[1], filters.shape[2]]), g.dtype


def _backprop_input_kernel(g, filters, input_size, strides, padding, dilations):
    _, _, ph, pw = conv_geometry(input_size[0], input_size[1], filters.shape[:2], strides, padding,
                             dilations, "conv2d")
    return conv_kernels.conv2d_backprop_input(g, filters, tuple(input_size), strides, (ph, pw),
                                              dilations)


CONV2D_BACKPROP_INPUT = define("Conv2DBackpropInput", _backprop_input_infer,
                               _backprop_input_kernel, attrs={"input_size": INTS, **_CONV},
                               fresh_output=True)


def _backprop_filter_infer(x, g, filter_size, strides, padding, dilations):
    return TensorShape([filter_size[0], filter_size[1], x.shape[3], g.shape[3]]), x.dtype


def _backprop_filter_kernel(x, g, filter_size, strides, padding, dilations):
    _, _, ph, pw = conv_geometry(x.shape[1], x.shape[2], filter_size, strides, padding,
                             dilations, "conv2d")
    return conv_kernels.conv2d_backprop_filter(x, g, tuple(filter_size), strides, (ph, pw),
                                               dilations)


CONV2D_BACKPROP_FILTER = define("Conv2DBackpropFilter", _backprop_filter_infer,
                                _backprop_filter_kernel, attrs={"filter_size": INTS, **_CONV},
                                fresh_output=True)


def _conv_attrs(op):
    return {k: op.attrs[k] for k in ("strides", "padding", "dilations")}


def _spatial(t, what):
    dims = t.shape.as_list() if t.shape.rank is not None else None
    if dims is None or dims[1] is None or dims[2] is None:
        raise ValueError(f"The gradient of {what} needs the input's height and width known "
                         f"when tracing, got shape {t.shape}.")
    return (dims[1], dims[2])


def _filter_spatial(t, what):
    dims = t.shape.as_list() if t.shape.rank is not None else None
    if dims is None or dims[0] is None or dims[1] is None:
        raise ValueError(f"The gradient of {what} needs the filter's height and width known "
                         f"when tracing, got shape {t.shape}.")
    return (dims[0], dims[1])


def define_conv_gradients(conv, backprop_input, backprop_filter, input_size, filter_size):
    """The gradient rules of a convolution and of its two gradient ops (the 2-D and 3-D
    convolutions share them). `input_size(x)` and `filter_size(filters)` give the static
    spatial sizes the gradient ops take as attributes. Each op is bilinear in its inputs: the
    convolution's gradients are the two backprops, a backprop's are the convolution and the
    other backprop."""

    def input_attrs(op, x):
        return {"input_size": input_size(x), **_conv_attrs(op)}

    def filter_attrs(op, filters):
        return {"filter_size": filter_size(filters), **_conv_attrs(op)}

    @conv.def_grad
    def _conv_grad(op, g):
        x, filters = op.inputs
        return [apply(backprop_input, [g, filters], input_attrs(op, x)) if op.needs[0] else None,
                apply(backprop_filter, [x, g], filter_attrs(op, filters)) if op.needs[1] else None]

    @backprop_input.def_grad
    def _backprop_input_grad(op, gg):
        g, filters = op.inputs
        return [apply(conv, [gg, filters], _conv_attrs(op)) if op.needs[0] else None,
                apply(backprop_filter, [gg, g], filter_attrs(op, filters)) if op.needs[1] else None]

    @backprop_filter.def_grad
    def _backprop_filter_grad(op, gw):
        x, g = op.inputs
        return [apply(backprop_input, [g, gw], input_attrs(op, x)) if op.needs[0] else None,
                apply(conv, [x, gw], _conv_attrs(op)) if op.needs[1] else None]


define_conv_gradients(CONV2D, CONV2D_BACKPROP_INPUT, CONV2D_BACKPROP_FILTER,
                      lambda x: _spatial(x, "conv2d"), lambda f: _filter_spatial(f, "conv2d"))


@export("nn.conv2d")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
           name=None) -> Tensor:
    """2-D convolution (cross-correlation, as in TF) of an NHWC `input` with `filters` of
    shape [height, width, in_channels, out_channels].

    `strides` and `dilations` are an int, two ints, or four ints with 1 for the batch and
    channel axes; `padding` is 'SAME' (output size ceil(size / stride)) or 'VALID'.
    """
    _data_format(data_format, "conv2d", "NHWC")
    x, f = convert_to_tensor(input), convert_to_tensor(filters)
    if x.dtype is not f.dtype and not hasattr(filters, "dtype"):
        f = convert_to_tensor(filters, dtype=x.dtype)
    attrs = {"strides": _pair(strides, "conv2d", "strides"),
             "padding": _padding(padding, "conv2d"),
             "dilations": _pair(dilations, "conv2d", "dilations")}
    return apply(CONV2D, [x, f], attrs, name=name)


@export("nn.conv1d")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None,  # noqa: A002
           name=None) -> Tensor:
    """1-D convolution of an NWC `input` with `filters` of shape [width, in_channels,
    out_channels] (a conv2d over a height of 1)."""
    _data_format(data_format, "conv1d", "NWC")
    x, f = convert_to_tensor(input), convert_to_tensor(filters)
    if x.shape.rank is not None and x.shape.rank != 3:
        raise ValueError(f"conv1d: `input` must have rank 3, got shape {x.shape}.")
    if f.shape.rank is not None and f.shape.rank != 3:
        raise ValueError(f"conv1d: `filters` must have rank 3, got shape {f.shape}.")
    (s,) = _pair(stride, "conv1d", "stride", rank=1)
    (d,) = _pair(dilations, "conv1d", "dilations", rank=1)
    y = apply(CONV2D, [array_math.expand_dims(x, 1), array_math.expand_dims(f, 0)],
              {"strides": (1, s), "padding": _padding(padding, "conv1d"), "dilations": (1, d)})
    return array_math.squeeze(y, [1], name=name)


# -- pooling ---------------------------------------------------------------------------------------


def _pool_infer(what):
    def infer(x, ksize, strides, padding):
        n, h, w, c = _float_rank4(x, what, "input")
        oh, ow, _, _ = conv_geometry(h, w, ksize, strides, padding, (1, 1), what)
        return TensorShape([n, oh, ow, c]), x.dtype
    return infer


def pool_geometry(h, w, ksize, strides, padding, what="max_pool2d"):
    """((pad_h, pad_w), (out_h, out_w)) of a 2-D pool over an input of height `h`, width `w`
    (each pad a (before, after) pair)."""
    oh, ow, ph, pw = conv_geometry(h, w, ksize, strides, padding, (1, 1), what)
    return (ph, pw), (oh, ow)


def _pool_geometry(x, ksize, strides, padding, what):
    return pool_geometry(x.shape[1], x.shape[2], ksize, strides, padding, what)


def _max_pool_kernel(x, ksize, strides, padding):
    return conv_kernels.max_pool(x, ksize, strides,
                                 *_pool_geometry(x, ksize, strides, padding, "max_pool2d"))


MAX_POOL = define("MaxPool", _pool_infer("max_pool2d"), _max_pool_kernel, attrs=_POOL,
                  fresh_output=True)


def _max_pool_grad_infer(x, g, ksize, strides, padding):
    return x.shape, x.dtype


def _max_pool_grad_kernel(x, g, ksize, strides, padding):
    return conv_kernels.max_pool_grad(x, g, ksize, strides,
                                      *_pool_geometry(x, ksize, strides, padding, "max_pool2d"))


def _max_pool_grad_grad_kernel(x, gg, ksize, strides, padding):
    return conv_kernels.max_pool_grad_grad(
        x, gg, ksize, strides, *_pool_geometry(x, ksize, strides, padding, "max_pool2d"))


MAX_POOL_GRAD = define("MaxPoolGrad", _max_pool_grad_infer, _max_pool_grad_kernel, attrs=_POOL,
                       fresh_output=True)
MAX_POOL_GRAD_GRAD = define(
    "MaxPoolGradGrad", lambda x, gg, **attrs: _pool_infer("max_pool2d")(x, **attrs),
    _max_pool_grad_grad_kernel, attrs=_POOL, fresh_output=True)


def _pool_attrs(op):
    return {k: op.attrs[k] for k in ("ksize", "strides", "padding")}


def define_max_pool_gradients(pool, grad, grad_grad) -> None:
    """The gradient rules of a max pool, its gradient op and that op's gradient (the 2-D and
    3-D pools share them): the pool's gradient routes g to the maxima (`grad`, of (x, g));
    `grad` is piecewise linear in x (no gradient) and linear in g, whose gradient reads gg at
    the maxima (`grad_grad`, of (x, gg)), and the other way round."""
    pool.def_grad(lambda op, g: [apply(grad, [op.inputs[0], g], _pool_attrs(op))])
    grad.def_grad(lambda op, gg: [None, apply(grad_grad, [op.inputs[0], gg], _pool_attrs(op))])
    grad_grad.def_grad(lambda op, g: [None, apply(grad, [op.inputs[0], g], _pool_attrs(op))])


define_max_pool_gradients(MAX_POOL, MAX_POOL_GRAD, MAX_POOL_GRAD_GRAD)


def _avg_pool_kernel(x, ksize, strides, padding):
    return conv_kernels.avg_pool(x, ksize, strides,
                                 *_pool_geometry(x, ksize, strides, padding, "avg_pool2d"))


AVG_POOL = define("AvgPool", _pool_infer("avg_pool2d"), _avg_pool_kernel, attrs=_POOL,
                  fresh_output=True)


def _avg_pool_grad_infer(g, input_size, ksize, strides, padding):
    return TensorShape([g.shape[0], input_size[0], input_size[1], g.shape[3]]), g.dtype


def _avg_pool_grad_kernel(g, input_size, ksize, strides, padding):
    _, _, ph, pw = conv_geometry(input_size[0], input_size[1], ksize, strides, padding, (1, 1),
                             "avg_pool2d")
    return conv_kernels.avg_pool_grad(g, tuple(input_size), ksize, strides, (ph, pw))


AVG_POOL_GRAD = define("AvgPoolGrad", _avg_pool_grad_infer, _avg_pool_grad_kernel,
                       attrs={"input_size": INTS, **_POOL}, fresh_output=True)


def define_avg_pool_gradients(pool, grad, input_size) -> None:
    """The gradient rules of an average pool and of its gradient op (the 2-D and 3-D pools
    share them): both are linear, each the other's gradient; `input_size(x)` gives the static
    spatial sizes the gradient op takes as an attribute."""
    pool.def_grad(lambda op, g: [apply(grad, [g], {"input_size": input_size(op.inputs[0]),
                                                   **_pool_attrs(op)})])
    grad.def_grad(lambda op, gg: [apply(pool, [gg], _pool_attrs(op))])


define_avg_pool_gradients(AVG_POOL, AVG_POOL_GRAD, lambda x: _spatial(x, "avg_pool2d"))


def _pool(op, fn, input, ksize, strides, padding, data_format, name,  # noqa: A002
          layout: str = "NHWC"):
    """`op` applied to `input` with the pool's attributes checked (`layout` NHWC or NDHWC)."""
    _data_format(data_format, fn, layout)
    x = convert_to_tensor(input)
    rank = len(layout) - 2
    attrs = {"ksize": _pair(ksize, fn, "ksize", rank=rank),
             "strides": _pair(strides, fn, "strides", rank=rank), "padding": _padding(padding, fn)}
    return apply(op, [x], attrs, name=name)


@export("nn.max_pool2d")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:  # noqa: A002
    """The maximum of each `ksize` window of an NHWC `input`, windows `strides` apart."""
    return _pool(MAX_POOL, "max_pool2d", input, ksize, strides, padding, data_format, name)


@export("nn.avg_pool2d")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:  # noqa: A002
    """The mean of each `ksize` window of an NHWC `input` (with 'SAME', over the window's
    elements inside the input only)."""
    return _pool(AVG_POOL, "avg_pool2d", input, ksize, strides, padding, data_format, name)


def _pool1d(op, fn, input, ksize, strides, padding, data_format, name):  # noqa: A002
    _data_format(data_format, fn, "NWC")
    x = convert_to_tensor(input)
    if x.shape.rank is not None and x.shape.rank != 3:
        raise ValueError(f"{fn}: `input` must have rank 3, got shape {x.shape}.")
    (k,) = _pair(ksize, fn, "ksize", rank=1)
    (s,) = _pair(strides, fn, "strides", rank=1)
    y = apply(op, [array_math.expand_dims(x, 1)],
              {"ksize": (1, k), "strides": (1, s), "padding": _padding(padding, fn)})
    return array_math.squeeze(y, [1], name=name)


@export("nn.max_pool1d")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:  # noqa: A002
    """The maximum of each `ksize` window of an NWC `input`."""
    return _pool1d(MAX_POOL, "max_pool1d", input, ksize, strides, padding, data_format, name)


@export("nn.avg_pool1d")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:  # noqa: A002
    """The mean of each `ksize` window of an NWC `input`."""
    return _pool1d(AVG_POOL, "avg_pool1d", input, ksize, strides, padding, data_format, name)


def _pool_by_rank(fn, one_d, two_d, input, ksize, strides, padding, data_format, name):  # noqa: A002
    rank = convert_to_tensor(input).shape.rank
    if rank == 3:
        return one_d(input, ksize, strides, padding, data_format or "NWC", name)
    if rank == 4:
        return two_d(input, ksize, strides, padding, data_format or "NHWC", name)
    raise ValueError(f"{fn}: `input` must have rank 3 (NWC) or 4 (NHWC), got rank {rank}.")


@export("nn.max_pool")
def max_pool(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:  # noqa: A002
    """max_pool1d or max_pool2d, by the rank of `input`."""
    return _pool_by_rank("max_pool", max_pool1d, max_pool2d, input, ksize, strides, padding,
                         data_format, name)


@export("nn.avg_pool")
def avg_pool(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:  # noqa: A002
    """avg_pool1d or avg_pool2d, by the rank of `input`."""
    return _pool_by_rank("avg_pool", avg_pool1d, avg_pool2d, input, ksize, strides, padding,
                         data_format, name)


# -- normalisation and lookups, composed --------------------------------------------------------


def _axes(axes, rank, fn):
    if isinstance(axes, (int, np.integer)):
        axes = [axes]
    try:
        items = [int(a) for a in axes]
    except TypeError:
        raise TypeError(f"{fn}: `axes` must be an int or a list of ints, got {axes!r}.") from None
    if rank is not None:
        for a in items:
            if not -rank <= a < rank:
                raise ValueError(f"{fn}: axis {a} is out of range for a tensor of rank {rank}.")
        items = [a % rank for a in items]
    return items


@export("nn.moments")
def moments(x, axes, shift=None, keepdims=False, name=None) -> tuple[Tensor, Tensor]:
    """(mean, variance) of `x` over `axes`; `shift` is accepted and unused."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"moments: `x` must be a floating-point tensor, got {x.dtype.name}.")
    axes = _axes(axes, x.shape.rank, "moments")
    mean = array_math.reduce_mean(x, axis=axes, keepdims=True)
    variance = array_math.reduce_mean(
        array_math.square(array_math.subtract(x, mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean = array_math.squeeze(mean, axes)
        variance = array_math.squeeze(variance, axes)
    return mean, variance


@export("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None) -> Tensor:
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset; `offset` and
    `scale` may be None."""
    x = convert_to_tensor(x)
    inv = array_math.rsqrt(array_math.add(convert_to_tensor(variance, dtype=x.dtype),
                                          float(variance_epsilon)))
    if scale is not None:
        inv = array_math.multiply(inv, convert_to_tensor(scale, dtype=x.dtype))
    y = array_math.multiply(array_math.subtract(x, convert_to_tensor(mean, dtype=x.dtype)), inv)
    if offset is not None:
        y = array_math.add(y, convert_to_tensor(offset, dtype=x.dtype))
    return array_math.identity(y, name=name) if name else y


@export("nn.embedding_lookup")
def embedding_lookup(params, ids, max_norm=None, name=None) -> Tensor:
    """The rows of `params` at integer `ids` (any shape): shape ids.shape + params.shape[1:].
    `params` may be a list of shards, divided as TensorFlow's "div" strategy divides the rows
    (consecutive rows, the first shards one more when they do not divide evenly); with
    `max_norm` each row is rescaled to an L2 norm of at most `max_norm`."""
    ids = convert_to_tensor(ids)
    if not ids.dtype.is_integer:
        raise TypeError(f"embedding_lookup: `ids` must be integers, got {ids.dtype.name}.")
    if isinstance(params, (list, tuple)) and len(params) == 1:
        params = params[0]
    if isinstance(params, (list, tuple)):
        rows = _shard_rows(params, ids)
        params = array_math.concat([convert_to_tensor(p) for p in params], 0)
        found = array_math.gather(params, rows, name=name)
    else:
        found = array_math.gather(params, ids, name=name)
    if max_norm is None:
        return found
    axes = list(range(ids.shape.rank, found.shape.rank)) if ids.shape.rank is not None else -1
    return _clip_by_norm(found, max_norm, axes=axes)


def _shard_rows(params, ids):
    """The rows of the shards' concatenation TensorFlow's "div" partition reads for `ids`."""
    sizes = [convert_to_tensor(p).shape[0] for p in params]
    if None in sizes:
        raise ValueError("embedding_lookup: sharded `params` need known row counts.")
    each, extras = divmod(sum(sizes), len(sizes))
    part = ids // (each + 1)
    if each:
        part = array_math.maximum(part, (ids - extras) // each)
    local = array_math.where(part < extras, ids % (each + 1), (ids - extras) % max(each, 1))
    offsets = array_math.cast(convert_to_tensor(np.cumsum([0] + sizes[:-1])), ids.dtype)
    return array_math.gather(offsets, part) + local


# -- transposed, depthwise and separable convolutions, composed ----------------------------------
# conv2d_transpose is Conv2DBackpropInput (the gradient of conv2d), whose gradients are defined
# above; depthwise_conv2d sums one strided slice of the padded input per kernel tap.


def _static_output_shape(output_shape, rank: int, fn: str) -> list:
    """`output_shape` (a list, array or tensor of rank + 2 values) as a list whose spatial
    and channel entries are ints; the batch entry may stay unknown (None)."""
    known = constant_value(output_shape) if isinstance(output_shape, Tensor) else None
    items = list(known) if known is not None else output_shape
    try:
        items = list(items)
    except TypeError:
        raise ValueError(f"{fn}: `output_shape` must be a list or 1-D tensor of {rank + 2} "
                         f"values known when tracing, got {output_shape!r}.") from None
    if len(items) != rank + 2:
        raise ValueError(f"{fn}: `output_shape` must have {rank + 2} values (batch, "
                         f"{rank} spatial sizes, channels), got {len(items)}.")
    rest = [constant_value(v) if isinstance(v, Tensor) else v for v in items[1:]]
    if any(v is None for v in rest):
        raise ValueError(f"{fn}: the spatial and channel entries of `output_shape` must be "
                         f"known when tracing, got {output_shape!r}.")
    return [None] + [int(v) for v in rest]


def _check_transpose_geometry(x, f, out, strides, padding, dilations, fn):
    """Refuses an `output_shape` whose convolution would not give the input's size."""
    kh, kw, kc, ko = f.shape.as_list() if f.shape.rank is not None else [None] * 4
    if kc is not None and kc != out[3]:
        raise ValueError(f"{fn}: `output_shape` has {out[3]} channels, the filters make {kc} "
                         f"(filters shape {f.shape}: [height, width, out, in]).")
    xs = x.shape.as_list() if x.shape.rank is not None else [None] * 4
    if ko is not None and xs[3] is not None and ko != xs[3]:
        raise ValueError(f"{fn}: the filters take {ko} input channels, `input` has {xs[3]} "
                         f"(input shape {x.shape}, filters shape {f.shape}).")
    if kh is None or kw is None:
        return
    oh, ow, _, _ = conv_geometry(out[1], out[2], (kh, kw), strides, padding, dilations, fn)
    for got, want, axis in ((xs[1], oh, "height"), (xs[2], ow, "width")):
        if got is not None and got != want:
            raise ValueError(f"{fn}: `output_shape` {out[1:3]} does not fit the input's {axis} "
                             f"{got}: a convolution of that shape with these strides and "
                             f"padding gives {want}.")


@export("nn.conv2d_transpose")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NHWC", dilations=None, name=None) -> Tensor:
    """The transpose of conv2d (the gradient of conv2d with respect to its input) of an NHWC
    `input` with `filters` of shape [height, width, output_channels, in_channels]:
    an output of `output_shape` [batch, height, width, output_channels]."""
    _data_format(data_format, "conv2d_transpose", "NHWC")
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype=x.dtype) if not hasattr(filters, "dtype") \
        else convert_to_tensor(filters)
    _float_rank4(x, "conv2d_transpose", "input")
    _float_rank4(f, "conv2d_transpose", "filters")
    if x.dtype is not f.dtype:
        raise TypeError(f"conv2d_transpose: `input` and `filters` must have one dtype, got "
                        f"{x.dtype.name} and {f.dtype.name}.")
    out = _static_output_shape(output_shape, 2, "conv2d_transpose")
    attrs = {"strides": _pair(strides, "conv2d_transpose", "strides"),
             "padding": _padding(padding, "conv2d_transpose"),
             "dilations": _pair(dilations, "conv2d_transpose", "dilations")}
    _check_transpose_geometry(x, f, out, attrs["strides"], attrs["padding"],
                              attrs["dilations"], "conv2d_transpose")
    return apply(CONV2D_BACKPROP_INPUT, [x, f], {"input_size": tuple(out[1:3]), **attrs},
                 name=name)


@export("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None) -> Tensor:
    """The transpose of conv1d of an NWC `input` with `filters` of shape [width,
    output_channels, in_channels]: an output of `output_shape` [batch, width, channels]."""
    _data_format(data_format, "conv1d_transpose", "NWC")
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype=x.dtype) if not hasattr(filters, "dtype") \
        else convert_to_tensor(filters)
    for arg, t in (("input", x), ("filters", f)):
        if t.shape.rank is not None and t.shape.rank != 3:
            raise ValueError(f"conv1d_transpose: `{arg}` must have rank 3, got shape {t.shape}.")
    out = _static_output_shape(output_shape, 1, "conv1d_transpose")
    (s,) = _pair(strides, "conv1d_transpose", "strides", rank=1)
    (d,) = _pair(dilations, "conv1d_transpose", "dilations", rank=1)
    y = conv2d_transpose(array_math.expand_dims(x, 1), array_math.expand_dims(f, 0),
                         [None, 1, out[1], out[2]], (1, s), padding, dilations=(1, d))
    return array_math.squeeze(y, [1], name=name)


@export("nn.conv_transpose")
def conv_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                   data_format=None, dilations=None, name=None) -> Tensor:
    """conv1d_transpose or conv2d_transpose, by the rank of `input`."""
    rank = convert_to_tensor(input).shape.rank
    if rank == 3:
        return conv1d_transpose(input, filters, output_shape, strides, padding,
                                data_format or "NWC", dilations, name)
    if rank == 4:
        return conv2d_transpose(input, filters, output_shape, strides, padding,
                                data_format or "NHWC", dilations, name)
    raise ValueError(f"conv_transpose: `input` must have rank 3 (NWC) or 4 (NHWC), got rank "
                     f"{rank}.")


def _depthwise(x, f, strides, padding, dilations, fn):
    """[N, OH, OW, C * M]: each channel c convolved with its own f[:, :, c, :]."""
    n, h, w, c = _float_rank4(x, fn, "input")
    kh, kw, kc, m = _float_rank4(f, fn, "filter")
    if None in (h, w, kh, kw, kc, m):
        raise ValueError(f"{fn} needs the input's height and width and the filter's shape "
                         f"known when tracing, got shapes {x.shape} and {f.shape}.")
    if c is not None and c != kc:
        raise ValueError(f"{fn}: the filter expects {kc} input channels, the input has {c} "
                         f"(input shape {x.shape}, filter shape {f.shape}).")
    oh, ow, ph, pw = conv_geometry(h, w, (kh, kw), strides, padding, dilations, fn)
    if ph != (0, 0) or pw != (0, 0):
        x = _composed_pad(x, [[0, 0], list(ph), list(pw), [0, 0]])
    (sh, sw), (dh, dw) = strides, dilations
    total = None
    for i in range(kh):
        for j in range(kw):
            tap = array_math.getitem(x, (slice(None), slice(i * dh, i * dh + (oh - 1) * sh + 1, sh),
                                         slice(j * dw, j * dw + (ow - 1) * sw + 1, sw)))
            term = array_math.multiply(array_math.expand_dims(tap, 4), f[i, j])
            total = term if total is None else array_math.add(total, term)
    batch = n if n is not None else -1
    return array_math.reshape(total, [batch, oh, ow, kc * m])


@export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None) -> Tensor:
    """Depthwise 2-D convolution of an NHWC `input` with `filter` [height, width,
    in_channels, channel_multiplier]: output channel `c * multiplier + m` is channel c
    convolved with filter[:, :, c, m]."""
    _data_format(data_format, "depthwise_conv2d", "NHWC")
    x = convert_to_tensor(input)
    f = convert_to_tensor(filter, dtype=x.dtype) if not hasattr(filter, "dtype") \
        else convert_to_tensor(filter)
    if x.dtype is not f.dtype:
        raise TypeError(f"depthwise_conv2d: `input` and `filter` must have one dtype, got "
                        f"{x.dtype.name} and {f.dtype.name}.")
    y = _depthwise(x, f, _pair(strides, "depthwise_conv2d", "strides"),
                   _padding(padding, "depthwise_conv2d"),
                   _pair(dilations, "depthwise_conv2d", "dilations"), "depthwise_conv2d")
    return array_math.identity(y, name=name) if name else y


@export("nn.separable_conv2d")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     data_format=None, dilations=None, name=None) -> Tensor:
    """depthwise_conv2d with `depthwise_filter`, then a 1x1 conv2d with `pointwise_filter`
    [1, 1, in_channels * multiplier, out_channels]."""
    y = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    p = convert_to_tensor(pointwise_filter, dtype=y.dtype) \
        if not hasattr(pointwise_filter, "dtype") else convert_to_tensor(pointwise_filter)
    return conv2d(y, p, 1, "VALID", name=name)


@export("nn.convolution")
def convolution(input, filters, strides=None, padding="VALID", data_format=None,  # noqa: A002
                dilations=None, name=None) -> Tensor:
    """conv1d or conv2d, by the rank of `input` (3: NWC, 4: NHWC)."""
    rank = convert_to_tensor(input).shape.rank
    if rank == 3:
        return conv1d(input, filters, 1 if strides is None else strides, padding,
                      data_format or "NWC", dilations, name)
    if rank == 4:
        return conv2d(input, filters, 1 if strides is None else strides, padding,
                      data_format or "NHWC", dilations, name)
    raise ValueError(f"convolution: `input` must have rank 3 (NWC) or 4 (NHWC), got rank "
                     f"{rank} (3-D convolutions are not implemented).")


@export("nn.atrous_conv2d")
def atrous_conv2d(value, filters, rate, padding, name=None) -> Tensor:
    """conv2d of an NHWC `value` with `filters` dilated by `rate` (stride 1)."""
    return conv2d(value, filters, 1, padding, dilations=rate, name=name)


@export("nn.atrous_conv2d_transpose")
def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None) -> Tensor:
    """The transpose of `atrous_conv2d` (its gradient with respect to its input): an NHWC
    output of `output_shape` from `value`, `filters` [height, width, out_channels,
    in_channels] dilated by `rate`."""
    if int(rate) < 1:
        raise ValueError(f"atrous_conv2d_transpose: rate {rate} cannot be less than one.")
    return conv2d_transpose(value, filters, output_shape, 1, padding, dilations=int(rate),
                            name=name)

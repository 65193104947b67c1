"""3-D convolution and pooling over NDHWC tensors: tf.nn.conv3d, conv3d_transpose, max_pool3d and
avg_pool3d.

Ops: Conv3D with Conv3DBackpropInputV2 / Conv3DBackpropFilterV2, MaxPool3D with MaxPool3DGrad
(and MaxPool3DGradGrad), AvgPool3D with AvgPool3DGrad. A 3-D convolution is the sum over the
filter's depth taps of 2-D convolutions of the input's depth slices that tap reads: each tap is
one call of the NHWC kernels of `conv_kernels` on all the slices at once (the output depths
stacked into the batch), and so are the two gradients. Pools read strided window views; the
max-pool gradient goes to every element equal to its window's maximum, as TensorFlow's CPU
kernel for 3-D pools does (its 2-D pools take the first maximum only), and an average over a
'SAME' window counts only its elements inside the input. Loaded on first use.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..attr_kinds import INTS, PADDING
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import conv_kernels
from .core import apply, convert_to_tensor
from .nn_conv import (
    _data_format,
    _float_rank,
    _out_size,
    _padding,
    _pair,
    _pool,
    _static_output_shape,
    conv_operand_dims,
    define_avg_pool_gradients,
    define_conv_gradients,
    define_max_pool_gradients,
)


def _float_rank5(x, fn, arg):
    return _float_rank(x, fn, arg, 5)


def _geometry(sizes, ksize, strides, padding, dilations, fn):
    """(output sizes, (before, after) pads) along the three spatial axes."""
    out, pads = [], []
    for size, k, s, d in zip(sizes, ksize, strides, dilations):
        o, p = _out_size(size, k, s, d, padding, fn)
        out.append(o)
        pads.append(p)
    return out, pads


# -- Conv3D --------------------------------------------------------------------------------------

_CONV = {"strides": INTS, "padding": PADDING, "dilations": INTS}
_POOL = {"ksize": INTS, "strides": INTS, "padding": PADDING}


def _conv_infer(x, filters, strides, padding, dilations):
    (n, *spatial, _), (*kernel, _, o) = conv_operand_dims(x, filters, "conv3d", 5)
    if None in kernel:
        return TensorShape([n, None, None, None, o]), x.dtype
    out, _ = _geometry(spatial, kernel, strides, padding, dilations, "conv3d")
    return TensorShape([n, *out, o]), x.dtype


def _depth_slices(xp, tap, dilation, stride, count):
    """The padded input's depth slices tap `tap` reads for each output depth: [N, count, ...]."""
    start = tap * dilation
    return xp[:, start:start + (count - 1) * stride + 1:stride]


def _pad_depth(x, pads):
    return np.pad(x, [(0, 0), pads, (0, 0), (0, 0), (0, 0)]) if any(pads) else x


def _conv_kernel(x, filters, strides, padding, dilations):
    x, filters = np.asarray(x), np.asarray(filters)
    (od, oh, ow), (pd, ph, pw) = _geometry(x.shape[1:4], filters.shape[:3], strides, padding,
                                           dilations, "conv3d")
    n, o = x.shape[0], filters.shape[4]
    out = np.zeros((n * od, oh, ow, o), x.dtype)
    if od == 0 or n == 0:
        return out.reshape(n, od, oh, ow, o)
    xp = _pad_depth(x, pd)
    for tap in range(filters.shape[0]):
        part = _depth_slices(xp, tap, dilations[0], strides[0], od).reshape(n * od, *x.shape[2:])
        out += conv_kernels.conv2d(np.ascontiguousarray(part), filters[tap], strides[1:],
                                   (ph, pw), dilations[1:], (oh, ow))
    return out.reshape(n, od, oh, ow, o)


CONV3D = define("Conv3D", _conv_infer, _conv_kernel, attrs=_CONV, fresh_output=True)


def _backprop_input_infer(g, filters, input_size, strides, padding, dilations):
    return TensorShape([g.shape[0], *input_size, filters.shape[3]]), g.dtype


def _backprop_input_kernel(g, filters, input_size, strides, padding, dilations):
    g, filters = np.asarray(g), np.asarray(filters)
    (od, oh, ow), (pd, ph, pw) = _geometry(input_size, filters.shape[:3], strides, padding,
                                           dilations, "conv3d")
    n, c = g.shape[0], filters.shape[3]
    depth, h, w = input_size
    grad = np.zeros((n, depth + pd[0] + pd[1], h, w, c), g.dtype)
    if od and n:
        flat = np.ascontiguousarray(g.reshape(n * od, oh, ow, g.shape[4]))
        for tap in range(filters.shape[0]):
            part = conv_kernels.conv2d_backprop_input(flat, filters[tap], (h, w), strides[1:],
                                                      (ph, pw), dilations[1:])
            _depth_slices(grad, tap, dilations[0], strides[0], od)[...] += \
                part.reshape(n, od, h, w, c)
    return np.ascontiguousarray(grad[:, pd[0]:pd[0] + depth])


CONV3D_BACKPROP_INPUT = define("Conv3DBackpropInputV2", _backprop_input_infer,
                               _backprop_input_kernel, attrs={"input_size": INTS, **_CONV},
                               fresh_output=True)


def _backprop_filter_infer(x, g, filter_size, strides, padding, dilations):
    return TensorShape([*filter_size, x.shape[4], g.shape[4]]), x.dtype


def _backprop_filter_kernel(x, g, filter_size, strides, padding, dilations):
    x, g = np.asarray(x), np.asarray(g)
    (od, oh, ow), (pd, ph, pw) = _geometry(x.shape[1:4], filter_size, strides, padding,
                                           dilations, "conv3d")
    n, c, o = x.shape[0], x.shape[4], g.shape[4]
    grad = np.zeros((*filter_size, c, o), x.dtype)
    if od == 0 or n == 0:
        return grad
    xp = _pad_depth(x, pd)
    flat = np.ascontiguousarray(g.reshape(n * od, oh, ow, o))
    for tap in range(filter_size[0]):
        part = _depth_slices(xp, tap, dilations[0], strides[0], od).reshape(n * od, *x.shape[2:])
        grad[tap] = conv_kernels.conv2d_backprop_filter(
            np.ascontiguousarray(part), flat, tuple(filter_size[1:]), strides[1:], (ph, pw),
            dilations[1:])
    return grad


CONV3D_BACKPROP_FILTER = define("Conv3DBackpropFilterV2", _backprop_filter_infer,
                                _backprop_filter_kernel, attrs={"filter_size": INTS, **_CONV},
                                fresh_output=True)


def _static(t, axes, what, fn):
    dims = t.shape.as_list() if t.shape.rank is not None else None
    sizes = None if dims is None else tuple(dims[a] for a in axes)
    if sizes is None or None in sizes:
        raise ValueError(f"The gradient of {fn} needs the {what} known when tracing, got shape "
                         f"{t.shape}.")
    return sizes


define_conv_gradients(
    CONV3D, CONV3D_BACKPROP_INPUT, CONV3D_BACKPROP_FILTER,
    lambda x: _static(x, (1, 2, 3), "input's spatial sizes", "conv3d"),
    lambda f: _static(f, (0, 1, 2), "filter's sizes", "conv3d"))


def _conv_arguments(input, filters, fn):  # noqa: A002
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype=x.dtype) if not hasattr(filters, "dtype") \
        else convert_to_tensor(filters)
    _float_rank5(x, fn, "input")
    _float_rank5(f, fn, "filters")
    if x.dtype is not f.dtype:
        raise TypeError(f"{fn}: `input` and `filters` must have one dtype, got {x.dtype.name} "
                        f"and {f.dtype.name}.")
    return x, f


@export("nn.conv3d")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None,  # noqa: A002
           name=None) -> Tensor:
    """3-D convolution (cross-correlation, as in TF) of an NDHWC `input` with `filters` of
    shape [depth, height, width, in_channels, out_channels] (op `Conv3D`).

    `strides` and `dilations` are an int, three ints, or five ints with 1 for the batch and
    channel axes; `padding` is 'SAME' (output size ceil(size / stride)) or 'VALID'.
    """
    _data_format(data_format, "conv3d", "NDHWC")
    x, f = _conv_arguments(input, filters, "conv3d")
    attrs = {"strides": _pair(strides, "conv3d", "strides", rank=3),
             "padding": _padding(padding, "conv3d"),
             "dilations": _pair(dilations, "conv3d", "dilations", rank=3)}
    return apply(CONV3D, [x, f], attrs, name=name)


@export("nn.conv3d_transpose")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NDHWC", dilations=None, name=None) -> Tensor:
    """The transpose of conv3d (its gradient with respect to its input) of an NDHWC `input`
    with `filters` of shape [depth, height, width, output_channels, in_channels]: an output
    of `output_shape` [batch, depth, height, width, output_channels] (op
    `Conv3DBackpropInputV2`)."""
    _data_format(data_format, "conv3d_transpose", "NDHWC")
    x, f = _conv_arguments(input, filters, "conv3d_transpose")
    out = _static_output_shape(output_shape, 3, "conv3d_transpose")
    attrs = {"strides": _pair(strides, "conv3d_transpose", "strides", rank=3),
             "padding": _padding(padding, "conv3d_transpose"),
             "dilations": _pair(dilations, "conv3d_transpose", "dilations", rank=3)}
    fdims = f.shape.as_list() if f.shape.rank is not None else [None] * 5
    xdims = x.shape.as_list() if x.shape.rank is not None else [None] * 5
    if fdims[3] is not None and fdims[3] != out[4]:
        raise ValueError(f"conv3d_transpose: `output_shape` has {out[4]} channels, the filters "
                         f"make {fdims[3]} (filters shape {f.shape}: [depth, height, width, "
                         "out, in]).")
    if fdims[4] is not None and xdims[4] is not None and fdims[4] != xdims[4]:
        raise ValueError(f"conv3d_transpose: the filters take {fdims[4]} input channels, "
                         f"`input` has {xdims[4]} (input shape {x.shape}, filters shape "
                         f"{f.shape}).")
    if None not in fdims[:3]:
        sizes, _ = _geometry(out[1:4], fdims[:3], attrs["strides"], attrs["padding"],
                             attrs["dilations"], "conv3d_transpose")
        for got, want in zip(xdims[1:4], sizes):
            if got is not None and got != want:
                raise ValueError(f"conv3d_transpose: `output_shape` {out[1:4]} does not fit "
                                 f"the input's spatial sizes {xdims[1:4]}: a convolution of "
                                 f"that shape gives {sizes}.")
    return apply(CONV3D_BACKPROP_INPUT, [x, f], {"input_size": tuple(out[1:4]), **attrs},
                 name=name)


# -- pooling -------------------------------------------------------------------------------------

def _pool_infer(fn):
    def infer(x, ksize, strides, padding):
        n, *spatial, c = _float_rank5(x, fn, "input")
        out, _ = _geometry(spatial, ksize, strides, padding, (1, 1, 1), fn)
        return TensorShape([n, *out, c]), x.dtype
    return infer


def _windows(x, ksize, strides, padding, fill, fn):
    """(the padded input's windows [N, OD, OH, OW, C, KD * KH * KW], pads, output sizes)."""
    out, pads = _geometry(x.shape[1:4], ksize, strides, padding, (1, 1, 1), fn)
    xp = np.pad(x, [(0, 0), *pads, (0, 0)], constant_values=fill) if any(map(any, pads)) else x
    view = sliding_window_view(xp, tuple(ksize), axis=(1, 2, 3))
    view = view[:, :out[0] * strides[0]:strides[0], :out[1] * strides[1]:strides[1],
                :out[2] * strides[2]:strides[2]]
    return view.reshape(view.shape[:5] + (-1,)), pads, out


def _max_pool_kernel(x, ksize, strides, padding):
    x = np.asarray(x)
    windows, _, _ = _windows(x, ksize, strides, padding, -np.inf, "max_pool3d")
    return windows.max(axis=-1)


def _max_masks(x, ksize, strides, padding):
    """(the windows' elements equal to their window's maximum [N, OD, OH, OW, C, taps], pads,
    output sizes)."""
    windows, pads, out = _windows(x, ksize, strides, padding, -np.inf, "max_pool3d")
    return windows == windows.max(axis=-1, keepdims=True), pads, out


def _tap_slices(ksize, strides, out):
    """For each window tap, in row-major order, the padded input's slices it reads."""
    for a, b, c in np.ndindex(*ksize):
        yield (slice(None), slice(a, a + (out[0] - 1) * strides[0] + 1, strides[0]),
               slice(b, b + (out[1] - 1) * strides[1] + 1, strides[1]),
               slice(c, c + (out[2] - 1) * strides[2] + 1, strides[2]))


def _crop(grad, pads, sizes):
    return np.ascontiguousarray(grad[:, pads[0][0]:pads[0][0] + sizes[0],
                                     pads[1][0]:pads[1][0] + sizes[1],
                                     pads[2][0]:pads[2][0] + sizes[2]])


def _max_pool_grad_kernel(x, g, ksize, strides, padding):
    """Each window's gradient to every element equal to its maximum (TensorFlow's CPU kernel
    for 3-D max pooling does the same)."""
    x, g = np.asarray(x), np.asarray(g)
    masks, pads, out = _max_masks(x, ksize, strides, padding)
    grad = np.zeros((x.shape[0], *(s + p[0] + p[1] for s, p in zip(x.shape[1:4], pads)),
                     x.shape[4]), x.dtype)
    for tap, where in enumerate(_tap_slices(ksize, strides, out)):
        grad[where] += np.where(masks[..., tap], g, 0)
    return _crop(grad, pads, x.shape[1:4])


def _max_pool_grad_grad_kernel(x, gg, ksize, strides, padding):
    """The adjoint of the gradient in its second input: each window's sum of gg over the
    elements equal to its maximum."""
    x, gg = np.asarray(x), np.asarray(gg)
    masks, pads, out = _max_masks(x, ksize, strides, padding)
    ggp = np.pad(gg, [(0, 0), *pads, (0, 0)])
    total = np.zeros(masks.shape[:5], x.dtype)
    for tap, where in enumerate(_tap_slices(ksize, strides, out)):
        total += np.where(masks[..., tap], ggp[where], 0)
    return total


MAX_POOL3D = define("MaxPool3D", _pool_infer("max_pool3d"), _max_pool_kernel, attrs=_POOL,
                    fresh_output=True)
MAX_POOL3D_GRAD = define("MaxPool3DGrad", lambda x, g, **attrs: (x.shape, x.dtype),
                         _max_pool_grad_kernel, attrs=_POOL, fresh_output=True)
MAX_POOL3D_GRAD_GRAD = define(
    "MaxPool3DGradGrad", lambda x, gg, **attrs: _pool_infer("max_pool3d")(x, **attrs),
    _max_pool_grad_grad_kernel, attrs=_POOL, fresh_output=True)


define_max_pool_gradients(MAX_POOL3D, MAX_POOL3D_GRAD, MAX_POOL3D_GRAD_GRAD)


def _counts(sizes, ksize, strides, padding, dtype):
    """How many input elements each 'SAME' window holds: [1, OD, OH, OW, 1]."""
    ones = np.ones((1, *sizes, 1), dtype)
    windows, _, _ = _windows(ones, ksize, strides, padding, 0.0, "avg_pool3d")
    return windows.sum(axis=-1)


def _avg_pool_kernel(x, ksize, strides, padding):
    x = np.asarray(x)
    windows, _, _ = _windows(x, ksize, strides, padding, 0.0, "avg_pool3d")
    total = windows.sum(axis=-1)
    return (total / _counts(x.shape[1:4], ksize, strides, padding, x.dtype)).astype(x.dtype)


def _avg_pool_grad_kernel(g, input_size, ksize, strides, padding):
    g = np.asarray(g)
    out, pads = _geometry(input_size, ksize, strides, padding, (1, 1, 1), "avg_pool3d")
    share = g / _counts(input_size, ksize, strides, padding, g.dtype)
    padded = (g.shape[0], *(s + p[0] + p[1] for s, p in zip(input_size, pads)), g.shape[4])
    grad = np.zeros(padded, g.dtype)
    for where in _tap_slices(ksize, strides, out):
        grad[where] += share
    return _crop(grad, pads, input_size)


AVG_POOL3D = define("AvgPool3D", _pool_infer("avg_pool3d"), _avg_pool_kernel, attrs=_POOL,
                    fresh_output=True)
AVG_POOL3D_GRAD = define(
    "AvgPool3DGrad",
    lambda g, input_size, **attrs: (TensorShape([g.shape[0], *input_size, g.shape[4]]), g.dtype),
    _avg_pool_grad_kernel, attrs={"input_size": INTS, **_POOL}, fresh_output=True)


define_avg_pool_gradients(
    AVG_POOL3D, AVG_POOL3D_GRAD,
    lambda x: _static(x, (1, 2, 3), "input's spatial sizes", "avg_pool3d"))


@export("nn.max_pool3d")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:  # noqa: A002
    """The maximum of each `ksize` window of an NDHWC `input`, windows `strides` apart (op
    `MaxPool3D`)."""
    return _pool(MAX_POOL3D, "max_pool3d", input, ksize, strides, padding, data_format, name,
                 "NDHWC")


@export("nn.avg_pool3d")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:  # noqa: A002
    """The mean of each `ksize` window of an NDHWC `input` (with 'SAME', over the window's
    elements inside the input only) (op `AvgPool3D`)."""
    return _pool(AVG_POOL3D, "avg_pool3d", input, ksize, strides, padding, data_format, name,
                 "NDHWC")

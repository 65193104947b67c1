"""Native Numba forms of the window ops on NHWC arrays: MaxPool and MaxPoolGrad as loops over
the windows, Conv2D and its two gradients as im2col blocks times the filters through NumPy's
BLAS.

The pools give the NumPy kernels' results bit for bit (`ops/conv_kernels.py`): a padding tap
counts as -inf, a window's maximum is `np.maximum` folded over its taps in row-major order (NaN
when one is), and its gradient goes to the first tap equal to that maximum (or the first NaN);
a gradient that lands on padding is dropped. Overlapping windows add their parts tap by tap, in
the NumPy kernel's order. The convolutions sum in another order than the NumPy kernels (blocks
of output rows, the filter gradient accumulated by BLAS): equal to rounding. The Numba
functions are in `window_kernels.py` (this module imports no Numba: it runs where a kernel's
source is written); each fills an array the kernel allocates (`_call_into`). Where the native
form does not apply (dims not static, a dtype other than float32/float64, few input channels, a
1x1 window) the op runs its NumPy kernel.
"""

from __future__ import annotations

from ...ops import conv_kernels, nn_conv
from .fusion import write_empty
from .rules import lowers


def _call_into(w, op, call: str) -> None:
    """Writes `call` (a helper filling its last argument, `{out}`) into a new array of the
    op's result shape, allocated as the fused loops allocate theirs (`fusion.write_empty`)."""
    out = op.outputs[0]
    w.shape_literal(out.shape)  # unsupported when not static
    name = w.fresh("t")
    write_empty(w, name, out.shape.as_tuple(), out.dtype)
    w.line(call.format(out=name))
    w.alias(out, name)
    w.fresh_arrays.add(id(out))


def _pool_geometry(w, op, x):
    """(kh, kw, sh, sw, pt, pl) of the pool `op` on `x`, or unsupported when its
    height and width are not static or its dtype is not float32/float64."""
    dims = x.shape.as_list() if x.shape.rank == 4 else None
    if dims is None or dims[1] is None or dims[2] is None:
        w.unsupported(op, "a pool whose input height and width are not static")
    if x.dtype.name not in ("float32", "float64"):
        w.unsupported(op, f"a native pool of {x.dtype.name}")
    (ph, pw), _ = nn_conv.pool_geometry(dims[1], dims[2], op.attrs["ksize"],
                                        op.attrs["strides"], op.attrs["padding"])
    (kh, kw), (sh, sw) = op.attrs["ksize"], op.attrs["strides"]
    return kh, kw, sh, sw, ph[0], pw[0]


@lowers(nn_conv.MAX_POOL)
def _max_pool(w, op):
    geometry = _pool_geometry(w, op, op.inputs[0])
    (x,) = w.ins(op)
    _call_into(w, op, f"_w.max_pool(np.ascontiguousarray({x}), "
                      f"{', '.join(map(str, geometry))}, {{out}})")


@lowers(nn_conv.MAX_POOL_GRAD)
def _max_pool_grad(w, op):
    geometry = _pool_geometry(w, op, op.inputs[0])
    x, g = w.ins(op)
    _call_into(w, op, f"_w.max_pool_grad(np.ascontiguousarray({x}), np.ascontiguousarray({g}),"
                      f" {', '.join(map(str, geometry))}, {{out}})")


# from this many input (and output) channels the native im2col copy (and products as wide)
# beat NumPy's kernels
_WIDE_CHANNELS = 16


def _conv_geometry(w, op, hw, channels, outputs, dtype, ksize, few=_WIDE_CHANNELS - 1):
    """(sh, sw, dh, dw, pt, pl) of the convolution `op` over an input of height and
    width `hw` with `channels` channels into `outputs`, or unsupported where the NumPy kernel
    runs instead: height, width or channels not static, a dtype other than float32/float64,
    `few` input channels or fewer, fewer than 16 outputs (narrow products), or a 1x1 window
    (a plain matrix product there)."""
    if None in (*hw, channels, outputs):
        w.unsupported(op, "a native convolution of an input whose height, width and channels "
                          "are not static")
    if dtype.name not in ("float32", "float64"):
        w.unsupported(op, f"a native convolution of {dtype.name}")
    if channels <= few or outputs < _WIDE_CHANNELS or tuple(ksize) == (1, 1):
        w.unsupported(op, "a native convolution of few channels or a 1x1 window")
    strides, dilations = op.attrs["strides"], op.attrs["dilations"]
    _, _, ph, pw = nn_conv.conv_geometry(hw[0], hw[1], ksize, strides, op.attrs["padding"],
                                         dilations)
    return (*strides, *dilations, ph[0], pw[0])


def _filter_matrix(w, op, filters) -> str:
    """The filters [KH, KW, C, O] (`op`'s second input) as the matrix [KH * KW * C, O]."""
    kh, kw, c, o = w.static_dims(filters)
    name = w.ins(op)[1]
    return f"np.ascontiguousarray({name}).reshape(({kh * kw * c}, {o}))"


@lowers(nn_conv.CONV2D)
def _conv2d(w, op):
    x, filters = op.inputs
    _, h, wd, c = x.shape.as_list() if x.shape.rank == 4 else [None] * 4
    kh, kw, _, o = w.static_dims(filters)
    geometry = _conv_geometry(w, op, (h, wd), c, o, x.dtype, (kh, kw))
    args = ", ".join(map(str, (kh, kw, *geometry)))
    _call_into(w, op, f"_w.conv2d(np.ascontiguousarray({w.ins(op)[0]}), "
                      f"{_filter_matrix(w, op, filters)}, {args}, {{out}})")


@lowers(nn_conv.CONV2D_BACKPROP_FILTER)
def _conv2d_backprop_filter(w, op):
    x, g = op.inputs
    _, h, wd, c = x.shape.as_list() if x.shape.rank == 4 else [None] * 4
    kh, kw = op.attrs["filter_size"]
    o = g.shape.as_list()[-1] if g.shape.rank == 4 else None
    geometry = _conv_geometry(w, op, (h, wd), c, o, x.dtype, (kh, kw))
    xs, gs = w.ins(op)
    shape = w.shape_literal(op.outputs[0].shape)
    args = ", ".join(map(str, (kh, kw, *geometry)))
    w.assign(op, f"_w.conv2d_backprop_filter(np.ascontiguousarray({xs}), "
                 f"np.ascontiguousarray({gs}), {args}).reshape({shape})")
    w.fresh_arrays.add(id(op.outputs[0]))


@lowers(nn_conv.CONV2D_BACKPROP_INPUT)
def _conv2d_backprop_input(w, op):
    g, filters = op.inputs
    h, wd = op.attrs["input_size"]
    kh, kw, c, o = w.static_dims(filters)
    # rows of C values added back (col2im) need no im2col copy: from the plane-wise limit
    geometry = _conv_geometry(w, op, (h, wd), c, o, g.dtype, (kh, kw),
                              few=conv_kernels.PLANAR_CHANNELS)
    sh, sw, dh, dw, pt, pl = geometry
    gs, fs = w.ins(op)
    if (sh, sw) == (1, 1) and o < c:
        # a product over O (few) would be narrow: the correlation of the padded output
        # gradient with the flipped filters instead, a product over KH * KW * O
        pads = ((kh - 1) * dh - pt, (kw - 1) * dw - pl)
        args = ", ".join(map(str, (kh, kw, 1, 1, dh, dw, *pads)))
        _call_into(w, op, f"_w.conv2d(np.ascontiguousarray({gs}), _w.flipped_filters("
                          f"np.ascontiguousarray({fs})), {args}, {{out}})")
        return
    args = ", ".join(map(str, (kh, kw, *geometry)))
    _call_into(w, op, f"_w.conv2d_backprop_input(np.ascontiguousarray({gs}), "
                      f"{_filter_matrix(w, op, filters)}, {args}, {{out}})")


_POOL_FALLBACK = ("its NumPy kernel through object mode when the input's height or width is "
                  "not static")
_CONV_FALLBACK = ("its NumPy kernel through object mode for fewer than 16 input channels (4 or "
                  "fewer for the input gradient) or output channels, a 1x1 window, or dims "
                  "that are not static")
# how the tier runs each window op (docs/jit.md's table)
DESCRIPTIONS = {
    nn_conv.MAX_POOL: ("native loops over the windows (windows.py), equal to the NumPy tier bit "
                       f"for bit; {_POOL_FALLBACK}"),
    nn_conv.MAX_POOL_GRAD: ("native loops sending each window's gradient to its first maximum "
                            f"(windows.py), equal to the NumPy tier bit for bit; {_POOL_FALLBACK}"),
    nn_conv.CONV2D: ("native: im2col blocks times the filters through NumPy's BLAS (windows.py), "
                     f"equal to the NumPy tier's up to rounding; {_CONV_FALLBACK}"),
    nn_conv.CONV2D_BACKPROP_FILTER: ("native: the im2col blocks' transposes times the output "
                                     "gradient, accumulated by BLAS (windows.py), equal to the "
                                     f"NumPy tier's up to rounding; {_CONV_FALLBACK}"),
    nn_conv.CONV2D_BACKPROP_INPUT: ("native: blocks of the output gradient times the filters "
                                    "through BLAS, added back into the input positions "
                                    "(windows.py), equal to the NumPy tier's up to rounding; "
                                    f"{_CONV_FALLBACK}"),
}

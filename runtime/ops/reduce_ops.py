"""Reductions over axes: sum, mean, max, min, prod, any, all, argmax, argmin."""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import AXIS, BOOL, DTYPE, OPT_AXES
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_ops as _array
from . import math_ops as _math
from .core import apply, convert_to_tensor
from .shape_rules import normalize_axis, reduced_shape


def _infer(name, kind):
    def infer(x, axis, keepdims):
        if kind == "bool" and not x.dtype.is_bool:
            raise TypeError(f"{name} needs a bool tensor, got {x.dtype.name}.")
        if kind == "numeric" and not x.dtype.is_numeric:
            raise TypeError(f"{name} needs a numeric tensor, got {x.dtype.name}.")
        return reduced_shape(x.shape, axis, keepdims), x.dtype
    return infer


def _mean_kernel(x, axis, keepdims):
    x = np.asarray(x)
    if x.dtype.kind in "iu":
        count = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
        total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        return (total // max(count, 1)).astype(x.dtype)
    return np.mean(x, axis=axis, keepdims=keepdims)


def _emit_mean(em, op):
    t = op.inputs[0]
    x = em.ins(op)[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    dims = t.shape.as_tuple()
    count = None
    if dims is not None and all(d is not None for d in dims):
        count = 1
        for i, d in enumerate(dims):
            if axis is None or i in axis:
                count *= d
    # float16: np.mean, which sums in float32 (a float16 sum overflows past 65504)
    if t.dtype.is_floating and count and t.dtype.name != "float16":
        em.line(f"{em.outs(op)[0]} = np.add.reduce({x}, axis={em.literal(axis)}, "
                f"keepdims={keepdims}) / {count}")
    else:
        em.line(f"{em.outs(op)[0]} = {em.bind(_mean_kernel)}({x}, {em.literal(axis)}, {keepdims})")


_REDUCE = {"axis": OPT_AXES, "keepdims": BOOL}  # the attrs of every reduction over static axes

SUM = define("Sum", _infer("Sum", "numeric"), reduction=np.add, attrs=_REDUCE)


MEAN = define("Mean", _infer("Mean", "numeric"), _mean_kernel, emit=_emit_mean, attrs=_REDUCE)


def reduction_identity(ufunc: np.ufunc, dtype: np.dtype):
    """What a max (`np.maximum`) or min of no elements is, as TensorFlow gives it: the
    lowest (highest) value of `dtype`, -inf (+inf) for floats; None for other dtypes."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return -np.inf if ufunc is np.maximum else np.inf
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.min if ufunc is np.maximum else info.max)
    return None


def _extremum_kernel(ufunc: np.ufunc):
    def kernel(x, axis, keepdims):
        x = np.asarray(x)
        if x.size == 0 and reduction_identity(ufunc, x.dtype) is not None:
            return ufunc.reduce(x, axis=axis, keepdims=keepdims,
                                initial=reduction_identity(ufunc, x.dtype))
        return ufunc.reduce(x, axis=axis, keepdims=keepdims)
    kernel.__name__ = f"{ufunc.__name__}_reduce"
    return kernel


def _may_be_empty(shape: TensorShape) -> bool:
    dims = shape.as_tuple()
    return dims is None or any(d is None or d == 0 for d in dims)


def _emit_extremum(ufunc: np.ufunc):
    """`np.maximum.reduce(...)`; with the identity as `initial` when the input may have no
    elements (NumPy raises there), so known non-empty shapes pay nothing."""
    def emit(em, op) -> None:
        x, t = em.ins(op)[0], op.inputs[0]
        axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
        identity = reduction_identity(ufunc, t.dtype.as_numpy_dtype)
        extra = f", initial={em.literal(identity)}" if (
            identity is not None and _may_be_empty(t.shape)) else ""
        em.line(f"{em.outs(op)[0]} = np.{ufunc.__name__}.reduce({x}, axis={em.literal(axis)}, "
                f"keepdims={keepdims}{extra})")
    return emit


# a max (min) of no elements is the dtype's lowest (highest) value, as in TensorFlow
MAX = define("Max", _infer("Max", "numeric"), _extremum_kernel(np.maximum),
             emit=_emit_extremum(np.maximum), reduction=np.maximum, attrs=_REDUCE)


MIN = define("Min", _infer("Min", "numeric"), _extremum_kernel(np.minimum),
             emit=_emit_extremum(np.minimum), reduction=np.minimum, attrs=_REDUCE)


PROD = define("Prod", _infer("Prod", "numeric"), reduction=np.multiply, attrs=_REDUCE)


ANY = define("Any", _infer("Any", "bool"), reduction=np.logical_or, differentiable=False,
             attrs=_REDUCE)


ALL = define("All", _infer("All", "bool"), reduction=np.logical_and, differentiable=False,
             attrs=_REDUCE)


def _dynamic_infer(name, kind):
    static = _infer(name, kind)

    def infer(x, axis, keepdims):
        if not axis.dtype.is_integer or axis.shape.rank not in (None, 0, 1):
            raise TypeError(f"{name}: axis must be an int scalar or vector, got "
                            f"{axis.dtype.name} of shape {axis.shape}.")
        _, dtype = static(x, None, keepdims)
        dims = x.shape.as_tuple()
        if not keepdims or dims is None:
            return TensorShape(None), dtype
        # each axis is reduced to 1, or kept, depending on the value of `axis`
        return TensorShape([1 if d == 1 else None for d in dims]), dtype
    return infer


def _run_axes(x, axis, op_name):
    """The axes an axis tensor names, checked and made non-negative, when the graph runs."""
    rank = np.ndim(x)
    axes = []
    for a in np.ravel(axis):
        a = int(a)
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"{op_name}: axis {a} is out of range for a tensor of "
                                       f"rank {rank}.")
        axes.append(a % rank)
    return tuple(sorted(set(axes)))


def _dynamic_kernel(static_kernel, op_name):
    def kernel(x, axis, keepdims):
        return static_kernel(x, _run_axes(x, axis, op_name), keepdims)
    return kernel


def _define_dynamic(op, kind, **kwargs):
    """`op` with its axis an input tensor, for axes known only when the graph runs."""
    name = op.name + "Dynamic"
    return define(name, _dynamic_infer(name, kind), _dynamic_kernel(op.kernel, name),
                  attrs={"keepdims": BOOL}, **kwargs)


SUM_DYNAMIC = _define_dynamic(SUM, "numeric")
MEAN_DYNAMIC = _define_dynamic(MEAN, "numeric")
MAX_DYNAMIC = _define_dynamic(MAX, "numeric")
MIN_DYNAMIC = _define_dynamic(MIN, "numeric")
PROD_DYNAMIC = _define_dynamic(PROD, "numeric")
ANY_DYNAMIC = _define_dynamic(ANY, "bool", differentiable=False)
ALL_DYNAMIC = _define_dynamic(ALL, "bool", differentiable=False)
DYNAMIC = {SUM: SUM_DYNAMIC, MEAN: MEAN_DYNAMIC, MAX: MAX_DYNAMIC, MIN: MIN_DYNAMIC,
           PROD: PROD_DYNAMIC, ANY: ANY_DYNAMIC, ALL: ALL_DYNAMIC}


def _spread_kernel(g, x, axis):
    """The gradient of a reduction of `x` over `axis` (a tensor) spread back over `x`."""
    g = np.asarray(g)
    if g.ndim != np.ndim(x):  # the reduced axes were dropped: put them back as size 1
        g = np.expand_dims(g, _run_axes(x, axis, "SumDynamic"))
    return np.broadcast_to(g, np.shape(x)).copy()


SPREAD_DYNAMIC = define("ReduceGradDynamic", lambda g, x, axis: (x.shape, g.dtype), _spread_kernel,
                        differentiable=False)


@SUM_DYNAMIC.def_grad
def _sum_dynamic_grad(op, g):
    return [apply(SPREAD_DYNAMIC, [g, op.inputs[0], op.inputs[1]]), None]


@MEAN_DYNAMIC.def_grad
def _mean_dynamic_grad(op, g):
    x = op.inputs[0]
    spread = apply(SPREAD_DYNAMIC, [g, x, op.inputs[1]])
    count = _math.divide(_array.cast(_array.size(x), x.dtype),
                         _array.cast(_array.size(op.outputs[0]), x.dtype))
    return [_math.divide(spread, count), None]


def _extremum_dynamic_grad(op, g):
    x, axis = op.inputs[0], op.inputs[1]
    top = apply(SPREAD_DYNAMIC, [op.outputs[0], x, axis])
    hits = _array.cast(_math.equal(x, top), x.dtype)
    count = apply(SUM_DYNAMIC, [hits, axis], {"keepdims": True})
    return [_math.multiply(_math.divide(hits, count), apply(SPREAD_DYNAMIC, [g, x, axis])), None]


MAX_DYNAMIC.def_grad(_extremum_dynamic_grad)
MIN_DYNAMIC.def_grad(_extremum_dynamic_grad)


@PROD_DYNAMIC.def_grad
def _prod_dynamic_grad(op, g):
    raise NotImplementedError(
        "The gradient of reduce_prod over an axis given as a tensor (known only when the graph "
        "runs) is not supported; pass the axis as a Python int or list.")


def _reducer(op):
    def fn(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
        x = convert_to_tensor(input_tensor)
        if _array.scalar_known_later(axis) or _array._known_later(axis):
            axis_t = convert_to_tensor(axis, dtype_hint=_dtypes.int32)
            return apply(DYNAMIC[op], [x, axis_t], {"keepdims": bool(keepdims)}, name=name)
        axes = normalize_axis(_axis_value(axis), x.shape.rank, op.name)
        if axes is not None and x.shape.rank is not None and len(axes) == x.shape.rank and not keepdims:
            axes = None
        return apply(op, [x], {"axis": axes, "keepdims": bool(keepdims)}, name=name)
    fn.__name__ = fn.__qualname__ = "reduce_" + op.name.lower()
    fn.__doc__ = (f"The {op.name.lower()} over `axis` (an int, a list, or None for every axis); "
                  f"`keepdims` keeps reduced axes with size 1 (op `{op.name}`).")
    return fn


def _axis_value(axis):
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = constant_value(axis)
    if hasattr(axis, "numpy"):
        axis = axis.numpy()
    if isinstance(axis, (np.ndarray, np.generic)):
        axis = axis.tolist()
    return axis


reduce_sum = export("reduce_sum", "math.reduce_sum")(_reducer(SUM))
reduce_mean = export("reduce_mean", "math.reduce_mean")(_reducer(MEAN))
reduce_max = export("reduce_max", "math.reduce_max")(_reducer(MAX))
reduce_min = export("reduce_min", "math.reduce_min")(_reducer(MIN))
reduce_prod = export("reduce_prod", "math.reduce_prod")(_reducer(PROD))
reduce_any = export("reduce_any", "math.reduce_any")(_reducer(ANY))
reduce_all = export("reduce_all", "math.reduce_all")(_reducer(ALL))


def _arg_infer(name):
    def infer(x, axis, output_type):
        dims = x.shape.as_tuple()
        if dims is None:
            return TensorShape(None), output_type
        return TensorShape([d for i, d in enumerate(dims) if i != axis]), output_type
    return infer


ARGMAX = define("ArgMax", _arg_infer("ArgMax"),
                lambda x, axis, output_type: np.argmax(x, axis=axis).astype(output_type.as_numpy_dtype),
                differentiable=False, attrs={"axis": AXIS, "output_type": DTYPE})


ARGMIN = define("ArgMin", _arg_infer("ArgMin"),
                lambda x, axis, output_type: np.argmin(x, axis=axis).astype(output_type.as_numpy_dtype),
                differentiable=False, attrs={"axis": AXIS, "output_type": DTYPE})


def _arg_dynamic_infer(x, axis, output_type):
    if not axis.dtype.is_integer or axis.shape.rank not in (None, 0):
        raise TypeError(f"axis must be an int scalar, got {axis.dtype.name} of shape {axis.shape}.")
    rank = x.shape.rank
    return TensorShape(None if rank is None else [None] * (rank - 1)), output_type


def _arg_dynamic_kernel(ufunc, op_name):
    def kernel(x, axis, output_type):
        if np.ndim(axis) != 0:
            raise InvalidArgumentError(f"{op_name}: axis must be a scalar, got {np.shape(axis)}.")
        return ufunc(x, axis=_run_axes(x, axis, op_name)[0]).astype(output_type.as_numpy_dtype)
    return kernel


# ArgMax/ArgMin along an axis given as a tensor, known only when the graph runs
ARG_DYNAMIC = {ARGMAX: define("ArgMaxDynamic", _arg_dynamic_infer,
                              _arg_dynamic_kernel(np.argmax, "ArgMaxDynamic"), differentiable=False,
                              attrs={"output_type": DTYPE}),
               ARGMIN: define("ArgMinDynamic", _arg_dynamic_infer,
                              _arg_dynamic_kernel(np.argmin, "ArgMinDynamic"), differentiable=False,
                              attrs={"output_type": DTYPE})}


def _arg(op):
    def fn(input, axis=None, output_type=_dtypes.int64, name=None) -> Tensor:  # noqa: A002
        x = convert_to_tensor(input)
        if _array.scalar_known_later(axis):
            axis_t = convert_to_tensor(axis, dtype_hint=_dtypes.int32)
            return apply(ARG_DYNAMIC[op], [x, axis_t],
                         {"output_type": _dtypes.as_dtype(output_type)}, name=name)
        ax = normalize_axis(0 if axis is None else int(_axis_value(axis)), x.shape.rank, op.name)[0]
        return apply(op, [x], {"axis": ax, "output_type": _dtypes.as_dtype(output_type)}, name=name)
    fn.__name__ = fn.__qualname__ = op.name.lower()
    which = "largest" if op.name == "ArgMax" else "smallest"
    fn.__doc__ = f"The index of the {which} value along `axis` (default 0), as int64 (op `{op.name}`)."
    return fn


argmax = export("argmax", "math.argmax")(_arg(ARGMAX))
argmin = export("argmin", "math.argmin")(_arg(ARGMIN))


# -- gradients -------------------------------------------------------------------------------------
# The rules are in reduce_grads (they use the gradient helpers); this op is Prod's.


def _others_product_kernel(x, axis):
    """For each element, the product of the other elements reduced with it (zeros allowed)."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
    rest = tuple(a for a in range(x.ndim) if a not in axes)
    moved = np.transpose(x, rest + axes)
    flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), x.dtype)
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], axis=-1), axis=-1), -1)
    return np.transpose((before * after).reshape(moved.shape), np.argsort(rest + axes))


PROD_OTHERS = define("ProdOthers", lambda x, axis: (x.shape, x.dtype), _others_product_kernel,
                     attrs={"axis": OPT_AXES})


@export("reduce_logsumexp", "math.reduce_logsumexp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """log(sum(exp(x))) over `axis`, computed without overflow (shifted by the maximum)."""
    x = convert_to_tensor(input_tensor)
    top = reduce_max(x, axis=axis, keepdims=True)
    top = _array.where(_math.less(_math.abs(top), np.inf), top, 0)  # rows of -inf stay -inf
    total = reduce_sum(_math.exp(_math.subtract(x, top)), axis=axis, keepdims=keepdims)
    return _math.add(_math.log(total), reduce_max(top, axis=axis, keepdims=keepdims), name=name)

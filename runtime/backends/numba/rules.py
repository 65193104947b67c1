"""How op types are written for Numba: tables keyed by op type name (`ELEMENTWISE`, `WRITERS`)
that `lowering.py` reads; it writes constants, control flow, variables, TensorArrays and
accumulators itself (also by type name), and any other op with a NumPy kernel vectorised.

An `Elementwise` rule is a scalar expression (used inside fused loops and for rank-0 values)
and, when it differs, an array expression. Any other op has a writer `(w, op) -> None` that
appends its lines through the kernel writer `w` (see `lowering.KernelWriter`).

Placeholders: `{0}`, `{1}`, ... the operands; `{T}` the NumPy type of the result (e.g.
`np.float32`); `{one}` / `{zero}` typed constants of the operands' dtype.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from ... import ops as _ops  # noqa: F401 - defines the ops, filling the registry
from ...opdef import REGISTRY, OpDef
from ...ops.reduce_ops import reduction_identity
from .vectorised import leading_sum


class Elementwise(NamedTuple):
    scalar: str
    array: str | None = None
    boolean: bool = False  # the result is bool: not wrapped in `{T}(...)`


def _elementwise(opdef: OpDef) -> Elementwise:
    """An elementwise op's rule, read off its OpDef: the scalar form (derived from its ufunc or
    declared), the NumPy template for arrays when the scalar form is Python on one element
    (`and`, `x if c else y`), and whether the result is bool."""
    array = opdef.template if opdef.scalar_only else None
    return Elementwise(opdef.scalar, array, _is_boolean(opdef.ufunc))


def _is_boolean(ufunc) -> bool:
    """True when `ufunc` gives bools (comparisons, logic), whatever its operands."""
    return ufunc is not None and np.asarray(ufunc(*[np.float64(1)] * ufunc.nin)).dtype == np.bool_

# A view of the registry: every op that declares an elementwise meaning (see runtime.opdef).
ELEMENTWISE: dict[str, Elementwise] = {
    name: _elementwise(opdef) for name, opdef in REGISTRY.items() if opdef.is_elementwise}

# scalar forms that raise on integer operands (a zero divisor, a negative exponent): a loop
# computing one is not run in parallel, where Numba drops an exception raised in a thread
_RAISING_HELPERS = ("_h.power(", "_h.floordiv(", "_h.floormod(")


def may_raise(op) -> bool:
    """True when the elementwise `op` may raise on its integer operands."""
    rule = ELEMENTWISE.get(op.type)
    return (rule is not None and bool(op.inputs) and op.inputs[0].dtype.is_integer
            and any(helper in rule.scalar for helper in _RAISING_HELPERS))


CAST = "Cast"
FILL = "Fill"  # fused as its value: fusion.operands skips the dims
ALIASES = frozenset({"Identity", "StopGradient"})


# -- array-level writers ------------------------------------------------------------------------

_EXTREMA = {"max": np.maximum, "min": np.minimum}
_IDENTITIES = {"sum": 0, "prod": 1}


def _identity(w, np_fn: str, dtype) -> str | None:
    """Source for the reduction of no elements, as TensorFlow and the NumPy tier give it (the
    dtype's lowest value for a max, 0 for a sum, ...); None where there is none."""
    if dtype.is_bool:
        return {"any": "False", "all": "True"}.get(np_fn)
    if np_fn in _EXTREMA:
        value = reduction_identity(_EXTREMA[np_fn], dtype.as_numpy_dtype)
        return None if value is None else f"{w.dt(dtype)}({value!r})".replace("inf)", "np.inf)")
    return f"{w.dt(dtype)}({_IDENTITIES[np_fn]})" if np_fn in _IDENTITIES else None


def _reduced_count(op, axes) -> int | None:
    """How many elements each result of a reduction over `axes` reduces, when known."""
    dims = op.inputs[0].shape.as_tuple()
    if dims is None or any(dims[a] is None for a in axes):
        return None
    count = 1
    for a in axes:
        count *= dims[a]
    return count


def _reduction(w, op, np_fn: str) -> str:
    """`np.<np_fn>` of the input over `axis` (None or a tuple); keepdims by reshaping. A
    reduction of no elements is its identity (Numba's NumPy raises, or reads past the end)."""
    x = w.ins(op)[0]
    axis, rank = op.attrs["axis"], op.inputs[0].shape.rank
    out = op.outputs[0]
    every = axis is None or len(set(a % rank for a in axis)) == rank
    axes = list(range(rank)) if every else sorted({a % rank for a in axis})
    identity = _identity(w, np_fn, op.inputs[0].dtype)
    if identity is not None and _reduced_count(op, axes) == 0:
        return f"np.full({w.shape_literal(out.shape)}, {identity})" if out.shape.rank else identity
    if every:
        expr = f"np.{np_fn}({x})"
        if np_fn == "sum" and rank and op.inputs[0].dtype.is_floating:
            expr = f"_h.total({x})"
        elif np_fn in _EXTREMA and identity is not None and _reduced_count(op, axes) is None:
            expr = f"({expr} if {x}.size else {identity})"
        return f"np.full({w.shape_literal(out.shape)}, {expr})" if out.shape.rank else expr
    if np_fn == "sum" and leading_sum(op):
        dims = w.static_dims(op.inputs[0])
        count = 1
        for a in axes:
            count *= dims[a]
        flat = f"np.ascontiguousarray({x}).reshape(({count}, {x}.size // {count}))"
        return f"_h.sum_leading({flat}).reshape({w.shape_literal(out.shape)})"
    if np_fn == "sum":
        expr = x
        for a in reversed(axes):
            expr = f"np.sum({expr}, axis={a})"
    else:  # the reduced axes first, flattened to 2-D, reduced over rows
        dims = w.static_dims(op.inputs[0])
        rest = [i for i in range(rank) if i not in axes]
        count = 1
        for a in axes:
            count *= dims[a]
        moved = f"np.ascontiguousarray({x}.transpose({tuple(axes + rest)!r}))"
        expr = (f"_h.reduce_leading({moved}.reshape(({count}, {x}.size // {count})), "
                f"{_MODES[np_fn]})")
    return f"np.ascontiguousarray({expr}).reshape({w.shape_literal(out.shape)})"


_MODES = {"max": 0, "min": 1, "prod": 2, "any": 3, "all": 4}  # helpers.reduce_leading


def _reduce(np_fn: str):
    def write(w, op):
        w.assign(op, w.typed(_reduction(w, op, np_fn), op.outputs[0]))
    return write


def _mean(w, op):
    t, out = op.inputs[0], op.outputs[0]
    if not t.dtype.is_floating:
        w.unsupported(op, "Mean of an integer tensor")
    axis = op.attrs["axis"]
    dims = w.static_dims(t)
    count = 1
    for i, d in enumerate(dims):
        if axis is None or i in [a % len(dims) for a in axis]:
            count *= d
    w.assign(op, w.typed(f"{_reduction(w, op, 'sum')} / {w.dt(out.dtype)}({count})", out))


def _arg_reduce(np_fn: str):
    def write(w, op):
        x = w.ins(op)[0]
        axis, rank = op.attrs["axis"], op.inputs[0].shape.rank
        if rank == 1 or axis is None:
            expr = f"np.{np_fn}({x})"
        else:
            expr = f"np.{np_fn}({x}, axis={axis % rank})"
        w.assign(op, w.typed(expr, op.outputs[0]))
    return write


def _matmul(w, op):
    a, b = w.ins(op)
    if op.inputs[0].shape.rank != 2 or op.inputs[1].shape.rank != 2:
        w.unsupported(op, "MatMul of tensors that are not matrices")
    if op.attrs["transpose_a"]:
        a = f"{a}.T"
    if op.attrs["transpose_b"]:
        b = f"{b}.T"
    # a transposed operand is an F-ordered view, which BLAS takes as it is (no copy)
    w.assign(op, f"_h.dot(_h.blas_ready({a}), _h.blas_ready({b}))")


def _reshaped(w, op):
    """Reshape, ExpandDims, Squeeze: a reshape to the (static) output shape."""
    x = f"np.ascontiguousarray({w.ins(op)[0]})"
    if op.outputs[0].shape.rank == 0:  # a kernel holds rank-0 values as scalars
        w.assign(op, f"{x}.reshape(1)[0]")
    else:
        w.assign(op, f"{x}.reshape({w.shape_literal(op.outputs[0].shape)})")


def _transpose(w, op):
    w.assign(op, f"np.ascontiguousarray({w.ins(op)[0]}.transpose({tuple(op.attrs['perm'])!r}))")


def _concat(w, op):
    names = w.ins(op)
    w.assign(op, f"np.concatenate(({', '.join(names)},), axis={op.attrs['axis']})")


def _pack(w, op):
    names = w.ins(op)
    if op.inputs[0].shape.rank == 0:
        w.assign(op, f"np.array([{', '.join(names)}], dtype={w.dt(op.outputs[0].dtype)})")
    else:
        w.assign(op, f"np.stack(({', '.join(names)},), {op.attrs['axis']})")


def _fill(w, op):
    out = op.outputs[0]
    value = w.ins(op)[1]
    if out.shape.rank == 0:
        w.assign(op, f"{w.dt(out.dtype)}({value})")
    else:
        w.assign(op, f"np.full({w.shape_literal(out.shape)}, {value})")


def _like(value: int):
    def write(w, op):
        out = op.outputs[0]
        fn = "np.zeros" if value == 0 else "np.ones"
        if out.shape.rank == 0:
            w.assign(op, f"{w.dt(out.dtype)}({value})")
        else:
            w.assign(op, f"{fn}({w.ins(op)[0]}.shape, {w.dt(out.dtype)})")
    return write


def _zeros(w, op):
    out = op.outputs[0]
    if out.shape.rank == 0:
        w.assign(op, f"{w.dt(out.dtype)}(0)")
    else:
        w.assign(op, f"np.zeros({w.shape_literal(out.shape)}, {w.dt(out.dtype)})")


def _range(w, op):
    start, limit, delta = w.ins(op)
    out = op.outputs[0]
    w.assign(op, f"np.arange({start}, {limit}, {delta}).astype({w.dt(out.dtype)})")


def _shape(w, op):
    out = op.outputs[0]
    x = w.ins(op)[0]
    rank = op.inputs[0].shape.rank
    items = ", ".join(f"{x}.shape[{i}]" for i in range(rank))
    if rank == 0:
        w.assign(op, f"np.zeros(0, {w.dt(out.dtype)})")
    else:
        w.assign(op, f"np.array([{items}]).astype({w.dt(out.dtype)})")


def _size(w, op):
    x = w.ins(op)[0]
    expr = "1" if op.inputs[0].shape.rank == 0 else f"{x}.size"
    w.assign(op, f"{w.dt(op.outputs[0].dtype)}({expr})")


def _broadcast_to(w, op):
    x = w.ins(op)[0]
    if op.outputs[0].shape.rank == 0:
        w.assign(op, x)
    else:
        w.assign(op, f"np.broadcast_to({x}, {w.shape_literal(op.outputs[0].shape)}).copy()")


def _strided_slice(w, op):
    names = w.ins(op)
    w.assign(op, f"{names[0]}[{_key(w, op, names[1:], names[0])}]")


def _axes_of(key, rank: int) -> list:
    """For each entry of an indexing key, the axis of the indexed array it indexes (None
    for a new axis or `...`)."""
    consuming = sum(1 for k in key if k is not None and k is not Ellipsis)
    axes, axis = [], 0
    for k in key:
        if k is Ellipsis:
            axes.append(None)
            axis += rank - consuming
        elif k is None:
            axes.append(None)
        else:
            axes.append(axis)
            axis += 1
    return axes


def _key(w, op, values, base: str | None = None) -> str:
    """The indexing key of a StridedSlice (or its gradient) in source form, its slots read
    from `values`; refuses index tensors that are not scalars. With `base` (the indexed
    array's name), an index tensor is checked against its axis: Numba reads past the buffer
    where NumPy raises IndexError."""
    key = op.attrs["key"]
    rank = op.inputs[0].shape.rank if base is not None else None
    dims = op.inputs[0].shape.as_tuple() if base is not None else None

    def checked(index: str, axis: int) -> str:
        return f"_h.checked_index(np.int64({index}), np.int64({base}.shape[{axis}]))"

    def one(k, axis=None):
        if hasattr(k, "index"):  # a slot: the value of an index input
            return values[k.index] if axis is None else checked(values[k.index], axis)
        if isinstance(k, int) and axis is not None and dims[axis] is None:
            return checked(repr(k), axis)  # a literal into an axis of unknown size
        if k is Ellipsis:
            return "..."
        if k is None:
            return "None"
        if isinstance(k, slice):
            parts = [one(p) if p is not None else "" for p in (k.start, k.stop, k.step)]
            return f"{parts[0]}:{parts[1]}" + (f":{parts[2]}" if parts[2] else "")
        if isinstance(k, int):
            return repr(k)
        w.unsupported(op, f"indexing with {type(k).__name__}")
    first = 1 if op.type == "StridedSlice" or op.attrs.get("shape") is not None else 2
    for t in op.inputs[first:]:
        if t.shape.rank != 0:
            w.unsupported(op, "indexing with a tensor of indices")
    axes = _axes_of(key, rank) if rank is not None else [None] * len(key)
    inner = ", ".join(one(k, axis) for k, axis in zip(key, axes))
    return f"{inner}{',' if len(key) == 1 else ''}"


def slice_grad_index(op):
    """For a StridedSliceGrad `op` of static shape and scalar indices: the index inputs (the
    values the key's slots read); None when its native form does not cover it."""
    out = op.outputs[0]
    if not out.shape.rank or not out.shape.is_fully_defined() or op.attrs["shape"] is None:
        return None
    rest = op.inputs[1:]
    if any(t.shape.rank != 0 for t in rest) or any(k is None for k in op.attrs["key"]):
        return None
    return rest


def _slice_grad(w, op):
    """Zeros of the sliced tensor's shape with the gradient written into the slice."""
    if slice_grad_index(op) is None:
        w.unsupported(op, "a slice gradient with index tensors, new axes or a dynamic shape")
    names = w.ins(op)
    out = op.outputs[0]
    w.assign(op, f"np.zeros({w.shape_literal(out.shape)}, {w.dt(out.dtype)})")
    w.line(f"{w.name(out)}[{_key(w, op, names[1:])}] = {names[0]}")


def add_into_slice(w, op, grad_op, other: str) -> None:
    """`other + StridedSliceGrad(g)` (`op` the Add, `grad_op` the gradient, read by the Add
    only) as a copy of `other` with `g` added into the slice: one pass over the whole tensor
    instead of three (zeros, the add, and the NumPy tier's kernel round trip)."""
    names = w.ins(grad_op)
    key = _key(w, grad_op, names[1:])
    w.assign(op, f"{other}.copy()")
    w.line(f"{w.name(op.outputs[0])}[{key}] += {names[0]}")


def _gather(w, op):
    x, i = w.ins(op)
    axis = op.attrs["axis"] % op.inputs[0].shape.rank
    rank = op.inputs[1].shape.rank
    if rank == 0 or (rank == 1 and axis == 0):
        # Numba does not check bounds: indices outside [0, size) raise IndexError, as
        # TensorFlow's (and the NumPy tier's) gather refuses them
        index = f"np.int64({i})" if rank == 0 else i
        check = "gather_index" if rank == 0 else "gather_indices"
        w.assign(op, f"{x}[{':, ' * axis}_h.{check}({index}, np.int64({x}.shape[{axis}]))]")
    else:
        w.unsupported(op, "gathering with an index tensor of rank > 1 or along an inner axis")


def _rows(w, t, x: str, axis: int) -> str:
    """`x` as a 2-D array with `axis` (which must be the last) as its rows' elements."""
    dims = w.static_dims(t)
    if axis % len(dims) != len(dims) - 1:
        w.unsupported(w.current, "a softmax along an axis other than the last")
    return f"np.ascontiguousarray({x}).reshape(({t.shape.num_elements() // dims[-1]}, {dims[-1]}))"


def _softmax(log: bool):
    def write(w, op):
        rows = _rows(w, op.inputs[0], w.ins(op)[0], op.attrs["axis"])
        shape = w.shape_literal(op.outputs[0].shape)
        w.assign(op, f"_h.softmax_rows({rows}, {log}).reshape({shape})")
    return write


def _xent(w, op):
    labels, logits = w.ins(op)
    axis = op.attrs["axis"]
    log_p, lab = w.fresh("x"), w.fresh("x")
    w.line(f"{log_p} = _h.softmax_rows({_rows(w, op.inputs[1], logits, axis)}, True)")
    w.line(f"{lab} = {_rows(w, op.inputs[0], labels, axis)}")
    loss, grad = op.outputs
    w.alias(loss, w.fresh("t"))
    w.line(f"{w.name(loss)} = (-np.sum({lab} * {log_p}, axis=1)).reshape({w.shape_literal(loss.shape)})")
    w.alias(grad, w.fresh("t"))
    w.line(f"{w.name(grad)} = (np.exp({log_p}) - {lab}).reshape({w.shape_literal(grad.shape)})")


def _index_along(axis: int, index: str) -> str:
    return ":, " * axis + index


def _unpack(w, op):
    x = w.ins(op)[0]
    axis = op.attrs["axis"] % op.inputs[0].shape.rank
    for i, out in enumerate(op.outputs):
        w.alias(out, w.fresh("t"))
        w.line(f"{w.name(out)} = {x}[{_index_along(axis, str(i))}]")


def _split(w, op):
    x = w.ins(op)[0]
    axis = op.attrs["axis"] % op.inputs[0].shape.rank
    start = 0
    for size, out in zip(op.attrs["sizes"], op.outputs):
        w.alias(out, w.fresh("t"))
        w.line(f"{w.name(out)} = {x}[{_index_along(axis, f'{start}:{start + size}')}]")
        start += size


def _reverse(w, op):
    x = w.ins(op)[0]
    rank = op.inputs[0].shape.rank
    axes = op.attrs["axis"]
    axes = {a % rank for a in (axes if isinstance(axes, (tuple, list)) else (axes,))}
    key = ", ".join("::-1" if i in axes else ":" for i in range(rank))
    w.assign(op, f"np.ascontiguousarray({x}[{key}])")


def _cumsum(w, op):
    x = w.ins(op)[0]
    if op.inputs[0].shape.rank != 1:
        w.unsupported(op, "a cumulative sum of a tensor that is not 1-D")
    src = f"{x}[::-1]" if op.attrs["reverse"] else x
    expr = f"np.cumsum({src})"
    if op.attrs["exclusive"]:
        expr = f"np.concatenate((np.zeros(1, {x}.dtype), {expr}[:-1]))"
    if op.attrs["reverse"]:
        expr = f"np.ascontiguousarray(({expr})[::-1])"
    w.assign(op, w.typed(expr, op.outputs[0]))


def _undefined(w, op):
    """The filler a cond gradient puts in the branch that did not compute a saved value; it
    is never read, so an empty array of the right rank and dtype stands in for it."""
    out = op.outputs[0]
    t = w.dt(out.dtype)
    rank = out.shape.rank
    w.assign(op, f"{t}(0)" if rank == 0 else f"np.zeros(({'0, ' * rank}), {t})")


WRITERS: dict[str, Callable] = {
    "Sum": _reduce("sum"), "Max": _reduce("max"), "Min": _reduce("min"),
    "Prod": _reduce("prod"), "Any": _reduce("any"), "All": _reduce("all"), "Mean": _mean,
    "ArgMax": _arg_reduce("argmax"), "ArgMin": _arg_reduce("argmin"),
    "MatMul": _matmul, "Reshape": _reshaped, "ExpandDims": _reshaped, "Squeeze": _reshaped,
    "Transpose": _transpose, "ConcatV2": _concat, "Pack": _pack, "Fill": _fill,
    "ZerosLike": _like(0), "OnesLike": _like(1), "Zeros": _zeros, "Range": _range,
    "Shape": _shape, "Size": _size, "BroadcastTo": _broadcast_to, "StridedSlice": _strided_slice,
    "GatherV2": _gather, "Softmax": _softmax(False), "LogSoftmax": _softmax(True),
    "SoftmaxCrossEntropyWithLogits": _xent, "Unpack": _unpack, "Split": _split,
    "ReverseV2": _reverse, "Cumsum": _cumsum, "Undefined": _undefined,
    "StridedSliceGrad": _slice_grad,
}

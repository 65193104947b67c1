"""How ops are written for Numba: each op's writer, registered on its OpDef as the op's
"numba" lowering (`lowers(OPDEF, ...)`, read with `writer(opdef)`), or derived from the
OpDef's scalar form for elementwise ops. `lowering.py` registers the writers of control flow
and variables, `tensor_arrays.py` those of TensorArrays and accumulators; any other op with a
NumPy kernel runs it (`vectorised.py`).

A `Writer` appends an op's lines through the kernel writer `w` (see `lowering.KernelWriter`);
an elementwise op's writer also gives the op on one element (`scalar`), which fused loops and
rank-0 values use. Elementwise forms: a scalar expression and, when it differs, an array
expression. Placeholders: `{0}`, `{1}`, ... the operands; `{T}` the NumPy type of the result
(e.g. `np.float32`); `{one}` / `{zero}` typed constants of the operands' dtype.
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple

import numpy as np

from ... import ops as _ops  # noqa: F401 - defines the ops, filling the registry
from ...gradients.cond_grad import UNDEFINED
from ...gradients.custom import STOP_GRADIENT
from ...opdef import OpDef
from ...ops import array_math, linalg, nn
from ...ops.array_math import int_range, is_float_to_int, reduction_identity
from .vectorised import leading_sum


class Writer(NamedTuple):
    """An op's Numba lowering. `write(w, op)` appends its lines; with `numpy_fallback`, a case
    it does not cover (it calls `w.unsupported`) runs the op's NumPy kernel instead.
    `scalar(w, op, operands) -> str` is the op on one element (the op may join a fused loop),
    whose per-element operands are its inputs from `first_operand` on."""

    write: Callable
    numpy_fallback: bool = True
    scalar: Callable | None = None
    first_operand: int = 0


def lowers(*opdefs: OpDef, numpy_fallback: bool = True, scalar: Callable | None = None,
           first_operand: int = 0) -> Callable[[Callable], Callable]:
    """Decorator: `write(w, op)` becomes the Numba lowering of every op of `opdefs`."""
    def register(write: Callable) -> Callable:
        for opdef in opdefs:
            opdef.def_lowering("numba")(Writer(write, numpy_fallback, scalar, first_operand))
        return write
    return register


def writer(opdef: OpDef) -> Writer | None:
    """How the tier writes ops of `opdef` natively: the writer registered on it (a `Writer`,
    or a function `write(w, op)` given to `opdef.def_lowering("numba")`), or the one derived
    from its scalar form; None when it has neither (its NumPy kernel runs)."""
    found = opdef.lowerings.get("numba")
    if found is None and opdef.is_elementwise:
        return _ELEMENTWISE_WRITER
    if found is not None and not isinstance(found, Writer):
        return Writer(found)
    return found


class Elementwise(NamedTuple):
    scalar: str
    array: str | None = None
    boolean: bool = False  # the result is bool: not wrapped in `{T}(...)`


@functools.lru_cache(maxsize=None)
def elementwise(opdef: OpDef) -> Elementwise | None:
    """An elementwise op's forms, read off its OpDef: the scalar form (derived from its ufunc
    or declared), the NumPy template for arrays when the scalar form is Python on one element
    (`and`, `x if c else y`), and whether the result is bool; None for other ops."""
    if not opdef.is_elementwise:
        return None
    array = opdef.template if opdef.scalar_only else None
    return Elementwise(opdef.scalar, array, _is_boolean(opdef.ufunc))


def _is_boolean(ufunc) -> bool:
    """True when `ufunc` gives bools (comparisons, logic), whatever its operands (probed on
    floats, or on integers for the integer-only ufuncs: bitwise_and, left_shift, ...)."""
    if ufunc is None:
        return False
    try:
        probe = ufunc(*[np.float64(1)] * ufunc.nin)
    except TypeError:
        probe = ufunc(*[np.int64(1)] * ufunc.nin)
    return np.asarray(probe).dtype == np.bool_


# scalar forms that raise on integer operands (a zero divisor, a negative exponent): a loop
# computing one is not run in parallel, where Numba drops an exception raised in a thread
_RAISING_HELPERS = ("_h.power(", "_h.floordiv(", "_h.floormod(")


def may_raise(op) -> bool:
    """True when the elementwise `op` may raise on its integer operands."""
    rule = elementwise(op.opdef)
    return (rule is not None and bool(op.inputs) and op.inputs[0].dtype.is_integer
            and any(helper in rule.scalar for helper in _RAISING_HELPERS))


# -- elementwise ----------------------------------------------------------------------------

def _constants_for(w, op) -> dict:
    dtype = op.inputs[0].dtype
    if dtype.is_bool:
        return {}
    t = w.dt(dtype)
    return {"one": f"{t}(1)", "zero": f"{t}(0)", "T": t}


def _elementwise_scalar(w, op, operands) -> str:
    rule = elementwise(op.opdef)
    expr = rule.scalar.format(*operands, **_constants_for(w, op))
    return expr if rule.boolean else f"{w.dt(op.outputs[0].dtype)}({expr})"


def _write_elementwise(w, op) -> None:
    operands = w.ins(op)
    if op.outputs[0].shape.rank == 0:
        w.assign(op, _elementwise_scalar(w, op, operands))
        return
    rule = elementwise(op.opdef)
    w.assign(op, (rule.array or rule.scalar).format(*operands, **_constants_for(w, op)))


_ELEMENTWISE_WRITER = Writer(_write_elementwise, scalar=_elementwise_scalar)


def _saturating(w, x: str, dtype) -> str:
    """The scalar float `x` as the integer `dtype`, saturating as the Cast op does on
    every tier (array_math.saturating_cast): NaN 0, out of range the nearest end."""
    lo, hi, top = int_range(dtype.as_numpy_dtype)
    t = w.dt(dtype)
    return (f"({t}(0) if {x} != {x} else {t}({lo}) if {x} < {float(lo)!r} else "
            f"{t}({hi}) if {x} >= {top!r} else {t}({x}))")


def _cast_scalar(w, op, operands) -> str:
    out = op.outputs[0]
    if out.dtype.is_bool:
        return f"{operands[0]} != 0"
    if is_float_to_int(op.inputs[0].dtype.as_numpy_dtype, out.dtype.as_numpy_dtype):
        return _saturating(w, operands[0], out.dtype)
    return f"{w.dt(out.dtype)}({operands[0]})"


@lowers(array_math.CAST, scalar=_cast_scalar)
def _cast(w, op):
    out, src = op.outputs[0], op.inputs[0]
    x = w.ins(op)[0]
    if out.shape.rank == 0:
        w.assign(op, _cast_scalar(w, op, [x]))
    elif src.shape.rank == 0:
        w.assign(op, f"np.full({w.shape_literal(out.shape)}, {x})")
    elif out.dtype.is_bool:
        w.assign(op, f"{x} != 0")
    elif is_float_to_int(src.dtype.as_numpy_dtype, out.dtype.as_numpy_dtype):
        lo, hi, top = int_range(out.dtype.as_numpy_dtype)
        t = w.dt(out.dtype)
        w.assign(op, f"_h.saturate_into({x}, np.empty({x}.shape, {t}), {t}({lo}), {t}({hi}), "
                     f"{top!r})")
    else:
        w.assign(op, f"{x}.astype({w.dt(out.dtype)})")


def _fill_scalar(w, op, operands) -> str:
    out = op.outputs[0]
    return operands[0] if out.dtype.is_bool else f"{w.dt(out.dtype)}({operands[0]})"


@lowers(array_math.FILL, scalar=_fill_scalar, first_operand=1)  # fused as its value, not its dims
def _fill(w, op):
    out = op.outputs[0]
    value = w.ins(op)[1]
    if out.shape.rank == 0:
        w.assign(op, f"{w.dt(out.dtype)}({value})")
    else:
        w.assign(op, f"np.full({w.shape_literal(out.shape)}, {value})")


ALIASES = frozenset({array_math.IDENTITY, STOP_GRADIENT})  # their result is their input


@lowers(*ALIASES)
def _alias(w, op):
    w.alias(op.outputs[0], w.name(op.inputs[0]))


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
        moved = f"np.ascontiguousarray({permuted(x, axes + rest)})"
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


def permuted(x: str, perm) -> str:
    """A view of the array `x` with its axes in the order `perm`, as `x.transpose(perm)`
    (whose Numba form compiles a check of the permutation with sets and fancy indexing:
    seconds in every process), made of its shape and strides."""
    perm = [int(p) for p in perm]
    if perm == list(range(len(perm))):
        return x
    if perm == [1, 0]:
        return f"{x}.T"
    shape = "".join(f"{x}.shape[{p}], " for p in perm)
    strides = "".join(f"{x}.strides[{p}], " for p in perm)
    return f"np.lib.stride_tricks.as_strided({x}, ({shape}), ({strides}))"


def _transpose(w, op):
    w.assign(op, f"np.ascontiguousarray({permuted(w.ins(op)[0], op.attrs['perm'])})")


def _concat(w, op):
    names = w.ins(op)
    w.assign(op, f"np.concatenate(({', '.join(names)},), axis={op.attrs['axis']})")


def _pack(w, op):
    names = w.ins(op)
    if op.inputs[0].shape.rank == 0:
        w.assign(op, f"np.array([{', '.join(names)}], dtype={w.dt(op.outputs[0].dtype)})")
    else:
        w.assign(op, f"np.stack(({', '.join(names)},), {op.attrs['axis']})")


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
    first = 1 if op.opdef is array_math.STRIDED_SLICE or op.attrs.get("shape") is not None else 2
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
    key = _key(w, op, names[1:])
    if _leading_ints(op):
        w.line(f"_h.copy_into({w.name(out)}[{key}], {names[0]})")
    else:
        w.line(f"{w.name(out)}[{key}] = {names[0]}")


def _leading_ints(op) -> bool:
    """Whether a StridedSliceGrad's key indexes some leading axes with integers and nothing
    else: its view of a C-contiguous array is one, and an array. Such a slice is written by a
    helper loop: Numba's slice assignment costs seconds of compile (its shape message)."""
    key = op.attrs["key"]
    return (len(key) < op.outputs[0].shape.rank
            and all(hasattr(k, "index") or (type(k) is int) for k in key))


def one_row_scatter(op) -> bool:
    """Whether `op` is a ScatterAddAxis of one index into the rows (axis 0) of a tensor of
    static shape: the gradient of a gather of one step of a sequence (a staged RNN loop)."""
    out = op.outputs[0]
    return (op.opdef is array_math.SCATTER_AXIS and op.inputs[1].shape.rank == 0
            and op.attrs["axis"] == 0 and bool(out.shape.rank) and out.shape.is_fully_defined()
            and op.inputs[0].shape.rank == out.shape.rank - 1)


def add_into_slice(w, op, grad_op, other: str, in_place: bool = False) -> None:
    """`other + StridedSliceGrad(g)` or `other + ScatterAddAxis(g, i)` of one row (`op` the
    Add, `grad_op` the gradient, read by the Add only) as `other` with `g` added into the
    slice: a copy of `other` (one pass over the whole tensor instead of three: zeros, the add,
    and the NumPy tier's kernel round trip), or `other` itself when it is a loop's
    accumulator that nothing else reads (`in_place`: the loop made it its own array, and a
    gradient accumulated over a loop's steps costs a row a step, not the whole tensor)."""
    names = w.ins(grad_op)
    if in_place:
        w.alias(op.outputs[0], other)
    else:
        w.assign(op, f"{other}.copy()")
    if grad_op.opdef is array_math.SCATTER_AXIS:
        row = f"_h.gather_index(np.int64({names[1]}), np.int64({other}.shape[0]))"
        w.line(f"_h.add_into({w.name(op.outputs[0])}[{row}], {names[0]})")
        return
    key = _key(w, grad_op, names[1:])
    if _leading_ints(grad_op):
        w.line(f"_h.add_into({w.name(op.outputs[0])}[{key}], {names[0]})")
    else:
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
    w.line(f"{w.name(loss)} = _h.cross_entropy_rows({lab}, {log_p}).reshape("
           f"{w.shape_literal(loss.shape)})")
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


# -- each op's writer, on its OpDef -----------------------------------------------------------

for _opdef, _np_fn in ((array_math.SUM, "sum"), (array_math.MAX, "max"), (array_math.MIN, "min"),
                       (array_math.PROD, "prod"), (array_math.ANY, "any"), (array_math.ALL, "all")):
    lowers(_opdef)(_reduce(_np_fn))
lowers(array_math.MEAN)(_mean)
lowers(array_math.ARGMAX)(_arg_reduce("argmax"))
lowers(array_math.ARGMIN)(_arg_reduce("argmin"))
lowers(linalg.MATMUL)(_matmul)
lowers(array_math.RESHAPE, array_math.EXPAND_DIMS, array_math.SQUEEZE)(_reshaped)
lowers(array_math.TRANSPOSE)(_transpose)
lowers(array_math.CONCAT)(_concat)
lowers(array_math.STACK)(_pack)
lowers(array_math.ZEROS_LIKE)(_like(0))
lowers(array_math.ONES_LIKE)(_like(1))
lowers(array_math.ZEROS)(_zeros)
lowers(array_math.RANGE)(_range)
lowers(array_math.SHAPE)(_shape)
lowers(array_math.SIZE)(_size)
lowers(array_math.BROADCAST_TO)(_broadcast_to)
lowers(array_math.STRIDED_SLICE)(_strided_slice)
lowers(array_math.GATHER)(_gather)
lowers(nn.SOFTMAX)(_softmax(False))
lowers(nn.LOG_SOFTMAX)(_softmax(True))
lowers(nn.XENT)(_xent)
lowers(array_math.UNSTACK)(_unpack)
lowers(array_math.SPLIT)(_split)
lowers(array_math.REVERSE)(_reverse)
lowers(array_math.CUMSUM)(_cumsum)
lowers(UNDEFINED)(_undefined)
lowers(array_math.SLICE_GRAD)(_slice_grad)

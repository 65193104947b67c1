"""Ops a kernel hands to NumPy: the op's own NumPy kernel run inside `numba.objmode`.

Two kinds of op take this path (`lowering.KernelWriter` asks `vectorised(op)`):

- ops without a native Numba form (`Erf`, `Einsum`, `Tile`, random draws, `PrintV2`, ...):
  the kernel calls the op's `OpDef.kernel`, so results and side effects (a random draw
  advances the same generator, a print prints at every call) are the NumPy tier's;
- ops whose native form loses to NumPy's vectorised routines: transcendental elementwise
  functions on arrays of `VECTOR_MIN_SIZE` elements or more (this Numba's LLVM has no SVML,
  so `np.tanh` in a loop is a scalar call per element, ~20x slower than NumPy on 4096
  float32), and row/axis operations (reductions along axes, softmax) where NumPy's
  routines are faster than Numba's loops.

An object-mode round trip costs about 1.3 us, so cheap arithmetic stays in fused loops, and
small arrays stay native.

The op's kernel (with its attributes bound) is put in the kernel module's `_OPS` list after
the module is loaded (`compiler.compile_graph`); the source names the op and a digest of its
attributes, so one source always means the same calls, and Numba's on-disk cache stays valid.
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np

from ...ops import array_math, nn

# Elementwise ops whose scalar code is a libm call (no SVML: never vectorised by LLVM).
TRANSCENDENTAL = frozenset({
    array_math.EXP, array_math.LOG, array_math.LOG1P, array_math.SIN, array_math.COS, array_math.TAN,
    array_math.TANH, array_math.SIGMOID, array_math.ERF, array_math.POW})
# Array-level ops always run by NumPy when their input has VECTOR_MIN_SIZE elements.
ROW_OPS = frozenset({nn.SOFTMAX, nn.LOG_SOFTMAX, nn.XENT})
# Reductions run by NumPy when they reduce along some (not all) axes of a large input.
AXIS_REDUCTIONS = frozenset({array_math.SUM, array_math.MEAN, array_math.MAX, array_math.MIN,
                             array_math.PROD, array_math.ANY, array_math.ALL})
_LEADING_SUMS = frozenset({array_math.SUM, array_math.MEAN})

VECTOR_MIN_SIZE = 128  # measured crossover: np.tanh/np.exp on float32 vs Numba's loop
# Row ops are several NumPy passes plus an object-mode round trip: the native helper wins
# below this (softmax cross-entropy of 64x10 float32: 7 us native, 22 us NumPy; 256x10: 25 vs
# 49 us; 64x100: 68 vs 39 us)
ROW_MIN_SIZE = 2048


def _size(tensor) -> int | None:
    n = tensor.shape.num_elements()
    return n


def vectorised(op) -> bool:
    """Whether a natively compilable op runs faster as NumPy's whole-array routine."""
    opdef = op.opdef
    if opdef in TRANSCENDENTAL:
        if opdef is array_math.POW and not op.outputs[0].dtype.is_floating:
            return False
        out = op.outputs[0]
        if not out.dtype.is_floating or not out.shape.rank:
            return False
        n = _size(out)
        return n is None or n >= VECTOR_MIN_SIZE
    if opdef in ROW_OPS:
        n = _size(op.inputs[-1])
        return n is None or n >= ROW_MIN_SIZE
    if opdef in AXIS_REDUCTIONS:
        x = op.inputs[0]
        rank = x.shape.rank
        axis = op.attrs.get("axis")
        if not rank or axis is None or len({a % rank for a in axis}) == rank:
            return False
        if leading_sum(op):  # a native loop adds rows as NumPy does, as fast
            return False
        n = _size(x)
        return n is None or n >= VECTOR_MIN_SIZE
    return False


def leading_sum(op) -> bool:
    """Whether `op` sums (or averages) a float tensor of static shape over its leading axes
    only (`Sum(axis=0)` of a matrix: a bias gradient). NumPy adds whole rows into the result
    in order, and so does `helpers.sum_leading`, so results agree exactly."""
    x = op.inputs[0]
    if op.opdef not in _LEADING_SUMS or not x.dtype.is_floating:
        return False
    rank, axis = x.shape.rank, op.attrs.get("axis")
    if not rank or axis is None or not x.shape.is_fully_defined():
        return False
    axes = {a % rank for a in axis}
    return len(axes) < rank and axes == set(range(len(axes)))


def numba_type(dtype, rank: int) -> str:
    """The Numba type string objmode declares for a value of `dtype` and `rank`."""
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    scalar = "boolean" if np_dtype.kind == "b" else np_dtype.name
    if rank == 0:
        return scalar
    return f"{scalar}[{', '.join([':'] * (rank - 1) + ['::1'])}]"


def bound(op):
    """The op's NumPy kernel with its attributes bound."""
    return functools.partial(op.opdef.kernel, **op.attrs) if op.attrs else op.opdef.kernel


def attrs_digest(op) -> str:
    """A digest of the op's attributes, so that different attributes give different sources."""
    h = hashlib.sha256()
    for key in sorted(op.attrs):
        h.update(key.encode())
        h.update(_repr(op.attrs[key]).encode())
    return h.hexdigest()[:16]


def _repr(value) -> str:
    if isinstance(value, np.ndarray):
        return f"ndarray({value.dtype}, {value.shape}, {hashlib.sha256(value.tobytes()).hexdigest()})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_repr(v) for v in value)
        return f"{type(value).__name__}({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_repr(k)}: {_repr(v)}" for k, v in sorted(
            value.items(), key=lambda kv: repr(kv[0]))) + "}"
    return repr(value)


def scalar_in(value, dtype):
    """A rank-0 kernel value as the NumPy scalar the NumPy tier would hold."""
    return dtype(value)


def array_out(value, dtype, rank: int):
    """The op's result as the C-contiguous, writeable array of `dtype` objmode declared."""
    a = np.asarray(value)
    if a.dtype != dtype or not a.flags.c_contiguous or not a.flags.writeable:
        a = np.array(a, dtype=dtype, order="C")
    if a.ndim != rank:
        raise ValueError(f"the op's NumPy kernel gave rank {a.ndim}, expected {rank}")
    return a


def scalar_out(value, dtype):
    v = np.asarray(value)
    if v.ndim:
        v = v.reshape(())
    return bool(v) if dtype is np.bool_ else dtype(v[()])


def _dying_operand(w, op):
    """An operand of the ufunc op `op` whose array the kernel allocated for it alone and that
    only `op` reads, in the same graph (not a loop body reading it each iteration): `op`
    writes its result there, as the NumPy tier does, instead of into a new array."""
    if op.attrs or op.opdef.ufunc is None or op.opdef.out_template is None \
            or len(op.outputs) != 1:
        return None
    out = op.outputs[0]
    for t in op.inputs:
        if (id(t) in w.fresh_arrays and w.only_reader(t, op) and t.op.graph is op.graph
                and t.dtype == out.dtype and t.shape.is_fully_defined()
                and t.shape.as_tuple() == out.shape.as_tuple()):
            return t
    return None


def write(w, op) -> None:
    """Writes `op` as a call of its NumPy kernel inside an objmode block (a ufunc op as its
    ufunc writing into a dying operand's array, when it has one)."""
    w.object_mode = True
    args = []
    for t in op.inputs:
        name = w.name(t)
        args.append(f"_v.scalar_in({name}, {w.dt(t.dtype)})" if t.shape.rank == 0 else name)
    into = _dying_operand(w, op)
    index = len(w.calls)
    w.calls.append(bound(op) if into is None else op.opdef.ufunc)
    call = f"_OPS[{index}]({', '.join(args + ([] if into is None else [f'out={w.name(into)}']))})"
    outs = []
    for t in op.outputs:
        w.dt(t.dtype)  # refuses dtypes a kernel cannot hold
        name = w.fresh("t")
        w.alias(t, name)
        outs.append((name, t))
    # objmode refuses to declare a value nothing reads afterwards
    w.open_objmode(op, [(name, t, numba_type(t.dtype, t.shape.rank)) for name, t in outs],
                   f"{op.type} {attrs_digest(op)}")
    with w.indented():
        if not outs:
            w.line(call)
            w.close_objmode()
            return
        r = w.fresh("r")
        w.line(f"{r} = {call}")
        for k, (name, t) in enumerate(outs):
            if not w.is_read(t):
                continue
            value = r if len(outs) == 1 and op.opdef.num_outputs == 1 else f"{r}[{k}]"
            if t.shape.rank == 0:
                w.line(f"{name} = _v.scalar_out({value}, {w.dt(t.dtype)})")
            else:
                w.line(f"{name} = _v.array_out({value}, {w.dt(t.dtype)}, {t.shape.rank})")
                if op.opdef.fresh_output:  # a new array the kernel alone holds
                    w.fresh_arrays.add(id(t))
    w.close_objmode()

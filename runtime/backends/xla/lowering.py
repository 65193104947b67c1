"""Op type -> the JAX function that computes it: the XLA tier's table.

A lowering is `rule(op, *values) -> value` (or a list of values for ops with several
outputs), where `values` are JAX arrays (tracers while `jax.jit` traces) or NumPy arrays
(values known while tracing: constants and shapes). Elementwise ops and reductions are
derived from their OpDef's ufunc (`np.exp` -> `jnp.exp`, through the ufunc's `__name__`);
the others are written here. Ops without a rule are refused by the compiler with a
JitCompileError naming the op.

Control flow (`If`, `While`) and variables are not in this table: the compiler
(`compiler.py`) lowers them, since they run subgraphs and thread state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np
from jax import lax

from ...opdef import REGISTRY, builtin_ops
from ...ops.array_ops import fill_key

Rule = Callable[..., Any]

_RULES: dict[str, Rule] = {}

# NumPy ufunc names whose jax.numpy function has another name
_UFUNC_NAMES = {"divide": "true_divide"}
# reductions by the ufunc they reduce with
_REDUCERS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
             "logical_and": "all", "logical_or": "any"}


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Decorator: `fn(op, *values)` lowers the ops named `names`."""
    def register(fn: Rule) -> Rule:
        for name in names:
            _RULES[name] = fn
        return fn
    return register


def lowering(op_type: str) -> Optional[Rule]:
    """The rule for an op type: written here, or derived from the op's ufunc or reduction;
    None when the tier has none."""
    found = _RULES.get(op_type)
    if found is not None:
        return found
    opdef = REGISTRY.get(op_type)
    if opdef is None:
        return None
    ufunc = opdef.ufunc if opdef.ufunc is not None else (
        opdef.kernel if isinstance(opdef.kernel, np.ufunc) else None)
    if ufunc is not None:
        name = _UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__)
        fn = getattr(jnp, name, None)
        if fn is None:
            return None
        derived: Rule = lambda op, *xs: fn(*xs)  # noqa: E731
    elif opdef.reduction is not None:
        fn = getattr(jnp, _REDUCERS[opdef.reduction.__name__])
        derived = lambda op, x: fn(x, axis=op.attrs["axis"],  # noqa: E731
                                   keepdims=op.attrs["keepdims"])
    else:
        return None
    _RULES[op_type] = derived
    return derived


def covered() -> set[str]:
    """The builtin op types this tier lowers (the table, derived rules, and the ops the
    compiler lowers itself)."""
    return {name for name in builtin_ops() if name in COMPILER_OPS or lowering(name) is not None}


# lowered by the compiler itself (subgraphs, variables, constants, random state)
COMPILER_OPS = frozenset({"Const", "Placeholder", "If", "While", "ReadVariableOp",
                          "AssignVariableOp", "VarInitIfNeeded", "RandomUniform",
                          "RandomStandardNormal", "TruncatedNormal", "RandomUniformDynamic",
                          "RandomStandardNormalDynamic", "TruncatedNormalDynamic"})


def static(value, what: str) -> np.ndarray:
    """`value` as a NumPy array when it is known while tracing; TypeError (turned into a
    JitCompileError by the compiler) when it is only known at run time."""
    if isinstance(value, (np.ndarray, np.generic, int, float)):
        return np.asarray(value)
    raise TypeError(f"{what} must be known when the function is compiled (XLA needs static "
                    "shapes), but it is computed at run time")


def _np_dtype(dtype):
    return None if dtype is None else dtype._np


# -- math ------------------------------------------------------------------------------------

@rule("RealDiv")
def _div(op, x, y):
    want = op.outputs[0].dtype._np  # int / int is float64, as in NumPy
    return jnp.true_divide(jnp.asarray(x, want), jnp.asarray(y, want))


@rule("Rsqrt")
def _rsqrt(op, x):
    return lax.rsqrt(x)


@rule("Sigmoid")
def _sigmoid(op, x):
    return jax.nn.sigmoid(x)


@rule("Round")
def _round(op, x):
    return jnp.round(x)


@rule("Erf")
def _erf(op, x):
    return jax.scipy.special.erf(x)


@rule("Reciprocal")
def _reciprocal(op, x):
    return 1 / x


@rule("Relu")
def _relu(op, x):
    return jnp.maximum(x, 0)


@rule("ReluGrad")
def _relu_grad(op, g, y):
    return jnp.where(y > 0, g, 0)


@rule("Mean")
def _mean(op, x):
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    if jnp.issubdtype(x.dtype, jnp.integer):
        count = int(np.prod(x.shape)) if axis is None else int(np.prod([x.shape[a] for a in axis]))
        total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=jnp.int64)
        return total // max(count, 1)
    return jnp.mean(x, axis=axis, keepdims=keepdims)


@rule("ArgMax", "ArgMin")
def _arg(op, x):
    fn = jnp.argmax if op.type == "ArgMax" else jnp.argmin
    return fn(x, axis=op.attrs["axis"])


@rule("Softmax")
def _softmax(op, x):
    return jax.nn.softmax(x, axis=op.attrs["axis"])


@rule("LogSoftmax")
def _log_softmax(op, x):
    return jax.nn.log_softmax(x, axis=op.attrs["axis"])


@rule("SoftmaxCrossEntropyWithLogits")
def _xent(op, labels, logits):
    axis = op.attrs["axis"]
    log_p = jax.nn.log_softmax(logits, axis=axis)
    return [-jnp.sum(labels * log_p, axis=axis), jnp.exp(log_p) - labels]


# -- linear algebra --------------------------------------------------------------------------

@rule("MatMul")
def _matmul(op, a, b):
    if op.attrs["transpose_a"]:
        a = jnp.swapaxes(a, -1, -2)
    if op.attrs["transpose_b"]:
        b = jnp.swapaxes(b, -1, -2)
    return jnp.matmul(a, b)


@rule("Tensordot")
def _tensordot(op, a, b):
    return jnp.tensordot(a, b, op.attrs["axes"])


@rule("Einsum")
def _einsum(op, *xs):
    return jnp.einsum(op.attrs["equation"], *xs)


@rule("MatrixInverse")
def _inv(op, a):
    return jnp.linalg.inv(a)


@rule("MatrixDeterminant")
def _det(op, a):
    return jnp.linalg.det(a)


# -- shapes and arrays -----------------------------------------------------------------------

@rule("Reshape")
def _reshape(op, x):
    return jnp.reshape(x, op.attrs["shape"])


@rule("ReshapeDynamic")
def _reshape_dynamic(op, x, s):
    return jnp.reshape(x, tuple(int(v) for v in static(s, "The new shape")))


@rule("Transpose")
def _transpose(op, x):
    return jnp.transpose(x, op.attrs["perm"])


@rule("ConcatV2")
def _concat(op, *xs):
    return jnp.concatenate(xs, axis=op.attrs["axis"])


@rule("Pack")
def _pack(op, *xs):
    return jnp.stack(xs, axis=op.attrs["axis"])


@rule("Unpack")
def _unpack(op, x):
    axis = op.attrs["axis"]
    return [jnp.take(x, i, axis=axis) for i in range(op.attrs["num"])]


@rule("Split")
def _split(op, x):
    sizes, axis = op.attrs["sizes"], op.attrs["axis"]
    return list(jnp.split(x, [int(v) for v in np.cumsum(sizes)[:-1]], axis=axis))


@rule("Squeeze")
def _squeeze(op, x):
    return jnp.squeeze(x, op.attrs["axis"])


@rule("ExpandDims")
def _expand_dims(op, x):
    return jnp.expand_dims(x, op.attrs["axis"])


@rule("Tile")
def _tile(op, x):
    return jnp.tile(x, op.attrs["multiples"])


@rule("TileDynamic")
def _tile_dynamic(op, x, multiples):
    return jnp.tile(x, tuple(int(m) for m in static(multiples, "The multiples")))


@rule("GatherV2")
def _gather(op, params, indices):
    return jnp.take(params, indices, axis=op.attrs["axis"])


@rule("SelectV2")
def _select(op, c, x, y):
    return jnp.where(c, x, y)


@rule("Fill")
def _fill(op, dims, value):
    shape = tuple(int(d) for d in np.ravel(static(dims, "The dims of fill")))
    return jnp.full(shape, value, dtype=op.outputs[0].dtype._np)


@rule("ZerosLike", "OnesLike")
def _like(op, x):
    fn = jnp.zeros if op.type == "ZerosLike" else jnp.ones
    return fn(np.shape(x), dtype=op.outputs[0].dtype._np)


@rule("Zeros")
def _zeros(op):
    shape = op.outputs[0].shape
    if not shape.is_fully_defined():
        raise TypeError("The shape of zeros must be known when the function is compiled")
    return np.zeros(shape.as_tuple(), op.outputs[0].dtype._np)


@rule("Shape")
def _shape(op, x):
    return np.array(np.shape(x), op.attrs["out_type"]._np)  # known while tracing


@rule("Size")
def _size(op, x):
    return np.array(int(np.prod(np.shape(x))), op.attrs["out_type"]._np)


@rule("Cast")
def _cast(op, x):
    return jnp.asarray(x).astype(op.attrs["dtype"]._np)


@rule("Identity", "StopGradient")
def _identity(op, x):
    return x


@rule("OneHot")
def _one_hot(op, indices):
    hot = indices[..., None] == jnp.arange(op.attrs["depth"])
    out = jnp.where(hot, op.attrs["on_value"], op.attrs["off_value"]).astype(op.attrs["dtype"]._np)
    if op.attrs["axis"] != -1:
        out = jnp.moveaxis(out, -1, op.attrs["axis"])
    return out


@rule("ReverseV2")
def _reverse(op, x):
    return jnp.flip(x, op.attrs["axis"])


@rule("Cumsum", "Cumprod")
def _cumulative(op, x):
    axis = op.attrs["axis"]
    if op.attrs["reverse"]:
        x = jnp.flip(x, axis)
    fn = jnp.cumsum if op.type == "Cumsum" else jnp.cumprod
    out = fn(x, axis=axis, dtype=x.dtype)
    if op.attrs["exclusive"]:
        first = jnp.zeros_like(jnp.take(out, jnp.array([0]), axis=axis)) if op.type == "Cumsum" \
            else jnp.ones_like(jnp.take(out, jnp.array([0]), axis=axis))
        rest = jnp.take(out, jnp.arange(out.shape[axis] - 1), axis=axis)
        out = jnp.concatenate([first, rest], axis=axis)
    if op.attrs["reverse"]:
        out = jnp.flip(out, axis)
    return out


@rule("StridedSlice")
def _strided_slice(op, x, *index_values):
    return jnp.asarray(x)[fill_key(op.attrs["key"], index_values)]


@rule("BroadcastTo")
def _broadcast_to(op, x, *like):
    shape = np.shape(like[0]) if like else op.attrs["shape"]
    return jnp.broadcast_to(x, tuple(shape))


@rule("SumToShape")
def _sum_to_shape(op, g, like):
    shape = np.shape(like)
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape)
                                      if d == 1 and g.shape[i + lead] != 1)
    out = jnp.sum(g, axis=axes, keepdims=True) if axes else g
    return jnp.reshape(out, shape)


@rule("StridedSliceGrad")
def _strided_slice_grad(op, g, *rest):
    shape = op.attrs["shape"]
    if shape is None:
        shape, rest = np.shape(rest[0]), rest[1:]
    out = jnp.zeros(tuple(shape), g.dtype)
    return out.at[fill_key(op.attrs["key"], rest)].add(g)


@rule("SplitLike")
def _split_like(op, g, *xs):
    axis = op.attrs["axis"]
    sizes = [np.shape(x)[axis] for x in xs]
    return list(jnp.split(g, [int(v) for v in np.cumsum(sizes)[:-1]], axis=axis))


@rule("ScatterAddAxis")
def _scatter_add_axis(op, g, indices, *like):
    axis, shape = op.attrs["axis"], op.attrs["shape"]
    shape = tuple(np.shape(like[0]) if shape is None else shape)
    moved = jnp.zeros((shape[axis],) + shape[:axis] + shape[axis + 1:], g.dtype)
    idx = jnp.asarray(indices)
    rows = jnp.moveaxis(g, list(range(axis, axis + idx.ndim)), list(range(idx.ndim)))
    moved = moved.at[idx.reshape(-1)].add(rows.reshape((idx.size,) + moved.shape[1:]))
    return jnp.moveaxis(moved, 0, axis)


@rule("Undefined")
def _undefined(op):
    shape, dtype = op.attrs["shape"], op.attrs["dtype"]
    if not shape.is_fully_defined():
        raise TypeError("A value of a branch not taken has an unknown shape")
    return np.zeros(shape.as_tuple(), dtype._np)


# -- sorting ---------------------------------------------------------------------------------

@rule("Sort")
def _sort(op, x):
    out = jnp.sort(x, axis=op.attrs["axis"])
    return jnp.flip(out, op.attrs["axis"]) if op.attrs["descending"] else out


@rule("Roll")
def _roll(op, x, shift, axis):
    shift = tuple(int(s) for s in np.ravel(static(shift, "The shift of roll")))
    axis = tuple(int(a) for a in np.ravel(static(axis, "The axis of roll")))
    return jnp.roll(x, shift, axis=axis)

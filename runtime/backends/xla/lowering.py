"""The XLA tier's lowerings: each op's JAX function, registered on the op's OpDef.

A lowering is `rule(op, *values) -> value` (or a list of values for ops with several
outputs), where `values` are JAX arrays (tracers while `jax.jit` traces) or NumPy arrays
(values known while tracing: constants and shapes). `@rule(OPDEF, ...)` stores it as
`OPDEF.lowerings["xla"]`, and the compiler finds it there (`lowering(op.opdef)`): no decision
here or in the compiler reads an op's type name. Elementwise ops and reductions without a
rule get one derived from their OpDef's ufunc (`np.exp` -> `jnp.exp`, through the ufunc's
`__name__`), cached on the OpDef. A random op's rule (`opdef.random`) takes the seed of its
draw after the op: `rule(op, seed, *values)`. Ops without a rule are refused by the compiler
with a JitCompileError naming the op.

Constants, control flow (`If`, `While`), variables and carried lists (TensorArrays, a
loop's saves) have no rule: the compiler (`compiler.py`) lowers them, since they run
subgraphs and thread state (`lowered_by_compiler`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import jax.scipy.linalg
import jax.scipy.special
import numpy as np
from jax import lax

from ... import errors
from ...gradients import cond_grad, custom, while_grad
from ...opdef import OpDef, builtin_ops
from ...ops import (
    array_math,
    array_scatter,
    array_sort,
    bitwise,
    control_flow,
    debugging,
    linalg,
    linalg_decompositions,
    math_special,
    nn,
    nn_conv,
    philox,
    random,
    random_stateless,
    tensor_array,
)
from ...ops.array_math import IndexSlot, fill_key
from . import accuracy
from . import arrays as _arrays

Rule = Callable[..., Any]

BACKEND = "xla"  # the key of this tier's rules in `OpDef.lowerings`

# OpDef -> whether an op of it needs a validity flag (its rule may return Checked)
_CHECKING: dict[OpDef, Callable[[Any], bool]] = {}
# ops whose rule computes in float64 (the graph then runs in JAX's x64 mode)
_WIDE: set[OpDef] = set()
# OpDefs with no rule, neither written nor derivable (not derived again)
_NONE: set[OpDef] = set()

# NumPy ufunc names whose jax.numpy function has another name
_UFUNC_NAMES = {"divide": "true_divide"}
# reductions by the ufunc they reduce with
_REDUCERS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
             "logical_and": "all", "logical_or": "any"}


def rule(*opdefs: OpDef, checks: Any = False, wide: bool = False) -> Callable[[Rule], Rule]:
    """Decorator: `fn(op, *values)` lowers the ops of `opdefs` (stored on each OpDef). With
    `checks` (True, or a predicate of the op) it may return a `Checked`: the value and a
    validity flag computed in the kernel; with `wide`, it computes in float64."""
    def register(fn: Rule) -> Rule:
        for opdef in opdefs:
            opdef.def_lowering(BACKEND)(fn)
            if checks:
                _CHECKING[opdef] = _always if checks is True else checks
            if wide:
                _WIDE.add(opdef)
        return fn
    return register


class Checked(NamedTuple):
    """A rule's value with `ok`, a boolean scalar computed in the kernel that is False when
    the inputs were invalid (an index out of range, an integer division by zero, a failed
    assertion), and `problem`, what went wrong (for the error): a text, or the exception
    itself (an assertion's). The compiler threads the flags through the program and raises
    after the call, as the NumPy tier raises."""

    value: Any
    ok: Any
    problem: str


def _always(op) -> bool:
    return True


# lowered by the compiler: a write at a run-time index into a list that grows is checked
# against the room the list has (compiler._Tracer._write), a read against the list's
# length (compiler._in_list)
_CHECKING[tensor_array.TA_WRITE] = lambda op: bool(op.attrs.get("dynamic_size"))
_CHECKING[tensor_array.TA_READ] = _CHECKING[tensor_array.TA_GATHER] = _always


def checks(op) -> bool:
    """Whether the rule of `op` may return a Checked (the graph then carries a flag)."""
    needs = _CHECKING.get(op.opdef)
    return needs is not None and needs(op)


def computes_wide(opdef: OpDef) -> bool:
    """Whether the rule of `opdef` computes in float64 (JAX's x64 mode must be on)."""
    return opdef in _WIDE


def _all(condition) -> Any:
    """One boolean: every element of `condition` holds (NumPy when known while tracing)."""
    if isinstance(condition, (np.ndarray, np.generic, bool)):
        return np.bool_(np.all(condition))
    return jnp.all(condition)


def lowering(opdef: OpDef) -> Optional[Rule]:
    """The rule for `opdef`: registered on it, or derived from its ufunc or reduction (and
    then registered on it); None when the tier has none."""
    found = opdef.lowerings.get(BACKEND)
    if found is not None or opdef in _NONE:
        return found
    derived = _derived(opdef)
    if derived is None:
        _NONE.add(opdef)
        return None
    opdef.def_lowering(BACKEND)(derived)
    return derived


def _derived(opdef: OpDef) -> Optional[Rule]:
    """A rule from the op's ufunc (its jax.numpy twin) or reduction; None without one."""
    ufunc = opdef.ufunc if opdef.ufunc is not None else (
        opdef.kernel if isinstance(opdef.kernel, np.ufunc) else None)
    if ufunc is not None:
        fn = accuracy.FORMS.get(ufunc) or getattr(
            jnp, _UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__), None)
        if fn is None:
            return None
        return lambda op, *xs: fn(*xs)
    if opdef.reduction is not None:
        reducer = getattr(jnp, _REDUCERS[opdef.reduction.__name__])
        return lambda op, x: _reduce(reducer, x, op.attrs["axis"], op.attrs["keepdims"])
    return None


def _empty_value(fn, dtype: np.dtype):
    """What max (min) of no elements is, as in TensorFlow: the lowest (highest) value of the
    dtype, -inf (inf) for floats; None for reductions whose JAX function has an identity."""
    if fn is not jnp.max and fn is not jnp.min:
        return None
    high = fn is jnp.min
    if dtype.kind == "f":
        return np.inf if high else -np.inf
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if high else info.min
    return high  # bool


def _reduce(fn, x, axis, keepdims):
    """`fn` over `axis`; max and min of no elements give their identity (shapes are known
    while tracing, so only a reduction over an empty axis pays for it)."""
    shape = np.shape(x)
    axes = range(len(shape)) if axis is None else np.ravel(axis).tolist()
    if any(shape[a] == 0 for a in axes):
        initial = _empty_value(fn, np.dtype(jnp.result_type(x)))
        if initial is not None:
            return fn(x, axis=axis, keepdims=keepdims, initial=initial)
    return fn(x, axis=axis, keepdims=keepdims)


# the region ops the compiler runs: If as lax.cond (or a select), While as lax.while_loop
REGIONS = frozenset({control_flow.COND, control_flow.WHILE})


def lowered_by_compiler(opdef: OpDef) -> bool:
    """Whether the compiler lowers `opdef` itself rather than through a rule: constants and
    placeholders, If and While (their subgraphs), variables and carried lists (state it
    threads through the program)."""
    return (opdef.is_constant or opdef.is_placeholder or opdef in REGIONS or opdef.variable
            or opdef.carrier is not None)


def covered() -> set[str]:
    """The names of the builtin ops this tier lowers (rules, derived rules, and the ops the
    compiler lowers itself): a report, for tests and docs."""
    return {name for name, opdef in builtin_ops().items()
            if lowered_by_compiler(opdef) or lowering(opdef) is not None}


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

@rule(array_math.DIV)
def _div(op, x, y):
    want = op.outputs[0].dtype._np  # int / int is float64, as in NumPy
    return jnp.true_divide(jnp.asarray(x, want), jnp.asarray(y, want))


# float32 sine and cosine: XLA's CPU sine does not vectorise (about ten times slower than
# NumPy's); this one reduces the argument in float64 (two-part pi/2, exact enough while
# |x| < 2**20) and evaluates fdlibm's kernels in float64, within one float32 ulp. Arrays
# holding a larger, infinite or NaN value take XLA's own sine (a whole-array lax.cond).
_PIO2_HI, _PIO2_LO = 1.57079632673412561417e+00, 6.07710050650619224932e-11
_SIN = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
        2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
_COS = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
        -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)


def _horner(z, coefficients):
    out = coefficients[-1]
    for c in coefficients[-2::-1]:
        out = out * z + c
    return out


def _fast_sin_cos(x, cosine: bool):
    xd = x.astype(np.float64)
    k = jnp.round(xd * (2 / np.pi))
    r = (xd - k * _PIO2_HI) - k * _PIO2_LO
    z = r * r
    sin_r = r + r * z * _horner(z, _SIN)
    cos_r = 1.0 - 0.5 * z + z * z * _horner(z, _COS)
    q = (k.astype(np.int32) + (1 if cosine else 0)) & 3
    out = jnp.where((q & 1) == 0, sin_r, cos_r)
    out = jnp.where(q >= 2, -out, out).astype(x.dtype)
    return out if cosine else jnp.where(x == 0, x, out)  # sin(-0) is -0


def _sin_cos(x, cosine: bool):
    slow = jnp.cos if cosine else jnp.sin
    if jnp.asarray(x).dtype != np.float32 or jnp.size(x) < 4096:
        return slow(x)
    small = jnp.max(jnp.abs(x)) < 2.0 ** 20  # False for inf and nan too
    return lax.cond(small, lambda v: _fast_sin_cos(v, cosine), slow, x)


@rule(array_math.SIN, wide=True)
def _sin(op, x):
    return _sin_cos(x, cosine=False)


@rule(array_math.COS, wide=True)
def _cos(op, x):
    return _sin_cos(x, cosine=True)


@rule(array_math.RSQRT)
def _rsqrt(op, x):
    return lax.rsqrt(x)


@rule(array_math.SIGMOID)
def _sigmoid(op, x):
    return jax.nn.sigmoid(x)


@rule(array_math.ROUND)
def _round(op, x):
    return jnp.round(x)


@rule(array_math.ERF)
def _erf(op, x):
    return jax.scipy.special.erf(x)


@rule(array_math.RECIPROCAL)
def _reciprocal(op, x):
    return 1 / x


@rule(nn.RELU)
def _relu(op, x):
    return jnp.maximum(x, 0)


@rule(nn.RELU_GRAD)
def _relu_grad(op, g, y):
    # g times the mask, as the NumPy kernel: a NaN or infinite g where y <= 0 gives NaN, and
    # -g * 0 keeps its sign (XLA rewrites g * mask into a select of 0, so it is written out)
    return jnp.where(y > 0, g, g * 0)


def _is_float(x) -> bool:
    return jnp.issubdtype(jnp.result_type(x), jnp.floating)


# NumPy's maximum and minimum return the second operand when the two compare equal (so
# maximum(-0.0, 0.0) is 0.0 and maximum(0.0, -0.0) is -0.0) and NaN when either is NaN;
# XLA's order -0.0 below 0.0. Floats select as NumPy does, so the zeros agree bit for bit.
@rule(array_math.MAXIMUM)
def _maximum(op, x, y):
    if not _is_float(x):
        return jnp.maximum(x, y)
    return jnp.where(jnp.isnan(x) | (x > y), x, y)


@rule(array_math.MINIMUM)
def _minimum(op, x, y):
    if not _is_float(x):
        return jnp.minimum(x, y)
    return jnp.where(jnp.isnan(x) | (x < y), x, y)


@rule(array_math.SIGN)
def _sign(op, x):
    if not _is_float(x):
        return jnp.sign(x)
    return jnp.where(x == 0, jnp.zeros_like(x), jnp.sign(x))  # NumPy's sign(-0.0) is 0.0


def _float_divmod(x, y):
    """NumPy's float floor division and remainder (its npy_divmod), step by step, so every
    JAX version gives NumPy's values: signed zeros (a zero quotient has the sign of x / y, a
    zero remainder that of y), x / y for a zero divisor, and floor(x / y) corrected by fmod."""
    mod = jnp.fmod(x, y)
    div = (x - mod) / y
    adjust = (mod != 0) & ((y < 0) != (mod < 0))
    mod = jnp.where(adjust, mod + y, jnp.where(mod == 0, jnp.copysign(jnp.zeros_like(mod), y),
                                                mod))
    div = jnp.where(adjust, div - 1, div)
    floor = jnp.floor(div)
    floor = jnp.where(div - floor > 0.5, floor + 1, floor)
    floor = jnp.where(div == 0, jnp.copysign(jnp.zeros_like(div), x / y), floor)
    return jnp.where(y == 0, x / y, floor), jnp.where(y == 0, jnp.fmod(x, y), mod)


# integers: JAX's floor division and remainder; floats: NumPy's, written out (_float_divmod)
_DIVISIONS = {array_math.FLOORDIV: (jnp.floor_divide, 0), array_math.MOD: (jnp.remainder, 1)}


def _integer_operand(op) -> bool:
    return op.inputs[1].dtype.is_integer


@rule(*_DIVISIONS, checks=_integer_operand)
def _floor_division(op, x, y):
    fn, part = _DIVISIONS[op.opdef]
    value = fn(x, y)
    if _is_float(value):
        return _float_divmod(*jnp.broadcast_arrays(x, y))[part].astype(value.dtype)
    if not jnp.issubdtype(jnp.result_type(y), jnp.integer):
        return value
    return Checked(value, _all(y != 0), "Integer division by zero")


@rule(array_math.POW, checks=_integer_operand)
def _pow(op, x, y):
    value = accuracy.power(x, y)  # NumPy's integer wrap-around, subnormal bases flushed
    if not jnp.issubdtype(jnp.result_type(y), jnp.integer):
        return value
    # NumPy (so every tier) refuses integers to negative integer powers
    return Checked(value, _all(y >= 0), "Integers to negative integer powers are not allowed")


@rule(debugging.ASSERT, checks=True)
def _assert(op, condition, *data):
    """A staged assertion (`rt.Assert`, `rt.debugging.assert_*`, a converted `assert`): no
    value; its condition is the validity flag. A failed call runs again on the NumPy tier,
    which raises the assertion's own error with its data; `problem` is that error without
    the data, for a call that is not run again."""
    shown = [str(body) for tag, body in op.attrs["parts"] if tag != "t"]
    text = "\n".join(part for part in [op.attrs["message"], " ".join(shown)] if part)
    return Checked([], _all(condition), errors.InvalidArgumentError(text or "assertion failed"))


@rule(debugging.RAISE_UNLESS, checks=True)
def _raise_unless(op, condition):
    """A `raise` under a staged `if`: no value; its condition is the validity flag, and the
    user's exception the problem (the NumPy tier raises it)."""
    return Checked([], _all(condition), op.attrs["exception"])


@rule(array_math.MEAN)
def _mean(op, x):
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    if jnp.issubdtype(x.dtype, jnp.integer):
        count = int(np.prod(x.shape)) if axis is None else int(np.prod([x.shape[a] for a in axis]))
        total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=jnp.int64)
        return total // max(count, 1)
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def _may_be_empty(op) -> bool:
    """Whether the axis an ArgMax/ArgMin reduces may have no elements."""
    dims, axis = op.inputs[0].shape.as_tuple(), op.attrs["axis"]
    if dims is None:
        return True
    return 0 in dims or None in dims if axis is None else dims[axis] in (0, None)


@rule(array_math.ARGMAX, array_math.ARGMIN, checks=_may_be_empty)
def _arg(op, x):
    fn = jnp.argmax if op.opdef is array_math.ARGMAX else jnp.argmin
    axis = op.attrs["axis"]
    if (np.size(x) if axis is None else np.shape(x)[axis]):
        return fn(x, axis=axis)
    # no elements to choose from: an error when called, as on the NumPy tier and in TF
    shape = () if axis is None else np.shape(x)[:axis] + np.shape(x)[axis + 1:]
    return Checked(np.zeros(shape, np.int64), np.bool_(False),
                   f"{op.type}: the reduced axis of shape {list(np.shape(x))} is empty")


@rule(nn.SOFTMAX)
def _softmax(op, x):
    return jax.nn.softmax(x, axis=op.attrs["axis"])


@rule(nn.LOG_SOFTMAX)
def _log_softmax(op, x):
    return jax.nn.log_softmax(x, axis=op.attrs["axis"])


@rule(nn.XENT)
def _xent(op, labels, logits):
    axis = op.attrs["axis"]
    log_p = jax.nn.log_softmax(logits, axis=axis)
    return [-jnp.sum(labels * log_p, axis=axis), jnp.exp(log_p) - labels]


# -- linear algebra --------------------------------------------------------------------------

@rule(linalg.MATMUL)
def _matmul(op, a, b):
    if op.attrs["transpose_a"]:
        a = jnp.swapaxes(a, -1, -2)
    if op.attrs["transpose_b"]:
        b = jnp.swapaxes(b, -1, -2)
    return jnp.matmul(a, b)


@rule(linalg.TENSORDOT)
def _tensordot(op, a, b):
    return jnp.tensordot(a, b, op.attrs["axes"])


@rule(linalg.EINSUM)
def _einsum(op, *xs):
    return jnp.einsum(op.attrs["equation"], *xs)


@rule(linalg.INV)
def _inv(op, a):
    return jnp.linalg.inv(a)


@rule(linalg.DET)
def _det(op, a):
    return jnp.linalg.det(a)


# -- shapes and arrays -----------------------------------------------------------------------

@rule(array_math.RESHAPE)
def _reshape(op, x):
    return jnp.reshape(x, op.attrs["shape"])


@rule(array_math.RESHAPE_DYNAMIC)
def _reshape_dynamic(op, x, s):
    return jnp.reshape(x, tuple(int(v) for v in static(s, "The new shape")))


@rule(array_math.TRANSPOSE)
def _transpose(op, x):
    return jnp.transpose(x, op.attrs["perm"])


@rule(array_math.CONCAT)
def _concat(op, *xs):
    return jnp.concatenate(xs, axis=op.attrs["axis"])


@rule(array_math.STACK)
def _pack(op, *xs):
    return jnp.stack(xs, axis=op.attrs["axis"])


@rule(array_math.UNSTACK)
def _unpack(op, x):
    axis = op.attrs["axis"]
    return [jnp.take(x, i, axis=axis) for i in range(op.attrs["num"])]


@rule(array_math.SPLIT)
def _split(op, x):
    sizes, axis = op.attrs["sizes"], op.attrs["axis"]
    return list(jnp.split(x, [int(v) for v in np.cumsum(sizes)[:-1]], axis=axis))


@rule(array_math.SQUEEZE)
def _squeeze(op, x):
    return jnp.squeeze(x, op.attrs["axis"])


@rule(array_math.EXPAND_DIMS)
def _expand_dims(op, x):
    return jnp.expand_dims(x, op.attrs["axis"])


@rule(array_math.TILE)
def _tile(op, x):
    return jnp.tile(x, op.attrs["multiples"])


@rule(array_math.TILE_DYNAMIC)
def _tile_dynamic(op, x, multiples):
    return jnp.tile(x, tuple(int(m) for m in static(multiples, "The multiples")))


def _in_range(indices, size):
    """Whether every index is in [0, size) (TensorFlow refuses negative indices too)."""
    return _all((indices >= 0) & (indices < size))


@rule(array_math.GATHER, checks=True)
def _gather(op, params, indices):
    axis = op.attrs["axis"]
    size = np.shape(params)[axis]
    return Checked(jnp.take(params, indices, axis=axis, mode="clip"), _in_range(indices, size),
                   f"GatherV2: an index is not in [0, {size})")


@rule(array_math.SELECT)
def _select(op, c, x, y):
    return jnp.where(c, x, y)


@rule(array_math.FILL)
def _fill(op, dims, value):
    shape = tuple(int(d) for d in np.ravel(static(dims, "The dims of fill")))
    return jnp.full(shape, value, dtype=op.outputs[0].dtype.as_numpy_dtype)


@rule(array_math.ZEROS_LIKE, array_math.ONES_LIKE)
def _like(op, x):
    fn = jnp.zeros if op.opdef is array_math.ZEROS_LIKE else jnp.ones
    return fn(np.shape(x), dtype=op.outputs[0].dtype.as_numpy_dtype)


@rule(array_math.ZEROS)
def _zeros(op):
    shape = op.outputs[0].shape
    if not shape.is_fully_defined():
        raise TypeError("The shape of zeros must be known when the function is compiled")
    return np.zeros(shape.as_tuple(), op.outputs[0].dtype.as_numpy_dtype)


@rule(array_math.SHAPE)
def _shape(op, x):
    return np.array(np.shape(x), op.attrs["out_type"].as_numpy_dtype)  # known while tracing


@rule(array_math.SIZE)
def _size(op, x):
    return np.array(int(np.prod(np.shape(x))), op.attrs["out_type"].as_numpy_dtype)


@rule(array_math.CAST)
def _cast(op, x):
    x, dtype = jnp.asarray(x), np.dtype(op.attrs["dtype"].as_numpy_dtype)
    if dtype.kind in "iu" and _is_float(x):
        return _saturating_cast(x, dtype)
    return x.astype(dtype)


def _saturating_cast(x, dtype: np.dtype):
    """Floats to integers as on every tier: toward zero, NaN to 0, and values beyond the
    integer type's range (infinities too) to its minimum or maximum."""
    info = np.iinfo(dtype)
    with np.errstate(over="ignore"):  # 2**31 is inf in float16: only inf reaches it
        low = np.asarray(info.min, x.dtype)  # a power of two (or 0): exact
        high = np.asarray(float(info.max) + 1, x.dtype)
    inside = (x > low) & (x < high)
    out = jnp.where(inside, x, jnp.zeros_like(x)).astype(dtype)
    out = jnp.where(x >= high, np.asarray(info.max, dtype), out)
    return jnp.where(x <= low, np.asarray(info.min, dtype), out)


@rule(array_math.IDENTITY, custom.STOP_GRADIENT)
def _identity(op, x):
    return x


@rule(array_math.ONE_HOT)
def _one_hot(op, indices):
    hot = indices[..., None] == jnp.arange(op.attrs["depth"])
    out = jnp.where(hot, op.attrs["on_value"], op.attrs["off_value"]).astype(op.attrs["dtype"].as_numpy_dtype)
    if op.attrs["axis"] != -1:
        out = jnp.moveaxis(out, -1, op.attrs["axis"])
    return out


@rule(array_math.REVERSE)
def _reverse(op, x):
    return jnp.flip(x, op.attrs["axis"])


@rule(array_math.CUMSUM, array_sort.CUMPROD)
def _cumulative(op, x):
    axis = op.attrs["axis"]
    if op.attrs["reverse"]:
        x = jnp.flip(x, axis)
    summing = op.opdef is array_math.CUMSUM
    fn = jnp.cumsum if summing else jnp.cumprod
    out = fn(x, axis=axis, dtype=x.dtype)
    if op.attrs["exclusive"]:
        head = jnp.take(out, jnp.array([0]), axis=axis)
        first = jnp.zeros_like(head) if summing else jnp.ones_like(head)
        rest = jnp.take(out, jnp.arange(out.shape[axis] - 1), axis=axis)
        out = jnp.concatenate([first, rest], axis=axis)
    if op.attrs["reverse"]:
        out = jnp.flip(out, axis)
    return out


def _index_slots(op) -> list:
    """(slot, axis) of each integer tensor that indexes (not slices) an axis of `x[key]`."""
    key, rank = op.attrs["key"], op.inputs[0].shape.rank
    if rank is None:
        return []
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    found, axis = [], 0
    for k in key:
        if k is Ellipsis:
            axis += rank - consumed
            continue
        if k is None:
            continue
        if isinstance(k, IndexSlot) and op.inputs[1 + k.index].dtype.is_integer:
            found.append((k.index, axis))
        axis += 1
    return found


@rule(array_math.STRIDED_SLICE, checks=lambda op: bool(_index_slots(op)))
def _strided_slice(op, x, *index_values):
    value = jnp.asarray(x)[fill_key(op.attrs["key"], index_values)]
    slots = _index_slots(op)
    if not slots:
        return value
    dims = np.shape(x)
    ok = [_all((index_values[k] >= -dims[a]) & (index_values[k] < dims[a])) for k, a in slots]
    return Checked(value, ok[0] if len(ok) == 1 else _all(jnp.stack(ok)),
                   f"StridedSlice: an index is out of bounds for shape {list(dims)}")


@rule(array_math.BROADCAST_TO)
def _broadcast_to(op, x, *like):
    shape = np.shape(like[0]) if like else op.attrs["shape"]
    return jnp.broadcast_to(x, tuple(shape))


@rule(array_math.SUM_TO_SHAPE)
def _sum_to_shape(op, g, like):
    shape = np.shape(like)
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape)
                                      if d == 1 and g.shape[i + lead] != 1)
    out = jnp.sum(g, axis=axes, keepdims=True) if axes else g
    return jnp.reshape(out, shape)


@rule(array_math.SLICE_GRAD)
def _strided_slice_grad(op, g, *rest):
    shape = op.attrs["shape"]
    if shape is None:
        shape, rest = np.shape(rest[0]), rest[1:]
    out = jnp.zeros(tuple(shape), g.dtype)
    return out.at[fill_key(op.attrs["key"], rest)].add(g)


@rule(array_math.SPLIT_LIKE)
def _split_like(op, g, *xs):
    axis = op.attrs["axis"]
    sizes = [np.shape(x)[axis] for x in xs]
    return list(jnp.split(g, [int(v) for v in np.cumsum(sizes)[:-1]], axis=axis))


@rule(array_math.SCATTER_AXIS)
def _scatter_add_axis(op, g, indices, *like):
    axis, shape = op.attrs["axis"], op.attrs["shape"]
    shape = tuple(np.shape(like[0]) if shape is None else shape)
    moved = jnp.zeros((shape[axis],) + shape[:axis] + shape[axis + 1:], g.dtype)
    idx = jnp.asarray(indices)
    rows = jnp.moveaxis(g, list(range(axis, axis + idx.ndim)), list(range(idx.ndim)))
    moved = moved.at[idx.reshape(-1)].add(rows.reshape((idx.size,) + moved.shape[1:]))
    return jnp.moveaxis(moved, 0, axis)


@rule(cond_grad.UNDEFINED)
def _undefined(op):
    shape, dtype = op.attrs["shape"], op.attrs["dtype"]
    if not shape.is_fully_defined():
        raise TypeError("A value of a branch not taken has an unknown shape")
    return np.zeros(shape.as_tuple(), dtype.as_numpy_dtype)


# -- sorting ---------------------------------------------------------------------------------

@rule(array_sort.SORT)
def _sort(op, x):
    out = jnp.sort(x, axis=op.attrs["axis"])
    return jnp.flip(out, op.attrs["axis"]) if op.attrs["descending"] else out


@rule(array_sort.ROLL)
def _roll(op, x, shift, axis):
    shift = tuple(int(s) for s in np.ravel(static(shift, "The shift of roll")))
    axis = tuple(int(a) for a in np.ravel(static(axis, "The axis of roll")))
    return jnp.roll(x, shift, axis=axis)


# -- reductions over axes given as tensors (known while tracing) -----------------------------

def _axes(x, axis, what="The axis") -> tuple:
    rank = np.ndim(x)
    return tuple(sorted({int(a) % rank for a in np.ravel(static(axis, what))})) if rank else ()


_DYNAMIC_REDUCERS = {array_math.SUM_DYNAMIC: jnp.sum, array_math.PROD_DYNAMIC: jnp.prod,
                     array_math.MAX_DYNAMIC: jnp.max, array_math.MIN_DYNAMIC: jnp.min,
                     array_math.ALL_DYNAMIC: jnp.all, array_math.ANY_DYNAMIC: jnp.any}


@rule(*_DYNAMIC_REDUCERS)
def _reduce_dynamic(op, x, axis):
    return _reduce(_DYNAMIC_REDUCERS[op.opdef], x, _axes(x, axis), op.attrs["keepdims"])


@rule(array_math.MEAN_DYNAMIC)
def _mean_dynamic(op, x, axis):
    return _mean_over(x, _axes(x, axis), op.attrs["keepdims"])


def _mean_over(x, axis, keepdims):
    if jnp.issubdtype(x.dtype, jnp.integer):
        count = int(np.prod(x.shape)) if axis is None else int(np.prod([x.shape[a] for a in axis]))
        total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=jnp.int64)
        return total // max(count, 1)
    return jnp.mean(x, axis=axis, keepdims=keepdims)


@rule(*array_math.ARG_DYNAMIC.values())
def _arg_dynamic(op, x, axis):
    fn = jnp.argmax if op.opdef is array_math.ARG_DYNAMIC[array_math.ARGMAX] else jnp.argmin
    return fn(x, axis=_axes(x, axis)[0]).astype(op.attrs["output_type"].as_numpy_dtype)


@rule(array_math.SPREAD_DYNAMIC)
def _reduce_grad_dynamic(op, g, x, axis):
    if jnp.ndim(g) != np.ndim(x):
        g = jnp.expand_dims(g, _axes(x, axis))
    return jnp.broadcast_to(g, np.shape(x))


@rule(array_math.TILE_GRAD_DYNAMIC)
def _tile_grad_dynamic(op, g, x, multiples):
    dims = np.shape(x)
    mult = [int(m) for m in np.ravel(static(multiples, "The multiples"))]
    split = [d for pair in zip(mult, dims) for d in pair]
    return jnp.sum(jnp.reshape(g, split), axis=tuple(range(0, 2 * len(dims), 2)), dtype=g.dtype)


@rule(array_math.PROD_OTHERS)
def _prod_others(op, x):
    axis = op.attrs["axis"]
    axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
    rest = tuple(a for a in range(x.ndim) if a not in axes)
    moved = jnp.transpose(x, rest + axes)
    flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
    ones = jnp.ones(flat.shape[:-1] + (1,), x.dtype)
    before = jnp.cumprod(jnp.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = jnp.flip(jnp.cumprod(jnp.concatenate([ones, jnp.flip(flat, -1)[..., :-1]], axis=-1),
                                 axis=-1), -1)
    return jnp.transpose((before * after).reshape(moved.shape), np.argsort(rest + axes))


# -- values whose shape depends on values: only when known while tracing ---------------------

@rule(array_math.RANGE, array_math.WHERE_INDICES, array_sort.UNIQUE, array_sort.UNIQUE_WITH_COUNTS,
      array_math.BOOLEAN_MASK, array_sort.BINCOUNT, array_sort.REPEAT)
def _value_shaped(op, *values):
    raise TypeError(f"the shape of the result of {op.type} depends on values known only at "
                    "run time; XLA needs static shapes")


# -- sorting and selection -------------------------------------------------------------------

def _stable_argsort(x, axis, descending):
    if not descending:
        return jnp.argsort(x, axis=axis, stable=True)
    n = x.shape[axis]
    return n - 1 - jnp.flip(jnp.argsort(jnp.flip(x, axis), axis=axis, stable=True), axis)


@rule(array_sort.ARGSORT)
def _argsort(op, x):
    return _stable_argsort(x, op.attrs["axis"], op.attrs["descending"]).astype(np.int32)


@rule(array_sort.TOP_K)
def _top_k(op, x, k):
    k = int(static(k, "k"))
    order = _stable_argsort(x, -1, True)[..., :k]
    return [jnp.take_along_axis(x, order, -1), order.astype(np.int32)]


@rule(array_sort.TAKE_ALONG)
def _take_along(op, x, indices):
    return jnp.take_along_axis(x, indices, op.attrs["axis"])


@rule(array_sort.SCATTER_ALONG)
def _scatter_along(op, g, indices, *like):
    shape = tuple(np.shape(like[0]) if op.attrs["shape"] is None else op.attrs["shape"])
    grid = list(jnp.ix_(*[jnp.arange(d) for d in indices.shape]))
    grid[op.attrs["axis"]] = indices
    return jnp.zeros(shape, g.dtype).at[tuple(grid)].add(g)


# -- gather and scatter ----------------------------------------------------------------------

def _nd_key(indices):
    return tuple(jnp.moveaxis(jnp.asarray(indices), -1, 0))


def _tuples_in(indices, dims):
    """Whether every index tuple (the last axis of `indices`) falls inside `dims`."""
    k = np.shape(indices)[-1]
    bounds = np.asarray(dims[:k], np.dtype(jnp.result_type(indices)))
    return _all((indices >= 0) & (indices < bounds))


@rule(array_math.GATHER_ND, checks=True)
def _gather_nd(op, params, indices):
    dims = list(np.shape(params))
    return Checked(jnp.asarray(params)[_nd_key(indices)], _tuples_in(indices, dims),
                   f"GatherNd: an index tuple does not index into param shape {dims}")


@rule(array_scatter.SCATTER_ND, checks=True)
def _scatter_nd(op, indices, updates, shape):
    dims = tuple(int(d) for d in np.ravel(static(shape, "The shape of scatter_nd")))
    return Checked(jnp.zeros(dims, updates.dtype).at[_nd_key(indices)].add(updates),
                   _tuples_in(indices, dims),
                   f"ScatterNd: an index tuple does not index into shape {list(dims)}")


@rule(array_math.SCATTER_ND)
def _scatter_nd_add(op, g, indices, *like):
    shape = tuple(np.shape(like[0]) if op.attrs["shape"] is None else op.attrs["shape"])
    return jnp.zeros(shape, g.dtype).at[_nd_key(indices)].add(g)


_SCATTERS = {array_scatter.TENSOR_SCATTER["Add"]: lambda at, u: at.add(u),
             array_scatter.TENSOR_SCATTER["Sub"]: lambda at, u: at.add(-u),
             array_scatter.TENSOR_SCATTER["Max"]: lambda at, u: at.max(u),
             array_scatter.TENSOR_SCATTER["Min"]: lambda at, u: at.min(u),
             array_scatter.TENSOR_SCATTER["Update"]: lambda at, u: at.set(u)}


@rule(*_SCATTERS, checks=True)
def _tensor_scatter(op, tensor, indices, updates):
    tensor = jnp.asarray(tensor)
    value = _SCATTERS[op.opdef](tensor.at[_nd_key(indices)], updates)
    return Checked(value, _tuples_in(indices, tensor.shape),
                   f"{op.type}: an index tuple does not index into shape {list(tensor.shape)}")


# each segment op's reduction ("Sum", "Mean", "Prod", "Max", "Min"), by OpDef
_SEGMENT_KINDS = {opdef: kind for table in (array_scatter.SEGMENT, array_scatter.UNSORTED_SEGMENT)
                  for kind, opdef in table.items()}


def _segments(kind, data, ids, num, empty_value):
    """Rows of `data` (ids flattened) reduced into `num` segments; negative ids dropped."""
    ids = jnp.asarray(ids)
    rows = data.reshape((ids.size,) + data.shape[ids.ndim:])
    ids = ids.reshape(-1)
    ids = jnp.where(ids < 0, num, ids)  # out of range: dropped
    shape = (num,) + rows.shape[1:]
    dtype = np.dtype(data.dtype)
    if kind in ("Sum", "Mean"):
        out = jnp.zeros(shape, dtype).at[ids].add(rows, mode="drop")
    elif kind == "Prod":
        out = jnp.ones(shape, dtype).at[ids].multiply(rows, mode="drop")
    else:
        if dtype.kind == "f":
            info = np.finfo(dtype)
            fill = info.min if kind == "Max" else info.max
        elif dtype.kind in "iu":
            info = np.iinfo(dtype)
            fill = info.min if kind == "Max" else info.max
        else:
            fill = kind == "Min"
        at = jnp.full(shape, fill, dtype).at[ids]
        out = at.max(rows, mode="drop") if kind == "Max" else at.min(rows, mode="drop")
    if kind == "Mean" or empty_value is not None:
        counts = jnp.zeros((num,), np.int32).at[ids].add(1, mode="drop")
        counts = counts.reshape((num,) + (1,) * (rows.ndim - 1))
        if kind == "Mean":
            if dtype.kind in "iu":
                out = out // jnp.maximum(counts, 1).astype(dtype)
            else:
                out = out / jnp.maximum(counts, 1).astype(dtype)
        if empty_value is not None:
            out = jnp.where(counts == 0, jnp.asarray(empty_value, dtype), out)
    return out.astype(dtype)


@rule(*array_scatter.SEGMENT.values(), checks=True)
def _segment(op, data, ids):
    ids = static(ids, "The segment ids (which set the number of segments)")
    kind = _SEGMENT_KINDS[op.opdef]
    valid = ids.ndim == 1 and (not ids.size or (ids.min() >= 0 and (np.diff(ids) >= 0).all()))
    num = int(ids[-1]) + 1 if ids.size and valid else 0
    value = _segments(kind, data, ids if valid else ids[:0], num,
                      0 if kind in ("Max", "Min") else None)
    return Checked(value, np.bool_(valid),
                   f"{op.type}: segment_ids must be sorted and non-negative")


@rule(*array_scatter.UNSORTED_SEGMENT.values(), checks=True)
def _unsorted_segment(op, data, ids, num_segments):
    num = int(static(num_segments, "num_segments"))
    value = _segments(_SEGMENT_KINDS[op.opdef], data, ids, num, None)
    return Checked(value, _all(ids < num),
                   f"{op.type}: a segment id is not less than num_segments={num}")


@rule(array_scatter.BATCH_GATHER, checks=True)
def _batch_gather(op, params, indices):
    axis, batch_dims = op.attrs["axis"], op.attrs["batch_dims"]
    fn = lambda p, i: jnp.take(p, i, axis=axis - batch_dims, mode="clip")  # noqa: E731
    for _ in range(batch_dims):
        fn = jax.vmap(fn)
    size = np.shape(params)[axis]
    return Checked(fn(params, indices), _in_range(indices, size),
                   f"BatchGather: an index is not in [0, {size})")


@rule(array_scatter.BATCH_GATHER_GRAD)
def _batch_gather_grad(op, g, indices, *like):
    axis, batch_dims = op.attrs["axis"], op.attrs["batch_dims"]
    shape = tuple(np.shape(like[0]) if op.attrs["shape"] is None else op.attrs["shape"])
    fn = lambda p, i: jnp.take(p, i, axis=axis - batch_dims)  # noqa: E731
    for _ in range(batch_dims):
        fn = jax.vmap(fn)
    _, pullback = jax.vjp(lambda p: fn(p, indices), jnp.zeros(shape, g.dtype))
    return pullback(g)[0]


def _batched_gather_nd(batch_dims):
    fn = lambda p, i: jnp.asarray(p)[_nd_key(i)]  # noqa: E731
    for _ in range(batch_dims):
        fn = jax.vmap(fn)
    return fn


@rule(array_scatter.BATCH_GATHER_ND, checks=True)
def _batch_gather_nd(op, params, indices):
    batch_dims = op.attrs["batch_dims"]
    dims = list(np.shape(params)[batch_dims:])
    return Checked(_batched_gather_nd(batch_dims)(params, indices), _tuples_in(indices, dims),
                   f"BatchGatherNd: an index tuple does not index into shape {dims}")


@rule(array_scatter.BATCH_GATHER_ND_GRAD)
def _batch_gather_nd_grad(op, g, indices, *like):
    shape = tuple(np.shape(like[0]) if op.attrs["shape"] is None else op.attrs["shape"])
    fn = _batched_gather_nd(op.attrs["batch_dims"])
    _, pullback = jax.vjp(lambda p: fn(p, indices), jnp.zeros(shape, g.dtype))
    return pullback(g)[0]


# -- special functions -----------------------------------------------------------------------

_SPECIAL = {math_special.ERFC: jax.scipy.special.erfc,
            math_special.ERFINV: jax.scipy.special.erfinv,
            math_special.NDTRI: jax.scipy.special.ndtri,
            math_special.BESSEL_I0E: jax.scipy.special.i0e,
            math_special.BESSEL_I1E: jax.scipy.special.i1e}


@rule(*_SPECIAL)
def _special(op, x):
    return _SPECIAL[op.opdef](x)


@rule(bitwise.LEFT_SHIFT, bitwise.RIGHT_SHIFT)
def _shift(op, x, y):
    # the amount clamped to [0, bits - 1], as the op's kernel (TensorFlow's)
    bits = 8 * jnp.dtype(x.dtype).itemsize
    shift = jnp.left_shift if op.opdef is bitwise.LEFT_SHIFT else jnp.right_shift
    return shift(x, jnp.clip(y, 0, bits - 1).astype(x.dtype))


@rule(math_special.DIGAMMA, wide=True)
def _digamma(op, x):
    return accuracy.digamma(x)


@rule(math_special.LGAMMA, wide=True)
def _lgamma(op, x):
    # float32 through float64: JAX's float32 gammaln gives 4.8e-7 for lgamma(1), which is 0
    return jax.scipy.special.gammaln(jnp.asarray(x, np.float64)).astype(jnp.result_type(x))


@rule(math_special.POLYGAMMA)
def _polygamma(op, a, x):
    a, x = jnp.broadcast_arrays(jnp.asarray(a), jnp.asarray(x))
    integral = (a == jnp.floor(a)) & (a >= 0)
    out = jax.scipy.special.polygamma(jnp.where(integral, a, 0).astype(np.int32), x)
    return jnp.where(integral, out, jnp.nan).astype(x.dtype)


# -- linear algebra: decompositions and solves -----------------------------------------------

@rule(linalg_decompositions.CHOLESKY)
def _cholesky(op, x):
    return jnp.linalg.cholesky(x)


@rule(linalg_decompositions.QR)
def _qr(op, x):
    q, r = jnp.linalg.qr(x, mode="complete" if op.attrs["full_matrices"] else "reduced")
    return [q, r]


@rule(linalg_decompositions.SVD)
def _svd(op, x):
    if not op.attrs["compute_uv"]:
        empty = jnp.zeros((0,), x.dtype)
        return [jnp.linalg.svd(x, compute_uv=False), empty, empty]
    u, s, vh = jnp.linalg.svd(x, full_matrices=op.attrs["full_matrices"])
    return [s, u, jnp.swapaxes(vh, -1, -2)]


@rule(linalg_decompositions.EIGH)
def _eigh(op, x):
    e, v = jnp.linalg.eigh(x)
    return [e, v]


@rule(linalg_decompositions.SOLVE)
def _solve(op, matrix, rhs):
    a = jnp.swapaxes(matrix, -1, -2) if op.attrs["adjoint"] else matrix
    return jnp.linalg.solve(a, rhs)


@rule(linalg_decompositions.TRIANGULAR_SOLVE)
def _triangular_solve(op, matrix, rhs):
    lower, adjoint = op.attrs["lower"], op.attrs["adjoint"]
    a = jnp.tril(matrix) if lower else jnp.triu(matrix)
    return jax.scipy.linalg.solve_triangular(a, rhs, trans=1 if adjoint else 0, lower=lower)


@rule(linalg_decompositions.SLOGDET)
def _slogdet(op, x):
    sign, log_abs = jnp.linalg.slogdet(x)
    return [sign, log_abs]


@rule(linalg_decompositions.EXPM)
def _expm(op, x):
    return jax.scipy.linalg.expm(x)


# -- convolution and pooling (NHWC) ----------------------------------------------------------

def _conv(x, w, strides, padding, dilations):
    return lax.conv_general_dilated(x, w, tuple(strides), padding, rhs_dilation=tuple(dilations),
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


@rule(nn_conv.CONV2D)
def _conv2d(op, x, w):
    a = op.attrs
    return _conv(x, w, a["strides"], a["padding"], a["dilations"])


@rule(nn_conv.CONV2D_BACKPROP_INPUT)
def _conv2d_input(op, g, w):
    a = op.attrs
    shape = (g.shape[0], *a["input_size"], w.shape[2])
    _, pullback = jax.vjp(lambda x: _conv(x, w, a["strides"], a["padding"], a["dilations"]),
                          jnp.zeros(shape, g.dtype))
    return pullback(g)[0]


@rule(nn_conv.CONV2D_BACKPROP_FILTER)
def _conv2d_filter(op, x, g):
    a = op.attrs
    shape = (*a["filter_size"], x.shape[3], g.shape[3])
    _, pullback = jax.vjp(lambda w: _conv(x, w, a["strides"], a["padding"], a["dilations"]),
                          jnp.zeros(shape, g.dtype))
    return pullback(g)[0]


def _max_pool(x, a):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, *a["ksize"], 1), (1, *a["strides"], 1),
                             a["padding"])


def _avg_pool(x, a):
    dims, strides = (1, *a["ksize"], 1), (1, *a["strides"], 1)
    total = lax.reduce_window(x, 0.0, lax.add, dims, strides, a["padding"])
    ones = np.ones((1, *x.shape[1:3], 1), np.dtype(x.dtype))
    counts = lax.reduce_window(ones, 0.0, lax.add, dims, strides, a["padding"])
    return total / counts


@rule(nn_conv.MAX_POOL)
def _max_pool_rule(op, x):
    return _max_pool(x, op.attrs)


@rule(nn_conv.MAX_POOL_GRAD)
def _max_pool_grad(op, x, g):
    _, pullback = jax.vjp(lambda v: _max_pool(v, op.attrs), x)
    return pullback(g)[0]


@rule(nn_conv.MAX_POOL_GRAD_GRAD)
def _max_pool_grad_grad(op, x, gg):
    return jax.jvp(lambda v: _max_pool(v, op.attrs), (x,), (gg,))[1]


@rule(nn_conv.AVG_POOL)
def _avg_pool_rule(op, x):
    return _avg_pool(x, op.attrs)


@rule(nn_conv.AVG_POOL_GRAD)
def _avg_pool_grad(op, g):
    shape = (g.shape[0], *op.attrs["input_size"], g.shape[3])
    _, pullback = jax.vjp(lambda v: _avg_pool(v, op.attrs), jnp.zeros(shape, g.dtype))
    return pullback(g)[0]


# -- stateless random numbers: TensorFlow's Philox streams (runtime/ops/philox.py), as on the
# NumPy tier; the truncated normal draws with JAX's generator (its rejection loop reads a
# run of blocks a group that the NumPy tier reads only as far as it needs)

philox.run_rounds_as_loop(jnp, lax.fori_loop)


def _key(seed):
    seed = jnp.asarray(seed).astype(np.uint32)
    return jax.random.fold_in(jax.random.key(seed[0]), seed[1])


def _shape_of(shape) -> tuple:
    return tuple(int(d) for d in np.ravel(static(shape, "The shape of a random draw")))


def _stream(seed):
    return philox.traced_key_counter(jnp, jnp.asarray(seed))


def _size(dims: tuple) -> int:
    return int(np.prod(dims, dtype=np.int64))


@rule(random_stateless.UNIFORM, wide=True)
def _stateless_uniform(op, shape, seed):
    dims, dtype = _shape_of(shape), op.attrs["dtype"].as_numpy_dtype
    return philox.uniform(jnp, *_stream(seed), _size(dims), dtype).reshape(dims)


@rule(random_stateless.NORMAL, wide=True)
def _stateless_normal(op, shape, seed):
    dims, dtype = _shape_of(shape), op.attrs["dtype"].as_numpy_dtype
    return philox.normal(jnp, *_stream(seed), _size(dims),
                         philox.normal_dtype(dtype)).astype(dtype).reshape(dims)


@rule(random_stateless.TRUNCATED_NORMAL)
def _stateless_truncated(op, shape, seed):
    return jax.random.truncated_normal(_key(seed), -2.0, 2.0, _shape_of(shape),
                                       op.attrs["dtype"].as_numpy_dtype)


@rule(random_stateless.UNIFORM_INT, wide=True)
def _stateless_uniform_int(op, shape, seed, lo, hi):
    dims, dtype = _shape_of(shape), op.attrs["dtype"].as_numpy_dtype
    return philox.integers(jnp, *_stream(seed), _size(dims), lo, hi, dtype).reshape(dims)


@rule(random_stateless.UNIFORM_FULL_INT, wide=True)
def _stateless_full_int(op, shape, seed):
    dims, dtype = _shape_of(shape), op.attrs["dtype"].as_numpy_dtype
    return philox.full_range(jnp, *_stream(seed), _size(dims), dtype).reshape(dims)


# -- stateful random numbers: `rule(op, seed, *values)`, a fresh seed at every call ----------

def _draw_shape(op, given) -> tuple:
    """The shape of a draw: the op's attribute, or its first input (the Dynamic ops)."""
    if given:
        return _shape_of(given[0])
    return tuple(op.attrs["shape"])


@rule(random.UNIFORM, random.UNIFORM_DYNAMIC)
def _uniform(op, seed, *shape):
    key, a, b = jax.random.key(seed), op.attrs["a"], op.attrs["b"]
    dtype = op.outputs[0].dtype.as_numpy_dtype
    if np.issubdtype(dtype, np.integer):
        return jax.random.randint(key, _draw_shape(op, shape), a, b, dtype=dtype)
    return jax.random.uniform(key, _draw_shape(op, shape), dtype, a, b)


@rule(random.NORMAL, random.NORMAL_DYNAMIC)
def _normal(op, seed, *shape):
    dtype = op.outputs[0].dtype.as_numpy_dtype
    draw = jax.random.normal(jax.random.key(seed), _draw_shape(op, shape), dtype)
    return draw * op.attrs["b"] + op.attrs["a"]


@rule(random.TRUNCATED_NORMAL, random.TRUNCATED_NORMAL_DYNAMIC)
def _truncated_normal(op, seed, *shape):
    dtype = op.outputs[0].dtype.as_numpy_dtype
    draw = jax.random.truncated_normal(jax.random.key(seed), -2.0, 2.0,
                                       _draw_shape(op, shape), dtype)
    return draw * op.attrs["b"] + op.attrs["a"]


@rule(nn.DROPOUT)
def _dropout(op, seed, x):
    """[x * mask, mask]: the mask keeps each value with probability 1 - rate, scaled by
    1 / (1 - rate); noise_shape broadcasts the draws as on the NumPy tier."""
    rate, noise_shape = op.attrs["rate"], op.attrs["noise_shape"]
    shape = tuple(x.shape) if noise_shape is None else tuple(noise_shape)
    keep = jax.random.uniform(jax.random.key(seed), shape, np.float32) >= rate
    mask = jnp.broadcast_to(keep, x.shape).astype(x.dtype) / np.dtype(x.dtype).type(1 - rate)
    return [x * mask, mask]


# the gradient of a loop's saves (a higher order through a staged loop): stacks per saved value
@rule(while_grad.ACC_GRAD_ZEROS)
def _saves_grad_zeros(op, saved):
    return _arrays.saves_grad_zeros(saved)


@rule(while_grad.ACC_GRAD_READ)
def _saves_grad_read(op, g, step):
    return _arrays.SavesEntries([(op.attrs["index"], step, g)])


@rule(tensor_array.TA_GRAD_ADD)
def _grad_add(op, *parts):
    return _arrays.saves_grad_add(parts)


@rule(while_grad.ACC_GRAD_PUSH)
def _saves_grad_push(op, grad, step, *likes):
    return _arrays.saves_grad_take(grad, step, likes)

"""The ops every other op and every gradient is built from: elementwise math, comparisons and
logic (`tf.math`, `tf.add`, `tf.equal`, ...), reductions (`tf.reduce_sum`, ...), array ops
(`tf.reshape`, `tf.concat`, `tf.gather`, `tf.where`, `tf.cast`, `tf.one_hot`, ...) and the
helper ops gradients share (BroadcastTo, SumToShape, the scatter-adds); each op's gradient
rule beside its definition.

They are one module because their gradients are built from each other: Sum's gradient
broadcasts back (BroadcastTo, Reshape), Reshape's, Tile's and Fill's gradients sum (Sum), and
every broadcasting arithmetic op's gradient sums over the broadcast axes. Split in two, either
half would import the other. Namespaced ops (`tf.math.lgamma`, `tf.linalg`, `tf.nn`, ...) live
in the modules named after their namespace and import this one.
"""

from __future__ import annotations

import builtins
import functools
import math as _pymath

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..attr_kinds import AXES, AXIS, BOOL, DIMS, DTYPE, INT, INTS, KEY, NP_DTYPE, NUMBER, OPT_AXES, OPT_DIMS, OPT_DTYPE
from ..errors import IndexOutOfBoundsError, InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..opdef import define, ufunc_out_template, ufunc_template
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor
from .core import apply, binary_operands, constant, convert_to_tensor, refuse_composite, register_conversions
from .shape_rules import broadcast, normalize_axis, partial_ints, reduced_shape, same_dtype, shape_from_tensor

# == elementwise math: arithmetic, comparisons, logic, unary functions ==============================

_FLOATING_ONLY = "float"
_NUMERIC = "numeric"
_ADDABLE = "numeric or string"  # TensorFlow refuses arithmetic on bools, as here


def _check_kind(op_name, dtype, kind):
    if kind == _FLOATING_ONLY and not (dtype.is_floating or dtype.is_complex):
        raise TypeError(f"{op_name} needs a floating-point tensor, got {dtype.name}; "
                        f"cast it first with rt.cast(x, rt.float32).")
    if kind == _NUMERIC and not dtype.is_numeric:
        raise TypeError(f"{op_name} needs a numeric tensor, got {dtype.name}.")
    if kind == _ADDABLE and not (dtype.is_numeric or dtype is _dtypes.string):
        raise TypeError(f"{op_name} needs numeric or string tensors, got {dtype.name}; "
                        "for bools use rt.logical_or, or cast them first.")


def _binary_infer(name, kind=_NUMERIC, out_dtype=None):
    def infer(x, y):
        dtype = same_dtype(name, x, y)
        if kind is not None:
            _check_kind(name, dtype, kind)
        return broadcast(x.shape, y.shape, name), (out_dtype(dtype) if out_dtype else dtype)
    return infer


def _unary_infer(name, kind=_NUMERIC, out_dtype=None):
    def infer(x):
        if kind is not None:
            _check_kind(name, x.dtype, kind)
        return x.shape, (out_dtype(x.dtype) if out_dtype else x.dtype)
    return infer


def _truediv_dtype(dtype):
    if dtype.is_integer:
        return _dtypes.float64 if dtype.name in ("int32", "int64", "uint32", "uint64") else _dtypes.float32
    return dtype


def _to_bool(_dtype):
    return _dtypes.bool_


BINARY_ELEMENTWISE: list = []  # the elementwise ops of two tensors, for tests over all dtypes
UNARY_ELEMENTWISE: list = []


def _binary(name, ufunc, kind=_NUMERIC, out_dtype=None, **declared):
    op = define(name, _binary_infer(name, kind, out_dtype), ufunc=ufunc, **declared)
    BINARY_ELEMENTWISE.append(op)
    return op


def _unary(name, ufunc, kind=_NUMERIC, out_dtype=None, **declared):
    """An elementwise op of one tensor: its `ufunc`, or (`ufunc=None`) its kernel, template and
    scalar form declared."""
    op = define(name, _unary_infer(name, kind, out_dtype), ufunc=ufunc, **declared)
    UNARY_ELEMENTWISE.append(op)
    return op


ADD = _binary("Add", np.add, kind=_ADDABLE)


@ADD.def_grad
def _add_grad(op, g):
    return [_sum_grad(g, op, 0) if op.needs[0] else None,
            _sum_grad(g, op, 1) if op.needs[1] else None]


SUB = _binary("Sub", np.subtract)


@SUB.def_grad
def _sub_grad(op, g):
    return [_sum_grad(g, op, 0) if op.needs[0] else None,
            _sum_grad(negative(g), op, 1) if op.needs[1] else None]


MUL = _binary("Mul", np.multiply)


@MUL.def_grad
def _mul_grad(op, g):
    x, y = op.inputs
    return [_sum_grad(multiply(g, y), op, 0) if op.needs[0] else None,
            _sum_grad(multiply(x, g), op, 1) if op.needs[1] else None]


def _truediv_kernel(x, y):
    out = _truediv_dtype(_dtypes.from_numpy(np.result_type(x, y)))._np
    return np.true_divide(x, y, dtype=out)


def _emit_truediv(em, op):
    x, y = em.ins(op)
    out = op.outputs[0].dtype
    target = em.reuse_target(op)
    if target is not None:  # a dying operand of the result's dtype takes the result
        em.line(f"{em.outs(op)[0]} = np.true_divide({x}, {y}, out={target})")
    elif out is op.inputs[0].dtype or out is _dtypes.float64:  # NumPy's `/` gives this dtype
        em.line(f"{em.outs(op)[0]} = {x} / {y}")
    else:  # small integers divide in float32 (as TensorFlow does), eagerly and compiled alike
        em.line(f"{em.outs(op)[0]} = np.true_divide({x}, {y}, dtype=np.{out._np.name})")


DIV = define("RealDiv", _binary_infer("RealDiv", _NUMERIC, _truediv_dtype), _truediv_kernel,
             emit=_emit_truediv, ufunc=np.true_divide)


@DIV.def_grad
def _div_grad(op, g):
    y = op.inputs[1]
    gx = divide(g, y)
    gy = None
    if op.needs[1]:
        gy = _sum_grad(negative(multiply(gx, op.outputs[0])), op, 1)
    return [_sum_grad(gx, op, 0) if op.needs[0] else None, gy]
BINARY_ELEMENTWISE.append(DIV)


# Integer `//` and `%` by zero raise, as TensorFlow's kernels do (NumPy gives 0 with a
# warning); floats keep IEEE results. The check is one pass over the divisor, integers only.
INTEGER_DIVISION_BY_ZERO = "Integer division by zero"


def _nonzero_divisor(y) -> None:
    """Raises InvalidArgumentError when the integer divisor `y` has a zero."""
    if not np.all(y):
        raise InvalidArgumentError(INTEGER_DIVISION_BY_ZERO)


def _integer_division(ufunc):
    """The eager kernel of `ufunc` (floor_divide or remainder) that refuses integer zeros."""
    def kernel(x, y):
        if np.result_type(x, y).kind in "iu":
            _nonzero_divisor(y)
        return ufunc(x, y)
    kernel.__name__ = f"checked_{ufunc.__name__}"
    return kernel


def _nonzero_constant(t) -> bool:
    """True when `t` is a constant without zeros (`i % 2`): its division needs no check."""
    return t.op.opdef.is_constant and bool(np.all(t.op.attrs["value"]))


def _emit_integer_division(ufunc):
    """The NumPy-tier lines of `ufunc`: the divisor's check first when it is an integer."""
    template = ufunc_template(ufunc)

    def emit(em, op) -> None:
        x, y = em.ins(op)
        if op.inputs[1].dtype.is_integer and not _nonzero_constant(op.inputs[1]):
            em.line(f"if not np.all({y}): raise errors.InvalidArgumentError("
                    f"{INTEGER_DIVISION_BY_ZERO!r})")
        target = em.reuse_target(op)
        expr = (ufunc_out_template(ufunc).format(x, y, out=target) if target is not None
                else template.format(x, y))
        em.line(f"{em.outs(op)[0]} = {expr}")
    return emit


def _integer_division_op(name, ufunc, helper):
    return _binary(name, ufunc, kernel=_integer_division(ufunc),
                   emit=_emit_integer_division(ufunc), scalar=f"_h.{helper}({{0}}, {{1}})")


# Numba: helpers.floordiv and helpers.floormod raise for integer zeros (Numba gives 0)
FLOORDIV = _integer_division_op("FloorDiv", np.floor_divide, "floordiv")


@FLOORDIV.def_grad
def _floordiv_grad(op, g):
    return [None, None]


MOD = _integer_division_op("FloorMod", np.remainder, "floormod")


@MOD.def_grad
def _floormod_grad(op, g):
    gy = None
    if op.needs[1]:
        x, y = op.inputs
        gy = _sum_grad(negative(multiply(g, floordiv(x, y))), op, 1)
    return [_sum_grad(g, op, 0) if op.needs[0] else None, gy]


# Numba: helpers.power raises for integers to negative integer powers, as NumPy does
POW = _binary("Pow", np.power, scalar="_h.power({0}, {1})")


@POW.def_grad
def _pow_grad(op, g):
    x, y = op.inputs
    gx = gy = None
    if op.needs[0]:
        gx = _sum_grad(multiply(multiply(g, y), pow(x, subtract(y, 1))), op, 0)
    if op.needs[1]:
        positive = greater(x, 0)
        safe_log = log(where(positive, x, 1))
        gy = _sum_grad(where(positive, multiply(multiply(g, op.outputs[0]), safe_log), 0), op, 1)
    return [gx, gy]


# Numba: helpers.maximum/minimum/sign give NumPy's signed zeros (the kernels ignore them)
MAXIMUM = _binary("Maximum", np.maximum, scalar="_h.maximum({0}, {1})")


@MAXIMUM.def_grad
def _maximum_grad(op, g):
    x, y = op.inputs
    return _select_grads(op, g, greater_equal(x, y))


MINIMUM = _binary("Minimum", np.minimum, scalar="_h.minimum({0}, {1})")


@MINIMUM.def_grad
def _minimum_grad(op, g):
    x, y = op.inputs
    return _select_grads(op, g, less_equal(x, y))


EQUAL = _binary("Equal", np.equal, kind=None, out_dtype=_to_bool)
NOT_EQUAL = _binary("NotEqual", np.not_equal, kind=None, out_dtype=_to_bool)
LESS = _binary("Less", np.less, out_dtype=_to_bool)
LESS_EQUAL = _binary("LessEqual", np.less_equal, out_dtype=_to_bool)
GREATER = _binary("Greater", np.greater, out_dtype=_to_bool)
GREATER_EQUAL = _binary("GreaterEqual", np.greater_equal, out_dtype=_to_bool)


def _bool_infer(name):
    def infer(*xs):
        for x in xs:
            if not x.dtype.is_bool:
                raise TypeError(f"{name} needs bool tensors, got {x.dtype.name}.")
        shape = xs[0].shape if len(xs) == 1 else broadcast(xs[0].shape, xs[1].shape, name)
        return shape, _dtypes.bool_
    return infer


LOGICAL_AND = define("LogicalAnd", _bool_infer("LogicalAnd"), ufunc=np.logical_and)
LOGICAL_OR = define("LogicalOr", _bool_infer("LogicalOr"), ufunc=np.logical_or)
LOGICAL_XOR = define("LogicalXor", _bool_infer("LogicalXor"), ufunc=np.logical_xor)
LOGICAL_NOT = define("LogicalNot", _bool_infer("LogicalNot"), ufunc=np.logical_not)
BINARY_ELEMENTWISE += [LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR]
UNARY_ELEMENTWISE.append(LOGICAL_NOT)

NEG = _unary("Neg", np.negative)


@NEG.def_grad
def _neg_grad(op, g):
    return [negative(g)]


ABS = _unary("Abs", np.abs,
             out_dtype=lambda d: {"complex64": _dtypes.float32,
                                  "complex128": _dtypes.float64}.get(d.name, d))


@ABS.def_grad
def _abs_grad(op, g):
    return [multiply(g, sign(op.inputs[0]))]


SIGN = _unary("Sign", np.sign, scalar="_h.sign({0})")


@SIGN.def_grad
def _sign_grad(op, g):
    return [zeros_for(op, 0)]


SQUARE = _unary("Square", np.square, scalar="{0} * {0}")


@SQUARE.def_grad
def _square_grad(op, g):
    return [multiply(g, multiply(op.inputs[0], 2))]


SQRT = _unary("Sqrt", np.sqrt, _FLOATING_ONLY)


@SQRT.def_grad
def _sqrt_grad(op, g):
    return [divide(g, multiply(op.outputs[0], 2))]


RSQRT = _unary("Rsqrt", None, _FLOATING_ONLY, kernel=lambda x: 1 / np.sqrt(x),
               template="1 / np.sqrt({0})", scalar="{one} / np.sqrt({0})")


@RSQRT.def_grad
def _rsqrt_grad(op, g):
    y = op.outputs[0]
    return [multiply(g, multiply(multiply(y, square(y)), -0.5))]


EXP = _unary("Exp", np.exp, _FLOATING_ONLY)


@EXP.def_grad
def _exp_grad(op, g):
    return [multiply(g, op.outputs[0])]


LOG = _unary("Log", np.log, _FLOATING_ONLY)


@LOG.def_grad
def _log_grad(op, g):
    return [divide(g, op.inputs[0])]


LOG1P = _unary("Log1p", np.log1p, _FLOATING_ONLY)


@LOG1P.def_grad
def _log1p_grad(op, g):
    return [divide(g, add(op.inputs[0], 1))]


SIN = _unary("Sin", np.sin, _FLOATING_ONLY)


@SIN.def_grad
def _sin_grad(op, g):
    return [multiply(g, cos(op.inputs[0]))]


COS = _unary("Cos", np.cos, _FLOATING_ONLY)


@COS.def_grad
def _cos_grad(op, g):
    return [multiply(g, negative(sin(op.inputs[0])))]


TAN = _unary("Tan", np.tan, _FLOATING_ONLY)


@TAN.def_grad
def _tan_grad(op, g):
    return [multiply(g, add(square(op.outputs[0]), 1))]


TANH = _unary("Tanh", np.tanh, _FLOATING_ONLY)


@TANH.def_grad
def _tanh_grad(op, g):
    return [multiply(g, subtract(1, square(op.outputs[0])))]


SIGMOID = _unary("Sigmoid", None, _FLOATING_ONLY, kernel=lambda x: 1 / (1 + np.exp(-x)),
                 template="1 / (1 + np.exp(-{0}))", scalar="{one} / ({one} + np.exp(-{0}))")


@SIGMOID.def_grad
def _sigmoid_grad(op, g):
    y = op.outputs[0]
    return [multiply(g, multiply(y, subtract(1, y)))]


FLOOR = _unary("Floor", np.floor, _FLOATING_ONLY)


CEIL = _unary("Ceil", np.ceil, _FLOATING_ONLY)


ROUND = _unary("Round", None, kernel=np.round, template="np.round({0})",  # ints stay ints
                scalar="_h.rint({0})")


def _step_grad(op, g):
    return [None]  # floor, ceil and round are flat almost everywhere


FLOOR.def_grad(_step_grad)
CEIL.def_grad(_step_grad)
ROUND.def_grad(_step_grad)
_erf_scalar = np.frompyfunc(_pymath.erf, 1, 1)


def _erf_kernel(x):
    return np.asarray(_erf_scalar(x), dtype=np.result_type(x))


def _real_float_infer(x):
    if not x.dtype.is_floating:
        raise TypeError(f"Erf needs a real floating-point tensor, got {x.dtype.name}.")
    return x.shape, x.dtype


ERF = define("Erf", _real_float_infer, _erf_kernel)
UNARY_ELEMENTWISE.append(ERF)


@ERF.def_grad
def _erf_grad(op, g):
    x = op.inputs[0]
    return [multiply(g, multiply(exp(negative(square(x))), float(2 / np.sqrt(np.pi))))]


RECIPROCAL = _unary("Reciprocal", None, _FLOATING_ONLY, kernel=lambda x: 1 / x, template="1 / {0}",
                     scalar="{one} / {0}")


@RECIPROCAL.def_grad
def _reciprocal_grad(op, g):
    return [negative(multiply(g, square(op.outputs[0])))]


# -- public functions -------------------------------------------------------------------

def _bin(op, doc):
    def fn(x, y, name=None) -> Tensor:
        x, y = binary_operands(x, y)
        return apply(op, [x, y], name=name)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = (f"{doc}, elementwise with NumPy broadcasting (op `{op.name}`).\n\n"
                  "A Python or NumPy operand takes the dtype of the tensor operand; two tensors "
                  "must share a dtype.")
    return fn


def _un(op, doc):
    def fn(x, name=None) -> Tensor:
        return apply(op, [convert_to_tensor(x)], name=name)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"{doc}, elementwise (op `{op.name}`)."
    return fn


add = export("add", "math.add")(_bin(ADD, "x + y"))
subtract = export("subtract", "math.subtract")(_bin(SUB, "x - y"))
multiply = export("multiply", "math.multiply")(_bin(MUL, "x * y"))
floordiv = floor_div = export("floordiv", "math.floordiv")(_bin(FLOORDIV, "x // y (floor division)"))
mod = floormod = export("mod", "math.floormod", "math.mod")(_bin(MOD, "x % y (the sign of y, as in Python)"))
pow = export("pow", "math.pow")(_bin(POW, "x ** y"))  # noqa: A001 - the TensorFlow name
maximum = export("maximum", "math.maximum")(_bin(MAXIMUM, "The larger of x and y"))
minimum = export("minimum", "math.minimum")(_bin(MINIMUM, "The smaller of x and y"))
equal = export("equal", "math.equal")(_bin(EQUAL, "x == y as bools"))
not_equal = export("not_equal", "math.not_equal")(_bin(NOT_EQUAL, "x != y as bools"))
less = export("less", "math.less")(_bin(LESS, "x < y as bools"))
less_equal = export("less_equal", "math.less_equal")(_bin(LESS_EQUAL, "x <= y as bools"))
greater = export("greater", "math.greater")(_bin(GREATER, "x > y as bools"))
greater_equal = export("greater_equal", "math.greater_equal")(_bin(GREATER_EQUAL, "x >= y as bools"))
negative = export("negative", "math.negative")(_un(NEG, "-x"))
abs = export("abs", "math.abs")(_un(ABS, "|x|"))  # noqa: A001
sign = export("sign", "math.sign")(_un(SIGN, "-1, 0 or 1 by the sign of x"))
square = export("square", "math.square")(_un(SQUARE, "x * x"))
sqrt = export("sqrt", "math.sqrt")(_un(SQRT, "The square root"))
rsqrt = export("rsqrt", "math.rsqrt")(_un(RSQRT, "1 / sqrt(x)"))
exp = export("exp", "math.exp")(_un(EXP, "e ** x"))
log = export("log", "math.log")(_un(LOG, "The natural logarithm"))
log1p = export("log1p", "math.log1p")(_un(LOG1P, "log(1 + x), accurate near 0"))
sin = export("sin", "math.sin")(_un(SIN, "The sine"))
cos = export("cos", "math.cos")(_un(COS, "The cosine"))
tan = export("tan", "math.tan")(_un(TAN, "The tangent"))
tanh = export("tanh", "math.tanh", "nn.tanh")(_un(TANH, "The hyperbolic tangent"))
sigmoid = export("sigmoid", "math.sigmoid", "nn.sigmoid")(_un(SIGMOID, "1 / (1 + exp(-x))"))
floor = export("floor", "math.floor")(_un(FLOOR, "Rounds down"))
ceil = export("ceil", "math.ceil")(_un(CEIL, "Rounds up"))
round = export("round", "math.round")(_un(ROUND, "Rounds half to even"))  # noqa: A001
reciprocal = export("reciprocal", "math.reciprocal")(_un(RECIPROCAL, "1 / x"))
erf = export("math.erf")(_un(ERF, "The error function"))


@export("divide", "truediv", "math.divide", "math.realdiv", "math.truediv")
def divide(x, y, name=None) -> Tensor:
    """True division; integer tensors give floating results (int32 → float64, as in TF)."""
    x, y = binary_operands(x, y)
    return apply(DIV, [x, y], name=name)


truediv = realdiv = divide


def _logical(op, doc):
    def fn(x, y, name=None) -> Tensor:
        return apply(op, [convert_to_tensor(x, dtype_hint=_dtypes.bool_),
                          convert_to_tensor(y, dtype_hint=_dtypes.bool_)], name=name)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"{doc} of two bool tensors, elementwise (op `{op.name}`)."
    return fn


logical_and = export("logical_and", "math.logical_and")(_logical(LOGICAL_AND, "Logical and"))
logical_or = export("logical_or", "math.logical_or")(_logical(LOGICAL_OR, "Logical or"))
logical_xor = export("logical_xor", "math.logical_xor")(_logical(LOGICAL_XOR, "Logical exclusive or"))


@export("logical_not", "math.logical_not")
def logical_not(x, name=None) -> Tensor:
    """Logical not of a bool tensor, elementwise (op `LogicalNot`)."""
    return apply(LOGICAL_NOT, [convert_to_tensor(x, dtype_hint=_dtypes.bool_)], name=name)


@export("clip_by_value", "math.clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> Tensor:
    """Clips `t` elementwise to [clip_value_min, clip_value_max]."""
    t = convert_to_tensor(t)
    return minimum(maximum(t, clip_value_min), clip_value_max, name=name)


# == array ops: shapes, joining and splitting, gathering, creation, casting, indexing ===============

def static_ints(value, what: str):
    """A tuple of Python ints for a shape-like argument known at trace time, or None."""
    if isinstance(value, TensorShape):
        return tuple(-1 if d is None else d for d in value.as_list())
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is None:
            return None
        return tuple(int(v) for v in np.ravel(known))
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    refuse_composite(value, what)
    try:
        return tuple(int(constant_value(v)) if isinstance(v, Tensor) else int(v) for v in value)
    except TypeError:
        raise TypeError(f"{what} must be a list of ints or an int tensor, got {value!r}.") from None


def _known_later(shape) -> bool:
    """Whether a shape list holds a scalar tensor whose value is known when the graph runs."""
    return isinstance(shape, (list, tuple)) and any(
        isinstance(d, Tensor) and constant_value(d) is None for d in shape)


def static_or_later(value, what: str):
    """`static_ints(value)`, or None when the value is known only when the graph runs (a
    tensor, or a list holding one): the argument is then an op input, not an attribute."""
    if _known_later(value):
        return None
    return static_ints(value, what)


def int_vector(value) -> Tensor:
    """A shape-like argument (a list of ints and scalar tensors, or a tensor) as a 1-D int
    tensor: a scalar becomes a vector of one element."""
    if isinstance(value, (list, tuple)) and any(isinstance(d, Tensor) for d in value):
        value = _same_int_dtype(value)
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if not t.dtype.is_integer:
        raise TypeError(f"A shape must hold integers, got a {t.dtype.name} tensor.")
    if t.shape.rank == 0:
        t = apply(RESHAPE, [t], {"shape": (1,)})
    return t


def _same_int_dtype(dims) -> list:
    """A shape list of ints and integer tensors, all of one dtype (int64 when a tensor is
    int64, else int32), so that it packs into one vector as TensorFlow packs it."""
    tensors = [d for d in dims if isinstance(d, Tensor)]
    if not all(t.dtype.is_integer for t in tensors):
        return list(dims)       # refused with the dtype named when it is packed
    target = _dtypes.int64 if any(t.dtype == _dtypes.int64 for t in tensors) else _dtypes.int32
    return [(cast(d, target) if d.dtype != target else d) if isinstance(d, Tensor)
            else convert_to_tensor(d, dtype=target) for d in dims]


def scalar_known_later(value) -> bool:
    """Whether `value` is a tensor whose value trace time does not know."""
    return isinstance(value, Tensor) and constant_value(value) is None


def as_int(value, what: str) -> int:
    """A Python int for an int argument known at trace time (a tensor constant too)."""
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is not None:
            return int(known)
    try:
        return int(value)
    except TypeError:
        raise TypeError(f"{what} must be an int or an int tensor, got {value!r}.") from None


# -- reshape / transpose -----------------------------------------------------------------

def _reshape_infer(x, shape):
    new = list(shape)
    if new.count(-1) > 1:
        raise ValueError(f"Reshape: at most one dimension may be -1, got {list(shape)}.")
    total = x.shape.num_elements()
    known = 1
    for d in new:
        if d != -1:
            known *= d
    if -1 in new:
        if total is not None:
            if known == 0 or total % known:
                raise InvalidArgumentError(f"Cannot reshape a tensor of shape {x.shape} ({total} elements) "
                                 f"into shape {list(shape)}.")
            new[new.index(-1)] = total // known
        else:
            new[new.index(-1)] = None
    elif total is not None and total != known:
        raise InvalidArgumentError(f"Cannot reshape a tensor of shape {x.shape} ({total} elements) into "
                         f"shape {list(shape)} ({known} elements).")
    return TensorShape(new), x.dtype


RESHAPE = define("Reshape", _reshape_infer, lambda x, shape: np.reshape(x, shape),
                 template="np.reshape({0}, {shape})", attrs={"shape": DIMS})


@RESHAPE.def_grad
def _reshape_grad(op, g):
    return [reshape_grad(g, op)]


@export("reshape")
def reshape(tensor, shape, name=None) -> Tensor:
    """The same elements in a new shape; one dimension may be -1 (inferred)."""
    tensor = convert_to_tensor(tensor)
    dims = static_or_later(shape, "reshape's shape")
    if dims is None:
        return apply(RESHAPE_DYNAMIC, [tensor, int_vector(shape)], name=name)
    return apply(RESHAPE, [tensor], {"shape": dims}, name=name)


def _reshape_dynamic_infer(x, shape):
    new = partial_ints(shape) if shape.shape.rank == 1 else None
    if new is None:
        return TensorShape(None), x.dtype
    if new.count(-1) > 1:
        raise ValueError(f"Reshape: at most one dimension may be -1, got {list(new)}.")
    dims = [None if d is None or d < 0 else d for d in new]
    total = x.shape.num_elements()
    if -1 in new and total is not None and None not in [d for d in new if d != -1]:
        known = 1
        for d in new:
            if d != -1:
                known *= d
        if known and total % known == 0:
            dims[new.index(-1)] = total // known
    return TensorShape(dims), x.dtype


RESHAPE_DYNAMIC = define("ReshapeDynamic", _reshape_dynamic_infer,
                         lambda x, s: np.reshape(x, tuple(int(v) for v in s)),
                         template="np.reshape({0}, tuple({1}.tolist()))")


@RESHAPE_DYNAMIC.def_grad
def _reshape_dynamic_grad(op, g):
    return [reshape_grad(g, op), None]


def _transpose_infer(x, perm):
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    perm = perm if perm is not None else tuple(builtins.range(len(dims)))[::-1]
    if sorted(perm) != list(builtins.range(len(dims))):
        raise ValueError(f"Transpose: perm {list(perm)} is not a permutation of the "
                         f"{len(dims)} axes of shape {x.shape}.")
    return TensorShape([dims[p] for p in perm]), x.dtype


TRANSPOSE = define("Transpose", _transpose_infer, lambda x, perm: np.transpose(x, perm),
                   template="np.transpose({0}, {perm})", attrs={"perm": AXES})


@TRANSPOSE.def_grad
def _transpose_grad(op, g):
    perm = op.attrs["perm"]
    if perm is None:
        return [transpose(g)]
    return [transpose(g, tuple(int(i) for i in np.argsort(perm)))]


@export("transpose")
def transpose(a, perm=None, name=None) -> Tensor:
    """Permutes the axes (reverses them when perm is None)."""
    a = convert_to_tensor(a)
    if perm is None and a.shape.rank is not None:
        perm = tuple(builtins.range(a.shape.rank))[::-1]
    perm = None if perm is None else static_ints(perm, "perm")
    return apply(TRANSPOSE, [a], {"perm": perm}, name=name)


# -- joining and splitting ---------------------------------------------------------------

def _concat_infer(*xs, axis):
    dtype = same_dtype("ConcatV2", *xs)
    ranks = {x.shape.rank for x in xs} - {None}
    if len(ranks) > 1:
        raise InvalidArgumentError(f"ConcatV2: inputs have different ranks: {[str(x.shape) for x in xs]}.")
    if not ranks:
        return TensorShape(None), dtype
    rank = ranks.pop()
    ax = normalize_axis(axis, rank, "ConcatV2")[0]
    dims = [None] * rank
    total = 0
    for x in xs:
        shape = x.shape.as_tuple()
        if shape is None:
            total = None
            continue
        for i, d in enumerate(shape):
            if i == ax:
                continue
            if dims[i] is None:
                dims[i] = d
            elif d is not None and d != dims[i]:
                raise InvalidArgumentError(f"ConcatV2: shapes {[str(t.shape) for t in xs]} differ outside "
                                 f"the concatenation axis {axis}.")
        if total is not None:
            total = None if shape[ax] is None else total + shape[ax]
    dims[ax] = total
    return TensorShape(dims), dtype


CONCAT = define("ConcatV2", _concat_infer, lambda *xs, axis: np.concatenate(xs, axis),
                attrs={"axis": AXIS})


@CONCAT.def_grad
def _concat_grad(op, g):
    xs = op.forward_inputs
    rank = xs[0].shape.rank
    axis = op.attrs["axis"] % rank if rank is not None else op.attrs["axis"]
    sizes = [None if x.shape.rank is None else x.shape.as_tuple()[axis] for x in xs]
    if None in sizes:
        return list(apply(SPLIT_LIKE, [g, *op.inputs], {"axis": axis}))
    return list(split(g, sizes, axis=axis))


@export("concat")
def concat(values, axis, name=None) -> Tensor:
    """Joins tensors along an existing axis."""
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    values = [_packed_as(v, dtype) for v in values]
    if not values:
        raise ValueError("concat needs at least one tensor.")
    if len(values) == 1:
        return identity(values[0])
    return apply(CONCAT, values, {"axis": int(axis)}, name=name)


def _holds_tensor(value) -> bool:
    return isinstance(value, (list, tuple)) and any(
        isinstance(v, Tensor) or _holds_tensor(v) for v in value)


def _packed_as(value, dtype) -> Tensor:
    """`value` as a tensor of `dtype` (the other inputs' dtype) where it can be one: Python
    values convert to it, and a list holding tensors is packed with them cast to it, as
    TensorFlow converts `[0]` or `[i]` next to a tensor of another dtype."""
    if dtype is None or isinstance(value, Tensor):
        return convert_to_tensor(value)
    if not _holds_tensor(value):
        return convert_to_tensor(value, dtype_hint=dtype)

    def cast_leaves(v):
        if isinstance(v, (list, tuple)):
            return [cast_leaves(x) for x in v]
        if isinstance(v, Tensor) and v.dtype != dtype:
            return cast(v, dtype)
        return v
    return convert_to_tensor(cast_leaves(value), dtype=dtype)


def _stack_infer(*xs, axis):
    dtype = same_dtype("Pack", *xs)
    shape = xs[0].shape
    for x in xs[1:]:
        if not x.shape.is_compatible_with(shape):
            raise InvalidArgumentError(f"Pack: all tensors must have one shape, got {xs[0].shape} and "
                             f"{x.shape}.")
        shape = shape.merge_with(x.shape)
    dims = shape.as_tuple()
    if dims is None:
        return TensorShape(None), dtype
    ax = normalize_axis(axis, len(dims) + 1, "Pack")[0]
    return TensorShape(dims[:ax] + (len(xs),) + dims[ax:]), dtype


STACK = define("Pack", _stack_infer, lambda *xs, axis: np.stack(xs, axis), attrs={"axis": AXIS})


@STACK.def_grad
def _pack_grad(op, g):
    return list(unstack(g, num=len(op.forward_inputs), axis=op.attrs["axis"]))


@export("stack")
def stack(values, axis=0, name=None) -> Tensor:
    """Joins tensors of one shape along a new axis (also accepts a TensorArray or staged list)."""
    if hasattr(values, "stack") and not isinstance(values, (list, tuple)):
        return values.stack()
    values = [convert_to_tensor(v) for v in values]
    if not values:
        raise ValueError("stack needs at least one tensor.")
    if values and all(isinstance(v, EagerTensor) for v in values) and len({v.dtype for v in values}) > 1:
        same_dtype("Pack", *values)
    return apply(STACK, values, {"axis": int(axis)}, name=name)


def _unstack_infer(x, num, axis):
    dims = x.shape.as_tuple()
    ax = axis % len(dims)
    out = TensorShape(dims[:ax] + dims[ax + 1:])
    return [(out, x.dtype)] * num


UNSTACK = define("Unpack", _unstack_infer,
                 lambda x, num, axis: [np.take(x, i, axis=axis) for i in builtins.range(num)],
                 num_outputs=None, attrs={"axis": AXIS, "num": INT})


@UNSTACK.def_grad
def _unpack_grad(op, *grads):
    parts = [g if g is not None else zeros_for(op, i, output=True) for i, g in enumerate(grads)]
    return [stack(parts, axis=op.attrs["axis"])]


@export("unstack")
def unstack(value, num=None, axis=0, name=None) -> list[Tensor]:
    """Splits a tensor along `axis` into a list of tensors (the axis size must be known)."""
    value = convert_to_tensor(value)
    dims = value.shape.as_tuple()
    if dims is None or not dims:
        raise ValueError(f"unstack needs a tensor of known rank >= 1, got shape {value.shape}.")
    n = dims[axis]
    if num is None:
        num = n
    if num is None:
        raise ValueError(f"Cannot unstack a dimension of unknown size (shape {value.shape}); "
                         "pass num=.")
    return apply(UNSTACK, [value], {"num": int(num), "axis": int(axis)}, name=name)


def _split_infer(x, sizes, axis):
    dims = x.shape.as_tuple()
    ax = normalize_axis(axis, len(dims), "Split")[0]
    if dims[ax] is not None and builtins.sum(sizes) != dims[ax]:
        raise InvalidArgumentError(f"Split: sizes {list(sizes)} do not add up to dimension {dims[ax]} of "
                         f"shape {x.shape}.")
    return [(TensorShape(dims[:ax] + (s,) + dims[ax + 1:]), x.dtype) for s in sizes]


SPLIT = define("Split", _split_infer,
               lambda x, sizes, axis: np.split(x, np.cumsum(sizes)[:-1], axis=axis),
               num_outputs=None, attrs={"axis": AXIS, "sizes": INTS})


@SPLIT.def_grad
def _split_grad(op, *grads):
    parts = [g if g is not None else zeros_for(op, i, output=True) for i, g in enumerate(grads)]
    return [concat(parts, op.attrs["axis"])]


@export("split")
def split(value, num_or_size_splits, axis=0, num=None, name=None) -> list[Tensor]:
    """Splits a tensor into equal parts (an int) or parts of the given sizes along `axis`."""
    value = convert_to_tensor(value)
    dims = value.shape.as_tuple()
    if dims is None:
        raise ValueError("split needs a tensor of known rank.")
    ax = normalize_axis(int(axis), len(dims), "Split")[0]
    if isinstance(num_or_size_splits, (int, np.integer)):
        n = int(num_or_size_splits)
        if dims[ax] is None or dims[ax] % n:
            raise InvalidArgumentError(f"Cannot split dimension {ax} of shape {value.shape} into {n} "
                             "equal parts.")
        sizes = (dims[ax] // n,) * n
    else:
        sizes = static_ints(num_or_size_splits, "num_or_size_splits")
    return apply(SPLIT, [value], {"sizes": tuple(sizes), "axis": ax}, name=name)


def _squeeze_infer(x, axis):
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    if axis is None:
        if any(d is None for d in dims):
            return TensorShape(None), x.dtype
        return TensorShape([d for d in dims if d != 1]), x.dtype
    axes = normalize_axis(axis, len(dims), "Squeeze")
    for a in axes:
        if dims[a] not in (1, None):
            raise InvalidArgumentError(f"Squeeze: cannot squeeze axis {a} of size {dims[a]} in shape {x.shape}.")
    return TensorShape([d for i, d in enumerate(dims) if i not in axes]), x.dtype


SQUEEZE = define("Squeeze", _squeeze_infer, lambda x, axis: np.squeeze(x, axis),
                 template="np.squeeze({0}, {axis})", attrs={"axis": OPT_AXES})


@SQUEEZE.def_grad
def _squeeze_grad(op, g):
    return [reshape_grad(g, op)]


@export("squeeze")
def squeeze(input, axis=None, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Removes axes of size 1 (those in `axis`, or all of them)."""
    x = convert_to_tensor(input)
    if axis is not None:
        axis = normalize_axis(axis, x.shape.rank, "Squeeze")
    return apply(SQUEEZE, [x], {"axis": axis}, name=name)


def _expand_infer(x, axis):
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    ax = normalize_axis(axis, len(dims) + 1, "ExpandDims")[0]
    return TensorShape(dims[:ax] + (1,) + dims[ax:]), x.dtype


EXPAND_DIMS = define("ExpandDims", _expand_infer, lambda x, axis: np.expand_dims(x, axis),
                     template="np.expand_dims({0}, {axis})", attrs={"axis": AXIS})


@EXPAND_DIMS.def_grad
def _expand_dims_grad(op, g):
    return [reshape_grad(g, op)]


@export("expand_dims")
def expand_dims(input, axis, name=None) -> Tensor:  # noqa: A002
    """Inserts an axis of size 1 at `axis`."""
    x = convert_to_tensor(input)
    rank = x.shape.rank
    axis = int(axis)
    if rank is not None:
        axis = normalize_axis(axis, rank + 1, "ExpandDims")[0]
    return apply(EXPAND_DIMS, [x], {"axis": axis}, name=name)


def _tile_infer(x, multiples):
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    if len(multiples) != len(dims):
        raise InvalidArgumentError(f"Tile: multiples {list(multiples)} must have one entry per axis of "
                         f"shape {x.shape}.")
    return TensorShape([None if d is None else d * m for d, m in zip(dims, multiples)]), x.dtype


TILE = define("Tile", _tile_infer, lambda x, multiples: np.tile(x, multiples),
              template="np.tile({0}, {multiples})", attrs={"multiples": DIMS})


@TILE.def_grad
def _tile_grad(op, g):
    dims = static_dims(op.forward_inputs[0])
    if dims is None:
        raise NotImplementedError("The gradient of tile needs the input's shape to be known "
                                  "when the function is traced.")
    multiples = op.attrs["multiples"]
    split_dims = [d for pair in zip(multiples, dims) for d in pair]
    summed = reduce_sum(reshape(g, split_dims), axis=list(builtins.range(0, 2 * len(dims), 2)))
    return [reshape_grad(summed, op)]


@export("tile")
def tile(input, multiples, name=None) -> Tensor:  # noqa: A002
    """Repeats the tensor `multiples[i]` times along each axis i."""
    x = convert_to_tensor(input)
    known = static_or_later(multiples, "multiples")
    if known is None:
        return apply(TILE_DYNAMIC, [x, int_vector(multiples)], name=name)
    return apply(TILE, [x], {"multiples": known}, name=name)


def _tile_dynamic_infer(x, multiples):
    values = partial_ints(multiples) if multiples.shape.rank == 1 else None
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    if values is None:
        values = (None,) * len(dims)
    if len(values) != len(dims):
        raise InvalidArgumentError(f"Tile: multiples ({len(values)} entries) must have one entry per axis "
                         f"of shape {x.shape}.")
    return TensorShape([None if d is None or m is None else d * m
                        for d, m in zip(dims, values)]), x.dtype


TILE_DYNAMIC = define("TileDynamic", _tile_dynamic_infer,
                      lambda x, multiples: np.tile(x, tuple(int(m) for m in multiples)),
                      template="np.tile({0}, tuple({1}.tolist()))")


def _tile_grad_kernel(g, x, multiples):
    """The gradient of tile(x, multiples): the tiles of `g` summed."""
    dims = np.shape(x)
    split = [d for pair in zip((int(m) for m in multiples), dims) for d in pair]
    return np.reshape(g, split).sum(axis=tuple(builtins.range(0, 2 * len(dims), 2)),
                                    dtype=np.asarray(g).dtype)


TILE_GRAD_DYNAMIC = define("TileGradDynamic", lambda g, x, multiples: (x.shape, g.dtype),
                           _tile_grad_kernel, differentiable=False)


@TILE_DYNAMIC.def_grad
def _tile_dynamic_grad(op, g):
    return [apply(TILE_GRAD_DYNAMIC, [g, op.inputs[0], op.inputs[1]]), None]


# -- gathering -----------------------------------------------------------------------------

def _gather_infer(params, indices, axis):
    if not indices.dtype.is_integer:
        raise TypeError(f"GatherV2: indices must be integers, got {indices.dtype.name}.")
    dims = params.shape.as_tuple()
    idims = indices.shape.as_tuple()
    if dims is None or idims is None:
        return TensorShape(None), params.dtype
    ax = normalize_axis(axis, len(dims), "GatherV2")[0]
    return TensorShape(dims[:ax] + idims + dims[ax + 1:]), params.dtype


def _position(where) -> str:
    """`[0,1]` for an index position, as TensorFlow's messages write it (`` for a scalar)."""
    return f"[{','.join(str(int(w)) for w in where)}]" if len(where) else ""


def index_out_of_range(op_name: str, indices: np.ndarray, size: int) -> InvalidArgumentError:
    """The error for the first of `indices` outside [0, size), worded as TensorFlow's:
    `indices[0] = -1 is not in [0, 3)`."""
    indices = np.asarray(indices)
    bad = np.argwhere((indices < 0) | (indices >= size))[0]
    return InvalidArgumentError(f"{op_name}: indices{_position(bad)} = "
                                f"{int(indices[tuple(bad)])} is not in [0, {size}).")


def _gather_kernel(params, indices, axis):
    """np.take, refusing (as TensorFlow does) negative indices, which NumPy counts from the
    end; np.take itself refuses indices past the end. One pass: the indices' minimum."""
    if type(indices) is not np.ndarray:
        indices = np.asarray(indices)
    if indices.size and indices.min() < 0:
        raise index_out_of_range("GatherV2", indices, np.shape(params)[axis])
    try:
        if indices.ndim == 0 and type(params) is np.ndarray and params.ndim:
            # one index (a staged loop's step): a copy of that slice; np.take would first
            # copy all of a non-contiguous `params` (a transposed sequence)
            return params[(slice(None),) * (axis % params.ndim) + (int(indices),)].copy()
        return np.take(params, indices, axis=axis)
    except IndexError:
        raise index_out_of_range("GatherV2", indices, np.shape(params)[axis]) from None


GATHER = define("GatherV2", _gather_infer, _gather_kernel, attrs={"axis": AXIS})


@GATHER.def_grad
def _gather_grad(op, g):
    params = op.forward_inputs[0]
    axis = op.attrs["axis"] % params.shape.rank if params.shape.rank else op.attrs["axis"]
    shape_attr, like = like_input(op, 0)
    grad = apply(SCATTER_AXIS, [g, op.inputs[1], *like], {"axis": axis, "shape": shape_attr})
    return [grad, None]


def gather(params, indices, axis=0, batch_dims=0, name=None):
    """Takes the slices at `indices` along `axis`, like np.take (`rt.gather`, published by
    runtime.ops.array_scatter, adds batch_dims)."""
    if batch_dims:
        raise NotImplementedError("gather with batch_dims is not supported; use gather_nd.")
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices, dtype_hint=_dtypes.int32)
    return apply(GATHER, [params, indices], {"axis": int(axis)}, name=name)


def _gather_nd_infer(params, indices):
    dims = params.shape.as_tuple()
    idims = indices.shape.as_tuple()
    if dims is None or idims is None or idims[-1] is None:
        return TensorShape(None), params.dtype
    return TensorShape(idims[:-1] + dims[idims[-1]:]), params.dtype


def _gather_nd_kernel(params, indices):
    indices, dims = np.asarray(indices), np.shape(params)
    k = indices.shape[-1]
    if indices.size and k:
        flat = indices.reshape(-1, k)
        bad = ((flat < 0) | (flat >= np.asarray(dims[:k]))).any(axis=1)
        if bad.any():  # NumPy would count negative indices from the end
            row = int(np.argmax(bad))
            where = np.unravel_index(row, indices.shape[:-1])
            raise InvalidArgumentError(
                f"GatherNd: indices{_position(where)} = {flat[row].tolist()} does not index "
                f"into param shape {list(dims)}.")
    return params[tuple(np.moveaxis(indices, -1, 0))]


GATHER_ND = define("GatherNd", _gather_nd_infer, _gather_nd_kernel)


@GATHER_ND.def_grad
def _gather_nd_grad(op, g):
    shape_attr, like = like_input(op, 0)
    return [apply(SCATTER_ND, [g, op.inputs[1], *like], {"shape": shape_attr}), None]


def gather_nd(params, indices, name=None):
    """Takes the elements (or slices) whose index tuples are the last axis of `indices`."""
    return apply(GATHER_ND, [convert_to_tensor(params),
                             convert_to_tensor(indices, dtype_hint=_dtypes.int32)], name=name)


def _select_infer(cond, x, y):
    if not cond.dtype.is_bool:
        raise TypeError(f"where: condition must be bool, got {cond.dtype.name}.")
    dtype = same_dtype("SelectV2", x, y)
    return broadcast(broadcast(cond.shape, x.shape, "SelectV2"), y.shape, "SelectV2"), dtype


SELECT = define("SelectV2", _select_infer, np.where, template="np.where({0}, {1}, {2})",
                scalar="{1} if {0} else {2}", scalar_only=True)


@SELECT.def_grad
def _select_grad(op, g):
    cond = op.inputs[0]
    gx = sum_grad(where(cond, g, 0), op, 1) if op.needs[1] else None
    gy = sum_grad(where(cond, 0, g), op, 2) if op.needs[2] else None
    return [None, gx, gy]


def _where_indices_infer(cond):
    rank = cond.shape.rank
    return TensorShape([None, rank]), _dtypes.int64


WHERE_INDICES = define("Where", _where_indices_infer, lambda c: np.argwhere(c).astype(np.int64),
                       template="np.argwhere({0})")


@export("where")
def where(condition, x=None, y=None, name=None) -> Tensor:
    """Elementwise select (x and y given) or the int64 indices of true elements."""
    condition = convert_to_tensor(condition, dtype_hint=_dtypes.bool_)
    if x is None and y is None:
        return apply(WHERE_INDICES, [condition], name=name)
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither.")
    x, y = binary_operands(x, y)
    return apply(SELECT, [condition, x, y], name=name)


def _boolean_mask_infer(tensor, mask):
    dims = tensor.shape.as_tuple()
    mdims = mask.shape.as_tuple()
    if dims is None or mdims is None:
        return TensorShape(None), tensor.dtype
    if not TensorShape(dims[:len(mdims)]).is_compatible_with(mdims):
        raise InvalidArgumentError(f"boolean_mask: mask shape {mask.shape} does not match the leading "
                         f"dimensions of shape {tensor.shape}.")
    return TensorShape((None,) + dims[len(mdims):]), tensor.dtype


BOOLEAN_MASK = define("BooleanMask", _boolean_mask_infer, lambda t, m: t[m], template="{0}[{1}]")


@BOOLEAN_MASK.def_grad
def _boolean_mask_grad(op, g):
    shape_attr, like = like_input(op, 0)
    return [apply(MASK_SCATTER, [g, op.inputs[1], *like], {"shape": shape_attr}), None]


@export("boolean_mask")
def boolean_mask(tensor, mask, axis=None, name=None) -> Tensor:
    """The elements (or rows) of `tensor` where the bool `mask` is true."""
    if axis not in (None, 0):
        raise NotImplementedError("boolean_mask supports axis=0 only.")
    return apply(BOOLEAN_MASK, [convert_to_tensor(tensor),
                                convert_to_tensor(mask, dtype=_dtypes.bool_)], name=name)


# -- creation ------------------------------------------------------------------------------

def _shape_arg(shape, what="shape"):
    dims = None if _known_later(shape) else static_ints(shape, what)
    if dims is None:
        return None
    if any(d < 0 for d in dims):
        raise ValueError(f"{what} must be fully defined, got {list(dims)}.")
    return dims


@export("zeros")
def zeros(shape, dtype=_dtypes.float32, name=None) -> Tensor:
    """A tensor of zeros of the given shape and dtype."""
    dtype = _dtypes.as_dtype(dtype)
    dims = _shape_arg(shape)
    if dims is None:
        return fill(shape, np.zeros((), dtype.as_numpy_dtype), name=name)
    return constant(np.zeros(dims, dtype.as_numpy_dtype))


@export("ones")
def ones(shape, dtype=_dtypes.float32, name=None) -> Tensor:
    """A tensor of ones of the given shape and dtype."""
    dtype = _dtypes.as_dtype(dtype)
    dims = _shape_arg(shape)
    if dims is None:
        return fill(shape, np.ones((), dtype.as_numpy_dtype), name=name)
    return constant(np.ones(dims, dtype.as_numpy_dtype))


def _fill_infer(dims, value):
    if not dims.dtype.is_integer:
        raise TypeError(f"Fill: dims must be integers, got {dims.dtype.name}.")
    if dims.shape.rank not in (None, 0, 1):
        raise ValueError(f"Fill: dims must be a vector, got shape {dims.shape}.")
    if value.shape.rank not in (None, 0):
        raise ValueError(f"Fill: value must be a scalar, got shape {value.shape}.")
    return shape_from_tensor(dims), value.dtype


FILL = define("Fill", _fill_infer, lambda dims, value: np.full(tuple(np.ravel(dims)), value),
              template="np.full(tuple({0}.tolist()), {1})")


@FILL.def_grad
def _fill_grad(op, g):
    return [None, reduce_sum(g)]


@export("fill")
def fill(dims, value, name=None) -> Tensor:
    """A tensor of shape `dims` filled with `value`."""
    return apply(FILL, [int_vector(dims), convert_to_tensor(value)], name=name)


def _like_infer(x, dtype):
    return x.shape, (dtype or x.dtype)


ZEROS_LIKE = define("ZerosLike", _like_infer, lambda x, dtype: np.zeros_like(x, dtype=dtype and dtype.as_numpy_dtype),
                    differentiable=False, attrs={"dtype": OPT_DTYPE})


ONES_LIKE = define("OnesLike", _like_infer, lambda x, dtype: np.ones_like(x, dtype=dtype and dtype.as_numpy_dtype),
                   differentiable=False, attrs={"dtype": OPT_DTYPE})


@export("zeros_like")
def zeros_like(input, dtype=None, name=None) -> Tensor:  # noqa: A002
    """Zeros with the shape (and, unless given, dtype) of `input`."""
    x = convert_to_tensor(input)
    return apply(ZEROS_LIKE, [x], {"dtype": _dtypes.as_dtype(dtype) if dtype else None}, name=name)


@export("ones_like")
def ones_like(input, dtype=None, name=None) -> Tensor:  # noqa: A002
    """Ones with the shape (and, unless given, dtype) of `input`."""
    x = convert_to_tensor(input)
    return apply(ONES_LIKE, [x], {"dtype": _dtypes.as_dtype(dtype) if dtype else None}, name=name)


def _range_infer(start, limit, delta, dtype):
    values = [constant_value(t) for t in (start, limit, delta)]
    if values[2] is not None:
        _check_delta(values[2])
    if all(v is not None for v in values):
        n = len(np.arange(*[v.item() for v in values]))
        return TensorShape([n]), dtype
    return TensorShape([None]), dtype


def _check_delta(delta):
    if delta == 0:
        raise InvalidArgumentError("rt.range: delta must not be 0 (the range would never end).")


def _range_kernel(start, limit, delta, dtype):
    _check_delta(delta)
    return np.arange(start, limit, delta, dtype=dtype.as_numpy_dtype)


RANGE = define("Range", _range_infer, _range_kernel, differentiable=False, attrs={"dtype": DTYPE})


@export("range")
def range(start, limit=None, delta=1, dtype=None, name=None) -> Tensor:  # noqa: A001
    """Like Python's range, as a tensor: range(5), range(2, 8, 2)."""
    if limit is None:
        start, limit = 0, start
    parts = [start, limit, delta]
    if dtype is None:
        kinds = [p.dtype if isinstance(p, Tensor) else _dtypes.python_scalar_dtype(p) or _dtypes.int32
                 for p in parts]
        dtype = next((k for k in kinds if k.is_floating), None) or next(
            (k for k in kinds if k is _dtypes.int64), _dtypes.int32)
    dtype = _dtypes.as_dtype(dtype)
    tensors = [cast(convert_to_tensor(p), dtype) if isinstance(p, Tensor) else convert_to_tensor(p, dtype)
               for p in parts]
    return apply(RANGE, tensors, {"dtype": dtype}, name=name)


@export("eye", "linalg.eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dtypes.float32, name=None) -> Tensor:
    """An identity matrix (num_rows x num_columns), optionally repeated over batch_shape."""
    dtype = _dtypes.as_dtype(dtype)
    sizes = [num_rows, num_columns]
    if any(scalar_known_later(v) for v in sizes) or _known_later(batch_shape) or (
            isinstance(batch_shape, Tensor) and constant_value(batch_shape) is None):
        return _eye_later(num_rows, num_rows if num_columns is None else num_columns,
                          batch_shape, dtype)
    rows = as_int(num_rows, "num_rows")
    columns = None if num_columns is None else as_int(num_columns, "num_columns")
    value = np.eye(rows, columns, dtype=dtype.as_numpy_dtype)
    if batch_shape is not None:
        batch = static_ints(batch_shape, "batch_shape")
        value = np.broadcast_to(value, tuple(batch) + value.shape).copy()
    return constant(value)


def _eye_later(num_rows, num_columns, batch_shape, dtype):
    """eye whose sizes are known when the graph runs: rows == columns as a 0/1 matrix."""
    rows = range(convert_to_tensor(num_rows, dtype_hint=_dtypes.int32))
    columns = range(convert_to_tensor(num_columns, dtype_hint=_dtypes.int32))
    hits = equal(expand_dims(rows, 1), expand_dims(columns, 0))
    matrix = cast(hits, dtype)
    if batch_shape is None:
        return matrix
    batch = int_vector(batch_shape)
    return add(fill(concat([batch, shape(rows), shape(columns)], 0),
                             np.zeros((), dtype.as_numpy_dtype)), matrix)


# -- shape queries ---------------------------------------------------------------------------

def _shape_infer(x, out_type):
    rank = x.shape.rank
    return TensorShape([rank]), out_type


SHAPE = define("Shape", _shape_infer, lambda x, out_type: np.array(np.shape(x), out_type.as_numpy_dtype),
               differentiable=False, attrs={"out_type": DTYPE})


@export("shape")
def shape(input, out_type=_dtypes.int32, name=None) -> Tensor:  # noqa: A002
    """The shape as an int32 tensor (a constant when the shape is fully known)."""
    x = convert_to_tensor(input)
    out_type = _dtypes.as_dtype(out_type)
    if x.shape.is_fully_defined():
        return constant(np.array(x.shape.as_list(), out_type.as_numpy_dtype))
    return apply(SHAPE, [x], {"out_type": out_type}, name=name)


SIZE = define("Size", lambda x, out_type: (TensorShape([]), out_type),
              lambda x, out_type: np.array(np.size(x), out_type.as_numpy_dtype), differentiable=False,
              attrs={"out_type": DTYPE})


@export("size")
def size(input, out_type=_dtypes.int32, name=None) -> Tensor:  # noqa: A002
    """The number of elements, as a scalar (a constant when the shape is known)."""
    x = convert_to_tensor(input)
    out_type = _dtypes.as_dtype(out_type)
    n = x.shape.num_elements()
    if n is not None:
        return constant(np.array(n, out_type.as_numpy_dtype))
    return apply(SIZE, [x], {"out_type": out_type}, name=name)


@export("rank")
def rank(input, name=None) -> Tensor:  # noqa: A002
    """The number of axes, as a scalar int32 tensor."""
    x = convert_to_tensor(input)
    if x.shape.rank is None:
        raise ValueError("rank of a tensor of unknown rank is not supported.")
    return constant(np.array(x.shape.rank, np.int32))


# -- casting and identity ---------------------------------------------------------------------

@functools.cache
def int_range(target: np.dtype) -> tuple[int, int, float]:
    """The lowest and highest values of the integer dtype `target`, and the float just past
    the highest (a power of two, exact in every float type)."""
    info = np.iinfo(target)
    return int(info.min), int(info.max), float(int(info.max) + 1)


def saturating_cast(x, target: np.dtype):
    """Floats converted to the integer dtype `target` saturating, on every tier: truncated
    toward zero, NaN to 0, values below (above) the range (-inf, +inf) to its lowest
    (highest) value. NumPy's own conversion of those is platform dependent. In range (one
    min and one max over `x`) it is `astype`."""
    lo, hi, top = int_range(target)
    if isinstance(x, np.generic):  # a scalar (a loop counter): no array reductions
        if lo <= x < top:  # NaN fails
            return x.astype(target)
        return np.array(0 if x != x else lo if x < lo else hi, dtype=target)[()]
    if x.size == 0 or (x.min() >= lo and x.max() < top):  # NaN fails both
        return x.astype(target)
    with np.errstate(invalid="ignore"):
        out = x.astype(target)
    fixed = np.where(x != x, 0, np.where(x < lo, lo, np.where(x >= top, hi, out)))
    return fixed.astype(target)[()] if np.ndim(x) == 0 else fixed.astype(target)


def is_float_to_int(source: np.dtype, target: np.dtype) -> bool:
    """True for the casts that saturate (`saturating_cast`)."""
    return np.dtype(source).kind == "f" and np.dtype(target).kind in "iu"


def _cast_kernel(x, dtype):
    x = np.asarray(x)
    if is_float_to_int(x.dtype, dtype.as_numpy_dtype):
        return saturating_cast(x, dtype.as_numpy_dtype)
    return x.astype(dtype.as_numpy_dtype)


def _emit_cast(em, op):
    x, target = op.inputs[0], op.attrs["dtype"]._np
    type_name = f"np.{target.type.__name__}"
    if is_float_to_int(x.dtype.as_numpy_dtype, target):
        em.line(f"{em.outs(op)[0]} = {em.bind(saturating_cast)}({em.ins(op)[0]}, {type_name})")
    elif x.shape.rank == 0 and x.dtype._np.kind in "biu" and target.kind == "f":
        # a scalar integer (a loop counter) converts through int: several times faster than astype
        em.line(f"{em.outs(op)[0]} = {type_name}(int({em.ins(op)[0]}))")
    else:
        em.line(f"{em.outs(op)[0]} = {em.ins(op)[0]}.astype({type_name})")


CAST = define("Cast", lambda x, dtype: (x.shape, dtype), _cast_kernel, emit=_emit_cast,
              attrs={"dtype": DTYPE})


@CAST.def_grad
def _cast_grad(op, g):
    source = op.forward_inputs[0].dtype
    if source._np.kind not in "fc" or g.dtype._np.kind not in "fc":
        return [None]
    return [cast(g, source)]


@export("cast")
def cast(x, dtype, name=None) -> Tensor:
    """Converts `x` to `dtype` (floats to ints truncate toward zero, as in TensorFlow, and
    saturate: NaN gives 0, values out of the integer range its lowest or highest value)."""
    dtype = _dtypes.as_dtype(dtype)
    if not isinstance(x, Tensor):
        if isinstance(x, (np.ndarray, np.generic)):
            return convert_to_tensor(_cast_kernel(x, dtype))
        x = convert_to_tensor(x)
    x = convert_to_tensor(x)
    if x.dtype is dtype:
        return x
    return apply(CAST, [x], {"dtype": dtype}, name=name)


register_conversions(pack=stack, cast=cast)


IDENTITY = define("Identity", lambda x: (x.shape, x.dtype), lambda x: x,
                  emit=lambda em, op: em.alias(op.outputs[0], em.ins(op)[0]))


@IDENTITY.def_grad
def _identity_grad(op, g):
    return [g]


@export("identity")
def identity(input, name=None) -> Tensor:  # noqa: A002
    """The same value (a new op in a graph)."""
    return apply(IDENTITY, [convert_to_tensor(input)], name=name)


def _one_hot_infer(indices, depth, on_value, off_value, axis, dtype):
    dims = indices.shape.as_tuple()
    if dims is None:
        return TensorShape(None), dtype
    ax = len(dims) if axis == -1 else axis
    return TensorShape(dims[:ax] + (depth,) + dims[ax:]), dtype


def _one_hot_kernel(indices, depth, on_value, off_value, axis, dtype):
    indices = np.asarray(indices)
    hot = indices[..., None] == np.arange(depth)
    out = np.where(hot, on_value, off_value).astype(dtype.as_numpy_dtype)
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return out


ONE_HOT = define("OneHot", _one_hot_infer, _one_hot_kernel, differentiable=False,
                 attrs={"depth": INT, "on_value": NUMBER, "off_value": NUMBER, "axis": AXIS,
                        "dtype": DTYPE})


@export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None) -> Tensor:
    """One-hot vectors of length `depth` for integer `indices` (on_value/off_value, float32 by default)."""
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.float32
    indices = convert_to_tensor(indices, dtype_hint=_dtypes.int32)
    on = 1 if on_value is None else on_value
    off = 0 if off_value is None else off_value
    ax = -1 if axis is None else int(axis)
    if scalar_known_later(depth):
        return _one_hot_later(indices, depth, on, off, ax, dtype)
    return apply(ONE_HOT, [indices], {
        "depth": as_int(depth, "depth"), "on_value": on, "off_value": off, "axis": ax,
        "dtype": dtype}, name=name)


def _one_hot_later(indices, depth, on, off, axis, dtype):
    """one_hot whose depth is known when the graph runs: indices == range(depth), broadcast
    along the new axis, selecting on_value or off_value."""
    rank = indices.shape.rank
    if rank is None and axis != -1:
        raise ValueError("one_hot with a depth tensor and an axis needs indices of known rank.")
    ax = rank if axis == -1 else normalize_axis(axis, rank + 1, "OneHot")[0]
    positions = range(cast(convert_to_tensor(depth), indices.dtype))
    if rank is not None and rank - ax:
        positions = reshape(positions, (-1,) + (1,) * (rank - ax))
    hits = binary_operands(expand_dims(indices, ax), positions)
    hot = equal(*hits)
    on_t = convert_to_tensor(on, dtype=dtype) if not isinstance(on, Tensor) else cast(on, dtype)
    off_t = convert_to_tensor(off, dtype=dtype) if not isinstance(off, Tensor) else cast(off, dtype)
    return where(hot, on_t, off_t)


REVERSE = define("ReverseV2", lambda x, axis: (x.shape, x.dtype), lambda x, axis: np.flip(x, axis),
                 template="np.flip({0}, {axis})", attrs={"axis": AXES})


@REVERSE.def_grad
def _reverse_grad(op, g):
    return [reverse(g, op.attrs["axis"])]


@export("reverse")
def reverse(tensor, axis, name=None) -> Tensor:
    """Reverses the order of elements along the given axes."""
    x = convert_to_tensor(tensor)
    axes = normalize_axis(static_ints(axis, "axis"), x.shape.rank, "ReverseV2")
    return apply(REVERSE, [x], {"axis": axes}, name=name)


def _cumsum_kernel(x, axis, exclusive, reverse):
    x = np.asarray(x)
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=axis)),
                              np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return out


CUMSUM = define("Cumsum", lambda x, axis, exclusive, reverse: (x.shape, x.dtype), _cumsum_kernel,
                attrs={"axis": AXIS, "exclusive": BOOL, "reverse": BOOL})


@CUMSUM.def_grad
def _cumsum_grad(op, g):
    return [cumsum(g, op.attrs["axis"], exclusive=op.attrs["exclusive"],
                   reverse=not op.attrs["reverse"])]


@export("cumsum", "math.cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Cumulative sum along `axis`; `exclusive` shifts it by one, `reverse` sums from the end."""
    x = convert_to_tensor(x)
    ax = normalize_axis(int(axis), x.shape.rank, "Cumsum")[0]
    return apply(CUMSUM, [x], {"axis": ax, "exclusive": bool(exclusive), "reverse": bool(reverse)},
                 name=name)


# -- indexing -------------------------------------------------------------------------------------

class IndexSlot:

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"IndexSlot({self.index})"


def fill_key(key, values):
    """The indexing key with its tensor slots replaced by `values` (run-time indices)."""
    def one(k):
        if isinstance(k, IndexSlot):
            return values[k.index]
        if isinstance(k, slice):
            return slice(one(k.start), one(k.stop), one(k.step))
        return k
    return tuple(one(k) for k in key)


def _index_infer(x, *index_tensors, key):
    dims = x.shape.as_tuple()
    if any(isinstance(k, IndexSlot) and index_tensors[k.index].shape.rank not in (0,) for k in key):
        for k in key:
            if isinstance(k, IndexSlot) and index_tensors[k.index].dtype.is_bool:
                return TensorShape(None), x.dtype
        return TensorShape(None), x.dtype
    if dims is None:
        return TensorShape(None), x.dtype
    consumed = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > len(dims):
        raise IndexError(f"Too many indices ({consumed}) for a tensor of shape {x.shape}.")
    out = []
    pos = 0
    for k in key:
        if k is Ellipsis:
            n = len(dims) - consumed
            out.extend(dims[pos:pos + n])
            pos += n
        elif k is None:
            out.append(1)
        elif isinstance(k, slice):
            d = dims[pos]
            pos += 1
            parts = (k.start, k.stop, k.step)
            if d is None or any(isinstance(p, IndexSlot) for p in parts):
                out.append(None)
            else:
                out.append(len(builtins.range(*slice(*parts).indices(d))))
        else:
            d = dims[pos]
            pos += 1
            if not isinstance(k, IndexSlot) and d is not None and not -d <= k < d:
                raise IndexOutOfBoundsError(
                    f"Index {k} is out of bounds for axis {pos - 1} with size {d} (shape "
                    f"{x.shape}): slice index {k} of dimension {pos - 1} out of bounds.")
    out.extend(dims[pos:])
    return TensorShape(out), x.dtype


def _index_kernel(x, *index_values, key):
    return np.asarray(x)[fill_key(key, index_values)]


def _key_source(em, op) -> str:
    names = em.ins(op)
    values, key = names[1:], op.attrs["key"]

    def one(k):
        if isinstance(k, IndexSlot):
            return values[k.index]
        if k is Ellipsis:
            return "..."
        if isinstance(k, slice):
            parts = [one(p) if p is not None else "" for p in (k.start, k.stop, k.step)]
            return f"{parts[0]}:{parts[1]}" + (f":{parts[2]}" if parts[2] else "")
        return repr(k)
    inner = ", ".join(one(k) for k in key)
    return f"{names[0]}[{inner}{',' if len(key) == 1 and not isinstance(key[0], slice) else ''}]"


def _strided_slice_emit(em, op) -> None:
    source = _key_source(em, op)
    if op.outputs[0].dtype is _dtypes.string:  # an object array's element is a bare bytes
        source = f"np.asarray({source}, dtype=object)"
    em.line(f"{em.outs(op)[0]} = {source}")


STRIDED_SLICE = define("StridedSlice", _index_infer, _index_kernel, emit=_strided_slice_emit,
                       attrs={"key": KEY})


@STRIDED_SLICE.def_grad
def _strided_slice_grad(op, g):
    shape_attr, like = like_input(op, 0)
    index_inputs = list(op.inputs[1:])
    grad = apply(SLICE_GRAD, [g, *like, *index_inputs], {"key": op.attrs["key"], "shape": shape_attr})
    return [grad] + [None] * len(index_inputs)


def getitem(tensor, key):
    """`tensor[key]` with ints, slices, None, Ellipsis, and tensors as indices or bounds."""
    tensor = convert_to_tensor(tensor)
    if not isinstance(key, tuple):
        key = (key,)
    inputs = []

    def norm(k):
        if isinstance(k, Tensor) or isinstance(k, (list, np.ndarray)):
            t = convert_to_tensor(k, dtype_hint=_dtypes.int32)
            if t.dtype.is_floating:
                raise TypeError(f"Tensor indices must be integers or bools, got {t.dtype.name}.")
            known = constant_value(t) if not isinstance(k, (list, np.ndarray)) else None
            if known is not None and known.ndim == 0 and not t.dtype.is_bool and context.current_graph() is None:
                return int(known)
            inputs.append(t)
            return IndexSlot(len(inputs) - 1)
        if isinstance(k, slice):
            return slice(norm(k.start), norm(k.stop), norm(k.step))
        if isinstance(k, (bool, np.bool_)):
            raise TypeError("A Python bool is not a valid index.")
        if isinstance(k, (int, np.integer)):
            return int(k)
        if k is None or k is Ellipsis:
            return k
        raise TypeError(f"Cannot index a tensor with {k!r}; use ints, slices, None, Ellipsis or "
                        "integer tensors.")
    key = tuple(norm(k) for k in key)
    return apply(STRIDED_SLICE, [tensor, *inputs], {"key": key})


# == reductions over axes: sum, mean, max, min, prod, any, all, argmax, argmin ======================

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


@SUM.def_grad
def _reduce_sum_grad(op, g):
    return [broadcast_grad(_reduced_grad(op, g), op, 0)]


MEAN = define("Mean", _infer("Mean", "numeric"), _mean_kernel, emit=_emit_mean, attrs=_REDUCE)


@MEAN.def_grad
def _mean_grad(op, g):
    x, y = op.forward_inputs[0], op.forward_outputs[0]
    n_in, n_out = x.shape.num_elements(), y.shape.num_elements()
    g = _reduced_grad(op, g)
    if n_in is not None and n_out is not None:
        scaled = divide(g, max(n_in // max(n_out, 1), 1))
        return [broadcast_grad(scaled, op, 0)]
    full = broadcast_grad(g, op, 0)
    count = divide(cast(size(op.inputs[0]), x.dtype),
                   cast(size(op.outputs[0]), x.dtype))
    return [divide(full, count)]


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


@PROD.def_grad
def _prod_grad(op, g):
    others = apply(PROD_OTHERS, [op.inputs[0]], {"axis": op.attrs["axis"]})
    return [multiply(others, _reduced_grad(op, g))]


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
    count = divide(cast(size(x), x.dtype),
                   cast(size(op.outputs[0]), x.dtype))
    return [divide(spread, count), None]


def _extremum_dynamic_grad(op, g):
    x, axis = op.inputs[0], op.inputs[1]
    top = apply(SPREAD_DYNAMIC, [op.outputs[0], x, axis])
    hits = cast(equal(x, top), x.dtype)
    count = apply(SUM_DYNAMIC, [hits, axis], {"keepdims": True})
    return [multiply(divide(hits, count), apply(SPREAD_DYNAMIC, [g, x, axis])), None]


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
        if scalar_known_later(axis) or _known_later(axis):
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
        if scalar_known_later(axis):
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
# PROD_OTHERS is Prod's: the product of the other elements, for Prod's gradient.


def _others_product_kernel(x, axis):
    """For each element, the product of the other elements reduced with it (zeros allowed)."""
    x = np.asarray(x)
    axes = tuple(builtins.range(x.ndim)) if axis is None else tuple(axis)
    rest = tuple(a for a in builtins.range(x.ndim) if a not in axes)
    moved = np.transpose(x, rest + axes)
    flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), x.dtype)
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], axis=-1), axis=-1), -1)
    return np.transpose((before * after).reshape(moved.shape), np.argsort(rest + axes))


PROD_OTHERS = define("ProdOthers", lambda x, axis: (x.shape, x.dtype), _others_product_kernel,
                     attrs={"axis": OPT_AXES})


@PROD_OTHERS.def_grad
def _prod_others_grad(op, g):
    """ProdOthers(x)_i is the product of the other x_j of i's group, so its derivative by x_k
    (k != i) is the product of the x_j with j not i or k: for each i, the ProdOthers of the
    group with x_i replaced by 1. Built from ProdOthers and elementwise ops, the rule is itself
    differentiable (reduce_prod gets derivatives of any order); it holds n x n values a group."""
    x = op.inputs[0]
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError("The gradient of reduce_prod's gradient needs a known rank.")
    axis = op.attrs["axis"]
    axes = tuple(builtins.range(rank)) if axis is None else tuple(a % max(rank, 1) for a in axis)
    rest = tuple(a for a in builtins.range(rank) if a not in axes)
    perm = list(rest + axes)
    moved_x, moved_g = transpose(x, perm), transpose(g, perm)
    moved_shape = shape(moved_x)
    flat_shape = concat([moved_shape[:len(rest)], [-1]], 0)
    flat_x = reshape(moved_x, flat_shape)                  # (..., n)
    flat_g = reshape(moved_g, flat_shape)
    n = shape(flat_x)[-1]
    diagonal = eye(n, dtype=x.dtype)
    rows = add(multiply(expand_dims(flat_x, -2), 1 - diagonal), diagonal)  # x_i -> 1
    pairs = apply(PROD_OTHERS, [rows], {"axis": (len(rest) + 1,)})  # [..., i, k]
    weighted = multiply(multiply(expand_dims(flat_g, -1), pairs), 1 - diagonal)
    grad = reshape(reduce_sum(weighted, axis=-2), moved_shape)
    inverse = [perm.index(a) for a in builtins.range(rank)]
    return [transpose(grad, inverse)]


@export("reduce_logsumexp", "math.reduce_logsumexp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """log(sum(exp(x))) over `axis`, computed without overflow (shifted by the maximum)."""
    x = convert_to_tensor(input_tensor)
    top = reduce_max(x, axis=axis, keepdims=True)
    top = where(less(abs(top), np.inf), top, 0)  # rows of -inf stay -inf
    total = reduce_sum(exp(subtract(x, top)), axis=axis, keepdims=keepdims)
    return add(log(total), reduce_max(top, axis=axis, keepdims=keepdims), name=name)


# == ops and helpers gradient rules share: broadcasting, summing, scattering ========================
#
# A rule maps (op, *output_grads) to one gradient per input, None where there is none. `op` (see
# runtime.gradients.node.GradOp) gives `forward_inputs`/`forward_outputs` for static shapes and
# dtypes, `inputs`/`outputs` for values, and `needs[i]` (is input i's gradient wanted). Rules
# use ordinary ops, so gradients run eagerly or are staged, and are differentiable again.

def static_dims(tensor):
    """The shape of `tensor` as a tuple of ints when fully known at trace time, else None."""
    dims = tensor.shape.as_tuple()
    if dims is None or None in dims:
        return None
    return dims


def _bcast_infer(x, *like, shape):
    if shape is not None:
        return TensorShape(shape), x.dtype
    return like[0].shape, x.dtype


def _bcast_kernel(x, *like, shape):
    return np.broadcast_to(x, np.shape(like[0]) if shape is None else shape).copy()


def _emit_bcast(em, op):
    names = em.ins(op)
    shape = em.literal(op.attrs["shape"]) if op.attrs["shape"] is not None else f"{names[1]}.shape"
    em.line(f"{em.outs(op)[0]} = np.broadcast_to({names[0]}, {shape}).copy()")


BROADCAST_TO = define("BroadcastTo", _bcast_infer, _bcast_kernel, emit=_emit_bcast,
                      attrs={"shape": OPT_DIMS})


@BROADCAST_TO.def_grad
def _broadcast_to_grad(op, g):
    return [sum_grad(g, op, 0, operands=False)] + [None] * (len(op.forward_inputs) - 1)


def _sum_to_infer(g, like):
    return like.shape, g.dtype


def _sum_to_kernel(g, like):
    g = np.asarray(g)
    shape = np.shape(like)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(builtins.range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                               if d == 1 and g.shape[lead + i] != 1)
    return np.sum(g, axis=axes, dtype=g.dtype).reshape(shape)


SUM_TO_SHAPE = define("SumToShape", _sum_to_infer, _sum_to_kernel)


@SUM_TO_SHAPE.def_grad
def _sum_to_shape_grad(op, g):
    return [broadcast_grad(g, op, 0), None]


def _zeros_infer(shape, dtype):
    return TensorShape(shape), _dtypes.from_numpy(dtype)


ZEROS = define("Zeros", _zeros_infer, lambda shape, dtype: np.zeros(shape, dtype),
               template="np.zeros({shape}, {dtype})", differentiable=False,
               attrs={"shape": DIMS, "dtype": NP_DTYPE})


def zeros_for(op, index: int, output: bool = False):
    """Zeros shaped like input (or output) `index` of `op`, made fresh on every run."""
    forward = (op.forward_outputs if output else op.forward_inputs)[index]
    dims = static_dims(forward)
    if dims is not None:
        return apply(ZEROS, [], {"shape": dims, "dtype": forward.dtype._np})
    return zeros_like((op.outputs if output else op.inputs)[index])


def broadcast_grad(grad, op, index: int):
    """`grad` broadcast to the shape of input `index` of `op` (a no-op when shapes agree)."""
    forward = op.forward_inputs[index]
    dims = static_dims(forward)
    if dims is not None:
        if static_dims(grad) == dims:
            return grad
        return apply(BROADCAST_TO, [grad], {"shape": dims})
    return apply(BROADCAST_TO, [grad, op.inputs[index]], {"shape": None})


def sum_grad(grad, op, index: int, operands: bool = True):
    """`grad` summed over the axes that broadcasting added to input `index` of `op`.

    `operands`: the op's other inputs are the operands broadcast together with this one
    (False for ops such as BroadcastTo, whose output shape comes from elsewhere).
    """
    forward = op.forward_inputs[index]
    others = [t.shape.as_tuple() for i, t in enumerate(op.forward_inputs) if i != index] \
        if operands else [None]
    axes = _broadcast_axes(forward.shape.as_tuple(), grad.shape.as_tuple(), others)
    if axes is None:
        return apply(SUM_TO_SHAPE, [grad, op.inputs[index]])
    lead, stretched = axes
    if not lead and not stretched:
        return grad
    if not lead:
        return reduce_sum(grad, axis=stretched, keepdims=True)
    out = reduce_sum(grad, axis=lead + stretched)
    if not stretched:
        return out
    dims = static_dims(forward)
    return reshape(out, dims if dims is not None else shape(op.inputs[index]))


def _broadcast_axes(dims, gdims, others):
    """(added leading axes, stretched size-1 axes) of a broadcast from `dims` to `gdims`.

    None when only the values can tell (unknown sizes that might be 1). `others` are the
    shapes of the other operands, which decide what an unknown size broadcast to.
    """
    if dims is None or gdims is None or len(gdims) < len(dims):
        return None
    lead = len(gdims) - len(dims)

    def others_are_one(axis):  # axis counted from the right
        return all(o is not None and (len(o) < axis or o[-axis] == 1) for o in others)
    stretched = []
    for i, d in enumerate(dims):
        g = gdims[lead + i]
        if d == 1:
            if g is not None and g != 1:
                stretched.append(lead + i)
            elif g is None and not others_are_one(len(dims) - i):
                return None
        elif d is None and not others_are_one(len(dims) - i):
            return None
    return list(builtins.range(lead)), stretched


def reshape_grad(grad, op, index: int = 0):
    """`grad` reshaped to the shape of input `index` of `op`."""
    dims = static_dims(op.forward_inputs[index])
    if dims is not None:
        return grad if static_dims(grad) == dims else reshape(grad, dims)
    return reshape(grad, shape(op.inputs[index]))


def keepdims_grad(grad, op, axis):
    """The gradient of a reduction over `axis`, reshaped to keep the reduced axes as 1s."""
    rank = op.forward_inputs[0].shape.rank
    if axis is None:
        return reshape(grad, (1,) * rank) if rank and grad.shape.rank else grad
    dims = grad.shape.as_tuple()
    if dims is not None and None not in dims and rank is not None:
        it = iter(dims)
        return reshape(grad, tuple(1 if i in axis else next(it) for i in builtins.range(rank)))
    for a in sorted(axis):
        grad = expand_dims(grad, a)
    return grad


def _split_like_infer(g, *xs, axis):
    return [(x.shape, g.dtype) for x in xs]


def _split_like_kernel(g, *xs, axis):
    sizes = [np.shape(x)[axis] for x in xs]
    return np.split(g, np.cumsum(sizes)[:-1], axis=axis)


SPLIT_LIKE = define("SplitLike", _split_like_infer, _split_like_kernel, num_outputs=None,
                    attrs={"axis": AXIS})


@SPLIT_LIKE.def_grad
def _split_like_grad(op, *grads):
    parts = [g if g is not None else zeros_for(op, i, output=True) for i, g in enumerate(grads)]
    return [concat(parts, op.attrs["axis"])] + [None] * len(grads)


def _scatter_axis_infer(g, indices, *like, axis, shape):
    return (TensorShape(shape) if shape is not None else like[0].shape), g.dtype


def _scatter_axis_kernel(g, indices, *like, axis, shape):
    shape = np.shape(like[0]) if shape is None else shape
    out = np.zeros(shape, np.asarray(g).dtype)
    idx = np.asarray(indices)
    moved = np.moveaxis(out, axis, 0)
    if idx.ndim == 0:  # one index (a staged loop's step): one row, without ufunc.at's cost
        moved[idx] = g
        return out
    rows = np.moveaxis(g, list(builtins.range(axis, axis + idx.ndim)), list(builtins.range(idx.ndim)))
    np.add.at(moved, idx.reshape(-1), rows.reshape((idx.size,) + moved.shape[1:]))
    return out


SCATTER_AXIS = define("ScatterAddAxis", _scatter_axis_infer, _scatter_axis_kernel,
                      attrs={"axis": AXIS, "shape": OPT_DIMS})


@SCATTER_AXIS.def_grad
def _scatter_axis_grad(op, g):
    return [gather(g, op.inputs[1], axis=op.attrs["axis"])] + [None] * (len(op.forward_inputs) - 1)


def _scatter_nd_infer(g, indices, *like, shape):
    return (TensorShape(shape) if shape is not None else like[0].shape), g.dtype


def _scatter_nd_kernel(g, indices, *like, shape):
    shape = np.shape(like[0]) if shape is None else shape
    out = np.zeros(shape, np.asarray(g).dtype)
    np.add.at(out, tuple(np.moveaxis(np.asarray(indices), -1, 0)), g)
    return out


SCATTER_ND = define("ScatterNdAdd", _scatter_nd_infer, _scatter_nd_kernel,
                    attrs={"shape": OPT_DIMS})


@SCATTER_ND.def_grad
def _scatter_nd_grad(op, g):
    return [gather_nd(g, op.inputs[1])] + [None] * (len(op.forward_inputs) - 1)


def _mask_scatter_kernel(g, mask, *like, shape):
    shape = np.shape(like[0]) if shape is None else shape
    out = np.zeros(shape, np.asarray(g).dtype)
    out[np.asarray(mask, bool)] = g
    return out


MASK_SCATTER = define("MaskScatter", _scatter_nd_infer, _mask_scatter_kernel,
                      attrs={"shape": OPT_DIMS})


@MASK_SCATTER.def_grad
def _mask_scatter_grad(op, g):
    return [boolean_mask(g, op.inputs[1])] + [None] * (len(op.forward_inputs) - 1)


def _slice_grad_infer(g, *rest, key, shape):
    return (TensorShape(shape) if shape is not None else rest[0].shape), g.dtype


def _slice_grad_kernel(g, *rest, key, shape):
    if shape is None:
        shape, rest = np.shape(rest[0]), rest[1:]
    out = np.zeros(shape, np.asarray(g).dtype)
    filled = fill_key(key, rest)
    if any(np.ndim(v) > 0 and np.asarray(v).dtype != bool for v in rest):
        np.add.at(out, filled, g)
    else:
        out[filled] = g
    return out


SLICE_GRAD = define("StridedSliceGrad", _slice_grad_infer, _slice_grad_kernel,
                    attrs={"key": KEY, "shape": OPT_DIMS})


@SLICE_GRAD.def_grad
def _slice_grad_grad(op, g):
    index_inputs = list(op.inputs[1:] if op.attrs["shape"] is not None else op.inputs[2:])
    return [apply(STRIDED_SLICE, [g, *index_inputs], {"key": op.attrs["key"]})] + \
        [None] * (len(op.forward_inputs) - 1)


def like_input(op, index: int):
    """(attrs shape, extra inputs) for a gradient op that needs input `index`'s shape."""
    dims = static_dims(op.forward_inputs[index])
    return (dims, []) if dims is not None else (None, [op.inputs[index]])


# == gradient helpers of elementwise math ===========================================================

def _sum_grad(g, op, index):
    return sum_grad(g, op, index)


def _select_grads(op, g, x_wins):
    return [_sum_grad(where(x_wins, g, 0), op, 0) if op.needs[0] else None,
            _sum_grad(where(x_wins, 0, g), op, 1) if op.needs[1] else None]


# == gradient helpers of reductions =================================================================

def _reduced_grad(op, g):
    """The output gradient with the reduced axes kept as size-1 dims."""
    return g if op.attrs["keepdims"] else keepdims_grad(g, op, op.attrs["axis"])


def _extremum_grad(op, g):
    x = op.inputs[0]
    y = op.outputs[0] if op.attrs["keepdims"] else keepdims_grad(op.outputs[0], op, op.attrs["axis"])
    hits = cast(equal(x, y), x.dtype)
    count = reduce_sum(hits, axis=op.attrs["axis"], keepdims=True)
    return [multiply(divide(hits, count), _reduced_grad(op, g))]


MAX.def_grad(_extremum_grad)
MIN.def_grad(_extremum_grad)

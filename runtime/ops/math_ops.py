"""Elementwise math: arithmetic, comparisons, logic and unary functions."""

from __future__ import annotations

import math as _pymath

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define, ufunc_out_template, ufunc_template
from ..tensor import Tensor
from .core import apply, binary_operands, convert_to_tensor
from .shape_rules import broadcast, same_dtype

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


SUB = _binary("Sub", np.subtract)


MUL = _binary("Mul", np.multiply)


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


# Numba: helpers.power raises for integers to negative integer powers, as NumPy does
POW = _binary("Pow", np.power, scalar="_h.power({0}, {1})")


# Numba: helpers.maximum/minimum/sign give NumPy's signed zeros (the kernels ignore them)
MAXIMUM = _binary("Maximum", np.maximum, scalar="_h.maximum({0}, {1})")


MINIMUM = _binary("Minimum", np.minimum, scalar="_h.minimum({0}, {1})")


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

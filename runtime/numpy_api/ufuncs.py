"""NumPy ufuncs on tensors: each maps to the runtime op with the same elementwise meaning."""

from __future__ import annotations

from ..ops import array_math, bitwise, linalg
from . import primitives
from .registry import ufunc

_RUNTIME_NAME = {
    "subtract": "subtract", "true_divide": "divide", "divide": "divide",
    "floor_divide": "floordiv", "remainder": "mod", "mod": "mod", "power": "pow", "pow": "pow",
    "float_power": "pow", "equal": "equal", "not_equal": "not_equal", "less": "less",
    "less_equal": "less_equal", "greater": "greater", "greater_equal": "greater_equal",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
    "logical_not": "logical_not", "negative": "negative", "absolute": "abs", "abs": "abs",
    "fabs": "abs", "sign": "sign", "sqrt": "sqrt", "square": "square",
    "reciprocal": "reciprocal", "exp": "exp", "log": "log", "log1p": "log1p", "sin": "sin",
    "cos": "cos", "tan": "tan", "tanh": "tanh", "floor": "floor", "ceil": "ceil",
    "rint": "round",
}
for _name, _rt_name in _RUNTIME_NAME.items():
    ufunc(_name, staged_as=f"rt.{_rt_name}")(getattr(array_math, _rt_name))


def _on_bools(numeric, logical):
    """NumPy's arithmetic on two bools is logic (True + True is True)."""
    def fn(x, y):
        return (logical if x.dtype.is_bool else numeric)(x, y)
    fn.__name__ = fn.__qualname__ = numeric.__name__
    return fn


ufunc("add", staged_as="rt.add (rt.logical_or for bools)")(
    _on_bools(array_math.add, array_math.logical_or))
ufunc("multiply", staged_as="rt.multiply (rt.logical_and for bools)")(
    _on_bools(array_math.multiply, array_math.logical_and))
ufunc("maximum", staged_as="rt.maximum (rt.logical_or for bools)")(
    _on_bools(array_math.maximum, array_math.logical_or))
ufunc("minimum", staged_as="rt.minimum (rt.logical_and for bools)")(
    _on_bools(array_math.minimum, array_math.logical_and))

for _name in ("expm1", "exp2", "log2", "log10", "sinh", "cosh", "arcsin", "arccos", "arctan",
              "arcsinh", "arccosh", "arctanh", "trunc", "isnan", "isinf", "isfinite",
              "arctan2", "hypot"):
    _fn = getattr(primitives, _name)
    ufunc(_name, staged_as=_fn.__doc__.split("`")[1])(_fn)


@ufunc("positive", staged_as="rt.identity")
def positive(x):
    return array_math.identity(x)


@ufunc("invert", staged_as="rt.bitwise.invert (rt.logical_not for bools)")
def invert(x):
    return array_math.logical_not(x) if x.dtype.is_bool else bitwise.invert(x)


for _name, _logical in (("bitwise_and", "logical_and"), ("bitwise_or", "logical_or"),
                        ("bitwise_xor", "logical_xor")):
    ufunc(_name, staged_as=f"rt.bitwise.{_name} (rt.{_logical} for bools)")(
        _on_bools(getattr(bitwise, _name), getattr(array_math, _logical)))
ufunc("left_shift", staged_as="rt.bitwise.left_shift")(bitwise.left_shift)
ufunc("right_shift", staged_as="rt.bitwise.right_shift")(bitwise.right_shift)


@ufunc("matmul", staged_as="rt.matmul")
def matmul(a, b):
    """np.matmul: 1-D operands are promoted to matrices and the added axis removed after."""
    if a.shape.rank is None or b.shape.rank is None:
        return linalg.matmul(a, b)
    vec_a, vec_b = a.shape.rank == 1, b.shape.rank == 1
    product = linalg.matmul(array_math.expand_dims(a, 0) if vec_a else a,
                            array_math.expand_dims(b, 1) if vec_b else b)
    if vec_a or vec_b:
        product = array_math.squeeze(product, [-1] if vec_b and not vec_a else
                                     [-2] if vec_a and not vec_b else [-2, -1])
    return product


@ufunc("logaddexp", staged_as="rt.maximum, rt.log1p, rt.exp")
def logaddexp(x, y):
    """log(exp(x) + exp(y)), computed without overflow."""
    larger = array_math.maximum(x, y)
    return array_math.add(larger, array_math.log1p(array_math.exp(
        array_math.negative(array_math.abs(array_math.subtract(x, y))))))


# np.<ufunc>.reduce and .accumulate with a runtime equivalent
REDUCERS = {"add": array_math.reduce_sum, "multiply": array_math.reduce_prod,
            "maximum": array_math.reduce_max, "minimum": array_math.reduce_min,
            "logical_and": array_math.reduce_all, "logical_or": array_math.reduce_any}
ACCUMULATORS = {"add": array_math.cumsum}

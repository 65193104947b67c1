"""runtime: eager tensors over NumPy, graph tracing, a code-generating executor, compiled functions.

    import runtime as rt

    @rt.function
    def f(x, y):
        return rt.reduce_mean(rt.multiply(x ** 2, 3) + y)
"""

from __future__ import annotations

import importlib as _importlib
import types as _types

from . import errors
from .context import device, executing_eagerly, init_scope, name_scope
from .control_flow import TensorArray, cond, while_loop
from .dtypes import (
    DType,
    as_dtype,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from .function import (
    ConcreteFunction,
    Function,
    add_function_callback,
    clear_function_callbacks,
    defun,
    defun_with_attributes,
    experimental_functions_run_eagerly,
    experimental_run_functions_eagerly,
    function,
    functions_run_eagerly,
    register,
    remove_function_callback,
    run_functions_eagerly,
)
from .graph import FuncGraph, Graph, Operation
from .ops import array_ops as _array
from .ops import debug_ops as _debug
from .ops import linalg_ops as _linalg
from .ops import math_ops as _math
from .ops import nn_ops as _nn
from .ops import random_ops as _random
from .ops import reduce_ops as _reduce
from .ops.array_ops import (
    boolean_mask,
    cast,
    concat,
    cumsum,
    expand_dims,
    eye,
    fill,
    gather,
    gather_nd,
    identity,
    one_hot,
    ones,
    ones_like,
    range,
    rank,
    reshape,
    reverse,
    shape,
    size,
    split,
    squeeze,
    stack,
    tile,
    transpose,
    unstack,
    where,
    zeros,
    zeros_like,
)
from .ops.core import constant, convert_to_tensor
from .ops.debug_ops import Assert, print
from .ops.linalg_ops import einsum, matmul, tensordot
from .ops.math_ops import (
    abs,
    add,
    ceil,
    clip_by_value,
    cos,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    reciprocal,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    truediv,
)
from .ops.reduce_ops import (
    argmax,
    argmin,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from .shapes import TensorShape, TensorSpec
from .tensor import EagerTensor, SymbolicTensor, Tensor, is_tensor
from .variables import Variable

bool = bool_  # noqa: A001 - rt.bool aliases rt.bool_, as tf.bool

math = _types.SimpleNamespace(
    **{name: getattr(_math, name) for name in (
        "add", "subtract", "multiply", "divide", "truediv", "floordiv", "mod", "pow", "negative",
        "abs", "sign", "sqrt", "rsqrt", "square", "exp", "log", "log1p", "sin", "cos", "tan",
        "tanh", "sigmoid", "maximum", "minimum", "floor", "ceil", "round", "equal", "not_equal",
        "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
        "logical_not", "logical_xor", "reciprocal")},
    floormod=_math.mod, realdiv=_math.divide, clip_by_value=_math.clip_by_value,
    reduce_sum=_reduce.reduce_sum, reduce_mean=_reduce.reduce_mean, reduce_max=_reduce.reduce_max,
    reduce_min=_reduce.reduce_min, reduce_prod=_reduce.reduce_prod, reduce_any=_reduce.reduce_any,
    reduce_all=_reduce.reduce_all, argmax=_reduce.argmax, argmin=_reduce.argmin,
    cumsum=_array.cumsum)
linalg = _types.SimpleNamespace(inv=_linalg.inv, det=_linalg.det, matmul=_linalg.matmul,
                                einsum=_linalg.einsum, tensordot=_linalg.tensordot, eye=_array.eye)
random = _types.SimpleNamespace(uniform=_random.uniform, normal=_random.normal,
                                set_seed=_random.set_seed)
nn = _types.SimpleNamespace(
    relu=_nn.relu, sigmoid=_nn.sigmoid, tanh=_nn.tanh, softmax=_nn.softmax,
    log_softmax=_nn.log_softmax, dropout=_nn.dropout,
    softmax_cross_entropy_with_logits=_nn.softmax_cross_entropy_with_logits,
    sigmoid_cross_entropy_with_logits=_nn.sigmoid_cross_entropy_with_logits,
    l2_loss=_nn.l2_loss, bias_add=_nn.bias_add)
debugging = _types.SimpleNamespace(
    assert_equal=_debug.assert_equal, assert_none_equal=_debug.assert_none_equal,
    assert_less=_debug.assert_less, assert_less_equal=_debug.assert_less_equal,
    assert_greater=_debug.assert_greater, assert_greater_equal=_debug.assert_greater_equal,
    assert_positive=_debug.assert_positive, assert_negative=_debug.assert_negative,
    assert_non_negative=_debug.assert_non_negative, Assert=_debug.Assert)
experimental = _types.SimpleNamespace(
    function_executor_type=None)


def __getattr__(name):
    # gradients, layers and optimizers load on first use to keep `import runtime` fast
    # (importlib, not `from . import x`: that form asks this hook for `x` again and recurses)
    if name in ("GradientTape", "stop_gradient", "custom_gradient", "gradients"):
        _g = _importlib.import_module(".gradients", __name__)
        return _g if name == "gradients" and not hasattr(_g, "gradients") else getattr(_g, name)
    if name in ("Model", "layers"):
        _layers = _importlib.import_module(".layers", __name__)
        return _layers if name == "layers" else _layers.Model
    if name in ("saved_model", "dask"):  # dask is an optional extra: loaded only when asked
        return _importlib.import_module(f".{name}", __name__)
    if name in ("optimizers", "train"):
        _opt = _importlib.import_module(".optimizers", __name__)
        return _opt if name == "optimizers" else _opt.train
    raise AttributeError(f"module 'runtime' has no attribute {name!r}")


__version__ = "0.1.0"

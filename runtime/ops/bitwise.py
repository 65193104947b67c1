"""`tf.bitwise`: and, or, xor, invert and the shifts of integer tensors, elementwise.

And, or, xor and invert name their NumPy ufunc, so every tier derives its kernel from it. The
shift ops clamp the amount to [0, bits - 1] themselves, as TensorFlow's kernels do
(`left_shift(1, 100)` on int8 shifts by 7; a negative amount shifts by 0), so every tier gives
the same result for any amount (the XLA tier's rule is in backends/xla/lowering.py). Integer
ops have no gradient. A float operand is a TypeError, as every shape rule's refusal of a dtype
is here (TensorFlow raises InvalidArgumentError naming the allowed dtypes).
"""

from __future__ import annotations

import numpy as np

from ..exports import export
from ..opdef import define
from ..tensor import Tensor
from .core import apply, binary_operands, convert_to_tensor
from .shape_rules import broadcast

_INTEGERS = "int8, int16, int32, int64, uint8, uint16, uint32, uint64"


def _check_integer(name: str, x) -> None:
    if not x.dtype.is_integer:
        raise TypeError(
            f"{name} needs integer tensors ({_INTEGERS}), got {x.dtype.name}; cast it first "
            "with rt.cast(x, rt.int32).")


def _integer_infer(name: str):
    def infer(*xs):
        for x in xs:
            _check_integer(name, x)
        shape = xs[0].shape if len(xs) == 1 else broadcast(xs[0].shape, xs[1].shape, name)
        return shape, xs[0].dtype
    return infer


BITWISE_AND = define("BitwiseAnd", _integer_infer("BitwiseAnd"), ufunc=np.bitwise_and,
                     differentiable=False)
BITWISE_OR = define("BitwiseOr", _integer_infer("BitwiseOr"), ufunc=np.bitwise_or,
                    differentiable=False)
BITWISE_XOR = define("BitwiseXor", _integer_infer("BitwiseXor"), ufunc=np.bitwise_xor,
                     differentiable=False)
INVERT = define("Invert", _integer_infer("Invert"), ufunc=np.invert, differentiable=False)


def _shift_kernel(shift):
    def kernel(x, y):
        x = np.asarray(x)
        bits = 8 * x.dtype.itemsize
        # TensorFlow's kernels clamp the amount to [0, bits - 1]: defined on every tier
        return shift(x, np.clip(np.asarray(y), 0, bits - 1).astype(x.dtype))
    kernel.__name__ = shift.__name__
    return kernel


LEFT_SHIFT = define("LeftShift", _integer_infer("LeftShift"), _shift_kernel(np.left_shift),
                    differentiable=False)
RIGHT_SHIFT = define("RightShift", _integer_infer("RightShift"), _shift_kernel(np.right_shift),
                     differentiable=False)


def _binary(op, doc: str):
    def fn(x, y, name=None) -> Tensor:
        a, b = binary_operands(x, y)
        return apply(op, [a, b], name=name)
    fn.__doc__ = doc
    return fn


bitwise_and = export("bitwise.bitwise_and")(_binary(
    BITWISE_AND, "Elementwise `x & y` of two integer tensors of one dtype (broadcast)."))
bitwise_or = export("bitwise.bitwise_or")(_binary(
    BITWISE_OR, "Elementwise `x | y` of two integer tensors of one dtype (broadcast)."))
bitwise_xor = export("bitwise.bitwise_xor")(_binary(
    BITWISE_XOR, "Elementwise `x ^ y` of two integer tensors of one dtype (broadcast)."))


@export("bitwise.invert")
def invert(x, name=None) -> Tensor:
    """Elementwise `~x`: every bit flipped (`invert(0)` of uint8 is 255, of int8 -1)."""
    return apply(INVERT, [convert_to_tensor(x)], name=name)


def _clamped_shift(op, x, y, name):
    return apply(op, list(binary_operands(x, y)), name=name)


@export("bitwise.left_shift")
def left_shift(x, y, name=None) -> Tensor:
    """Elementwise `x << y`; `y` is clamped to [0, bits - 1] and the result wraps in x's dtype
    (`left_shift(int8(5), 7)` is -128)."""
    return _clamped_shift(LEFT_SHIFT, x, y, name)


@export("bitwise.right_shift")
def right_shift(x, y, name=None) -> Tensor:
    """Elementwise `x >> y`, arithmetic for signed dtypes (the sign bit is copied); `y` is
    clamped to [0, bits - 1]."""
    return _clamped_shift(RIGHT_SHIFT, x, y, name)
